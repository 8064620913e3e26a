/**
 * A real HTTP test server on 127.0.0.1 speaking the OpenAI chat-completions protocol
 * (`POST /v1/chat/completions`) and the Anthropic Messages protocol (`POST /v1/messages`),
 * streamed (server-sent events) and not. It records every request it receives, answers from a
 * script (or with a default summary), and can fail on purpose: 401/403/404/429 (with
 * `retry-after`), a slow or hanging answer, a slow stream, an empty answer, a non-JSON body, a
 * stream that hangs midway. CORS headers let a browser page call it. Tests start it themselves (port 0 →
 * an ephemeral port); nothing here reaches the internet.
 *
 * Used by the engine unit tests, the CLI tests and Playwright e2e. Standalone:
 *   npx tsx test/llm-server.ts [--port N]     prints {"url": …} and serves until killed
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo, Socket } from 'node:net'
import { pathToFileURL } from 'node:url'

/** Which protocol a request spoke. */
type LlmProtocol = 'openai' | 'anthropic'

/** A request the server received. */
export interface RecordedRequest {
  /** 1-based arrival number. */
  seq: number
  protocol: LlmProtocol | 'unknown'
  method: string
  path: string
  /** Lower-case header names. */
  headers: Record<string, string>
  bodyText: string
  /** The parsed JSON body (undefined when it is not JSON). */
  body: unknown
  /** `body.stream === true`. */
  stream: boolean
  model?: string
  /**
   * The text of the last user message (string content or its text blocks joined with "\n"): for
   * `summarize` the whole prompt, for `insert-then-compress` the instruction.
   */
  lastUserText: string
}

/** One scripted answer. Fields combine: e.g. `{delayMs, text}` answers late. */
interface LlmAnswer {
  /** The answer text (default: `defaultText`). `''` = an empty answer. */
  text?: string
  /** A non-2xx status: the protocol's error JSON is sent (`errorMessage`). */
  status?: number
  errorMessage?: string
  /** Extra response headers (e.g. `retry-after`). */
  headers?: Record<string, string>
  /** Send this body as is with status 200 (or `status`) and `contentType` (non-JSON answers). */
  rawBody?: string
  contentType?: string
  /** Wait this long before answering (ms). */
  delayMs?: number
  /** Never answer (until the client gives up or the server closes). */
  hang?: boolean
  /** Streaming: send this many text chunks, then hang (for cancel mid-stream). */
  hangAfterChunks?: number
  /** Streaming: characters per text chunk (default 6). */
  chunkSize?: number
  /** Streaming: pause between two text chunks in ms (default 1), for a slow stream. */
  chunkDelayMs?: number
}

/** Options of `startLlmServer`. */
export interface LlmServerOptions {
  /** Default 0 (an ephemeral port). */
  port?: number
  /** When set, requests must carry it (`Authorization: Bearer` / `x-api-key`) or get a 401. */
  apiKey?: string
  /** When set, a request for another model gets a 404 (as Ollama answers an unpulled model). */
  models?: readonly string[]
  /** Send CORS headers and answer preflights (default true). */
  cors?: boolean
  /** The answer when the script is empty (default: `defaultText`). */
  defaultAnswer?: (request: RecordedRequest) => LlmAnswer
}

/** A running test server. */
export interface LlmServer {
  /** `http://127.0.0.1:<port>` — the Anthropic base URL. */
  url: string
  /** `http://127.0.0.1:<port>/v1` — the OpenAI-compatible base URL. */
  openaiBaseUrl: string
  port: number
  /** Every request received, in arrival order (preflights excluded). */
  requests: RecordedRequest[]
  /** Queues answers, used in order by the next requests. */
  enqueue(...answers: LlmAnswer[]): void
  /** Forgets requests and queued answers; numbering starts again at 1. */
  reset(): void
  /** Stops the server, cutting any hanging answer. */
  close(): Promise<void>
}

/**
 * The default answer text: `LLM summary <seq> of <n> message line(s)` where n counts the
 * `[i] role: …` lines of the request's last user text (0 for insert-then-compress).
 */
function defaultText(request: RecordedRequest): string {
  const lines = request.lastUserText.split('\n').filter((l) => /^\[\d+\] \w+: /.test(l)).length
  return `LLM summary ${request.seq} of ${lines} message line(s)`
}

function textOf(content: unknown): string {
  if (typeof content === 'string') return content
  if (Array.isArray(content))
    return content
      .map((b) => (b && typeof b === 'object' && typeof b.text === 'string' ? b.text : ''))
      .filter(Boolean)
      .join('\n')
  return ''
}

function lastUserText(body: unknown): string {
  const messages = (body as { messages?: unknown })?.messages
  if (!Array.isArray(messages)) return ''
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i] as { role?: unknown; content?: unknown }
    if (m?.role === 'user') {
      const t = textOf(m.content)
      if (t !== '') return t
    }
  }
  return ''
}

function chunks(text: string, size: number): string[] {
  const cps = Array.from(text)
  const out: string[] = []
  for (let i = 0; i < cps.length; i += size) out.push(cps.slice(i, i + size).join(''))
  return out
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/** Starts the server on 127.0.0.1. */
export async function startLlmServer(options: LlmServerOptions = {}): Promise<LlmServer> {
  const requests: RecordedRequest[] = []
  let queue: LlmAnswer[] = []
  const sockets = new Set<Socket>()
  const cors = options.cors ?? true
  let seq = 0

  const corsHeaders = (req: IncomingMessage): Record<string, string> =>
    cors
      ? {
          'access-control-allow-origin': '*',
          'access-control-allow-methods': 'POST, OPTIONS',
          // `*` does not cover Authorization: echo what the preflight asks for.
          'access-control-allow-headers':
            (req.headers['access-control-request-headers'] as string | undefined) ??
            'content-type, authorization, x-api-key, anthropic-version, ' +
              'anthropic-dangerous-direct-browser-access',
          'access-control-expose-headers': 'retry-after, retry-after-ms',
          'access-control-max-age': '600',
        }
      : {}

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    if (req.method === 'OPTIONS') {
      res.writeHead(204, corsHeaders(req))
      res.end()
      return
    }
    const parts: Buffer[] = []
    for await (const c of req) parts.push(c as Buffer)
    const bodyText = Buffer.concat(parts).toString('utf8')
    let body: unknown
    try {
      body = JSON.parse(bodyText)
    } catch {
      body = undefined
    }
    const path = (req.url ?? '/').split('?')[0] ?? '/'
    // Exact paths, as real servers have: a base URL without /v1 gets a 404.
    const protocol: RecordedRequest['protocol'] = path === '/v1/chat/completions'
      ? 'openai'
      : path === '/v1/messages'
        ? 'anthropic'
        : 'unknown'
    const headers: Record<string, string> = {}
    for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string') headers[k] = v
    const model = (body as { model?: unknown })?.model
    const recorded: RecordedRequest = {
      seq: ++seq,
      protocol,
      method: req.method ?? 'GET',
      path,
      headers,
      bodyText,
      body,
      stream: (body as { stream?: unknown })?.stream === true,
      lastUserText: lastUserText(body),
    }
    if (typeof model === 'string') recorded.model = model
    requests.push(recorded)

    const base = { ...corsHeaders(req) }
    const sendError = (status: number, message: string, extra: Record<string, string> = {}) => {
      const json =
        protocol === 'anthropic'
          ? {
              type: 'error',
              error: {
                type:
                  status === 401
                    ? 'authentication_error'
                    : status === 403
                      ? 'permission_error'
                      : status === 404
                        ? 'not_found_error'
                        : status === 429
                          ? 'rate_limit_error'
                          : 'api_error',
                message,
              },
            }
          : { error: { message, type: 'test_error', code: status } }
      res.writeHead(status, { ...base, 'content-type': 'application/json', ...extra })
      res.end(JSON.stringify(json))
    }

    if (protocol === 'unknown' || req.method !== 'POST')
      return sendError(404, `no route ${req.method} ${path}`)
    if (options.apiKey !== undefined) {
      const given =
        protocol === 'anthropic'
          ? headers['x-api-key']
          : headers.authorization?.replace(/^Bearer /, '')
      if (given !== options.apiKey) return sendError(401, 'invalid api key')
    }
    if (options.models && (typeof model !== 'string' || !options.models.includes(model)))
      return sendError(404, `model "${String(model)}" not found, try pulling it first`)

    const answer =
      queue.shift() ?? options.defaultAnswer?.(recorded) ?? { text: defaultText(recorded) }
    if (answer.delayMs) await sleep(answer.delayMs)
    if (answer.hang) return // the socket stays open until the client aborts or close()
    if (answer.rawBody !== undefined) {
      res.writeHead(answer.status ?? 200, {
        ...base,
        'content-type': answer.contentType ?? 'text/html',
        ...answer.headers,
      })
      res.end(answer.rawBody)
      return
    }
    if (answer.status !== undefined && (answer.status < 200 || answer.status > 299))
      return sendError(
        answer.status,
        answer.errorMessage ?? `error ${answer.status}`,
        answer.headers,
      )

    const text = answer.text ?? defaultText(recorded)
    const name = typeof model === 'string' ? model : 'test-model'
    if (!recorded.stream) {
      const json =
        protocol === 'anthropic'
          ? {
              id: `msg_test_${recorded.seq}`,
              type: 'message',
              role: 'assistant',
              model: name,
              content: text === '' ? [] : [{ type: 'text', text }],
              stop_reason: 'end_turn',
              usage: { input_tokens: bodyText.length, output_tokens: text.length },
            }
          : {
              id: `chatcmpl-test-${recorded.seq}`,
              object: 'chat.completion',
              created: 0,
              model: name,
              choices: [
                { index: 0, message: { role: 'assistant', content: text }, finish_reason: 'stop' },
              ],
              usage: { prompt_tokens: bodyText.length, completion_tokens: text.length },
            }
      res.writeHead(200, { ...base, 'content-type': 'application/json', ...answer.headers })
      res.end(JSON.stringify(json))
      return
    }

    res.writeHead(200, {
      ...base,
      'content-type': 'text/event-stream',
      'cache-control': 'no-cache',
      ...answer.headers,
    })
    const pieces = chunks(text, answer.chunkSize ?? 6)
    const send = (event: string | undefined, data: unknown) =>
      res.write(
        `${event ? `event: ${event}\n` : ''}` +
          `data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`,
      )
    const openaiChunk = (delta: object, finish: string | null) => ({
      id: `chatcmpl-test-${recorded.seq}`,
      object: 'chat.completion.chunk',
      created: 0,
      model: name,
      choices: [{ index: 0, delta, finish_reason: finish }],
    })
    if (protocol === 'anthropic') {
      send('message_start', {
        type: 'message_start',
        message: {
          id: `msg_test_${recorded.seq}`,
          type: 'message',
          role: 'assistant',
          model: name,
          content: [],
        },
      })
      send('content_block_start', {
        type: 'content_block_start',
        index: 0,
        content_block: { type: 'text', text: '' },
      })
      send('ping', { type: 'ping' })
    } else {
      send(undefined, openaiChunk({ role: 'assistant', content: '' }, null))
    }
    for (let i = 0; i < pieces.length; i++) {
      if (answer.hangAfterChunks !== undefined && i >= answer.hangAfterChunks) return
      const piece = pieces[i] as string
      if (protocol === 'anthropic')
        send('content_block_delta', {
          type: 'content_block_delta',
          index: 0,
          delta: { type: 'text_delta', text: piece },
        })
      else send(undefined, openaiChunk({ content: piece }, null))
      // Separate TCP writes, so the client really reads a stream of chunks.
      await sleep(answer.chunkDelayMs ?? 1)
      // The client gave up (cancel): stop writing into a closed socket.
      if (res.destroyed || res.writableEnded) return
    }
    if (answer.hangAfterChunks !== undefined && pieces.length <= answer.hangAfterChunks) return
    if (protocol === 'anthropic') {
      send('content_block_stop', { type: 'content_block_stop', index: 0 })
      send('message_delta', {
        type: 'message_delta',
        delta: { stop_reason: 'end_turn' },
        usage: { output_tokens: text.length },
      })
      send('message_stop', { type: 'message_stop' })
    } else {
      send(undefined, openaiChunk({}, 'stop'))
      send(undefined, '[DONE]')
    }
    res.end()
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((e: unknown) => {
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' })
      res.end(String(e))
    })
  })
  server.on('connection', (s) => {
    sockets.add(s)
    s.on('close', () => sockets.delete(s))
  })
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve())
  })
  const port = (server.address() as AddressInfo).port
  const url = `http://127.0.0.1:${port}`
  return {
    url,
    openaiBaseUrl: `${url}/v1`,
    port,
    requests,
    enqueue: (...answers) => {
      queue.push(...answers)
    },
    reset: () => {
      requests.length = 0
      queue = []
      seq = 0
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy()
        server.close(() => resolve())
      }),
  }
}

// Standalone: `npx tsx test/llm-server.ts [--port N]`.
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const at = process.argv.indexOf('--port')
  const port = at === -1 ? 0 : Number(process.argv[at + 1])
  startLlmServer({ port }).then((s) => {
    process.stdout.write(`${JSON.stringify({ url: s.url, openaiBaseUrl: s.openaiBaseUrl })}\n`)
  })
}
