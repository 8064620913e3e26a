import { describe, expect, it } from 'vitest'
import type { SweepCell } from '../../engine/analysis/sweep'
import { axisOf, defaultRange, metricRange, shade } from './axes'

// The Claude Code sample: 44 messages, 19,526 tokens (o200k_base).
const claude = { messages: 44, tokens: 19526 }

describe('defaultRange', () => {
  it('keep_last × compact_after: 8 × 8 spanning the transcript (steps of round(44 / 16) = 3 and 6)', () => {
    expect(defaultRange('keep_last', claude)).toEqual({ param: 'keep_last', from: 3, to: 24, step: 3 })
    expect(defaultRange('compact_after', claude)).toEqual({ param: 'compact_after', from: 6, to: 48, step: 6 })
  })

  it('target × keep_steps: steps of 19,526 / 8 rounded up to 100 = 2,500, and 1…8 steps', () => {
    expect(defaultRange('target', claude)).toEqual({ param: 'target', from: 2500, to: 20000, step: 2500 })
    expect(defaultRange('keep_steps', claude)).toEqual({ param: 'keep_steps', from: 1, to: 8, step: 1 })
  })

  it('a tiny transcript still gets steps of at least 1 message and 100 tokens', () => {
    expect(defaultRange('keep_last', { messages: 3, tokens: 50 })).toMatchObject({ from: 1, step: 1 })
    expect(defaultRange('threshold_tokens', { messages: 3, tokens: 50 })).toMatchObject({ from: 100, step: 100 })
  })

  it('every default range is a valid 8-value axis', () => {
    const params = ['keep_last', 'compact_after', 'target', 'keep_steps', 'min_tokens', 'keep_tool_uses', 'clear_at_least', 'threshold_tokens', 'keep_recent'] as const
    for (const p of params) {
      const r = axisOf(defaultRange(p, claude))
      expect(r.ok && r.axis.values.length).toBe(8)
    }
  })
})

describe('axisOf', () => {
  it('uses the engine parser: values, or its reason', () => {
    expect(axisOf({ param: 'keep_last', from: 5, to: 40, step: 5 })).toEqual({
      ok: true,
      axis: { param: 'keep_last', values: [5, 10, 15, 20, 25, 30, 35, 40] },
    })
    expect(axisOf({ param: 'keep_last', from: 40, to: 5, step: 5 })).toEqual({
      ok: false,
      error: 'keep_last: the range 40..5 runs backwards',
    })
  })
})

describe('metricRange / shade', () => {
  const ok = (tokensSaved: number, factsLost: number, neededLost = 0): SweepCell => ({
    ok: true,
    x: 0,
    y: 0,
    tokensAfter: 0,
    tokensSaved,
    percentSaved: 0,
    passes: 1,
    factsLost,
    neededLost,
  })
  const cells = [[ok(100, 3, 2), { ok: false, x: 1, y: 0, reason: 'r' } as SweepCell], [null, ok(400, 0, 1)]]

  it('spans the cells that ran, skipping invalid and unrun ones', () => {
    expect(metricRange(cells, 'tokensSaved')).toEqual([100, 400])
    expect(metricRange(cells, 'factsLost')).toEqual([0, 3])
    expect(metricRange(cells, 'neededLost')).toEqual([1, 2])
    expect(metricRange([[null]], 'passes')).toBeNull()
  })

  it('maps a value to 0…1; a flat range is the middle', () => {
    expect(shade(250, [100, 400])).toBe(0.5)
    expect(shade(400, [100, 400])).toBe(1)
    expect(shade(7, [7, 7])).toBe(0.5)
  })
})
