import { describe, expect, it } from 'vitest'
import type { FailureModeWarning } from '../../engine/model'
import { neededFactsOf, neededLineState } from './needed-line'

/** An over-compression warning naming the needed facts `texts` (undefined: another kind). */
const warning = (texts?: string[]): FailureModeWarning => ({
  rule: 'over-compression',
  message: 'm',
  messageIds: ['m1'],
  ...(texts !== undefined ? { neededFacts: texts.length, neededFactTexts: texts } : {}),
})
const checks = { before: [], after: [] }
const noAnswer = { warnings: undefined, pending: false }

describe('the totals line of facts needed', () => {
  it('a view carrying its checks: the facts their warnings name, or no line for none', () => {
    expect(neededLineState({ ...checks, failureModes: [warning(['94107', 'ORD-58213']), warning(), warning(['a.txt'])] }, noAnswer)).toEqual({
      state: 'needed',
      facts: ['94107', 'ORD-58213', 'a.txt'],
    })
    expect(neededLineState({ ...checks, failureModes: [warning()] }, noAnswer)).toBeNull()
    expect(neededLineState({ ...checks, failureModes: [] }, noAnswer)).toBeNull()
  })

  it('checks left for later: "checking" while they are on their way, then the facts or "none" in its place', () => {
    const deferred = { ...checks, failureModesPending: true as const }
    expect(neededLineState(deferred, { warnings: undefined, pending: true })).toEqual({ state: 'checking' })
    expect(neededLineState(deferred, { warnings: [warning(['01310-100'])], pending: false })).toEqual({ state: 'needed', facts: ['01310-100'] })
    expect(neededLineState(deferred, { warnings: [warning()], pending: false })).toEqual({ state: 'none' })
    expect(neededLineState(deferred, { warnings: [], pending: false })).toEqual({ state: 'none' })
  })

  it('deferred checks that failed (no warnings, nothing pending): no line', () => {
    expect(neededLineState({ ...checks, failureModesPending: true }, noAnswer)).toBeNull()
  })

  it('names each fact once, in the order of the warnings (two passes may name one text under two kinds)', () => {
    expect(neededFactsOf([warning(['94107', 'x.csv']), warning(['94107', 'ORD-1'])])).toEqual(['94107', 'x.csv', 'ORD-1'])
  })
})
