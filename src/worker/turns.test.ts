import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import type { PipelineConfig } from '../engine/model'
import { createEngineApi } from './engine-api'
import { turnPosition } from './turns'

/**
 * Six user/assistant exchanges (12 messages, turns end at #1, #3, …, #11). With only summarize on,
 * keep_last 2 and compact_after 4 (seed 001's rule: a pass when more than 4 messages are
 * unsummarized, keeping the newest 2), by hand: turn 1 sees 2 unsummarized, turn 2 sees 4 (not
 * more than 4), turn 3 sees 6 → pass 1 folds #0–#3; turn 4 sees 8 − 4 = 4; turn 5 sees 6 →
 * pass 2 folds #4–#7; turn 6 sees 4.
 */
const FIXTURE = readFileSync('test/fixtures/decision-log/six-turns.json', 'utf8')

function summarizeOnly(config: PipelineConfig, params: Record<string, unknown>): PipelineConfig {
  return {
    ...config,
    stages: config.stages.map((s) => ({
      ...s,
      enabled: s.id === 'summarize',
      params: s.id === 'summarize' ? { ...s.params, ...params } : s.params,
    })),
  }
}

function open() {
  const api = createEngineApi()
  expect(api.importText(FIXTURE, 'six-turns.json').ok).toBe(true)
  return api
}

describe('the decision log crosses to the page with the timeline, the turn view and the run', () => {
  const rule = { keep_last: 2, compact_after: 4 }

  it('the timeline carries every check point of the whole run, and the model window', async () => {
    const api = open()
    const outcome = await api.runTimeline(summarizeOnly(api.getDefaults(), rule), 1)
    if (!outcome.ok) throw new Error(outcome.error)
    const { decisions, window, passes } = outcome.view
    expect(window).toBe(200_000)
    expect(passes.map((p) => [p.turn, p.from, p.upto])).toEqual([
      [3, 0, 4],
      [5, 4, 8],
    ])
    expect({ total: decisions.total, reached: decisions.reached, fired: decisions.fired }).toEqual({ total: 6, reached: 2, fired: 2 })
    expect(decisions.decisions.map((d) => [d.turn, d.atMessage, d.unsummarized, d.reached, d.fired, d.pass])).toEqual([
      [1, 1, 2, false, false, undefined],
      [2, 3, 4, false, false, undefined],
      [3, 5, 6, true, true, 1],
      [4, 7, 4, false, false, undefined],
      [5, 9, 6, true, true, 2],
      [6, 11, 4, false, false, undefined],
    ])
  })

  it("the turn view carries that turn's check points only", async () => {
    const api = open()
    const config = summarizeOnly(api.getDefaults(), rule)
    const third = await api.getTurnContext(config, 3, 1)
    if (!third.ok) throw new Error(third.error)
    expect(third.view.decisions.total).toBe(1)
    expect(third.view.decisions.decisions.map((d) => [d.turn, d.fired, d.pass, d.threshold, d.thresholdSource])).toEqual([
      [3, true, 1, 4, 'compact_after 4'],
    ])
    const fourth = await api.getTurnContext(config, 4, 2)
    if (!fourth.ok) throw new Error(fourth.error)
    expect(fourth.view.decisions.decisions.map((d) => [d.turn, d.unsummarized, d.reached])).toEqual([[4, 4, false]])
  })

  it('the run view carries the reached check points for the pass list, with the counts of the whole log', async () => {
    const api = open()
    const outcome = await api.run(summarizeOnly(api.getDefaults(), rule), 1)
    if (!outcome.ok) throw new Error(outcome.error)
    const log = outcome.view.decisions
    expect(log && { total: log.total, reached: log.reached, fired: log.fired }).toEqual({ total: 6, reached: 2, fired: 2 })
    expect(log?.decisions.map((d) => [d.turn, d.pass])).toEqual([
      [3, 1],
      [5, 2],
    ])
  })

  it("a window-relative token trigger is a timeline level named with its source, beside the config's window", async () => {
    const api = open()
    const config = { ...summarizeOnly(api.getDefaults(), { trigger_reserve: 200 }), window: 1000 }
    const outcome = await api.runTimeline(config, 1)
    if (!outcome.ok) throw new Error(outcome.error)
    expect(outcome.view.window).toBe(1000)
    // 1,000 − 200 = 800 tokens (SPEC: share × window − reserve, share 1 when unset).
    expect(outcome.view.thresholds).toEqual([
      { kind: 'tokens', stage: 'summarize', param: 'trigger', tokens: 800, source: '1,000 window − 200 reserve' },
    ])
  })
})

describe('turnPosition places a request on the turn axis', () => {
  // Turns end at #1 and #3 (messages 0–1 and 2–3).
  const ends = [1, 3]
  it('a context up to a turn end sits on that turn; within a turn, at its share of the turn', () => {
    expect(turnPosition(ends, 2)).toBe(1)
    expect(turnPosition(ends, 1)).toBe(0.5)
    expect(turnPosition(ends, 3)).toBe(1.5)
    expect(turnPosition(ends, 4)).toBe(2)
    expect(turnPosition(ends, 0)).toBe(0)
    expect(turnPosition([], 3)).toBe(0)
  })
})
