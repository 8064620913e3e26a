import { describe, expect, it } from 'vitest'
import type { FailureModeWarning } from '../../engine/model'
import { neededLineState } from './needed-line'

/** An over-compression warning naming `neededFacts` needed facts (undefined: another kind). */
const warning = (neededFacts?: number): FailureModeWarning => ({
  rule: 'over-compression',
  message: 'm',
  messageIds: ['m1'],
  ...(neededFacts !== undefined ? { neededFacts } : {}),
})
const checks = { before: [], after: [] }
const noAnswer = { warnings: undefined, pending: false }

describe('the totals line of facts needed', () => {
  it('a view carrying its checks: the sum of their needed facts, or no line for none', () => {
    expect(neededLineState({ ...checks, failureModes: [warning(2), warning(), warning(1)] }, noAnswer)).toEqual({ state: 'needed', count: 3 })
    expect(neededLineState({ ...checks, failureModes: [warning()] }, noAnswer)).toBeNull()
    expect(neededLineState({ ...checks, failureModes: [] }, noAnswer)).toBeNull()
  })

  it('checks left for later: "checking" while they are on their way, then the count or "none" in its place', () => {
    const deferred = { ...checks, failureModesPending: true as const }
    expect(neededLineState(deferred, { warnings: undefined, pending: true })).toEqual({ state: 'checking' })
    expect(neededLineState(deferred, { warnings: [warning(1)], pending: false })).toEqual({ state: 'needed', count: 1 })
    expect(neededLineState(deferred, { warnings: [warning()], pending: false })).toEqual({ state: 'none' })
    expect(neededLineState(deferred, { warnings: [], pending: false })).toEqual({ state: 'none' })
  })

  it('deferred checks that failed (no warnings, nothing pending): no line', () => {
    expect(neededLineState({ ...checks, failureModesPending: true }, noAnswer)).toBeNull()
  })
})
