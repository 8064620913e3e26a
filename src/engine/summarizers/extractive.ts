/**
 * The offline extractive summarizer: no model, no network. It copies what a summary must never
 * lose — the goal, facts, tools used, open items — out of the messages themselves, so its
 * output is deterministic and every fact in it appears in what it summarized (or in the
 * previous summary it folds in). Source: SPEC §3.6, seed 004 (pinned facts, verbatim goal).
 */
import { contentText } from '../content'
import { isOrdinaryUser, isSummaryMessage } from '../facts/classify'
import { findFactSpansMemo, messageFactSpans, questionRuns, todoSentences } from '../facts/patterns'
import type { Message } from '../model'
import { cutCodePoints } from '../util/text'
import type { Summarizer, SummaryRequest } from '../stages/types'

/** The first line of every extractive summary, so no one mistakes it for a model's prose. */
export const EXTRACTIVE_LABEL = 'offline extractive summary (not an LLM)'

/** Cap of the verbatim goal, in code points. */
export const GOAL_CHAR_CAP = 500

/** At most this many facts, in order of first appearance (previous summary first). */
export const MAX_FACTS = 40

/** At most this many open items. */
const MAX_OPEN_ITEMS = 5

/** Cap of one open item, in code points. */
const OPEN_ITEM_CHAR_CAP = 200

/**
 * Facts in `text`, in order of first appearance, deduplicated, each cut to `FACT_CHAR_CAP`:
 * the shared patterns of facts.ts (`findFactSpans`), so the summary and the fact finder agree.
 */
export function extractFacts(text: string): string[] {
  return findFactSpansMemo(text).map((s) => s.fact)
}

/** The "Label: value" line of a previous extractive summary, if it has one. */
function previousLine(previous: string | undefined, label: string): string | undefined {
  if (!previous) return undefined
  const prefix = `${label}: `
  for (const line of previous.split('\n'))
    if (line.startsWith(prefix)) return line.slice(prefix.length)
  return undefined
}

/**
 * Open items: TODO-like lines anywhere, and the questions of a last user message nobody answered
 * yet.
 */
function openItems(slice: readonly Message[]): string[] {
  const items: string[] = []
  for (const m of slice) {
    if (m.role === 'tool') continue
    // The sentence that holds the marker, not its whole line.
    for (const s of todoSentences(contentText(m.content))) items.push(s)
  }
  const lastUser = [...slice].reverse().findIndex(isOrdinaryUser)
  if (lastUser !== -1) {
    const m = slice[slice.length - 1 - lastUser] as Message
    // Answered when any assistant message follows it inside the slice.
    const answered = slice.slice(slice.length - lastUser).some((x) => x.role === 'assistant')
    if (!answered) {
      for (const q of questionRuns(contentText(m.content))) items.push(q.trim())
    }
  }
  const out: string[] = []
  for (const item of items) {
    if (out.length === MAX_OPEN_ITEMS) break
    const cut = cutCodePoints(item.replace(/\s+/g, ' '), OPEN_ITEM_CHAR_CAP)
    if (cut && !out.includes(cut)) out.push(cut)
  }
  return out
}

/**
 * The extractive summary of `slice`, folding in `previous` (a previous summary of any origin).
 *
 * Lines, each omitted when empty:
 * - `EXTRACTIVE_LABEL`
 * - `Goal: ` the first ordinary user message, verbatim (trimmed, cut to `GOAL_CHAR_CAP` code
 *   points); a previous extractive summary's goal wins, since it came earlier;
 * - `Facts: ` IDs, order numbers, postal codes, URLs, e-mails, file paths, dates, amounts —
 *   the previous summary's first (so they survive every pass), then the slice's; at most
 *   `MAX_FACTS`, joined with "; ";
 * - `Tools used: ` name ×count, counts added to the previous summary's, in first-use order;
 * - `Open items: ` TODO-like lines and the unanswered questions of the last user message (the
 *   previous summary's items when the slice has none), joined with " | ".
 * '' when `slice` is empty and there is no previous summary. Pure and deterministic.
 * Source: SPEC §3.6, seed 004.
 */
export function summarizeExtractive(slice: readonly Message[], previous?: string): string {
  if (slice.length === 0 && !previous?.trim()) return ''
  const lines = [EXTRACTIVE_LABEL]

  const firstUser = slice.find(isOrdinaryUser)
  const goal =
    previousLine(previous, 'Goal') ??
    (firstUser ? cutCodePoints(contentText(firstUser.content).trim(), GOAL_CHAR_CAP) : '')
  if (goal) lines.push(`Goal: ${goal}`)

  const facts: string[] = []
  const goalFacts = new Set(goal ? extractFacts(goal) : [])
  const listed = new Set<string>()
  const add = (fact: string) => {
    // A fact already quoted in the goal is not repeated; only the first MAX_FACTS are shown.
    if (facts.length < MAX_FACTS && !goalFacts.has(fact) && !listed.has(fact)) {
      listed.add(fact)
      facts.push(fact)
    }
  }
  if (previous) {
    const factsLine = previousLine(previous, 'Facts')
    if (factsLine !== undefined) for (const f of factsLine.split('; ')) add(f)
    else for (const f of extractFacts(previous)) add(f)
  }
  // A message's text and tool-call arguments, scanned once per message (shared with re-plans).
  for (const m of slice) for (const s of messageFactSpans(m)) add(s.fact)
  if (facts.length > 0) lines.push(`Facts: ${facts.join('; ')}`)

  const tools = new Map<string, number>()
  for (const entry of previousLine(previous, 'Tools used')?.split(', ') ?? []) {
    const m = /^(.*) ×(\d+)$/.exec(entry)
    if (m?.[1]) tools.set(m[1], (tools.get(m[1]) ?? 0) + Number(m[2]))
  }
  for (const m of slice)
    for (const call of m.toolCalls ?? []) tools.set(call.name, (tools.get(call.name) ?? 0) + 1)
  if (tools.size > 0)
    lines.push(`Tools used: ${[...tools].map(([n, c]) => `${n} ×${c}`).join(', ')}`)

  let open = openItems(slice)
  if (open.length === 0)
    open = previousLine(previous, 'Open items')?.split(' | ').filter(Boolean) ?? []
  if (open.length > 0) lines.push(`Open items: ${open.join(' | ')}`)

  return lines.join('\n')
}

/**
 * The extractive summarizer as a `Summarizer`. For `insert-then-compress` the answer is wrapped
 * in `<summary>` tags (the format that stage's instruction asks for). Never rejects.
 */
export const extractiveSummarizer: Summarizer = (request: SummaryRequest) => {
  // A summary already in the slice (an earlier stage's, or the agent's recorded one) is folded
  // in like a previous summary, never read as the user's goal or nested inside the new one.
  const earlier = request.slice.filter(isSummaryMessage)
  const slice = earlier.length ? request.slice.filter((m) => !isSummaryMessage(m)) : request.slice
  const previous = [request.previous, ...earlier.map((m) => contentText(m.content))]
    .filter((s): s is string => !!s?.trim())
    .join('\n')
  const text = summarizeExtractive(slice, previous || undefined)
  if (request.stage === 'insert-then-compress' && text)
    return Promise.resolve(`<summary>\n${text}\n</summary>`)
  return Promise.resolve(text)
}
