/**
 * Builds the summarizer a pipeline config names, from its stored settings (no key) and the
 * run's dependencies (the key, `fetch`, the cache). Source: SPEC §3.6.
 */
import type { RecordedCompaction, SummarizerId } from '../model'
import type { CancelSignal, Summarizer, SummaryRequest } from '../stages/types'
import { createAnthropicSummarizer } from './anthropic'
import type { SummaryCache } from './cache'
import { extractiveSummarizer } from './extractive'
import type { FetchLike, Sleep } from './fetch-types'
import type { HttpSummarizerOptions, HttpSummarizerSettings } from './http'
import { createOpenAICompatibleSummarizer } from './openai-compatible'
import { createRecordedSummarizer } from './recorded'

/**
 * What an HTTP summarizer needs at run time and must never be stored in a config, a URL, an
 * export or a log: the key, and the injected `fetch`; plus the optional cache and transport knobs.
 */
export interface SummarizerRuntime {
  fetch?: FetchLike
  /** From the settings (held in memory) or the environment (CLI). */
  apiKey?: string
  cache?: SummaryCache
  signal?: CancelSignal
  onToken?: (text: string, request: SummaryRequest) => void
  timeoutMs?: number
  maxRetries?: number
  sleep?: Sleep
  now?: () => number
  backoffMs?: number
}

/** A built summarizer, or why none could be built (the caller falls back and says so). */
export type SummarizerChoice =
  | { ok: true; summarizer: Summarizer }
  | { ok: false; problem: string }

/**
 * The summarizer for `id`:
 * - `extractive`: the offline one;
 * - `recorded`: `createRecordedSummarizer(recordedCompactions)`;
 * - `openai-compatible` / `anthropic`: needs `settings` (base URL and model) and
 *   `runtime.fetch`, else `{ok: false, problem}` naming what is missing.
 * Pure (building sends nothing).
 */
export function createSummarizer(
  id: SummarizerId,
  settings: HttpSummarizerSettings | undefined,
  recordedCompactions: readonly RecordedCompaction[],
  runtime: SummarizerRuntime = {},
): SummarizerChoice {
  if (id === 'extractive') return { ok: true, summarizer: extractiveSummarizer }
  if (id === 'recorded')
    return { ok: true, summarizer: createRecordedSummarizer(recordedCompactions) }
  if (!settings || !settings.baseUrl?.trim() || !settings.model?.trim())
    return { ok: false, problem: 'it needs a base URL and a model' }
  if (!runtime.fetch) return { ok: false, problem: 'it needs network access (fetch)' }
  const options: HttpSummarizerOptions = { ...settings, fetch: runtime.fetch }
  if (runtime.apiKey) options.apiKey = runtime.apiKey
  if (runtime.cache) options.cache = runtime.cache
  if (runtime.signal) options.signal = runtime.signal
  if (runtime.onToken) options.onToken = runtime.onToken
  if (runtime.timeoutMs !== undefined) options.timeoutMs = runtime.timeoutMs
  if (runtime.maxRetries !== undefined) options.maxRetries = runtime.maxRetries
  if (runtime.sleep) options.sleep = runtime.sleep
  if (runtime.now) options.now = runtime.now
  if (runtime.backoffMs !== undefined) options.backoffMs = runtime.backoffMs
  const summarizer =
    id === 'anthropic'
      ? createAnthropicSummarizer(options)
      : createOpenAICompatibleSummarizer(options)
  return { ok: true, summarizer }
}
