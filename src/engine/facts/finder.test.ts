import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { recordedRunResult } from '../analysis/recorded'
import { importClaudeCode } from '../formats/claude-code'
import { cacheCounter } from '../tokens/count'
import { countCodePoints } from '../stages/test-helpers'
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

  describe('why: the losing pass\'s prompt line', () => {
    // Pass 2's prompt as summarize writes it: rules, the previous summary, one line per message.
    const prompt2 = [
      'Summarize the conversation.',
      '',
      'Previous summary:',
      '',
      'Order ORD-58213, deadline 2025-06-27.',
      '',
      'Messages:',
      '',
      '[2] tool: postal code 94107',
      '[3] assistant: (tool calls: lookup)',
      '[4] tool: postal code 94107',
      '[5] assistant: Done.',
    ].join('\n')
    const withPrompts: FactRun = {
      ...run,
      passes: run.passes.map((p) => (p.pass === 2 ? { ...p, prompt: prompt2 } : p)),
    }

    it("names the copy's own line, else the first line holding it (the previous summary)", () => {
      const postal = findFact(withPrompts, /postal code \d{5}/, { why: true })
      // The last copy lost is t4, Before index 4: its own line, not t2's.
      expect(postal.lost?.beforeId).toBe('t4')
      expect(postal.lost?.replacedBy).toEqual({
        kind: 'summary',
        summaryId: 'summary:summarize:2',
        text: 'Order ORD-58213 discussed.',
        promptLine: '[4] tool: postal code 94107',
        inPrompt: true,
      })
      expect(postal.events?.[postal.events.length - 1]).toEqual(postal.lost)
      // u0 (index 0) has no line in pass 2's prompt: the previous summary carried the date.
      const date = findFact(withPrompts, '2025-06-27', { why: true })
      expect(date.lost?.replacedBy).toMatchObject({ promptLine: 'Order ORD-58213, deadline 2025-06-27.', inPrompt: true })
    })

    it('says when the prompt never held it, and adds nothing without the option', () => {
      const cut: FactRun = { ...run, passes: run.passes.map((p) => (p.pass === 2 ? { ...p, prompt: 'Summarize.\n\n[5] assistant: Done.' } : p)) }
      const v = findFact(cut, '2025-06-27', { why: true })
      expect(v.lost?.replacedBy).toEqual({ kind: 'summary', summaryId: 'summary:summarize:2', text: 'Order ORD-58213 discussed.', inPrompt: false })
      // A copy whose own line is in the prompt without the fact: that line is what the summarizer got.
      const placeholder: FactRun = {
        ...run,
        passes: run.passes.map((p) => (p.pass === 2 ? { ...p, prompt: 'Summarize.\n\n[4] tool: Result dropped.\n[5] assistant: Done.' } : p)),
      }
      expect(findFact(placeholder, /postal code \d{5}/, { why: true }).lost?.replacedBy).toMatchObject({
        promptLine: '[4] tool: Result dropped.',
        inPrompt: false,
      })
      expect(findFact(withPrompts, '2025-06-27')).toEqual(findFact(run, '2025-06-27'))
    })
  })

  it("against the agent's recorded compaction: where its record puts it, and the summary it wrote", () => {
    const source = readFileSync(new URL('../../../test/fixtures/facts-why/claude-code-auto-compact.jsonl', import.meta.url), 'utf8')
    const imported = importClaudeCode(source)
    if (!imported.ok) throw new Error(imported.error.message)
    const recorded = recordedRunResult(imported.transcript, cacheCounter('o200k_base', countCodePoints))
    if (!recorded) throw new Error('the fixture records a compaction')
    // The fixture: the postal code is stated in message 0; the auto compaction (preTokens
    // 150000) before message 6 summarizes messages 0–5 without it.
    const v = findFact(recorded, '80331', { why: true })
    expect(v.verdict).toBe('lost')
    expect(v.lost?.stage).toBe('recorded')
    const r = v.lost?.replacedBy
    if (r?.kind !== 'summary') throw new Error('expected the recorded summary')
    expect(r.recorded).toEqual({ atIndex: 6, compaction: 1, trigger: 'auto', tokensBefore: 150000 })
    expect(r.text).toContain('blue gift paper with a card reading happy birthday, Lena.')
    expect(r.text).not.toContain('80331')
    expect(v.explanation).toBe("lost in the agent's compaction 1 (message 6, auto, 150,000 tokens) — its summary omits it")
  })
})
