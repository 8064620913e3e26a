/**
 * The worker's pipeline runs over a session's transcript: the full run (`EngineApi.run`) and the
 * stage-by-stage view (`EngineApi.runUpTo`, the run of a prefix of the pipeline). Both go through
 * `runAndView`: latest call wins, cached counts, the summarizer runtime of this call, the
 * summarizer-failure rule, the run view and its slim Before rows.
 */
import { failureText } from '../engine/failure-text'
import type { Encoding, PipelineConfig, RunResult, StageId, Transcript } from '../engine/model'
import { runPipeline, type PipelineDeps } from '../engine/pipeline'
import type { Summarizer } from '../engine/stages/types'
import type { SummaryCache } from '../engine/summarizers/cache'
import { createSummarizer, type SummarizerRuntime } from '../engine/summarizers/create'
import { loadCounter, type CachedCounter } from '../engine/tokens/count'
import type { LatestCall } from './latest-call'
import { STAGE_ROW_PREFIX, type RowMeta, type RunOptions, type RunOutcome, type RunView, type SummaryProgress } from './protocol'
import type { TranscriptSession } from './session'
import { summarizerFailure, summarizerRuntimeFor, trackSummaryProgress, type SummaryProgressTracker } from './summarizers'
import { factSpansAhead, pauseFactSpans, precount } from './token-pool'
import { turnPrefix } from './turns'
import { buildRunView } from './view'

/** What runs need of the worker beyond the session: its summary cache and its pool warm-up. */
export interface RunHost {
  summaryCache: SummaryCache
  /** A full run in `encoding` starts (the next import counts ahead in it). */
  runStarted(encoding: Encoding): void
  /** A full run in `encoding` completed (the tokenizer pool may warm up once the page is idle). */
  runCompleted(encoding: Encoding): void
}

/**
 * Before messages from which the page's runs leave the failure-mode checks for later: below it they
 * take a few milliseconds and come with the run (no "checking" line flashes per re-plan).
 */
const DEFER_FAILURE_MODES_FROM = 1_000

/** The answer of a run a newer call, a cancel or another transcript stopped. */
const cancelled = (): RunOutcome => ({ ok: false, error: 'cancelled', cancelled: true })

/** One run of `runAndView`: what runs, as which call, and what becomes of its result. */
interface RunSpec {
  calls: LatestCall
  /** The page's config: encoding, summarizer and the failure rule. */
  config: PipelineConfig
  /** The stages that run (the page's, or a prefix of them). */
  pipeline: PipelineConfig
  runId: number
  options: RunOptions
  /** What the pipeline runs on: the session's transcript, or its prefix as of a turn. */
  input: RunInput
  /** Work before the pipeline (the full run's pool pre-count); an abort during it cancels. */
  prepare?: (counter: CachedCounter, signal: AbortSignal) => Promise<unknown>
  /** A summarizer to use instead of the pipeline's own, given this call's HTTP runtime. */
  summarizer?: (runtime: SummarizerRuntime) => Summarizer | undefined
  /** Run the failure-mode checks later, when the page asks (`failureModesOf`): the view goes first. */
  deferFailureModes?: boolean
  /** Keeps `result` in the session and finishes `view` (`slim`: Before rows already slim). */
  keep: (result: RunResult, view: RunView, slim: boolean) => void
}

/** The transcript a run goes over, and the turn it is as of when `RunOptions.asOfTurn` asked for one. */
interface RunInput {
  transcript: Transcript
  asOf?: RunView['asOf']
}

/** The session's transcript, or its prefix up to the end of `options.asOfTurn` (`turnPrefix`). */
function runInput(session: TranscriptSession, options: RunOptions): RunInput {
  if (options.asOfTurn === undefined) return { transcript: session.transcript }
  const { transcript, turn, turns, endIndex } = turnPrefix(session.transcript, options.asOfTurn)
  return { transcript, asOf: { turn, turns, endIndex } }
}

/**
 * Sends `view`'s Before rows slim: only `id`, `index`, `tokens`, `fate` and `counterpartIds`, for
 * a client that holds the rest (same `transcriptKey`; see `RunOptions.previewsOf`). Mutates `view`.
 */
function slimBeforeRows(view: RunView): void {
  view.before.rows = view.before.rows.map((r) => {
    const { id, index, tokens, counterpartIds } = r
    const slim = { id, index, tokens, counterpartIds } as RowMeta
    if (r.fate) slim.fate = r.fate
    return slim
  })
  view.beforePreviewsOmitted = true
}

/**
 * Runs `spec.pipeline` over the session's transcript as the newest of `spec.calls` and answers
 * its run view: `cancelled` once the call was aborted (a newer call, a cancel, another
 * transcript), the first summarizer failure of an HTTP run as an error naming its stage, any
 * other failure as its one-line text. Never throws.
 */
function runAndView(session: TranscriptSession, host: RunHost, spec: RunSpec): Promise<RunOutcome> {
  const { config, options } = spec
  return spec.calls.run(async (signal): Promise<RunOutcome> => {
    try {
      const counter = await loadCounter(config.encoding)
      await spec.prepare?.(counter, signal)
      if (signal.aborted) return cancelled()
      // The key lives only in this call's runtime: never in the config, the result or a log.
      const summarizerRuntime = summarizerRuntimeFor(config, options.apiKey, host.summaryCache)
      const deps: PipelineDeps = summarizerRuntime ? { counter, signal, summarizerRuntime } : { counter, signal }
      const summarizer = summarizerRuntime && spec.summarizer?.(summarizerRuntime)
      if (summarizer) deps.summarizer = summarizer
      if (spec.deferFailureModes) deps.deferFailureModes = true
      const result = await runPipeline(spec.input.transcript, spec.pipeline, deps)
      if (signal.aborted) return cancelled()
      const failure = summarizerFailure(config, result)
      if (failure) return { ok: false, error: `${failure.stage}: ${failure.error}`, stage: failure.stage }
      const view = buildRunView(result, spec.runId, config.encoding)
      view.transcriptKey = session.key
      if (spec.input.asOf) view.asOf = spec.input.asOf
      // Slim rows: the client keeps the static fields (see RunOptions.previewsOf).
      const slim = options.previewsOf === session.key
      if (slim) slimBeforeRows(view)
      spec.keep(result, view, slim)
      return { ok: true, view }
    } catch (e) {
      return { ok: false, error: failureText(e) }
    }
  }, cancelled)
}

/**
 * `EngineApi.run`: the pipeline over the session's transcript, as its last run. Distinct
 * uncounted texts go to the tokenizer pool first. With an HTTP summarizer and `onProgress`, the
 * calls' progress and streamed text are reported (`SummaryProgress`), the expected number of
 * calls taken from the last plan of the same config. Long Before rows go in pages
 * (`RunOptions.rowPage`).
 */
export async function fullRun(
  session: TranscriptSession,
  host: RunHost,
  config: PipelineConfig,
  runId: number,
  options: RunOptions,
  onProgress?: (progress: SummaryProgress) => void,
): Promise<RunOutcome> {
  const input = runInput(session, options)
  const transcript = input.transcript
  const deferred = transcript.messages.length >= DEFER_FAILURE_MODES_FROM
  let tracker: SummaryProgressTracker | undefined
  host.runStarted(config.encoding)
  try {
    return await runAndView(session, host, {
      calls: session.runs,
      config,
      pipeline: config,
      runId,
      options,
      input,
      // The fact-based checks cost more than a re-plan's stages on a long session: the page asks
      // for them once the run is shown (EngineApi.getFailureModes).
      deferFailureModes: deferred,
      prepare: async (counter, signal) => {
        await precount(counter, transcript.messages, transcript.tools, signal)
        // The pool, idle once the texts are counted, finds the Before's fact spans while this run
        // goes on: the deferred checks and the facts table then start from them.
        if (deferred && !signal.aborted) void factSpansAhead(transcript.messages)
      },
      summarizer: (runtime) => {
        if (!onProgress) return undefined
        const planned = session.plannedCalls
        const expectedCalls = planned?.config === JSON.stringify(config) ? planned.count : undefined
        tracker = trackSummaryProgress(runId, onProgress, expectedCalls === undefined ? {} : { expectedCalls })
        const choice = createSummarizer(config.summarizer, config.summarizerOptions, transcript.recordedCompactions, {
          ...runtime,
          onToken: tracker.onToken,
        })
        // When none can be built the pipeline falls back with its own warning.
        return choice.ok ? tracker.wrap(choice.summarizer) : undefined
      },
      keep: (result, view) => {
        // The page shows this run next: the pool's fact spans wait until it asks for the checks.
        if (deferred) pauseFactSpans(transcript.messages)
        session.keepRun(result, runId)
        host.runCompleted(config.encoding)
        if (options.rowPage !== undefined) session.pagedRows = pageRows(view, runId, options.rowPage)
      },
    })
  } finally {
    tracker?.stop()
  }
}

/**
 * Cuts each side of `view` with more than `page` rows to its first `page` (the rows of a long
 * transcript go in pages, each its own message: BENCH B5, B20), setting `beforeRowsTotal` /
 * `afterRowsTotal`; returns the full rows of the sides cut, for `getRows`, or null when none was.
 */
function pageRows(view: RunView, runId: number, page: number): TranscriptSession['pagedRows'] {
  const paged: NonNullable<TranscriptSession['pagedRows']> = { runId }
  if (view.before.rows.length > page) {
    paged.before = view.before.rows
    view.beforeRowsTotal = view.before.rows.length
    view.before.rows = view.before.rows.slice(0, Math.max(0, page))
  }
  if (view.after.rows.length > page) {
    paged.after = view.after.rows
    view.afterRowsTotal = view.after.rows.length
    view.after.rows = view.after.rows.slice(0, Math.max(0, page))
  }
  return paged.before || paged.after ? paged : null
}

/**
 * `EngineApi.runUpTo`: the After as it stands after `stage`, made by running `config` with every
 * stage after `stage` switched off; kept apart from the last full run, its After row ids carry
 * `STAGE_ROW_PREFIX`. With `rowPage` its rows go in pages (`getRows(…, 'stage')`). Fails when `stage` is not an enabled stage of `config`.
 */
export function prefixRun(
  session: TranscriptSession,
  host: RunHost,
  config: PipelineConfig,
  stage: StageId,
  runId: number,
  options: RunOptions,
): Promise<RunOutcome> {
  const at = config.stages.findIndex((s) => s.id === stage)
  if (at < 0 || !config.stages[at]?.enabled) return Promise.resolve({ ok: false, error: `${stage} is not an enabled stage` })
  const pipeline: PipelineConfig = {
    ...config,
    stages: config.stages.map((s, i) => (i > at && s.enabled ? { ...s, enabled: false } : s)),
  }
  const prefixed = (id: string) => `${STAGE_ROW_PREFIX}${id}`
  return runAndView(session, host, {
    calls: session.stageRuns,
    config,
    pipeline,
    runId,
    options,
    input: runInput(session, options),
    keep: (result, view) => {
      session.stageResult = result
      view.after.rows = view.after.rows.map((r) => ({ ...r, id: prefixed(r.id) }))
      view.before.rows = view.before.rows.map((r) => ({ ...r, counterpartIds: r.counterpartIds.map(prefixed) }))
      if (options.rowPage !== undefined) session.stagePagedRows = pageRows(view, runId, options.rowPage)
    },
  })
}
