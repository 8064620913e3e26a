import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { configWith, sweepConfigOf } from '../engine/analysis/sweep'
import type { PipelineConfig } from '../engine/model'
import { createEngineApi } from './engine-api'
import type { SweepAxis, SweepProgress } from './protocol'

const engineApi = createEngineApi()

const text = readFileSync(new URL('../../public/samples/claude-code.jsonl', import.meta.url), 'utf8')
const x: SweepAxis = { param: 'keep_last', values: [10, 20] }
const y: SweepAxis = { param: 'compact_after', values: [30, 40] }

describe('engineApi.sweep', () => {
  it('fails plainly with no transcript, then sweeps the open one with progress after each cell', async () => {
    // Raw counts: the seeds' numbers on our own count (the sample records usage, auto would calibrate).
    // Raw counts with the old seed target: the numbers below are derived from it.
    const config: PipelineConfig = { ...configWith(engineApi.getDefaults(), { param: 'target', value: 12000 }), calibration: { mode: 'off' } }
    // Each test file gets its own module instance: nothing is loaded yet.
    expect(await engineApi.sweep(config, x, y)).toEqual({ ok: false, error: 'no transcript loaded' })
    const imported = engineApi.importText(text, 'claude-code.jsonl')
    expect(imported.ok).toBe(true)
    const seen: SweepProgress[] = []
    const outcome = await engineApi.sweep(config, x, y, (p) => seen.push(p))
    expect(outcome.ok).toBe(true)
    if (!outcome.ok) return
    expect(outcome.note).toBeUndefined()
    expect(outcome.result.complete).toBe(true)
    expect(seen.map((p) => p.done)).toEqual([1, 2, 3, 4])
    // The cell (keep_last 20, compact_after 40) is the seeds' run on the raw count with target 12,000: 19,526 → 6,206 tokens
    // (6,249 less the 43-token signed thinking block of a kept earlier turn, dropped after the summary).
    expect(outcome.result.cells[1]![1]).toMatchObject({ ok: true, tokensAfter: 6206, passes: 1 })
    const run = await engineApi.run(config, 1)
    expect(run.ok && run.view.after.totals.tokens).toBe(6206)
  })

  it('cancelSweep stops between cells and answers with the cells done so far', async () => {
    engineApi.importText(text, 'claude-code.jsonl')
    const outcome = await engineApi.sweep(engineApi.getDefaults(), x, y, (p) => {
      if (p.done === 1) engineApi.cancelSweep()
    })
    expect(outcome.ok).toBe(true)
    if (!outcome.ok) return
    expect(outcome.result.complete).toBe(false)
    expect(outcome.result.cells.flat().filter((c) => c !== null)).toHaveLength(1)
    expect(engineApi.cancelSweep()).toBe(false)
  })

  it('a newer sweep replaces the one in flight, which answers cancelled', async () => {
    engineApi.importText(text, 'claude-code.jsonl')
    const first = engineApi.sweep(engineApi.getDefaults(), x, y)
    const second = engineApi.sweep(engineApi.getDefaults(), x, { param: 'compact_after', values: [40] })
    expect(await first).toEqual({ ok: false, error: 'cancelled', cancelled: true })
    const done = await second
    expect(done.ok && done.result.cells.length).toBe(1)
  })

  it('bad axes come back as an error, not a throw', async () => {
    engineApi.importText(text, 'claude-code.jsonl')
    const outcome = await engineApi.sweep(engineApi.getDefaults(), x, x)
    expect(outcome).toEqual({ ok: false, error: 'x and y are both keep_last: choose two different parameters' })
  })
})

describe('sweepConfigOf', () => {
  it('keeps offline summarizers and replaces an HTTP one by extractive, saying so', () => {
    const base = engineApi.getDefaults()
    expect(sweepConfigOf(base)).toEqual({ config: base })
    const http: PipelineConfig = {
      ...base,
      summarizer: 'anthropic',
      summarizerOptions: { baseUrl: 'https://api.anthropic.com', model: 'claude-haiku-4-5' },
    }
    const out = sweepConfigOf(http)
    expect(out.config.summarizer).toBe('extractive')
    expect(out.config.summarizerOptions).toBeUndefined()
    expect(out.note).toBe(
      'The sweep uses the offline extractive summarizer instead of anthropic: every pass of every cell would be a request.',
    )
    expect(http.summarizer).toBe('anthropic')
  })
})
