/**
 * Validity checks: would a provider still accept this transcript? Run on the before and the
 * after side alike; a stage that creates a violation is a bug. Pure functions over the
 * canonical model. Source: SPEC §5.
 */
import type { Message, Transcript, ValidityProblem } from '../model'
import { contentText, isEmptyMessage } from '../content'
import { backReferenceSummary, MIN_LENGTH, summarizeToolOutput } from '../stages/dedupe'
import { isPlaceholderText } from '../stages/prune-tool-results'
import { codePointLength } from '../util/text'
import { pairToolResults } from '../tool-pairs'
import { SUMMARY_ID_PREFIX } from '../stages/output'
import { firstChangedPosition, staleThinkingPositions } from '../stages/thinking'

/** A provider whose request rules the checker knows. */
type Provider = 'openai' | 'anthropic'

/** Options of `checkValidity`. */
export interface CheckOptions {
  /**
   * Whose rules apply (`RULE_PROVIDERS`): `anthropic` adds `result-not-adjacent`,
   * `first-not-user`, `duplicate-system-prompt` and `duplicate-tool-call-id`. Omitted or
   * `openai` (OpenAI Chat Completions, Responses, and the OpenAI-compatible formats): the rules
   * every provider shares.
   */
  provider?: Provider
  /**
   * Calls known to be long-running (answered later, cases/41 `pending_call_ids`): a missing
   * result for them is not reported.
   */
  pendingCallIds?: readonly string[]
  /**
   * The messages are one API response without its request (`Transcript.responseOnly`): the
   * rules about the request's start (`first-not-user`) are not checked, the request is absent.
   */
  responseOnly?: boolean
  /**
   * The messages these were compacted from (a run's Before): `stale-thinking` then counts from
   * the first message the compaction changed (`firstChangedPosition`), not only from a summary.
   */
  before?: readonly Message[]
}

/**
 * The checker's options for a transcript's messages under `provider`: `responseOnly` from
 * `Transcript.responseOnly`. The one place a run (pipeline, recorded views) derives them.
 */
export function checkOptionsFor(
  transcript: Pick<Transcript, 'responseOnly'>,
  provider: Provider,
): CheckOptions {
  return transcript.responseOnly ? { provider, responseOnly: true } : { provider }
}

type Rule = ValidityProblem['rule']
const EVERY: readonly Provider[] = ['openai', 'anthropic']

/**
 * The providers that reject what each rule reports; a rule is checked only for them. One
 * definition, read by `checkValidity` (and its doc lists the same):
 * - Tool pairing (`orphan-tool-result`, `missing-tool-result`) and `empty-message`: every
 *   provider.
 * - `duplicate-system-prompt`: Anthropic only. OpenAI Chat Completions and Responses take any
 *   number of `system` / `developer` messages anywhere in the list, so a prompt sent again is
 *   accepted (Codex re-sends its `developer` messages on later turns, formats.md §4.5); the
 *   Anthropic Messages API takes the system prompt once, as the top-level `system` field, and
 *   has no system role inside `messages` (formats.md §4.3).
 * - `duplicate-tool-call-id`: Anthropic only (it rejects a request whose `tool_use` ids are not
 *   unique); Chat Completions logs reuse ids across steps and pair by position (SWE-agent).
 * - `result-not-adjacent`, `first-not-user`: Anthropic only (formats.md §4.3 "Rules").
 * - `stale-thinking`: Anthropic only (its thinking-block rules, stages/thinking.ts).
 * Source: SPEC §5; formats.md §4.1–§4.3.
 */
const RULE_PROVIDERS: Readonly<Record<Rule, readonly Provider[]>> = {
  'orphan-tool-result': EVERY,
  'missing-tool-result': EVERY,
  'result-not-adjacent': ['anthropic'],
  'first-not-user': ['anthropic'],
  'empty-message': EVERY,
  'duplicate-system-prompt': ['anthropic'],
  'duplicate-tool-call-id': ['anthropic'],
  'stale-thinking': ['anthropic'],
}

/**
 * Whether a request under `options` must open with a user message (`first-not-user` applies):
 * what the pipeline's opening-turn rule (stages/opening-turn.ts) keeps true after every stage.
 */
export function requiresUserFirst(options: CheckOptions): boolean {
  return RULE_PROVIDERS['first-not-user'].includes(options.provider ?? 'openai') && !options.responseOnly
}

/** The wording of every problem the checker reports, one line each, by rule and case. */
const SAY = {
  noCallId: (result: string) => `tool result ${result} has no tool_call_id`,
  noCall: (result: string, callId: string) =>
    `tool result ${result} answers call ${callId}, which no earlier assistant message made`,
  answeredAgain: (result: string, callId: string, first: string) =>
    `tool result ${result} answers call ${callId} again (already answered by ${first})`,
  missing: (callId: string, name: string, at: string, next: string | undefined) =>
    `call ${callId} (${name}) in ${at} has no result before ` +
    (next ? `the next turn (${next})` : 'the end of the transcript'),
  notAdjacent: (result: string, callId: string, call: string, between: Message) =>
    `tool result ${result} for call ${callId} is not directly after ${call}: ` +
    `${between.id} (${between.role}) comes between`,
  firstNotUser: (first: Message) =>
    `the first non-system message ${first.id} is a ${first.role} message, not a user message`,
  empty: (m: Message) => `${m.role} message ${m.id} is empty`,
  systemTwice: (ids: readonly string[]) =>
    `system prompt duplicated: ${ids.join(', ')} have the same text`,
  repeatsSystem: (m: Message, prompt: string) =>
    `${m.role} message ${m.id} repeats the system prompt ${prompt}`,
  callIdReused: (callId: string, first: string, again: string) =>
    `call id ${callId} in ${again} was already used by a call in ${first} ` +
    '(tool_use ids must be unique)',
  staleThinking: (m: Message, changed: string) =>
    `assistant message ${m.id} keeps a signed thinking block of an earlier turn after ${changed}, which the compaction wrote or changed: ` +
    'what the block was signed with is gone, so only the current turn may keep its thinking',
} as const

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
 * message ids involved and a one-line reason. Results pair with calls by position
 * (`pairToolResults`: a result answers the newest earlier unanswered call with its id, so an id
 * reused after its call was answered starts a new pair). Which rules apply to which provider:
 * `RULE_PROVIDERS`.
 * - `orphan-tool-result`: a tool message with no `toolCallId`, answering no call of an
 *   earlier assistant message, or answering a call that already has a result.
 * - `missing-tool-result`: a call with no result before the next turn (the next `user` or
 *   `assistant` message, or the end). Calls awaiting execution at the very end
 *   (`pendingToolCallIds`) and `options.pendingCallIds` are not reported.
 * - `result-not-adjacent` (anthropic): a result not inside the run of tool messages that
 *   directly follows its call's assistant message (the `tool_result` blocks must open the
 *   very next user message).
 * - `first-not-user` (anthropic): the first non-system message is not a `user` message; not
 *   checked for a response without its request (`options.responseOnly`).
 * - `empty-message`: `isEmptyMessage` (no text, no parts of substance, no tool calls), except
 *   a tool result whose content is a string (a tool that printed nothing is a valid answer)
 *   and a final assistant message (an optional prefill, cases/34).
 * - `duplicate-system-prompt` (anthropic): the system prompt (the leading system messages,
 *   which become the top-level `system`) sent twice: two leading system messages with the
 *   same (trimmed) text, or a later message of any role whose whole text is a leading system
 *   prompt again. A mid-conversation system note with other text is not a duplicate
 *   (cases/40), nor are two such notes with the same text.
 * - `duplicate-tool-call-id` (anthropic): a call whose id an earlier call already used.
 * - `stale-thinking` (anthropic): a signed thinking block in an assistant message after a summary
 *   a stage wrote — with `options.before`, after the first message the compaction changed — and
 *   before the latest user message (`staleThinkingPositions`): Anthropic keeps only the current
 *   turn's thinking, and a client-side change invalidates the blocks after it. The problem names
 *   the block's message and that first summary or changed message.
 * Pure; [] means valid. Source: SPEC §5.
 */
export function checkValidity(
  messages: readonly Message[],
  options: CheckOptions = {},
): ValidityProblem[] {
  const provider = options.provider ?? 'openai'
  const applies = (rule: Rule) => RULE_PROVIDERS[rule].includes(provider)
  const orphans: ValidityProblem[] = []
  const missing: ValidityProblem[] = []
  const notAdjacent: ValidityProblem[] = []
  const problems: ValidityProblem[] = []
  const pairs = pairToolResults(messages)

  // Pass 1: results against earlier calls.
  messages.forEach((m, i) => {
    if (m.role !== 'tool') return
    const why = pairs.unpaired[i]
    if (why?.kind === 'no-id') {
      orphans.push({ rule: 'orphan-tool-result', messageIds: [m.id], message: SAY.noCallId(m.id) })
    } else if (why?.kind === 'no-call') {
      orphans.push({
        rule: 'orphan-tool-result',
        messageIds: [m.id],
        message: SAY.noCall(m.id, why.callId),
      })
    } else if (why?.kind === 'answered') {
      const first = messages[why.by]!.id
      orphans.push({
        rule: 'orphan-tool-result',
        messageIds: [m.id, first],
        message: SAY.answeredAgain(m.id, why.callId, first),
      })
    }
    const ref = pairs.callOf[i]
    if (!ref || !applies('result-not-adjacent')) return
    const between = messages.slice(ref.message + 1, i).find((k) => k.role !== 'tool')
    if (between) {
      const call = messages[ref.message]!
      notAdjacent.push({
        rule: 'result-not-adjacent',
        messageIds: [m.id, call.id, between.id],
        message: SAY.notAdjacent(m.id, m.toolCallId ?? '', call.id, between),
      })
    }
  })

  // Pass 2: calls against their results before the next turn.
  const pending = new Set([...pendingToolCallIds(messages), ...(options.pendingCallIds ?? [])])
  messages.forEach((m, i) => {
    const results = pairs.resultOf[i]
    if (!results || !m.toolCalls) return
    let next = i + 1
    while (next < messages.length && !isTurn(messages[next]!)) next++
    m.toolCalls.forEach((call, k) => {
      const at = results[k] ?? -1
      if ((at >= 0 && at < next) || pending.has(call.id)) return
      const nextTurn = messages[next]
      missing.push({
        rule: 'missing-tool-result',
        messageIds: nextTurn ? [m.id, nextTurn.id] : [m.id],
        message: SAY.missing(call.id, call.name, m.id, nextTurn?.id),
      })
    })
  })

  for (const list of [orphans, missing, notAdjacent]) for (const item of list) problems.push(item)

  if (requiresUserFirst(options)) {
    const first = messages.find((m) => m.role !== 'system')
    if (first && first.role !== 'user') {
      const message = SAY.firstNotUser(first)
      problems.push({ rule: 'first-not-user', messageIds: [first.id], message })
    }
  }

  messages.forEach((m, i) => {
    if (m.role === 'tool' && typeof m.content === 'string') return
    if (i === messages.length - 1 && m.role === 'assistant') return
    if (isEmptyMessage(m)) {
      problems.push({ rule: 'empty-message', messageIds: [m.id], message: SAY.empty(m) })
    }
  })

  if (applies('duplicate-system-prompt')) for (const item of duplicateSystemPrompts(messages)) problems.push(item)
  if (applies('duplicate-tool-call-id')) for (const item of reusedCallIds(messages)) problems.push(item)
  if (applies('stale-thinking')) {
    const from = options.before ? firstChangedPosition(messages, options.before) : messages.findIndex((m) => m.id.startsWith(SUMMARY_ID_PREFIX))
    const changed = from === undefined ? '' : (messages[from]?.id ?? '')
    for (const i of from === undefined ? [] : staleThinkingPositions(messages, from)) {
      const m = messages[i]!
      problems.push({ rule: 'stale-thinking', messageIds: [m.id, changed], message: SAY.staleThinking(m, changed) })
    }
  }
  return problems
}

/** `duplicate-system-prompt` (see `checkValidity`). */
function duplicateSystemPrompts(messages: readonly Message[]): ValidityProblem[] {
  const problems: ValidityProblem[] = []
  let lead = 0
  while (lead < messages.length && messages[lead]!.role === 'system') lead++
  const byText = new Map<string, string[]>()
  for (const m of messages.slice(0, lead)) {
    const text = contentText(m.content).trim()
    if (!text) continue
    const ids = byText.get(text)
    if (ids) ids.push(m.id)
    else byText.set(text, [m.id])
  }
  const repeats: ValidityProblem[] = []
  for (const m of messages.slice(lead)) {
    const ids = byText.get(contentText(m.content).trim())
    if (!ids) continue
    // A later system message with the prompt's text is the prompt again: grouped with it.
    if (m.role === 'system') ids.push(m.id)
    else {
      const prompt = ids[0]!
      const message = SAY.repeatsSystem(m, prompt)
      repeats.push({ rule: 'duplicate-system-prompt', messageIds: [prompt, m.id], message })
    }
  }
  for (const ids of byText.values()) {
    if (ids.length < 2) continue
    const message = SAY.systemTwice(ids)
    problems.push({ rule: 'duplicate-system-prompt', messageIds: ids, message })
  }
  return [...problems, ...repeats]
}

/** `duplicate-tool-call-id` (see `checkValidity`): one problem per reuse, naming the first use. */
function reusedCallIds(messages: readonly Message[]): ValidityProblem[] {
  const problems: ValidityProblem[] = []
  const firstAt = new Map<string, string>()
  for (const m of messages) {
    if (m.role !== 'assistant') continue
    for (const call of m.toolCalls ?? []) {
      const first = firstAt.get(call.id)
      if (first === undefined) {
        firstAt.set(call.id, m.id)
        continue
      }
      problems.push({
        rule: 'duplicate-tool-call-id',
        messageIds: first === m.id ? [m.id] : [first, m.id],
        message: SAY.callIdReused(call.id, first, m.id),
      })
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
