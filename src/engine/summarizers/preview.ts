/**
 * The prompt preview: before anything is sent, the exact request every summarizer call of a run
 * would send — URL, host, headers (the key never shown), the JSON body text — and the tokens it
 * carries, so the "send" step can say "N tokens to host H" and the prompt can be copied.
 * Source: SPEC §3.6 "the exact prompt previewable before sending".
 */
import type {
  Message,
  PipelineConfig,
  StageId,
  SummarizerId,
  SummarizerSettings,
  Transcript,
} from '../model'
import { runPipeline } from '../pipeline'
import { buildCompressionRequest } from '../stages/insert-then-compress'
import type { SummaryRequest } from '../stages/types'
import {
  countMessageTokens,
  countToolSchemaTokens,
  REPLY_PRIMING_TOKENS,
  type CachedCounter,
  type TextCounter,
} from '../tokens/count'
import { anthropicProtocol } from './anthropic'
import type { SummaryCache } from './cache'
import { displayUrl, hostOf } from '../util/url-credentials'
import { extractiveSummarizer } from './extractive'
import { requestCacheKey, type HttpRequestSpec, type Protocol } from './http'
import { openAIChatProtocol } from './openai-compatible'
import { createRecordedSummarizer } from './recorded'

/** What a preview shows in place of the API key. */
export const KEY_PLACEHOLDER = '<API key — not shown>'

/** One summarizer call a run would make. */
export interface PlannedRequest {
  stage: StageId
  /** 1-based number of this call within its stage, in the order the run makes them. */
  call: number
  /** The prompt the stage builds (seed 001 prompt; for insert-then-compress the instruction). */
  prompt: string
  /** Input tokens of the request in the config's encoding (messages + tool schemas + priming). */
  tokens: number
  /** Absent for summarizers that send nothing (`extractive`, `recorded`). */
  http?: {
    /** The endpoint as shown (`displayUrl`: no password, no key in the query). */
    url: string
    host: string
    method: 'POST'
    /** As sent, except the key header's value, which is `KEY_PLACEHOLDER`. */
    headers: Record<string, string>
    body: Record<string, unknown>
    /** The exact JSON text that will be sent. */
    bodyText: string
  }
  /** The answer is already in the summary cache: this call sends nothing. */
  cached: boolean
  /**
   * False when this request depends on an earlier answer that is not known yet (a previous
   * summary folded in, or a context rebuilt from it): the preview used the offline extractive
   * summary as a stand-in, so the real request will differ in that part.
   */
  exact: boolean
}

/** Every call a run would make, and what would leave the machine. */
export interface SummaryPlan {
  summarizer: SummarizerId
  model?: string
  /** Where requests go (`host[:port]`); absent when nothing is sent. */
  host?: string
  requests: PlannedRequest[]
  /** Requests that would really be sent (not cached, HTTP summarizers only). */
  requestsToSend: number
  /** Input tokens of those requests. */
  tokensToSend: number
}

/** What `planSummaryRequests` needs. No key: the preview shows whether one is sent. */
export interface PlanDeps {
  counter: CachedCounter
  /** The cache the real run will use (cached calls are marked and send nothing). */
  cache?: SummaryCache
  /** A key is set (the headers show `KEY_PLACEHOLDER` where it goes). */
  hasKey?: boolean
}

function protocolOf(id: SummarizerId): Protocol | undefined {
  if (id === 'openai-compatible') return openAIChatProtocol
  if (id === 'anthropic') return anthropicProtocol
  return undefined
}

/**
 * Input tokens of one summarizer request, counted with the app's counter (an estimate of the
 * provider's count): `summarize` → one user message holding the prompt; `insert-then-compress`
 * → the conversation + the instruction message + the tool schemas. Plus `REPLY_PRIMING_TOKENS`.
 * Source: tokens/count.ts (SPEC §2).
 */
function requestTokens(request: SummaryRequest, countText: TextCounter): number {
  let messages: readonly Message[]
  if (request.stage === 'insert-then-compress' && request.conversation) {
    messages = buildCompressionRequest(request.conversation).messages
  } else {
    messages = [
      {
        id: 'prompt',
        index: 0,
        role: 'user',
        content: request.prompt,
        source: { format: 'canonical' },
      },
    ]
  }
  let n = REPLY_PRIMING_TOKENS
  for (const m of messages) n += countMessageTokens(m, countText)
  if (request.stage === 'insert-then-compress') n += countToolSchemaTokens(request.tools, countText)
  return n
}

/** The headers of a request built without a key, with the placeholder where the key goes. */
function redact(
  spec: HttpRequestSpec,
  protocol: Protocol,
  hasKey: boolean,
): Record<string, string> {
  const headers = { ...spec.headers }
  if (hasKey) {
    if (protocol.provider === 'anthropic') headers['x-api-key'] = KEY_PLACEHOLDER
    else headers.authorization = `Bearer ${KEY_PLACEHOLDER}`
  }
  return headers
}

/**
 * Plans the summarizer calls of `runPipeline(transcript, config)` without sending anything: the
 * run is replayed with a stand-in summarizer that answers from `deps.cache` when it can (the
 * exact answer the real run will re-use) and otherwise with the offline extractive summary.
 * Each call gives its request exactly as the HTTP summarizer builds it (same builder, so the
 * preview matches what the server receives byte for byte), its input tokens, whether it is
 * cached, and whether it is exact (no stand-in answer before it). Keys never appear: the
 * request is built without one and the key header shows `KEY_PLACEHOLDER`. Deterministic; no
 * I/O.
 */
export async function planSummaryRequests(
  transcript: Transcript,
  config: PipelineConfig,
  deps: PlanDeps,
): Promise<SummaryPlan> {
  const protocol = protocolOf(config.summarizer)
  const settings: SummarizerSettings | undefined = config.summarizerOptions
  const http = protocol && settings ? { protocol, settings } : undefined
  const requests: PlannedRequest[] = []
  const calls: Record<string, number> = {}
  let standInUsed = false

  const stand = async (request: SummaryRequest): Promise<string> => {
    calls[request.stage] = (calls[request.stage] ?? 0) + 1
    const planned: PlannedRequest = {
      stage: request.stage,
      call: calls[request.stage] ?? 1,
      prompt: request.prompt,
      tokens: requestTokens(request, deps.counter.count),
      cached: false,
      exact: !standInUsed,
    }
    let cachedAnswer: string | undefined
    if (http) {
      const spec = http.protocol.buildRequest(request, http.settings)
      planned.http = {
        url: displayUrl(spec.url),
        host: hostOf(spec.url),
        method: 'POST',
        headers: redact(spec, http.protocol, deps.hasKey === true),
        body: spec.body,
        bodyText: spec.bodyText,
      }
      cachedAnswer = deps.cache?.get(requestCacheKey(http.protocol.provider, http.settings, spec))
      planned.cached = cachedAnswer !== undefined
    }
    requests.push(planned)
    if (cachedAnswer !== undefined) return cachedAnswer
    if (http) standInUsed = true
    return extractiveSummarizer(request)
  }

  // The offline summarizers answer for real: their preview is what the run does.
  const offline =
    config.summarizer === 'recorded'
      ? createRecordedSummarizer(transcript.recordedCompactions)
      : extractiveSummarizer
  const summarizer = protocol
    ? stand
    : async (request: SummaryRequest) => {
        await stand(request)
        return offline(request)
      }

  await runPipeline(transcript, config, { counter: deps.counter, summarizer })
  const toSend = requests.filter((r) => r.http && !r.cached)
  const plan: SummaryPlan = {
    summarizer: config.summarizer,
    requests,
    requestsToSend: toSend.length,
    tokensToSend: toSend.reduce((n, r) => n + r.tokens, 0),
  }
  if (http) {
    plan.model = http.settings.model
    const first = requests.find((r) => r.http)
    plan.host = first?.http?.host ?? hostOf(http.settings.baseUrl)
  }
  return plan
}
