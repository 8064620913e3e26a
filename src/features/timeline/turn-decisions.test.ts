import { describe, expect, it } from 'vitest'
import type { TriggerDecision } from '../../engine/model'
import type { DecisionLogView } from '../../worker/protocol'
import { decisionsByTurn, turnDecisions } from './turn-decisions'

function check(stage: TriggerDecision['stage'], turn: number, atMessage: number, reached = false): TriggerDecision {
  return {
    stage,
    turn,
    atMessage,
    tokens: atMessage * 100,
    unsummarized: atMessage + 1,
    measure: 'tokens',
    threshold: 1000,
    op: '≥',
    thresholdSource: 'trigger_tokens 1,000',
    reached,
    fired: reached,
  }
}

function logOf(decisions: TriggerDecision[], total = decisions.length): DecisionLogView {
  return { decisions, total, reached: decisions.filter((d) => d.reached).length, fired: decisions.filter((d) => d.fired).length }
}

describe('turnDecisions', () => {
  it("shows every check of a turn when there are few, in log order, and none of another turn's", () => {
    const log = logOf([check('summarize', 1, 1), check('summarize', 2, 3), check('prune-tool-results', 2, 3)])
    const got = turnDecisions(decisionsByTurn(log), log, 2)
    expect(got.shown.map((d) => [d.stage, d.atMessage])).toEqual([
      ['summarize', 3],
      ['prune-tool-results', 3],
    ])
    expect([got.hidden, got.cut]).toEqual([0, false])
  })

  it('of a turn checked before every request, shows the reached check and the last one, and counts the rest', () => {
    // Turn 4 checked at #10, #11 (reached), #12, #13, #14.
    const log = logOf([10, 11, 12, 13, 14].map((i) => check('summarize', 4, i, i === 11)))
    const got = turnDecisions(decisionsByTurn(log), log, 4, 2)
    expect(got.shown.map((d) => d.atMessage)).toEqual([11, 14])
    expect(got.hidden).toBe(3)
  })

  it('says when a turn has nothing among the decisions sent from a cut log', () => {
    const log = logOf([check('summarize', 1, 1)], 40)
    expect(turnDecisions(decisionsByTurn(log), log, 7)).toEqual({ shown: [], hidden: 0, cut: true })
    const whole = logOf([check('summarize', 1, 1)])
    expect(turnDecisions(decisionsByTurn(whole), whole, 7).cut).toBe(false)
  })
})
