import { describe, expect, it } from 'vitest'
import type { Message } from '../model'
import { PINNED_FACTS_ID, PINNED_HEADER, pinFacts } from './pin-facts'
import { assistant, countCodePoints, deepFreeze, indexed, makeContext, system, toolResult, user } from './test-helpers'

const ctx = makeContext(countCodePoints)

const original = deepFreeze(
  indexed([
    system('s', 'You are a coding agent.'),
    user('u1', "Fix ORD-58213 quotes for 94107.\nDon't change quote_for() in src/quote/api.py"),
    assistant('a2', null, [{ id: 'c1', name: 'read', arguments: '{"path":"src/quote/rates.py"}' }]),
    toolResult('t3', 'c1', 'def rate(zone): reads data/zones.csv', 'read'),
    assistant('a4', 'Fixed the zone lookup. TODO: cover zone 9.'),
    user('u5', 'Now add a test.'),
  ]),
)
const summary: Message = {
  id: 'summary:summarize:1',
  index: 1,
  role: 'user',
  content: '[Summary of messages 1–4 (pass 1)]\nWe fixed quotes.',
  source: { format: 'canonical' },
}
/** What summarize would leave: system, summary, the last request. */
const compacted = deepFreeze([original[0] as Message, summary, original[5] as Message])

describe('pin-facts (seed 004, SPEC §3.5)', () => {
  it('pins the goal, rules, facts, done work and open items of what was compacted, after the summary', () => {
    const out = pinFacts(compacted, { original }, ctx)
    expect(out.changed).toBe(true)
    expect(out.messages.map((m) => m.id)).toEqual(['s', 'summary:summarize:1', PINNED_FACTS_ID, 'u5'])
    expect(out.messages[2]?.content).toBe(
      [
        PINNED_HEADER,
        // The latest request (u5) is still in context; the first one is the original goal.
        "Original goal: Fix ORD-58213 quotes for 94107.\nDon't change quote_for() in src/quote/api.py",
        'Facts: src/quote/rates.py; data/zones.csv',
        'Done:',
        '- Fixed the zone lookup.',
        'Open items:',
        '- TODO: cover zone 9.',
      ].join('\n'),
    )
    expect(out.origins[PINNED_FACTS_ID]).toEqual({
      kind: 'pinned-facts',
      stage: 'pin-facts',
      sourceIds: ['u1', 'a2', 't3', 'a4'],
    })
    expect(out.fates).toEqual({})
  })

  it('nothing compacted → no change (an uncompacted context never gets a block)', () => {
    const out = pinFacts(original, { original }, ctx)
    expect(out.changed).toBe(false)
    expect(out.messages).toBe(original)
  })

  it('without a summary the block goes right after the leading system messages', () => {
    const pruned = [
      original[0] as Message,
      original[1] as Message,
      original[2] as Message,
      { ...(original[3] as Message), content: 'Result dropped.' },
      original[4] as Message,
      original[5] as Message,
    ]
    const out = pinFacts(pruned, { original }, ctx)
    expect(out.messages.map((m) => m.id)).toEqual(['s', PINNED_FACTS_ID, 'u1', 'a2', 't3', 'a4', 'u5'])
    // Everything else is still verbatim in context: only the pruned result's path is pinned.
    expect(out.messages[1]?.content).toBe(`${PINNED_HEADER}\nFacts: data/zones.csv`)
  })

  it('caps facts and says so; an earlier block is replaced, never stacked', () => {
    const many = indexed([
      user('u0', 'go'),
      assistant('a1', Array.from({ length: 6 }, (_, i) => `ID-${100 + i}`).join(' ')),
      user('u2', 'ok'),
    ])
    const ctxMsgs = [many[2] as Message]
    const out = pinFacts(ctxMsgs, { original: many, max_facts: 2 }, ctx)
    const text = String(out.messages.find((m) => m.id === PINNED_FACTS_ID)?.content)
    expect(text).toContain('Facts: ID-100; ID-101\n')
    expect(text).toContain('(Not pinned, caps reached: 4 more fact(s) (cap max_facts 2).)')
    const again = pinFacts(out.messages, { original: many, max_facts: 2 }, ctx)
    expect(again.messages.filter((m) => m.id === PINNED_FACTS_ID)).toHaveLength(1)
  })
})
