/**
 * Fact extraction and the facts table at sizes the input controls: the scans are single forward
 * passes (no regex backtracking stack, no argument spread, no per-message copy of the pass list),
 * and they say exactly what the plain formulations they replaced say. Those plain formulations
 * are kept here as oracles.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { findFact } from './finder'
import { decisionSentences, extractFacts, findFactSpans, instructionLines, questionRuns, todoSentences, type FactSpan } from './patterns'
import type { FactRun } from './run-index'
import { factTable } from './table'
import type { Message, Pass } from '../model'
import { assistant, indexed } from '../stages/test-helpers'
import { cutCodePoints } from '../util/text'

// ---------------------------------------------------------------------------
// Oracles: the plain formulations (quadratic or recursive on big inputs, exact on small ones)
// ---------------------------------------------------------------------------

const oracleSentences = (text: string) => text.match(/(?:[^.!?\n]|[.!?](?=[^\s.!?]))+[.!?]*/g) ?? []

const TODO = /\b(?:TODO|FIXME|open question|still (?:need|missing|pending))\b/i
const oracleTodo = (text: string) =>
  oracleSentences(text)
    .filter((s) => TODO.test(s))
    .map((s) => s.trim().replace(/\s+/g, ' '))

const DECISION =
  /^(?:done|fixed|completed|finished|resolved|implemented|merged|deployed)\b|\b(?:decided|decision:|we chose|agreed to)\b/i
const oracleDecisions = (text: string) =>
  oracleSentences(text)
    .map((s) => s.trim())
    .filter((s) => s && DECISION.test(s))
    .map((s) => cutCodePoints(s, 400))

/** `findFactSpans` as first written: every match checked against every span taken so far. */
function oracleSpans(text: string, patterns: readonly { kind: FactSpan['kind']; pattern: RegExp }[]) {
  const hits: { at: number; end: number; fact: string; kind: FactSpan['kind'] }[] = []
  for (const { kind, pattern } of patterns) {
    for (const m of text.matchAll(pattern)) {
      const at = m.index ?? 0
      const end = at + m[0].length
      if (hits.some((h) => at < h.end && end > h.at)) continue
      const fact = m[0].trim()
      if (fact.length < 2 || (kind !== 'name' && !/\d|[/.@]/.test(fact))) continue
      hits.push({ at, end, fact: cutCodePoints(fact, 120), kind })
    }
  }
  hits.sort((a, b) => a.at - b.at)
  const out: FactSpan[] = []
  for (const h of hits) if (!out.some((o) => o.fact === h.fact)) out.push({ fact: h.fact, kind: h.kind })
  return out
}

/**
 * The kinds of SPEC §3.5 that overlap one another most (URL ⊃ path ⊃ name.ext, e-mail ⊃ ID,
 * date ⊃ amount), in the order facts.ts tries them: the oracle on these must agree with
 * `findFactSpans` on text built only from them, since no other pattern can match there.
 */
const OVERLAPPING: readonly { kind: FactSpan['kind']; pattern: RegExp }[] = [
  { kind: 'url', pattern: /\bhttps?:\/\/[^\s<>"'`)\]]+[^\s<>"'`)\].,;:!?]/g },
  { kind: 'email', pattern: /\b[\w.+-]+@[\w-]+(?:\.[\w-]+)+\b/g },
  { kind: 'id', pattern: /\b[A-Z][A-Z0-9]*(?:-[A-Z0-9]+)+\b/g },
  { kind: 'id', pattern: /\b[a-z]+-\d{3,}\b/g },
]

// No piece or junction of pieces is a URL, path, file name, date or amount: only these kinds match.
const pieces = ['ORD-123', 'job-4821', 'a@b.io', 'ab+c@ORD-1.com', 'A-1', ' ', '.', '\n', 'x', '-', '@']
const pieceText = fc.array(fc.constantFrom(...pieces), { maxLength: 40 }).map((a) => a.join(''))
const markText = fc
  .array(fc.constantFrom('a', 'TODO', 'Done', 'done', ' ', '.', '!', '?', '\n', '\t', '7', '/', 'x.y'), {
    maxLength: 40,
  })
  .map((a) => a.join(''))

describe('sentence and question scans equal their regexes', () => {
  it('todo and decision sentences, on texts of end marks, spaces and markers', () => {
    fc.assert(
      fc.property(markText, (text) => {
        expect(todoSentences(text)).toEqual(oracleTodo(text))
        expect(decisionSentences(text)).toEqual(oracleDecisions(text))
      }),
      { numRuns: 400 },
    )
  })

  it('questions: the matches of /[^.!?\\n]*\\?/g', () => {
    fc.assert(
      fc.property(markText, (text) => {
        expect(questionRuns(text)).toEqual(text.match(/[^.!?\n]*\?/g) ?? [])
      }),
      { numRuns: 400 },
    )
  })

  it('a line of standing rules is narrowed to its sentences that hold the marker', () => {
    // Over LINE_CHAR_CAP (400 code points), so the line is split into sentences.
    const line = `${'filler words here. '.repeat(30)}Never push to main! Always run the tests.`
    expect(instructionLines(line)).toEqual(['Never push to main!', 'Always run the tests.'])
  })

  it('10 MB without an end mark: one sentence (the regex overflowed its backtracking stack)', () => {
    // A user's TODO and an assistant's report (standing rules share the same sentence scan).
    const words = ' word'.repeat(2_000_000)
    expect(todoSentences(`TODO${words}`)).toEqual([`TODO${words}`])
    expect(decisionSentences(`Done${words}`)).toEqual([`Done${words}`.slice(0, 400)])
    expect(questionRuns(words)).toEqual([])
  })
})

describe('findFactSpans: overlap by binary search equals overlap by scanning every span', () => {
  it('on texts of overlapping URLs, e-mails and IDs', () => {
    fc.assert(
      fc.property(pieceText, (text) => {
        expect(findFactSpans(text)).toEqual(oracleSpans(text, OVERLAPPING))
      }),
      { numRuns: 400 },
    )
  })

  it('40,000 distinct paths in one text: each is one fact, in order', () => {
    const paths = Array.from({ length: 40_000 }, (_, i) => `./src/mod${i % 97}/file${i}.ts`)
    const spans = findFactSpans(paths.join('\n'))
    expect(spans.length).toBe(40_000)
    expect(spans[0]).toEqual({ fact: './src/mod0/file0.ts', kind: 'file-path' })
    expect(spans[39_999]).toEqual({ fact: './src/mod35/file39999.ts', kind: 'file-path' })
  })

  it('a fact repeated in 20,000 messages lists each message once, in order', () => {
    const messages = indexed(Array.from({ length: 20_000 }, (_, i) => assistant(`m${i}`, 'ORD-7 ORD-7')))
    const [fact] = extractFacts(messages)
    expect(fact?.fact).toBe('ORD-7')
    expect(fact?.messageIds).toEqual(messages.map((m) => m.id))
  })
})

describe('facts table and finder over 150,000 rolling passes', () => {
  // Message i is folded by pass i+1 (from i, upto i+1); every summary but the last keeps ORD-1.
  const P = 150_000
  const before = indexed([
    assistant('m0', 'ORD-1 is the order.'),
    ...Array.from({ length: P }, (_, i) => assistant(`m${i + 1}`, 'ok')),
  ])
  const summaryId = `summary:summarize:${P}`
  const passes: Pass[] = Array.from({ length: P }, (_, k) => ({
    pass: k + 1,
    stage: 'summarize',
    atMessage: k + 1,
    from: k,
    upto: k + 1,
    prompt: '',
    summary: k + 1 < P ? 'kept ORD-1' : 'gone',
    summaryId: `summary:summarize:${k + 1}`,
    tokensBefore: 2,
    tokensAfter: 1,
  }))
  const summary: Message = { ...assistant(summaryId, 'gone'), role: 'user' }
  const run = {
    before: { messages: before },
    after: { messages: indexed([summary, before[P] as Message]) },
    fates: Object.fromEntries(
      before
        .slice(0, P)
        .map((m, i) => [m.id, { kind: 'summarized', stage: 'summarize', pass: i + 1, summaryId }]),
    ),
    origins: {
      [summaryId]: {
        kind: 'summary',
        stage: 'summarize',
        pass: P,
        fromIndex: 0,
        toIndex: P - 1,
        coveredIds: before.slice(0, P).map((m) => m.id),
      },
    },
    passes,
  } as unknown as FactRun

  it('the fact is lost at the last pass, whose summary omits it; its row says so pass by pass', () => {
    // A chain of 150,000 passes was spread into one push (RangeError) and copied per message.
    const v = findFact(run, 'ORD-1')
    expect(v.verdict).toBe('lost')
    expect(v.lost).toEqual({
      beforeId: 'm0',
      stage: 'summarize',
      pass: P,
      replacedBy: { kind: 'summary', summaryId, text: 'gone' },
    })
    const table = factTable(run)
    expect(table.rows.map((r) => r.fact)).toEqual(['ORD-1'])
    const row = table.rows[0]
    expect(row?.final).toBe('lost')
    // Summary through every pass but the last, which loses it: two runs, not P states.
    expect(row?.passRuns).toEqual([
      { state: 'summary', from: 0, to: P - 2 },
      { state: 'lost', from: P - 1, to: P - 1 },
    ])
    expect(table.totals.text).toBe('0 of 1 facts survive')
  })
})
