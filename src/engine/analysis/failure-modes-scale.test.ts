/**
 * The fabricated-summary check finds which earlier summaries hold a fact in one scan per
 * summary; it must warn exactly as asking every earlier summary at every pass did (kept here
 * as the oracle), and stay linear over thousands of rolling passes.
 */
import { holdsFact } from '../facts/fact-index'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { checkFailureModes } from './failure-modes'
import { findFactSpans, messageFactText } from '../facts/patterns'
import type { FactRun } from '../facts/run-index'
import type { Message, Pass } from '../model'
import { assistant, indexed } from '../stages/test-helpers'

const CHECKED = new Set(['id', 'postal-code', 'url', 'email', 'file-path', 'date', 'money', 'quantity', 'duration', 'percentage', 'count', 'reference'])

/** The fabricated facts per pass as first written: sources rebuilt (and searched) per pass. */
function oracle(before: readonly Message[], passes: readonly Pass[]): string[] {
  const out: string[] = []
  passes.forEach((p, k) => {
    const covered = before.slice(Math.max(0, p.from), Math.max(0, p.upto))
    const sources = [p.prompt, ...passes.slice(0, k).map((x) => x.summary), ...covered.map(messageFactText)]
    for (const span of findFactSpans(p.summary)) {
      if (CHECKED.has(span.kind) && !sources.some((s) => holdsFact(s, span.fact))) out.push(`${p.pass}:${span.fact}`)
    }
  })
  return out
}

function runOf(texts: readonly string[], summaries: readonly string[], prompts: readonly string[]): FactRun {
  const before = indexed(texts.map((t, i) => assistant(`m${i}`, t)))
  const passes: Pass[] = summaries.map((summary, k) => ({
    pass: k + 1,
    stage: 'summarize',
    atMessage: k,
    from: k,
    upto: k + 1,
    prompt: prompts[k] ?? '',
    summary,
    summaryId: `summary:summarize:${k + 1}`,
    tokensBefore: 2,
    tokensAfter: 1,
  }))
  return { before: { messages: before }, after: { messages: [] }, fates: {}, origins: {}, passes } as unknown as FactRun
}

const fabricated = (run: FactRun) =>
  checkFailureModes(run)
    .filter((w) => w.rule === 'fabricated-summary')
    .map((w) => {
      const pass = /pass (\d+) states "([^"]*)"/.exec(w.message)
      return `${pass?.[1]}:${pass?.[2]}`
    })

const facts = ['ORD-1', 'ORD-12', 'INV-7', 'a/b.ts', '2025-01-02', '$5', 'x@y.io', 'plain']
const text = fc.array(fc.constantFrom(...facts), { maxLength: 4 }).map((a) => a.join(' '))

describe('fabricated summary: one scan per summary equals searching every earlier summary', () => {
  it('on random multi-pass runs (facts in prompts, earlier summaries, covered messages or nowhere)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 8 }).chain((n) =>
          fc.tuple(fc.array(text, { minLength: n, maxLength: n }), fc.array(text, { minLength: n, maxLength: n }), fc.array(text, { minLength: n, maxLength: n })),
        ),
        ([texts, summaries, prompts]) => {
          const run = runOf(texts, summaries, prompts)
          expect(fabricated(run)).toEqual(oracle(run.before.messages, run.passes))
        },
      ),
      { numRuns: 300 },
    )
  })

  it('20,000 passes each repeating the facts of the first message: no warning', () => {
    const n = 20_000
    const texts = Array.from({ length: n }, (_, i) => (i === 0 ? 'ORD-1 and a/b.ts' : 'ok'))
    const summaries = Array.from({ length: n }, () => 'ORD-1; a/b.ts')
    expect(fabricated(runOf(texts, summaries, []))).toEqual([])
  })
})
