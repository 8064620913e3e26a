/**
 * Invariants of the summarizing stages when their cuts are exercised (small keep_last /
 * compact_after, token triggers and budgets): no tool message ever opens the tail after a
 * summary; a tool result travels with its call however far apart they are (a long-running call);
 * re-compaction folds an earlier summary, never drops what it held; signed thinking blocks follow
 * Anthropic's rules. Exact examples worked out by hand from one token per word (`countWords`, no
 * per-message overhead) and a summarizer answering "S", then properties over generated
 * conversations.
 */
import { describe, expect, it } from 'vitest'
import type { Message, Part } from '../model'
import { checkValidity } from '../analysis/checks'
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
      "signed thinking blocks of message(s) a1 were dropped whole: they precede the latest user message after a summary (Anthropic keeps only the current turn's thinking; a summary changes the prefix earlier blocks were signed with)",
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
})
