/**
 * Turns, the context at turn N and the token timeline: what the model had in context at each
 * turn of the session under the current pipeline, and how that grew with and without
 * compaction. Source: SPEC §3.2 "Rolling replay … Context at turn N is the same replay stopped
 * at N"; SPEC §6 (context-at-turn-N scrubber, token timeline chart).
 *
 * Everything is the ordinary pipeline run on a prefix of the transcript: there is no second
 * implementation of any stage here, so the context at the last turn is exactly the After of a
 * normal run. Re-runs are kept cheap by the caches the pipeline already uses — the token
 * counter caches counts by text, and `memoizeSummarizer` answers a summary request it has seen
 * before without asking the summarizer again.
 */
import { isTurnEnd } from '../content'
import { exportMessages, type ExportContext } from '../export'
import type {
  FormatId,
  Message,
  Origin,
  Pass,
  PipelineConfig,
  RunResult,
  StageReport,
  ToolSchema,
  Transcript,
  TriggerDecision,
} from '../model'
import { windowOf } from '../models'
import { summarizeTrigger } from '../stages/triggers'
import { runPipeline, type PipelineDeps } from '../pipeline'
import { partitionPoint } from '../util/search'
import { readCounts } from '../stages/params'
import type { CancelSignal, Summarizer, SummaryRequest } from '../stages/types'
import { calibrationFor, transcriptCounts } from '../usage/calibration'

/**
 * The turns of a transcript, as the inclusive index of each turn's last message, in order:
 * `ends[N - 1]` is where turn N ends (turns are numbered 1..T, T = `ends.length`).
 *
 * A turn ends at every assistant message with no tool calls, and the transcript's last message
 * always ends the last turn (a session cut off mid-turn still has that turn). Everything from
 * the message after the previous turn's end up to a turn end belongs to that turn: the user
 * message, the assistant's tool calls and their results, and the answer. Leading system
 * messages belong to turn 1. These are the points where the summarize stage's rolling replay
 * plans (SPEC §3.2), so "context at turn N" is the replay stopped at N. An empty transcript has
 * no turns (`[]`). Pure.
 */
export function turnEnds(messages: readonly Message[]): number[] {
  const ends: number[] = []
  messages.forEach((m, i) => {
    if (isTurnEnd(m) || i === messages.length - 1) ends.push(i)
  })
  return ends
}

/**
 * Wraps a deterministic summarizer so a request seen before is answered from memory, never
 * asked again: scrubbing turns and the timeline replay the same passes on every prefix.
 *
 * The key is the request's stage, its exact prompt, its previous summary and the content of its
 * slice. A slice message that is one of `originals` (the transcript's own message objects,
 * which the stages pass through untouched) is keyed by its index; any other (a placeholder,
 * back-reference or slimmed result a stage made this run) by its role, content and tool fields,
 * so two runs that built equal messages share an answer. A failed or cancelled request is
 * forgotten (the next run asks again). Only for summarizers whose answer depends on the
 * request alone (extractive, recorded, or an HTTP one behind its own cache).
 */
export function memoizeSummarizer(inner: Summarizer, originals: readonly Message[]): Summarizer {
  const known = new Map<Message, number>()
  originals.forEach((m, i) => known.set(m, i))
  const answers = new Map<string, Promise<string>>()
  const messageKey = (m: Message): string => {
    const i = known.get(m)
    if (i !== undefined) return `#${i}`
    return JSON.stringify([m.role, m.content, m.toolCalls ?? null, m.toolCallId ?? null, m.isError ?? false])
  }
  return (request: SummaryRequest) => {
    const key = JSON.stringify([
      request.stage,
      request.prompt,
      request.previous ?? null,
      request.slice.map(messageKey),
    ])
    const hit = answers.get(key)
    if (hit) return hit
    const answer = inner(request)
    answers.set(key, answer)
    answer.catch(() => {
      if (answers.get(key) === answer) answers.delete(key)
    })
    return answer
  }
}

/**
 * The context the model had at one turn under a pipeline. `messages` are the pipeline's After
 * of the prefix: leading system messages, then the summary / pinned-facts block when a stage
 * put one there (see `origins`), then the verbatim tail.
 */
export interface TurnContext {
  /** 1-based turn number. */
  turn: number
  /** Number of turns in the whole transcript. */
  turns: number
  /** Inclusive index (in the transcript) of the turn's last message: the prefix is `0..endIndex`. */
  endIndex: number
  /** The context: the pipeline's After of the prefix (re-indexed, `index === position`). */
  messages: Message[]
  /** Origin of every context message, keyed by its id (SPEC §4). */
  origins: Record<string, Origin>
  /** Tokens of every context message, keyed by its id. */
  tokensById: Record<string, number>
  /** Context tokens: messages + tool schemas + reply priming (the pipeline's `after.totals.tokens`). */
  tokens: number
  /** Tokens of the uncompacted prefix, counted the same way (`before.totals.tokens`). */
  tokensBefore: number
  /** Messages in the uncompacted prefix (`endIndex + 1`). */
  messagesBefore: number
  /** The passes that had fired by this turn (the prefix run's passes). */
  passes: Pass[]
  /** What each enabled stage did on the prefix (errors included). */
  stages: StageReport[]
  warnings: string[]
  /** The whole prefix run, for callers that want fates or checks. */
  run: RunResult
}

/** A transcript cut after its message `endIndex` (inclusive); everything else is shared, not copied. */
export function prefixOf(transcript: Transcript, endIndex: number): Transcript {
  if (endIndex >= transcript.messages.length - 1) return transcript
  return { ...transcript, messages: transcript.messages.slice(0, endIndex + 1) }
}

/**
 * The context at turn `turn` (1-based) of `transcript` under `config`: `runPipeline` on the
 * prefix that ends at that turn (`turnEnds`), so it is exactly what the rolling replay had
 * built when it reached that turn end — the pass that fires at this turn end included. At the
 * last turn it equals the After of a run over the whole transcript.
 *
 * `deps` are the pipeline's; pass the same cached counter and a `memoizeSummarizer`-wrapped
 * summarizer across calls so scrubbing neither re-tokenizes nor re-summarizes.
 * Throws a `RangeError` when `turn` is not an integer in 1..T (T = number of turns). Never
 * mutates `transcript`. Source: SPEC §3.2.
 */
export async function contextAtTurn(
  transcript: Transcript,
  config: PipelineConfig,
  turn: number,
  deps: PipelineDeps,
  ends: readonly number[] = turnEnds(transcript.messages),
): Promise<TurnContext> {
  const endIndex = ends[turn - 1]
  if (!Number.isInteger(turn) || endIndex === undefined) {
    throw new RangeError(`turn ${turn} is out of range: this transcript has turns 1–${ends.length}`)
  }
  const run = await runPipeline(prefixOf(transcript, endIndex), config, deps)
  return {
    turn,
    turns: ends.length,
    endIndex,
    messages: run.after.messages,
    origins: run.origins,
    tokensById: run.after.tokensById,
    tokens: run.after.totals.tokens,
    tokensBefore: run.before.totals.tokens,
    messagesBefore: run.before.totals.messages,
    passes: run.passes,
    stages: run.stages,
    warnings: run.warnings,
    run,
  }
}

// ---------------------------------------------------------------------------
// Token timeline
// ---------------------------------------------------------------------------

/** Default cap of evaluated turns before the timeline samples (plus every turn where a pass fires). */
const TIMELINE_MAX_EVALUATED = 300

/** A pass of the whole-transcript run, placed on the turn where it fired. */
export interface TimelinePass {
  turn: number
  stage: Pass['stage']
  pass: number
  /** Before-transcript indices: messages `from`..`upto-1` were summarized. */
  from: number
  upto: number
  tokensBefore: number
  tokensAfter: number
}

/** A threshold of the pipeline drawn on the timeline. */
export type TimelineThreshold =
  /**
   * A token level: prune's `target` and `trigger`, insert-then-compress's
   * `threshold_tokens`, summarize's token trigger (`param: 'trigger'`; `source` says how it was
   * derived, e.g. `200,000 window − 33,000 reserve`).
   */
  | {
      kind: 'tokens'
      stage: 'prune-tool-results' | 'insert-then-compress' | 'summarize'
      param: string
      tokens: number
      source?: string
    }
  /**
   * summarize's `compact_after` is a message count, not tokens: `turn` is the first turn whose
   * prefix has more than `compact_after` non-system messages (the earliest turn a pass can fire),
   * null when no turn does.
   */
  | { kind: 'messages'; stage: 'summarize'; param: 'compact_after'; messages: number; turn: number | null }

/** Context tokens per turn, before and after compaction. Arrays are indexed by turn − 1. */
export interface TokenTimeline {
  /** Number of turns T. */
  turns: number
  /** Inclusive index of each turn's last message (`turnEnds`). */
  endIndex: number[]
  /**
   * Raw growth: tokens of all messages up to and including the turn's end, plus tool schemas and
   * reply priming (the same totals as `RunResult.before.totals.tokens` of the prefix).
   */
  before: number[]
  /** The pipeline's context tokens at the turn (`contextAtTurn(…).tokens`); null where not evaluated. */
  after: (number | null)[]
  /** Passes the prefix run had fired by the turn; null where not evaluated. */
  passesByTurn: (number | null)[]
  /** Turns evaluated, ascending (every turn unless `sampled`). */
  evaluated: number[]
  /** True when only some turns were evaluated (see `tokenTimeline`). */
  sampled: boolean
  /** Passes of the whole-transcript run (= the last turn's context), at the turn they fired. */
  passes: TimelinePass[]
  /** Thresholds of the enabled stages. */
  thresholds: TimelineThreshold[]
  /** The model's context window in tokens (`PipelineConfig.window`, else `DEFAULT_WINDOW`). */
  window: number
  /**
   * The decision log of the whole-transcript run (`RunResult.decisions`): what each stage's
   * trigger saw at each check point, with its turn.
   */
  decisions: TriggerDecision[]
}

/** Options of `tokenTimeline`. */
export interface TimelineOptions {
  /** Evaluate every turn when there are at most this many, else sample (default `TIMELINE_MAX_EVALUATED`). */
  maxEvaluated?: number
  /**
   * Called after each evaluated turn with `done` of `total` turns to evaluate and the timeline so
   * far (the live object: copy it to keep it). Turns are evaluated coarse to fine, so a partial
   * timeline already spans the whole session.
   */
  onProgress?: (done: number, total: number, partial: TokenTimeline) => void
  /**
   * Awaited between two prefix runs. The worker passes a macrotask yield here so that other
   * calls (a new run, a newer timeline that cancels this one) are served while a long timeline
   * is computed; the engine has no timers of its own.
   */
  between?: () => Promise<void>
}

/** Positions 0..n-1 coarse to fine: every 2^k-th position for falling k, each once. */
function coarseToFine(n: number): number[] {
  const out: number[] = []
  const seen = new Uint8Array(n)
  let stride = 1
  while (stride * 2 < n) stride *= 2
  for (; stride >= 1; stride = stride / 2) {
    for (let i = 0; i < n; i += stride) {
      if (!seen[i]) {
        seen[i] = 1
        out.push(i)
      }
    }
  }
  return out
}

/** The turn (1-based) holding message `index`: the first turn whose end is at or after it (`ends` from `turnEnds`). */
export function turnOfIndex(ends: readonly number[], index: number): number {
  // Over all but the last turn: a message past every end is in the last one.
  return partitionPoint(0, Math.max(0, ends.length - 1), (i) => (ends[i] ?? -1) >= index) + 1
}

/** `count` turns spread evenly over 1..turns, first and last included. */
function evenTurns(turns: number, count: number): number[] {
  if (turns <= count) return Array.from({ length: turns }, (_, i) => i + 1)
  const out = new Set<number>()
  for (let i = 0; i < count; i++) out.add(1 + Math.round((i * (turns - 1)) / (count - 1)))
  return [...out]
}

function thresholdsOf(config: PipelineConfig, messages: readonly Message[], ends: readonly number[]) {
  const out: TimelineThreshold[] = []
  for (const stage of config.stages) {
    if (!stage.enabled) continue
    const counts = readCounts(stage.id, stage.params).values
    if (stage.id === 'prune-tool-results' && Number.isFinite(counts.target)) {
      out.push({ kind: 'tokens', stage: stage.id, param: 'target', tokens: counts.target! })
      const trigger = counts.trigger
      if (trigger !== undefined && Number.isFinite(trigger)) {
        out.push({ kind: 'tokens', stage: stage.id, param: 'trigger', tokens: trigger })
      }
    } else if (stage.id === 'insert-then-compress' && Number.isFinite(counts.threshold_tokens)) {
      out.push({ kind: 'tokens', stage: stage.id, param: 'threshold_tokens', tokens: counts.threshold_tokens! })
    } else if (stage.id === 'summarize') {
      const rule = summarizeTrigger(stage.params, windowOf(config.window))
      if (rule.measure === 'tokens') {
        out.push({ kind: 'tokens', stage: 'summarize', param: 'trigger', tokens: rule.threshold, source: rule.source })
        continue
      }
      const compact_after = rule.threshold
      // The plan counts messages after the leading system ones (SPEC §3.2).
      let lead = 0
      while (lead < messages.length && messages[lead]?.role === 'system') lead++
      const k = ends.findIndex((end) => end + 1 - lead > compact_after)
      out.push({
        kind: 'messages',
        stage: 'summarize',
        param: 'compact_after',
        messages: compact_after,
        turn: k < 0 ? null : k + 1,
      })
    }
  }
  return out
}

/**
 * The token timeline of `transcript` under `config`.
 *
 * - `before`: a prefix sum of per-message tokens, plus tool schemas, `REPLY_PRIMING_TOKENS` and
 *   the calibration's overhead, counted as the pipeline counts (`transcriptCounts` under the
 *   run's calibration) — one count per message, whatever the number of turns.
 * - `after`: `contextAtTurn` for each evaluated turn. Every turn is evaluated when there are at
 *   most `maxEvaluated` turns; otherwise about `maxEvaluated` evenly spaced turns plus every turn
 *   where a pass of the whole-transcript run fires (`sampled: true`, the others null), because
 *   each evaluation is a pipeline run on a prefix (cost grows with T × transcript length).
 * - `passes`: the whole-transcript run's passes (its last turn's context), placed by `atMessage`.
 * - `thresholds`: prune `target` / `trigger`, insert-then-compress `threshold_tokens` and
 *   summarize's token trigger as token levels; a message-counting summarize's `compact_after` as
 *   the first turn whose prefix exceeds it (messages, not tokens). `window`: the model's window.
 * - `decisions`: the whole-transcript run's decision log.
 *
 * Cancel with `deps.signal`: the timeline stops at the next turn and the promise rejects with an
 * `Error('cancelled')`. Throws nothing else of its own; a stage error inside a prefix run is that
 * run's `StageReport.error` (its tokens are those of the stage's unchanged input). Never mutates
 * `transcript`. Source: SPEC §3.2.
 */
export async function tokenTimeline(
  transcript: Transcript,
  config: PipelineConfig,
  deps: PipelineDeps,
  options: TimelineOptions = {},
): Promise<TokenTimeline> {
  const messages = transcript.messages
  const ends = turnEnds(messages)
  const turns = ends.length
  // Counted as the pipeline counts (its calibration): the Before line and the After runs agree.
  const calibration = calibrationFor(transcript, config.calibration, deps.counter)
  const { message: count, fixed } = transcriptCounts(transcript, deps.counter, calibration)
  const before: number[] = []
  let running = 0
  let next = 0
  for (const end of ends) {
    for (; next <= end; next++) {
      const m = messages[next]
      if (m) running += count(m)
    }
    before.push(running + fixed)
  }

  const after: (number | null)[] = new Array<number | null>(turns).fill(null)
  const passesByTurn: (number | null)[] = new Array<number | null>(turns).fill(null)
  const timeline: TokenTimeline = {
    turns,
    endIndex: [...ends],
    before,
    after,
    passesByTurn,
    evaluated: [],
    sampled: false,
    passes: [],
    thresholds: thresholdsOf(config, messages, ends),
    window: windowOf(config.window),
    decisions: [],
  }
  if (turns === 0) return timeline

  const cancelled = (signal: CancelSignal | undefined) => {
    if (signal?.aborted) throw new Error('cancelled')
  }
  // The prefix runs need the context and its tokens only: the checks would cost more than the stages.
  const runDeps: PipelineDeps = { ...deps, skipChecks: true }
  const max = Math.max(2, Math.trunc(options.maxEvaluated ?? TIMELINE_MAX_EVALUATED))
  const sampled = turns > max
  // The last turn first: it is the whole transcript, and its passes say where sampling must look.
  const last = await contextAtTurn(transcript, config, turns, runDeps, ends)
  cancelled(deps.signal)
  after[turns - 1] = last.tokens
  passesByTurn[turns - 1] = last.passes.length
  timeline.decisions = last.run.decisions ?? []
  timeline.passes = last.passes.map((p) => ({
    turn: turnOfIndex(ends, p.atMessage),
    stage: p.stage,
    pass: p.pass,
    from: p.from,
    upto: p.upto,
    tokensBefore: p.tokensBefore,
    tokensAfter: p.tokensAfter,
  }))
  const wanted = new Set(evenTurns(turns, sampled ? max : turns))
  // Where a pass fires the context drops: without those turns a sampled line would hide the saw.
  if (sampled) for (const p of timeline.passes) wanted.add(p.turn)
  wanted.delete(turns)
  const sorted = [...wanted].sort((a, b) => a - b)
  const order = coarseToFine(sorted.length).map((i) => sorted[i] as number)
  const total = order.length + 1
  timeline.sampled = sampled
  timeline.evaluated = [turns]
  options.onProgress?.(1, total, timeline)
  for (const turn of order) {
    if (options.between) await options.between()
    cancelled(deps.signal)
    const context = await contextAtTurn(transcript, config, turn, runDeps, ends)
    after[turn - 1] = context.tokens
    passesByTurn[turn - 1] = context.passes.length
    timeline.evaluated.push(turn)
    options.onProgress?.(timeline.evaluated.length, total, timeline)
  }
  cancelled(deps.signal)
  timeline.evaluated.sort((a, b) => a - b)
  return timeline
}

// ---------------------------------------------------------------------------
// Request bodies
// ---------------------------------------------------------------------------

/** The API shapes a context can be copied as. */
export type RequestShape = 'openai' | 'anthropic'

/** Default `max_tokens` of an Anthropic body (the Messages API requires one). Same as the summarizer's. */
export const ANTHROPIC_DEFAULT_MAX_TOKENS = 4096

/** Where the messages came from and what the body should name. */
export interface RequestBodyOptions {
  /** `model` of the body; omitted when absent (the person fills it in). */
  model?: string
  /** Source format: opaque blocks travel only to their own provider family (export.ts). */
  format?: FormatId
  /** Tool schemas sent with the request. */
  tools?: readonly ToolSchema[]
}

/**
 * `messages` as the body of one API request: `openai` = Chat Completions
 * (`{model?, messages, tools?}`, tool calls as `tool_calls`, results as `role: 'tool'`);
 * `anthropic` = Messages (`{model?, max_tokens, system?, messages, tools?}`: leading system
 * messages lifted to `system`, tool calls as `tool_use` blocks, results as `tool_result` blocks
 * opening the next user message). The conversion is export.ts's (`exportMessages`, targets
 * `openai-chat` / `anthropic`); `options.model` replaces the export's `model` (without one, the
 * export's own stays, if it sets one), and an Anthropic body gets the required `max_tokens`
 * (`ANTHROPIC_DEFAULT_MAX_TOKENS`) when the export did not set it. `warnings`: what the shape
 * could not carry. Pure. For copying the context at a turn as a request.
 */
export function requestBody(
  messages: readonly Message[],
  shape: RequestShape,
  options: RequestBodyOptions = {},
): { body: Record<string, unknown>; warnings: string[] } {
  const model = options.model !== undefined && options.model !== '' ? options.model : undefined
  // `model` in the context: an export that fills in a model itself then needs no placeholder.
  const context: ExportContext & { model?: string } = {}
  if (options.format !== undefined) context.format = options.format
  if (options.tools) context.tools = options.tools
  if (model !== undefined) context.model = model
  const exported = exportMessages(messages, shape === 'openai' ? 'openai-chat' : 'anthropic', context)
  const converted = exported.body as Record<string, unknown>
  // Fields first, in the order the providers' docs show them (a key assigned again keeps its place).
  const body: Record<string, unknown> = {}
  if (model !== undefined) body.model = model
  if (shape === 'anthropic' && converted.max_tokens === undefined) body.max_tokens = ANTHROPIC_DEFAULT_MAX_TOKENS
  Object.assign(body, converted)
  // The caller's model wins over whatever the export put there (e.g. its placeholder).
  if (model !== undefined) body.model = model
  return { body, warnings: exported.warnings }
}
