/**
 * summarize with token triggers and token budgets (definitions.ts TRIGGER_PARAMS, TAIL_PARAMS):
 * expected values are worked out by hand from one token per code point (countCodePoints, no
 * per-message overhead) and the summary header `[Summary of messages A–B (pass N)]` + "\n" + "S"
 * (36 code points for single-digit A, B and N).
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { Message } from '../model'
import { describeDecision } from './triggers'
import { summarize } from './summarize'
import { assistant, countCodePoints, indexed, makeContext, toolResult, user } from './test-helpers'
import { turnEnds } from '../analysis/turns'

const ctx = () => makeContext(countCodePoints, { summarize: () => Promise.resolve('S') })
const HEADER_AND_S = 36

/** u0 a1 u2 a3 (100 code points each) and u4 (50). */
const chat = () =>
  indexed([
    user('u0', 'a'.repeat(100)),
    assistant('a1', 'b'.repeat(100)),
    user('u2', 'c'.repeat(100)),
    assistant('a3', 'd'.repeat(100)),
    user('u4', 'e'.repeat(50)),
  ])

describe('summarize: token trigger, checked before each request', () => {
  it('fires at the first request whose context reaches trigger_tokens; keep_tokens 0 keeps nothing', async () => {
    const out = await summarize(chat(), { trigger_tokens: 250, keep_tokens: 0, check: 'request' }, ctx())
    // Requests follow u0 (100 tokens), u2 (300) and the end u4: 300 ≥ 250 fires at u2, summarizing u0–u2.
    expect(out.passes.map((p) => [p.atMessage, p.from, p.upto, p.tokensBefore, p.tokensAfter])).toEqual([
      [2, 0, 3, 300, HEADER_AND_S],
    ])
    expect(out.messages.map((m) => m.id)).toEqual(['summary:summarize:1', 'a3', 'u4'])
    expect(out.decisions?.map((d) => [d.atMessage, d.tokens, d.reached, d.fired])).toEqual([
      [0, 100, false, false],
      [2, 300, true, true],
      // After the pass: the summary, a3 and u4 = 36 + 100 + 50.
      [4, HEADER_AND_S + 150, false, false],
    ])
    expect(out.decisions?.map((d) => describeDecision(d, false))).toEqual([
      '100 tokens < 250 (trigger_tokens 250): 150 tokens short, no compaction',
      `300 tokens ≥ 250 (trigger_tokens 250) → pass 1 fired (300 → ${HEADER_AND_S} tokens)`,
      `186 tokens < 250 (trigger_tokens 250): 64 tokens short, no compaction`,
    ])
  })

  it('a reserve not below the window is an error, not a pass at every check', async () => {
    const out = await summarize(chat(), { trigger_reserve: 33_000, keep_tokens: 0 }, { ...ctx(), window: 20_000 })
    expect(out.changed).toBe(false)
    expect(out.error).toBe(
      'the token trigger is at 0 tokens (20,000 window − 33,000 reserve): every check would compact; use a larger window or a smaller reserve',
    )
  })

  it('the window rule: trigger_reserve from ctx.window', async () => {
    const out = await summarize(chat(), { trigger_reserve: 1_000 - 250, keep_tokens: 0, check: 'request' }, { ...ctx(), window: 1_000 })
    expect(out.decisions?.[1]).toMatchObject({ threshold: 250, thresholdSource: '1,000 window − 750 reserve', fired: true })
  })
})

describe('summarize: token budget of the kept tail', () => {
  it('keeps the newest messages whose tokens fit keep_tokens', async () => {
    const out = await summarize(chat(), { trigger_tokens: 400, keep_tokens: 120 }, ctx())
    // Turn ends a1 (200) and a3 (400 ≥ 400). Budget 120 holds a3 (100), not u2 as well (200).
    expect(out.passes.map((p) => [p.atMessage, p.from, p.upto])).toEqual([[3, 0, 3]])
    expect(out.messages.map((m) => m.id)).toEqual(['summary:summarize:1', 'a3', 'u4'])
  })

  it('tail_start user moves the boundary back to a user message', async () => {
    const out = await summarize(chat(), { trigger_tokens: 400, keep_tokens: 120, tail_start: 'user' }, ctx())
    // The budget's start a3 is an assistant message: the tail starts at u2 instead.
    expect(out.passes.map((p) => [p.from, p.upto, p.tokensAfter])).toEqual([[0, 2, HEADER_AND_S + 200]])
    expect(out.messages.map((m) => m.id)).toEqual(['summary:summarize:1', 'u2', 'a3', 'u4'])
  })

  it('tail_start user_within moves the boundary forward, never past the budget (Gemini CLI)', async () => {
    // The budget's start a3 is not a user message and no user message follows it in the prefix
    // u0–a3, which ends with a reply: everything is summarized (aider's rule would keep u2–a3).
    const out = await summarize(chat(), { trigger_tokens: 400, keep_tokens: 120, tail_start: 'user_within' }, ctx())
    expect(out.passes.map((p) => [p.from, p.upto])).toEqual([[0, 4]])
    expect(out.messages.map((m) => m.id)).toEqual(['summary:summarize:1', 'u4'])
    // Budget 250 reaches back to u2, a user message: the tail starts there.
    const wide = await summarize(chat(), { trigger_tokens: 400, keep_tokens: 250, tail_start: 'user_within' }, ctx())
    expect(wide.passes.map((p) => [p.from, p.upto])).toEqual([[0, 2]])
  })

  it('keep_share keeps a share of the context at the check', async () => {
    // At a3 the context is 400 tokens; 25% = 100 holds a3 only.
    const out = await summarize(chat(), { trigger_tokens: 400, keep_share: 0.25 }, ctx())
    expect(out.passes.map((p) => [p.from, p.upto])).toEqual([[0, 3]])
  })

  it('a tool call stays with its result whatever the budget', async () => {
    const messages = indexed([
      user('u0', 'a'.repeat(100)),
      assistant('a1', null, [{ id: 'c1', name: 'read' }]),
      toolResult('t2', 'c1', 'r'.repeat(100)),
      assistant('a3', 'd'.repeat(10)),
    ])
    // Budget 110 holds a3 (10) and t2 (100) but not a1: the result cannot lead the tail, so a1 stays too.
    const out = await summarize(messages, { trigger_tokens: 1, keep_tokens: 110 }, ctx())
    expect(out.messages.map((m) => m.id)).toEqual(['summary:summarize:1', 'a1', 't2', 'a3'])
  })
})

describe('summarize: checked before each request, every turn is logged', () => {
  it('a turn with no request in it (a reply straight after a reply) is checked at its end', async () => {
    const messages = indexed([
      user('u0', 'a'.repeat(10)),
      assistant('a1', 'b'.repeat(10)),
      assistant('a2', 'c'.repeat(10)),
      user('u3', 'd'.repeat(10)),
      assistant('a4', 'e'.repeat(10)),
    ])
    const out = await summarize(messages, { trigger_tokens: 1_000, check: 'request' }, ctx())
    // Requests follow u0 (turn 1) and u3 (turn 3); turn 2 is a2 alone.
    expect(out.decisions?.map((d) => [d.turn, d.atMessage])).toEqual([
      [1, 0],
      [2, 2],
      [3, 3],
    ])
  })
})

describe('summarize: keep_user_only (Codex local compaction)', () => {
  it('keeps real user messages newest first within keep_tokens, before the summary; the rest is summarized', async () => {
    const messages = indexed([
      user('u0', 'x'.repeat(30)),
      assistant('a1', 'y'.repeat(200)),
      user('u2', 'z'.repeat(40)),
      assistant('a3', 'w'.repeat(200)),
      user('u4', 'v'.repeat(50)),
    ])
    const out = await summarize(messages, { trigger_tokens: 500, keep_user_only: true, keep_tokens: 100, check: 'request' }, ctx())
    // Requests after u0 (30), u2 (270) and u4 (520 ≥ 500). Newest first: u4 50, u2 40 (90), u0 30 would make 120 > 100.
    expect(out.passes.map((p) => [p.atMessage, p.from, p.upto, p.kept])).toEqual([[4, 0, 5, [2, 4]]])
    expect(out.messages.map((m) => m.id)).toEqual(['u2', 'u4', 'summary:summarize:1'])
    expect(Object.keys(out.fates).sort()).toEqual(['a1', 'a3', 'u0'])
    expect(out.passes[0]?.tokensAfter).toBe(90 + HEADER_AND_S)
  })
})

describe('summarize: the replay stopped at turn N is the whole replay up to N', () => {
  const stepArb = fc.oneof(
    fc.record({ kind: fc.constantFrom('user' as const, 'assistant' as const), size: fc.integer({ min: 1, max: 60 }) }),
    fc.record({ kind: fc.constant('calls' as const), size: fc.integer({ min: 1, max: 120 }) }),
  )
  const build = (steps: readonly { kind: 'user' | 'assistant' | 'calls'; size: number }[]): Message[] =>
    indexed(
      steps.flatMap((s, i) =>
        s.kind === 'user'
          ? [user(`u${i}`, 'u'.repeat(s.size))]
          : s.kind === 'assistant'
            ? [assistant(`a${i}`, 'a'.repeat(s.size))]
            : [assistant(`a${i}`, null, [{ id: `c${i}`, name: 'read' }]), toolResult(`t${i}`, `c${i}`, 't'.repeat(s.size))],
      ),
    )

  it('with a token trigger checked before each request or after each turn, every prefix ending at a turn makes the whole run’s passes up to there', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(stepArb, { maxLength: 40 }),
        fc.constantFrom('request' as const, 'turn' as const),
        fc.integer({ min: 50, max: 600 }),
        fc.integer({ min: 0, max: 200 }),
        async (steps, check, trigger, keep) => {
          const messages = build(steps)
          const params = { trigger_tokens: trigger, keep_tokens: keep, check }
          const whole = await summarize(messages, params, ctx())
          for (const end of turnEnds(messages)) {
            const prefix = await summarize(messages.slice(0, end + 1), params, ctx())
            const expected = whole.passes.filter((p) => p.atMessage <= end).map((p) => [p.atMessage, p.from, p.upto])
            expect(prefix.passes.map((p) => [p.atMessage, p.from, p.upto])).toEqual(expected)
          }
        },
      ),
      { numRuns: 150, seed: 1702 },
    )
  })
})

describe('summarize: an unusable token param is an error, never a silent fallback to compact_after', () => {
  it.each([
    [{ trigger_share: 1.5 }, 'trigger_share must be a share of the window from 1% to 100% (0.01–1)'],
    [{ trigger_share: 0 }, 'trigger_share must be a share of the window from 1% to 100% (0.01–1)'],
    [{ trigger_tokens: -5 }, 'trigger_tokens must be a number of tokens, at least 1'],
    [{ keep_share: 2 }, 'keep_share must be a share of the context from 0% to 100% (0–1)'],
    [{ keep_tokens: -1 }, 'keep_tokens must be a number of tokens, 0 or more'],
  ])('%o', async (params, error) => {
    const out = await summarize(chat(), { keep_last: 1, compact_after: 1, ...params }, ctx())
    expect(out.changed).toBe(false)
    expect(out.error).toBe(error)
  })
})

describe('summarize: why a reached trigger made no pass', () => {
  it('the tail holds everything since the start, or cannot begin later', async () => {
    // Turn 1 ends at a1 (200 ≥ 150); keep_tokens 500 holds u0 and a1: everything fits.
    const fits = await summarize(chat().slice(0, 2), { trigger_tokens: 150, keep_tokens: 500 }, ctx())
    expect(fits.decisions?.[0]?.held).toBe('everything since the start fits the kept tail')
    // keep_tokens 100 starts the tail at a1, but tail_start user moves it back to u0, the start.
    const back = await summarize(chat().slice(0, 2), { trigger_tokens: 150, keep_tokens: 100, tail_start: 'user' }, ctx())
    expect(back.decisions?.[0]?.held).toBe(
      'the kept tail cannot begin after #0 (it begins at a user message, and a tool call stays with its results), so nothing since the start is left to summarize',
    )
  })
})
