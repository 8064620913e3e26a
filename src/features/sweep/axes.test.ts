import { describe, expect, it } from 'vitest'
import type { SweepCell, SweepCellResult } from '../../engine/analysis/sweep'
import { currentSweepValue } from '../../engine/analysis/sweep-params'
import type { PipelineConfig } from '../../engine/model'
import { DEFAULT_PIPELINE } from '../../engine/pipeline'
import { applyPreset, presetById } from '../../engine/presets'
import { axisOf, defaultPair, defaultRange, metricRange, shade } from './axes'

// The Claude Code sample: 44 messages, 19,526 tokens (o200k_base).
const claude = { messages: 44, tokens: 19526 }

describe('defaultRange', () => {
  it('keep_last 20 × compact_after 40: steps of 20 / 4 = 5 and 40 / 4 = 10, three below and four above', () => {
    expect(defaultRange('keep_last', claude, 20)).toEqual({ param: 'keep_last', from: 5, to: 40, step: 5 })
    expect(defaultRange('compact_after', claude, 40)).toEqual({ param: 'compact_after', from: 10, to: 80, step: 10 })
  })

  it('does not depend on the transcript when a value is set: 1,411 messages still give 5…40 around 20', () => {
    expect(defaultRange('keep_last', { messages: 1411, tokens: 1_240_000 }, 20)).toEqual({ param: 'keep_last', from: 5, to: 40, step: 5 })
  })

  it('rounds the step to 1, 2 or 5 × 10^k: target 12,000 / 4 = 3,000 → 2,000; min_tokens 200 / 4 = 50', () => {
    expect(defaultRange('target', claude, 12000)).toEqual({ param: 'target', from: 6000, to: 20000, step: 2000 })
    expect(defaultRange('min_tokens', claude, 200)).toEqual({ param: 'min_tokens', from: 50, to: 400, step: 50 })
    expect(defaultRange('trigger_reserve', claude, 33000)).toEqual({ param: 'trigger_reserve', from: 3000, to: 73000, step: 10000 })
  })

  it("stops at the param's min and puts the rest above: keep_steps 1 → 1…8, keep_last 3 → 1…8", () => {
    expect(defaultRange('keep_steps', claude, 1)).toEqual({ param: 'keep_steps', from: 1, to: 8, step: 1 })
    expect(defaultRange('keep_last', claude, 3)).toEqual({ param: 'keep_last', from: 1, to: 8, step: 1 })
  })

  it('at 0, starts at 0 with the transcript-scaled step: keep_tool_uses 0…7; clear_at_least steps of 19,526 / 16 → 1,300', () => {
    expect(defaultRange('keep_tool_uses', claude, 0)).toEqual({ param: 'keep_tool_uses', from: 0, to: 7, step: 1 })
    expect(defaultRange('clear_at_least', claude, 0)).toEqual({ param: 'clear_at_least', from: 0, to: 9100, step: 1300 })
  })

  it('unset (an optional param): the transcript-scaled range, steps of 19,526 / 8 rounded up to 100 = 2,500', () => {
    expect(defaultRange('trigger_tokens', claude)).toEqual({ param: 'trigger_tokens', from: 2500, to: 20000, step: 2500 })
    expect(defaultRange('keep_last', { messages: 3, tokens: 50 })).toMatchObject({ from: 1, step: 1 })
    expect(defaultRange('threshold_tokens', { messages: 3, tokens: 50 })).toMatchObject({ from: 100, step: 100 })
  })

  it('a token axis stops at the window: trigger_tokens 167,000 on 200K is 17,000…167,000 by 50,000 (no value above 200,000)', () => {
    // Without the window it would be 17,000…367,000: four steps above 167,000 all past 200,000.
    expect(defaultRange('trigger_tokens', { ...claude, window: 200_000 }, 167_000)).toEqual({
      param: 'trigger_tokens',
      from: 17_000,
      to: 167_000,
      step: 50_000,
    })
    // Unset on a 400,000-token transcript: steps of 400,000 / 8 = 50,000 from 50,000, up to the window.
    expect(defaultRange('trigger_tokens', { messages: 900, tokens: 400_000, window: 200_000 })).toEqual({
      param: 'trigger_tokens',
      from: 50_000,
      to: 200_000,
      step: 50_000,
    })
    // Message counts are not tokens: no cap.
    expect(defaultRange('keep_last', { ...claude, window: 1_000 }, 20)).toEqual({ param: 'keep_last', from: 5, to: 40, step: 5 })
  })

  it('every default range of the seed pipeline is a valid 8-value axis holding the current value', () => {
    const params = ['keep_last', 'compact_after', 'target', 'keep_steps', 'min_tokens', 'keep_tool_uses', 'clear_at_least', 'threshold_tokens', 'keep_recent'] as const
    for (const p of params) {
      const current = currentSweepValue(DEFAULT_PIPELINE, p)
      const r = axisOf(defaultRange(p, claude, current))
      expect(r.ok && r.axis.values.length).toBe(8)
      expect(r.ok && r.axis.values).toContain(current)
    }
  })
})

describe('currentSweepValue', () => {
  it("is the stage's value, else the param's default, else undefined", () => {
    const config = applyPreset(presetById('claude-code-200k')!, DEFAULT_PIPELINE)
    expect(currentSweepValue(config, 'trigger_reserve')).toBe(33000)
    expect(currentSweepValue(config, 'keep_tokens')).toBe(0)
    expect(currentSweepValue(DEFAULT_PIPELINE, 'keep_last')).toBe(20)
    const bare = { ...DEFAULT_PIPELINE, stages: DEFAULT_PIPELINE.stages.map((s) => ({ ...s, params: {} })) } as PipelineConfig
    expect(currentSweepValue(bare, 'compact_after')).toBe(40)
    expect(currentSweepValue(DEFAULT_PIPELINE, 'keep_tool_uses')).toBe(0)
    expect(currentSweepValue(DEFAULT_PIPELINE, 'trigger_tokens')).toBeUndefined()
  })

  it('an unset trigger_tokens under a window trigger is its level: Claude Code 200,000 − 33,000; Codex 0.9 × 272,000', () => {
    expect(currentSweepValue(applyPreset(presetById('claude-code-200k')!, DEFAULT_PIPELINE), 'trigger_tokens')).toBe(167_000)
    expect(currentSweepValue(applyPreset(presetById('codex-local')!, DEFAULT_PIPELINE), 'trigger_tokens')).toBe(244_800)
  })
})

describe('defaultPair', () => {
  it('follows the active trigger: messages → keep_last × compact_after, tokens → keep_tokens × trigger_tokens, prune only → target × keep_steps', () => {
    expect(defaultPair(DEFAULT_PIPELINE).id).toBe('summarize')
    expect(defaultPair(applyPreset(presetById('claude-code-200k')!, DEFAULT_PIPELINE)).id).toBe('tokens')
    expect(defaultPair(applyPreset(presetById('anthropic-clear-tool-uses')!, DEFAULT_PIPELINE)).id).toBe('prune')
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
    peakTokens: 0,
  })
  const cells = [[ok(100, 3, 2), { ok: false, x: 1, y: 0, reason: 'r' } as SweepCell], [null, ok(400, 0, 1)]]

  it('spans the cells that ran, skipping invalid and unrun ones', () => {
    expect(metricRange(cells, 'tokensSaved')).toEqual([100, 400])
    expect(metricRange(cells, 'factsLost')).toEqual([0, 3])
    expect(metricRange(cells, 'neededLost')).toEqual([1, 2])
    expect(metricRange([[null]], 'passes')).toBeNull()
  })

  it('leaves a cell over the model window out, so it never takes the best end of the scale', () => {
    // Over the window with the most saved and no fact lost: the best on both metrics, were it counted.
    const over = { ...(ok(900, 0) as SweepCellResult), overWindow: true as const, peakTokens: 250_000 }
    const grid = [[ok(100, 3), ok(400, 1)], [over, null]]
    expect(metricRange(grid, 'tokensSaved')).toEqual([100, 400])
    expect(metricRange(grid, 'factsLost')).toEqual([1, 3])
    expect(metricRange([[over]], 'tokensSaved')).toBeNull()
  })

  it('maps a value to 0…1; a flat range is the middle', () => {
    expect(shade(250, [100, 400])).toBe(0.5)
    expect(shade(400, [100, 400])).toBe(1)
    expect(shade(7, [7, 7])).toBe(0.5)
  })
})
