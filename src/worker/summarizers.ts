/**
 * The worker's side of the LLM summarizers: the run-time dependencies built per run from the
 * key the page passes with the call (never stored here beyond the run), and which summarizer
 * failures make a run keep the previous result.
 */
import type { PipelineConfig, RunResult, StageId } from '../engine/model'
import type { Summarizer, SummaryRequest } from '../engine/stages/types'
import type { SummaryCache } from '../engine/summarizers/cache'
import type { SummarizerRuntime } from '../engine/summarizers/create'
import type { FetchLike } from '../engine/summarizers/fetch-types'
import { SUMMARY_PROGRESS_TAIL, type SummaryProgress } from './protocol'

/** True for the summarizers that send requests (`openai-compatible`, `anthropic`). */
export function sendsRequests(config: PipelineConfig): boolean {
  return config.summarizer === 'openai-compatible' || config.summarizer === 'anthropic'
}

/**
 * The run-time dependencies of a run with `config`: the browser's `fetch`, the key (only for
 * this run) and `cache`, the worker's summary cache (it outlives runs and transcripts: a slider
 * moved back costs nothing); undefined for the offline summarizers.
 */
export function summarizerRuntimeFor(
  config: PipelineConfig,
  apiKey: string | undefined,
  cache: SummaryCache,
): SummarizerRuntime | undefined {
  if (!sendsRequests(config)) return undefined
  const runtime: SummarizerRuntime = {
    fetch: globalThis.fetch.bind(globalThis) as unknown as FetchLike,
    cache,
  }
  if (apiKey) runtime.apiKey = apiKey
  return runtime
}

const SUMMARIZING_STAGES: readonly StageId[] = ['summarize', 'insert-then-compress']

/**
 * The first summarizer failure of a run with an HTTP summarizer (a summarizing stage that
 * reported an error other than a cancel), or null. Such a run is not shown: the page keeps its
 * previous result and explains the failure.
 */
export function summarizerFailure(
  config: PipelineConfig,
  result: Pick<RunResult, 'stages'>,
): { stage: StageId; error: string } | null {
  if (!sendsRequests(config)) return null
  for (const report of result.stages) {
    if (!SUMMARIZING_STAGES.includes(report.stage)) continue
    if (report.error !== undefined && report.error !== 'cancelled')
      return { stage: report.stage, error: report.error }
  }
  return null
}

/** Default minimum time between two progress reports, in ms (≤ 10 reports a second). */
export const PROGRESS_INTERVAL_MS = 100

/** What `trackSummaryProgress` gives a run: a summarizer wrapper, the token hook and a stop. */
export interface SummaryProgressTracker {
  /** `inner` counting its calls (cache hits included) and reporting when each starts and ends. */
  wrap(inner: Summarizer): Summarizer
  /** For `SummarizerRuntime.onToken`: each streamed piece of the call in flight. */
  onToken(text: string, request: SummaryRequest): void
  /** Drops a report still waiting for its slot; nothing is reported afterwards. */
  stop(): void
}

/**
 * Reports where a run's summarizer calls are (`SummaryProgress`) to `report`, throttled: at most
 * one report per `intervalMs` (default `PROGRESS_INTERVAL_MS`), always the newest state, sent on
 * a timer (trailing) so a call answered from the cache within the interval costs no report at
 * all and the page's main thread is never flooded by a fast stream. The full answer stays here;
 * a report carries its last `SUMMARY_PROGRESS_TAIL` code points. A throwing `report` (the page
 * went away) is ignored: progress is never worth failing a run.
 */
export function trackSummaryProgress(
  runId: number,
  report: (progress: SummaryProgress) => void,
  options: { expectedCalls?: number; intervalMs?: number } = {},
): SummaryProgressTracker {
  const interval = options.intervalMs ?? PROGRESS_INTERVAL_MS
  let call = 0
  let stage: StageId = 'summarize'
  let phase: SummaryProgress['phase'] = 'waiting'
  let text = ''
  let received = 0
  let current: SummaryRequest | undefined
  let timer: ReturnType<typeof setTimeout> | undefined
  let stopped = false

  const send = () => {
    timer = undefined
    if (stopped || call === 0) return
    const cps = Array.from(text.length > SUMMARY_PROGRESS_TAIL * 4 ? text.slice(-SUMMARY_PROGRESS_TAIL * 4) : text)
    const progress: SummaryProgress = {
      runId,
      stage,
      call,
      phase,
      tail: cps.slice(-SUMMARY_PROGRESS_TAIL).join(''),
      received,
    }
    if (options.expectedCalls !== undefined) progress.expectedCalls = options.expectedCalls
    try {
      const pending: unknown = report(progress)
      // A comlink proxy answers with a promise: a closed page must not become an unhandled rejection.
      if (pending instanceof Promise) pending.catch(() => {})
    } catch {
      // the page is gone; the run goes on
    }
  }
  const schedule = () => {
    if (!stopped && timer === undefined) timer = setTimeout(send, interval)
  }

  return {
    wrap: (inner) => async (request) => {
      call++
      stage = request.stage
      phase = 'waiting'
      text = ''
      received = 0
      current = request
      schedule()
      try {
        return await inner(request)
      } finally {
        if (current === request) {
          current = undefined
          phase = 'done'
          schedule()
        }
      }
    },
    onToken: (piece, request) => {
      // Calls are sequential: a piece of another request would be a late one, not shown.
      if (request !== current) return
      text += piece
      // Keep the held text bounded: only the tail is ever shown.
      if (text.length > SUMMARY_PROGRESS_TAIL * 8) text = text.slice(-SUMMARY_PROGRESS_TAIL * 4)
      received += Array.from(piece).length
      phase = 'streaming'
      schedule()
    },
    stop: () => {
      stopped = true
      if (timer !== undefined) clearTimeout(timer)
      timer = undefined
    },
  }
}
