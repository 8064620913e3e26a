import { describe, expect, it } from 'vitest'
import { STAGE_DEFINITIONS, type StageParamDef } from '../../engine/stages/definitions'
import {
  effectiveParam,
  fromPercent,
  positionOf,
  shortTokens,
  SLIDER_POSITIONS,
  sliderRange,
  STAGE_CONTROLS,
  STAGE_PARAMS,
  toPercent,
  valueAt,
  windowShare,
} from './params'

// SPEC §3.2: keep_last default 20, compact_after default 40; a non-positive or non-numeric value
// falls back to the default; compact_after < keep_last is clamped up to keep_last.
describe('effectiveParam', () => {
  it('an unusable token value carries the stage error as its note (the stage stops rather than fall back)', () => {
    expect(effectiveParam('summarize', 'trigger_share', { trigger_share: 1.5 })).toEqual({
      value: 1.5,
      replace: false,
      note: 'trigger_share must be a share of the window from 1% to 100% (0.01–1)',
    })
  })

  it('passes a valid value through without a note', () => {
    expect(effectiveParam('summarize', 'keep_last', { keep_last: 10, compact_after: 30 })).toEqual({ value: 10, replace: false })
  })
  it('replaces a non-positive keep_last by the default 20', () => {
    expect(effectiveParam('summarize', 'keep_last', { keep_last: -5, compact_after: 40 })).toEqual({
      value: 20,
      replace: true,
      note: 'engine uses the default, 20',
    })
    expect(effectiveParam('summarize', 'keep_last', { keep_last: 0, compact_after: 40 }).value).toBe(20)
  })
  it('replaces a non-positive compact_after by the default 40', () => {
    expect(effectiveParam('summarize', 'compact_after', { keep_last: 20, compact_after: 0 })).toMatchObject({ value: 40, replace: true })
  })
  it('shows the clamp of compact_after up to keep_last without rewriting the typed value', () => {
    expect(effectiveParam('summarize', 'compact_after', { keep_last: 20, compact_after: 5 })).toEqual({
      value: 20,
      replace: false,
      note: 'clamped to keep_last (20)',
    })
  })
  it('shows the clamp to the default keep_last when keep_last itself is invalid', () => {
    // keep_last -1 → 20, so compact_after 10 is clamped to 20.
    expect(effectiveParam('summarize', 'compact_after', { keep_last: -1, compact_after: 10 })).toMatchObject({
      value: 20,
      note: 'clamped to keep_last (20)',
    })
  })
  it('truncates a fractional value like the engine', () => {
    expect(effectiveParam('summarize', 'keep_last', { keep_last: 12.9, compact_after: 40 })).toEqual({
      value: 12,
      replace: true,
      note: 'engine uses 12',
    })
  })
  it('accepts a huge value as given (the slider caps, the engine does not)', () => {
    expect(effectiveParam('summarize', 'keep_last', { keep_last: 1e9, compact_after: 40 })).toEqual({ value: 1e9, replace: false })
  })
  it('replaces a negative insert-then-compress param by its default (5,000 tokens / 10 messages)', () => {
    expect(effectiveParam('insert-then-compress', 'threshold_tokens', { threshold_tokens: -1, keep_recent: 10 })).toMatchObject({
      value: 5000,
      note: 'engine uses the default, 5,000',
    })
    expect(effectiveParam('insert-then-compress', 'keep_recent', { threshold_tokens: 0, keep_recent: 0 })).toEqual({ value: 0, replace: false })
  })
  it('prune keep_tool_uses / clear_at_least: absent is off (0) without a note; negative → 0; fractions truncate', () => {
    expect(effectiveParam('prune-tool-results', 'clear_at_least', { target: 1000 })).toEqual({ value: 0, replace: false })
    expect(effectiveParam('prune-tool-results', 'keep_tool_uses', { keep_tool_uses: -2 })).toMatchObject({
      value: 0,
      replace: true,
      note: 'engine uses the default, 0',
    })
    expect(effectiveParam('prune-tool-results', 'clear_at_least', { clear_at_least: 2500.5 })).toEqual({
      value: 2500,
      replace: true,
      note: 'engine uses 2,500',
    })
  })
})

describe('the page controls come from the stage definitions', () => {
  it('slim has its keep control (items, at least 1) and pin-facts its max_facts control (facts, at least 1)', () => {
    expect(STAGE_PARAMS.slim.map((p) => [p.key, p.unit, p.min])).toContainEqual(['keep', 'items', 1])
    expect(STAGE_PARAMS['pin-facts'].map((p) => [p.key, p.unit, p.min])).toContainEqual(['max_facts', 'facts', 1])
    expect(STAGE_PARAMS.dedupe).toEqual([])
  })

  it('every slider param of every definition has a control, in definition order', () => {
    for (const def of STAGE_DEFINITIONS) {
      const sliders = (def.params as readonly StageParamDef[]).filter((p) => p.control === 'slider').map((p) => p.key)
      expect(STAGE_PARAMS[def.id].map((p) => p.key)).toEqual(sliders)
    }
  })

  it('a slim keep or max_facts below 1 shows the default the engine uses (seed 004 keep=5; 40 facts)', () => {
    expect(effectiveParam('slim', 'keep', { keep: 0 })).toEqual({ value: 5, replace: true, note: 'engine uses the default, 5' })
    expect(effectiveParam('pin-facts', 'max_facts', { max_facts: -1 })).toMatchObject({ value: 40, replace: true })
    expect(effectiveParam('pin-facts', 'max_facts', { max_facts: 12 })).toEqual({ value: 12, replace: false })
  })

  it('slider ends: message params grow with the transcript, token params with its tokens', () => {
    const keepLast = STAGE_PARAMS.summarize.find((p) => p.key === 'keep_last')!
    const target = STAGE_PARAMS['prune-tool-results'].find((p) => p.key === 'target')!
    expect(keepLast.max({ messages: 0, tokens: 0 })).toBe(50)
    expect(keepLast.max({ messages: 95, tokens: 0 })).toBe(110)
    expect(target.max({ messages: 0, tokens: 10_000 })).toBe(12_000)
    expect(STAGE_PARAMS.slim[0]!.max({ messages: 1000, tokens: 1e6 })).toBe(50)
  })

  it('a token slider never goes past the model window', () => {
    const target = STAGE_PARAMS['prune-tool-results'].find((p) => p.key === 'target')!
    const trigger = STAGE_PARAMS.summarize.find((p) => p.key === 'trigger_tokens')!
    // 1.2 × 1,000,000 tokens would be 1,200,000: capped at the 200,000 window.
    expect(target.max({ messages: 0, tokens: 1e6, window: 200_000 })).toBe(200_000)
    expect(target.max({ messages: 0, tokens: 10_000, window: 200_000 })).toBe(12_000)
    // A trigger slides up to the window itself, whatever the transcript's size (absent: 200,000).
    expect(trigger.max({ messages: 0, tokens: 1e6, window: 128_000 })).toBe(128_000)
    expect(trigger.max({ messages: 0, tokens: 10 })).toBe(200_000)
  })
})

describe('slider scale: a logarithmic range around the value for transcript-sized params', () => {
  const keepLast = STAGE_PARAMS.summarize.find((p) => p.key === 'keep_last')!
  const target = STAGE_PARAMS['prune-tool-results'].find((p) => p.key === 'target')!

  it('keep_last 20 of 1,430: spans 6.67–60 with 20 mid-track; 30 px of 245 px moves it to 26 or 15', () => {
    // u = value − 1 + 1 = 20: from u/3 to 3u.
    const range = sliderRange(keepLast, 1430, 20)
    expect(range.log).toBe(true)
    expect(range.lo).toBeCloseTo(20 / 3, 9)
    expect(range.hi).toBeCloseTo(60, 9)
    expect(positionOf(20, range)).toBe(500)
    // 30 / 245 × 1000 ≈ 122 positions: (20/3) × 9^0.622 ≈ 26.15, (20/3) × 9^0.378 ≈ 15.30.
    expect(valueAt(622, range, 1)).toBe(26)
    expect(valueAt(378, range, 1)).toBe(15)
    expect(valueAt(0, range, 1)).toBe(7)
    expect(valueAt(SLIDER_POSITIONS, range, 1)).toBe(60)
  })

  it('target 12,000 of 1,490,000 tokens sits mid-track; the ends round to its 100-token step', () => {
    const range = sliderRange(target, 1_490_000, 12_000)
    // min 0, step 100: u = 121 steps, from 40.33 to 363 → values 3,933.3 … 36,200.
    expect(range.lo).toBeCloseTo((121 / 3 - 1) * 100, 6)
    expect(range.hi).toBeCloseTo(36_200, 6)
    expect(positionOf(12_000, range)).toBe(500)
    expect(valueAt(0, range, 100)).toBe(4000)
    expect(valueAt(SLIDER_POSITIONS, range, 100)).toBe(36_200)
  })

  it('a token budget at 0 spans 0 … 8 of its 500-token steps, not 0 … 8 tokens', () => {
    const keepTokens = STAGE_PARAMS.summarize.find((p) => p.key === 'keep_tokens')!
    expect(sliderRange(keepTokens, 1_490_000, 0)).toEqual({ lo: 0, hi: 4000, log: true, base: 0, unit: 500 })
    // 9^0.5 = 3 steps above the first: 1,000 tokens mid-track.
    expect(valueAt(500, sliderRange(keepTokens, 1_490_000, 0), 500)).toBe(1000)
  })

  it('near the top the range shifts down to end at the slider max; near the least it starts there', () => {
    // u = 1,400 → 466.7 … 4,200 > 1,430: ends at 1,430 and starts 9 × lower (158.9).
    const top = sliderRange(keepLast, 1430, 1400)
    expect(top.hi).toBe(1430)
    expect(top.lo).toBeCloseTo(1430 / 9, 9)
    expect(sliderRange(keepLast, 1430, 2)).toEqual({ lo: 1, hi: 9, log: true, base: 1, unit: 1 })
    expect(valueAt(0, sliderRange(keepLast, 1430, 2), 1)).toBe(1)
  })

  it('a small or fixed range stays linear over min … max', () => {
    expect(sliderRange(keepLast, 50, 20)).toEqual({ lo: 1, hi: 50, log: false, base: 1, unit: 1 })
    const slim = STAGE_PARAMS.slim[0]!
    expect(slim.zoom).toBe(false)
    expect(sliderRange(slim, 50, 5)).toEqual({ lo: 1, hi: 50, log: false, base: 1, unit: 1 })
    expect(positionOf(25.5, sliderRange(slim, 50, 5))).toBe(500)
  })
})

describe('token and share display', () => {
  it('a window in short form', () => {
    expect([200_000, 1_000_000, 1_047_576, 262_144, 128_000].map(shortTokens)).toEqual(['200K', '1M', '1.05M', '262.1K', '128K'])
  })
  it('tokens as a share of the window, to 0.1%', () => {
    expect(windowShare(167_000, 200_000)).toBe('83.5% of 200K')
    expect(windowShare(150_000, 1_000_000)).toBe('15% of 1M')
  })
  it('a share is shown and typed as a percentage, without float noise', () => {
    expect(toPercent(0.835)).toBe(83.5)
    expect(toPercent(0.07)).toBe(7)
    expect(fromPercent(83.5)).toBe(0.835)
    expect(fromPercent(7)).toBe(0.07)
    const share = STAGE_PARAMS.summarize.find((p) => p.key === 'trigger_share')!
    expect([share.unit, share.percent, share.offWhenAbsent]).toEqual(['%', true, true])
  })
})

describe('every control of a stage card comes from its definition', () => {
  it('summarize: sliders, then the toggles and selects in definition order', () => {
    expect(STAGE_CONTROLS.summarize.map((c) => `${c.kind}:${c.key}`)).toEqual([
      'slider:keep_last',
      'slider:compact_after',
      'slider:trigger_tokens',
      'slider:trigger_share',
      'slider:trigger_reserve',
      'slider:keep_tokens',
      'slider:keep_share',
      'toggle:keep_user_only',
      'select:tail_start',
      'select:check',
      'toggle:min_progress',
      'toggle:refuse_larger',
    ])
    const check = STAGE_CONTROLS.summarize.find((c) => c.key === 'check')
    expect(check?.kind === 'select' && check.choices).toEqual(['turn', 'request'])
  })
  it('the token triggers are off when absent; params with a default are not', () => {
    const spec = (stage: 'summarize' | 'prune-tool-results', key: string) => STAGE_PARAMS[stage].find((p) => p.key === key)!
    expect(spec('summarize', 'trigger_tokens').offWhenAbsent).toBe(true)
    expect(spec('prune-tool-results', 'trigger').offWhenAbsent).toBe(true)
    expect(spec('summarize', 'keep_last').offWhenAbsent).toBe(false)
    expect(spec('prune-tool-results', 'keep_tool_uses').offWhenAbsent).toBe(false)
  })
})
