/**
 * Validity checks: would a provider still accept this transcript? Run on the before and the
 * after side alike; a stage that creates a violation is a bug. Pure functions over the
 * canonical model. Source: SPEC §5.
 */
import type { Message, ValidityProblem } from './model'
import { contentText, isEmptyMessage } from './content'
import { backReferenceSummary, MIN_LENGTH, summarizeToolOutput } from './stages/dedupe'
import { isPlaceholderText } from './stages/prune-tool-results'
import { codePointLength } from './text'

/** Options of `checkValidity`. */
export interface CheckOptions {
  /**
   * Adds the provider's own rules. `anthropic`: `result-not-adjacent` and `first-not-user`.
   * Omitted or `openai`: only the rules every provider shares.
   */
  provider?: 'openai' | 'anthropic'
  /**
   * Calls known to be long-running (answered later, cases/41 `pending_call_ids`): a missing
   * result for them is not reported.
   */
  pendingCallIds?: readonly string[]
}

/**
 * Ids of the tool calls awaiting execution at the very end of the transcript: the calls of the
 * last non-`tool` message, when it is an assistant message with tool calls, that no tool
 * message after it answers yet (a parallel batch may be partly answered). In call order;
 * [] otherwise. Such calls are pending, not invalid. Source: cases/01, cases/41.
 */
export function pendingToolCallIds(messages: readonly Message[]): string[] {
  let last = messages.length - 1
  while (last >= 0 && messages[last]!.role === 'tool') last--
  const final = messages[last]
  if (!final || final.role !== 'assistant' || !final.toolCalls) return []
  const answered = new Set(messages.slice(last + 1).map((m) => m.toolCallId))
  return final.toolCalls.filter((c) => !answered.has(c.id)).map((c) => c.id)
}

const isTurn = (m: Message) => m.role === 'user' || m.role === 'assistant'

/**
 * The problems a provider would reject `messages` for, in rule order, each naming the
 * message ids involved and a one-line reason:
 * - `orphan-tool-result`: a tool message with no `toolCallId`, answering no call of an
 *   earlier assistant message, or answering a call that already has a result.
 * - `missing-tool-result`: a call with no result before the next turn (the next `user` or
 *   `assistant` message, or the end). Calls awaiting execution at the very end
 *   (`pendingToolCallIds`) and `options.pendingCallIds` are not reported.
 * - `result-not-adjacent` (anthropic): a result not inside the run of tool messages that
 *   directly follows its call's assistant message (the `tool_result` blocks must open the
 *   very next user message).
 * - `first-not-user` (anthropic): the first non-system message is not a `user` message.
 * - `empty-message`: `isEmptyMessage` (no text, no parts of substance, no tool calls), except
 *   a tool result whose content is a string (a tool that printed nothing is a valid answer)
 *   and a final assistant message (an optional prefill, cases/34).
 * - `duplicate-system-prompt`: two system messages with the same (trimmed) text, or a later
 *   message of any role whose whole text is a leading system prompt again. A mid-conversation
 *   system note with other text is not a duplicate (cases/40).
 * Pure; [] means valid. Source: SPEC §5.
 */
export function checkValidity(
  messages: readonly Message[],
  options: CheckOptions = {},
): ValidityProblem[] {
  const orphans: ValidityProblem[] = []
  const missing: ValidityProblem[] = []
  const notAdjacent: ValidityProblem[] = []
  const problems: ValidityProblem[] = []

  // Pass 1: results against earlier calls.
  const callAt = new Map<string, number>()
  const resultOf = new Map<string, string>()
  messages.forEach((m, i) => {
    if (m.role === 'assistant' && m.toolCalls) {
      for (const call of m.toolCalls) callAt.set(call.id, i)
      return
    }
    if (m.role !== 'tool') return
    const callId = m.toolCallId
    if (callId === undefined) {
      orphans.push({ rule: 'orphan-tool-result', messageIds: [m.id], message: `tool result ${m.id} has no tool_call_id` })
      return
    }
    const at = callAt.get(callId)
    if (at === undefined) {
      orphans.push({
        rule: 'orphan-tool-result',
        messageIds: [m.id],
        message: `tool result ${m.id} answers call ${callId}, which no earlier assistant message made`,
      })
      return
    }
    const first = resultOf.get(callId)
    if (first !== undefined) {
      orphans.push({
        rule: 'orphan-tool-result',
        messageIds: [m.id, first],
        message: `tool result ${m.id} answers call ${callId} again (already answered by ${first})`,
      })
      return
    }
    resultOf.set(callId, m.id)
    if (options.provider === 'anthropic') {
      const between = messages.slice(at + 1, i).find((k) => k.role !== 'tool')
      if (between) {
        const call = messages[at]!
        notAdjacent.push({
          rule: 'result-not-adjacent',
          messageIds: [m.id, call.id, between.id],
          message: `tool result ${m.id} for call ${callId} is not directly after ${call.id}: ${between.id} (${between.role}) comes between`,
        })
      }
    }
  })

  // Pass 2: calls against the results before the next turn.
  const pending = new Set([...pendingToolCallIds(messages), ...(options.pendingCallIds ?? [])])
  messages.forEach((m, i) => {
    if (m.role !== 'assistant' || !m.toolCalls) return
    let next = i + 1
    while (next < messages.length && !isTurn(messages[next]!)) next++
    const answered = new Set(messages.slice(i + 1, next).map((k) => k.toolCallId))
    for (const call of m.toolCalls) {
      if (answered.has(call.id) || pending.has(call.id)) continue
      const nextTurn = messages[next]
      missing.push({
        rule: 'missing-tool-result',
        messageIds: nextTurn ? [m.id, nextTurn.id] : [m.id],
        message: `call ${call.id} (${call.name}) in ${m.id} has no result before ${nextTurn ? `the next turn (${nextTurn.id})` : 'the end of the transcript'}`,
      })
    }
  })

  problems.push(...orphans, ...missing, ...notAdjacent)

  if (options.provider === 'anthropic') {
    const first = messages.find((m) => m.role !== 'system')
    if (first && first.role !== 'user') {
      problems.push({
        rule: 'first-not-user',
        messageIds: [first.id],
        message: `the first non-system message ${first.id} is a ${first.role} message, not a user message`,
      })
    }
  }

  messages.forEach((m, i) => {
    if (m.role === 'tool' && typeof m.content === 'string') return
    if (i === messages.length - 1 && m.role === 'assistant') return
    if (isEmptyMessage(m)) {
      problems.push({ rule: 'empty-message', messageIds: [m.id], message: `${m.role} message ${m.id} is empty` })
    }
  })

  problems.push(...duplicateSystemPrompts(messages))
  return problems
}

function duplicateSystemPrompts(messages: readonly Message[]): ValidityProblem[] {
  const problems: ValidityProblem[] = []
  const byText = new Map<string, string[]>()
  for (const m of messages) {
    if (m.role !== 'system') continue
    const text = contentText(m.content).trim()
    if (!text) continue
    const ids = byText.get(text)
    if (ids) ids.push(m.id)
    else byText.set(text, [m.id])
  }
  for (const ids of byText.values()) {
    if (ids.length < 2) continue
    problems.push({
      rule: 'duplicate-system-prompt',
      messageIds: ids,
      message: `system prompt duplicated: ${ids.join(', ')} have the same text`,
    })
  }

  let lead = 0
  while (lead < messages.length && messages[lead]!.role === 'system') lead++
  for (const prompt of messages.slice(0, lead)) {
    const text = contentText(prompt.content).trim()
    if (!text) continue
    for (const m of messages.slice(lead)) {
      if (m.role === 'system') continue // already grouped above
      if (contentText(m.content).trim() === text) {
        problems.push({
          rule: 'duplicate-system-prompt',
          messageIds: [prompt.id, m.id],
          message: `${m.role} message ${m.id} repeats the system prompt ${prompt.id}`,
        })
      }
    }
  }
  return problems
}

/** A back-reference whose first occurrence is no longer in context. */
export interface DanglingBackReference {
  /** The back-reference message. */
  id: string
  /** The first occurrence it stands for, when known (explicit map). */
  firstId?: string
  message: string
}

/**
 * Back-references that point at content no longer in context: the first occurrence is gone,
 * or it is now a placeholder or a back-reference itself. With `backReferences`
 * (back-reference id → first id, e.g. `backReferencesFromOrigins` of dedupe) the check is
 * exact; without, a back-reference is recognised by its text and is fine if some earlier
 * long tool result with whole content has the same one-line summary. Source: cases/47
 * ("no back-reference may point to content that is no longer in context").
 */
export function findDanglingBackReferences(
  messages: readonly Message[],
  backReferences?: Readonly<Record<string, string>>,
): DanglingBackReference[] {
  const found: DanglingBackReference[] = []
  const holdsContent = (m: Message | undefined) =>
    m !== undefined && !isPlaceholderText(m.content) && backReferenceSummary(m.content) === undefined

  if (backReferences) {
    const byId = new Map(messages.map((m, i) => [m.id, { m, i }]))
    messages.forEach((m, i) => {
      const firstId = backReferences[m.id]
      // A back-reference already turned into something else is no longer a reference.
      if (firstId === undefined || backReferenceSummary(m.content) === undefined) return
      const first = byId.get(firstId)
      if (!first || first.i >= i || !holdsContent(first.m)) {
        found.push({ id: m.id, firstId, message: `back-reference ${m.id} points at ${firstId}, which is no longer in context` })
      }
    })
    return found
  }

  const summaries = new Set<string>()
  for (const m of messages) {
    if (m.role !== 'tool' || typeof m.content !== 'string') continue
    const summary = backReferenceSummary(m.content)
    if (summary === undefined) {
      if (!isPlaceholderText(m.content) && codePointLength(m.content) >= MIN_LENGTH) {
        summaries.add(summarizeToolOutput(m.content))
      }
    } else if (!summaries.has(summary)) {
      found.push({ id: m.id, message: `back-reference ${m.id} has no earlier result with the summary "${summary}" in context` })
    }
  }
  return found
}
