import type { PipelineConfig, RunResult, Transcript } from './model'
import type { CancelSignal, Summarizer } from './stages/types'
import type { CachedCounter } from './tokens/count'

/** Default pipeline. STUB: replaced by the pipeline implementation (issue 2 point 5). */
export const DEFAULT_PIPELINE: PipelineConfig = {
  encoding: 'o200k_base',
  summarizer: 'extractive',
  stages: [
    { id: 'dedupe', enabled: true, params: {} },
    { id: 'prune-tool-results', enabled: true, params: { target: 20000, keep_steps: 1, min_tokens: 200 } },
    { id: 'summarize', enabled: true, params: { keep_last: 20, compact_after: 40 } },
    { id: 'insert-then-compress', enabled: false, params: { threshold_tokens: 100000, keep_recent: 10 } },
  ],
}

/** Dependencies of a pipeline run. */
export interface PipelineDeps {
  counter: CachedCounter
  /** Defaults to the offline extractive summarizer. */
  summarizer?: Summarizer
  signal?: CancelSignal
}

/** Runs the enabled stages in order. STUB. */
export async function runPipeline(
  _transcript: Transcript,
  _config: PipelineConfig,
  _deps: PipelineDeps,
): Promise<RunResult> {
  throw new Error('pipeline not built yet')
}
