import { describe, expect, it } from 'vitest'
import type { RecordedCompaction } from '../model'
import { runPipeline } from '../pipeline'
import { assistant, countCodePoints, indexed, user } from '../stages/test-helpers'
import { cacheCounter } from '../tokens/count'
import { anthropicMessagesUrl } from './anthropic'
import { createSummaryCache, summaryCacheKey } from './cache'
import { SummarizerError, parseRetryAfter } from './errors'
import { hostOf } from '../util/url-credentials'
import type { FetchLike } from './fetch-types'
import { createSseParser, joinUrl, stripThinking, type SseEvent } from './http'
import { createOpenAICompatibleSummarizer } from './openai-compatible'
import { createRecordedSummarizer } from './recorded'

const headers = (h: Record<string, string>) => ({ get: (n: string) => h[n.toLowerCase()] ?? null })

describe('createSseParser', () => {
  it('dispatches on blank lines, joins data lines, keeps event names, skips comments; any chunking, CRLF or LF', () => {
    const stream =
      ': keep-alive\r\nevent: content_block_delta\r\ndata: {"a":1}\r\n\r\ndata: one\ndata: two\n\ndata:[DONE]\n\n'
    const expected: SseEvent[] = [
      { event: 'content_block_delta', data: '{"a":1}' },
      { data: 'one\ntwo' },
      { data: '[DONE]' },
    ]
    for (const size of [1, 2, 3, 7, stream.length]) {
      const events: SseEvent[] = []
      const p = createSseParser((e) => events.push(e))
      for (let i = 0; i < stream.length; i += size) p.push(stream.slice(i, i + size))
      p.end()
      expect(events).toEqual(expected)
    }
  })

  it('end() dispatches a last event without its blank line', () => {
    const events: SseEvent[] = []
    const p = createSseParser((e) => events.push(e))
    p.push('data: tail')
    p.end()
    expect(events).toEqual([{ data: 'tail' }])
  })
})

describe('parseRetryAfter', () => {
  const now = Date.parse('2025-01-01T00:00:00Z')
  it('reads seconds, decimal seconds, retry-after-ms and HTTP dates; ignores garbage', () => {
    expect(parseRetryAfter(headers({ 'retry-after': '7' }), now)).toBe(7000)
    expect(parseRetryAfter(headers({ 'retry-after': '1.5' }), now)).toBe(1500)
    expect(parseRetryAfter(headers({ 'retry-after-ms': '250', 'retry-after': '9' }), now)).toBe(250)
    expect(parseRetryAfter(headers({ 'retry-after': 'Wed, 01 Jan 2025 00:00:30 GMT' }), now)).toBe(30_000)
    // A date in the past means "now".
    expect(parseRetryAfter(headers({ 'retry-after': 'Tue, 31 Dec 2024 23:00:00 GMT' }), now)).toBe(0)
    expect(parseRetryAfter(headers({ 'retry-after': 'soon' }), now)).toBeUndefined()
    expect(parseRetryAfter(headers({}), now)).toBeUndefined()
  })
})

describe('URLs and hosts', () => {
  it('joins without doubling slashes; Anthropic /v1 not doubled', () => {
    expect(joinUrl('http://localhost:11434/v1/', '/chat/completions')).toBe(
      'http://localhost:11434/v1/chat/completions',
    )
    expect(anthropicMessagesUrl('https://api.anthropic.com')).toBe('https://api.anthropic.com/v1/messages')
    expect(anthropicMessagesUrl('https://proxy.example/v1/')).toBe('https://proxy.example/v1/messages')
    expect(hostOf('http://127.0.0.1:1234/v1/chat/completions')).toBe('127.0.0.1:1234')
  })

  it("puts the path before the base URL's query and fragment, never after them", () => {
    expect(joinUrl('http://h/v1?x=1', '/chat/completions')).toBe('http://h/v1/chat/completions?x=1')
    expect(joinUrl('http://h/v1/?api-version=2024-10-21&x=a%20b', '/chat/completions')).toBe(
      'http://h/v1/chat/completions?api-version=2024-10-21&x=a%20b',
    )
    expect(joinUrl('https://h:8443/openai/v1#frag', '/chat/completions')).toBe('https://h:8443/openai/v1/chat/completions#frag')
    expect(joinUrl('http://h?x=1', '/chat/completions')).toBe('http://h/chat/completions?x=1')
    expect(joinUrl('http://h/v1?next=/a?b', '/chat/completions')).toBe('http://h/v1/chat/completions?next=/a?b')
    expect(anthropicMessagesUrl('https://proxy.example/v1?key=k')).toBe('https://proxy.example/v1/messages?key=k')
    expect(anthropicMessagesUrl('https://proxy.example?key=k')).toBe('https://proxy.example/v1/messages?key=k')
  })

  it('keeps the rest of the URL as written, and a base with no scheme joins the same way', () => {
    expect(joinUrl('HTTP://H:80/V1?Q=a b', '/chat/completions')).toBe('HTTP://H:80/V1/chat/completions?Q=a b')
    expect(joinUrl('  /proxy/v1/?x=1 ', '/chat/completions')).toBe('/proxy/v1/chat/completions?x=1')
  })
})

describe('stripThinking', () => {
  it('removes a leading <think> block, or everything up to a lone </think>', () => {
    expect(stripThinking('<think>a\nb</think>\n\nSummary')).toBe('Summary')
    expect(stripThinking('reasoning…</think>Summary')).toBe('Summary')
    expect(stripThinking('Summary mentions <think> tags')).toBe('Summary mentions <think> tags')
  })
})

describe('summary cache', () => {
  it('keys by summarizer, model and prompt hash; evicts the least recently used', () => {
    const a = summaryCacheKey('openai-compatible http://x/v1', 'm', 'prompt')
    expect(a).not.toBe(summaryCacheKey('openai-compatible http://x/v1', 'm2', 'prompt'))
    expect(a).not.toBe(summaryCacheKey('anthropic http://x', 'm', 'prompt'))
    expect(a).not.toBe(summaryCacheKey('openai-compatible http://x/v1', 'm', 'prompt '))
    // The SHA-256 of the prompt, not the prompt itself (FIPS 180-2 test vector for "abc").
    expect(summaryCacheKey('s', 'm', 'abc')).toBe(
      's\u0000m\u0000ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad',
    )
    const cache = createSummaryCache(2)
    cache.set('k1', 's1')
    cache.set('k2', 's2')
    expect(cache.get('k1')).toBe('s1') // k1 is now the most recent
    cache.set('k3', 's3')
    expect(cache.has('k2')).toBe(false)
    expect(cache.has('k1')).toBe(true)
    expect(cache.size).toBe(2)
  })

  it('a cache hit never calls fetch', async () => {
    let calls = 0
    const fetch: FetchLike = () => {
      calls++
      return Promise.reject(new TypeError('no network in this test'))
    }
    const cache = createSummaryCache()
    const options = { baseUrl: 'http://127.0.0.1:9/v1', model: 'm', fetch, cache, stream: false }
    const s = createOpenAICompatibleSummarizer(options)
    const request = { stage: 'summarize' as const, prompt: 'P', slice: [] }
    await expect(s(request)).rejects.toBeInstanceOf(SummarizerError)
    expect(calls).toBe(1)
    // Fill the entry the way a good answer would, through a summarizer that answers.
    const answering: FetchLike = () =>
      Promise.resolve({
        ok: true,
        status: 200,
        statusText: 'OK',
        headers: headers({ 'content-type': 'application/json' }),
        body: null,
        text: () => Promise.resolve(JSON.stringify({ choices: [{ message: { content: 'S' } }] })),
      })
    expect(await createOpenAICompatibleSummarizer({ ...options, fetch: answering })(request)).toBe('S')
    expect(await s(request)).toBe('S')
    expect(calls).toBe(1)
  })
})

describe('recorded summarizer', () => {
  const compactions: RecordedCompaction[] = [
    { atIndex: 10, summaryText: 'first recorded summary', source: 'claude-code' },
    { atIndex: 30, summaryText: ' second recorded summary ', source: 'claude-code' },
    { atIndex: 50, summaryText: null, source: 'claude-code' },
  ]
  const sliceEndingAt = (end: number) => {
    const ms = indexed(Array.from({ length: end + 1 }, (_, i) => user(`u${i}`, 'x')))
    return { stage: 'summarize' as const, prompt: '', slice: ms.slice(end - 2) }
  }

  it('answers with the newest readable recorded summary whose boundary is at or before the slice end + 1', async () => {
    const s = createRecordedSummarizer(compactions)
    expect(await s(sliceEndingAt(9))).toBe('first recorded summary')
    expect(await s(sliceEndingAt(29))).toBe('second recorded summary')
    // The boundary at 50 has no readable summary: the one at 30 is still the newest readable.
    expect(await s(sliceEndingAt(60))).toBe('second recorded summary')
  })

  it('errors when the slice ends before the first recorded compaction, or there is none', async () => {
    await expect(createRecordedSummarizer(compactions)(sliceEndingAt(5))).rejects.toThrow(
      /no recorded summary covers messages up to 5: the agent's first recorded compaction is at message 10/,
    )
    await expect(createRecordedSummarizer([])(sliceEndingAt(5))).rejects.toMatchObject({
      kind: 'config',
    })
    await expect(
      createRecordedSummarizer([{ atIndex: 3, summaryText: null, source: 'codex-rollout' }])(sliceEndingAt(5)),
    ).rejects.toThrow(/no readable summary/)
  })
})

describe('recorded summarizer through the pipeline', () => {
  it('config.summarizer "recorded" answers every pass with the transcript\'s own summary', async () => {
    const messages = indexed(
      Array.from({ length: 12 }, (_, i) =>
        i % 2 === 0
          ? user(`m${i}`, `question ${i} long enough to be worth a summary of its own`)
          : assistant(`m${i}`, `answer ${i} long enough to be worth a summary of its own`),
      ),
    )
    const result = await runPipeline(
      {
        format: 'claude-code',
        messages,
        warnings: [],
        recordedCompactions: [{ atIndex: 2, summaryText: 'what the agent kept', source: 'claude-code' }],
      },
      {
        encoding: 'o200k_base',
        summarizer: 'recorded',
        stages: [{ id: 'summarize', enabled: true, params: { keep_last: 2, compact_after: 4 } }],
      },
      { counter: cacheCounter('o200k_base', countCodePoints) },
    )
    // Passes over 0–3 and 4–7 (see llm-summarizers.test.ts): both end after the boundary at 2.
    expect(result.passes.map((p) => p.summary)).toEqual(['what the agent kept', 'what the agent kept'])
    expect(result.warnings).toEqual([])
  })
})
