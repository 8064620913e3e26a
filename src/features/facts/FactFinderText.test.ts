import { describe, expect, it } from 'vitest'
import type { FactVerdictView, RowMeta, RunView } from '../../worker/protocol'
import { factRanges, lossWhy, matchRanges, textPieces, verdictSentence } from './FactFinderText'

const joined = (pieces: ReturnType<typeof textPieces>) =>
  pieces.map((p) => p.segments.map((s) => s.text).join('')).join('')

describe('matchRanges', () => {
  it('finds a string verbatim, case-sensitive, as a whole value, without overlaps', () => {
    expect(matchRanges('ORD-1 ORD-1,ORD-12 xORD-1', { query: 'ORD-1', regex: false })).toEqual([
      { start: 0, end: 5 },
      { start: 6, end: 11 },
    ])
    // Inside a longer word or number it is another value.
    expect(matchRanges('aaaa 33000', { query: 'aa', regex: false })).toEqual([])
    expect(matchRanges('aaaa 33000', { query: '3000', regex: false })).toEqual([])
    expect(matchRanges('x ORD-1 ord-1', { query: 'ORD-1', regex: false })).toEqual([{ start: 2, end: 7 }])
  })

  it('finds every non-empty regex match; an invalid regex marks nothing', () => {
    expect(matchRanges('ORD-1 and ORD-22', { query: 'ORD-\\d+', regex: true })).toEqual([
      { start: 0, end: 5 },
      { start: 10, end: 16 },
    ])
    expect(matchRanges('ab', { query: 'x*', regex: true })).toEqual([])
    expect(matchRanges('a(b', { query: '(', regex: true })).toEqual([])
  })
})

describe('factRanges', () => {
  it('takes every occurrence, earliest first, the longer fact at the same start', () => {
    const text = 'see src/a.py and https://x.io/src/a.py then src/a.py'
    expect(factRanges(text, ['src/a.py', 'https://x.io/src/a.py'])).toEqual([
      { start: 4, end: 12, fact: 'src/a.py' },
      { start: 17, end: 38, fact: 'https://x.io/src/a.py' },
      { start: 44, end: 52, fact: 'src/a.py' },
    ])
  })
})

describe('textPieces', () => {
  it('splits facts into their own pieces and marks inside and across them', () => {
    const text = 'order ORD-58213 to 94107'
    // The mark "58213 to" starts inside the fact ORD-58213 and ends outside it.
    const marks = [{ start: 10, end: 18 }]
    const facts = [{ start: 6, end: 15, fact: 'ORD-58213' }]
    const pieces = textPieces(text, marks, facts)
    expect(pieces).toEqual([
      { segments: [{ text: 'order ', mark: false }] },
      {
        fact: 'ORD-58213',
        segments: [
          { text: 'ORD-', mark: false },
          { text: '58213', mark: true },
        ],
      },
      {
        segments: [
          { text: ' to', mark: true },
          { text: ' 94107', mark: false },
        ],
      },
    ])
    expect(joined(pieces)).toBe(text)
  })

  it('keeps an empty or unmarked text whole', () => {
    expect(textPieces('', [], [])).toEqual([{ segments: [] }])
    expect(textPieces('abc', [], [])).toEqual([{ segments: [{ text: 'abc', mark: false }] }])
  })
})

function row(id: string, index: number, extra: Partial<RowMeta> = {}): RowMeta {
  return {
    id,
    index,
    role: 'user',
    tokens: 1,
    preview: '',
    flags: {},
    images: 0,
    thinking: 0,
    counterpartIds: [],
    ...extra,
  }
}

const totals = { messages: 0, tokens: 0 } as RunView['before']['totals']
const run: RunView = {
  runId: 1,
  encoding: 'o200k_base',
  before: { rows: Array.from({ length: 45 }, (_, i) => row(`u${i}`, i)), totals },
  after: {
    rows: [
      row('summary:summarize:2', 0, {
        origin: {
          kind: 'summary',
          stage: 'summarize',
          pass: 2,
          fromIndex: 0,
          toIndex: 21,
        },
      }),
      row('u41', 1, { origin: { kind: 'original', beforeId: 'u41', changed: false } }),
    ],
    totals,
  },
  passes: [
    { pass: 1, stage: 'summarize', atMessage: 30, from: 0, upto: 10, summaryId: 'summary:summarize:1', summary: '', promptLength: 0 },
    { pass: 2, stage: 'summarize', atMessage: 40, from: 0, upto: 22, summaryId: 'summary:summarize:2', summary: '', promptLength: 0 },
  ] as RunView['passes'],
  stages: [],
  checks: { before: [], after: [] },
  warnings: [],
}

const base = { query: 'ORD-1', explanation: '', copiesLost: 0, where: [] }

describe('verdictSentence', () => {
  it('names the After messages that keep a surviving fact', () => {
    const v: FactVerdictView = {
      ...base,
      verdict: 'survives',
      where: [
        { id: 'u41', as: 'verbatim' },
        { id: 'summary:summarize:2', as: 'summary' },
      ],
    }
    expect(verdictSentence(v, run)).toEqual({
      text: 'survives in 2 messages after (Before #41 → After #1, After #0 (summary of pass 2))',
      tone: 'good',
    })
    const onlySummary: FactVerdictView = { ...base, verdict: 'survives', where: [{ id: 'summary:summarize:2', as: 'summary' }] }
    expect(verdictSentence(onlySummary, run).text).toBe('survives only in After #0 (summary of pass 2)')
  })

  it('names the pass that lost the last copy and the summary that replaced it', () => {
    const v: FactVerdictView = {
      ...base,
      verdict: 'lost',
      copiesLost: 1,
      lost: {
        beforeId: 'u3',
        stage: 'summarize',
        pass: 2,
        replacedBy: { kind: 'summary', summaryId: 'summary:summarize:2', text: '…' },
      },
    }
    expect(verdictSentence(v, run)).toEqual({
      text: 'lost in pass 2 of summarize — replaced by the summary of messages 0–21',
      tone: 'bad',
    })
  })

  it('says which copy was last, and a back-reference whose original was evicted', () => {
    const v: FactVerdictView = {
      ...base,
      verdict: 'lost',
      copiesLost: 3,
      lost: {
        beforeId: 'u12',
        stage: 'dedupe',
        replacedBy: { kind: 'back-reference', firstId: 'u4', text: '', targetEvicted: true },
      },
    }
    expect(verdictSentence(v, run).text).toBe(
      'lost in dedupe (the last of 3 copies) — replaced by a back-reference to Before #4, whose original was evicted too',
    )
  })

  it('says never present', () => {
    expect(verdictSentence({ ...base, verdict: 'never-present' }, run)).toEqual({
      text: 'never present in the Before',
      tone: 'muted',
    })
  })
})

describe('lossWhy', () => {
  it('reads the prompt line, the summary and the reason from the last loss', () => {
    const v: FactVerdictView = {
      ...base,
      verdict: 'lost',
      copiesLost: 1,
      lost: {
        beforeId: 'u3',
        stage: 'summarize',
        pass: 2,
        replacedBy: { kind: 'summary', summaryId: 'summary:summarize:2', text: 'Totals only.', promptLine: '[3] user: ORD-1 please', inPrompt: true },
      },
    }
    expect(lossWhy(v, run, 'llm')).toEqual({
      reason: 'it was in the prompt but not in the answer',
      promptLine: '[3] user: ORD-1 please',
      inPrompt: true,
      summary: 'Totals only.',
      pass: 'pass 2',
    })
    const backRef: FactVerdictView = {
      ...base,
      verdict: 'lost',
      copiesLost: 1,
      lost: { beforeId: 'u12', stage: 'dedupe', replacedBy: { kind: 'back-reference', firstId: 'u4', text: '', targetEvicted: true } },
    }
    expect(lossWhy(backRef, run, 'extractive')).toEqual({
      reason: 'Before #12 became a back-reference to its first occurrence, Before #4, which left the context too',
      firstOccurrence: { id: 'u4', name: 'Before #4' },
    })
    expect(lossWhy({ ...base, verdict: 'survives' }, run, 'llm')).toBeNull()
  })
})
