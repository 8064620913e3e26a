import { describe, expect, it } from 'vitest'
import type { TriggerDecision } from '../engine/model'
import { decisionLogView, lastOfEachStage } from './decision-log'

/** A summarize check point at `turn`; `kind` says whether it was reached and fired. */
function check(turn: number, atMessage: number, kind: 'short' | 'held' | 'fired' = 'short'): TriggerDecision {
  const d: TriggerDecision = {
    stage: 'summarize',
    turn,
    atMessage,
    tokens: 1000 + atMessage,
    unsummarized: atMessage + 1,
    measure: 'tokens',
    threshold: 5000,
    op: '≥',
    thresholdSource: 'trigger_tokens 5,000',
    reached: kind !== 'short',
    fired: kind === 'fired',
  }
  if (kind === 'held') d.held = 'refuse_larger guard: not smaller'
  return d
}

describe('decisionLogView', () => {
  it('sends a short log whole, as copies, with its counts', () => {
    const log = [check(1, 1), check(2, 3, 'held'), check(3, 5, 'fired')]
    const view = decisionLogView(log, 10)
    expect(view).toEqual({ decisions: log, total: 3, reached: 2, fired: 1 })
    expect(view.decisions[0]).not.toBe(log[0])
  })

  it('keeps only what `keep` allows, counting the whole log', () => {
    const log = [check(1, 1), check(2, 3, 'held'), check(3, 5, 'fired')]
    const view = decisionLogView(log, 10, (d) => d.reached)
    expect(view.decisions.map((d) => d.atMessage)).toEqual([3, 5])
    expect([view.total, view.reached, view.fired]).toEqual([3, 2, 1])
  })

  it("keeps the decisions that made a pass ahead of a stateless stage's fired check at every turn", () => {
    const prune = (turn: number): TriggerDecision => ({ ...check(turn, turn * 2 + 1, 'fired'), stage: 'prune-tool-results' })
    const pass = { ...check(2, 5, 'fired'), pass: 1 }
    const log = [pass, prune(1), prune(2), prune(3), prune(4)]
    // Room for 2: the pass, then one of the four prune checks from the middle of its share (turn 3).
    expect(decisionLogView(log, 2).decisions.map((d) => [d.stage, d.turn])).toEqual([
      ['summarize', 2],
      ['prune-tool-results', 3],
    ])
  })

  it('cuts a long log by priority: fired, then held, then the last check of each turn, in log order', () => {
    // Turn 1: checks at #1, #2, #3 (not reached); turn 2: #5 held, #6 fired; turn 3: #8, #9.
    const log = [check(1, 1), check(1, 2), check(1, 3), check(2, 5, 'held'), check(2, 6, 'fired'), check(3, 8), check(3, 9)]
    // Room for 4: the fired #6, the held #5, then the last checks of turns 1 and 3 (#3, #9).
    expect(decisionLogView(log, 4).decisions.map((d) => d.atMessage)).toEqual([3, 5, 6, 9])
    // Room for 3: the fired and the held, then one of the two last-of-turn checks, from the middle of
    // its share: of [#3, #9] the second.
    expect(decisionLogView(log, 3).decisions.map((d) => d.atMessage)).toEqual([5, 6, 9])
    // Room for 6: two of the other checks [#1, #2, #8], spread over the session: #1 and #8.
    const six = decisionLogView(log, 6)
    expect(six.decisions.map((d) => d.atMessage)).toEqual([1, 3, 5, 6, 8, 9])
    expect([six.total, six.reached, six.fired]).toEqual([7, 2, 1])
  })

  it('lastOfEachStage: the last check of each stage, stages in the order they first logged', () => {
    const prune = (turn: number): TriggerDecision => ({ ...check(turn, turn * 2 + 1), stage: 'prune-tool-results' })
    const log = [prune(1), check(1, 2), prune(2), check(2, 6), check(3, 9)]
    expect(lastOfEachStage(log).map((d) => [d.stage, d.atMessage])).toEqual([
      ['prune-tool-results', 5],
      ['summarize', 9],
    ])
  })
})
