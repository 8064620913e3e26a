import { describe, expect, it } from 'vitest'
import { DEFAULT_PIPELINE } from '../../engine/pipeline'
import { applyDraft, endpointKey, isHttpSummarizer } from './summarizer'

describe('summarizer settings', () => {
  const draft = { summarizer: 'anthropic' as const, baseUrl: ' https://api.anthropic.com ', model: 'claude-haiku-4-5', stream: false }

  it('applies an HTTP draft as trimmed settings without any key', () => {
    const config = applyDraft(DEFAULT_PIPELINE, draft)
    expect(config.summarizer).toBe('anthropic')
    expect(config.summarizerOptions).toEqual({ baseUrl: 'https://api.anthropic.com', model: 'claude-haiku-4-5', stream: false })
    expect(JSON.stringify(config)).not.toMatch(/key/i)
    expect(config.stages).toBe(DEFAULT_PIPELINE.stages)
  })

  it('an offline summarizer drops the endpoint settings', () => {
    const config = applyDraft(applyDraft(DEFAULT_PIPELINE, draft), { ...draft, summarizer: 'extractive' })
    expect(config.summarizer).toBe('extractive')
    expect(config).not.toHaveProperty('summarizerOptions')
  })

  it('endpoints differ by protocol, URL and model', () => {
    expect(endpointKey(draft)).toBe(endpointKey({ ...draft, baseUrl: 'https://api.anthropic.com' }))
    expect(endpointKey(draft)).not.toBe(endpointKey({ ...draft, model: 'other' }))
    expect(endpointKey(draft)).not.toBe(endpointKey({ ...draft, summarizer: 'openai-compatible' }))
    expect(isHttpSummarizer('recorded')).toBe(false)
    expect(isHttpSummarizer('openai-compatible')).toBe(true)
  })
})
