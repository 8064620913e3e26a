/**
 * `insert-then-compress`: instead of a separate summarization call, a compression instruction
 * is appended to the existing request (same system prompt, tools and history, byte-identical),
 * so the provider's prompt cache over that prefix is reused; the answer becomes one summary
 * message, and the context is rebuilt as system + summary + recent messages.
 * Source: seed 003 (Clacky `MessageCompressor`), SPEC §3.4, cases/48.
 */
import type { Fate, InsertThenCompressParams, Message, Origin, Pass } from '../model'
import { pairToolResults } from '../tool-pairs'
import { SUMMARY_ID_PREFIX, unchangedOutput } from './output'
import { countDefault } from './definitions'
import { readCounts } from './params'
import type { StageContext, StageOutput } from './types'
import { statelessDecisions } from './triggers'
import { withThinkingRules } from './thinking'
import { inputRecord } from '../util/input-record'

/**
 * Default trigger, in tokens of the chosen encoding (see pipeline.ts `DEFAULT_PIPELINE` for why).
 */
export const DEFAULT_THRESHOLD_TOKENS = countDefault('insert-then-compress', 'threshold_tokens')

/** Default count of recent messages kept verbatim (before extension over tool pairs). */
export const DEFAULT_KEEP_RECENT = countDefault('insert-then-compress', 'keep_recent')

/**
 * The compression instruction appended as a `user` message after the whole conversation. Our
 * own wording of seed 003 `COMPRESSION_PROMPT`: the conversation has ended, do not continue it,
 * call no tools, answer in plain text starting with `<summary>` or `<analysis>`, and cover
 * requests, concepts, files, errors and pending work.
 */
export const COMPRESSION_INSTRUCTION = `MEMORY COMPRESSION — THE TASK HAS CHANGED

The conversation above is over. Do not continue it and do not answer any request in it.
Do not call any tool or function, and do not emit tool calls: reply in plain text only.

Your only task now: write a thorough summary of the conversation above. Start your reply
with <summary> or <analysis>; no other format is accepted.

Cover:
- what the user explicitly asked for, and why;
- the key technical concepts and the code changes;
- every file that was read or changed;
- the errors that occurred and how they were fixed;
- where the work stands now, and what is still pending.

Write the summary now: plain text, starting with <summary> or <analysis>.`

/** The error when the model's answer is empty. Source: seed 003 `rebuild_with_compression`. */
export const EMPTY_ANSWER_ERROR = 'LLM compression failed: unable to parse compressed messages'

/** Id of the instruction message of the compression request. */
const INSTRUCTION_MESSAGE_ID = 'instruction:insert-then-compress'

/** Id of the summary message that replaces the compressed messages. */
export const COMPRESSED_SUMMARY_ID = `${SUMMARY_ID_PREFIX}insert-then-compress:1`

/** `InsertThenCompressParams` after defaults, plus the role of the summary message. */
export interface NormalizedInsertThenCompressParams {
  threshold_tokens: number
  keep_recent: number
  archive_anchor: boolean
  /**
   * Role of the summary message: `assistant` (seed 003) unless `summary_role: 'user'` is set —
   * providers that require the first non-system message to be a user turn (Anthropic) need it:
   * the pipeline sets it for them when absent, and turns an explicit `assistant` into `user` there
   * with a warning (opening-turn.ts).
   */
  summary_role: 'assistant' | 'user'
}

/**
 * Defaults of `insert-then-compress` params: a non-numeric or negative `threshold_tokens` →
 * `DEFAULT_THRESHOLD_TOKENS`; a non-numeric or negative `keep_recent` → `DEFAULT_KEEP_RECENT`
 * (0 is allowed: nothing recent kept). Integers are truncated. Pure.
 */
export function normalizeInsertParams(
  params: (Partial<InsertThenCompressParams> & { summary_role?: unknown }) | undefined,
): NormalizedInsertThenCompressParams {
  const { values } = readCounts('insert-then-compress', params)
  return {
    threshold_tokens: values.threshold_tokens!,
    keep_recent: values.keep_recent!,
    archive_anchor: params?.archive_anchor === true,
    summary_role: params?.summary_role === 'user' ? 'user' : 'assistant',
  }
}

/**
 * Position where the recent messages start: `length - keep_recent`, moved back while a tool
 * result at or after it answers a call made before it (or it sits on a tool result), so no
 * tool result is separated from its call. Source: seed 003 `get_recent_messages_with_tool_pairs`.
 */
export function recentStart(messages: readonly Message[], keepRecent: number): number {
  let start = Math.max(0, messages.length - keepRecent)
  // Results pair with calls by position, so a reused call id pulls back only to its own call.
  const { callOf } = pairToolResults(messages)
  // The earliest call answered by a result in the recent part pulls the start back to it.
  for (;;) {
    let earliest = start
    for (let i = start; i < messages.length; i++) {
      const at = callOf[i]?.message
      if (at !== undefined && at < earliest) earliest = at
    }
    while (earliest > 0 && messages[earliest]?.role === 'tool') earliest--
    if (earliest >= start) return start
    start = earliest
  }
}

/** The compression request: the conversation's messages, the same objects, then the instruction. */
export interface CompressionRequest {
  /** `conversation` followed by `instruction`: what is sent. */
  messages: Message[]
  instruction: Message
  /** How many leading messages are the unchanged (cacheable) prefix. */
  prefixLength: number
}

/**
 * Builds the request of seed 003: the existing messages unchanged (same objects, so
 * byte-identical when serialized) plus one appended `user` message holding
 * `COMPRESSION_INSTRUCTION`. The tool schemas are sent unchanged by the caller. Pure.
 * Source: seed 003 `build_compression_message`, cases/48.
 */
export function buildCompressionRequest(messages: readonly Message[]): CompressionRequest {
  const instruction: Message = {
    id: INSTRUCTION_MESSAGE_ID,
    index: messages.length,
    role: 'user',
    content: COMPRESSION_INSTRUCTION,
    flags: { injected: true },
    source: { format: messages[0]?.source.format ?? 'canonical' },
  }
  return { messages: [...messages, instruction], instruction, prefixLength: messages.length }
}

/** The text shown as the pass prompt: what the request is, then the appended instruction. */
export function compressionPromptText(prefixLength: number): string {
  return `[request = the ${prefixLength} messages of the conversation, byte-identical (same system prompt and tool schemas), then this user message]\n\n${COMPRESSION_INSTRUCTION}`
}

/**
 * The anchor appended to the summary when `archive_anchor` is on. Source: seed 003
 * `parse_compressed_result`.
 */
export function archiveAnchor(chunkName: string): string {
  return `\n\n---\nOriginal conversation archived as \`${chunkName}\`; it holds the messages this summary replaces.`
}

/**
 * Runs `insert-then-compress` over `messages`.
 *
 * - Fires only when the context's tokens (`ctx.countMessage` summed, plus `ctx.fixedTokens`)
 *   exceed `threshold_tokens`; every turn end is logged in `decisions` (triggers.ts
 *   `statelessDecisions`; the last one carries pass 1 when it fired).
 * - Recent = `recentStart(messages, keep_recent)`..end; compressed = every message before it
 *   except the first system message. Nothing to compress → no call, note.
 * - The summarizer gets `prompt` = `COMPRESSION_INSTRUCTION`, `conversation` = the whole input,
 *   `slice` = the compressed messages. Its answer (trimmed) becomes one message (role
 *   `assistant`, or `user` with `summary_role: 'user'`), with `archiveAnchor` when asked.
 * - Rebuilt: the first system message, the summary, the recent messages without any system
 *   message (never a duplicated system prompt).
 * - Signed thinking blocks of recent messages before the latest user message are removed whole
 *   (thinking.ts `withThinkingRules`: Anthropic's rules after a summary), and the pass's
 *   `tokensAfter` is the context without them.
 * - An empty answer → `error` = `EMPTY_ANSWER_ERROR`, input passed on (never an empty context);
 *   a rebuilt context that is not smaller than the input is refused (note, input kept).
 *
 * Provenance: compressed messages → `summarized` (pass 1); system messages among the recent →
 * `dropped`. One `Pass` whose `prompt` is `compressionPromptText`. Never mutates its input.
 * Source: seed 003, SPEC §3.4.
 */
export async function insertThenCompress(
  messages: readonly Message[],
  params: Partial<InsertThenCompressParams> | undefined,
  ctx: StageContext,
): Promise<StageOutput> {
  const output = await compressOnce(messages, params, ctx)
  const threshold = normalizeInsertParams(params).threshold_tokens
  const rule = { measure: 'tokens', threshold, source: `threshold_tokens ${threshold.toLocaleString('en-US')}`, op: '>' } as const
  const decisions = statelessDecisions(
    'insert-then-compress',
    messages,
    (i) => ctx.countMessage(messages[i]!),
    ctx.fixedTokens ?? 0,
    rule,
    output.changed,
    output.note,
  )
  const last = decisions[decisions.length - 1]
  if (last?.fired) {
    last.pass = 1
    last.tokensAfter = output.passes[0]?.tokensAfter ?? last.tokens
  }
  return { ...output, decisions }
}

/** `insertThenCompress` without its decision log (see there). */
async function compressOnce(
  messages: readonly Message[],
  params: Partial<InsertThenCompressParams> | undefined,
  ctx: StageContext,
): Promise<StageOutput> {
  const p = normalizeInsertParams(params)
  const unchanged = (note: string, error?: string): StageOutput =>
    unchangedOutput(messages, note, error === undefined ? {} : { error })
  // Totals include what every request carries (tool schemas, reply priming): cases/28.
  const tokensOf = (ms: readonly Message[]) =>
    ms.reduce((n, m) => n + ctx.countMessage(m), ctx.fixedTokens ?? 0)
  const total = tokensOf(messages)
  if (!(total > p.threshold_tokens))
    return unchanged(`under threshold (${total} ≤ ${p.threshold_tokens} tokens)`)

  const start = recentStart(messages, p.keep_recent)
  const systemIndex = messages.findIndex((m) => m.role === 'system')
  const systemMessage = systemIndex === -1 ? undefined : messages[systemIndex]
  const compressed = messages.slice(0, start).filter((_, i) => i !== systemIndex)
  if (compressed.length === 0)
    return unchanged('nothing to compress: every message is recent or the system prompt')

  const request = buildCompressionRequest(messages)
  let answer: string
  try {
    answer = await ctx.summarize({
      stage: 'insert-then-compress',
      prompt: COMPRESSION_INSTRUCTION,
      slice: compressed,
      conversation: messages,
    })
  } catch (e) {
    return unchanged(
      'summarizer failed',
      `summarizer failed: ${e instanceof Error ? e.message : String(e)}`,
    )
  }
  let content = String(answer ?? '').trim()
  if (content === '') return unchanged('empty answer', EMPTY_ANSWER_ERROR)

  const first = compressed[0] as Message
  const lastCompressed = compressed[compressed.length - 1] as Message
  if (p.archive_anchor)
    content += archiveAnchor(`compressed-chunk-${first.index}-${lastCompressed.index}.md`)
  const recent = messages.slice(start)
  const summary: Message = {
    id: COMPRESSED_SUMMARY_ID,
    index: systemMessage ? 1 : 0,
    role: p.summary_role,
    content,
    source: { format: first.source.format },
  }
  const rebuilt = [
    ...(systemMessage ? [systemMessage] : []),
    summary,
    ...recent.filter((m) => m.role !== 'system'),
  ]

  const fates = inputRecord<Fate>()
  for (const m of compressed)
    fates[m.id] = {
      kind: 'summarized',
      stage: 'insert-then-compress',
      pass: 1,
      summaryId: summary.id,
    }
  for (const m of recent) {
    if (m.role === 'system' && m !== systemMessage) {
      fates[m.id] = {
        kind: 'dropped',
        stage: 'insert-then-compress',
        reason: 'system message among the recent messages (never a duplicated system prompt)',
      }
    }
  }
  const origins: Record<string, Origin> = {
    [summary.id]: {
      kind: 'summary',
      stage: 'insert-then-compress',
      pass: 1,
      fromIndex: first.index,
      toIndex: lastCompressed.index,
      coveredIds: compressed.map((m) => m.id),
    },
  }
  // The context this pass leaves is the rebuilt one with the thinking rules applied: counted so.
  const ruled = withThinkingRules({ messages: rebuilt, changed: true, fates, origins, passes: [], warnings: [] }, 'insert-then-compress')
  const after = tokensOf(ruled.messages)
  if (after >= total) {
    return unchanged(
      `refused: the rebuilt context (${after} tokens) is not smaller than before (${total} tokens)`,
    )
  }
  const pass: Pass = {
    pass: 1,
    stage: 'insert-then-compress',
    atMessage: messages[messages.length - 1]?.index ?? 0,
    from: first.index,
    upto: lastCompressed.index + 1,
    prompt: compressionPromptText(request.prefixLength),
    summary: content,
    summaryId: summary.id,
    // The request itself: the whole conversation plus the instruction (the cost view's input).
    tokensBefore: total,
    tokensAfter: after,
  }
  return { ...ruled, passes: [pass] }
}
