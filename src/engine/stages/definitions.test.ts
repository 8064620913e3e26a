import { describe, expect, it } from 'vitest'
import { DEFAULT_PIPELINE } from '../pipeline'
import { configWith, parseSweepAxis, SWEEP_PARAMS } from '../analysis/sweep-params'
import { ALL_PARAMS, STAGE_DEFINITIONS, STAGE_IDS, stageDefinition, type StageParamDef } from './definitions'
import { effectiveCount, readCount, readCounts } from './params'
import { STAGE_RUNNERS } from './registry'

describe('stage definitions', () => {
  it('every defined stage has a runner and every runner a definition', () => {
    expect(Object.keys(STAGE_RUNNERS).sort()).toEqual([...STAGE_IDS].sort())
  })

  it('the default pipeline is the definitions: their order, on/off and non-optional defaults', () => {
    expect(DEFAULT_PIPELINE.stages.map((s) => s.id)).toEqual(STAGE_IDS)
    for (const stage of DEFAULT_PIPELINE.stages) {
      const def = stageDefinition(stage.id)
      expect(stage.enabled).toBe(def.enabledByDefault)
      const wanted = def.params.filter((p) => !p.optional && p.default !== undefined).map((p) => [p.key, p.default])
      expect(Object.entries(stage.params)).toEqual(wanted)
    }
  })

  it("the seeds' numbers: summarize 20 / 40 (seed 001), prune keep_steps 1 / min_tokens 200 (seed 002), slim keep 5 (seed 004)", () => {
    const params = (id: string) => DEFAULT_PIPELINE.stages.find((s) => s.id === id)!.params as Record<string, unknown>
    expect(params('summarize')).toMatchObject({ keep_last: 20, compact_after: 40 })
    expect(params('prune-tool-results')).toMatchObject({ keep_steps: 1, min_tokens: 200 })
    expect(params('slim')).toMatchObject({ keep: 5 })
    expect(params('pin-facts')).toMatchObject({ max_facts: 40 })
  })

  it('each count default is usable by its own rule, and each slider param is a count with a unit', () => {
    for (const { stage, param } of ALL_PARAMS) {
      if (param.type === 'count' && typeof param.default === 'number') {
        expect(readCount(param, param.default), `${stage} ${param.key}`).toEqual({ ok: true, value: param.default, fellBack: false })
      }
      if (param.control === 'slider') {
        expect(param.type, `${stage} ${param.key}`).toBe('count')
        expect(param.unit, `${stage} ${param.key}`).toBeDefined()
        expect(param.slider, `${stage} ${param.key}`).toBeDefined()
      }
    }
  })

  it('sweep keys are unique across stages and name counts; aliases are unique too', () => {
    const swept = ALL_PARAMS.filter(({ param }) => param.sweep)
    expect(new Set(swept.map(({ param }) => param.key)).size).toBe(swept.length)
    expect(swept.every(({ param }) => param.type === 'count')).toBe(true)
    expect(Object.keys(SWEEP_PARAMS)).toEqual(swept.map(({ param }) => param.key))
  })

  it('shares (0–1) are not sweep axes: an axis takes whole numbers', () => {
    const shares = ALL_PARAMS.filter(({ param }) => param.unit === 'share')
    expect(shares.map(({ param }) => param.key)).toEqual(['trigger_share', 'keep_share'])
    expect(shares.every(({ param }) => param.sweep === undefined)).toBe(true)
  })

  it('CLI flags are unique', () => {
    const flags = ALL_PARAMS.flatMap(({ param }) => (param.cliFlag ? [param.cliFlag] : []))
    expect(new Set(flags).size).toBe(flags.length)
  })

  it('ids and titles are unique', () => {
    expect(new Set(STAGE_DEFINITIONS.map((d) => d.id)).size).toBe(STAGE_DEFINITIONS.length)
    expect(new Set(STAGE_DEFINITIONS.map((d) => d.title)).size).toBe(STAGE_DEFINITIONS.length)
  })
})

describe('readCount: how the engine reads a count param (SPEC §3.2–3.5)', () => {
  const keepLast = stageDefinition('summarize').params.find((p) => p.key === 'keep_last') as StageParamDef
  const keepSteps = stageDefinition('prune-tool-results').params.find((p) => p.key === 'keep_steps') as StageParamDef
  const minTokens = stageDefinition('prune-tool-results').params.find((p) => p.key === 'min_tokens') as StageParamDef

  it('a whole value at or above min is used as given; a fraction is truncated', () => {
    expect(readCount(keepLast, 12)).toEqual({ ok: true, value: 12, fellBack: false })
    expect(readCount(keepLast, 12.9)).toEqual({ ok: true, value: 12, fellBack: false })
    expect(readCount(keepLast, '7')).toEqual({ ok: true, value: 7, fellBack: false })
  })

  it('absent, below min or not a number: the default (seed 001 `positive`)', () => {
    for (const raw of [undefined, 0, -3, NaN, Infinity, 'ten', null, '']) {
      expect(readCount(keepLast, raw), String(raw)).toEqual({ ok: true, value: 20, fellBack: true })
    }
  })

  it("keep_steps below 1 is the stage's error, word for word (seed 002); absent is its default 1", () => {
    expect(readCount(keepSteps, 0)).toEqual({
      ok: false,
      error: 'keep_steps must be at least 1: the model has not acted on the newest results yet',
    })
    expect(readCount(keepSteps, undefined)).toEqual({ ok: true, value: 1, fellBack: true })
  })

  it('min_tokens takes any finite number, fractions included', () => {
    expect(readCount(minTokens, 12.5)).toEqual({ ok: true, value: 12.5, fellBack: false })
    expect(readCount(minTokens, -1)).toEqual({ ok: true, value: -1, fellBack: false })
  })

  it('readCounts raises compact_after to keep_last (SPEC §3.2) and skips absent params without a default', () => {
    expect(readCounts('summarize', { keep_last: 30, compact_after: 10 }).values).toEqual({ keep_last: 30, compact_after: 30 })
    expect(readCounts('summarize', { keep_last: 0, compact_after: 5 }).values).toEqual({ keep_last: 20, compact_after: 20 })
    expect(readCounts('prune-tool-results', { target: 1000, keep_steps: 0 })).toMatchObject({
      error: 'keep_steps must be at least 1: the model has not acted on the newest results yet',
    })
  })

  it('effectiveCount says what was raised and what fell back; an absent optional param has no note', () => {
    expect(effectiveCount('summarize', 'compact_after', { keep_last: 30, compact_after: 10 })).toEqual({
      value: 30,
      fellBack: false,
      raisedTo: { key: 'keep_last', value: 30 },
    })
    expect(effectiveCount('slim', 'keep', { keep: 0 })).toEqual({ value: 5, fellBack: true })
    expect(effectiveCount('prune-tool-results', 'keep_tool_uses', { target: 100 })).toEqual({ value: 0, fellBack: false })
  })
})

describe('slim keep and pin-facts max_facts are sweep axes from their definitions', () => {
  it('parses and applies them, switching their stage on', () => {
    const keep = parseSweepAxis('keep=1..3')
    const facts = parseSweepAxis('max_facts=5,10')
    expect(keep).toEqual({ ok: true, axis: { param: 'keep', values: [1, 2, 3] } })
    expect(facts).toEqual({ ok: true, axis: { param: 'max_facts', values: [5, 10] } })
    const config = configWith(DEFAULT_PIPELINE, { param: 'keep', value: 2 }, { param: 'max_facts', value: 10 })
    expect(config.stages.find((s) => s.id === 'slim')).toMatchObject({ id: 'slim', enabled: true, params: { keep: 2 } })
    expect(config.stages.find((s) => s.id === 'pin-facts')).toMatchObject({ id: 'pin-facts', enabled: true, params: { max_facts: 10 } })
    expect(SWEEP_PARAMS.keep).toMatchObject({ stage: 'slim', unit: 'items' })
    expect(SWEEP_PARAMS.max_facts).toMatchObject({ stage: 'pin-facts', unit: 'facts' })
  })
})
