import { describe, expect, it } from 'vitest'
import { STAGE_DEFINITIONS, type StageParamDef } from '../../engine/stages/definitions'
import { effectiveParam, STAGE_PARAMS } from './params'

// SPEC §3.2: keep_last default 20, compact_after default 40; a non-positive or non-numeric value
// falls back to the default; compact_after < keep_last is clamped up to keep_last.
describe('effectiveParam', () => {
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
})
