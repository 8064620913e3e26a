/**
 * The transport shared by the HTTP summarizers: one POST with a timeout, cancellation, bounded
 * retries with exponential backoff on 429/503/529 (honouring `retry-after`), a server-sent-events
 * reader for streamed answers, and the summary cache in front of it all. The protocols
 * (openai-compatible.ts, anthropic.ts) only build the body and read the answer.
 * Source: SPEC §3.6.
 */
import type { StageId, SummarizerSettings } from '../model'
import type { CancelSignal, Summarizer, SummaryRequest } from '../stages/types'
import { summaryCacheKey, type SummaryCache } from './cache'
import {
  cancelledError,
  httpError,
  isSummarizerError,
  networkError,
  parseRetryAfter,
  SummarizerError,
  timeoutError,
  unsendableKeyCharAt,
  unsendableKeyError,
  unparsableError,
  emptyAnswerError,
  type Provider,
  type RequestContext,
} from './errors'
import {
  defaultSleep,
  newAbortController,
  newUtf8Decoder,
  startTimer,
  type FetchLike,
  type ResponseLike,
  type Sleep,
} from './fetch-types'
import { displayUrl, scrubUrlSecrets } from '../util/url-credentials'
import { parseJsonWithin } from '../util/nesting'

/** Default time without an answer (or, when streaming, without a chunk), in milliseconds. */
const DEFAULT_TIMEOUT_MS = 120_000

/** Default number of retries after a 429/503/529 answer (so at most 4 requests). */
const DEFAULT_MAX_RETRIES = 3

/** First backoff delay in milliseconds; doubled at each retry. */
const DEFAULT_BACKOFF_MS = 1_000

/** A `retry-after` longer than this (ms) is not waited for: the error says when to retry. */
const MAX_RETRY_AFTER_MS = 60_000

/** The settings of an HTTP summarizer that may be stored in a pipeline config (no key). */
export type HttpSummarizerSettings = SummarizerSettings

/** Everything an HTTP summarizer needs besides its settings. The key lives only here. */
export interface HttpSummarizerOptions extends HttpSummarizerSettings {
  /** Sent as `Authorization: Bearer` / `x-api-key` only when set. Never logged or exported. */
  apiKey?: string
  fetch: FetchLike
  /** See `DEFAULT_TIMEOUT_MS`. */
  timeoutMs?: number
  /** See `DEFAULT_MAX_RETRIES`. */
  maxRetries?: number
  /** Cancels every request of this summarizer (a request's own `signal` also cancels it). */
  signal?: CancelSignal
  /** Each streamed piece of text as it arrives, with the request it answers. */
  onToken?: (text: string, request: SummaryRequest) => void
  /** Waits between retries (tests inject a recorder). Default: a timer. */
  sleep?: Sleep
  /** Current time in ms since the epoch, for `retry-after` HTTP dates. Default `Date.now`. */
  now?: () => number
  /** See `DEFAULT_BACKOFF_MS`. */
  backoffMs?: number
  /** Summaries are looked up here before any request and stored after a good answer. */
  cache?: SummaryCache
}

/** An HTTP request ready to send (`headers` may hold the key: never show them as they are). */
export interface HttpRequestSpec {
  url: string
  headers: Record<string, string>
  /** The JSON body as data. */
  body: Record<string, unknown>
  /** The exact text sent: `JSON.stringify(body)`. */
  bodyText: string
  /** The header holding the key, when one is sent (`authorization` / `x-api-key`). */
  keyHeader?: string
}

/** A server-sent event: its `event:` name (if any) and its `data:` lines joined with "\n". */
export interface SseEvent {
  event?: string
  data: string
}

/** What a protocol does with the answer. */
export interface Protocol {
  provider: Provider
  /** The request for a summary, for these settings; the key only in `headers`. */
  buildRequest(
    request: SummaryRequest,
    settings: HttpSummarizerSettings,
    apiKey?: string,
  ): HttpRequestSpec
  /** The text of a non-streamed JSON answer; throws `SummarizerError` for an error object. */
  readJson(value: unknown, ctx: RequestContext, stage: StageId): string
  /**
   * One streamed event: returns the text it adds ('' for none), `null` at the end of the
   * answer; throws `SummarizerError` for an error event.
   */
  readEvent(event: SseEvent, ctx: RequestContext, stage: StageId): string | null
}

/** A base URL cut before its query or fragment: `[head, '?x=1#f']` (the tail '' when it has none). */
function splitQuery(baseUrl: string): [string, string] {
  const base = baseUrl.trim()
  const at = base.search(/[?#]/)
  return at < 0 ? [base, ''] : [base.slice(0, at), base.slice(at)]
}

/**
 * A base URL with `path` (e.g. `/chat/completions`) added to its path, without doubling the slash,
 * and before its query and fragment: `http://h/v1?x=1` + `/chat/completions` is
 * `http://h/v1/chat/completions?x=1` (an Azure-style `api-version` query keeps working). String
 * work, as `displayUrl` does: the rest of the URL stays as written (no parser normalising it).
 */
export function joinUrl(baseUrl: string, path: string): string {
  const [head, tail] = splitQuery(baseUrl)
  return `${head.replace(/\/+$/, '')}${path}${tail}`
}

/** The part of a base URL before its query or fragment (`http://h/v1` of `http://h/v1?x=1`). */
export function urlBeforeQuery(baseUrl: string): string {
  return splitQuery(baseUrl)[0]
}

/**
 * A server-sent-events parser (WHATWG HTML §9.2 "event stream interpretation", the parts LLM
 * APIs use): lines end with CRLF, LF or CR; `:` lines are comments; `data:` lines accumulate
 * (one leading space dropped); a blank line dispatches the event. `push` takes decoded text in
 * any chunking; `end` dispatches a last event not followed by a blank line.
 */
export function createSseParser(onEvent: (e: SseEvent) => void): {
  push(text: string): void
  end(): void
} {
  let buffer = ''
  let data: string[] = []
  let event: string | undefined
  const dispatch = () => {
    if (data.length > 0) {
      const joined = data.join('\n')
      onEvent(event === undefined ? { data: joined } : { event, data: joined })
    }
    data = []
    event = undefined
  }
  const line = (l: string) => {
    if (l === '') return dispatch()
    if (l.startsWith(':')) return
    const colon = l.indexOf(':')
    const field = colon === -1 ? l : l.slice(0, colon)
    let value = colon === -1 ? '' : l.slice(colon + 1)
    if (value.startsWith(' ')) value = value.slice(1)
    if (field === 'data') data.push(value)
    else if (field === 'event') event = value
  }
  return {
    push(text) {
      buffer += text
      for (;;) {
        const m = /\r\n|\n|\r/.exec(buffer)
        // A lone CR at the very end may be the first half of a CRLF: wait for more.
        if (!m || (m[0] === '\r' && m.index === buffer.length - 1)) break
        line(buffer.slice(0, m.index))
        buffer = buffer.slice(m.index + m[0].length)
      }
    },
    end() {
      if (buffer !== '') line(buffer.replace(/\r$/, ''))
      buffer = ''
      dispatch()
    },
  }
}

/**
 * Removes a leading `<think>…</think>` block (reasoning models served by Ollama / LM Studio put
 * their reasoning there; it is not the summary), also when the opening tag is missing.
 */
export function stripThinking(text: string): string {
  const open = /^\s*<think>[\s\S]*?<\/think>\s*/.exec(text)
  if (open) return text.slice(open[0].length)
  const close = text.indexOf('</think>')
  if (close !== -1 && !text.slice(0, close).includes('<think>'))
    return text.slice(close + '</think>'.length).trimStart()
  return text
}

/** The cache key of a request: body without `model`/`stream` (see `summaryCacheKey`). */
export function requestCacheKey(
  provider: Provider,
  settings: HttpSummarizerSettings,
  spec: HttpRequestSpec,
): string {
  const rest: Record<string, unknown> = { ...spec.body }
  delete rest.model
  delete rest.stream
  return summaryCacheKey(
    `${provider} ${settings.baseUrl.trim().replace(/\/+$/, '')}`,
    settings.model,
    JSON.stringify(rest),
  )
}

/** A cancel/timeout guard for one attempt: races every await against abort and timeout. */
class Attempt {
  private rejectAbort: ((e: SummarizerError) => void) | undefined
  readonly aborted: Promise<never>
  private stopTimer: () => void = () => {}
  private readonly controller = newAbortController()
  private readonly onOuterAbort: () => void
  failure: SummarizerError | undefined

  constructor(
    private readonly signals: readonly CancelSignal[],
    private readonly timeoutMs: number,
    private readonly ctx: RequestContext,
  ) {
    this.aborted = new Promise<never>((_, reject) => {
      this.rejectAbort = reject
    })
    // Never an unhandled rejection when nothing awaits it any more.
    this.aborted.catch(() => {})
    this.onOuterAbort = () => this.fail(cancelledError())
    for (const s of signals) s.addEventListener?.('abort', this.onOuterAbort, { once: true })
    this.arm()
  }

  get signal(): CancelSignal | undefined {
    return this.controller?.signal
  }

  /** (Re)starts the timeout: at the start, and at each streamed chunk. */
  arm(): void {
    this.stopTimer()
    this.stopTimer = startTimer(this.timeoutMs, () =>
      this.fail(timeoutError(this.timeoutMs, this.ctx)),
    )
  }

  fail(e: SummarizerError): void {
    if (this.failure) return
    this.failure = e
    this.controller?.abort(e)
    this.rejectAbort?.(e)
  }

  /** Rejects as soon as the attempt is cancelled or timed out (also when polled signals say so). */
  race<T>(p: Promise<T>): Promise<T> {
    if (this.signals.some((s) => s.aborted)) this.fail(cancelledError())
    if (this.failure) {
      p.catch(() => {})
      return Promise.reject(this.failure)
    }
    return Promise.race([p, this.aborted])
  }

  dispose(): void {
    this.stopTimer()
    for (const s of this.signals) s.removeEventListener?.('abort', this.onOuterAbort)
  }
}

function statusRetryable(status: number): boolean {
  return status === 429 || status === 503 || status === 529
}

/**
 * Reads a streamed (SSE) answer to the end, re-arming the timeout at each chunk; `onText` gets
 * each piece. Falls back to JSON when the server ignored `stream: true`.
 */
async function readStream(
  response: ResponseLike,
  attempt: Attempt,
  protocol: Protocol,
  ctx: RequestContext,
  stage: StageId,
  onText: (text: string) => void,
): Promise<string> {
  const type = response.headers.get('content-type') ?? ''
  if (!response.body || type.includes('application/json')) {
    return readJsonAnswer(await attempt.race(response.text()), protocol, ctx, stage)
  }
  const reader = response.body.getReader()
  const decode = newUtf8Decoder()
  let text = ''
  let finished = false
  let raw = ''
  let sawEvent = false
  const parser = createSseParser((event) => {
    if (finished) return
    sawEvent = true
    const piece = protocol.readEvent(event, ctx, stage)
    if (piece === null) {
      finished = true
      return
    }
    if (piece !== '') {
      text += piece
      onText(piece)
    }
  })
  try {
    while (!finished) {
      const { done, value } = await attempt.race(reader.read())
      attempt.arm()
      if (done) {
        const tail = decode()
        raw += tail
        parser.push(tail)
        parser.end()
        break
      }
      const chunk = decode(value)
      if (!sawEvent && raw.length < 200) raw += chunk
      parser.push(chunk)
    }
  } catch (e) {
    reader.cancel().catch(() => {})
    throw e
  }
  if (finished) reader.cancel().catch(() => {})
  if (!sawEvent) throw unparsableError(stage, raw, ctx)
  return text
}

function readJsonAnswer(bodyText: string, protocol: Protocol, ctx: RequestContext, stage: StageId) {
  // An answer nested past the limit is as unreadable as one that is not JSON.
  const parsed = parseJsonWithin(bodyText)
  if (!parsed) throw unparsableError(stage, bodyText, ctx)
  return protocol.readJson(parsed.value, ctx, stage)
}

/**
 * Builds a `Summarizer` over `protocol`: cache lookup (a hit never calls `fetch`), then up to
 * `1 + maxRetries` requests (retrying only 429/503/529, after `max(retry-after, backoff·2^n)` ms;
 * a `retry-after` over `MAX_RETRY_AFTER_MS` is not waited for), the answer read streamed or not,
 * `<think>` blocks removed, trimmed; an empty answer → `SummarizerError('empty')`. Every failure
 * is a `SummarizerError` (see errors.ts); cancellation via `options.signal` or
 * `request.signal`.
 */
export function createHttpSummarizer(
  protocol: Protocol,
  options: HttpSummarizerOptions,
): Summarizer {
  const settings: HttpSummarizerSettings = {
    baseUrl: options.baseUrl,
    model: options.model,
    stream: options.stream ?? true,
  }
  if (options.maxTokens !== undefined) settings.maxTokens = options.maxTokens
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS
  const maxRetries = Math.max(0, Math.trunc(options.maxRetries ?? DEFAULT_MAX_RETRIES))
  const sleep = options.sleep ?? defaultSleep
  const now = options.now ?? (() => Date.now())
  const backoff = options.backoffMs ?? DEFAULT_BACKOFF_MS

  const ask = async (request: SummaryRequest): Promise<string> => {
    if (!settings.baseUrl.trim())
      throw new SummarizerError('config', `${protocol.provider}: no base URL is set`)
    if (!settings.model.trim())
      throw new SummarizerError('config', `${protocol.provider}: no model is set`)
    const spec = protocol.buildRequest(request, settings, options.apiKey)
    const ctx: RequestContext = {
      provider: protocol.provider,
      url: displayUrl(spec.url),
      model: settings.model,
    }
    if (options.apiKey !== undefined && unsendableKeyCharAt(options.apiKey) > 0)
      throw unsendableKeyError(options.apiKey, ctx)
    const key = options.cache ? requestCacheKey(protocol.provider, settings, spec) : undefined
    if (key !== undefined) {
      const hit = options.cache?.get(key)
      if (hit !== undefined) return hit
    }
    const signals = [options.signal, request.signal].filter(
      (s): s is CancelSignal => s !== undefined,
    )

    for (let attemptNo = 0; ; attemptNo++) {
      if (signals.some((s) => s.aborted)) throw cancelledError()
      const attempt = new Attempt(signals, timeoutMs, ctx)
      let retryDelay: number | undefined
      try {
        let response: ResponseLike
        try {
          const init = { method: 'POST' as const, headers: spec.headers, body: spec.bodyText }
          const signal = attempt.signal
          response = await attempt.race(
            options.fetch(spec.url, signal ? { ...init, signal } : init),
          )
        } catch (e) {
          if (isSummarizerError(e)) throw e
          throw attempt.failure ?? networkError(e, ctx)
        }
        if (!response.ok) {
          const bodyText = await attempt.race(response.text()).catch((e: unknown) => {
            if (isSummarizerError(e)) throw e
            return ''
          })
          const retryAfter = parseRetryAfter(response.headers, now())
          if (
            statusRetryable(response.status) &&
            attemptNo < maxRetries &&
            (retryAfter === undefined || retryAfter <= MAX_RETRY_AFTER_MS)
          ) {
            retryDelay = Math.max(retryAfter ?? 0, backoff * 2 ** attemptNo)
          } else {
            throw httpError(response.status, bodyText, ctx, retryAfter, attemptNo)
          }
        } else {
          let answer: string
          if (settings.stream) {
            answer = await readStream(response, attempt, protocol, ctx, request.stage, (t) =>
              options.onToken?.(redactKeyIn(t, options.apiKey), request),
            )
          } else {
            const bodyText = await attempt.race(response.text())
            answer = readJsonAnswer(bodyText, protocol, ctx, request.stage)
          }
          // An answer that repeats the key (a proxy echoing headers) never shows it.
          const summary = redactKeyIn(stripThinking(answer), options.apiKey).trim()
          if (summary === '') {
            const besides = answer.trim() ? ' besides a <think> block' : ''
            throw emptyAnswerError(
              request.stage,
              `${ctx.model} at ${ctx.url} answered with no text${besides}`,
            )
          }
          if (key !== undefined) options.cache?.set(key, summary)
          return summary
        }
      } finally {
        attempt.dispose()
      }
      await sleep(retryDelay ?? 0, signals[0])
      if (signals.some((s) => s.aborted)) throw cancelledError()
    }
  }
  /** The URL a request goes to (built as `ask` builds it; the base URL when that fails). */
  const sentUrl = (request: SummaryRequest): string => {
    try {
      return protocol.buildRequest(request, settings).url
    } catch {
      return settings.baseUrl
    }
  }
  return (request) =>
    ask(request).catch((e: unknown) => Promise.reject(redactSecrets(e, options.apiKey, sentUrl(request))))
}

/** `text` with every occurrence of `apiKey` replaced by `<API key>` (answers are shown and exported). */
function redactKeyIn(text: string, apiKey: string | undefined): string {
  return apiKey && text.includes(apiKey) ? text.split(apiKey).join('<API key>') : text
}

/**
 * `e` with every occurrence of `apiKey` in its message replaced by `<API key>`, and the
 * credentials of `url` (a password, a key in the query) masked (`scrubUrlSecrets`): a server may
 * echo the key it refused, `fetch` names the URL it refused, and messages are shown and logged.
 */
function redactSecrets(e: unknown, apiKey: string | undefined, url: string): unknown {
  if (!(e instanceof Error)) return e
  const message = scrubUrlSecrets(redactKeyIn(e.message, apiKey), url)
  if (message === e.message) return e
  if (!isSummarizerError(e)) return new Error(message)
  const extra: { status?: number; retryAfterMs?: number } = {}
  if (e.status !== undefined) extra.status = e.status
  if (e.retryAfterMs !== undefined) extra.retryAfterMs = e.retryAfterMs
  return new SummarizerError(e.kind, message, extra)
}
