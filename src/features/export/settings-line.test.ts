import { describe, expect, it } from 'vitest'
import type { PipelineConfig } from '../../engine/model'
import { settingsLine } from './settings-line'

describe('settingsLine', () => {
  it('names encoding, window, summarizer, the stages on with the params they set, and the stages off', () => {
    const config = {
      encoding: 'o200k_base',
      window: 128_000,
      summarizer: 'extractive',
      stages: [
        { id: 'dedupe', enabled: true, params: {} },
        { id: 'prune-tool-results', enabled: false, params: { target: 12_000 } },
        // Given out of the definition's order: the line follows the definition (keep_last first).
        { id: 'summarize', enabled: true, params: { compact_after: 40, keep_last: 20, prompt: 'x'.repeat(41) } },
      ],
    } as unknown as PipelineConfig
    expect(settingsLine(config)).toBe(
      'o200k_base · window 128,000 tokens · summarizer extractive · ' +
        'on: dedupe, summarize (keep_last 20 messages, compact_after 40 messages, prompt 41 characters) · ' +
        'off: prune-tool-results',
    )
  })

  it('prints shares as percentages, a unit of one in the singular, short text as itself, lists joined, and the default window when unset', () => {
    const config = {
      encoding: 'cl100k_base',
      summarizer: 'openai-compatible',
      summarizerOptions: { baseUrl: 'http://localhost:1234/v1', model: 'small-model' },
      stages: [
        { id: 'summarize', enabled: true, params: { trigger_share: 0.8, prompt: 'Keep file paths.' } },
        { id: 'prune-tool-results', enabled: true, params: { keep_steps: 1, exclude_tools: ['Read', 'Grep'] } },
      ],
    } as unknown as PipelineConfig
    expect(settingsLine(config)).toBe(
      'cl100k_base · window 200,000 tokens · summarizer openai-compatible (model small-model) · ' +
        'on: summarize (trigger_share 80%, prompt Keep file paths.), prune-tool-results (keep_steps 1 step, exclude_tools Read, Grep)',
    )
  })

  it('says how the run counted its tokens after the window when given the run’s calibration', () => {
    const config = { encoding: 'o200k_base', summarizer: 'extractive', stages: [] } as unknown as PipelineConfig
    expect(settingsLine(config, { source: 'manual', overhead: 12_000, ratio: 1.25 })).toBe(
      'o200k_base · window 200,000 tokens · calibrated by hand (overhead 12,000 tokens, ratio 1.25) · summarizer extractive · on: (none)',
    )
    expect(settingsLine(config, { source: 'none', overhead: 0, ratio: 1 })).toBe(
      'o200k_base · window 200,000 tokens · raw o200k_base counts · summarizer extractive · on: (none)',
    )
  })
})
