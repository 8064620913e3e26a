/**
 * Importance, not volume: each fact's kind, origin and tier on a fixture with pytest output,
 * an `ls -l` listing and identifiers the user stated; noise never in the default facts of the
 * bundled Claude Code sample or a generated Claude Code session; user facts ranked first.
 * Expected values are read off the fixture texts.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { generateLargeSession } from '../../../test/fixtures'
import { importBytes } from '../formats/index'
import type { Message } from '../model'
import { assistant, indexed, toolResult, user } from '../stages/test-helpers'
import { importanceRank, isNoiseFact, noiseLineShape } from './importance'
import { extractFacts, findFactSpans, type CandidateFact } from './patterns'

function importFile(path: string): Message[] {
  const bytes = new Uint8Array(readFileSync(path))
  const imported = importBytes(bytes, { fileName: path })
  if (!imported.ok) throw new Error(imported.error.message)
  return imported.transcript.messages
}

const fixture = (name: string) => new URL(`../../../test/fixtures/${name}`, import.meta.url).pathname

/** kind, origin and importance of the fact with text `fact` (the first of that text). */
function judged(facts: readonly CandidateFact[], fact: string) {
  const f = facts.find((c) => c.fact === fact)
  return f ? [f.kind, f.origin, f.importance] : undefined
}

/** The facts, most important first; ties keep the order of first appearance. */
const ranked = (facts: readonly CandidateFact[]) =>
  [...facts].sort((a, b) => importanceRank(a.importance) - importanceRank(b.importance))

describe('number + unit facts get their kind from the unit', () => {
  it('money, duration, count, percentage, quantity, time of day', () => {
    expect(findFactSpans('paid $12.50 and 30 EUR, took 584ms and 2 hours, 12 items, 87%, 19MB, at 7pm')).toEqual([
      { fact: '$12.50', kind: 'money' },
      { fact: '30 EUR', kind: 'money' },
      { fact: '584ms', kind: 'duration' },
      { fact: '2 hours', kind: 'duration' },
      { fact: '12 items', kind: 'count' },
      { fact: '87%', kind: 'percentage' },
      { fact: '19MB', kind: 'quantity' },
      { fact: '7pm', kind: 'date' },
    ])
  })
})

describe('the shape of a tool output line', () => {
  it('ls -l entries, test runner lines and log lines; a file line or a JSON record is none', () => {
    expect(noiseLineShape('-rw-r--r-- 1 dev staff 19MB Jun 24 09:10 zones.csv')).toBe('listing')
    expect(noiseLineShape('drwxr-xr-x  12 dev  staff   384 Jun 24 09:10 .')).toBe('listing')
    expect(noiseLineShape('tests/test_shipping.py ........F.....          [100%]')).toBe('test')
    expect(noiseLineShape('========= 1 failed, 13 passed in 0.42s =========')).toBe('test')
    expect(noiseLineShape(' ✓ src/a.test.ts > parses 584ms')).toBe('test')
    expect(noiseLineShape('2025-06-24 09:10:02 INFO worker started')).toBe('log')
    expect(noiseLineShape('Date:   Mon Jun 24 09:10:00 2025 +0200')).toBe('log')
    expect(noiseLineShape('     7→## 2025-06-10')).toBeNull()
    expect(noiseLineShape('{"pickup": "2025-07-02"}')).toBeNull()
  })
})

describe('origin and importance on a fixture with test output, a listing and user-stated identifiers', () => {
  const messages = importFile(fixture('facts/importance-shop.json'))
  const facts = extractFacts(messages)

  it('identifiers, dates and money the user stated are the user’s, never noise', () => {
    expect(judged(facts, 'ORD-40211')).toEqual(['id', 'user', 'user'])
    // The user stated it after its label: the fact is the code, of kind postal-code.
    expect(judged(facts, '80331')).toEqual(['postal-code', 'user', 'user'])
    expect(judged(facts, '2025-07-04')).toEqual(['date', 'user', 'user'])
    expect(judged(facts, '$25.00')).toEqual(['money', 'user', 'user'])
    // A duration is noise only in tool output: the user's "3 days" is a fact.
    expect(judged(facts, '3 days')).toEqual(['duration', 'user', 'user'])
    expect(judged(facts, "Don't print prices on the slip. Last time it took 3 days.")).toEqual([
      'instruction',
      'user',
      'constraint',
    ])
  })

  it('paths in tool-call arguments were acted on; the decision is the assistant’s', () => {
    expect(judged(facts, 'tests/test_shipping.py')).toEqual(['file-path', 'acted-on', 'acted-on'])
    expect(judged(facts, 'data/zones.csv')).toEqual(['file-path', 'acted-on', 'acted-on'])
    expect(judged(facts, 'Decided: add the row to data/zones.csv rather than hard-coding it.')).toEqual([
      'decision',
      'assistant',
      'decision',
    ])
  })

  it('pytest counts, percentages and durations, listing sizes and dates are noise', () => {
    expect(judged(facts, '14 items')).toEqual(['count', 'tool-output', 'noise'])
    expect(judged(facts, '100%')).toEqual(['percentage', 'tool-output', 'noise'])
    expect(judged(facts, '0.42s')).toEqual(['duration', 'tool-output', 'noise'])
    expect(judged(facts, '12ms')).toEqual(['duration', 'tool-output', 'noise'])
    expect(judged(facts, '19MB')).toEqual(['quantity', 'tool-output', 'noise'])
    expect(judged(facts, 'Jun 24')).toEqual(['date', 'tool-output', 'noise'])
    expect(facts.filter(isNoiseFact).map((f) => f.fact)).toEqual([
      '14 items',
      '100%',
      '0.42s',
      '19MB',
      'Jun 24',
      '1MB',
      'Jun 20',
      'Jun 21',
      '12ms',
    ])
  })

  it('a value read from a tool output outside a listing stays an ordinary fact', () => {
    expect(judged(facts, '2025-07-02')).toEqual(['date', 'tool-output', 'other'])
    expect(judged(facts, '€7.90')).toEqual(['money', 'tool-output', 'other'])
    // A file name in a listing is kept: only its size and date are noise.
    expect(judged(facts, 'zones.csv')).toEqual(['file-path', 'tool-output', 'other'])
  })

  it('ranks the goal, constraints and user facts first, then decisions, then acted-on paths', () => {
    expect(
      ranked(facts)
        .filter((f) => !isNoiseFact(f))
        .slice(0, 12)
        .map((f) => f.fact),
    ).toEqual([
      // The goal holds "never" too, but a one-line goal is not listed again as a constraint.
      messages[1]?.content,
      'The gift message must say Happy birthday, Lena!',
      "Don't print prices on the slip. Last time it took 3 days.",
      'ORD-40211',
      '80331',
      '2025-07-04',
      '$25.00',
      '3 days',
      'Decided: add the row to data/zones.csv rather than hard-coding it.',
      'tests/test_shipping.py',
      'data/zones.csv',
      'zones.csv',
    ])
  })

  it('a watched fact comes first, tracked in every message holding it, the user’s', () => {
    const watched = extractFacts(messages, ['Happy birthday', ' Happy birthday ', ''])
    expect(watched[0]).toEqual({
      fact: 'Happy birthday',
      kind: 'watched',
      messageIds: [messages[10]?.id],
      origin: 'user',
      importance: 'watched',
    })
    expect(watched.filter((f) => f.kind === 'watched')).toHaveLength(1)
    expect(watched.slice(1)).toEqual(facts)
  })
})

describe('noise judged by role and line, not by the fact', () => {
  it('the same date is noise in a listing and a fact in a JSON record', () => {
    const ms = indexed([
      user('u', 'Check the data folder.'),
      assistant('a', 'Listing it.', [
        { id: 'c1', name: 'ls' },
        { id: 'c2', name: 'cat' },
        { id: 'c3', name: 'ls' },
      ]),
      toolResult('t1', 'c1', '-rw-r--r-- 1 dev staff 4MB Mar 3 10:02 a.csv'),
      toolResult('t2', 'c2', '{"due": "Mar 3"}'),
      toolResult('t3', 'c3', '-rw-r--r-- 1 dev staff 4MB Mar 9 10:02 b.csv'),
    ])
    const facts = extractFacts(ms)
    expect(judged(facts, 'Mar 3')).toEqual(['date', 'tool-output', 'other'])
    expect(judged(facts, 'Mar 9')).toEqual(['date', 'tool-output', 'noise'])
    expect(judged(facts, '4MB')).toEqual(['quantity', 'tool-output', 'noise'])
  })
})

/** Dates standing on an `ls -l` line of a tool output (`-rw-r--r--`, `drwxr-xr-x` first). */
function listingDates(messages: readonly Message[]): Set<string> {
  const out = new Set<string>()
  for (const m of messages) {
    if (m.role !== 'tool' || typeof m.content !== 'string') continue
    for (const line of m.content.split('\n'))
      if (/^[-d][rwx-]{9}\s/.test(line)) for (const s of findFactSpans(line)) if (s.kind === 'date') out.add(s.fact)
  }
  return out
}

/** The default facts hold no duration, percentage or listing date; the user's facts rank first. */
function expectDefaultFactsClean(messages: readonly Message[]) {
  const facts = extractFacts(messages)
  const shown = facts.filter((f) => !isNoiseFact(f))
  expect(shown.filter((f) => f.kind === 'duration' && f.origin !== 'user').map((f) => f.fact)).toEqual([])
  expect(shown.filter((f) => f.kind === 'percentage').map((f) => f.fact)).toEqual([])
  const dates = listingDates(messages)
  expect(dates.size).toBeGreaterThan(0)
  expect(shown.filter((f) => f.kind === 'date' && dates.has(f.fact)).map((f) => f.fact)).toEqual([])
  const order = ranked(shown).map((f) => f.origin)
  expect(order.lastIndexOf('user')).toBeLessThan(order.findIndex((o) => o !== 'user'))
  return { facts, shown }
}

describe('the default facts of real-shaped Claude Code sessions', () => {
  it('bundled sample: no durations, percentages or listing dates; the scenario facts lead', () => {
    const messages = importFile(new URL('../../../public/samples/claude-code.jsonl', import.meta.url).pathname)
    const { facts, shown } = expectDefaultFactsClean(messages)
    // The sample's pytest runs: 12/13 collected items, progress percentages, run times.
    for (const noise of ['12 items', '100%', '0.31s', 'Jun 24']) expect(facts.find((f) => f.fact === noise)?.importance).toBe('noise')
    const top = ranked(shown).slice(0, 8).map((f) => f.fact)
    expect(top).toContain('ORD-58213')
    expect(top).toContain('94107')
  })

  it('a generated 1 MB session: no durations, percentages or listing dates by default', () => {
    const dir = mkdtempSync(join(tmpdir(), 'facts-importance-'))
    try {
      const file = join(dir, 'session.jsonl')
      generateLargeSession(1, file)
      const { facts } = expectDefaultFactsClean(importFile(file))
      // Its vitest logs time every test ("… 584ms"): all of them noise.
      expect(facts.filter((f) => f.kind === 'duration').length).toBeGreaterThan(0)
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
