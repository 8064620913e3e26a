/**
 * `pin-facts`: facts are copied, never summarized. The goal (first user message, verbatim),
 * the current request (the latest user message, cases/17), standing rules (verbatim lines,
 * cases/16), IDs, order numbers, postal codes, URLs, e-mails, file paths, dates, amounts,
 * in-flight job status (cases/19), completed work and open items ride in one pinned block
 * right after the summary (or after the leading system messages when there is none).
 * Only what the compacting stages took out of the verbatim context is pinned, so an
 * uncompacted context is left alone and the block stays small. Source: seed 004 (pinned
 * facts, verbatim goal), SPEC §3.5.
 */
import { contentText } from '../content'
import { goalMessage, isOrdinaryUser, isSummaryMessage, latestRequest } from '../facts/classify'
import { completionOf, doneLine } from '../facts/completion'
import { decisionSentences, messageFactSpans, instructionLines, jobStatusLines, messageFactText, todoSentences } from '../facts/patterns'
import type { Message, Origin, PinFactsParams } from '../model'
import { cutCodePoints } from '../util/text'
import { unchangedOutput } from './output'
import { readCounts } from './params'
import type { StageContext, StageOutput } from './types'

/** Id of the pinned block. */
export const PINNED_FACTS_ID = 'pinned:facts'

/** Caps of the line sections (rules, jobs, done, open items), in lines each. */
const MAX_SECTION_LINES = 12

/** Cap of the verbatim goal and current request, in code points. */
const PINNED_GOAL_CHAR_CAP = 2000

/** The first line of the block. */
export const PINNED_HEADER = '[Pinned facts — copied verbatim, never summarized]'

/** `PinFactsParams` plus what the pipeline adds. */
export interface PinFactsStageParams extends Partial<PinFactsParams> {
  /**
   * The transcript as imported (the pipeline's before messages). A message of it that is no
   * longer in context with the same id and text was compacted: its facts are candidates.
   * Default: the stage's own input (then only summaries already in it are read).
   */
  original?: readonly Message[]
}

/**
 * Runs `pin-facts` over `messages`.
 *
 * - Compacted sources: messages of `params.original` not in `messages` with the same id and
 *   text, plus summary messages in `messages` themselves (an agent's earlier summary,
 *   `[summary]` turns: cases/20) — facts inside a summary are pinned too.
 * - A fact is pinned only when no verbatim (non-summary) message in context holds it; each fact
 *   once (deduped, also against the lines already in the block).
 * - Block lines: `Goal:`, `Current request:` (when it is another message), `Rules:`, `Facts:`
 *   (at most `max_facts`, default 40, joined with "; "), `Jobs:`, `Done:`, `Open items:` (each
 *   list at most `MAX_SECTION_LINES`); whatever a cap left out is said on a last line.
 * - A rule or open item a later message marked done (facts/completion.ts `completionOf`, by the
 *   user or the assistant) is pinned under `Done:` as `doneLine` (the item, the sentence that
 *   marked it, its message), never as still open; a goal marked done says so after its text.
 * - Placement: a `user` message `PINNED_FACTS_ID` right after the last summary message, else
 *   after the leading system messages; an earlier pinned block is replaced, never stacked.
 * - No change when nothing was compacted or nothing is left to pin.
 * - Bounded by its caps, the block may still cost more than the compaction saved. The pipeline
 *   then refuses it (the context may not end larger than the Before; pipeline.ts
 *   `growthRefusal`): it undoes the compaction, or leaves the block out when nothing else changed.
 * Provenance: origin `pinned-facts` with the source ids; no fates (nothing is removed).
 * Never mutates its input.
 */
export function pinFacts(
  messages: readonly Message[],
  params: PinFactsStageParams | undefined,
  _ctx: StageContext,
): StageOutput {
  const maxFacts = readCounts('pin-facts', params).values.max_facts!
  const context = messages.filter((m) => m.id !== PINNED_FACTS_ID)
  const verbatim = context.filter((m) => !isSummaryMessage(m) && !isSummaryTurn(m))
  const verbatimText = verbatim.map(messageFactText).join('\n\u0000\n')
  const inContext = (text: string) => verbatimText.includes(text)
  const currentText = new Map(context.map((m) => [m.id, messageFactText(m)]))

  const original = params?.original ?? messages
  const compacted = original.filter(
    (m) =>
      m.id !== PINNED_FACTS_ID &&
      (currentText.get(m.id) !== messageFactText(m) || isSummaryMessage(m) || isSummaryTurn(m)),
  )
  for (const m of context)
    if ((isSummaryMessage(m) || isSummaryTurn(m)) && !compacted.includes(m)) compacted.push(m)
  if (compacted.length === 0)
    return unchangedOutput(messages, 'nothing to pin: every message is still verbatim in context')

  const lines: string[] = []
  const sources = new Set<string>()
  const omitted: string[] = []
  const pinned = () => lines.join('\n')
  const fresh = (text: string) => !!text && !inContext(text) && !pinned().includes(text)

  // The latest request is the current goal (cases/17); the first one stays, as the original.
  const goal = goalMessage(original)
  const latest = latestRequest(original)
  const positionOf = new Map(original.map((m, i) => [m.id, i]))
  const doneOf = (text: string, id: string, only: boolean) => completionOf(text, positionOf.get(id) ?? original.length, original, only)
  const request = (m: Message | undefined, label: string) => {
    if (!m || !compacted.includes(m)) return
    const text = contentText(m.content).trim()
    if (!fresh(text)) return
    const done = label === 'Current request' ? undefined : doneOf(text, m.id, false)
    const cut = cutCodePoints(text, PINNED_GOAL_CHAR_CAP)
    lines.push(`${label}: ${done ? doneLine(cut, done) : cut}`)
    sources.add(m.id)
    if ([...text].length > PINNED_GOAL_CHAR_CAP)
      omitted.push(`the ${label.toLowerCase()} was cut to ${PINNED_GOAL_CHAR_CAP} characters`)
  }
  if (latest && latest !== goal) {
    request(latest, 'Current request')
    request(goal, 'Original goal')
  } else request(goal, 'Goal')

  const section = (title: string, items: { text: string; id: string }[], cap: number) => {
    const picked: string[] = []
    let dropped = 0
    for (const item of items) {
      if (!fresh(item.text) || picked.includes(item.text)) continue
      if (picked.length >= cap) {
        dropped++
        continue
      }
      picked.push(item.text)
      sources.add(item.id)
    }
    if (picked.length > 0) lines.push(`${title}:`, ...picked.map((t) => `- ${t}`))
    if (dropped > 0) omitted.push(`${dropped} more ${title.toLowerCase()} line(s)`)
  }
  const collect = (fn: (m: Message) => string[], only: (m: Message) => boolean) =>
    compacted.filter(only).flatMap((m) => fn(m).map((text) => ({ text, id: m.id })))

  // Rules and open items the conversation later marked done go under Done, never stay open.
  const rules = collect((m) => instructionLines(contentText(m.content)), isOrdinaryUser)
  const todos = collect((m) => todoSentences(contentText(m.content)), (m) => m.role !== 'tool')
  const itemsIn = new Map<string, number>()
  for (const item of [...rules, ...todos]) itemsIn.set(item.id, (itemsIn.get(item.id) ?? 0) + 1)
  const markedDone: { text: string; id: string }[] = []
  const stillOpen = (items: { text: string; id: string }[]) =>
    items.filter((item) => {
      const done = doneOf(item.text, item.id, itemsIn.get(item.id) === 1)
      if (done === undefined) return true
      // Pinned as done even when the goal quotes it: the goal line says nothing of its state.
      if (!inContext(item.text)) markedDone.push({ text: doneLine(item.text, done), id: item.id })
      return false
    })
  const openRules = stillOpen(rules)
  const openTodos = stillOpen(todos)
  section('Rules', openRules, MAX_SECTION_LINES)

  const facts: string[] = []
  let moreFacts = 0
  for (const m of compacted) {
    for (const span of messageFactSpans(m)) {
      if (!fresh(span.fact) || facts.includes(span.fact)) continue
      if (facts.length >= maxFacts) {
        moreFacts++
        continue
      }
      facts.push(span.fact)
      sources.add(m.id)
    }
  }
  if (facts.length > 0) lines.push(`Facts: ${facts.join('; ')}`)
  if (moreFacts > 0) omitted.push(`${moreFacts} more fact(s) (cap max_facts ${maxFacts})`)

  section(
    'Jobs',
    collect((m) => jobStatusLines(contentText(m.content)), (m) => m.role === 'tool'),
    MAX_SECTION_LINES,
  )
  section(
    'Done',
    [...markedDone, ...collect((m) => decisionSentences(contentText(m.content)), (m) => m.role === 'assistant')],
    MAX_SECTION_LINES,
  )
  section('Open items', openTodos, MAX_SECTION_LINES)

  if (lines.length === 0)
    return unchangedOutput(messages, 'nothing to pin: every fact is still verbatim in context')
  if (omitted.length > 0) lines.push(`(Not pinned, caps reached: ${omitted.join('; ')}.)`)

  let at = -1
  context.forEach((m, i) => {
    if (isSummaryMessage(m)) at = i
  })
  if (at === -1) {
    at = 0
    while (at < context.length && context[at]?.role === 'system') at++
    at -= 1
  }
  const block: Message = {
    id: PINNED_FACTS_ID,
    index: at + 1,
    role: 'user',
    content: `${PINNED_HEADER}\n${lines.join('\n')}`,
    source: { format: context[0]?.source.format ?? 'canonical' },
  }
  const out = [...context.slice(0, at + 1), block, ...context.slice(at + 1)]
  const origins: Record<string, Origin> = {
    [PINNED_FACTS_ID]: { kind: 'pinned-facts', stage: 'pin-facts', sourceIds: [...sources] },
  }
  return { messages: out, changed: true, fates: {}, origins, passes: [], warnings: [] }
}

/** A summary pasted back as a user turn (`[summary]` first, cases/20). */
function isSummaryTurn(m: Message): boolean {
  return m.role !== 'tool' && /^\s*\[summary\]/i.test(contentText(m.content))
}
