/**
 * Each failure of an HTTP summarizer, provoked on a real local server (test/llm-server.ts):
 * 401/403 (key), 404 (model / endpoint), 429 with retry-after (seconds and HTTP date) retried
 * with backoff a bounded number of times, timeouts, network/CORS failure, a non-JSON or empty
 * answer, cancellation; and through the pipeline, a failed pass that leaves the input.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { startLlmServer, type LlmServer } from '../../../test/llm-server'
import type { Message, PipelineConfig, Transcript } from '../model'
import { runPipeline } from '../pipeline'
import { EMPTY_ANSWER_ERROR } from '../stages/insert-then-compress'
import { assistant, countCodePoints, deepFreeze, indexed, user } from '../stages/test-helpers'
import type { SummaryRequest } from '../stages/types'
import { cacheCounter } from '../tokens/count'
import { createAnthropicSummarizer } from './anthropic'
import { SummarizerError, unsendableKeyCharAt } from './errors'
import type { FetchLike } from './fetch-types'
import type { HttpSummarizerOptions } from './http'
import { createOpenAICompatibleSummarizer } from './openai-compatible'

const nodeFetch: FetchLike = (url, init) => fetch(url, init as RequestInit)

let server: LlmServer
beforeAll(async () => {
  server = await startLlmServer({ apiKey: 'right-key', models: ['test-model'] })
})
afterAll(() => server.close())
beforeEach(() => server.reset())

const summarizeRequest: SummaryRequest = { stage: 'summarize', prompt: 'PROMPT', slice: [] }
const compressRequest: SummaryRequest = {
  stage: 'insert-then-compress',
  prompt: 'INSTRUCTION',
  slice: [],
  conversation: indexed([user('u', 'hello'), assistant('a', 'hi')]),
}

/** A sleep that records the delays asked for and returns at once. */
function recordingSleep() {
  const delays: number[] = []
  return { delays, sleep: (ms: number) => (delays.push(ms), Promise.resolve()) }
}

function openai(extra: Partial<HttpSummarizerOptions> = {}) {
  return createOpenAICompatibleSummarizer({
    baseUrl: server.openaiBaseUrl,
    model: 'test-model',
    apiKey: 'right-key',
    fetch: nodeFetch,
    stream: false,
    ...extra,
  })
}

async function failure(p: Promise<unknown>): Promise<SummarizerError> {
  try {
    await p
  } catch (e) {
    expect(e).toBeInstanceOf(SummarizerError)
    return e as SummarizerError
  }
  throw new Error('expected a rejection')
}

describe('HTTP status errors', () => {
  it('401: names the key (and where the CLI reads it) but never echoes it', async () => {
    const e = await failure(openai({ apiKey: 'wrong-key-abc' })(summarizeRequest))
    expect(e.kind).toBe('auth')
    expect(e.status).toBe(401)
    expect(e.message).toMatch(/API key is missing, wrong/)
    expect(e.message).toContain('OPENAI_API_KEY')
    expect(e.message).toContain('invalid api key')
    expect(e.message).not.toContain('wrong-key-abc')
  })

  it('401 from Anthropic names ANTHROPIC_API_KEY', async () => {
    const s = createAnthropicSummarizer({
      baseUrl: server.url,
      model: 'test-model',
      fetch: nodeFetch,
      stream: false,
    })
    const e = await failure(s(summarizeRequest))
    expect(e.kind).toBe('auth')
    expect(e.message).toContain('ANTHROPIC_API_KEY')
  })

  it('a key the server echoes back is never in the message', async () => {
    server.enqueue({ status: 400, errorMessage: 'key right-key is not valid for this project' })
    const e = await failure(openai()(summarizeRequest))
    expect(e.kind).toBe('bad-request')
    expect(e.message).toContain('key <API key> is not valid')
    expect(e.message).not.toContain('right-key')
  })

  it('an answer that repeats the key never carries it, whole or streamed', async () => {
    server.enqueue({ text: 'Summary. Authorization: Bearer right-key (echoed by a proxy).' })
    expect(await openai()(summarizeRequest)).toBe('Summary. Authorization: Bearer <API key> (echoed by a proxy).')
    const pieces: string[] = []
    server.enqueue({ text: 'Key right-key seen.', chunkSize: 100 })
    const streamed = await openai({ stream: true, onToken: (t) => pieces.push(t) })(summarizeRequest)
    expect(streamed).toBe('Key <API key> seen.')
    expect(pieces.join('')).toBe('Key <API key> seen.')
  })

  it('403: also a key problem (no access)', async () => {
    server.enqueue({ status: 403, errorMessage: 'no access to this model' })
    const e = await failure(openai()(summarizeRequest))
    expect(e).toMatchObject({ kind: 'auth', status: 403 })
    expect(e.message).toContain('no access to this model')
  })

  it('404 for an unknown model: names the model and the base-URL convention', async () => {
    const e = await failure(openai({ model: 'llama-nope' })(summarizeRequest))
    expect(e).toMatchObject({ kind: 'not-found', status: 404 })
    expect(e.message).toContain('"llama-nope"')
    expect(e.message).toContain('end in /v1')
    expect(e.message).toContain('http://localhost:11434/v1')
  })

  it('404 for a wrong endpoint path (base URL without /v1)', async () => {
    const e = await failure(openai({ baseUrl: server.url })(summarizeRequest))
    expect(e.kind).toBe('not-found')
    expect(e.message).toContain(`${server.url}/chat/completions`)
  })

  it('other 4xx: bad-request with the server message; 5xx: server', async () => {
    server.enqueue({ status: 400, errorMessage: 'context too long' }, { status: 500 })
    expect(await failure(openai()(summarizeRequest))).toMatchObject({ kind: 'bad-request', status: 400 })
    expect(await failure(openai()(summarizeRequest))).toMatchObject({ kind: 'server', status: 500 })
  })
})

describe('429: retry-after honoured, exponential backoff, bounded', () => {
  it('waits the retry-after seconds, then succeeds', async () => {
    const { delays, sleep } = recordingSleep()
    server.enqueue({ status: 429, headers: { 'retry-after': '2' } }, { text: 'fine now' })
    expect(await openai({ sleep })(summarizeRequest)).toBe('fine now')
    expect(delays).toEqual([2000])
    expect(server.requests).toHaveLength(2)
  })

  it('reads retry-after as an HTTP date relative to now', async () => {
    const { delays, sleep } = recordingSleep()
    const now = () => Date.parse('Wed, 21 Oct 2015 07:28:00 GMT')
    server.enqueue(
      { status: 429, headers: { 'retry-after': 'Wed, 21 Oct 2015 07:28:03 GMT' } },
      { text: 'ok' },
    )
    expect(await openai({ sleep, now })(summarizeRequest)).toBe('ok')
    expect(delays).toEqual([3000])
  })

  it('without retry-after: backoff 1000, 2000 ms, then a rate-limited error after maxRetries', async () => {
    const { delays, sleep } = recordingSleep()
    server.enqueue({ status: 429 }, { status: 429 }, { status: 429 }, { text: 'too late' })
    const e = await failure(openai({ sleep, maxRetries: 2 })(summarizeRequest))
    expect(e).toMatchObject({ kind: 'rate-limited', status: 429 })
    expect(e.message).toContain('still failing after 2 retries')
    expect(delays).toEqual([1000, 2000])
    expect(server.requests).toHaveLength(3)
  })

  it('the larger of retry-after and the backoff is waited', async () => {
    const { delays, sleep } = recordingSleep()
    server.enqueue(
      { status: 429, headers: { 'retry-after': '0' } },
      { status: 429, headers: { 'retry-after': '0' } },
      { text: 'ok' },
    )
    expect(await openai({ sleep, backoffMs: 10 })(summarizeRequest)).toBe('ok')
    expect(delays).toEqual([10, 20])
  })

  it('a retry-after over a minute is not waited for: the error says when', async () => {
    const { delays, sleep } = recordingSleep()
    server.enqueue({ status: 429, headers: { 'retry-after': '3600' } })
    const e = await failure(openai({ sleep })(summarizeRequest))
    expect(e).toMatchObject({ kind: 'rate-limited', retryAfterMs: 3_600_000 })
    expect(e.message).toContain('retry after 3600 s')
    // One request, no retry: the message must not claim retries, nor advise "a moment".
    expect(server.requests).toHaveLength(1)
    expect(e.message).toContain('not retried')
    expect(e.message).not.toContain('after the retries')
    expect(e.message).toContain('Run again once that time has passed')
    expect(delays).toEqual([])
  })
})

describe('a key an HTTP header cannot carry', () => {
  it('is explained as a key problem (not a network/CORS one), without the key, and nothing is sent', async () => {
    // A curly quote pasted with the key: fetch refuses the header before any request.
    const e = await failure(openai({ apiKey: 'right-key\u2019' })(summarizeRequest))
    expect(e.kind).toBe('auth')
    expect(e.message).toContain('character 10 of 10 is U+2019')
    expect(e.message).not.toContain('right-key')
    expect(server.requests).toHaveLength(0)
    const line = await failure(openai({ apiKey: 'abc\ndef' })(summarizeRequest))
    expect(line.message).toContain('character 4 of 7 is U+000A')
  })

  it('a Latin-1 or plain key is sent as usual', async () => {
    expect(unsendableKeyCharAt('sk-abc_DEF-123')).toBe(0)
    expect(unsendableKeyCharAt('caf\u00e9')).toBe(0)
    expect(unsendableKeyCharAt('\u00a0\u2019')).toBe(2)
    expect(await openai()(summarizeRequest)).toContain('LLM summary')
  })
})

describe('timeouts, network and CORS failures', () => {
  it('no answer within timeoutMs → timeout', async () => {
    server.enqueue({ hang: true })
    const e = await failure(openai({ timeoutMs: 50 })(summarizeRequest))
    expect(e.kind).toBe('timeout')
    expect(e.message).toMatch(/no answer from 127\.0\.0\.1:\d+ within 50 ms/)
    // The page has no timeout setting: the advice names the one place that has it.
    expect(e.message).toContain('--timeout-ms')
  })

  it('a stream that stops sending for timeoutMs → timeout', async () => {
    server.enqueue({ text: 'a long answer that stalls', hangAfterChunks: 1 })
    const e = await failure(openai({ timeoutMs: 100, stream: true })(summarizeRequest))
    expect(e.kind).toBe('timeout')
  })

  it('nothing listening → network, with the Ollama / LM Studio origin fixes', async () => {
    const gone = await startLlmServer()
    const url = gone.openaiBaseUrl
    await gone.close()
    const e = await failure(openai({ baseUrl: url })(summarizeRequest))
    expect(e.kind).toBe('network')
    expect(e.message).toContain(`could not reach ${url.slice(7, -3)}`)
    expect(e.message).toContain('OLLAMA_ORIGINS')
    expect(e.message).toContain('Enable CORS')
  })

  it("a browser's CORS refusal (fetch rejects with TypeError) → network", async () => {
    const blocked: FetchLike = () => Promise.reject(new TypeError('Failed to fetch'))
    const e = await failure(openai({ fetch: blocked })(summarizeRequest))
    expect(e.kind).toBe('network')
    expect(e.message).toContain('(Failed to fetch)')
    expect(e.message).toContain('CORS')
  })
})

describe('credentials in the base URL', () => {
  const secretUrl = () => server.openaiBaseUrl.replace('http://', 'http://ana:pw-s3cret-9@')

  it("fetch's refusal of a URL with a user:pass names the URL masked, never the password", async () => {
    // Node's fetch, like browsers', refuses such a URL and quotes it in its TypeError.
    const e = await failure(openai({ baseUrl: secretUrl() })(summarizeRequest))
    expect(e.kind).toBe('network')
    expect(e.message).toContain(`could not reach ${server.openaiBaseUrl.slice(7, -3)} (`)
    expect(e.message).not.toContain('pw-s3cret-9')
    expect(e.message).not.toContain('ana:')
  })

  it('a fetch error quoting the URL as it was given is masked', async () => {
    const quoting: FetchLike = (url) => Promise.reject(new TypeError(`refused ${url}`))
    const e = await failure(openai({ baseUrl: 'https://ana:pw-s3cret-9@llm.example/v1', fetch: quoting })(summarizeRequest))
    expect(e.message).toContain('could not reach llm.example (refused https://***@llm.example/v1/chat/completions)')
    expect(e.message).not.toContain('pw-s3cret-9')
  })

  it('a 404 names the endpoint with its query key masked, also where the server echoes it', async () => {
    const notFound: FetchLike = (url) =>
      Promise.resolve({
        ok: false,
        status: 404,
        statusText: 'Not Found',
        headers: { get: () => null },
        body: null,
        text: () => Promise.resolve(JSON.stringify({ error: { message: `no route ${url}` } })),
      })
    const e = await failure(openai({ baseUrl: 'https://llm.example/v1beta/openai?key=AIza-query-secret-1', fetch: notFound })(summarizeRequest))
    expect(e.kind).toBe('not-found')
    expect(e.message).toContain('404 not found at https://llm.example/v1beta/openai/chat/completions?key=***: model "test-model"')
    expect(e.message).toContain('The server said: "no route https://llm.example/v1beta/openai/chat/completions?key=***".')
    expect(e.message).not.toContain('AIza-query-secret-1')
  })
})

describe('answers that are not a summary', () => {
  it.each([false, true])('non-JSON (an HTML page), stream %s → the seed\'s "unable to parse" error', async (stream) => {
    server.enqueue({ rawBody: '<html><body>502 Bad Gateway</body></html>' })
    const e = await failure(openai({ stream })(compressRequest))
    expect(e.kind).toBe('unparsable')
    expect(e.message.startsWith(EMPTY_ANSWER_ERROR)).toBe(true)
    expect(e.message).toContain('502 Bad Gateway')
    expect(e.message).toContain('/v1')
  })

  it('non-JSON for summarize says it could not parse the summary', async () => {
    server.enqueue({ rawBody: 'Internal proxy text', contentType: 'text/plain' })
    const e = await failure(openai()(summarizeRequest))
    expect(e.kind).toBe('unparsable')
    expect(e.message).toMatch(/^unable to parse the summary/)
  })

  it.each([false, true])('an empty answer, stream %s → empty, never an empty summary', async (stream) => {
    server.enqueue({ text: '' }, { text: '   ' })
    const a = await failure(openai({ stream })(compressRequest))
    expect(a.kind).toBe('empty')
    expect(a.message.startsWith(EMPTY_ANSWER_ERROR)).toBe(true)
    const b = await failure(openai({ stream })(summarizeRequest))
    expect(b.kind).toBe('empty')
    expect(b.message).toMatch(/^empty summary/)
  })

  it('an answer that is only a <think> block is empty; otherwise the block is removed', async () => {
    server.enqueue({ text: '<think>pondering</think>' }, { text: '<think>x</think>\nThe summary.' })
    expect((await failure(openai()(summarizeRequest))).kind).toBe('empty')
    expect(await openai()(summarizeRequest)).toBe('The summary.')
  })

  it('an Anthropic error event mid-stream → its kind (overloaded → rate-limited)', async () => {
    const s = createAnthropicSummarizer({
      baseUrl: server.url,
      model: 'test-model',
      apiKey: 'right-key',
      fetch: nodeFetch,
    })
    server.enqueue({
      rawBody:
        'event: error\ndata: {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}\n\n',
      contentType: 'text/event-stream',
    })
    const e = await failure(s(summarizeRequest))
    expect(e.kind).toBe('rate-limited')
    expect(e.message).toContain('Overloaded')
  })
})

describe('cancellation', () => {
  it('aborting mid-stream rejects with cancelled and stops reading', async () => {
    const controller = new AbortController()
    const pieces: string[] = []
    server.enqueue({ text: 'first second third fourth', chunkSize: 6, hangAfterChunks: 2 })
    const s = openai({
      stream: true,
      signal: controller.signal,
      onToken: (t) => {
        pieces.push(t)
        if (pieces.length === 2) controller.abort()
      },
    })
    const e = await failure(s(summarizeRequest))
    expect(e.kind).toBe('cancelled')
    expect(pieces).toEqual(['first ', 'second'])
  })

  it('an already aborted signal sends nothing', async () => {
    const controller = new AbortController()
    controller.abort()
    const e = await failure(openai({ signal: controller.signal })(summarizeRequest))
    expect(e.kind).toBe('cancelled')
    expect(server.requests).toHaveLength(0)
  })
})

describe('through the pipeline', () => {
  const messages: Message[] = indexed(
    Array.from({ length: 8 }, (_, i) =>
      i % 2 === 0
        ? user(`m${i}`, `question ${i} with enough words to be worth summarizing here`)
        : assistant(`m${i}`, `answer ${i} with enough words to be worth summarizing here`),
    ),
  )
  const transcript: Transcript = deepFreeze({
    format: 'openai-chat',
    messages,
    recordedCompactions: [],
    warnings: [],
  })
  const config: PipelineConfig = {
    encoding: 'o200k_base',
    summarizer: 'openai-compatible',
    summarizerOptions: { baseUrl: '', model: 'test-model', stream: true },
    stages: [
      { id: 'dedupe', enabled: true, params: {} },
      { id: 'summarize', enabled: true, params: { keep_last: 2, compact_after: 4 } },
    ],
  }
  const counter = () => cacheCounter('o200k_base', countCodePoints)

  it('a failed pass leaves its input: stage error explains, after = before, no pass', async () => {
    const result = await runPipeline(
      transcript,
      { ...config, summarizerOptions: { baseUrl: server.openaiBaseUrl, model: 'test-model' } },
      { counter: counter(), summarizerRuntime: { fetch: nodeFetch, apiKey: 'bad' } },
    )
    const stage = result.stages.find((s) => s.stage === 'summarize')
    expect(stage?.error).toMatch(/^summarizer failed at pass 1: 401 unauthorized/)
    expect(result.after.messages.map((m) => m.id)).toEqual(messages.map((m) => m.id))
    expect(result.passes).toEqual([])
  })

  it('cancelling mid-stream: the stage reports cancelled and the input passes through', async () => {
    const controller = new AbortController()
    server.enqueue({ text: 'a summary that never finishes', chunkSize: 4, hangAfterChunks: 1 })
    const result = await runPipeline(
      transcript,
      { ...config, summarizerOptions: { baseUrl: server.openaiBaseUrl, model: 'test-model' } },
      {
        counter: counter(),
        signal: controller.signal,
        summarizerRuntime: {
          fetch: nodeFetch,
          apiKey: 'right-key',
          onToken: () => controller.abort(),
        },
      },
    )
    expect(result.stages.map((s) => [s.stage, s.error])).toEqual([
      ['dedupe', undefined],
      ['summarize', 'cancelled'],
    ])
    expect(result.after.messages.map((m) => m.id)).toEqual(messages.map((m) => m.id))
  })
})
