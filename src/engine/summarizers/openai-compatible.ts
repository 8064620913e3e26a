/**
 * The `openai-compatible` summarizer: `POST {baseUrl}/chat/completions` (OpenAI, Ollama,
 * LM Studio, vLLM, …), streamed as server-sent events (`data:` lines ending with `[DONE]`) or
 * not. `summarize` sends the seed 001 prompt as one user message; `insert-then-compress` sends the
 * whole conversation (its tool schemas too) plus the appended instruction, mapped by export.ts
 * (`exportMessages` to `openai-chat`). Source: SPEC §3.6, §3.4.
 */
import { exportMessages } from '../export'
import { buildCompressionRequest } from '../stages/insert-then-compress'
import type { Summarizer, SummaryRequest } from '../stages/types'
import { parseJsonWithin } from '../util/nesting'
import { SummarizerError, httpError, unparsableError } from './errors'
import {
  createHttpSummarizer,
  joinUrl,
  type HttpRequestSpec,
  type HttpSummarizerOptions,
  type HttpSummarizerSettings,
  type Protocol,
} from './http'

/** The request path appended to the base URL. */
const CHAT_COMPLETIONS_PATH = '/chat/completions'

/**
 * The chat messages (and tools) of a request: `summarize` → `[{role: 'user', content: prompt}]`;
 * `insert-then-compress` → the conversation + instruction through `buildCompressionRequest` and
 * `exportMessages(…, 'openai-chat')`, with the transcript's tool schemas. Pure.
 */
function openAIChatMessages(request: SummaryRequest): {
  messages: unknown[]
  tools?: unknown[]
} {
  if (request.stage === 'insert-then-compress' && request.conversation) {
    const { messages } = buildCompressionRequest(request.conversation)
    const ctx = {
      ...(request.format !== undefined ? { format: request.format } : {}),
      ...(request.tools ? { tools: request.tools } : {}),
    }
    const body = exportMessages(messages, 'openai-chat', ctx).body as {
      messages: unknown[]
      tools?: unknown[]
    }
    return body.tools ? { messages: body.messages, tools: body.tools } : { messages: body.messages }
  }
  return { messages: [{ role: 'user', content: request.prompt }] }
}

/**
 * The HTTP request for `request`: `POST joinUrl(baseUrl, '/chat/completions')`, body
 * `{model, messages, tools?, max_tokens?, stream}`, headers `content-type`, `accept` and —
 * only when `apiKey` is set — `authorization: Bearer <key>`. Pure.
 */
function buildOpenAIChatRequest(
  request: SummaryRequest,
  settings: HttpSummarizerSettings,
  apiKey?: string,
): HttpRequestSpec {
  const stream = settings.stream ?? true
  const body: Record<string, unknown> = { model: settings.model, ...openAIChatMessages(request) }
  if (settings.maxTokens !== undefined) body.max_tokens = settings.maxTokens
  body.stream = stream
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: stream ? 'text/event-stream' : 'application/json',
  }
  const spec: HttpRequestSpec = {
    url: joinUrl(settings.baseUrl, CHAT_COMPLETIONS_PATH),
    headers,
    body,
    bodyText: JSON.stringify(body),
  }
  if (apiKey) {
    headers.authorization = `Bearer ${apiKey}`
    spec.keyHeader = 'authorization'
  }
  return spec
}

/** Text of a chat `content` (a string, or parts of which the text ones count). */
function contentText(content: unknown): string {
  if (typeof content === 'string') return content
  if (Array.isArray(content)) {
    return content
      .map((p) => {
        const t = typeof p === 'object' && p !== null ? (p as { text?: unknown }).text : undefined
        return typeof t === 'string' ? t : ''
      })
      .join('')
  }
  return ''
}

function errorIn(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null || !('error' in value)) return undefined
  const err = (value as { error: unknown }).error
  if (typeof err === 'string') return err
  if (typeof err === 'object' && err !== null) {
    const m = (err as { message?: unknown }).message
    return typeof m === 'string' ? m : JSON.stringify(err)
  }
  return undefined
}

/** The chat-completions protocol (see `Protocol`). */
export const openAIChatProtocol: Protocol = {
  provider: 'openai-compatible',
  buildRequest: buildOpenAIChatRequest,
  readJson(value, ctx, stage) {
    const err = errorIn(value)
    if (err !== undefined) throw httpError(400, JSON.stringify({ error: { message: err } }), ctx)
    const choices = (value as { choices?: unknown }).choices
    if (!Array.isArray(choices)) throw unparsableError(stage, JSON.stringify(value), ctx)
    const message = (choices[0] as { message?: { content?: unknown } } | undefined)?.message
    return contentText(message?.content)
  },
  readEvent(event, ctx, stage) {
    const data = event.data.trim()
    if (data === '[DONE]') return null
    const parsed = parseJsonWithin(data)
    if (!parsed) throw unparsableError(stage, data, ctx)
    const value = parsed.value
    const err = errorIn(value)
    if (err !== undefined)
      throw new SummarizerError('server', `the stream from ${ctx.url} ended with an error: ${err}`)
    const choices = (value as { choices?: unknown }).choices
    if (!Array.isArray(choices)) return ''
    const delta = (choices[0] as { delta?: { content?: unknown } } | undefined)?.delta
    return contentText(delta?.content)
  },
}

/**
 * An `openai-compatible` summarizer (see `createHttpSummarizer` for caching, retries, timeouts,
 * cancellation and errors). `options.fetch` is required: the engine never uses a global fetch.
 */
export function createOpenAICompatibleSummarizer(options: HttpSummarizerOptions): Summarizer {
  return createHttpSummarizer(openAIChatProtocol, options)
}
