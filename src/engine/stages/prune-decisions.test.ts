/**
 * The decision log of prune-tool-results: stateless (each request at or over the trigger is
 * edited), so every turn is checked on the prefix up to it; a reached turn whose tool results are
 * all guarded is held, not claimed as pruned. Tokens: one per code point, no overhead.
 */
import { describe, expect, it } from 'vitest'
import { pruneToolResults } from './prune-tool-results'
import { describeDecision } from './triggers'
import { assistant, countCodePoints, indexed, makeContext, toolResult, user } from './test-helpers'

/** Three turns, each: user, a tool step (call + 300-code-point result), the answer. */
const session = () =>
  indexed(
    [1, 2, 3].flatMap((t) => [
      user(`u${t}`, `question ${t}`),
      assistant(`c${t}`, null, [{ id: `k${t}`, name: 'read' }]),
      toolResult(`r${t}`, `k${t}`, 'x'.repeat(300)),
      assistant(`a${t}`, `answer ${t}`),
    ]),
  )

describe('prune-tool-results decisions', () => {
  it('target 0 with keep_steps 2: turns 1 and 2 are held (their steps are the newest two), turn 3 prunes r1', () => {
    const out = pruneToolResults(session(), { target: 0, keep_steps: 2, min_tokens: 0 }, makeContext(countCodePoints))
    expect(out.changed).toBe(true)
    expect(Object.keys(out.fates)).toEqual(['r1'])
    expect(out.decisions?.map((d) => [d.turn, d.atMessage, d.reached, d.fired])).toEqual([
      [1, 3, true, false],
      [2, 7, true, false],
      [3, 11, true, true],
    ])
    expect(describeDecision(out.decisions![0]!, false)).toMatch(
      /, but no change: every tool result in context up to #3 is guarded, excluded, under min_tokens or already replaced$/,
    )
  })

  it('with a trigger, a turn under it is not reached; one over it with an unguarded result is pruned', () => {
    // The trigger sits one token above turn 1's prefix: turn 1 is under it, turns 2 and 3 over it.
    const ctx = makeContext(countCodePoints)
    const first = session().slice(0, 4).reduce((n, m) => n + ctx.countMessage(m), 0)
    const out = pruneToolResults(session(), { target: 0, trigger: first + 1, keep_steps: 1, min_tokens: 0 }, ctx)
    expect(out.decisions?.map((d) => [d.turn, d.reached, d.fired])).toEqual([
      [1, false, false],
      [2, true, true],
      [3, true, true],
    ])
  })
})
