import { describe, expect, it } from 'vitest'
import type { Message } from '../model'
import { assistant, indexed, system, toolResult, user } from '../stages/test-helpers'
import { MAX_SUMMARY_CHARS } from '../stages/summarize'
import { countMessageTokens } from '../tokens/count'
import { codePointLength } from '../util/text'
import {
  EXTRACTIVE_LABEL,
  GOAL_CHAR_CAP,
  MAX_FACTS,
  extractFacts,
  extractiveSummarizer,
  summarizeExtractive,
} from './extractive'

describe('extractFacts', () => {
  it('finds IDs and order numbers', () => {
    expect(
      extractFacts('Order ORD-58213 and ticket A-48213-KQ; invoice INV-2207, job-4821.'),
    ).toEqual(['ORD-58213', 'A-48213-KQ', 'INV-2207', 'job-4821'])
  })

  it('finds postal codes, e-mails and URLs (an ID inside a URL is not a second fact)', () => {
    expect(
      extractFacts(
        'CEP 01310-100, mail ana@example.com, see https://shop.example.com/o/ORD-1?x=1.',
      ),
    ).toEqual(['01310-100', 'ana@example.com', 'https://shop.example.com/o/ORD-1?x=1'])
  })

  it('finds file paths and file names', () => {
    expect(
      extractFacts(
        'Edit src/net/client.py and ./lib/dates.py, then read config.yaml and /etc/hosts',
      ),
    ).toEqual(['src/net/client.py', './lib/dates.py', 'config.yaml', '/etc/hosts'])
  })

  it('finds dates and amounts with units', () => {
    expect(
      extractFacts('Due 2024-03-01, paid $12.50 or 40 units, dinner at 7pm on March 3, 2025.'),
    ).toEqual(['2024-03-01', '$12.50', '40 units', '7pm', 'March 3, 2025'])
  })

  it('ignores plain words and bare small numbers', () => {
    expect(extractFacts('Hello there, I have 3 questions and/or ideas.')).toEqual([])
  })
})

describe('summarizeExtractive (SPEC §3.6)', () => {
  const slice = indexed([
    user('u1', 'Where is my order ORD-58213? Ship to CEP 01310-100.'),
    assistant('a2', null, [{ id: 'c1', name: 'lookup_order', arguments: '{"id":"ORD-58213"}' }]),
    toolResult(
      't3',
      'c1',
      'status: shipped 2024-03-01, tracking https://track.example.com/X1',
      'lookup_order',
    ),
    assistant('a4', null, [{ id: 'c2', name: 'lookup_order', arguments: '{"id":"ORD-58213"}' }]),
    toolResult('t5', 'c2', 'status: shipped', 'lookup_order'),
    assistant('a6', 'It shipped on 2024-03-01.'),
    user('u7', 'Can you change the address? TODO: confirm the new street'),
  ])

  it('lists the goal verbatim, open questions and items, facts, tools with counts, labelled', () => {
    // u7's question has no reply after it; the tracking URL and the date are the tool's and the
    // assistant's, not the user's (the goal already quotes what the user stated).
    expect(summarizeExtractive(slice)).toBe(
      [
        EXTRACTIVE_LABEL,
        'Goal: Where is my order ORD-58213? Ship to CEP 01310-100.',
        'Open questions: Can you change the address?',
        'Open items: TODO: confirm the new street',
        'Facts: 2024-03-01; https://track.example.com/X1',
        'Tools used: lookup_order ×2',
      ].join('\n'),
    )
  })

  it('says it is not an LLM', () => {
    expect(EXTRACTIVE_LABEL).toBe('offline extractive summary (not an LLM)')
  })

  it('folds the previous summary in: its goal, facts, open items and tool counts survive; its questions, once answered, do not', () => {
    const first = summarizeExtractive(slice)
    const next = summarizeExtractive(
      indexed([user('u8', 'Use 12 Rua Augusta, apt 4.'), assistant('a9', 'Updated.', [])]),
      first,
    )
    // a9 follows the previous summary's question: answered. The TODO stays open.
    expect(next).toBe(
      [
        EXTRACTIVE_LABEL,
        'Goal: Where is my order ORD-58213? Ship to CEP 01310-100.',
        'Open items: TODO: confirm the new street',
        'Facts: 2024-03-01; https://track.example.com/X1',
        'Tools used: lookup_order ×2',
      ].join('\n'),
    )
    // With no reply in the slice, the question is still open.
    expect(summarizeExtractive([user('u8', 'Is it on its way?')], first)).toContain(
      'Open questions: Can you change the address? | Is it on its way?',
    )
  })

  it('carries a previous summary of any other origin (an LLM prose summary) line by line, verbatim', () => {
    const out = summarizeExtractive(
      indexed([user('u', 'ok')]),
      'The customer wants ORD-99 delivered to 04538-132.',
    )
    expect(out).toBe(
      [EXTRACTIVE_LABEL, 'Goal: ok', 'Earlier: The customer wants ORD-99 delivered to 04538-132.'].join('\n'),
    )
  })

  it('re-compaction folds a prose summary: its stated values, commitments, open items and decisions all survive, once, not nested', async () => {
    const prose = [
      'This session is being continued from a previous conversation. Summary:',
      'The customer Maria Lopez wants to return order #A-99812 (size M). Her postal code is 94107.',
      'I promised a refund of $84.50 to her card within 5 business days.',
      'We decided to use the prepaid UPS label.',
      'Still open:',
      'TODO: send the return label to maria@example.com.',
    ].join('\n')
    const recorded: Message = { ...user('s', prose), flags: { compactSummary: true } }
    const first = await extractiveSummarizer({
      stage: 'summarize',
      prompt: '',
      slice: indexed([recorded, user('u1', 'Any update?'), assistant('a2', 'Checking now.')]),
    })
    const earlier =
      'Earlier: This session is being continued from a previous conversation. Summary: | The customer Maria Lopez wants to return order #A-99812 (size M). Her postal code is 94107. | I promised a refund of $84.50 to her card within 5 business days. | We decided to use the prepaid UPS label. | TODO: send the return label to maria@example.com.'
    expect(first).toBe([EXTRACTIVE_LABEL, 'Goal: Any update?', earlier].join('\n'))
    // The next pass folds that summary as the previous one: the same line, carried once.
    const second = summarizeExtractive(indexed([user('u3', 'Thanks.'), assistant('a4', 'You are welcome.')]), first)
    expect(second).toBe([EXTRACTIVE_LABEL, 'Goal: Any update?', earlier].join('\n'))
    // A `[summary]` pasted back as a user turn is folded the same way, its marker and headings left out.
    const pasted = await extractiveSummarizer({
      stage: 'summarize',
      prompt: '',
      slice: indexed([user('p', '[summary]\nEarlier summary >>\n  Student: Ilse, chapter 7.'), user('u1', 'Next?')]),
    })
    expect(pasted).toBe([EXTRACTIVE_LABEL, 'Goal: Next?', 'Earlier: Student: Ilse, chapter 7.'].join('\n'))
  })

  it('caps the goal, and the other facts at MAX_FACTS, saying how many the cap left out', () => {
    const long = user('u', `${'g'.repeat(GOAL_CHAR_CAP + 10)}`)
    expect(summarizeExtractive([long])).toBe(
      `${EXTRACTIVE_LABEL}\nGoal: ${'g'.repeat(GOAL_CHAR_CAP)}`,
    )
    const many = Array.from({ length: 60 }, (_, i) => `ID-${1000 + i}`).join(' ')
    const lines = summarizeExtractive([user('u', 'go'), assistant('a', many)]).split('\n')
    expect((lines[2] ?? '').split('; ')).toHaveLength(MAX_FACTS)
    expect(lines[3]).toBe('[cut to 40 facts: 20 facts left out]')
  })

  it('skips injected user messages when choosing the goal', () => {
    const injected: Message = {
      ...user('i', '<system-reminder>x</system-reminder>'),
      flags: { injected: true },
    }
    expect(summarizeExtractive([injected, user('u', 'Fix the parser.')])).toContain(
      'Goal: Fix the parser.',
    )
  })

  it('is empty for nothing, and deterministic', () => {
    expect(summarizeExtractive([])).toBe('')
    expect(summarizeExtractive(slice)).toBe(summarizeExtractive(slice))
  })

  it('is shorter than a realistic slice it summarizes', () => {
    const log = Array.from(
      { length: 200 },
      (_, i) => `${i} INFO request id=req-${10000 + i} ok`,
    ).join('\n')
    const realistic = indexed([
      system('s', 'sys'),
      ...slice,
      assistant('a8', null, [
        { id: 'c3', name: 'read_file', arguments: '{"path":"logs/today.log"}' },
      ]),
      toolResult('t9', 'c3', log, 'read_file'),
      assistant('a10', 'The log shows nothing above 90 ms.'),
    ]).slice(1)
    const text = (m: Message) => countMessageTokens(m, (s) => s.length)
    const sliceChars = realistic.reduce((n, m) => n + text(m), 0)
    expect(summarizeExtractive(realistic).length).toBeLessThan(sliceChars / 2)
  })

  it('wraps its answer in <summary> tags for insert-then-compress', async () => {
    const answer = await extractiveSummarizer({ stage: 'insert-then-compress', prompt: 'p', slice })
    expect(answer).toBe(`<summary>\n${summarizeExtractive(slice)}\n</summary>`)
    expect(await extractiveSummarizer({ stage: 'summarize', prompt: 'p', slice })).toBe(
      summarizeExtractive(slice),
    )
  })
})

describe('extractiveSummarizer: an earlier summary in the slice is folded, not nested', () => {
  it('insert-then-compress over a summarize summary keeps the real goal and one level of summary', async () => {
    const earlier: Message = {
      id: 'summary:summarize:1',
      index: 0,
      role: 'user',
      content:
        '[Summary of messages 0–9 (pass 1)]\noffline extractive summary (not an LLM)\nGoal: Ship order ORD-1 to 94107\nFacts: ORD-1; 94107',
      source: { format: 'openai-chat' },
    }
    const later: Message = {
      id: 'm10',
      index: 1,
      role: 'user',
      content: 'Also add a test in tests/test_rates.py',
      source: { format: 'openai-chat' },
    }
    const text = await extractiveSummarizer({
      stage: 'insert-then-compress',
      prompt: 'x',
      slice: [earlier, later],
    })
    expect(text).toContain('Goal: Ship order ORD-1 to 94107')
    expect(text).not.toContain('[Summary of messages')
    expect(text.match(/offline extractive summary/g)).toHaveLength(1)
    expect(text).toContain('tests/test_rates.py')
  })
})

describe("summarizeExtractive: seed 001's preserve list first, verbatim; no noise", () => {
  // An invented support slice: the user states an order number, a CEP, a path and a date; the
  // assistant quotes a price, promises a day and records a decision; a tool run prints its
  // durations, percentages and an `ls -l` listing.
  const slice = indexed([
    user('u1', 'Please ship order ORD-4411 to my new flat.'),
    assistant('a2', null, [{ id: 'c1', name: 'run_checks', arguments: '{"order":"ORD-4411"}' }]),
    toolResult(
      't3',
      'c1',
      [
        'checks passed in 56ms; build 746ms',
        'coverage 33%, cpu 1.5%',
        '-rw-r--r--  1 ana staff 12 Jun 20 16:41 label.pdf',
      ].join('\n'),
      'run_checks',
    ),
    assistant('a4', 'The total is $40.00 with shipping. I\'ll ship it by Friday. Which CEP should I use?'),
    user('u5', 'CEP 01310-100, and file the invoice under /home/ana/invoices/may.pdf please.'),
    assistant('a6', 'Decided: gift wrap is free for this order. Noted.'),
    user('u7', 'TODO: confirm the door code. Will it arrive before 2025-07-04?'),
  ])

  it('goal, user-stated values, commitments, open questions and items, decisions, then the rest', () => {
    // a4's question is answered by u5; u7's is not (no assistant message after it). The tool's
    // 56ms, 746ms, 33%, 1.5% and the listing's Jun 20 are noise; label.pdf is not.
    expect(summarizeExtractive(slice)).toBe(
      [
        EXTRACTIVE_LABEL,
        'Goal: Please ship order ORD-4411 to my new flat.',
        'User stated: 01310-100; /home/ana/invoices/may.pdf; 2025-07-04',
        "Commitments: The total is $40.00 with shipping. | I'll ship it by Friday.",
        'Open questions: Will it arrive before 2025-07-04?',
        'Open items: TODO: confirm the door code.',
        'Decisions: Decided: gift wrap is free for this order.',
        'Facts: label.pdf',
        'Tools used: run_checks ×1',
      ].join('\n'),
    )
  })

  it('carries the previous summary: its user-stated values and commitments come first', () => {
    const next = summarizeExtractive(
      indexed([
        user('u8', 'My phone changed, write to ana@example.com instead.'),
        assistant('a9', 'We will refund the $5.00 wrap fee.'),
      ]),
      summarizeExtractive(slice),
    )
    expect(next).toBe(
      [
        EXTRACTIVE_LABEL,
        'Goal: Please ship order ORD-4411 to my new flat.',
        'User stated: 01310-100; /home/ana/invoices/may.pdf; 2025-07-04; ana@example.com',
        "Commitments: The total is $40.00 with shipping. | I'll ship it by Friday. | We will refund the $5.00 wrap fee.",
        'Open items: TODO: confirm the door code.',
        'Decisions: Decided: gift wrap is free for this order.',
        'Facts: label.pdf',
        'Tools used: run_checks ×1',
      ].join('\n'),
    )
  })

  it('keeps a multi-line goal whole across passes', () => {
    const first = summarizeExtractive([user('u', 'Fix the bug.\nKeep the API of src/api.py.')])
    expect(first).toBe(`${EXTRACTIVE_LABEL}\nGoal: Fix the bug.\nKeep the API of src/api.py.`)
    expect(summarizeExtractive([assistant('a', 'Reading it.')], first)).toBe(first)
  })

  it(`cut to ${MAX_SUMMARY_CHARS} characters: the user-stated values first, then a line saying what was left out`, () => {
    // 700 order numbers of 8 code points. The cut leaves 300 code points for its line: 5,700.
    // The label (39) + "\n" + "Goal: Tag these." (16) = 56; "\nUser stated: " + the first
    // number = 14 + 8 = 22, each further one "; " + 8 = 10: 56 + 22 + 10 × 562 = 5,698 ≤ 5,700,
    // one more would be 5,708. So 563 fit and 137 do not; nor do the commitment and the tools.
    const ids = Array.from({ length: 700 }, (_, i) => `ORD-${1000 + i}`)
    const out = summarizeExtractive([
      user('u1', 'Tag these.'),
      user('u2', ids.join(' ')),
      assistant('a3', "I'll tag them today.", [{ id: 'c', name: 'tag' }]),
      toolResult('t4', 'c', 'ok', 'tag'),
    ])
    expect(out).toBe(
      [
        EXTRACTIVE_LABEL,
        'Goal: Tag these.',
        `User stated: ${ids.slice(0, 563).join('; ')}`,
        '[cut to 6,000 characters: 137 user-stated values, 1 commitment, 1 tool left out]',
      ].join('\n'),
    )
    expect(codePointLength(out)).toBeLessThanOrEqual(MAX_SUMMARY_CHARS)
  })
})

describe("summarizeExtractive: the user's standing rules, verbatim, right after the goal (seed 004)", () => {
  it('keeps every rule line of a folded user message whole, not only the assistant\'s rewording', () => {
    // instructionLines: the line holds "Never", "Always" and "Don't"; it is one line, so it is
    // one rule, verbatim. a3 rewords it with "I will": a commitment.
    const slice = indexed([
      user('u1', 'Add a CSV export to the report page.'),
      user('u2', "Never push directly to main. Always use UTC timestamps. Don't touch the prod database."),
      assistant('a3', 'Understood: I will work on a branch and use UTC.'),
    ])
    expect(summarizeExtractive(slice)).toBe(
      [
        EXTRACTIVE_LABEL,
        'Goal: Add a CSV export to the report page.',
        "Rules: Never push directly to main. Always use UTC timestamps. Don't touch the prod database.",
        'Commitments: Understood: I will work on a branch and use UTC.',
      ].join('\n'),
    )
  })

  it('keeps the value and the instruction, not only the names; a value a rule quotes is not stated again', () => {
    // "make sure" marks the line; NODE_ENV, production and DATABASE_URL are in it verbatim, so
    // the User stated line would only repeat them: it has just u3's 5432.
    const slice = indexed([
      user('u1', 'Deploy the billing service.'),
      user('u2', 'Set NODE_ENV=production and make sure DATABASE_URL points to the replica.'),
      user('u3', 'The replica listens on port 5432.'),
      assistant('a4', 'Deploying now.'),
    ])
    expect(summarizeExtractive(slice)).toBe(
      [
        EXTRACTIVE_LABEL,
        'Goal: Deploy the billing service.',
        'Rules: Set NODE_ENV=production and make sure DATABASE_URL points to the replica.',
        'User stated: 5432',
      ].join('\n'),
    )
  })

  it('carries the rules across rolling passes, a new pass adding its own after them', () => {
    const first = summarizeExtractive(
      indexed([user('u1', 'Refactor the importer.'), user('u2', 'Always run the linter first.')]),
    )
    expect(first).toBe(
      [EXTRACTIVE_LABEL, 'Goal: Refactor the importer.', 'Rules: Always run the linter first.'].join('\n'),
    )
    const second = summarizeExtractive(
      indexed([assistant('a3', 'Linted.'), user('u4', 'Do not rename public functions.\nThanks')]),
      first,
    )
    expect(second).toBe(
      [
        EXTRACTIVE_LABEL,
        'Goal: Refactor the importer.',
        'Rules: Always run the linter first. | Do not rename public functions.',
      ].join('\n'),
    )
    expect(summarizeExtractive([assistant('a5', 'Working.')], second)).toBe(second)
  })

  it('does not repeat a rule the goal already holds, nor take a rule from the assistant', () => {
    expect(
      summarizeExtractive([user('u1', 'Never delete user data.'), assistant('a2', 'I will never delete anything.')]),
    ).toBe([EXTRACTIVE_LABEL, 'Goal: Never delete user data.', 'Commitments: I will never delete anything.'].join('\n'))
  })

  it(`cut to ${MAX_SUMMARY_CHARS} characters: the rules are kept before the user-stated values`, () => {
    // 60 rules "Never touch file-NN.txt." of 24 code points (NN = 10..69). The cut leaves 5,700:
    // label (39) + "\n" + "Goal: Go." (9) = 49; "\nRules: " + the first rule = 8 + 24 = 32,
    // each further one " | " + 24 = 27: 49 + 32 + 27 × 59 = 1,674. Then 500 order numbers of 8
    // code points: "\nUser stated: " + 8 = 22, each further one 10: 1,674 + 22 + 10 × k ≤ 5,700
    // for k ≤ 400, so 401 fit and 99 do not.
    const rules = Array.from({ length: 60 }, (_, i) => `Never touch file-${10 + i}.txt.`)
    const ids = Array.from({ length: 500 }, (_, i) => `ORD-${1000 + i}`)
    const out = summarizeExtractive([user('u1', 'Go.'), user('u2', rules.join('\n')), user('u3', ids.join(' '))])
    expect(out).toBe(
      [
        EXTRACTIVE_LABEL,
        'Goal: Go.',
        `Rules: ${rules.join(' | ')}`,
        `User stated: ${ids.slice(0, 401).join('; ')}`,
        '[cut to 6,000 characters: 99 user-stated values left out]',
      ].join('\n'),
    )
  })
})

describe('summarizeExtractive: an open question asks something', () => {
  it('drops a question of fewer than 3 words holding no fact span; keeps one holding a fact', () => {
    // u2's "Anything else?" (2 words) and "yes?" (1) ask nothing; "ORD-77?" is one word but a
    // fact span of its message; "Can it ship today?" has 4 words.
    const out = summarizeExtractive(
      indexed([
        user('u1', 'Check my orders.'),
        assistant('a2', 'Found two. Anything else? yes?'),
        user('u3', 'ORD-77? Can it ship today?'),
      ]),
    )
    expect(out).toBe(
      [
        EXTRACTIVE_LABEL,
        'Goal: Check my orders.',
        'User stated: ORD-77',
        'Open questions: ORD-77? | Can it ship today?',
      ].join('\n'),
    )
    expect(summarizeExtractive([user('u1', 'Fix the build.'), assistant('a2', 'Done. Anything else?')])).toBe(
      [EXTRACTIVE_LABEL, 'Goal: Fix the build.', 'Decisions: Done.'].join('\n'),
    )
  })
})
