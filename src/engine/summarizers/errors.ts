/**
 * Errors of the HTTP summarizers that explain themselves: what went wrong, and what to do about
 * it (which key, which URL, which server setting). Never includes an API key. Source: SPEC §3.4
 * (the seed's "unable to parse compressed messages" error).
 */
import type { StageId } from '../model'
import { EMPTY_ANSWER_ERROR } from '../stages/insert-then-compress'
import type { HeadersLike } from './fetch-types'
import { hostOf } from '../util/url-credentials'

/**
 * What kind of failure:
 * - `auth`: 401/403, the key is missing, wrong or lacks access;
 * - `not-found`: 404, unknown model or wrong endpoint path;
 * - `rate-limited`: 429 (or 529/503 overloaded) still failing after the bounded retries;
 * - `bad-request`: another 4xx (the server's own message is quoted);
 * - `server`: a 5xx;
 * - `timeout`: no answer (or no streamed bytes) within `timeoutMs`;
 * - `network`: the request never got an HTTP answer (server down, wrong host, or CORS);
 * - `unparsable`: the answer is not the JSON/SSE the protocol defines;
 * - `empty`: the answer holds no text;
 * - `cancelled`: the run's signal aborted;
 * - `config`: a setting is missing (base URL, model) or the summarizer cannot answer this request
 *   (`recorded` without a recorded summary).
 */
export type SummarizerErrorKind =
  | 'auth'
  | 'not-found'
  | 'rate-limited'
  | 'bad-request'
  | 'server'
  | 'timeout'
  | 'network'
  | 'unparsable'
  | 'empty'
  | 'cancelled'
  | 'config'

/** A typed summarizer failure. `message` is the full explanation shown to the person. */
export class SummarizerError extends Error {
  readonly kind: SummarizerErrorKind
  /** HTTP status, when the server answered. */
  readonly status?: number
  /** The server's requested wait before retrying (429), in milliseconds. */
  readonly retryAfterMs?: number

  constructor(
    kind: SummarizerErrorKind,
    message: string,
    extra: { status?: number; retryAfterMs?: number } = {},
  ) {
    super(message)
    this.name = 'SummarizerError'
    this.kind = kind
    if (extra.status !== undefined) this.status = extra.status
    if (extra.retryAfterMs !== undefined) this.retryAfterMs = extra.retryAfterMs
  }
}

/** True for a `SummarizerError` (also across module copies: checks the name and kind). */
export function isSummarizerError(e: unknown): e is SummarizerError {
  return e instanceof SummarizerError || (e instanceof Error && e.name === 'SummarizerError')
}

/** Which protocol a message is about (for the hints). */
export type Provider = 'openai-compatible' | 'anthropic'

/** Where a request went, for messages. */
export interface RequestContext {
  provider: Provider
  /** The endpoint as shown: `displayUrl` of the URL sent (no password, no key in the query). */
  url: string
  model: string
}


/**
 * The wait a 429/503 answer asks for, in milliseconds: `retry-after-ms` (OpenAI), else
 * `retry-after` as whole or decimal seconds, or as an HTTP date (relative to `now`, ms since
 * the epoch). Undefined when absent or unreadable; never negative. Source: RFC 9110 §10.2.3.
 */
export function parseRetryAfter(headers: HeadersLike, now: number): number | undefined {
  const ms = headers.get('retry-after-ms')
  if (ms !== null && /^\s*\d+(\.\d+)?\s*$/.test(ms)) return Math.max(0, Math.round(Number(ms)))
  const value = headers.get('retry-after')
  if (value === null || value.trim() === '') return undefined
  if (/^\s*\d+(\.\d+)?\s*$/.test(value)) return Math.max(0, Math.round(Number(value) * 1000))
  const at = Date.parse(value)
  if (Number.isNaN(at)) return undefined
  return Math.max(0, at - now)
}

/** The server's own error message from a JSON error body (`{error: {message}}` or `{message}`). */
function serverMessage(bodyText: string): string | undefined {
  try {
    const v = JSON.parse(bodyText) as unknown
    if (typeof v !== 'object' || v === null) return undefined
    const o = v as { error?: unknown; message?: unknown }
    if (typeof o.error === 'string') return o.error
    if (typeof o.error === 'object' && o.error !== null) {
      const m = (o.error as { message?: unknown }).message
      if (typeof m === 'string') return m
    }
    if (typeof o.message === 'string') return o.message
  } catch {
    // not JSON: fall through to the raw snippet
  }
  const snippet = bodyText.trim().replace(/\s+/g, ' ').slice(0, 200)
  return snippet === '' ? undefined : snippet
}

const KEY_ENV: Record<Provider, string> = {
  'openai-compatible': 'OPENAI_API_KEY',
  anthropic: 'ANTHROPIC_API_KEY',
}

/**
 * The error for a non-2xx answer that is not retried (or no longer). Each kind of status names
 * its likely cause and fix; the server's own message is quoted when it gave one. `retries`: how
 * many retries came before this answer (a 429 says whether it was retried at all).
 */
export function httpError(
  status: number,
  bodyText: string,
  ctx: RequestContext,
  retryAfterMs?: number,
  retries = 0,
): SummarizerError {
  const said = serverMessage(bodyText)
  const quote = said ? ` The server said: "${said}".` : ''
  const host = hostOf(ctx.url)
  const extra = retryAfterMs === undefined ? { status } : { status, retryAfterMs }
  if (status === 401 || status === 403) {
    return new SummarizerError(
      'auth',
      `${status} ${status === 401 ? 'unauthorized' : 'forbidden'} from ${host}: the API key is ` +
        `missing, wrong, or has no access to model "${ctx.model}". Check the key in Settings ` +
        `(the CLI reads ${KEY_ENV[ctx.provider]}).${quote}`,
      extra,
    )
  }
  if (status === 404) {
    const hint =
      ctx.provider === 'anthropic'
        ? 'the base URL should be https://api.anthropic.com (the path /v1/messages is added)'
        : 'OpenAI-compatible base URLs end in /v1 (Ollama http://localhost:11434/v1, LM Studio ' +
          'http://localhost:1234/v1, OpenAI https://api.openai.com/v1); /chat/completions is added'
    return new SummarizerError(
      'not-found',
      `404 not found at ${ctx.url}: model "${ctx.model}" does not exist there (pull or load it ` +
        `first), or the endpoint path is wrong — ${hint}.${quote}`,
      extra,
    )
  }
  if (status === 429 || status === 503 || status === 529) {
    const wait =
      retryAfterMs !== undefined ? ` It asked to retry after ${fmtMs(retryAfterMs)}.` : ''
    // A retry-after over the wait limit is answered at once: "after the retries" would be untrue.
    const tried =
      retries > 0 ? `still failing after ${retries} ${retries === 1 ? 'retry' : 'retries'}` : 'not retried'
    const advice =
      retryAfterMs !== undefined && retryAfterMs >= 60_000
        ? 'Run again once that time has passed'
        : 'Wait a moment and run again'
    return new SummarizerError(
      'rate-limited',
      `${status} from ${host}: rate limited or overloaded, ${tried}.${wait} ` +
        `${advice}, or use a smaller model or fewer passes.${quote}`,
      extra,
    )
  }
  if (status >= 500) {
    return new SummarizerError(
      'server',
      `${status} server error from ${host}; try again later.${quote}`,
      extra,
    )
  }
  return new SummarizerError(
    'bad-request',
    `${status} from ${host}: the server refused the request (model "${ctx.model}").${quote}`,
    extra,
  )
}

function fmtMs(ms: number): string {
  return ms >= 1000 ? `${Math.round(ms / 100) / 10} s` : `${ms} ms`
}

/**
 * The error when `fetch` itself rejects (no HTTP answer): a server that is not running, a wrong
 * host, or a browser that blocked the cross-origin request (CORS) — which a page cannot tell
 * apart, so the message gives the fix for each local server.
 */
export function networkError(cause: unknown, ctx: RequestContext): SummarizerError {
  const host = hostOf(ctx.url)
  const why = cause instanceof Error && cause.message ? ` (${cause.message})` : ''
  const hint =
    ctx.provider === 'anthropic'
      ? 'Check the base URL and your connection; from a browser the request carries the ' +
        '"anthropic-dangerous-direct-browser-access" header Anthropic requires.'
      : 'Is the server running at this URL? From a browser the server must also allow this ' +
        "page's origin (CORS): Ollama — start it with OLLAMA_ORIGINS set to this page's origin " +
        '(or OLLAMA_ORIGINS=*), e.g. `OLLAMA_ORIGINS=* ollama serve`; ' +
        'LM Studio — Developer → Server settings → turn on "Enable CORS"; vLLM — `--allowed-origins`.'
  return new SummarizerError(
    'network',
    `could not reach ${host}${why}: the request got no answer — the server is down, the URL ` +
      `is wrong, or the browser blocked it (CORS). ${hint}`,
  )
}

/**
 * The 1-based position of the first character of `apiKey` an HTTP header cannot carry (above
 * U+00FF, NUL, CR or LF — fetch throws on them before anything is sent), or 0 when there is none.
 * Positions count UTF-16 code units, as the key field does.
 */
export function unsendableKeyCharAt(apiKey: string): number {
  for (let i = 0; i < apiKey.length; i++) {
    const c = apiKey.charCodeAt(i)
    if (c > 0xff || c === 0 || c === 0x0a || c === 0x0d) return i + 1
  }
  return 0
}

/**
 * The error for a key fetch cannot put in a header (see `unsendableKeyCharAt`). Without it the
 * browser's TypeError read as "could not reach the server (CORS)". Names the character's code
 * point and position only, never the key.
 */
export function unsendableKeyError(apiKey: string, ctx: RequestContext): SummarizerError {
  const at = unsendableKeyCharAt(apiKey)
  const code = (apiKey.codePointAt(at - 1) ?? 0).toString(16).toUpperCase().padStart(4, '0')
  return new SummarizerError(
    'auth',
    `the API key cannot be sent to ${hostOf(ctx.url)}: its character ${at} of ${apiKey.length} is ` +
      `U+${code}, which an HTTP header cannot carry — usually a curly quote, a non-breaking space ` +
      `or a line break copied along with the key. Paste the key again (nothing was sent).`,
  )
}

/** The error when nothing arrived for `timeoutMs` milliseconds. */
export function timeoutError(ms: number, ctx: RequestContext): SummarizerError {
  return new SummarizerError(
    'timeout',
    `no answer from ${hostOf(ctx.url)} within ${fmtMs(ms)} (model "${ctx.model}"): the model may ` +
      'still be loading or be too slow for this prompt: use a smaller model (the CLI also takes ' +
      'a longer --timeout-ms).',
  )
}

/** The error when the run was cancelled. */
export function cancelledError(): SummarizerError {
  return new SummarizerError('cancelled', 'cancelled')
}

/**
 * The error for an answer that holds no text. For `insert-then-compress` it is the seed's
 * "unable to parse compressed messages" (seed 003 `rebuild_with_compression`); for `summarize`
 * an "empty summary". Either way the stage keeps its input: never an empty context.
 */
export function emptyAnswerError(stage: StageId, detail: string): SummarizerError {
  const head =
    stage === 'insert-then-compress'
      ? EMPTY_ANSWER_ERROR
      : 'empty summary: the summarizer returned no text'
  return new SummarizerError('empty', `${head} (${detail})`)
}

/**
 * The error for an answer that is not the protocol's JSON (an HTML error page, a proxy's text,
 * a truncated body). Quotes its first 120 characters.
 */
export function unparsableError(
  stage: StageId,
  bodyText: string,
  ctx: RequestContext,
): SummarizerError {
  const head =
    stage === 'insert-then-compress'
      ? EMPTY_ANSWER_ERROR
      : 'unable to parse the summary: the answer is not valid JSON'
  const snippet = bodyText.trim().replace(/\s+/g, ' ').slice(0, 120)
  const hint =
    ctx.provider === 'anthropic'
      ? 'is the base URL the Anthropic API?'
      : 'is the base URL an OpenAI-compatible API (usually ending in /v1)?'
  return new SummarizerError(
    'unparsable',
    `${head} — ${hostOf(ctx.url)} answered with something that is not the expected JSON ` +
      `(${snippet === '' ? 'an empty body' : `"${snippet}"`}); ${hint}`,
  )
}
