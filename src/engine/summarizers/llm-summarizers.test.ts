/**
 * The HTTP summarizers against a real local server (test/llm-server.ts on 127.0.0.1, started
 * here): the prompt the server receives has the seed 001 shape, the answer becomes the summary,
 * insert-then-compress sends the whole conversation + instruction, streaming and not, for both
 * protocols; the summary cache; the prompt preview matches what the server received.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { startLlmServer, type LlmServer } from '../../../test/llm-server'
import { exportMessages } from '../export'
import type { Message, PipelineConfig, SummarizerId, ToolSchema, Transcript } from '../model'
import { runPipeline } from '../pipeline'
import { COMPRESSION_INSTRUCTION } from '../stages/insert-then-compress'
import {
  DEFAULT_RULES,
  PREVIOUS_SUMMARY_HEADING,
  SLICE_HEADING,
} from '../stages/summarize'
import {
  assistant,
  countCodePoints,
  deepFreeze,
  indexed,
  system,
  toolResult,
  user,
} from '../stages/test-helpers'
import { cacheCounter } from '../tokens/count'
import { createSummaryCache } from './cache'
import type { FetchLike } from './fetch-types'
import { KEY_PLACEHOLDER, planSummaryRequests } from './preview'

const nodeFetch: FetchLike = (url, init) => fetch(url, init as RequestInit)
const counter = () => cacheCounter('o200k_base', countCodePoints)

function countingFetch() {
  const f = {
    calls: 0,
    fetch: ((url, init) => {
      f.calls++
      return nodeFetch(url, init)
    }) as FetchLike,
  }
  return f
}

const text = (i: number) => `turn ${i} text: alpha beta gamma delta epsilon zeta eta theta`

/** 12 messages, user/assistant alternating, no tools: every assistant message ends a turn. */
function chat(): Transcript {
  const messages = indexed(
    Array.from({ length: 12 }, (_, i) =>
      i % 2 === 0 ? user(`m${i}`, text(i)) : assistant(`m${i}`, text(i)),
    ),
  )
  return deepFreeze({ format: 'openai-chat', messages, recordedCompactions: [], warnings: [] })
}

function summarizeConfig(
  summarizer: SummarizerId,
  baseUrl: string,
  stream: boolean,
  model = 'test-model',
): PipelineConfig {
  return {
    encoding: 'o200k_base',
    summarizer,
    summarizerOptions: { baseUrl, model, stream },
    stages: [{ id: 'summarize', enabled: true, params: { keep_last: 2, compact_after: 4 } }],
  }
}

const line = (i: number) => `[${i}] ${i % 2 === 0 ? 'user' : 'assistant'}: ${text(i)}`

let server: LlmServer
beforeAll(async () => {
  server = await startLlmServer()
})
afterAll(() => server.close())
beforeEach(() => server.reset())

const baseUrlOf = (id: 'openai-compatible' | 'anthropic') =>
  id === 'anthropic' ? server.url : server.openaiBaseUrl

describe.each([
  ['openai-compatible', true],
  ['openai-compatible', false],
  ['anthropic', true],
  ['anthropic', false],
] as const)('%s summarizer (stream %s) through runPipeline', (id, stream) => {
  it('sends the seed 001 prompt per pass (rules, previous summary when folding, one [i] role: text line per message) and uses the answers', async () => {
    const result = await runPipeline(chat(), summarizeConfig(id, baseUrlOf(id), stream), {
      counter: counter(),
      summarizerRuntime: { fetch: nodeFetch },
    })
    // keep_last 2 / compact_after 4 over 12 messages: at the turn end after message 5 the 6
    // uncompacted messages exceed 4, so 0–3 are summarized (upto 6 − 2); at the turn end after
    // message 9, 10 − 4 = 6 > 4 again, so 4–7 are folded with the previous summary; at 11,
    // 12 − 8 = 4 is not > 4.
    expect(server.requests).toHaveLength(2)
    const [first, second] = server.requests
    expect(first?.protocol).toBe(id === 'anthropic' ? 'anthropic' : 'openai')
    expect(first?.stream).toBe(stream)
    expect(first?.lastUserText).toBe(
      `${DEFAULT_RULES.trimEnd()}\n\n${SLICE_HEADING}\n\n${[0, 1, 2, 3].map(line).join('\n')}`,
    )
    // The server's default answer counts the [i] lines it received: 4 each time.
    expect(second?.lastUserText).toBe(
      `${DEFAULT_RULES.trimEnd()}\n\n${PREVIOUS_SUMMARY_HEADING}\n\nLLM summary 1 of 4 message line(s)` +
        `\n\n${SLICE_HEADING}\n\n${[4, 5, 6, 7].map(line).join('\n')}`,
    )
    // One user message holding the prompt, nothing else.
    expect((first?.body as { messages: unknown[] }).messages).toEqual([
      { role: 'user', content: first?.lastUserText },
    ])
    expect(result.stages[0]?.error).toBeUndefined()
    expect(result.passes.map((p) => p.summary)).toEqual([
      'LLM summary 1 of 4 message line(s)',
      'LLM summary 2 of 4 message line(s)',
    ])
    expect(result.passes[1]?.prompt).toBe(second?.lastUserText)
    expect(result.after.messages.map((m) => m.id)).toEqual([
      'summary:summarize:2',
      'm8',
      'm9',
      'm10',
      'm11',
    ])
    expect(result.after.messages[0]?.content).toBe(
      '[Summary of messages 0–7 (pass 2)]\nLLM summary 2 of 4 message line(s)',
    )
  })

  it('streams the answer piece by piece to onToken when streaming', async () => {
    server.enqueue({ text: 'The user gave order ORD-58213.', chunkSize: 5 })
    const pieces: string[] = []
    const result = await runPipeline(chat(), summarizeConfig(id, baseUrlOf(id), stream), {
      counter: counter(),
      summarizerRuntime: {
        fetch: nodeFetch,
        // Pass 1 only (pass 2 folds a previous summary in).
        onToken: (t, request) => request.previous === undefined && pieces.push(t),
      },
    })
    expect(result.passes[0]?.summary).toBe('The user gave order ORD-58213.')
    if (stream) {
      // 30 code points in chunks of 5.
      expect(pieces).toEqual(['The u', 'ser g', 'ave o', 'rder ', 'ORD-5', '8213.'])
    } else expect(pieces).toEqual([])
  })
})

/** system + tools + a tool cycle + chat, for insert-then-compress. */
function agentTranscript(format: Transcript['format']): Transcript {
  const tools: ToolSchema[] = [
    { name: 'read_file', description: 'Read a file', parameters: { type: 'object', properties: { path: { type: 'string' } } } },
  ]
  const messages: Message[] = indexed([
    system('s', 'You are a coding agent.'),
    user('u1', 'Fix the rounding bug in quote.py for zone 8, order ORD-58213.'),
    assistant('a1', null, [{ id: 'call_1', name: 'read_file', arguments: '{"path":"quote.py"}' }]),
    toolResult('t1', 'call_1', 'def quote(zone): return round(zone * 1.15, 1)  # long file body '.repeat(8), 'read_file'),
    assistant('a2', 'The rounding uses one decimal; it should use two.'),
    user('u2', 'Please change it and run the tests.'),
    assistant('a3', 'Changed to round(..., 2); the tests pass.'),
    user('u3', 'Thanks, now update the changelog.'),
  ])
  return deepFreeze({ format, messages, tools, recordedCompactions: [], warnings: [] })
}

function itcConfig(id: SummarizerId, baseUrl: string, stream: boolean): PipelineConfig {
  return {
    encoding: 'o200k_base',
    summarizer: id,
    summarizerOptions: { baseUrl, model: 'test-model', stream },
    stages: [
      { id: 'insert-then-compress', enabled: true, params: { threshold_tokens: 0, keep_recent: 2 } },
    ],
  }
}

describe('insert-then-compress requests', () => {
  it('openai-compatible: the whole conversation as exported for OpenAI chat, its tools, then the instruction; Bearer only with a key', async () => {
    const t = agentTranscript('openai-chat')
    server.enqueue({ text: '<summary>Rounding fixed in quote.py for ORD-58213.</summary>' })
    const result = await runPipeline(t, itcConfig('openai-compatible', server.openaiBaseUrl, true), {
      counter: counter(),
      summarizerRuntime: { fetch: nodeFetch },
    })
    const req = server.requests[0]
    const body = req?.body as { model: string; messages: unknown[]; tools: unknown[]; stream: boolean }
    const exported = exportMessages(t.messages, 'openai-chat', { format: t.format, tools: t.tools! })
      .body as { messages: unknown[]; tools: unknown[] }
    // The prefix is the agent's own request, unchanged (what its prompt cache holds).
    expect(body.messages.slice(0, -1)).toEqual(exported.messages)
    expect(body.tools).toEqual(exported.tools)
    expect(body.messages.at(-1)).toEqual({ role: 'user', content: COMPRESSION_INSTRUCTION })
    expect(body.model).toBe('test-model')
    expect(req?.headers.authorization).toBeUndefined()
    expect(result.after.messages[1]?.content).toBe(
      '<summary>Rounding fixed in quote.py for ORD-58213.</summary>',
    )

    server.reset()
    await runPipeline(t, itcConfig('openai-compatible', server.openaiBaseUrl, false), {
      counter: counter(),
      summarizerRuntime: { fetch: nodeFetch, apiKey: 'sk-test-123' },
    })
    expect(server.requests[0]?.headers.authorization).toBe('Bearer sk-test-123')
  })

  it('anthropic: system on top, the conversation with a cache breakpoint on its last block, then the instruction; the browser-access header', async () => {
    const t = agentTranscript('anthropic-messages')
    server.enqueue({ text: '<summary>S</summary>' })
    const result = await runPipeline(t, itcConfig('anthropic', server.url, false), {
      counter: counter(),
      summarizerRuntime: { fetch: nodeFetch, apiKey: 'ak-test-456' },
    })
    const req = server.requests[0]
    expect(req?.path).toBe('/v1/messages')
    expect(req?.headers['x-api-key']).toBe('ak-test-456')
    expect(req?.headers['anthropic-version']).toBe('2023-06-01')
    expect(req?.headers['anthropic-dangerous-direct-browser-access']).toBe('true')
    expect(req?.headers.authorization).toBeUndefined()
    const body = req?.body as {
      system: string
      max_tokens: number
      tools: { name: string; input_schema: unknown }[]
      messages: { role: string; content: { type: string; text?: string; cache_control?: unknown }[] }[]
    }
    expect(body.system).toBe('You are a coding agent.')
    expect(body.max_tokens).toBe(4096)
    expect(body.tools.map((x) => x.name)).toEqual(['read_file'])
    // u1, a1 (tool_use), [t1 result] + … : the last exported message is u3 (a user turn), so
    // the instruction is added to it as a second text block after the breakpoint.
    const last = body.messages.at(-1)!
    expect(last.role).toBe('user')
    expect(last.content).toEqual([
      { type: 'text', text: 'Thanks, now update the changelog.', cache_control: { type: 'ephemeral' } },
      { type: 'text', text: COMPRESSION_INSTRUCTION },
    ])
    expect(body.messages.filter((m) => JSON.stringify(m).includes('cache_control'))).toHaveLength(1)
    // Anthropic transcripts get a user-role summary (first non-system turn must be a user turn).
    expect(result.after.messages[1]).toMatchObject({ role: 'user', content: '<summary>S</summary>' })
    expect(result.checks.after).toEqual([])
  })
})

describe('summary cache', () => {
  it('a second identical run answers from the cache without calling fetch; streaming on/off hits the same entry; another model misses', async () => {
    const cache = createSummaryCache()
    const f = countingFetch()
    const run = (stream: boolean, model = 'test-model') =>
      runPipeline(chat(), summarizeConfig('openai-compatible', server.openaiBaseUrl, stream, model), {
        counter: counter(),
        summarizerRuntime: { fetch: f.fetch, cache },
      })
    const first = await run(true)
    expect(f.calls).toBe(2)
    const again = await run(true)
    expect(f.calls).toBe(2)
    expect(again.after.messages).toEqual(first.after.messages)
    await run(false)
    expect(f.calls).toBe(2)
    expect(server.requests).toHaveLength(2)
    await run(true, 'other-model')
    expect(f.calls).toBe(4)
  })
})

describe('planSummaryRequests (prompt preview)', () => {
  it('gives the exact body the server then receives, the host and the tokens; later passes depending on an unknown answer are marked; cached calls send nothing', async () => {
    const config = summarizeConfig('openai-compatible', server.openaiBaseUrl, true)
    const cache = createSummaryCache()
    const before = await planSummaryRequests(chat(), config, { counter: counter(), cache, hasKey: true })
    expect(before.host).toBe(`127.0.0.1:${server.port}`)
    expect(before.model).toBe('test-model')
    expect(before.requests.map((r) => [r.stage, r.call, r.exact, r.cached])).toEqual([
      ['summarize', 1, true, false],
      ['summarize', 2, false, false],
    ])
    const first = before.requests[0]!
    expect(first.http?.url).toBe(`${server.openaiBaseUrl}/chat/completions`)
    expect(first.http?.headers.authorization).toBe(`Bearer ${KEY_PLACEHOLDER}`)
    // One user message: code points of the prompt + 3 (message overhead) + 3 (reply priming),
    // the test counter counting one token per code point.
    expect(first.tokens).toBe([...first.prompt].length + 6)
    expect(before.requestsToSend).toBe(2)
    expect(before.tokensToSend).toBe(first.tokens + before.requests[1]!.tokens)

    await runPipeline(chat(), config, {
      counter: counter(),
      summarizerRuntime: { fetch: nodeFetch, cache, apiKey: 'sk-secret-789' },
    })
    expect(server.requests[0]?.bodyText).toBe(first.http?.bodyText)
    expect(server.requests[0]?.headers.authorization).toBe('Bearer sk-secret-789')

    const after = await planSummaryRequests(chat(), config, { counter: counter(), cache, hasKey: true })
    expect(after.requests.map((r) => [r.exact, r.cached])).toEqual([
      [true, true],
      [true, true],
    ])
    expect(after.requests.map((r) => r.http?.bodyText)).toEqual(server.requests.map((r) => r.bodyText))
    expect(after.requestsToSend).toBe(0)
    expect(after.tokensToSend).toBe(0)
    expect(JSON.stringify([before, after])).not.toContain('sk-secret-789')
  })

  it('insert-then-compress: the preview body is the conversation + instruction the server receives', async () => {
    const t = agentTranscript('anthropic-messages')
    const config = itcConfig('anthropic', server.url, true)
    const plan = await planSummaryRequests(t, config, { counter: counter() })
    expect(plan.requests).toHaveLength(1)
    expect(plan.requests[0]?.http?.headers['x-api-key']).toBeUndefined()
    await runPipeline(t, config, { counter: counter(), summarizerRuntime: { fetch: nodeFetch } })
    expect(server.requests[0]?.bodyText).toBe(plan.requests[0]?.http?.bodyText)
  })

  it("the preview names the endpoint without its credentials (a user:pass, a key in the query)", async () => {
    const config = summarizeConfig('openai-compatible', 'https://ana:pw-s3cret-9@llm.example/v1?api_key=q-s3cret-8', true)
    const plan = await planSummaryRequests(chat(), config, { counter: counter(), hasKey: true })
    expect(plan.host).toBe('llm.example')
    // The path goes before the base URL's query; the query's key is masked.
    expect(plan.requests.map((r) => [r.http?.url, r.http?.host])).toEqual([
      ['https://***@llm.example/v1/chat/completions?api_key=***', 'llm.example'],
      ['https://***@llm.example/v1/chat/completions?api_key=***', 'llm.example'],
    ])
    expect(JSON.stringify(plan)).not.toContain('s3cret')
  })

  it('offline summarizers send nothing: no host, nothing to send, prompts still shown', async () => {
    const plan = await planSummaryRequests(
      chat(),
      { ...summarizeConfig('extractive', '', true), summarizerOptions: undefined },
      { counter: counter() },
    )
    expect(plan.host).toBeUndefined()
    expect(plan.requests).toHaveLength(2)
    expect(plan.requests.every((r) => r.http === undefined && r.exact)).toBe(true)
    expect(plan.requestsToSend).toBe(0)
  })
})

describe('the test server in a browser', () => {
  it('answers a CORS preflight allowing any origin and echoing the headers asked for', async () => {
    const r = await fetch(`${server.openaiBaseUrl}/chat/completions`, {
      method: 'OPTIONS',
      headers: {
        origin: 'http://127.0.0.1:4173',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'authorization,content-type',
      },
    })
    expect(r.status).toBe(204)
    expect(r.headers.get('access-control-allow-origin')).toBe('*')
    expect(r.headers.get('access-control-allow-headers')).toBe('authorization,content-type')
    expect(r.headers.get('access-control-expose-headers')).toContain('retry-after')
    // Preflights are not recorded as requests.
    expect(server.requests).toHaveLength(0)
  })

  it('with cors: false sends no CORS headers (what a browser blocks as a network error)', async () => {
    const closed = await startLlmServer({ cors: false })
    try {
      const r = await fetch(`${closed.openaiBaseUrl}/chat/completions`, {
        method: 'POST',
        body: JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'x' }] }),
      })
      expect(r.status).toBe(200)
      expect(r.headers.get('access-control-allow-origin')).toBeNull()
    } finally {
      await closed.close()
    }
  })
})
