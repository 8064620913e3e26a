/**
 * Seed 001, exact: with the seed preset's summarize params, the rolling replay makes every pass
 * seed 001's `plan` makes, and no other. The expected passes come from a plain transcription of
 * the seed's arithmetic written here (`seedPasses`), run post-turn as the seed's Executor does;
 * the transcripts are random conversations whose tool results follow their calls (the shape the
 * seed's "eviction unit" assumes).
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { Message, SummarizeParams } from '../model'
import { presetById } from '../presets'
import { summarize } from './summarize'
import { assistant, countCodePoints, deepFreeze, indexed, makeContext, system, toolResult, user } from './test-helpers'

/** Seed 001 `positive`: `value.to_i`, kept when positive, else the default. */
function positive(value: unknown, fallback: number): number {
  const n = typeof value === 'number' && Number.isFinite(value) ? Math.trunc(value) : 0
  return n > 0 ? n : fallback
}

/**
 * Seed 001 `plan` called after every turn (the Executor's post-turn trigger) over the session
 * transcript as it grew, with `state.upto` carried from pass to pass. Positions are in the
 * transcript without its leading system message.
 */
function seedPasses(messages: readonly Message[], config: { keep_last?: unknown; compact_after?: unknown }) {
  const passes: { from: number; upto: number; at: number }[] = []
  let state: { upto: number } | null = null
  const keepLast = positive(config.keep_last, 20)
  let compactAfter = positive(config.compact_after, 40)
  if (compactAfter < keepLast) compactAfter = keepLast
  for (let k = 0; k < messages.length; k++) {
    const m = messages[k]!
    const turnEnd = (m.role === 'assistant' && !(m.toolCalls?.length ?? 0)) || k === messages.length - 1
    if (!turnEnd) continue
    const msgs = messages.slice(0, k + 1)
    const from: number = state ? state.upto : 0
    if (!(msgs.length - from > compactAfter)) continue
    let upto = msgs.length - keepLast
    while (upto > from && msgs[upto]?.role === 'tool') upto -= 1
    if (!(upto > from)) continue
    passes.push({ from, upto, at: k })
    state = { upto }
  }
  return passes
}

type Step = { kind: 'user' | 'assistant'; size: number } | { kind: 'calls'; calls: number; size: number }

const stepArb: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ kind: fc.constantFrom('user' as const, 'assistant' as const), size: fc.integer({ min: 1, max: 40 }) }),
  fc.record({ kind: fc.constant('calls' as const), calls: fc.integer({ min: 1, max: 3 }), size: fc.integer({ min: 1, max: 80 }) }),
)

/** A system message, then the steps; every tool call is answered right after it; optionally one pending call at the end. */
function build(steps: readonly Step[], pendingAtEnd: boolean): Message[] {
  const out: Message[] = [system('sys', 'Be brief.')]
  steps.forEach((s, i) => {
    if (s.kind === 'user') out.push(user(`u${i}`, 'u'.repeat(s.size)))
    else if (s.kind === 'assistant') out.push(assistant(`a${i}`, 'a'.repeat(s.size)))
    else if ('calls' in s) {
      const calls = Array.from({ length: s.calls }, (_, c) => ({ id: `c${i}_${c}`, name: 'read' }))
      out.push(assistant(`a${i}`, null, calls))
      for (const c of calls) out.push(toolResult(`t${c.id}`, c.id, 't'.repeat(s.size)))
    }
  })
  if (pendingAtEnd) out.push(assistant('pending', null, [{ id: 'p', name: 'edit' }]))
  return indexed(out)
}

const seedParams = () => {
  const stage = presetById('seed-defaults')!.stages.find((s) => s.id === 'summarize')!
  return stage.params as Partial<SummarizeParams>
}

describe('summarize with the seed preset is seed 001 exactly', () => {
  it('the seed preset sets no token trigger, tail budget, request check or guard', () => {
    expect(seedParams()).toEqual({ keep_last: 20, compact_after: 40 })
  })

  it('makes exactly the passes of seed 001 plan, post-turn, on random transcripts', async () => {
    let fired = 0
    let onePassMessage = 0
    await fc.assert(
      fc.asyncProperty(
        fc.array(stepArb, { maxLength: 50 }),
        fc.boolean(),
        fc.integer({ min: -2, max: 8 }),
        fc.integer({ min: -2, max: 14 }),
        async (steps, pending, keepLast, compactAfter) => {
          const input = deepFreeze(build(steps, pending))
          const params = { ...seedParams(), keep_last: keepLast, compact_after: compactAfter }
          // The summary is tiny and any length is accepted: the seed has no refusal of its own.
          const ctx = makeContext(countCodePoints, { summarize: () => Promise.resolve('S') })
          const out = await summarize(input, params, ctx)
          expect(out.error).toBeUndefined()
          const conv = input.slice(1)
          const expected = seedPasses(conv, params)
          // Pass boundaries are Message.index values: conv position + 1 (the system message is #0).
          expect(out.passes.map((p) => ({ from: p.from - 1, upto: p.upto - 1, at: p.atMessage - 1 }))).toEqual(expected)
          expect(out.passes.every((p) => p.note === undefined)).toBe(true)
          // Every fired decision is one of those passes, in order.
          expect((out.decisions ?? []).filter((d) => d.fired).map((d) => d.atMessage - 1)).toEqual(expected.map((p) => p.at))
          fired += expected.length > 0 ? 1 : 0
          onePassMessage += expected.some((p) => p.upto - p.from === 1) ? 1 : 0
        },
      ),
      { numRuns: 400, seed: 1701 },
    )
    // The generator reaches the cases that matter: passes fire, and some plans cover one message.
    expect(fired).toBeGreaterThan(100)
    expect(onePassMessage).toBeGreaterThan(5)
  })

  it('a plan that covers one message with no previous summary is a pass (seed 001), skipped only with min_progress', async () => {
    const messages = indexed([user('u', 'Investigate the build.'), assistant('a', 'Profiling.')])
    const ctx = makeContext(countCodePoints, { summarize: () => Promise.resolve('S') })
    const seed = await summarize(messages, { keep_last: 1, compact_after: 1 }, ctx)
    // seed plan: 2 − 0 > 1 → upto = 2 − 1 = 1 > 0: one message, pass 1.
    expect(seed.passes.map((p) => [p.from, p.upto])).toEqual([[0, 1]])
    expect(seed.messages.map((m) => m.id)).toEqual(['summary:summarize:1', 'a'])
    const guarded = await summarize(messages, { keep_last: 1, compact_after: 1, min_progress: true }, ctx)
    expect(guarded.passes).toEqual([])
    expect(guarded.decisions?.[0]?.held).toBe('min_progress guard: the pass would replace one message with one summary')
  })
})
