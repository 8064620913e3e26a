/**
 * Params that replace others never leak defaults: for every param the definitions declare as
 * replaced by another (`replacedBy`), once the replacing one is set and in use the replaced one
 * has no effect at all — not even through another param's `atLeast` — and `unusedParam` (the
 * page's greyed control, the CLI's "not used" warning) says so exactly when it has none.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { Message } from '../model'
import { STAGE_DEFINITIONS, type StageParamDef } from './definitions'
import { readCounts, replacingParam } from './params'
import { summarize } from './summarize'
import { assistant, countWords, indexed, makeContext, toolResult, user } from './test-helpers'
import { unusedParam } from './triggers'

/** A chat of `turns` turns, some with a tool step, so tails and triggers land at varied places. */
function chat(turns: readonly { step: boolean; words: number }[]): Message[] {
  const out: Message[] = []
  turns.forEach((t, i) => {
    out.push(user(`u${i}`, `request ${i} ` + 'word '.repeat(t.words)))
    if (t.step) {
      out.push(assistant(`c${i}`, null, [{ id: `call${i}`, name: 'read' }]))
      out.push(toolResult(`t${i}`, `call${i}`, 'line '.repeat(t.words * 3), 'read'))
    }
    out.push(assistant(`a${i}`, `reply ${i} ` + 'word '.repeat(t.words)))
  })
  return indexed(out)
}
const chatArb = fc
  .array(fc.record({ step: fc.boolean(), words: fc.integer({ min: 1, max: 30 }) }), { minLength: 1, maxLength: 10 })
  .map(chat)

/** A summary naming the messages it covers, so two runs differ whenever their slices do. */
const ctx = makeContext(countWords, {
  summarize: (req) => Promise.resolve(`covers ${req.slice.map((m) => m.index).join(',')}`),
})

const summarizeDefs = STAGE_DEFINITIONS.find((d) => d.id === 'summarize')!.params as readonly StageParamDef[]
const def = (key: string) => summarizeDefs.find((p) => p.key === key)!

/** Random values of summarize's trigger and tail params, each present or absent on its own (a random subset of keys). */
const paramsArb = fc
  .tuple(
    fc.record({
      keep_last: fc.integer({ min: 1, max: 8 }),
      compact_after: fc.integer({ min: 1, max: 10 }),
      trigger_tokens: fc.integer({ min: 1, max: 400 }),
      trigger_share: fc.double({ min: 0.01, max: 1, noNaN: true }),
      trigger_reserve: fc.integer({ min: 0, max: 400 }),
      keep_tokens: fc.integer({ min: 0, max: 300 }),
      keep_share: fc.double({ min: 0, max: 1, noNaN: true }),
      keep_user_only: fc.boolean(),
      tail_start: fc.constantFrom('any', 'user', 'user_within'),
      check: fc.constantFrom('turn', 'request'),
    }),
    fc.func(fc.boolean()),
  )
  .map(([all, present]) =>
    Object.fromEntries(Object.entries(all).filter(([k]) => present(k))) as Partial<typeof all>,
  )

/** Another usable value of a count param (or the other flag value). */
function otherValue(key: string, value: unknown): unknown {
  const d = def(key)
  if (d.type === 'flag') return value !== true
  if (d.fraction) return typeof value === 'number' && value > 0.5 ? 0.05 : 0.95
  return typeof value === 'number' && value > 3 ? 1 : 7
}

const run = (messages: Message[], params: Record<string, unknown>) =>
  summarize(messages, params, { ...ctx, window: 1_000 })

describe('a replaced param has no effect', () => {
  it('the definitions declare the replacements of the trigger and the kept tail', () => {
    const replaced = summarizeDefs.filter((p) => p.replacedBy).map((p) => [p.key, p.replacedBy])
    expect(replaced).toEqual([
      ['keep_last', ['keep_user_only', 'keep_share', 'keep_tokens']],
      ['compact_after', ['trigger_tokens', 'trigger_share', 'trigger_reserve']],
      ['trigger_share', ['trigger_tokens']],
      ['trigger_reserve', ['trigger_tokens']],
      ['keep_tokens', ['keep_share']],
      ['keep_share', ['keep_user_only']],
    ])
  })

  it('keep_tokens set: compact_after is not raised to keep_last (default or given)', () => {
    // The kept tail is a token budget, so keep_last is not used: its default must not leak.
    expect(readCounts('summarize', { keep_tokens: 100, compact_after: 3 }).values.compact_after).toBe(3)
    expect(readCounts('summarize', { keep_tokens: 100, compact_after: 3, keep_last: 1 }).values.compact_after).toBe(3)
    // Without a tail budget seed 001's clamp holds: compact_after < keep_last is raised to it.
    expect(readCounts('summarize', { compact_after: 3 }).values.compact_after).toBe(20)
    expect(replacingParam('summarize', 'keep_last', { keep_tokens: 100 })).toBe('keep_tokens')
    expect(replacingParam('summarize', 'keep_last', { keep_tokens: -1 })).toBeUndefined()
    expect(replacingParam('summarize', 'keep_tokens', { keep_tokens: 5, keep_share: 0.5, keep_user_only: true })).toBeUndefined()
  })

  it('keep_tokens set: --keep-last 1 gives the same result as keep_last absent (passes and messages)', async () => {
    const messages = chat(Array.from({ length: 8 }, (_, i) => ({ step: i % 2 === 0, words: 5 })))
    const without = await run(messages, { keep_tokens: 20, compact_after: 3 })
    const withKeepLast = await run(messages, { keep_tokens: 20, compact_after: 3, keep_last: 1 })
    expect(without.changed).toBe(true)
    // compact_after 3 itself: the first turn ends at #3 (a user request, a tool step, a reply)
    // with 4 messages unsummarized, more than 3, so the first pass fires there.
    expect(without.passes[0]?.atMessage).toBe(3)
    expect(withKeepLast.messages).toEqual(without.messages)
    expect(withKeepLast.passes).toEqual(without.passes)
    expect(withKeepLast.decisions).toEqual(without.decisions)
  })

  it('for every declared replacement: changing the replaced param never changes the result', async () => {
    const replaced = summarizeDefs.filter((p) => p.replacedBy)
    await fc.assert(
      fc.asyncProperty(chatArb, paramsArb, fc.nat(replaced.length - 1), async (messages, params, pick) => {
        const key = replaced[pick]!.key
        if (replacingParam('summarize', key, params) === undefined) return
        const base = await run(messages, params)
        for (const value of [undefined, otherValue(key, params[key as keyof typeof params])]) {
          const changed: Record<string, unknown> = { ...params }
          if (value === undefined) delete changed[key]
          else changed[key] = value
          const other = await run(messages, changed)
          expect(other.messages).toEqual(base.messages)
          expect(other.passes).toEqual(base.passes)
          expect(other.decisions).toEqual(base.decisions)
          expect(other.error).toEqual(base.error)
        }
      }),
      { numRuns: 300 },
    )
  }, 60_000)

  it('"not used" is said of a param exactly when it is replaced', () => {
    fc.assert(
      fc.property(paramsArb, (params) => {
        for (const p of summarizeDefs) {
          const why = unusedParam('summarize', p.key, params)
          expect(why !== undefined).toBe(replacingParam('summarize', p.key, params) !== undefined)
        }
      }),
      { numRuns: 300 },
    )
  })
})
