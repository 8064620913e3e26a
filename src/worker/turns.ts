/**
 * The worker's side of "context at turn N" and the token timeline:
 * the summarizer those prefix runs share (memoized per transcript and summarizer, so
 * scrubbing and the timeline never re-summarize; HTTP summarizers answer from the summary cache
 * only — these views never send a request), and the light views that cross to the page.
 */
import { contentText } from '../engine/content'
import type { Message, PipelineConfig, Transcript } from '../engine/model'
import type { PipelineDeps } from '../engine/pipeline'
import type { Summarizer } from '../engine/stages/types'
import { createSummarizer } from '../engine/summarizers/create'
import { extractiveSummarizer } from '../engine/summarizers/extractive'
import type { FetchLike } from '../engine/summarizers/fetch-types'
import { codePointLength, cutCodePoints } from '../engine/util/text'
import { loadCounter, type CachedCounter } from '../engine/tokens/count'
import {
  contextAtTurn,
  memoizeSummarizer,
  requestBody,
  tokenTimeline,
  turnEnds,
  type RequestBodyOptions,
  type RequestShape,
  type TokenTimeline,
  type TurnContext,
} from '../engine/analysis/turns'
import type {
  TimelineOutcome,
  TimelineView,
  TurnBodyOutcome,
  TurnOutcome,
  TurnRow,
  TurnView,
} from './protocol'
import { sendsRequests, summaryCache } from './summarizers'

/** Text of a turn row is cut here (code points); the copied request body always has all of it. */
const TURN_ROW_TEXT_LIMIT = 4000

/** Why an HTTP summary is missing from a turn view: these views never send requests. */
const NOT_SENT =
  'summary not fetched yet: the timeline and turn views use cached summaries only — run the pipeline to fetch it'

let memo: { transcript: Transcript; key: string; summarizer: Summarizer } | null = null

/**
 * The summarizer of prefix runs over `transcript` with `config`: memoized across calls while the
 * transcript and the summarizer settings stay the same. HTTP summarizers get a `fetch` that
 * refuses (`NOT_SENT`) behind the shared summary cache, so a summary the page already fetched is
 * reused and nothing new is sent.
 */
function turnSummarizer(transcript: Transcript, config: PipelineConfig): Summarizer {
  const key = JSON.stringify([config.summarizer, config.summarizerOptions ?? null])
  if (memo && memo.transcript === transcript && memo.key === key) return memo.summarizer
  const refuse: FetchLike = () => Promise.reject(new Error(NOT_SENT))
  const runtime = sendsRequests(config) ? { fetch: refuse, cache: summaryCache, maxRetries: 0 } : {}
  const choice = createSummarizer(
    config.summarizer,
    config.summarizerOptions,
    transcript.recordedCompactions,
    runtime,
  )
  const inner = choice.ok ? choice.summarizer : extractiveSummarizer
  memo = { transcript, key, summarizer: memoizeSummarizer(inner, transcript.messages) }
  return memo.summarizer
}

/** Pipeline dependencies of a prefix run. */
function turnDeps(
  transcript: Transcript,
  config: PipelineConfig,
  counter: CachedCounter,
  signal?: AbortSignal,
): PipelineDeps {
  const deps: PipelineDeps = { counter, summarizer: turnSummarizer(transcript, config), skipChecks: true }
  if (signal) deps.signal = signal
  return deps
}

function rowText(m: Message): string {
  const text = contentText(m.content)
  const calls = (m.toolCalls ?? []).map((c) => `→ ${c.name}(${c.arguments})`)
  return [text, ...calls].filter((t) => t !== '').join('\n')
}

function turnRow(m: Message, context: TurnContext): TurnRow {
  const text = rowText(m)
  const length = codePointLength(text)
  const row: TurnRow = {
    id: m.id,
    index: m.index,
    role: m.role,
    tokens: context.tokensById[m.id] ?? 0,
    text: length > TURN_ROW_TEXT_LIMIT ? cutCodePoints(text, TURN_ROW_TEXT_LIMIT) : text,
    textLength: length,
  }
  const origin = context.origins[m.id]
  if (origin) row.origin = origin
  if (m.toolName !== undefined) row.toolName = m.toolName
  return row
}

/** The page's view of a turn context: rows with text cut to `TURN_ROW_TEXT_LIMIT`, passes without prompts. */
function buildTurnView(context: TurnContext, requestId: number): TurnView {
  return {
    requestId,
    turn: context.turn,
    turns: context.turns,
    endIndex: context.endIndex,
    tokens: context.tokens,
    tokensBefore: context.tokensBefore,
    messagesBefore: context.messagesBefore,
    rows: context.messages.map((m) => turnRow(m, context)),
    passes: context.passes.map(({ prompt: _prompt, ...p }) => p),
    stages: context.stages,
    warnings: context.warnings,
  }
}

/** A plain copy of a (partial) timeline for the page. */
function buildTimelineView(timeline: TokenTimeline, timelineId: number, done: boolean): TimelineView {
  return {
    timelineId,
    done,
    turns: timeline.turns,
    endIndex: [...timeline.endIndex],
    before: [...timeline.before],
    after: [...timeline.after],
    passesByTurn: [...timeline.passesByTurn],
    evaluated: timeline.evaluated.length,
    sampled: timeline.sampled,
    passes: timeline.passes.map((p) => ({ ...p })),
    thresholds: timeline.thresholds.map((t) => ({ ...t })),
  }
}

/** Yields to the worker's event loop so other calls are served between two prefix runs. */
function macrotask(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 0))
}

/** The timeline in flight: a newer `runTimeline` (or a new transcript) aborts it. */
let timelineRunning: AbortController | null = null
/** The turn context in flight: a newer request aborts it (scrubbing asks for many turns). */
let turnRunning: AbortController | null = null

/** `turn` rounded and clamped to 1..T (a scrubber position from another transcript stays usable). */
function clampTurn(transcript: Transcript, turn: number): number {
  const turns = turnEnds(transcript.messages).length
  return Math.min(Math.max(1, Math.round(Number.isFinite(turn) ? turn : turns)), Math.max(1, turns))
}

/** `EngineApi.getTurnContext`: the context at `turn` of `transcript` (null: nothing loaded). */
export async function turnContextOutcome(
  transcript: Transcript | null,
  config: PipelineConfig,
  turn: number,
  requestId: number,
  isCurrent: () => boolean,
): Promise<TurnOutcome> {
  if (!transcript) return { ok: false, error: 'no transcript loaded' }
  turnRunning?.abort()
  const controller = new AbortController()
  turnRunning = controller
  try {
    const counter = await loadCounter(config.encoding)
    const context = await contextAtTurn(transcript, config, clampTurn(transcript, turn), turnDeps(transcript, config, counter, controller.signal))
    if (controller.signal.aborted || !isCurrent()) return { ok: false, error: 'cancelled', cancelled: true }
    return { ok: true, view: buildTurnView(context, requestId) }
  } catch (e) {
    return { ok: false, error: e instanceof Error ? e.message : String(e) }
  } finally {
    if (turnRunning === controller) turnRunning = null
  }
}

/**
 * `EngineApi.turnRequestBody`: the context at `turn` as an OpenAI Chat Completions or Anthropic
 * Messages request body (engine `requestBody`), pretty-printed JSON text.
 */
export async function turnBodyOutcome(
  transcript: Transcript | null,
  config: PipelineConfig,
  turn: number,
  shape: RequestShape,
  model?: string,
): Promise<TurnBodyOutcome> {
  if (!transcript) return { ok: false, error: 'no transcript loaded' }
  try {
    const counter = await loadCounter(config.encoding)
    const context = await contextAtTurn(
      transcript,
      config,
      clampTurn(transcript, turn),
      turnDeps(transcript, config, counter),
    )
    const options: RequestBodyOptions = { format: transcript.format }
    if (transcript.tools) options.tools = transcript.tools
    // The page's choice, else the model the source names (`Transcript.model`, where the importer
    // records one); without either the export says the model is missing.
    const named = (transcript as { model?: unknown }).model
    if (model) options.model = model
    else if (typeof named === 'string' && named !== '') options.model = named
    const { body, warnings } = requestBody(context.messages, shape, options)
    return { ok: true, text: `${JSON.stringify(body, null, 2)}\n`, warnings }
  } catch (e) {
    return { ok: false, error: e instanceof Error ? e.message : String(e) }
  }
}

/** At most this often (ms) a partial timeline goes to the page while turns are evaluated. */
const TIMELINE_PROGRESS_MS = 150

/**
 * `EngineApi.runTimeline`: the token timeline of `transcript` under `config`, evaluated coarse to
 * fine with partial views sent to `onProgress` (at most every `TIMELINE_PROGRESS_MS`); a newer
 * call cancels this one, which answers `cancelled`.
 */
export async function timelineOutcome(
  transcript: Transcript | null,
  config: PipelineConfig,
  timelineId: number,
  onProgress: ((view: TimelineView) => void) | undefined,
  isCurrent: () => boolean,
): Promise<TimelineOutcome> {
  if (!transcript) return { ok: false, error: 'no transcript loaded' }
  timelineRunning?.abort()
  const controller = new AbortController()
  timelineRunning = controller
  let sentAt = 0
  try {
    const counter = await loadCounter(config.encoding)
    const timeline = await tokenTimeline(transcript, config, turnDeps(transcript, config, counter, controller.signal), {
      between: macrotask,
      onProgress: (_done, _total, partial) => {
        const now = Date.now()
        if (!onProgress || now - sentAt < TIMELINE_PROGRESS_MS) return
        sentAt = now
        onProgress(buildTimelineView(partial, timelineId, false))
      },
    })
    if (controller.signal.aborted || !isCurrent()) return { ok: false, error: 'cancelled', cancelled: true }
    return { ok: true, view: buildTimelineView(timeline, timelineId, true) }
  } catch (e) {
    if (controller.signal.aborted || !isCurrent()) return { ok: false, error: 'cancelled', cancelled: true }
    return { ok: false, error: e instanceof Error ? e.message : String(e) }
  } finally {
    if (timelineRunning === controller) timelineRunning = null
  }
}
