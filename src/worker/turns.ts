/**
 * The worker's side of "context at turn N" and the token timeline:
 * the summarizer those prefix runs share (memoized per transcript session and summarizer, so
 * scrubbing and the timeline never re-summarize; HTTP summarizers answer from the summary cache
 * only — these views never send a request), and the light views that cross to the page.
 */
import { contentText } from '../engine/content'
import type { Message, PipelineConfig, Transcript } from '../engine/model'
import type { PipelineDeps } from '../engine/pipeline'
import type { Summarizer } from '../engine/stages/types'
import type { SummaryCache } from '../engine/summarizers/cache'
import { createSummarizer } from '../engine/summarizers/create'
import { extractiveSummarizer } from '../engine/summarizers/extractive'
import type { FetchLike } from '../engine/summarizers/fetch-types'
import { codePointLength, cutCodePoints } from '../engine/util/text'
import { loadCounter, type CachedCounter } from '../engine/tokens/count'
import {
  contextAtTurn,
  memoizeSummarizer,
  prefixOf,
  requestBody,
  tokenTimeline,
  turnEnds,
  turnOfIndex,
  type RequestBodyOptions,
  type RequestShape,
  type TokenTimeline,
  type TurnContext,
} from '../engine/analysis/turns'
import { calibrationFor } from '../engine/usage/calibration'
import { usageTimeline } from '../engine/usage/timeline'
import { decisionLogView } from './decision-log'
import type { LatestCall } from './latest-call'
import type {
  TimelineOutcome,
  TimelineView,
  TurnBodyOutcome,
  TurnOutcome,
  TurnRow,
  TurnView,
  UsageTimelineView,
} from './protocol'
import { sendsRequests } from './summarizers'

/** At most this many check points of one turn cross with its view (a long turn checked before each request). */
const TURN_DECISIONS_SENT = 500

/** Text of a turn row is cut here (code points); the copied request body always has all of it. */
const TURN_ROW_TEXT_LIMIT = 4000

/** Why an HTTP summary is missing from a turn view: these views never send requests. */
const NOT_SENT =
  'summary not fetched yet: the timeline and turn views use cached summaries only — run the pipeline to fetch it'

/**
 * The summarizer of prefix runs over one transcript: memoized across calls while the summarizer
 * settings stay the same. HTTP summarizers get a `fetch` that refuses (`NOT_SENT`) behind the
 * shared summary `cache`, so a summary the page already fetched is reused and nothing new is sent.
 */
export class TurnSummarizers {
  #memo: { key: string; summarizer: Summarizer } | null = null
  readonly #transcript: Transcript
  readonly #cache: SummaryCache

  constructor(transcript: Transcript, cache: SummaryCache) {
    this.#transcript = transcript
    this.#cache = cache
  }

  /** The prefix runs' summarizer for `config`'s summarizer and options. */
  of(config: PipelineConfig): Summarizer {
    const key = JSON.stringify([config.summarizer, config.summarizerOptions ?? null])
    if (this.#memo?.key === key) return this.#memo.summarizer
    const transcript = this.#transcript
    const refuse: FetchLike = () => Promise.reject(new Error(NOT_SENT))
    const runtime = sendsRequests(config) ? { fetch: refuse, cache: this.#cache, maxRetries: 0 } : {}
    const choice = createSummarizer(config.summarizer, config.summarizerOptions, transcript.recordedCompactions, runtime)
    const inner = choice.ok ? choice.summarizer : extractiveSummarizer
    this.#memo = { key, summarizer: memoizeSummarizer(inner, transcript.messages) }
    return this.#memo.summarizer
  }
}

/**
 * What the turn views of one transcript share: the transcript, its memoized summarizers and the
 * calls in flight (one turn context and one timeline at a time: a newer request aborts the older).
 */
export interface TurnScope {
  transcript: Transcript
  summarizers: TurnSummarizers
  turnCalls: LatestCall
  timelineCalls: LatestCall
  /** Usage timelines already placed (`usageView`), by encoding and calibration setting. */
  usageViews: Map<string, UsageTimelineView>
}

/** Pipeline dependencies of a prefix run. */
function turnDeps(
  summarizers: TurnSummarizers,
  config: PipelineConfig,
  counter: CachedCounter,
  signal?: AbortSignal,
): PipelineDeps {
  const deps: PipelineDeps = { counter, summarizer: summarizers.of(config), skipChecks: true }
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

/**
 * The page's view of a turn context: rows with text cut to `TURN_ROW_TEXT_LIMIT`, passes without
 * prompts, and the prefix run's check points of that turn (at most `TURN_DECISIONS_SENT`).
 */
function buildTurnView(context: TurnContext, requestId: number): TurnView {
  const ofTurn = (context.run.decisions ?? []).filter((d) => d.turn === context.turn)
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
    decisions: decisionLogView(ofTurn, TURN_DECISIONS_SENT),
    stages: context.stages,
    warnings: context.warnings,
  }
}

/**
 * Where the context of messages `0..atIndex − 1` sits on the timeline's turn axis, whose turn `t`
 * (at x = t) is the context up to the end of turn t (`ends`, `turnEnds`): the turn holding message
 * atIndex − 1 (the request that produced message `atIndex` was sent after it), plus the share of
 * that turn's messages the context holds. So a request keeps its own place — a Claude Code turn
 * often holds dozens of requests — between x = t − 1 (the previous turn's end) and x = t (its
 * own end); x = 0 is the empty context (requests of turn 1 lie in (0, 1]). 0 with no turns.
 */
export function turnPosition(ends: readonly number[], atIndex: number): number {
  if (ends.length === 0 || atIndex <= 0) return 0
  const last = atIndex - 1
  const turn = turnOfIndex(ends, last)
  const start = turn > 1 ? (ends[turn - 2] as number) + 1 : 0
  const end = Math.max(ends[turn - 1] as number, last)
  return turn - 1 + (last - start + 1) / (end - start + 1)
}

/**
 * The usage timeline of `transcript` under `config`'s encoding and calibration (engine
 * `usageTimeline` with `calibrationFor`), each entry placed on the turn axis (`turnPosition`).
 * Computed once per (transcript, encoding, calibration setting), kept in the session's `byKey`:
 * the stages do not change it.
 */
function usageView(
  transcript: Transcript,
  config: PipelineConfig,
  counter: CachedCounter,
  byKey: Map<string, UsageTimelineView>,
): UsageTimelineView {
  const key = JSON.stringify([config.encoding, config.calibration ?? null])
  const held = byKey.get(key)
  if (held) return held
  const usage = usageTimeline(transcript, counter, calibrationFor(transcript, config.calibration, counter))
  const ends = turnEnds(transcript.messages)
  const at = (atIndex: number) => turnPosition(ends, atIndex)
  const view: UsageTimelineView = {
    points: usage.points.map((p) => ({ ...p, x: at(p.atIndex) })),
    compactions: usage.compactions.map((c) => ({ ...c, x: at(c.atIndex) })),
    clearings: usage.clearings.map((c) => ({ ...c, x: at(c.atIndex) })),
    parts: usage.parts,
  }
  byKey.set(key, view)
  return view
}

/** A plain copy of a (partial) timeline for the page, with the transcript's usage timeline. */
function buildTimelineView(timeline: TokenTimeline, timelineId: number, done: boolean, usage: UsageTimelineView): TimelineView {
  return {
    usage,
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
    window: timeline.window,
    decisions: decisionLogView(timeline.decisions),
  }
}

/** Yields to the worker's event loop so other calls are served between two prefix runs. */
function macrotask(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 0))
}

/** `turn` rounded and clamped to 1..T (a scrubber position from another transcript stays usable). */
function clampTurn(transcript: Transcript, turn: number): number {
  const turns = turnEnds(transcript.messages).length
  return Math.min(Math.max(1, Math.round(Number.isFinite(turn) ? turn : turns)), Math.max(1, turns))
}

/** The transcript as of one turn: its prefix up to that turn's end (`RunView.asOf` describes it). */
export interface TurnPrefix {
  transcript: Transcript
  /** The turn (1-based), clamped to 1..T. */
  turn: number
  /** Turns of the whole transcript (T). */
  turns: number
  /** Inclusive index of the turn's last message: the prefix is messages `0..endIndex`. */
  endIndex: number
}

/**
 * `transcript` cut after the end of `turn` (clamped to 1..T; `turnEnds`, engine `prefixOf`):
 * what a run "as of turn N" runs on. At the last turn it is `transcript` itself.
 */
export function turnPrefix(transcript: Transcript, turn: number): TurnPrefix {
  const ends = turnEnds(transcript.messages)
  const at = clampTurn(transcript, turn)
  const endIndex = ends[at - 1] ?? transcript.messages.length - 1
  return { transcript: prefixOf(transcript, endIndex), turn: at, turns: ends.length, endIndex }
}

/** The stale answer of a turn view a newer request (or another transcript) replaced. */
const cancelled = (): { ok: false; error: string; cancelled: true } => ({ ok: false, error: 'cancelled', cancelled: true })

/**
 * `EngineApi.getTurnContext`: the context at `turn` of the scope's transcript; a newer request
 * (scrubbing asks for many turns) or a disposed session makes it answer `cancelled`.
 */
export function turnContextOutcome(
  scope: TurnScope,
  config: PipelineConfig,
  turn: number,
  requestId: number,
): Promise<TurnOutcome> {
  const { transcript, summarizers } = scope
  return scope.turnCalls.run(async (signal): Promise<TurnOutcome> => {
    try {
      const counter = await loadCounter(config.encoding)
      const context = await contextAtTurn(transcript, config, clampTurn(transcript, turn), turnDeps(summarizers, config, counter, signal))
      return { ok: true, view: buildTurnView(context, requestId) }
    } catch (e) {
      return { ok: false, error: e instanceof Error ? e.message : String(e) }
    }
  }, cancelled)
}

/**
 * `EngineApi.turnRequestBody`: the context at `turn` as an OpenAI Chat Completions or Anthropic
 * Messages request body (engine `requestBody`), pretty-printed JSON text.
 */
export async function turnBodyOutcome(
  scope: Pick<TurnScope, 'transcript' | 'summarizers'>,
  config: PipelineConfig,
  turn: number,
  shape: RequestShape,
  model?: string,
): Promise<TurnBodyOutcome> {
  const { transcript, summarizers } = scope
  try {
    const counter = await loadCounter(config.encoding)
    const context = await contextAtTurn(
      transcript,
      config,
      clampTurn(transcript, turn),
      turnDeps(summarizers, config, counter),
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
 * `EngineApi.runTimeline`: the token timeline of the scope's transcript under `config`, evaluated
 * coarse to fine with partial views sent to `onProgress` (at most every `TIMELINE_PROGRESS_MS`);
 * a newer call (or a disposed session) cancels this one, which answers `cancelled`.
 */
export function timelineOutcome(
  scope: TurnScope,
  config: PipelineConfig,
  timelineId: number,
  onProgress: ((view: TimelineView) => void) | undefined,
): Promise<TimelineOutcome> {
  const { transcript, summarizers } = scope
  let sentAt = 0
  return scope.timelineCalls.run(async (signal): Promise<TimelineOutcome> => {
    try {
      const counter = await loadCounter(config.encoding)
      const usage = usageView(transcript, config, counter, scope.usageViews)
      const timeline = await tokenTimeline(transcript, config, turnDeps(summarizers, config, counter, signal), {
        between: macrotask,
        onProgress: (_done, _total, partial) => {
          const now = Date.now()
          if (!onProgress || now - sentAt < TIMELINE_PROGRESS_MS) return
          sentAt = now
          onProgress(buildTimelineView(partial, timelineId, false, usage))
        },
      })
      return { ok: true, view: buildTimelineView(timeline, timelineId, true, usage) }
    } catch (e) {
      return { ok: false, error: e instanceof Error ? e.message : String(e) }
    }
  }, cancelled)
}
