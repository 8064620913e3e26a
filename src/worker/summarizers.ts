/**
 * The worker's side of the LLM summarizers (issue 4): the summary cache that outlives runs (a
 * slider moved back costs nothing), the run-time dependencies built per run from the key the page
 * passes with the call (never stored here beyond the run), and which summarizer failures make a
 * run keep the previous result.
 */
import type { PipelineConfig, RunResult, StageId } from '../engine/model'
import { createSummaryCache, type SummaryCache } from '../engine/summarizers/cache'
import type { SummarizerRuntime } from '../engine/summarizers/create'
import type { FetchLike } from '../engine/summarizers/fetch-types'

/** Summaries of every HTTP call this worker made, keyed by (summarizer, model, prompt hash). */
export const summaryCache: SummaryCache = createSummaryCache()

/** True for the summarizers that send requests (`openai-compatible`, `anthropic`). */
export function sendsRequests(config: PipelineConfig): boolean {
  return config.summarizer === 'openai-compatible' || config.summarizer === 'anthropic'
}

/**
 * The run-time dependencies of a run with `config`: the browser's `fetch`, the key (only for
 * this run) and the shared cache; undefined for the offline summarizers.
 */
export function summarizerRuntimeFor(
  config: PipelineConfig,
  apiKey: string | undefined,
): SummarizerRuntime | undefined {
  if (!sendsRequests(config)) return undefined
  const runtime: SummarizerRuntime = {
    fetch: globalThis.fetch.bind(globalThis) as unknown as FetchLike,
    cache: summaryCache,
  }
  if (apiKey) runtime.apiKey = apiKey
  return runtime
}

const SUMMARIZING_STAGES: readonly StageId[] = ['summarize', 'insert-then-compress']

/**
 * The first summarizer failure of a run with an HTTP summarizer (a summarizing stage that
 * reported an error other than a cancel), or null. Such a run is not shown: the page keeps its
 * previous result and explains the failure (issue 4 point 3, "a failed pass leaves the previous
 * result on screen").
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
