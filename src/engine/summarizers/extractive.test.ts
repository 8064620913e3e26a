import { describe, expect, it } from 'vitest'
import type { Message } from '../model'
import { assistant, indexed, system, toolResult, user } from '../stages/test-helpers'
import { countMessageTokens } from '../tokens/count'
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

  it('lists the goal verbatim, facts, tools with counts and open items, labelled', () => {
    expect(summarizeExtractive(slice)).toBe(
      [
        EXTRACTIVE_LABEL,
        'Goal: Where is my order ORD-58213? Ship to CEP 01310-100.',
        'Facts: 2024-03-01; https://track.example.com/X1',
        'Tools used: lookup_order ×2',
        'Open items: TODO: confirm the new street | Can you change the address?',
      ].join('\n'),
    )
  })

  it('says it is not an LLM', () => {
    expect(EXTRACTIVE_LABEL).toBe('offline extractive summary (not an LLM)')
  })

  it('folds the previous summary in: its goal, facts, tool counts survive', () => {
    const first = summarizeExtractive(slice)
    const next = summarizeExtractive(
      indexed([user('u8', 'Use 12 Rua Augusta, apt 4.'), assistant('a9', 'Updated.', [])]),
      first,
    )
    expect(next).toBe(
      [
        EXTRACTIVE_LABEL,
        'Goal: Where is my order ORD-58213? Ship to CEP 01310-100.',
        'Facts: 2024-03-01; https://track.example.com/X1',
        'Tools used: lookup_order ×2',
        'Open items: TODO: confirm the new street | Can you change the address?',
      ].join('\n'),
    )
  })

  it('extracts facts from a previous summary of any origin (an LLM prose summary)', () => {
    const out = summarizeExtractive(
      indexed([user('u', 'ok')]),
      'The customer wants ORD-99 delivered to 04538-132.',
    )
    expect(out).toContain('Facts: ORD-99; 04538-132')
    expect(out).toContain('Goal: ok')
  })

  it('caps the goal and the facts', () => {
    const long = user('u', `${'g'.repeat(GOAL_CHAR_CAP + 10)}`)
    expect(summarizeExtractive([long])).toBe(
      `${EXTRACTIVE_LABEL}\nGoal: ${'g'.repeat(GOAL_CHAR_CAP)}`,
    )
    const many = Array.from({ length: 60 }, (_, i) => `ID-${1000 + i}`).join(' ')
    const facts = summarizeExtractive([user('u', 'go'), assistant('a', many)]).split('\n')[2] ?? ''
    expect(facts.split('; ')).toHaveLength(MAX_FACTS)
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
