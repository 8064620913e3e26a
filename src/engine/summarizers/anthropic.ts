/**
 * The `anthropic` summarizer: `POST {baseUrl}/v1/messages` with `x-api-key`,
 * `anthropic-version: 2023-06-01` and `anthropic-dangerous-direct-browser-access: true` (the
 * header Anthropic requires before it answers a browser directly, with CORS), streamed
 * (`content_block_delta` events carrying `text_delta`) or not. `summarize` sends the seed 001
 * prompt as one user message; `insert-then-compress` sends system + tools + the whole
 * conversation (mapped by export.ts `exportMessages` to `anthropic`) with a `cache_control`
 * breakpoint on the last block of that prefix — so the provider's prompt cache over it is read —
 * then the instruction. Source: SPEC §3.6, §3.4.
 */
import { exportMessages } from '../export'
import { buildCompressionRequest } from '../stages/insert-then-compress'
import type { Summarizer, SummaryRequest } from '../stages/types'
import { parseJsonWithin } from '../util/nesting'
import { SummarizerError, unparsableError } from './errors'
import {
  createHttpSummarizer,
  joinUrl,
  urlBeforeQuery,
  type HttpRequestSpec,
  type HttpSummarizerOptions,
  type HttpSummarizerSettings,
  type Protocol,
} from './http'

/** The Messages API version header value. */
const ANTHROPIC_VERSION = '2023-06-01'

/** `max_tokens` when the settings give none (the Messages API requires it). */
const DEFAULT_MAX_TOKENS = 4096

type Json = Record<string, unknown>

/** `{baseUrl}/v1/messages` (before its query); a base URL whose path already ends in `/v1` is not doubled. */
export function anthropicMessagesUrl(baseUrl: string): string {
  return joinUrl(baseUrl, /\/v1\/*$/.test(urlBeforeQuery(baseUrl)) ? '/messages' : '/v1/messages')
}

/** The message's content as blocks, the last one marked as a cache breakpoint. */
function withCacheBreakpoint(message: Json): Json {
  const content = message.content
  const blocks: Json[] =
    typeof content === 'string'
      ? [{ type: 'text', text: content }]
      : Array.isArray(content)
        ? content.map((b) => ({ ...(b as Json) }))
        : []
  const last = blocks[blocks.length - 1]
  if (!last) return message
  blocks[blocks.length - 1] = { ...last, cache_control: { type: 'ephemeral' } }
  return { ...message, content: blocks }
}

/**
 * `{system?, messages, tools?}` of a request: `summarize` → one user message holding the prompt;
 * `insert-then-compress` → the exported conversation with a cache breakpoint on its last block,
 * then the instruction as a user turn (added to a last user message — e.g. one opened by tool
 * results — as a text block, since Anthropic turns alternate). Pure.
 */
function anthropicMessages(request: SummaryRequest): Json {
  if (request.stage !== 'insert-then-compress' || !request.conversation) {
    return { messages: [{ role: 'user', content: request.prompt }] }
  }
  const { messages, instruction, prefixLength } = buildCompressionRequest(request.conversation)
  const ctx = {
    ...(request.format !== undefined ? { format: request.format } : {}),
    ...(request.tools ? { tools: request.tools } : {}),
  }
  const body = exportMessages(messages.slice(0, prefixLength), 'anthropic', ctx).body as Json
  const out = ((body.messages as Json[] | undefined) ?? []).slice()
  const lastIndex = out.length - 1
  const last = out[lastIndex]
  if (last) out[lastIndex] = withCacheBreakpoint(last)
  const text = { type: 'text', text: instruction.content as string }
  const tail = out[lastIndex]
  if (tail && tail.role === 'user') {
    out[lastIndex] = { ...tail, content: [...(tail.content as Json[]), text] }
  } else {
    out.push({ role: 'user', content: instruction.content })
  }
  const result: Json = {}
  if (body.system !== undefined) result.system = body.system
  result.messages = out
  if (body.tools !== undefined) result.tools = body.tools
  return result
}

/**
 * The HTTP request for `request`: `POST anthropicMessagesUrl(baseUrl)`, body
 * `{model, max_tokens, system?, messages, tools?, stream}`, headers `content-type`,
 * `anthropic-version`, `anthropic-dangerous-direct-browser-access: true` and — only when
 * `apiKey` is set — `x-api-key`. Pure.
 */
function buildAnthropicRequest(
  request: SummaryRequest,
  settings: HttpSummarizerSettings,
  apiKey?: string,
): HttpRequestSpec {
  const stream = settings.stream ?? true
  const body: Json = {
    model: settings.model,
    max_tokens: settings.maxTokens ?? DEFAULT_MAX_TOKENS,
    ...anthropicMessages(request),
    stream,
  }
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: stream ? 'text/event-stream' : 'application/json',
    'anthropic-version': ANTHROPIC_VERSION,
    'anthropic-dangerous-direct-browser-access': 'true',
  }
  const spec: HttpRequestSpec = {
    url: anthropicMessagesUrl(settings.baseUrl),
    headers,
    body,
    bodyText: JSON.stringify(body),
  }
  if (apiKey) {
    headers['x-api-key'] = apiKey
    spec.keyHeader = 'x-api-key'
  }
  return spec
}

/** An `error` object of the Messages API as a `SummarizerError` (overloaded → rate-limited). */
function apiError(error: unknown, url: string): SummarizerError {
  const e = (typeof error === 'object' && error !== null ? error : {}) as {
    type?: unknown
    message?: unknown
  }
  const type = typeof e.type === 'string' ? e.type : 'error'
  const message = typeof e.message === 'string' ? e.message : JSON.stringify(error)
  const kind =
    type === 'overloaded_error' || type === 'rate_limit_error'
      ? 'rate-limited'
      : type === 'authentication_error' || type === 'permission_error'
        ? 'auth'
        : type === 'not_found_error'
          ? 'not-found'
          : type === 'invalid_request_error'
            ? 'bad-request'
            : 'server'
  return new SummarizerError(kind, `${url} answered with ${type}: ${message}`)
}

/** The Messages protocol (see `Protocol`). */
export const anthropicProtocol: Protocol = {
  provider: 'anthropic',
  buildRequest: buildAnthropicRequest,
  readJson(value, ctx, stage) {
    const v = value as { type?: unknown; error?: unknown; content?: unknown }
    if (v?.type === 'error') throw apiError(v.error, ctx.url)
    if (!Array.isArray(v?.content)) throw unparsableError(stage, JSON.stringify(value), ctx)
    return v.content
      .map((b) => {
        const block = b as { type?: unknown; text?: unknown }
        return block.type === 'text' && typeof block.text === 'string' ? block.text : ''
      })
      .join('')
  },
  readEvent(event, ctx, stage) {
    const parsed = parseJsonWithin(event.data)
    if (!parsed) throw unparsableError(stage, event.data, ctx)
    const value = parsed.value as { type?: unknown; delta?: { type?: unknown; text?: unknown }; error?: unknown }
    const type = value?.type ?? event.event
    if (type === 'error') throw apiError(value.error, ctx.url)
    if (type === 'message_stop') return null
    if (
      type === 'content_block_delta' &&
      value.delta?.type === 'text_delta' &&
      typeof value.delta.text === 'string'
    )
      return value.delta.text
    return ''
  },
}

/**
 * An `anthropic` summarizer (see `createHttpSummarizer` for caching, retries, timeouts,
 * cancellation and errors). `options.fetch` is required: the engine never uses a global fetch.
 */
export function createAnthropicSummarizer(options: HttpSummarizerOptions): Summarizer {
  return createHttpSummarizer(anthropicProtocol, options)
}
