import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { POSTAL_CODE_FIXTURE } from '../../test/postal-code-needed'
import type { PipelineConfig } from '../engine/model'
import { createEngineApi } from './engine-api'

/** summarize alone, with keep_last / compact_after, extractive (the fixture's needs are for it). */
function summarizeOnly(keepLast: number, compactAfter: number): PipelineConfig {
  return {
    encoding: 'o200k_base',
    summarizer: 'extractive',
    stages: [{ id: 'summarize', enabled: true, params: { keep_last: keepLast, compact_after: compactAfter } }],
  }
}

describe('engineApi.compareRun: one config over the open transcript, for presets side by side', () => {
  it('counts passes and needed facts lost as the sweep does, on the postal code the assistant read', async () => {
    const api = createEngineApi()
    expect(await api.compareRun(summarizeOnly(2, 4))).toEqual({ ok: false, error: 'no transcript loaded' })
    expect(api.importText(readFileSync(POSTAL_CODE_FIXTURE, 'utf8'), 'postal.json').ok).toBe(true)
    // keep_last 2 / compact_after 4: passes at the turn ends 6 and 10; pass 2 leaves out the postal
    // code the assistant read at message 6 (the 41st fact behind pass 1's 40 lamp ids), which
    // message 11 refers back to (test/postal-code-needed.ts).
    const tight = await api.compareRun(summarizeOnly(2, 4))
    if (!tight.ok) throw new Error(tight.error)
    expect(tight.figures).toMatchObject({ passes: 2, neededLost: 1 })
    expect(tight.figures.tokensAfter).toBeLessThan(tight.figures.tokensBefore)
    expect(tight.note).toBeUndefined()
    // keep_last 6 / compact_after 8: one pass folds 1–4; the postal code (message 6) stays verbatim.
    const loose = await api.compareRun(summarizeOnly(6, 8))
    if (!loose.ok) throw new Error(loose.error)
    expect(loose.figures).toMatchObject({ passes: 1, neededLost: 0, tokensBefore: tight.figures.tokensBefore })
    // Apart from the page's run: nothing has run as far as the page's views go.
    expect(api.getRework(1)).toEqual({ ok: false, error: 'Nothing has run yet.' })
  })

  it('runs an HTTP summarizer config with the offline one, says so, and reports a stage error', async () => {
    const api = createEngineApi()
    expect(api.importText(readFileSync(POSTAL_CODE_FIXTURE, 'utf8'), 'postal.json').ok).toBe(true)
    const http: PipelineConfig = {
      ...summarizeOnly(2, 4),
      summarizer: 'openai-compatible',
      summarizerOptions: { baseUrl: 'http://127.0.0.1:9/v1', model: 'none' },
    }
    const out = await api.compareRun(http)
    const offline = await api.compareRun(summarizeOnly(2, 4))
    if (!out.ok || !offline.ok) throw new Error('expected figures')
    expect(out.figures).toEqual(offline.figures)
    expect(out.note).toBe('Compared with the offline extractive summarizer instead of openai-compatible.')
    const bad: PipelineConfig = {
      ...summarizeOnly(2, 4),
      stages: [{ id: 'prune-tool-results', enabled: true, params: { target: 100, keep_steps: 0 } }],
    }
    expect(await api.compareRun(bad)).toEqual({
      ok: false,
      error: 'prune-tool-results: keep_steps must be at least 1: the model has not acted on the newest results yet',
    })
  })
})
