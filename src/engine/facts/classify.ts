/**
 * Message classification the fact code shares: which messages are summaries, which the human
 * typed, the goal and the current request. Pure. Source: SPEC §3.5, seed 004, cases/17, cases/20.
 */
import { contentText } from '../content'
import type { Message } from '../model'
import { SUMMARY_ID_PREFIX } from '../stages/output'

/**
 * A summary message: one a stage synthesized (`summary:` ids), the agent's own recorded one, or a
 * user message that opens with a `[summary]` marker (a summary pasted back as a user turn,
 * cases/20).
 */
export function isSummaryMessage(m: Message): boolean {
  return (
    m.id.startsWith(SUMMARY_ID_PREFIX) ||
    m.flags?.compactSummary === true ||
    (m.role === 'user' && /^\s*\[summary\]/i.test(contentText(m.content)))
  )
}

/** A message the human typed: `user`, not injected, not a command echo, not a summary. */
export function isOrdinaryUser(m: Message): boolean {
  return (
    m.role === 'user' &&
    !m.flags?.injected &&
    !m.flags?.command &&
    !isSummaryMessage(m)
  )
}

/**
 * The goal: the first ordinary user message, trimmed, verbatim. Undefined when there is none.
 * Source: seed 004 "goal hamesha VERBATIM pin rehta hai".
 */
export function goalMessage(messages: readonly Message[]): Message | undefined {
  return messages.find((m) => isOrdinaryUser(m) && contentText(m.content).trim() !== '')
}

/** The latest ordinary user message (the current request, cases/17). */
export function latestRequest(messages: readonly Message[]): Message | undefined {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i] as Message
    if (isOrdinaryUser(m) && contentText(m.content).trim() !== '') return m
  }
  return undefined
}
