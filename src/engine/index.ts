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
export {
  createSummarizer,
  type SummarizerChoice,
  type SummarizerRuntime,
} from './summarizers/create'
export { createOpenAICompatibleSummarizer } from './summarizers/openai-compatible'
export { createAnthropicSummarizer } from './summarizers/anthropic'
export { createRecordedSummarizer } from './summarizers/recorded'
export {
  DEFAULT_MAX_RETRIES,
  DEFAULT_TIMEOUT_MS,
  type HttpSummarizerOptions,
  type HttpSummarizerSettings,
} from './summarizers/http'
export {
  hostOf,
  isSummarizerError,
  SummarizerError,
  type SummarizerErrorKind,
} from './summarizers/errors'
export { createSummaryCache, type SummaryCache } from './summarizers/cache'
export type { FetchInit, FetchLike, ResponseLike } from './summarizers/fetch-types'
export {
  KEY_PLACEHOLDER,
  planSummaryRequests,
  type PlanDeps,
  type PlannedRequest,
  type SummaryPlan,
} from './summarizers/preview'
export {
  addUsage,
  costOf,
  DEFAULT_FOLLOWING_TURNS,
  DEFAULT_PRICES,
  DEFAULT_PRICES_AS_OF,
  DEFAULT_PRICES_NOTE,
  estimateRunCost,
  findPrice,
  followingTurnsUsage,
  insertThenCompressUsage,
  runTokens,
  separateCallUsage,
  type Cost,
  type FollowingTurns,
  type ModelPrice,
  type PassCost,
  type PassTokens,
  type Priced,
  type RunCost,
  type RunTokens,
  type TokenUsage,
} from './costs'
export {
  extractFacts,
  factTable,
  findFact,
  findFactSpans,
  indexRun,
  type CandidateFact,
  type FactKind,
  type FactQuery,
  type FactRow,
  type FactRun,
  type FactTable,
  type FactVerdict,
  type KeptAs,
  type LossEvent,
  type PassState,
  type Replacement,
  type RunIndex,
} from './facts'
export {
  checkDoubleCompression,
  checkFabricatedSummary,
  checkFailureModes,
  checkGoalDrift,
  checkOverCompression,
} from './failure-modes'
export { PINNED_FACTS_ID } from './stages/pin-facts'
