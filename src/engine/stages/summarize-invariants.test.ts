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
import type { Message } from '../model'
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
