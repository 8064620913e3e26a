/**
 * pin-facts and the extractive summary never pin or list as open an instruction or open item the
 * conversation later marked done — by the user or the assistant, in any of several phrasings and
 * languages: it is pinned under "Done:" with the sentence that marked it. One still open (only
 * promised, or denied) stays an open item.
 */
import { describe, expect, it } from 'vitest'
import type { Message } from '../model'
import { summarizeExtractive } from '../summarizers/extractive'
import { PINNED_FACTS_ID, PINNED_HEADER, pinFacts } from './pin-facts'
import { assistant, countCodePoints, deepFreeze, indexed, makeContext, system, user } from './test-helpers'

const ctx = makeContext(countCodePoints)

/**
 * A chat whose first turns hold an open item (in the assistant's reply) and a rule-like
 * instruction (the user's), then `marking` by `who`, then a new request still in context.
 */
function chat(marking: string, who: 'user' | 'assistant'): readonly Message[] {
  return deepFreeze(
    indexed([
      system('s', 'You are a coding agent.'),
      user('u1', 'Port the retry helper to httpx.'),
      assistant('a2', 'Ported net/retry.py. TODO: add a timeout test for the retry helper.'),
      user('u3', 'Make sure to update the CHANGELOG for the 2.1 release.'),
      who === 'user' ? user('x4', marking) : assistant('x4', marking),
      user('u5', 'Now bump the version.'),
    ]),
  )
}
const summary = (to: number): Message => ({
  id: 'summary:summarize:1',
  index: 1,
  role: 'user',
  content: `[Summary of messages 1–${to} (pass 1)]\nRetry helper ported.`,
  source: { format: 'canonical' },
})
/** What summarize leaves: the system prompt, the summary of #1–#4, the last request. */
const afterSummary = (original: readonly Message[]) => [original[0]!, summary(4), original[5]!]
const pinnedText = (original: readonly Message[]) =>
  String(pinFacts(afterSummary(original), { original }, ctx).messages.find((m) => m.id === PINNED_FACTS_ID)?.content)

const TEST_DONE: readonly (readonly [string, 'user' | 'assistant'])[] = [
  ['Added the timeout test for the retry helper; it passes.', 'assistant'],
  ['The retry helper timeout test is written and green.', 'assistant'],
  ['- [x] timeout test for the retry helper', 'user'],
  ['Den Timeout-Test für den Retry-Helper habe ich hinzugefügt.', 'assistant'],
  ['Le test de timeout du retry helper est ajouté.', 'assistant'],
  ['Ya agregué el test de timeout del retry helper, todo verde.', 'user'],
  ['Тест таймаута для retry helper добавлен, всё зелёное.', 'assistant'],
]

describe('pin-facts: an item marked done is pinned as done', () => {
  for (const [marking, who] of TEST_DONE) {
    it(`the open item, marked done by the ${who}: "${marking}"`, () => {
      const text = pinnedText(chat(marking, who))
      expect(text).toContain(`- TODO: add a timeout test for the retry helper. — done: "${marking}" (#4)`)
      expect(text).not.toContain('Open items:')
    })
  }

  it('the instruction, marked done: under Done with its evidence, not under Rules', () => {
    const text = pinnedText(chat('CHANGELOG updated for the 2.1 release.', 'assistant'))
    expect(text).toBe(
      [
        PINNED_HEADER,
        'Original goal: Port the retry helper to httpx.',
        'Facts: net/retry.py',
        'Done:',
        '- Make sure to update the CHANGELOG for the 2.1 release. — done: "CHANGELOG updated for the 2.1 release." (#4)',
        'Open items:',
        '- TODO: add a timeout test for the retry helper.',
      ].join('\n'),
    )
  })

  it('a done instruction the goal quotes verbatim: the goal stays verbatim, and Done says it was done', () => {
    const original = deepFreeze(
      indexed([
        user('u0', 'Port the retry helper to httpx.\nMake sure to update the CHANGELOG for the 2.1 release.'),
        assistant('a1', 'Ported. CHANGELOG updated for the 2.1 release.'),
        user('u2', 'Now bump the version.'),
      ]),
    )
    const out = pinFacts([summary(1), original[2]!], { original }, ctx)
    expect(out.messages[1]?.content).toBe(
      [
        PINNED_HEADER,
        'Original goal: Port the retry helper to httpx.\nMake sure to update the CHANGELOG for the 2.1 release.',
        'Done:',
        '- Make sure to update the CHANGELOG for the 2.1 release. — done: "CHANGELOG updated for the 2.1 release." (#1)',
      ].join('\n'),
    )
  })

  for (const marking of [
    "I'll add the timeout test for the retry helper next.",
    'The timeout test for the retry helper is not written yet.',
    'Der Timeout-Test für den Retry-Helper ist noch nicht fertig.',
    'Is the timeout test for the retry helper done?',
  ]) {
    it(`still open after "${marking}"`, () => {
      const text = pinnedText(chat(marking, 'assistant'))
      expect(text).toContain('Open items:\n- TODO: add a timeout test for the retry helper.')
      expect(text).not.toContain('— done:')
    })
  }
})

describe('the extractive summary: an item marked done is not an open item', () => {
  it('an instruction done in the same slice: with the decisions as done, not under Rules', () => {
    const original = chat('CHANGELOG updated for the 2.1 release.', 'assistant')
    const text = summarizeExtractive(original.slice(1, 5))
    expect(text).not.toContain('Rules:')
    expect(text).toContain('Make sure to update the CHANGELOG for the 2.1 release. — done: "CHANGELOG updated for the 2.1 release." (#4)')
  })

  it('a standing constraint stays a rule in the pinned block and the summary, whatever is said later', () => {
    const original = deepFreeze(
      indexed([
        system('s', 'You are a coding agent.'),
        user('u1', 'Port the retry helper to httpx.'),
        user('u2', 'Never push directly to main.'),
        assistant('a3', 'Done: pushed to a branch, never directly to main.'),
        user('u4', 'Now bump the version.'),
      ]),
    )
    const pinned = String(pinFacts([original[0]!, summary(3), original[4]!], { original }, ctx).messages[2]?.content)
    expect(pinned).toContain('Rules:\n- Never push directly to main.')
    expect(summarizeExtractive(original.slice(1, 4))).toContain('Rules: Never push directly to main.')
  })

  it('done in the same slice: listed with the decisions as done, not under Open items', () => {
    const original = chat('Added the timeout test for the retry helper; it passes.', 'assistant')
    const text = summarizeExtractive(original.slice(1, 5))
    expect(text).not.toContain('Open items:')
    expect(text).toContain('TODO: add a timeout test for the retry helper. — done: "Added the timeout test for the retry helper; it passes." (#4)')
  })

  it('an open item of the previous summary, done in the new slice, is no longer open', () => {
    const first = summarizeExtractive(chat('Looks fine.', 'user').slice(1, 4))
    expect(first).toContain('Open items: TODO: add a timeout test for the retry helper.')
    const next = summarizeExtractive(indexed([user('u6', 'Status?'), assistant('a7', 'The retry helper timeout test is done.')]), first)
    expect(next).not.toContain('Open items:')
    expect(next).toContain('TODO: add a timeout test for the retry helper. — done: "The retry helper timeout test is done." (#1)')
  })
})
