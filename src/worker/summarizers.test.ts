import { describe, expect, it } from 'vitest'
import type { PipelineConfig, StageReport } from '../engine/model'
import { DEFAULT_PIPELINE } from '../engine/pipeline'
import { sendsRequests, summarizerFailure, summarizerRuntimeFor, summaryCache } from './summarizers'

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
    expect(summarizerRuntimeFor(DEFAULT_PIPELINE, 'k')).toBeUndefined()
    const runtime = summarizerRuntimeFor(http, 'k')
    expect(runtime?.apiKey).toBe('k')
    expect(runtime?.cache).toBe(summaryCache)
    expect(typeof runtime?.fetch).toBe('function')
    expect(summarizerRuntimeFor(http, undefined)).not.toHaveProperty('apiKey')
  })

  it('a summarizing stage error of an HTTP run is a failure; cancels and other stages are not', () => {
    const failed = { stages: [report('dedupe', 'x'), report('summarize', '401 unauthorized')] }
    expect(summarizerFailure(http, failed)).toEqual({ stage: 'summarize', error: '401 unauthorized' })
    expect(summarizerFailure(DEFAULT_PIPELINE, failed)).toBeNull()
    expect(summarizerFailure(http, { stages: [report('summarize', 'cancelled')] })).toBeNull()
    expect(summarizerFailure(http, { stages: [report('prune-tool-results', 'keep_steps')] })).toBeNull()
  })
})
