import type { Encoding, Message, Part, ToolSchema } from '../model'

/**
 * Tokens added per message for the role and message framing. Source: OpenAI cookbook
 * "How to count tokens with tiktoken" (`num_tokens_from_messages`: `tokens_per_message = 3`
 * for the gpt-3.5-turbo-0613 / gpt-4 / gpt-4o families).
 */
export const MESSAGE_OVERHEAD_TOKENS = 3

/** Tokens that prime every reply (`<|start|>assistant<|message|>`). Same source as above. */
export const REPLY_PRIMING_TOKENS = 3

/**
 * Flat estimate for one image, whatever its base64 size: the base64 text is never tokenized.
 * Source: cases/29 (Codex charges 7,373 bytes ≈ 1,843 tokens per image).
 */
export const IMAGE_TOKENS = 1843

/** Bytes per token for opaque payloads (encrypted reasoning, unknown blocks): an estimate. */
const OPAQUE_BYTES_PER_TOKEN = 4

/** Counts the tokens of one string in a given encoding. Must be pure and deterministic. */
export type TextCounter = (text: string) => number

/** A text counter with a per-content cache and a call counter (for "zero tokenizer calls per re-plan"). */
export interface CachedCounter {
  encoding: Encoding
  /** Tokens of `text`; a cache hit never calls the tokenizer. */
  count: TextCounter
  /** How many times the real tokenizer ran (cache misses). */
  readonly tokenizerCalls: number
  /**
   * Whether `text` is already counted (the cache holds it). Optional: a counter without a cache
   * answers false, so callers count everything.
   */
  has?(text: string): boolean
  /**
   * Stores a count made elsewhere (a pool of tokenizer workers) so `count(text)` hits the cache;
   * not a tokenizer call. `tokens` must be what the raw counter would return for `text`.
   */
  prime?(text: string, tokens: number): void
  /** Drops every cached count (not a tokenizer call; the next `count` of a text tokenizes it). */
  forget?(): void
}

/**
 * Wraps a raw counter with a cache keyed by the content itself (a JS Map hashes string keys
 * by content), so the same text is tokenized once per encoding, and re-plans never re-tokenize.
 * Source: SPEC §2 "Counts are cached by content hash".
 */
export function cacheCounter(encoding: Encoding, raw: TextCounter): CachedCounter {
  const cache = new Map<string, number>()
  let calls = 0
  return {
    encoding,
    count(text: string): number {
      if (text === '') return 0
      const hit = cache.get(text)
      if (hit !== undefined) return hit
      calls++
      const n = raw(text)
      cache.set(text, n)
      return n
    },
    get tokenizerCalls() {
      return calls
    },
    has(text: string): boolean {
      return text === '' || cache.has(text)
    },
    prime(text: string, tokens: number): void {
      if (text !== '') cache.set(text, tokens)
    },
    forget(): void {
      cache.clear()
    },
  }
}

const counters = new Map<Encoding, Promise<CachedCounter>>()
/** The counters of `counters` that finished loading. */
const loaded = new Set<CachedCounter>()

/**
 * The raw fast counter (gpt-tokenizer `countTokens`, no content cache) for an encoding: what
 * `loadCounter` wraps, and what a pool of tokenizer workers runs (their texts are already
 * distinct, a cache there would only hold memory). Rank tables are MBs: worker, CLI or tests
 * only. Special-token strings (`<|endoftext|>`) count as plain text. Source: BENCH.md "Tuning
 * facts for the counter" (merge cache at 1000 entries, options object made once).
 */
export async function loadTextCounter(encoding: Encoding): Promise<TextCounter> {
  const mod =
    encoding === 'cl100k_base'
      ? await import('gpt-tokenizer/encoding/cl100k_base')
      : await import('gpt-tokenizer/encoding/o200k_base')
  mod.setMergeCacheSize(1000)
  // Created once: an empty disallowed set makes special-token strings count as text.
  const options = { disallowedSpecial: new Set<string>() }
  return (text) => mod.countTokens(text, options)
}

/**
 * Loads the fast counter (`loadTextCounter`) for an encoding with its content cache, once per
 * process. The rank tables are MBs: call this only from the worker, the CLI or tests, never from
 * main-thread UI code. Source: SPEC §2, BENCH.md "Tuning facts for the counter".
 */
export function loadCounter(encoding: Encoding): Promise<CachedCounter> {
  let p = counters.get(encoding)
  if (!p) {
    p = loadTextCounter(encoding).then((raw) => {
      const counter = cacheCounter(encoding, raw)
      loaded.add(counter)
      return counter
    })
    counters.set(encoding, p)
  }
  return p
}

/**
 * Drops the cached counts of every counter `loadCounter` has loaded: for when a new transcript
 * replaces the old one, so the texts of every file opened in a session are not kept alive as cache
 * keys (tens of MB per large file). Rank tables stay loaded.
 */
export function forgetCounts(): void {
  for (const counter of loaded) counter.forget?.()
}

function opaqueTokens(value: unknown): number {
  const s = typeof value === 'string' ? value : JSON.stringify(value ?? null)
  return Math.ceil(s.length / OPAQUE_BYTES_PER_TOKEN)
}

function partTokens(part: Part, count: TextCounter): number {
  switch (part.type) {
    case 'text':
      return count(part.text)
    case 'image':
      return IMAGE_TOKENS
    case 'thinking':
      // Readable thinking is tokenized; signatures are not billed as input; encrypted payloads are estimated.
      return (part.text ? count(part.text) : 0) + (part.encrypted ? opaqueTokens(part.encrypted) : 0)
    case 'opaque':
      return opaqueTokens(part.raw)
  }
}

/**
 * Tokens of one message: text (or every part) + each tool call's name and raw arguments +
 * `MESSAGE_OVERHEAD_TOKENS`. Images count `IMAGE_TOKENS` each, never their base64.
 * Source: SPEC §2; cases/27 (tool-call arguments count), cases/29 (images).
 */
export function countMessageTokens(message: Message, count: TextCounter): number {
  let n = MESSAGE_OVERHEAD_TOKENS
  const c = message.content
  if (typeof c === 'string') n += count(c)
  else if (c) for (const p of c) n += partTokens(p, count)
  if (message.toolCalls) for (const call of message.toolCalls) n += count(call.name) + count(call.arguments)
  return n
}

/**
 * Every string `countMessageTokens` and `countToolSchemaTokens` hand to the counter for these
 * messages and tools, added to `out` (empty strings left out), so a caller can count them ahead
 * of a run, e.g. in parallel, and `prime` the cache. Keep in step with the two functions above.
 */
export function textsToCount(
  messages: readonly Message[],
  tools: readonly ToolSchema[] | undefined,
  out: Set<string> = new Set(),
): Set<string> {
  const add = (text: string | undefined) => {
    if (text) out.add(text)
  }
  for (const m of messages) {
    const c = m.content
    if (typeof c === 'string') add(c)
    else if (c) for (const p of c) if (p.type === 'text' || p.type === 'thinking') add(p.text)
    for (const call of m.toolCalls ?? []) {
      add(call.name)
      add(call.arguments)
    }
  }
  countToolSchemaTokens(tools, (text) => {
    add(text)
    return 0
  })
  return out
}

/** Tokens of the tool schemas sent with every request (non-compactable overhead). Source: cases/28. */
export function countToolSchemaTokens(tools: readonly ToolSchema[] | undefined, count: TextCounter): number {
  if (!tools || tools.length === 0) return 0
  let n = 0
  for (const t of tools) n += count(JSON.stringify({ name: t.name, description: t.description ?? '', parameters: t.parameters ?? {} }))
  return n
}
