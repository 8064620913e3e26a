import { describe, expect, it } from 'vitest'
import { findFact } from './finder'
import type { FactRun } from './run-index'
import { factTable } from './table'
import type { Message, Pass } from '../model'
import { assistant, indexed, toolResult, user } from '../stages/test-helpers'

const totals = { messages: 0, tokens: 0, overheadTokens: 0 }
const side = (messages: Message[]) => ({ messages, totals, tokensById: {} })

function pass(n: number, from: number, upto: number, atMessage: number, summary: string): Pass {
  return {
    pass: n,
    stage: 'summarize',
    atMessage,
    from,
    upto,
    prompt: '',
    summary,
    summaryId: `summary:summarize:${n}`,
    tokensBefore: 0,
    tokensAfter: 0,
  }
}

describe('findFact: verdicts from provenance', () => {
  // Before: u0 states the order; t2 a tool result with the postal code, pruned; t4 its
  // duplicate, back-referenced to t2; u5 the deadline, folded by pass 1 (kept) then pass 2 (dropped).
  const before = indexed([
    user('u0', 'Order ORD-58213, deadline 2025-06-27.'),
    assistant('a1', null, [{ id: 'c1', name: 'lookup', arguments: '{}' }]),
    toolResult('t2', 'c1', 'postal code 94107', 'lookup'),
    assistant('a3', null, [{ id: 'c2', name: 'lookup', arguments: '{}' }]),
    toolResult('t4', 'c2', 'postal code 94107', 'lookup'),
    assistant('a5', 'Done.'),
    user('u6', 'Thanks, ship ORD-58213.'),
  ])
  const summary2 = 'Order ORD-58213 discussed.'
  const run: FactRun = {
    before: side(before),
    after: side([
      { id: 'summary:summarize:2', index: 0, role: 'user', content: summary2, source: { format: 'canonical' } },
      before[6] as Message,
    ]),
    fates: {
      u0: { kind: 'summarized', stage: 'summarize', pass: 1, summaryId: 'summary:summarize:2' },
      a1: { kind: 'summarized', stage: 'summarize', pass: 1, summaryId: 'summary:summarize:2' },
      t2: { kind: 'summarized', stage: 'summarize', pass: 2, summaryId: 'summary:summarize:2' },
      a3: { kind: 'summarized', stage: 'summarize', pass: 2, summaryId: 'summary:summarize:2' },
      t4: { kind: 'summarized', stage: 'summarize', pass: 2, summaryId: 'summary:summarize:2' },
      a5: { kind: 'summarized', stage: 'summarize', pass: 2, summaryId: 'summary:summarize:2' },
      u6: { kind: 'kept', changed: false },
    },
    origins: {
      'summary:summarize:2': {
        kind: 'summary',
        stage: 'summarize',
        pass: 2,
        fromIndex: 0,
        toIndex: 5,
        coveredIds: ['u0', 'a1', 't2', 'a3', 't4', 'a5'],
      },
      u6: { kind: 'original', beforeId: 'u6', changed: false },
    },
    passes: [
      pass(1, 0, 2, 2, 'Order ORD-58213, deadline 2025-06-27.'),
      pass(2, 2, 6, 5, summary2),
    ],
    stages: [
      { stage: 'summarize', changed: true, tokensBefore: 0, tokensAfter: 0, messagesBefore: 7, messagesAfter: 2 },
    ],
  }

  it('survives verbatim (kept tail first) and in the summary', () => {
    const v = findFact(run, 'ORD-58213')
    expect(v.verdict).toBe('survives')
    expect(v.beforeIds).toEqual(['u0', 'u6'])
    expect(v.where).toEqual([
      { id: 'u6', as: 'verbatim' },
      { id: 'summary:summarize:2', as: 'summary' },
    ])
  })

  it('lost by double compression: kept by pass 1, dropped by pass 2 (which replaced it)', () => {
    const v = findFact(run, '2025-06-27')
    expect(v.verdict).toBe('lost')
    expect(v.lost).toEqual({
      beforeId: 'u0',
      stage: 'summarize',
      pass: 2,
      replacedBy: { kind: 'summary', summaryId: 'summary:summarize:2', text: summary2 },
    })
    expect(v.explanation).toBe('lost in pass 2 of summarize — replaced by the summary of messages 2–5')
  })

  it('lost: the last of several copies names the latest pass; a RegExp query works', () => {
    const v = findFact(run, /postal code \d{5}/)
    expect(v.verdict).toBe('lost')
    expect(v.beforeIds).toEqual(['t2', 't4'])
    expect(v.events?.map((e) => e.beforeId)).toEqual(['t2', 't4'])
    expect(v.lost?.pass).toBe(2)
  })

  it('never present', () => {
    expect(findFact(run, 'INV-9').verdict).toBe('never-present')
  })

  it('placeholder and back-reference whose target was evicted', () => {
    const b = indexed([
      user('u0', 'go'),
      assistant('a1', null, [{ id: 'c1', name: 'read', arguments: '{}' }]),
      toolResult('t2', 'c1', 'rates in src/quote/rates.py', 'read'),
      assistant('a3', null, [{ id: 'c2', name: 'read', arguments: '{}' }]),
      toolResult('t4', 'c2', 'rates in src/quote/rates.py', 'read'),
    ])
    const placeholder = 'Result dropped to free context. Call read again if you still need it.'
    const backRef = '[same output as an earlier call]'
    const r: FactRun = {
      before: side(b),
      after: side([
        b[0] as Message,
        b[1] as Message,
        { ...(b[2] as Message), content: placeholder },
        b[3] as Message,
        { ...(b[4] as Message), content: backRef },
      ]),
      fates: {
        t2: { kind: 'pruned', stage: 'prune-tool-results', placeholder },
        t4: { kind: 'back-referenced', stage: 'dedupe', firstId: 't2' },
      },
      origins: {},
      passes: [],
      stages: [
        { stage: 'dedupe', changed: true, tokensBefore: 0, tokensAfter: 0, messagesBefore: 5, messagesAfter: 5 },
        { stage: 'prune-tool-results', changed: true, tokensBefore: 0, tokensAfter: 0, messagesBefore: 5, messagesAfter: 5 },
      ],
    }
    const v = findFact(r, 'src/quote/rates.py')
    expect(v.verdict).toBe('lost')
    expect(v.events).toEqual([
      {
        beforeId: 't4',
        stage: 'dedupe',
        replacedBy: { kind: 'back-reference', firstId: 't2', text: backRef, targetEvicted: true },
      },
      { beforeId: 't2', stage: 'prune-tool-results', replacedBy: { kind: 'placeholder', text: placeholder } },
    ])
    // prune runs after dedupe: it dropped the last copy.
    expect(v.lost?.stage).toBe('prune-tool-results')
  })

  it('factTable: state after each pass, final fate, totals', () => {
    const table = factTable(run)
    expect(table.passes.map((p) => p.pass)).toEqual([1, 2])
    const row = (fact: string) => table.rows.find((r) => r.fact === fact)
    // u0 folded by pass 1 (summary keeps the date), pass 2's summary drops it.
    expect(row('2025-06-27')?.passRuns).toEqual([
      { state: 'summary', from: 0, to: 0 },
      { state: 'lost', from: 1, to: 1 },
    ])
    expect(row('2025-06-27')?.final).toBe('lost')
    // ORD-58213 is in u6 (index 6), beyond pass 2's atMessage 5 but before it in u0.
    expect(row('ORD-58213')?.passRuns).toEqual([{ state: 'summary', from: 0, to: 1 }])
    expect(row('ORD-58213')?.final).toBe('verbatim')
    // t2 (index 2 ≤ pass 1's atMessage 2) is verbatim after pass 1; pass 2 folds and drops it.
    // The postal-code pattern keeps its label: the fact is "postal code 94107".
    expect(row('postal code 94107')?.passRuns).toEqual([
      { state: 'verbatim', from: 0, to: 0 },
      { state: 'lost', from: 1, to: 1 },
    ])
    const lost = table.rows.filter((r) => r.final === 'lost').length
    expect(table.totals.facts).toBe(table.rows.length)
    expect(table.totals.lost).toBe(lost)
    expect(table.totals.text).toBe(`${table.rows.length - lost} of ${table.rows.length} facts survive`)
  })
})
