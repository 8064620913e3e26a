import { readFileSync } from 'node:fs'
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest'
import { startLlmServer, type LlmServer } from '../../test/llm-server'
import type { PipelineConfig, StageReport } from '../engine/model'
import { DEFAULT_PIPELINE } from '../engine/pipeline'
import type { SummaryRequest } from '../engine/stages/types'
import { createSummaryCache } from '../engine/summarizers/cache'
import { createEngineApi } from './engine-api'
import { SUMMARY_PROGRESS_TAIL, type SummaryProgress } from './protocol'
import {
  PROGRESS_INTERVAL_MS,
  sendsRequests,
  summarizerFailure,
  summarizerRuntimeFor,
  trackSummaryProgress,
} from './summarizers'

const engineApi = createEngineApi()

const http: PipelineConfig = {
  ...DEFAULT_PIPELINE,
  summarizer: 'openai-compatible',
  summarizerOptions: { baseUrl: 'http://127.0.0.1:9/v1', model: 'm' },
}

function report(stage: StageReport['stage'], error?: string): StageReport {
  const r: StageReport = { stage, changed: false, tokensBefore: 10, tokensAfter: 10, messagesBefore: 2, messagesAfter: 2 }
  if (error !== undefined) r.error = error
  return r
}

describe('worker summarizer helpers', () => {
  it('only the HTTP summarizers send requests and get a runtime', () => {
    expect(sendsRequests(DEFAULT_PIPELINE)).toBe(false)
    expect(sendsRequests({ ...http, summarizer: 'anthropic' })).toBe(true)
    const cache = createSummaryCache()
    expect(summarizerRuntimeFor(DEFAULT_PIPELINE, 'k', cache)).toBeUndefined()
    const runtime = summarizerRuntimeFor(http, 'k', cache)
    expect(runtime?.apiKey).toBe('k')
    expect(runtime?.cache).toBe(cache)
    expect(typeof runtime?.fetch).toBe('function')
    expect(summarizerRuntimeFor(http, undefined, cache)).not.toHaveProperty('apiKey')
  })

  it('a summarizing stage error of an HTTP run is a failure; cancels and other stages are not', () => {
    const failed = { stages: [report('dedupe', 'x'), report('summarize', '401 unauthorized')] }
    expect(summarizerFailure(http, failed)).toEqual({ stage: 'summarize', error: '401 unauthorized' })
    expect(summarizerFailure(DEFAULT_PIPELINE, failed)).toBeNull()
    expect(summarizerFailure(http, { stages: [report('summarize', 'cancelled')] })).toBeNull()
    expect(summarizerFailure(http, { stages: [report('prune-tool-results', 'keep_steps')] })).toBeNull()
  })
})

describe('trackSummaryProgress', () => {
  afterEach(() => {
    vi.useRealTimers()
  })
  const request = (stage: SummaryRequest['stage'] = 'summarize'): SummaryRequest => ({ stage, prompt: 'p', slice: [] })

  it('reports at most once per interval, always the newest state, with the tail of the text', async () => {
    vi.useFakeTimers()
    const reports: SummaryProgress[] = []
    const tracker = trackSummaryProgress(7, (p) => reports.push(p), { expectedCalls: 3 })
    let finish: (text: string) => void = () => {}
    const answer = new Promise<string>((resolve) => (finish = resolve))
    const req = request()
    const summarizer = tracker.wrap(() => answer)
    const pending = summarizer(req)
    // 1,000 pieces of 1 code point within one interval: one report, not 1,000.
    for (let i = 0; i < 1000; i++) tracker.onToken(String(i % 10), req)
    expect(reports).toHaveLength(0)
    vi.advanceTimersByTime(PROGRESS_INTERVAL_MS)
    expect(reports).toHaveLength(1)
    const first = reports[0]!
    expect(first).toMatchObject({ runId: 7, stage: 'summarize', call: 1, expectedCalls: 3, phase: 'streaming', received: 1000 })
    // The last 300 of "0123456789" × 100: it ends with 9 and starts 300 code points back, at 0.
    expect(first.tail).toHaveLength(SUMMARY_PROGRESS_TAIL)
    expect(first.tail.startsWith('0123')).toBe(true)
    expect(first.tail.endsWith('789')).toBe(true)
    // Nothing new: no report.
    vi.advanceTimersByTime(PROGRESS_INTERVAL_MS * 5)
    expect(reports).toHaveLength(1)
    finish('done')
    await pending
    vi.advanceTimersByTime(PROGRESS_INTERVAL_MS)
    expect(reports).toHaveLength(2)
    expect(reports[1]).toMatchObject({ call: 1, phase: 'done', received: 1000 })
  })

  it('a call answered within the interval (a cache hit) costs no report; calls are counted', async () => {
    vi.useFakeTimers()
    const reports: SummaryProgress[] = []
    const tracker = trackSummaryProgress(1, (p) => reports.push(p))
    const summarizer = tracker.wrap(async () => 'cached')
    await summarizer(request())
    await summarizer(request('insert-then-compress'))
    vi.advanceTimersByTime(PROGRESS_INTERVAL_MS)
    // One report (the newest state) for both calls, without a plan count.
    expect(reports).toEqual([
      { runId: 1, stage: 'insert-then-compress', call: 2, phase: 'done', tail: '', received: 0 },
    ])
  })

  it('text of another request is not shown; stop drops the pending report; a throwing page is ignored', async () => {
    vi.useFakeTimers()
    const reports: SummaryProgress[] = []
    const tracker = trackSummaryProgress(2, (p) => {
      reports.push(p)
      throw new Error('page closed')
    })
    const req = request()
    const pending = tracker.wrap(async () => 'x')(req)
    tracker.onToken('late text', request())
    vi.advanceTimersByTime(PROGRESS_INTERVAL_MS)
    expect(reports.map((r) => r.tail)).toEqual([''])
    await pending
    tracker.stop()
    vi.advanceTimersByTime(PROGRESS_INTERVAL_MS * 3)
    expect(reports).toHaveLength(1)
  })
})

describe('engineApi.run with an HTTP summarizer: progress while the answer streams', () => {
  let server: LlmServer
  beforeAll(async () => {
    server = await startLlmServer()
  })
  afterAll(() => server.close())

  it('reports each pass of the plan ("pass n of N") and the streamed text, a suffix of the summary', async () => {
    const imported = engineApi.importText(readFileSync('public/samples/claude-code.jsonl', 'utf8'), 'claude-code.jsonl')
    expect(imported.ok).toBe(true)
    const config: PipelineConfig = {
      ...DEFAULT_PIPELINE,
      summarizer: 'openai-compatible',
      // A model name no other test uses: nothing of it is in the worker's summary cache.
      summarizerOptions: { baseUrl: server.openaiBaseUrl, model: 'progress-test-model', stream: true },
    }
    const planned = await engineApi.planSummaries(config, false)
    if (!planned.ok) throw new Error(planned.error)
    const calls = planned.plan.requests.length
    expect(calls).toBeGreaterThan(0)
    // Slow streams (8 ms between 6-code-point chunks): each answer spans several intervals.
    const answers = Array.from({ length: calls }, (_, i) => `Summary ${i + 1}: ${'goal facts open items '.repeat(8)}end`)
    server.enqueue(...answers.map((text) => ({ text, chunkDelayMs: 8 })))
    const reports: SummaryProgress[] = []
    const out = await engineApi.run(config, 41, {}, (p) => reports.push(p))
    if (!out.ok) throw new Error(out.error)
    expect(server.requests).toHaveLength(calls)
    expect(reports.length).toBeGreaterThan(0)
    const streamed = reports.filter((r) => r.phase === 'streaming')
    expect(streamed.length).toBeGreaterThan(0)
    for (const r of reports) {
      expect(r.runId).toBe(41)
      expect(r.expectedCalls).toBe(calls)
      expect(r.call).toBeGreaterThanOrEqual(1)
      expect(r.call).toBeLessThanOrEqual(calls)
      const answer = answers[r.call - 1]!
      // What was shown is the end of what had arrived: a prefix of the answer, seen from its end.
      expect(answer.slice(0, r.received).endsWith(r.tail)).toBe(true)
    }
    // Calls are reported in order.
    const order = reports.map((r) => r.call)
    expect([...order].sort((a, b) => a - b)).toEqual(order)
    // Nothing arrives after the run answered.
    const count = reports.length
    await new Promise((resolve) => setTimeout(resolve, PROGRESS_INTERVAL_MS * 2))
    expect(reports).toHaveLength(count)
  })
})
