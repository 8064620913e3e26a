/**
 * The engine's public surface: the canonical model and result types, the importer, the
 * pipeline and its default configuration, the validity checker and token counting. The
 * worker, the CLI and tests import from here; stage internals stay behind it.
 */
export type * from './model'
export type { ImportError, ImportResult } from './formats/types'
export { importTranscript } from './formats/index'
export { DEFAULT_PIPELINE, providerOf, runPipeline, type PipelineDeps } from './pipeline'
export { checkValidity, type CheckOptions } from './checks'
export {
  countMessageTokens,
  countToolSchemaTokens,
  loadCounter,
  type CachedCounter,
  type TextCounter,
} from './tokens/count'
export type { Summarizer, SummaryRequest, CancelSignal } from './stages/types'
export { extractiveSummarizer, EXTRACTIVE_LABEL } from './summarizers/extractive'
