/**
 * Invariants of the summarizing stages when their cuts are exercised (small keep_last /
 * compact_after, token triggers and budgets): no tool message ever opens the tail after a
 * summary; a tool result travels with its call however far apart they are (a long-running call);
 * re-compaction folds an earlier summary, never drops what it held; signed thinking blocks follow
 * Anthropic's rules. Exact examples worked out by hand from one token per word (`countWords`, no
 * per-message overhead) and a summarizer answering "S", then properties over generated
 * conversations.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { Message, Part } from '../model'
import { checkValidity } from '../analysis/checks'
import { extractiveSummarizer } from '../summarizers/extractive'
import { pairToolResults } from '../tool-pairs'
import { insertThenCompress } from './insert-then-compress'
import { STALE_THINKING_REASON } from './thinking'
import { buildPrompt, DEFAULT_RULES, summarize } from './summarize'
import { assistant, countWords, indexed, makeContext, toolResult, user } from './test-helpers'

const ctx = () => makeContext(countWords, { summarize: () => Promise.resolve('S') })
const words = (n: number, w = 'w') => Array.from({ length: n }, () => w).join(' ')
const ids = (ms: readonly Message[]) => ms.map((m) => m.id)

describe('a stray tool result never opens the tail after a summary', () => {
  it('a result after a turn end that answers no call keeps the reply before it in the tail', async () => {
    const messages = indexed([
      user('u0', words(20)),
      assistant('a1', 'done'),
      toolResult('t2', 'ghost', 'late'),
      user('u3', 'ok'),
      assistant('a4', 'fine'),
    ])
    // Check at a1: 21 ≥ 15, keep_tokens 0 puts the boundary after a1, on t2: it retreats to a1.
    // The summary "[Summary of messages 0–0 (pass 1)]\nS" is 7 words; then 7 + 4 = 11 < 15 at a4.
    const out = await summarize(messages, { trigger_tokens: 15, keep_tokens: 0 }, ctx())
    expect(out.passes.map((p) => [p.atMessage, p.from, p.upto])).toEqual([[1, 0, 1]])
    expect(ids(out.messages)).toEqual(['summary:summarize:1', 'a1', 't2', 'u3', 'a4'])
  })

  it('keep_user_only: the result after the last turn end is not left right after the summary', async () => {
    const messages = indexed([
      user('u0', words(20)),
      assistant('a1', 'done'),
      toolResult('t2', 'ghost', 'late'),
    ])
    // Check at a1 (21 ≥ 15): only user messages are kept (none fit 0 tokens); the boundary after
    // a1 lands on t2 and retreats to a1. At t2 (the end): 7 + 1 + 1 = 9 < 15.
    const out = await summarize(messages, { trigger_tokens: 15, keep_tokens: 0, keep_user_only: true }, ctx())
    expect(ids(out.messages)).toEqual(['summary:summarize:1', 'a1', 't2'])
  })
})

describe('re-compaction folds an earlier summary, never drops what it held', () => {
  it('an earlier summary in the slice goes whole under the fold heading of the prompt, not cut as one more line', async () => {
    const held = `Order A-1 ships to 94107. ${words(1200, 'fact')}`
    const earlier: Message = { ...user('s0', held), flags: { compactSummary: true } }
    const prompts: { prompt: string; slice: string[]; previous?: string }[] = []
    const context = makeContext(countWords, {
      summarize: (r) => {
        prompts.push({ prompt: r.prompt, slice: ids(r.slice), ...(r.previous !== undefined ? { previous: r.previous } : {}) })
        return Promise.resolve('S')
      },
    })
    const messages = indexed([earlier, user('u1', 'next'), assistant('a2', 'sure'), user('u3', 'go')])
    await summarize(messages, { keep_last: 1, compact_after: 2 }, context)
    // Turn end a2: 3 > 2 messages; keep_last 1 keeps a2, so s0 and u1 are summarized.
    expect(prompts).toHaveLength(1)
    expect(prompts[0]?.prompt).toBe(
      buildPrompt(['[1] user: next'], held, DEFAULT_RULES),
    )
    // The summarizer still receives the earlier summary message (the extractive one folds it).
    expect(prompts[0]?.slice).toEqual(['s0', 'u1'])
  })
})

const signed = (text: string): Part => ({ type: 'thinking', variant: 'thinking', text, signature: `sig-${text}` })
const withParts = (m: Message, parts: Part[]): Message => ({ ...m, content: parts })

describe('signed thinking blocks follow Anthropic’s rules after a summary', () => {
  const conversation = () =>
    indexed([
      user('u0', 'q0'),
      withParts(assistant('a1', null), [signed('plan one'), { type: 'text', text: 'one' }]),
      user('u2', 'q2'),
      withParts(assistant('a3', null, [{ id: 'c1', name: 'read' }]), [signed('plan three')]),
      toolResult('t4', 'c1', 'r'),
      assistant('a5', 'done'),
    ])

  it('summarize: a kept earlier turn loses its block whole; the current tool loop keeps its block byte-identical', async () => {
    const messages = conversation()
    // Turn end a5: 6 > 5 → upto 6 − 5 = 1: u0 is summarized; a1 precedes the latest user message u2.
    const out = await summarize(messages, { keep_last: 5, compact_after: 5 }, ctx())
    expect(ids(out.messages)).toEqual(['summary:summarize:1', 'a1', 'u2', 'a3', 't4', 'a5'])
    expect(out.messages[1]?.content).toBe('one')
    expect(out.messages[3]).toBe(messages[3])
    expect(out.origins.a1).toEqual({ kind: 'original', beforeId: 'a1', changed: true })
    expect(out.warnings).toContain(
      "signed thinking blocks of message(s) a1 were dropped whole: they precede the latest user message after a message the compaction changed (Anthropic keeps only the current turn's thinking; a summary, placeholder or other edit changes the prefix earlier blocks were signed with)",
    )
    expect(checkValidity(out.messages, { provider: 'anthropic' })).toEqual([])
  })

  it('the checker reports a block kept there (stale-thinking, Anthropic only)', () => {
    const messages = conversation()
    const summary: Message = { ...user('summary:summarize:1', 'S'), index: 0 }
    const after = [summary, ...messages.slice(1)]
    expect(checkValidity(after, { provider: 'anthropic' }).map((p) => [p.rule, p.messageIds])).toEqual([
      ['stale-thinking', ['a1', 'summary:summarize:1']],
    ])
    expect(checkValidity(after, { provider: 'openai' })).toEqual([])
    // Without a summary a stage wrote, earlier turns' blocks are the input's own: nothing to report.
    expect(checkValidity(messages, { provider: 'anthropic' })).toEqual([])
  })

  it('a message holding nothing but such a block is dropped; an unsigned block is left alone', async () => {
    const messages = indexed([
      user('u0', 'q0'),
      withParts(assistant('a1', null), [{ type: 'thinking', variant: 'redacted_thinking', encrypted: 'xyz' }]),
      withParts(assistant('a2', null), [{ type: 'thinking', variant: 'thinking', text: 'unsigned' }, { type: 'text', text: 'two' }]),
      user('u3', 'q3'),
      assistant('a4', 'done'),
    ])
    // Turn end a1 (k=1): 2 ≤ 4. a2 (k=2): 3 ≤ 4. a4: 5 > 4 → upto 5 − 4 = 1.
    const out = await summarize(messages, { keep_last: 4, compact_after: 4 }, ctx())
    expect(ids(out.messages)).toEqual(['summary:summarize:1', 'a2', 'u3', 'a4'])
    expect(out.fates.a1).toEqual({ kind: 'dropped', stage: 'summarize', reason: STALE_THINKING_REASON })
    expect(out.messages[1]).toBe(messages[2])
  })

  it('insert-then-compress applies the same rule to its recent messages', async () => {
    const messages = conversation().map((m) => (m.id === 'u0' ? { ...m, content: words(10) } : m))
    // 21 words > 1; keep_recent 5 → recent a1…a5, compressed u0 (10 words → the summary "S").
    const out = await insertThenCompress(messages, { threshold_tokens: 1, keep_recent: 5 }, ctx())
    expect(ids(out.messages)).toEqual(['summary:insert-then-compress:1', 'a1', 'u2', 'a3', 't4', 'a5'])
    expect(out.messages[1]?.content).toBe('one')
    expect(out.messages[3]).toBe(messages[3])
  })

  // Words: u0 1, a1 3 ("plan one" + "one"), u2 1, a3 4 ("plan three", read, {}), t4 1, a5 1;
  // a summary "[Summary of messages 0–0 (pass 1)]\nS" is 7, "S" alone 1. A block dropped from a1
  // takes 2 words out of the context the pass leaves.
  it('summarize: the pass records the tokens of the context it leaves, the dropped block not counted', async () => {
    const out = await summarize(conversation(), { keep_last: 5, compact_after: 5 }, ctx())
    // Before: 11. After: summary 7 + a1 1 + u2 1 + a3 4 + t4 1 + a5 1 = 15 (17 with the block).
    expect(out.passes.map((p) => [p.tokensBefore, p.tokensAfter])).toEqual([[11, 15]])
    expect(out.decisions?.filter((d) => d.fired).map((d) => d.tokensAfter)).toEqual([15])
    expect(out.messages.reduce((n, m) => n + ctx().countMessage(m), 0)).toBe(15)
  })

  it('summarize: a later pass starts from the context the earlier one left', async () => {
    const messages = indexed([
      user('u0', 'q0'),
      withParts(assistant('a1', null), [signed('plan one'), { type: 'text', text: 'one' }]),
      user('u2', 'q2'),
      assistant('a3', 'three'),
      user('u4', 'q4'),
      assistant('a5', 'five'),
    ])
    // Turn end a3: 4 > 3 → upto 1 (u0); the context [summary 7, a1, u2, a3] drops a1's block:
    // 7 + 1 + 1 + 1 = 10. Turn end a5: 10 + u4 1 + a5 1 = 12 before pass 2 (a1 is still
    // without its block), 5 > 3 → upto 3 (a1, u2): "[Summary of messages 0–2 (pass 2)]\nS" 7 +
    // a3 1 + u4 1 + a5 1 = 10.
    const out = await summarize(messages, { keep_last: 3, compact_after: 3 }, ctx())
    expect(out.passes.map((p) => [p.tokensBefore, p.tokensAfter])).toEqual([[6, 10], [12, 10]])
    expect(out.passes[0]?.grew).toBe(
      "the summary (7 tokens) is larger than the 3 tokens it replaced (2 of them signed thinking blocks the provider's rules drop); seed 001 makes every pass its plan makes (refuse_larger refuses such a pass)",
    )
    expect(out.passes[1]?.grew).toBeUndefined()
  })

  it('insert-then-compress: the pass records the tokens of the context it leaves, the dropped block not counted', async () => {
    const messages = conversation().map((m) => (m.id === 'u0' ? { ...m, content: words(10) } : m))
    const out = await insertThenCompress(messages, { threshold_tokens: 1, keep_recent: 5 }, ctx())
    // Before: 10 + 3 + 1 + 4 + 1 + 1 = 20. After: "S" 1 + a1 1 + u2 1 + a3 4 + t4 1 + a5 1 = 9.
    expect(out.passes.map((p) => [p.tokensBefore, p.tokensAfter])).toEqual([[20, 9]])
    expect(out.decisions?.at(-1)?.tokensAfter).toBe(9)
  })
})

describe('a long-running call and its late result travel together', () => {
  const longRunning = () =>
    indexed([
      user('u0', 'start'),
      assistant('a1', null, [{ id: 'bg1', name: 'background_build' }]),
      user('u2', 'meanwhile'),
      assistant('a3', 'working'),
      user('u4', 'status?'),
      assistant('a5', 'soon'),
      toolResult('t6', 'bg1', 'built'),
      assistant('a7', 'done'),
    ])

  it('while the result is pending, or lands in the kept tail, the call stays verbatim before it', async () => {
    // a3: 4 > 3, upto 4 − 2 = 2, but bg1 is pending in the prefix → back to 1 (u0 alone).
    // a5: upto 4 would split bg1 from its result (still to come) → no pass. a7: upto 6 is t6 → 5,
    // and bg1 answered at 6 ≥ 5 keeps pulling it back to 1 → no pass.
    const out = await summarize(longRunning(), { keep_last: 2, compact_after: 3 }, ctx())
    expect(out.passes.map((p) => [p.atMessage, p.from, p.upto])).toEqual([[3, 0, 1]])
    expect(ids(out.messages)).toEqual(['summary:summarize:1', 'a1', 'u2', 'a3', 'u4', 'a5', 't6', 'a7'])
  })

  it('once the result is in the summarized span, call and result are folded together', async () => {
    // a3 and a5 as above (keep_last 1 moves nothing past the pending call); a7: upto 7, bg1's reach 6 < 7.
    const out = await summarize(longRunning(), { keep_last: 1, compact_after: 3 }, ctx())
    expect(out.passes.map((p) => [p.atMessage, p.from, p.upto])).toEqual([
      [3, 0, 1],
      [7, 1, 7],
    ])
    expect(ids(out.messages)).toEqual(['summary:summarize:2', 'a7'])
  })
})

/** A step of a generated conversation. */
interface Step {
  kind: 'user' | 'reply' | 'pair' | 'call' | 'late' | 'stray' | 'no-id' | 'think'
  n: number
  /** `think`: the reply makes a tool call (answered right after). */
  calls?: boolean
}

const stepArb: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ kind: fc.constantFrom('user', 'reply', 'pair', 'call', 'late', 'stray', 'no-id'), n: fc.nat(30) }),
  fc.record({ kind: fc.constant('think'), n: fc.nat(30), calls: fc.boolean() }),
) as fc.Arbitrary<Step>

/** Lines an earlier summary holds: a stated value, a commitment, an open item, a decision. */
const HELD = [
  'Order A-7731 ships to postal code 94107.',
  'I promised a refund of $12.40 by Friday.',
  'TODO: confirm the new address.',
  'We decided to use UPS ground.',
]

/**
 * A conversation with every cut the invariants guard: calls answered at once or several messages
 * later (long-running, `late` answers the oldest open one), results answering no call (`stray`,
 * `no-id`), signed thinking in replies and tool calls, and optionally an earlier recorded summary.
 */
function build(steps: readonly Step[], earlier: boolean): Message[] {
  const out: Message[] = []
  const open: string[] = []
  let call = 0
  if (earlier) out.push({ ...user('s', `[summary]\n${HELD.join('\n')}`), flags: { compactSummary: true } })
  for (const s of steps) {
    const text = words(1 + (s.n % 7), `w${s.n}`)
    if (s.kind === 'user') out.push(user('', text))
    else if (s.kind === 'reply') out.push(assistant('', text))
    else if (s.kind === 'pair') {
      const id = `c${call++}`
      out.push(assistant('', null, [{ id, name: 'read' }]), toolResult('', id, text))
    } else if (s.kind === 'call') {
      const id = `c${call++}`
      open.push(id)
      out.push(assistant('', null, [{ id, name: 'background' }]))
    } else if (s.kind === 'late') {
      const id = open.shift()
      if (id) out.push(toolResult('', id, text))
    } else if (s.kind === 'stray') out.push(toolResult('', `ghost${s.n}`, text))
    else if (s.kind === 'no-id') out.push({ ...toolResult('', '', text), toolCallId: undefined } as Message)
    else {
      const id = `c${call++}`
      const m = withParts(assistant('', null, s.calls ? [{ id, name: 'read' }] : undefined), [signed(`t${s.n}`), { type: 'text', text }])
      out.push(m)
      if (s.calls) out.push(toolResult('', id, text))
    }
  }
  return indexed(out).map((m, i) => ({ ...m, id: m.id === 's' ? 's' : `m${i}` }))
}

const paramsArb = fc.oneof(
  fc.record({ keep_last: fc.integer({ min: 1, max: 4 }), compact_after: fc.integer({ min: 1, max: 5 }) }),
  fc.record({
    trigger_tokens: fc.integer({ min: 1, max: 40 }),
    keep_tokens: fc.integer({ min: 0, max: 15 }),
    tail_start: fc.constantFrom('any', 'user', 'user_within'),
    check: fc.constantFrom('turn', 'request'),
  }),
  fc.record({ trigger_tokens: fc.integer({ min: 1, max: 40 }), keep_tokens: fc.integer({ min: 0, max: 15 }), keep_user_only: fc.constant(true) }),
)

const problemKeys = (ms: readonly Message[], rules: readonly string[]) =>
  new Set(checkValidity(ms, { provider: 'anthropic' }).filter((p) => rules.includes(p.rule)).map((p) => `${p.rule}:${p.messageIds.join(',')}`))

/** The invariants of one run's context against its input (see the file header). */
function expectInvariants(before: readonly Message[], after: readonly Message[]): void {
  const kept = new Set(ids(after))
  // 1. No tool message right after a summary.
  after.forEach((m, i) => {
    if (m.id.startsWith('summary:')) expect(after[i + 1]?.role).not.toBe('tool')
  })
  // 3. A result and its call (however far apart) are kept together or gone together.
  const pairs = pairToolResults(before)
  before.forEach((m, i) => {
    const ref = pairs.callOf[i]
    if (ref) expect(kept.has(m.id)).toBe(kept.has(before[ref.message]!.id))
  })
  // No new orphan or unanswered call; no stale thinking.
  const rules = ['orphan-tool-result', 'missing-tool-result']
  const had = problemKeys(before, rules)
  expect([...problemKeys(after, rules)].filter((k) => !had.has(k))).toEqual([])
  expect(checkValidity(after, { provider: 'anthropic' }).filter((p) => p.rule === 'stale-thinking')).toEqual([])
  // 4. The current turn (after the latest user message) is kept byte-identical, thinking included.
  let latestUser = after.length - 1
  while (latestUser >= 0 && after[latestUser]!.role !== 'user') latestUser--
  const byId = new Map(before.map((m) => [m.id, m]))
  for (const m of after.slice(latestUser + 1)) if (byId.has(m.id)) expect(m).toBe(byId.get(m.id))
}

describe('the invariants hold over generated conversations with the cuts exercised', () => {
  it('summarize, any trigger and tail rule', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(stepArb, { minLength: 1, maxLength: 16 }), fc.boolean(), paramsArb, async (steps, earlier, params) => {
        const before = build(steps, earlier)
        const out = await summarize(before, params, ctx())
        expectInvariants(before, out.messages)
      }),
      { numRuns: 400, seed: 3131 },
    )
  })

  it('insert-then-compress, any threshold and keep_recent', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(stepArb, { minLength: 1, maxLength: 16 }),
        fc.integer({ min: 1, max: 40 }),
        fc.integer({ min: 0, max: 5 }),
        async (steps, threshold, keep) => {
          const before = build(steps, false)
          const out = await insertThenCompress(before, { threshold_tokens: threshold, keep_recent: keep }, ctx())
          expectInvariants(before, out.messages)
        },
      ),
      { numRuns: 300, seed: 3132 },
    )
  })

  it('re-compaction with the offline summarizer: every line the earlier summary held is in the new one', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(stepArb, { minLength: 1, maxLength: 16 }), paramsArb, async (steps, params) => {
        const before = build(steps, true)
        const out = await summarize(before, params, makeContext(countWords, { summarize: extractiveSummarizer }))
        expectInvariants(before, out.messages)
        if (out.messages.some((m) => m.id === 's')) return
        const summary = out.messages.find((m) => m.id.startsWith('summary:'))
        for (const line of HELD) expect(String(summary?.content)).toContain(line)
      }),
      { numRuns: 300, seed: 3133 },
    )
  })
})
