/**
 * The offline extractive summarizer: no model, no network. It copies what a summary must never
 * lose out of the messages themselves — the user's standing rules verbatim (seed 004
 * "constraints hamesha full text"), then seed 001's preserve list (every value the user
 * stated, every commitment the assistant made, what is still unanswered, decisions already
 * made), then the other facts that are not noise and the tools used — so its output is
 * deterministic and everything in it appears in what it summarized (or in the previous summary
 * it folds in). Source: SPEC §3.6, seed 001 `DEFAULT_PROMPT` ("Preserve, verbatim where
 * short"), seed 004 (pinned facts, verbatim goal).
 */
import { contentText } from '../content'
import { isOrdinaryUser, isSummaryMessage } from '../facts/classify'
import { completionOf, doneLine } from '../facts/completion'
import { factImportance, factOrigin, firstLineIsNoise, importanceRank, isNoiseFact } from '../facts/importance'
import {
  decisionSentences,
  findFactSpansMemo,
  instructionLines,
  messageFactSpans,
  messageFactText,
  questionRuns,
  sentences,
  sightingOf,
  todoSentences,
  toolCallFacts,
  type FactKind,
} from '../facts/patterns'
import type { Message } from '../model'
import { MAX_SUMMARY_CHARS } from '../stages/summarize'
import { codePointLength, cutCodePoints, nounFor } from '../util/text'
import type { Summarizer, SummaryRequest } from '../stages/types'

/** The first line of every extractive summary, so no one mistakes it for a model's prose. */
export const EXTRACTIVE_LABEL = 'offline extractive summary (not an LLM)'

/** Cap of the verbatim goal, in code points. */
export const GOAL_CHAR_CAP = 500

/**
 * At most this many facts on the `Facts` line (the facts nobody stated, promised or decided:
 * the previous summary's first, then the slice's by importance tier). The preserve-list lines
 * have no count cap: only `MAX_SUMMARY_CHARS` bounds them.
 */
export const MAX_FACTS = 40

/** Cap of one quoted sentence (a commitment, an open question or item), in code points. */
const SENTENCE_CHAR_CAP = 400

/**
 * Fewest words (runs of non-whitespace) of an open question that holds none of its message's
 * fact spans: "Anything else?" and "yes?" ask nothing a resumed agent must answer.
 */
const MIN_QUESTION_WORDS = 3

/** Code points kept free for the cut line when something has to be left out (`cutLine`). */
const CUT_LINE_RESERVE = 300

/**
 * The lines of an extractive summary after the goal, in the order they are written and kept
 * when `MAX_SUMMARY_CHARS` cuts (earlier lines first): the user's standing rules, seed 001's
 * preserve list, then the rest. `join` separates a line's items; `noun` names one item on the cut line.
 */
const SECTIONS = {
  rules: { label: 'Rules', join: ' | ', noun: 'user rule' },
  earlier: { label: 'Earlier', join: ' | ', noun: 'earlier-summary line' },
  stated: { label: 'User stated', join: '; ', noun: 'user-stated value' },
  commitments: { label: 'Commitments', join: ' | ', noun: 'commitment' },
  questions: { label: 'Open questions', join: ' | ', noun: 'open question' },
  todo: { label: 'Open items', join: ' | ', noun: 'open item' },
  decisions: { label: 'Decisions', join: ' | ', noun: 'decision' },
  facts: { label: 'Facts', join: '; ', noun: 'fact' },
  tools: { label: 'Tools used', join: ', ', noun: 'tool' },
} as const

type SectionId = keyof typeof SECTIONS

/** The sections in line order. */
const SECTION_ORDER = Object.keys(SECTIONS) as SectionId[]

const GOAL_LABEL = 'Goal'

/** The tags an `insert-then-compress` answer is wrapped in (that stage's instruction asks for them). */
const SUMMARY_TAGS = { open: '<summary>', close: '</summary>' } as const

/**
 * What makes an assistant sentence a commitment (seed 001: "promises, prices quoted, delivery
 * windows, agreed next steps"): a first-person promise or next step, a scheduled outcome, or a
 * price word in a sentence that quotes an amount of money (a `money` fact span). The one table
 * of commitment markers.
 */
const COMMITMENT_MARKERS: readonly { marker: RegExp; quotesMoney?: true }[] = [
  // "I'll ship it by Friday", "we will refund the difference", "I promise".
  { marker: /\b(?:I|we)(?:['’]ll| will| shall| promise| guarantee)\b/i },
  // "it will arrive by Friday", "it will be cancelled and refunded".
  { marker: /\bwill (?:arrive|ship|be (?:delivered|shipped|refunded|cancell?ed|credited|ready))\b/i },
  // "the total is $40", "that costs €12.50", "a refund of 40 EUR".
  { marker: /\b(?:total|prices?|priced|costs?|fees?|charged?|quoted?|refund(?:ed)?)\b/i, quotesMoney: true },
]

/** Whether `sentence` is a commitment (`COMMITMENT_MARKERS`). */
function isCommitment(sentence: string): boolean {
  return COMMITMENT_MARKERS.some(
    ({ marker, quotesMoney }) =>
      marker.test(sentence) && (!quotesMoney || findFactSpansMemo(sentence).some((s) => s.kind === 'money')),
  )
}

/**
 * Facts in `text`, in order of first appearance, deduplicated, each cut to `FACT_CHAR_CAP`:
 * the shared patterns of facts.ts (`findFactSpans`), so the summary and the fact finder agree.
 */
export function extractFacts(text: string): string[] {
  return findFactSpansMemo(text).map((s) => s.fact)
}

/** A quoted sentence as the summary holds it: whitespace collapsed, trimmed, cut to `SENTENCE_CHAR_CAP`. */
function quoted(sentence: string): string {
  return cutCodePoints(sentence.replace(/\s+/g, ' ').trim(), SENTENCE_CHAR_CAP)
}

/** What a previous summary carries into the next one. */
interface Carried {
  goal?: string
  items: Record<SectionId, string[]>
}

function emptyItems(): Record<SectionId, string[]> {
  return { rules: [], earlier: [], stated: [], commitments: [], questions: [], todo: [], decisions: [], facts: [], tools: [] }
}

/**
 * The content lines of a summary that is not an extractive one (an LLM's prose, an agent's
 * recorded summary, a summary pasted back as `[summary]`), each whitespace-collapsed and verbatim:
 * a summary already is the short form, so every line of it is carried, never re-extracted down
 * to its fact spans (its commitments, open items and decisions would be lost). Left out: a
 * leading `[summary]` marker, lines that are only a bracketed header (`[Summary of messages …]`)
 * and short headings without a fact that end in `:` or `>>` (`Earlier summary >>`: the nesting
 * is flattened, cases/20). A line longer than `SENTENCE_CHAR_CAP` is carried sentence by
 * sentence, so the cap drops a sentence, not the whole paragraph.
 */
function proseLines(text: string): string[] {
  const out: string[] = []
  for (const raw of text.split('\n')) {
    const line = raw.replace(/\s+/g, ' ').trim().replace(/^\[summary\]\s*/i, '')
    if (!line || /^\[[^\]]*\]$/.test(line)) continue
    if (/(?:>>|:)$/.test(line) && line.split(' ').length <= 6 && findFactSpansMemo(line).length === 0) continue
    if (codePointLength(line) <= SENTENCE_CHAR_CAP) out.push(line)
    else for (const s of sentences(line)) if (s.trim()) out.push(s.trim())
  }
  return out
}

/**
 * What the earlier summaries carry, each read on its own and merged in order. An extractive one
 * (it holds an `EXTRACTIVE_LABEL` line) is read line by line: a line starting with a section's
 * `Label: ` starts that section (a repeated label adds to it; the first goal wins), a line that
 * starts no section continues a multi-line goal until a closing `</summary>` tag and is ignored
 * elsewhere (labels, headers, the cut line). A summary of any other origin (an LLM's prose, an
 * agent's recorded summary) is carried line by line on the `Earlier` line (`proseLines`),
 * so its stated values, commitments, open items and decisions all survive re-compaction (seed
 * 001 `prompt`: the previous summary is folded in, "its facts must survive"; seed 004: rolling
 * summaries, each layer the compressed version of the one above plus the new content).
 */
function readPrevious(previous: readonly string[]): Carried {
  const carried: Carried = { items: emptyItems() }
  const byLabel = new Map<string, SectionId>(SECTION_ORDER.map((id) => [`${SECTIONS[id].label}: `, id]))
  for (const piece of previous) {
    if (!piece.trim()) continue
    const lines = piece.split('\n')
    if (!lines.some((l) => l.trim() === EXTRACTIVE_LABEL)) {
      carried.items.earlier.push(...proseLines(piece))
      continue
    }
    let inGoal = false
    let goalLines: string[] | undefined
    for (const line of lines) {
      const colon = line.indexOf(': ')
      const id = colon > 0 ? byLabel.get(line.slice(0, colon + 2)) : undefined
      if (id) {
        inGoal = false
        const value = line.slice(colon + 2)
        if (value) carried.items[id].push(...value.split(SECTIONS[id].join))
      } else if (line.startsWith(`${GOAL_LABEL}: `)) {
        inGoal = goalLines === undefined && carried.goal === undefined
        if (inGoal) goalLines = [line.slice(GOAL_LABEL.length + 2)]
      } else if (line === SUMMARY_TAGS.close) inGoal = false
      else if (inGoal) goalLines?.push(line)
    }
    if (goalLines && carried.goal === undefined) carried.goal = goalLines.join('\n')
  }
  return carried
}

/**
 * Whether question `q` of message `m` asks something: it holds at least `MIN_QUESTION_WORDS`
 * words or one of the message's fact spans (`messageFactSpans`).
 */
function asksSomething(q: string, m: Message): boolean {
  if (q.trim().split(/\s+/).length >= MIN_QUESTION_WORDS) return true
  return messageFactSpans(m).some((s) => q.includes(s.fact))
}

/**
 * Questions still unanswered in `slice` that ask something (`asksSomething`): those of ordinary
 * user messages no assistant message follows, and those of the last assistant message with
 * text when no ordinary user message follows it. Each `quoted`.
 */
function openQuestions(slice: readonly Message[]): string[] {
  let lastAssistant = -1
  let lastUser = -1
  slice.forEach((m, i) => {
    if (m.role === 'assistant') lastAssistant = i
    else if (isOrdinaryUser(m)) lastUser = i
  })
  const out: string[] = []
  for (let i = lastAssistant + 1; i < slice.length; i++) {
    const m = slice[i] as Message
    if (!isOrdinaryUser(m)) continue
    for (const q of questionRuns(contentText(m.content))) if (asksSomething(q, m)) out.push(quoted(q))
  }
  for (let i = slice.length - 1; i > lastUser; i--) {
    const m = slice[i] as Message
    if (m.role !== 'assistant') continue
    const text = contentText(m.content)
    if (!text.trim()) continue
    for (const q of questionRuns(text)) if (asksSomething(q, m)) out.push(quoted(q))
    break
  }
  return out.filter(Boolean)
}

/**
 * The slice's facts nobody stated, in order of importance tier (`factImportance`, the tiers of
 * the Facts tab), first appearance within a tier: facts of ordinary user messages are left out
 * (they are on the `User stated` line) and so is noise (`isNoiseFact`: the durations,
 * percentages and counts of a tool run, the dates and sizes of a listing, test or log line).
 */
function rankedFacts(slice: readonly Message[]): string[] {
  interface Seen {
    kind: FactKind
    seen: number
    order: number
    /** The messages holding it, in order (each once). */
    holders: Message[]
  }
  const byFact = new Map<string, Seen>()
  for (const m of slice) {
    const argFacts = m.role === 'assistant' ? toolCallFacts(m) : undefined
    for (const s of messageFactSpans(m)) {
      const sighting = sightingOf(m, s.fact, argFacts)
      const found = byFact.get(s.fact)
      if (!found) byFact.set(s.fact, { kind: s.kind, seen: sighting, order: byFact.size, holders: [m] })
      else {
        found.seen |= sighting
        if (found.holders[found.holders.length - 1] !== m) found.holders.push(m)
      }
    }
  }
  const ranked: { fact: string; rank: number; order: number }[] = []
  for (const [fact, f] of byFact) {
    const origin = factOrigin(f.seen)
    if (origin === 'user') continue
    const importance = factImportance(f.kind, origin, () =>
      f.holders.every((m) => firstLineIsNoise(messageFactText(m), fact)),
    )
    if (isNoiseFact({ importance })) continue
    ranked.push({ fact, rank: importanceRank(importance), order: f.order })
  }
  ranked.sort((a, b) => a.rank - b.rank || a.order - b.order)
  return ranked.map((r) => r.fact)
}

/** Items a cap left out, by section; `cutLine` words them. */
type LeftOut = Partial<Record<SectionId, number>>

/**
 * The last line of a summary something was left out of, naming each cap that cut and what it
 * left out, e.g. `[cut to 6,000 characters: 14 facts, 2 open items left out; cut to 40 facts:
 * 9 facts left out]`. The one wording of what the extractive summary's caps cut. '' when
 * nothing was.
 */
function cutLine(byChars: LeftOut, byFactCap: number): string {
  const parts: string[] = []
  const counts = SECTION_ORDER.filter((id) => (byChars[id] ?? 0) > 0).map((id) => {
    const n = byChars[id] ?? 0
    return `${n.toLocaleString('en-US')} ${nounFor(n, SECTIONS[id].noun)}`
  })
  if (counts.length > 0)
    parts.push(`cut to ${MAX_SUMMARY_CHARS.toLocaleString('en-US')} characters: ${counts.join(', ')} left out`)
  if (byFactCap > 0)
    parts.push(`cut to ${MAX_FACTS} facts: ${byFactCap.toLocaleString('en-US')} ${nounFor(byFactCap, 'fact')} left out`)
  return parts.length > 0 ? `[${parts.join('; ')}]` : ''
}

/**
 * The summary's lines within `budget` code points: the label, the goal, then each section's
 * items in order while they fit (an item that does not fit is left out and counted; later,
 * shorter ones may still fit).
 */
function render(
  goal: string,
  items: Record<SectionId, string[]>,
  budget: number,
): { lines: string[]; leftOut: LeftOut; any: boolean } {
  const lines = [EXTRACTIVE_LABEL]
  if (goal) lines.push(`${GOAL_LABEL}: ${goal}`)
  let used = lines.reduce((n, l) => n + codePointLength(l), lines.length - 1)
  const leftOut: LeftOut = {}
  let any = false
  for (const id of SECTION_ORDER) {
    const { label, join } = SECTIONS[id]
    const picked: string[] = []
    for (const item of items[id]) {
      const cost = codePointLength(item) + (picked.length === 0 ? label.length + 3 : join.length)
      if (used + cost <= budget) {
        picked.push(item)
        used += cost
      } else {
        leftOut[id] = (leftOut[id] ?? 0) + 1
        any = true
      }
    }
    if (picked.length > 0) lines.push(`${label}: ${picked.join(join)}`)
  }
  return { lines, leftOut, any }
}

/**
 * The extractive summary of `slice`, folding in `previous` (one or more earlier summaries of any
 * origin, each read on its own; see `readPrevious`).
 *
 * Lines, each omitted when empty, every item verbatim (a quoted sentence has its whitespace
 * collapsed and is cut to 400 code points) and each item once:
 * - `EXTRACTIVE_LABEL`;
 * - `Goal: ` the first ordinary user message, verbatim (trimmed, cut to `GOAL_CHAR_CAP` code
 *   points); a previous extractive summary's goal wins, since it came earlier;
 * - `Rules: ` every standing rule (`instructionLines`: the Facts tab's `instruction` kind) of
 *   every ordinary user message, verbatim (as `instructionLines` gives it: one trimmed line),
 *   not already in the goal's text, the previous summary's first, joined with " | " — but one a
 *   later message of the slice marks done (`completionOf`), which goes to `Decisions` as `doneLine`;
 * - `Earlier: ` every content line of an earlier summary that is not an extractive one
 *   (`proseLines`), verbatim, joined with " | ", carried on by every later pass;
 * - `User stated: ` every fact span (`messageFactSpans`) of every ordinary user message not
 *   already in the goal's text or a rule, the previous summary's first, joined with "; ";
 * - `Commitments: ` assistant sentences holding a commitment marker (`COMMITMENT_MARKERS`:
 *   promises, next steps, delivery windows, prices quoted);
 * - `Open questions: ` questions nobody answered yet that ask something (`openQuestions`,
 *   `asksSomething`); the previous summary's
 *   are carried while no assistant message follows them;
 * - `Open items: ` TODO-like sentences (`todoSentences`) of every message but tool results,
 *   the previous summary's first — but one a later message of the slice marks done
 *   (facts/completion.ts `completionOf`), which goes to `Decisions` as `doneLine`;
 * - `Decisions: ` decisions and completed work the assistant reported (`decisionSentences`);
 * - `Facts: ` the other facts, noise left out (`rankedFacts`), none a line above quotes, at most
 *   `MAX_FACTS`;
 * - `Tools used: ` name ×count, counts added to the previous summary's, in first-use order;
 * - when something was left out, the cut line (`cutLine`).
 * The sentence lines and `Facts` carry the previous summary's items first. The whole is at most
 * `MAX_SUMMARY_CHARS` code points: the lines are kept in the order above, so when the cap cuts,
 * the user's rules are the last to go, then the user-stated values. '' when `slice` is empty and there is no previous
 * summary. Pure and deterministic. Source: SPEC §3.6, seed 001 `DEFAULT_PROMPT`, seed 004.
 */
export function summarizeExtractive(slice: readonly Message[], previous?: string | readonly string[]): string {
  const pieces = (typeof previous === 'string' ? [previous] : (previous ?? [])).filter((p) => p.trim() !== '')
  if (slice.length === 0 && pieces.length === 0) return ''
  const carried = readPrevious(pieces)

  const firstUser = slice.find(isOrdinaryUser)
  const goal =
    carried.goal ?? (firstUser ? cutCodePoints(contentText(firstUser.content).trim(), GOAL_CHAR_CAP) : '')

  const items = emptyItems()
  // Each item once, in the first line that holds it.
  const listed = new Set<string>()
  const add = (id: SectionId, item: string) => {
    if (!item || listed.has(item)) return
    listed.add(item)
    items[id].push(item)
  }

  const hasAssistant = slice.some((m) => m.role === 'assistant')
  // A rule a later message of the slice marks done (facts/completion.ts) is listed as done with
  // the decisions, even when the goal quotes it, never as a rule still to follow.
  const rule = (line: string, at: number, only: boolean) => {
    const done = completionOf(line, at, slice, only)
    if (done) add('decisions', doneLine(line, done))
    else if (!goal.includes(line)) add('rules', line)
  }
  for (const item of carried.items.rules) rule(item, -1, false)
  for (const item of carried.items.earlier) add('earlier', item)
  slice.forEach((m, at) => {
    if (!isOrdinaryUser(m)) return
    const lines = instructionLines(contentText(m.content))
    for (const line of lines) rule(line, at, lines.length === 1)
  })
  // A stated value the goal or a rule quotes verbatim is not listed again.
  const rulesText = items.rules.join('\n')
  const quotedByUser = (fact: string) => goal.includes(fact) || rulesText.includes(fact)
  for (const id of ['stated', 'commitments', 'questions', 'todo', 'decisions', 'facts'] as const) {
    if (id === 'questions' && hasAssistant) continue
    for (const item of carried.items[id]) {
      // A carried open item the slice marks done is done, never carried as open.
      const done = id === 'todo' ? completionOf(item, -1, slice) : undefined
      if (done) add('decisions', doneLine(item, done))
      else if (id !== 'stated' || !quotedByUser(item)) add(id, item)
    }
  }
  for (const m of slice) {
    if (isOrdinaryUser(m)) for (const s of messageFactSpans(m)) if (!quotedByUser(s.fact)) add('stated', s.fact)
  }
  for (const m of slice) {
    if (m.role !== 'assistant') continue
    for (const s of sentences(contentText(m.content))) if (isCommitment(s)) add('commitments', quoted(s))
  }
  for (const q of openQuestions(slice)) add('questions', q)
  slice.forEach((m, at) => {
    if (m.role === 'tool') return
    const todos = todoSentences(contentText(m.content))
    for (const s of todos) {
      // An open item a later message of the slice marks done is listed as done (facts/completion.ts).
      const done = completionOf(s, at, slice, todos.length === 1)
      if (done) add('decisions', doneLine(quoted(s), done))
      else add('todo', quoted(s))
    }
  })
  for (const m of slice) {
    if (m.role === 'assistant') for (const s of decisionSentences(contentText(m.content))) add('decisions', s)
  }
  // A fact a line above already quotes (in the goal or a sentence) is not listed again. Only the
  // sentences the cap can hold are read: those past MAX_SUMMARY_CHARS never reach the summary.
  const quotedFacts = new Set<string>()
  let quotedChars = 0
  quoting: for (const id of ['rules', 'earlier', 'commitments', 'questions', 'todo', 'decisions'] as const)
    for (const item of items[id]) {
      if ((quotedChars += item.length) > MAX_SUMMARY_CHARS) break quoting
      for (const f of extractFacts(item)) quotedFacts.add(f)
    }
  for (const f of rankedFacts(slice)) if (!quotedFacts.has(f) && !goal.includes(f)) add('facts', f)
  const overFactCap = Math.max(0, items.facts.length - MAX_FACTS)
  items.facts = items.facts.slice(0, MAX_FACTS)

  const tools = new Map<string, number>()
  for (const entry of carried.items.tools) {
    const m = /^(.*) ×(\d+)$/.exec(entry)
    if (m?.[1]) tools.set(m[1], (tools.get(m[1]) ?? 0) + Number(m[2]))
  }
  for (const m of slice)
    for (const call of m.toolCalls ?? []) tools.set(call.name, (tools.get(call.name) ?? 0) + 1)
  items.tools = [...tools].map(([n, c]) => `${n} ×${c}`)

  const whole = render(goal, items, MAX_SUMMARY_CHARS)
  if (!whole.any && overFactCap === 0) return whole.lines.join('\n')
  // Something is left out: room for the line that says what.
  const fitted = render(goal, items, MAX_SUMMARY_CHARS - CUT_LINE_RESERVE)
  return [...fitted.lines, cutLine(fitted.leftOut, overFactCap)].join('\n')
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
  const previous = [request.previous, ...earlier.map((m) => contentText(m.content))].filter(
    (s): s is string => !!s?.trim(),
  )
  const text = summarizeExtractive(slice, previous)
  if (request.stage === 'insert-then-compress' && text)
    return Promise.resolve(`${SUMMARY_TAGS.open}\n${text}\n${SUMMARY_TAGS.close}`)
  return Promise.resolve(text)
}
