import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { RELATIVE_PATH_PATTERN, decisionSentences, extractFacts, findFactSpans, instructionLines, jobStatusLines } from './patterns'
import { assistant, indexed, system, user } from '../stages/test-helpers'

describe('fact extraction (SPEC §3.5)', () => {
  it('gives each pattern fact its kind', () => {
    const spans = findFactSpans(
      'Order ORD-58213 to 94107-1234, see https://x.example/o, mail ana@example.com, file src/a.py, due 2025-06-27, $12.50, chapter 7, Student: Ilse',
    )
    expect(spans).toEqual([
      { fact: 'ORD-58213', kind: 'id' },
      { fact: '94107-1234', kind: 'postal-code' },
      { fact: 'https://x.example/o', kind: 'url' },
      { fact: 'ana@example.com', kind: 'email' },
      { fact: 'src/a.py', kind: 'file-path' },
      { fact: '2025-06-27', kind: 'date' },
      { fact: '$12.50', kind: 'money' },
      { fact: 'chapter 7', kind: 'reference' },
      { fact: 'Student: Ilse', kind: 'name' },
    ])
  })

  it('instruction lines are whole user lines with a constraint word', () => {
    expect(
      instructionLines("Fix the bug.\nDon't change quote_for() in src/quote/api.py\nThanks"),
    ).toEqual(["Don't change quote_for() in src/quote/api.py"])
    expect(instructionLines('Please fix the flaky test.')).toEqual([])
  })

  it('decisions keep dotted paths whole; job status is the JSON object verbatim', () => {
    expect(decisionSentences('Done: --dry-run added in cmd/sync.go and covered by a test. Next?')).toEqual([
      'Done: --dry-run added in cmd/sync.go and covered by a test.',
    ])
    expect(jobStatusLines('{"job_id": "job-4821", "status": "running"}')).toEqual([
      '{"job_id": "job-4821", "status": "running"}',
    ])
    expect(jobStatusLines('{"id": 3, "name": "x"}')).toEqual([])
  })

  it('terminal colour codes in tool output are not facts (ESC[22m is no "22m")', () => {
    expect(findFactSpans('\u001b[2mCompacted\u001b[22m (ctrl+o) ORD-58213 took 12 items')).toEqual([
      { fact: 'ORD-58213', kind: 'id' },
      { fact: '12 items', kind: 'count' },
    ])
  })

  it('extractFacts: goal first, then facts in order of appearance with every message holding them', () => {
    const ms = indexed([
      system('s', 'You are helpful. Never reveal ORD-1.'),
      user('u1', 'Ship ORD-58213 to 94107. Never use express shipping.'),
      assistant('a1', 'Looking up ORD-58213.'),
      user('u2', 'TODO: confirm the 94107 address'),
      user('u3', 'Never ship on Sundays.'),
    ])
    const facts = extractFacts(ms)
    expect(facts[0]).toEqual({
      fact: 'Ship ORD-58213 to 94107. Never use express shipping.',
      kind: 'goal',
      messageIds: ['u1'],
      origin: 'user',
      importance: 'goal',
    })
    expect(facts.find((f) => f.fact === 'ORD-58213')).toEqual({
      fact: 'ORD-58213',
      kind: 'id',
      messageIds: ['u1', 'a1'],
      origin: 'user',
      importance: 'user',
    })
    // Instructions come from user lines only (the system prompt is never compacted); the one-line
    // goal, which states a rule too, is the goal row already and is not listed again.
    expect(facts.filter((f) => f.kind === 'instruction').map((f) => f.fact)).toEqual(['Never ship on Sundays.'])
    expect(facts.filter((f) => f.kind === 'todo').map((f) => f.fact)).toEqual([
      'TODO: confirm the 94107 address',
    ])
  })
})

describe('the relative path pattern', () => {
  it('matches exactly what its plain form matches, at the same places, on any text of path characters', () => {
    // The plain form (optional `~` or dots, optional `/`, directories, a name with an extension):
    // the pattern is that, written to start only where a run of path characters starts.
    const plain = /(?:~|\.{1,2})?\/?(?:[\w.-]+\/)+[\w-]+\.\w+/g
    const matches = (re: RegExp, text: string) => [...text.matchAll(re)].map((m) => [m.index, m[0]])
    const text = fc
      .array(fc.constantFrom('a', 'Z', '1', '_', '/', '.', '-', '~', ' ', '\n', ':', 'é'), { maxLength: 40 })
      .map((chars) => chars.join(''))
    fc.assert(
      fc.property(text, (t) => {
        expect(matches(RELATIVE_PATH_PATTERN, t)).toEqual(matches(plain, t))
      }),
      { numRuns: 20_000 },
    )
    // The cases the start rule turns on: a `~` after a letter, dots after a letter, a second path in one run.
    for (const t of ['x~/a/b.c', 'x../a/b.c', '~/src/app.ts', '../lib/x.js', 'a/b.c.d/e.f', 'see ./a/b.md.']) {
      expect(matches(RELATIVE_PATH_PATTERN, t)).toEqual(matches(plain, t))
    }
  })
})
