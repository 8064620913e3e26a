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
  /**
   * `count` for a text made of pieces other texts held (a rolling summary repeats most of the
   * previous pass's facts and lines): when not cached, a long one is counted as the sum of its
   * segments (`segmentEnds`), each cached apart, so only its new segments are tokenized. The same
   * number as `count`. Optional: callers fall back to `count`.
   */
  countComposed?(text: string): number
}

/**
 * Wraps a raw counter with a cache keyed by the content itself (a JS Map hashes string keys
 * by content), so the same text is tokenized once per encoding, and re-plans never re-tokenize.
 * `countComposed` counts a long uncached text of `SEGMENT_MIN_CHARS` or more by its segments
 * (`segmentEnds`), each cached apart (at most `SEGMENT_CACHE_ENTRIES`): the sum equals the whole
 * count for the o200k and cl100k pre-tokenizers `raw` must follow. Source: SPEC §2 "Counts are
 * cached by content hash".
 */
export function cacheCounter(encoding: Encoding, raw: TextCounter): CachedCounter {
  const cache = new Map<string, number>()
  const segments = new Map<string, number>()
  let calls = 0
  const bySegments = (text: string, ends: readonly number[]): number => {
    let n = 0
    let from = 0
    for (const end of [...ends, text.length]) {
      const segment = text.slice(from, end)
      from = end
      let c = segments.get(segment) ?? cache.get(segment)
      if (c === undefined) {
        calls++
        c = raw(segment)
        if (segments.size >= SEGMENT_CACHE_ENTRIES) segments.clear()
        segments.set(segment, c)
      }
      n += c
    }
    return n
  }
  const count = (text: string): number => {
    if (text === '') return 0
    const hit = cache.get(text)
    if (hit !== undefined) return hit
    calls++
    const n = raw(text)
    cache.set(text, n)
    return n
  }
  return {
    encoding,
    count,
    countComposed(text: string): number {
      const hit = text === '' ? 0 : cache.get(text)
      if (hit !== undefined) return hit
      const ends = text.length >= SEGMENT_MIN_CHARS ? segmentEnds(text) : []
      if (ends.length === 0) return count(text)
      const n = bySegments(text, ends)
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
      segments.clear()
    },
  }
}

/** Texts of this many UTF-16 code units or more are counted by segments (`CachedCounter.countComposed`). */
const SEGMENT_MIN_CHARS = 1024

/** Most segments `cacheCounter` keeps counts of (emptied when full). */
const SEGMENT_CACHE_ENTRIES = 50_000

/**
 * Offsets (UTF-16 code units, ascending, each in 1…length − 1) where `text` can be cut so that
 * the o200k and cl100k token counts of the pieces add up to the count of the whole: before a `;`
 * that follows a letter or number, and after a line feed followed by neither whitespace nor `/`.
 * No pre-token of either tokenizer's split pattern spans such a cut — a letter pre-token never
 * holds `;`; the punctuation pre-token (` ?[^\s\p{L}\p{N}]+[\r\n/]*`) never holds a letter or
 * number and runs on past a line feed only into `\r`, `\n` or `/`; whitespace pre-tokens end at
 * the first non-space — and the one lookahead (`\s+(?!\S)`) is never reached for the spaces
 * before a line feed (`\s*[\r\n]+` takes them first). Byte-pair merging stays inside a
 * pre-token, and the long-run cuts of the bounded counter fall at the same places (no run of
 * letters, punctuation or spaces crosses a cut). Source: the split patterns of tiktoken's
 * o200k_base and cl100k_base.
 */
export function segmentEnds(text: string): number[] {
  const ends: number[] = []
  let semi = text.indexOf(';', 1)
  let line = text.indexOf('\n')
  while (semi !== -1 || line !== -1) {
    if (semi !== -1 && (line === -1 || semi < line + 1)) {
      if (letterOrNumberBefore(text, semi)) ends.push(semi)
      semi = text.indexOf(';', semi + 1)
    } else {
      const at = line + 1
      const c = text.charCodeAt(at)
      if (at < text.length && c !== 0x2f && !isSpace(c) && ends[ends.length - 1] !== at) ends.push(at)
      line = text.indexOf('\n', at)
    }
  }
  return ends
}

/** Whether the code point ending just before `at` is a letter (`\p{L}`) or a number (`\p{N}`), not a mark. */
function letterOrNumberBefore(text: string, at: number): boolean {
  const c = text.charCodeAt(at - 1)
  if (c < 0x80) return (c >= 0x30 && c <= 0x39) || ((c | 0x20) >= 0x61 && (c | 0x20) <= 0x7a)
  const ch = (c & 0xfc00) === 0xdc00 && at >= 2 && (text.charCodeAt(at - 2) & 0xfc00) === 0xd800 ? text.slice(at - 2, at) : text[at - 1]
  return LETTER_OR_NUMBER_RE.test(ch ?? '')
}

const LETTER_OR_NUMBER_RE = /^[\p{L}\p{N}]$/u

/** Whether UTF-16 code unit `c` is whitespace (`\s`). */
function isSpace(c: number): boolean {
  let b = bmpClass[c] as number
  if (b === 0) bmpClass[c] = b = classOf(String.fromCharCode(c)) + 8
  return ((b - 8) & SPACE) !== 0
}

const counters = new Map<Encoding, Promise<CachedCounter>>()
/** The counters of `counters` that finished loading. */
const loaded = new Set<CachedCounter>()

/**
 * Longest run, in UTF-16 code units, that the counter hands to the tokenizer whole. A run is a
 * maximal stretch of letters and marks (`[\p{L}\p{M}]`), of punctuation and symbols
 * (`[^\s\p{L}\p{N}]`, marks included), or of whitespace (`\s`): what the o200k and cl100k
 * pre-tokenizers keep as one pre-token (digits they split in 1–3 themselves). Byte-pair merging is
 * quadratic in a pre-token's length: measured with gpt-tokenizer o200k, runs of 1,000 cost about
 * what runs of 128 do per character (unspaced CJK ≈ 2×), 4,000 cost 2–4× that and 16,000 ≈ 20×
 * ('A' × 16,000: 0.4 s; 1 MB of one character did not finish in 120 s).
 */
const RUN_BOUND = 1000

/**
 * Length, in code units, of the chunks a run longer than `RUN_BOUND` is cut into and counted
 * one by one. A power of two: a run of one repeated character then counts what it counts whole
 * ('A' × 1 MB: 131,072 tokens both ways), since its merges are powers of two long.
 */
const RUN_CHUNK = 512

/** Class bits of a code point for the run scan: letter or mark, punctuation or symbol, space. */
const LETTER = 1
const PUNCT = 2
const SPACE = 4
const LETTER_RE = /[\p{L}\p{M}]/u
const PUNCT_RE = /[^\s\p{L}\p{N}]/u
const SPACE_RE = /\s/u
/** Class bits + 8 (0: not classified yet) of every BMP code unit met so far. */
const bmpClass = new Uint8Array(65536)

function classOf(ch: string): number {
  return (LETTER_RE.test(ch) ? LETTER : 0) | (PUNCT_RE.test(ch) ? PUNCT : 0) | (SPACE_RE.test(ch) ? SPACE : 0)
}

/** Class bits (`LETTER`, `PUNCT`, `SPACE`) of the code point starting at code unit `i` of `text`. */
function classAt(text: string, i: number): number {
  const c = text.charCodeAt(i)
  if ((c & 0xfc00) === 0xd800 && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) return classOf(text.slice(i, i + 2))
  let b = bmpClass[c] as number
  if (b === 0) bmpClass[c] = b = classOf(String.fromCharCode(c)) + 8
  return b - 8
}

/** Code units of the code point starting at `i` (2 for a surrogate pair, else 1). */
function widthAt(text: string, i: number): number {
  return (text.charCodeAt(i) & 0xfc00) === 0xd800 && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00 ? 2 : 1
}

/** Start of the code point that ends just before code unit `i` (`i` − 2 for a surrogate pair). */
function startBefore(text: string, i: number): number {
  return i >= 2 && (text.charCodeAt(i - 1) & 0xfc00) === 0xdc00 && (text.charCodeAt(i - 2) & 0xfc00) === 0xd800 ? i - 2 : i - 1
}

/**
 * Calls `onRun(start, end)` (code-unit offsets, end exclusive) for every maximal run of each
 * class (see `RUN_BOUND`) longer than `RUN_BOUND`. A run that long holds a multiple of
 * `RUN_BOUND`, so only the code points at those offsets are looked at, each run through one of
 * them measured once in both directions: O(length / RUN_BOUND + the long runs' length), where a
 * scan of every code point took 0.3 s of a 50 MB session's first run. A mark belongs to both the
 * letter and the punctuation runs around it, so runs of two classes may overlap. Order: by the
 * first sampled offset inside each run.
 */
export function scanLongRuns(text: string, onRun: (start: number, end: number) => void): void {
  const n = text.length
  // Per class bit: the end of the last run measured (offsets before it are inside that run).
  const measured = [0, 0, 0, 0, 0]
  for (let sample = 0; sample < n; sample += RUN_BOUND) {
    // The low half of a surrogate pair belongs to the code point before it.
    const p = sample > 0 && widthAt(text, sample - 1) === 2 ? sample - 1 : sample
    const cls = classAt(text, p)
    for (const bit of [LETTER, PUNCT, SPACE]) {
      if (!(cls & bit) || p < (measured[bit] as number)) continue
      let start = p
      while (start > 0) {
        const q = startBefore(text, start)
        if (!(classAt(text, q) & bit)) break
        start = q
      }
      let end = p + widthAt(text, p)
      while (end < n && classAt(text, end) & bit) end += widthAt(text, end)
      measured[bit] = end
      if (end - start > RUN_BOUND) onRun(start, end)
    }
  }
}

/**
 * Length, in UTF-16 code units, of the longest run in `text` (a maximal stretch of letters and
 * marks, of punctuation and symbols, or of whitespace) longer than the bound the counter hands
 * to the tokenizer whole (1,000 code units); 0 when there is none. Non-zero means the counter
 * cut that run into 512-code-unit chunks and counted each: the count is an estimate (a few tokens
 * per chunk off at most). The same answer in both encodings (cl100k splits letters from marks,
 * so it may be exact where this says estimate). Linear in `text.length`; O(1) for texts of up
 * to 1,000 code units.
 */
export function chunkedRunLength(text: string): number {
  if (text.length <= RUN_BOUND) return 0
  let longest = 0
  scanLongRuns(text, (start, end) => {
    longest = Math.max(longest, end - start)
  })
  return longest
}

/**
 * Whether the counter's count of `text` is an estimate (a run of more than 1,000 code units
 * counted in chunks; see `chunkedRunLength`) rather than the tokenizer's exact count.
 */
export function isTokenEstimate(text: string): boolean {
  return chunkedRunLength(text) > 0
}

/**
 * The one wording of a chunked-run estimate, for every consumer (page and CLI). With `run` (the
 * longest run's length in code units, `chunkedRunLength`): the note of one message's count;
 * without: the note of a total that sums such a count.
 */
export function tokenEstimateNote(run?: number): string {
  return run === undefined
    ? `≈ estimate: includes a run of over ${RUN_BOUND.toLocaleString('en-US')} characters counted in chunks`
    : `≈ estimate: this message holds a run of ${run.toLocaleString('en-US')} characters counted in chunks`
}

/**
 * `raw` bounded in time on any text: a text with a run longer than `RUN_BOUND` is cut inside
 * each such run every `RUN_CHUNK` code units (never between the two halves of a surrogate
 * pair) and the pieces counted one by one; any other text is counted whole, exactly.
 */
function boundedCounter(raw: TextCounter): TextCounter {
  return (text) => {
    if (text.length <= RUN_BOUND) return raw(text)
    const cuts: number[] = []
    scanLongRuns(text, (start, end) => {
      for (let at = start + RUN_CHUNK; at < end; at += RUN_CHUNK) {
        const lowHalf = (text.charCodeAt(at) & 0xfc00) === 0xdc00 && (text.charCodeAt(at - 1) & 0xfc00) === 0xd800
        cuts.push(lowHalf ? at + 1 : at)
      }
    })
    if (cuts.length === 0) return raw(text)
    // Overlapping runs (marks) give cuts out of order.
    cuts.sort((a, b) => a - b)
    let n = 0
    let from = 0
    for (const at of cuts) {
      if (at <= from || at >= text.length) continue
      n += raw(text.slice(from, at))
      from = at
    }
    return n + raw(text.slice(from))
  }
}

/**
 * The raw fast counter (gpt-tokenizer `countTokens`, no content cache) for an encoding: what
 * `loadCounter` wraps, and what a pool of tokenizer workers runs (their texts are already
 * distinct, a cache there would only hold memory). Rank tables are MBs: worker, CLI or tests
 * only. Special-token strings (`<|endoftext|>`) count as plain text. Bounded in time on any
 * text: a run of more than 1,000 code units is counted in chunks, an estimate
 * (`chunkedRunLength`); every other text gets the exact count. Source: BENCH.md "Tuning facts
 * for the counter" (merge cache at 1000 entries, options object made once).
 */
export async function loadTextCounter(encoding: Encoding): Promise<TextCounter> {
  const mod =
    encoding === 'cl100k_base'
      ? await import('gpt-tokenizer/encoding/cl100k_base')
      : await import('gpt-tokenizer/encoding/o200k_base')
  mod.setMergeCacheSize(1000)
  // Created once: an empty disallowed set makes special-token strings count as text.
  const options = { disallowedSpecial: new Set<string>() }
  return boundedCounter((text) => mod.countTokens(text, options))
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

/** `messageChunkedRun` per message object (messages are immutable). */
const messageRuns = new WeakMap<Message, number>()

/**
 * The longest run (`chunkedRunLength`, code units) among the texts `countMessageTokens` counts
 * for `message`; 0 when its count is exact (images and opaque payloads have their own flat
 * estimates and are not looked at). Cached per message object.
 */
export function messageChunkedRun(message: Message): number {
  let run = messageRuns.get(message)
  if (run === undefined) {
    let longest = 0
    countMessageTokens(message, (text) => {
      longest = Math.max(longest, chunkedRunLength(text))
      return 0
    })
    messageRuns.set(message, (run = longest))
  }
  return run
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
