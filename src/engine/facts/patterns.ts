/**
 * Fact patterns: what a fact is — the things a compacted context must never lose (seed 004
 * "shabd bacha sakte ho, facts nahi" — words may go, facts may not) — and how they are found in
 * a message. One module for the extractive summarizer, the `pin-facts` stage, the fact finder
 * and the failure-mode checks, so that all four agree on what a fact is. Source: SPEC §3.5,
 * seed 004.
 */
import { contentText } from '../content'
import type { Message } from '../model'
import { perMessage, type PerMessage } from '../util/memo'
import { partitionPoint } from '../util/search'
import { cutCodePoints } from '../util/text'
import { goalMessage, isOrdinaryUser } from './classify'
import {
  factImportance,
  factOrigin,
  firstLineIsNoise,
  SEEN,
  type FactImportance,
  type FactOrigin,
} from './importance'

/**
 * What kind of fact a candidate is. Source: SPEC §3.5 (plus cases/19 jobs, cases/20 names).
 * Numbers with a unit are `money` (a currency), `quantity` (a size, weight or length), `duration`,
 * `percentage` or `count` (items, units), so a test run's `584ms` is told from a price;
 * `watched` is a fact the user of this tool asked to track (`extractFacts`' `watched`).
 * Values a person states in a user message have kinds of their own where nothing above fits:
 * `hash` (a commit SHA, 7–40 hex digits), `uuid`, `version`, `port`, `phone`, `branch` (a git
 * branch), `env-var` (an environment variable's name), `number` (3+ digits) and `code` (letters
 * and digits mixed, e.g. a booking code).
 */
export type FactKind =
  | 'goal'
  | 'id'
  | 'postal-code'
  | 'url'
  | 'email'
  | 'file-path'
  | 'date'
  | 'reference'
  | 'name'
  | 'money'
  | 'quantity'
  | 'duration'
  | 'percentage'
  | 'count'
  | 'instruction'
  | 'todo'
  | 'decision'
  | 'job'
  | 'hash'
  | 'uuid'
  | 'version'
  | 'port'
  | 'phone'
  | 'branch'
  | 'env-var'
  | 'number'
  | 'code'
  | 'watched'

/** Cap of one pattern fact, in code points. */
const FACT_CHAR_CAP = 120

/** Cap of one verbatim line (instruction, TODO, decision, job status), in code points. */
const LINE_CHAR_CAP = 400

const FILE_EXTENSIONS =
  'py|ts|tsx|js|jsx|mjs|cjs|json|jsonl|ya?ml|toml|ini|cfg|conf|md|txt|csv|tsv|log|go|rs|rb|java|kt|c|h|cc|cpp|hpp|cs|php|swift|sh|sql|html|css|xml|lock|env|pdf|png|jpe?g|gif|svg'

/**
 * Fact patterns, in the order their kinds are tried (a span taken by an earlier pattern is not
 * a second fact). Each is global. Kept conservative: a false fact costs tokens, a missed one
 * costs a re-ask. Source: SPEC §3.5 (IDs, order numbers, postal codes, URLs, e-mail
 * addresses, file paths, dates, amounts with units); cases/20 (names, "chapter 7").
 */
/**
 * A path with a directory and a file name with an extension, `~/`, `./`, `../` or `/` first or not:
 * what `(?:~|\.{1,2})?\/?(?:[\w.-]+\/)+[\w-]+\.\w+` matches, written so that a match not after `~`
 * starts only where a run of `[\w.-]` starts (the leftmost match always does), which spares the
 * regex a scan of every word from each of its letters (a third of all fact extraction on a 50 MB
 * session).
 */
export const RELATIVE_PATH_PATTERN = /(?:~|(?<![\w.-])\.{0,2})\/?(?:[\w.-]+\/)+[\w-]+\.\w+/g

const FACT_PATTERNS: readonly {
  kind: FactKind
  pattern: RegExp
  kindOf?: (fact: string) => FactKind
  /** A string every match holds: a text without it is not scanned (`includes` is native and fast). */
  needs?: string
}[] = [
  // URLs before paths and e-mails, so their parts are not taken twice.
  { kind: 'url', needs: '://', pattern: /\bhttps?:\/\/[^\s<>"'`)\]]+[^\s<>"'`)\].,;:!?]/g },
  { kind: 'email', needs: '@', pattern: /\b[\w.+-]+@[\w-]+(?:\.[\w-]+)+\b/g },
  // IDs and order numbers: ORD-58213, A-48213-KQ, INV-2207, CACHE-58, job-4821.
  { kind: 'id', needs: '-', pattern: /\b[A-Z][A-Z0-9]*(?:-[A-Z0-9]+)+\b/g },
  { kind: 'id', needs: '-', pattern: /\b[a-z]+-\d{3,}\b/g },
  // Postal codes: CEP 01310-100, ZIP+4 12345-6789, or a code after the words.
  { kind: 'postal-code', needs: '-', pattern: /\b\d{5}-\d{3,4}\b/g },
  // Case-sensitive code: with the i flag "postal code 94107 are" took the next word along.
  {
    kind: 'postal-code',
    pattern:
      /\b(?:[Pp]ostal [Cc]ode|[Pp]ostcode|[Zz][Ii][Pp](?: [Cc]ode)?|CEP)[:\s]+[A-Z0-9][A-Z0-9 -]{2,8}[A-Z0-9]\b/g,
  },
  // Dates: ISO (with an optional time), day/month/year, "March 3, 2025", "3 March 2025".
  { kind: 'date', needs: '-', pattern: /\b\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2})?Z?)?\b/g },
  { kind: 'date', needs: '/', pattern: /\b\d{1,2}\/\d{1,2}\/\d{2,4}\b/g },
  {
    kind: 'date',
    pattern:
      /\b(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec)[a-z]*\.? \d{1,2}(?:st|nd|rd|th)?(?:, \d{4})?\b/g,
  },
  {
    kind: 'date',
    pattern: /\b\d{1,2} (?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec)[a-z]*(?: \d{4})?\b/g,
  },
  // File paths: dir/name.ext (optionally ~/ ./ ../ or / first), /abs/path, a bare name.ext.
  { kind: 'file-path', needs: '/', pattern: RELATIVE_PATH_PATTERN },
  { kind: 'file-path', needs: '/', pattern: /(?<![\w.])\/(?:[\w.-]+\/)+[\w.-]+/g },
  { kind: 'file-path', pattern: new RegExp(`\\b[\\w-]+\\.(?:${FILE_EXTENSIONS})\\b`, 'g') },
  // Numbered references a conversation navigates by: chapter 7, exercises 7.1-7.3, ticket 12.
  {
    kind: 'reference',
    pattern:
      /\b(?:chapter|section|exercise|lesson|ticket|issue|version|release)s? #?\d+(?:\.\d+)*(?:-\d+(?:\.\d+)*)?\b/gi,
  },
  // A person named after a label: "Student: Ilse", "my name is Ana Souza".
  {
    kind: 'name',
    pattern:
      /\b(?:[Nn]ame is|[Nn]ame:|[Ss]tudent:|[Cc]ustomer:|[Cc]lient:|[Cc]ontact:|[Aa]ssignee:|[Rr]ecipient:) ?[A-Z][\p{Ll}'-]+(?: [A-Z][\p{Ll}'-]+)?/gu,
  },
  // Amounts: currency + number, number + currency/unit, times like 7pm; the unit decides the kind.
  { kind: 'money', pattern: /(?:R\$|US\$|[$€£¥])\s?\d(?:[\d,.]*\d)?/g },
  {
    kind: 'quantity',
    kindOf: unitKind,
    pattern:
      /\b\d(?:[\d,.]*\d)?\s?(?:USD|EUR|GBP|BRL|JPY|units?|items?|pcs|kg|g|lb|km|m|cm|mm|GB|MB|KB|TB|ms|s|h|min|days?|weeks?|months?|years?|hours?|minutes?|seconds?|%|am|pm)(?![\w-])/gi,
  },
]


/** Units of the number + unit pattern, by the kind they make (lower case; `m` is metres). */
const UNIT_KINDS: ReadonlyMap<string, FactKind> = new Map<string, FactKind>([
  ...['usd', 'eur', 'gbp', 'brl', 'jpy'].map((u) => [u, 'money'] as const),
  ...['unit', 'units', 'item', 'items', 'pcs'].map((u) => [u, 'count'] as const),
  ...['ms', 's', 'h', 'min', 'day', 'days', 'week', 'weeks', 'month', 'months', 'year', 'years', 'hour', 'hours',
    'minute', 'minutes', 'second', 'seconds'].map((u) => [u, 'duration'] as const),
  ['%', 'percentage'],
  ['am', 'date'],
  ['pm', 'date'],
])

/** The kind of a number + unit fact (`584ms` duration, `12 items` count, `7pm` date), by its unit. */
function unitKind(fact: string): FactKind {
  const unit = /[^\d,.\s]+$/.exec(fact)?.[0].toLowerCase() ?? ''
  return UNIT_KINDS.get(unit) ?? 'quantity'
}

/** A fact found in one text: its verbatim span and kind. */
export interface FactSpan {
  fact: string
  kind: FactKind
}

/** The escape character that starts a terminal control sequence. */
const ESC = String.fromCharCode(27)

/** An ANSI/VT100 control sequence (CSI): ESC [ parameters, intermediates, a final byte. */
const TERMINAL_ESCAPE = new RegExp(`${ESC}\\[[0-9;?]*[ -/]*[@-~]`, 'g')

/**
 * Pattern facts in `raw` (`FACT_PATTERNS`), in order of first appearance, deduplicated by
 * text, each cut to `FACT_CHAR_CAP` code points. A span must hold a digit, `/`, `.` or `@`
 * (names excepted) so plain words never count. Pure.
 */
export function findFactSpans(raw: string): FactSpan[] {
  // Terminal colour codes (`ESC[22m` in captured tool output) are blanked, same length, so their
  // letters and digits are never read as a fact ("22m") and every span keeps its offset.
  const text = raw.includes(ESC) ? raw.replace(TERMINAL_ESCAPE, (e) => ' '.repeat(e.length)) : raw
  // Spans taken so far, sorted by start and pairwise disjoint (an overlapping match is never
  // taken), so one binary search tells whether a match overlaps any: O(matches · log matches).
  let taken: { at: number; end: number; fact: string; kind: FactKind }[] = []
  for (const { kind: patternKind, pattern, kindOf, needs } of FACT_PATTERNS) {
    if (needs !== undefined && !text.includes(needs)) continue
    const fresh: typeof taken = []
    for (const m of text.matchAll(pattern)) {
      const at = m.index ?? 0
      const end = at + m[0].length
      // A span already taken by an earlier kind (an ID inside a URL) is not a second fact.
      if (overlapsTaken(taken, at, end)) continue
      // Matches of one pattern come in order of start, so the last one taken is the only one
      // of this pattern a later match can overlap.
      const last = fresh[fresh.length - 1]
      if (last && at < last.end && end > last.at) continue
      const fact = m[0].trim()
      if (fact.length < 2 || (patternKind !== 'name' && !/\d|[/.@]/.test(fact))) continue
      const kind = kindOf ? kindOf(fact) : patternKind
      fresh.push({ at, end, fact: cutCodePoints(fact, FACT_CHAR_CAP), kind })
    }
    if (fresh.length > 0) taken = mergeByStart(taken, fresh)
  }
  const out: FactSpan[] = []
  const seen = new Set<string>()
  for (const h of taken) {
    if (seen.has(h.fact)) continue
    seen.add(h.fact)
    out.push({ fact: h.fact, kind: h.kind })
  }
  return out
}

/** Whether [at, end) overlaps a span of `spans` (sorted by start, pairwise disjoint). */
function overlapsTaken(spans: readonly { at: number; end: number }[], at: number, end: number) {
  // The last span starting before `end` is the only candidate: earlier ones end before it starts.
  const candidate = spans[partitionPoint(0, spans.length, (i) => (spans[i] as { at: number }).at >= end) - 1]
  return candidate !== undefined && at < candidate.end
}

/** The spans of two lists sorted by start, merged into one sorted list (ties: `a` first). */
function mergeByStart<T extends { at: number }>(a: readonly T[], b: readonly T[]): T[] {
  const out: T[] = []
  let i = 0
  let j = 0
  while (i < a.length && j < b.length)
    out.push((b[j] as T).at < (a[i] as T).at ? (b[j++] as T) : (a[i++] as T))
  while (i < a.length) out.push(a[i++] as T)
  while (j < b.length) out.push(b[j++] as T)
  return out
}

/**
 * `findFactSpans(text)` remembered for texts up to `SPAN_MEMO_MAX_CHARS` UTF-16 code units (summaries
 * and prompts that every re-plan scans again), at most `SPAN_MEMO_ENTRIES` texts (the memo is
 * emptied when full). The arrays are frozen: callers share them. Long message texts are memoized
 * per message instead (`messageFactSpans`), so the memo never holds a transcript's bulk. Pure.
 */
export function findFactSpansMemo(text: string): readonly FactSpan[] {
  if (text.length > SPAN_MEMO_MAX_CHARS) return findFactSpans(text)
  let spans = spanMemo.get(text)
  if (!spans) {
    if (spanMemo.size >= SPAN_MEMO_ENTRIES) spanMemo.clear()
    spans = Object.freeze(findFactSpans(text))
    spanMemo.set(text, spans)
  }
  return spans
}

const SPAN_MEMO_MAX_CHARS = 16_384
const SPAN_MEMO_ENTRIES = 4_096
const spanMemo = new Map<string, readonly FactSpan[]>()

/**
 * `findFactSpans(messageFactText(m))`, computed once per message object (messages are immutable,
 * so re-plans, the failure-mode checks and the extractive summarizer share one scan). Frozen. Pure.
 * `messageFactSpans.prime(m, spans)` takes spans another thread found with `findFactSpans` on the
 * same text (the worker's pool does a long session's while its first run goes on).
 */
export const messageFactSpans: PerMessage<readonly FactSpan[]> = perMessage((m) =>
  Object.freeze(findFactSpans(messageFactText(m))),
)

const INSTRUCTION_MARKER =
  /\b(?:don['’]t|do not|never|always|must|mustn['’]t|must not|make sure|avoid|only ever|rules?:|constraints?:)/i

/**
 * Standing rules in `text`: each line holding a constraint word (don't, never, always, must,
 * make sure, avoid, "rules:"), trimmed, verbatim; a line over `LINE_CHAR_CAP` code points is
 * narrowed to its sentences that hold the marker. Source: seed 004 "constraints hamesha full
 * text", cases/16.
 */
export function instructionLines(text: string): string[] {
  const out: string[] = []
  for (const raw of text.split('\n')) {
    const line = raw.trim()
    if (!INSTRUCTION_MARKER.test(line)) continue
    if ([...line].length <= LINE_CHAR_CAP) out.push(line)
    else
      for (const s of sentences(line))
        if (INSTRUCTION_MARKER.test(s)) out.push(cutCodePoints(s.trim(), LINE_CHAR_CAP))
  }
  return out
}

/**
 * Sentences of `text`: a `.`, `!` or `?` ends one only before whitespace or the end, so
 * `cmd/sync.go` and `7.1` stay whole; a line break always ends one.
 */
export function sentences(text: string): string[] {
  // The matches of /(?:[^.!?\n]|[.!?](?=[^\s.!?]))+[.!?]*/g, found by one forward scan: the
  // regex's backtracking stack overflowed on ~10 MB without an end mark, and its alternatives
  // never compete, so the greedy scan is its exact match.
  const out: string[] = []
  const n = text.length
  let i = 0
  while (i < n) {
    const start = i
    for (;;) {
      const c = text.charCodeAt(i)
      if (i >= n || c === NEWLINE) break
      if (isEndMark(c)) {
        const next = text.charCodeAt(i + 1)
        if (i + 1 >= n || isEndMark(next) || WHITESPACE.test(text.charAt(i + 1))) break
      }
      i++
    }
    if (i === start) {
      i++
      continue
    }
    while (i < n && isEndMark(text.charCodeAt(i))) i++
    out.push(text.slice(start, i))
  }
  return out
}

const NEWLINE = 0x0a

/** `.`, `!` or `?`. */
function isEndMark(c: number): boolean {
  return c === 0x2e || c === 0x21 || c === 0x3f
}

const WHITESPACE = /\s/

/**
 * Questions in `text`: each run of characters other than `.`, `!`, `?` and line breaks that a
 * `?` ends, with that `?`, untrimmed: the matches of /[^.!?\n]*\?/g, in order, found in one
 * forward scan (the regex retried every start of a long run without a `?`: quadratic).
 */
export function questionRuns(text: string): string[] {
  const out: string[] = []
  const n = text.length
  let start = 0
  while (start < n) {
    let end = start
    while (end < n) {
      const c = text.charCodeAt(end)
      if (c === NEWLINE || isEndMark(c)) break
      end++
    }
    if (end < n && text.charCodeAt(end) === 0x3f) out.push(text.slice(start, end + 1))
    start = end + 1
  }
  return out
}

const TODO_MARKER = /\b(?:TODO|FIXME|open question|still (?:need|missing|pending))\b/i

/** Sentences of `text` holding a TODO-like marker, trimmed, whitespace collapsed. */
export function todoSentences(text: string): string[] {
  const out: string[] = []
  for (const sentence of sentences(text)) {
    if (TODO_MARKER.test(sentence)) out.push(sentence.trim().replace(/\s+/g, ' '))
  }
  return out
}

const DECISION_MARKER =
  /^(?:done|fixed|completed|finished|resolved|implemented|merged|deployed)\b|\b(?:decided|decision:|we chose|agreed to)\b/i

/**
 * Decisions and completed work an assistant reported ("Done: --dry-run added …", "we decided
 * …"): whole sentences, verbatim, so a resumed agent does not redo them. Source: seed 004
 * "verbatim decisions", cases/17.
 */
export function decisionSentences(text: string): string[] {
  const out: string[] = []
  for (const sentence of sentences(text)) {
    const s = sentence.trim()
    if (s && DECISION_MARKER.test(s)) out.push(cutCodePoints(s, LINE_CHAR_CAP))
  }
  return out
}

const JOB_ID_KEY = /^(?:job|task|run|build|deployment|workflow|operation|process|worker)_?id$/i

/**
 * In-flight work in a tool result: a JSON object (or the objects of a JSON list) holding an
 * id-like key (`job_id`, `task_id`, …) and a `status`/`state`. The object's own text when it is
 * the whole output and short, else its scalar fields `key: value`, verbatim. Source: cases/19.
 */
export function jobStatusLines(text: string): string[] {
  const trimmed = text.trim()
  if (!/^[[{]/.test(trimmed)) return []
  let parsed: unknown
  try {
    parsed = JSON.parse(trimmed)
  } catch {
    return []
  }
  const objects = Array.isArray(parsed) ? parsed : [parsed]
  const out: string[] = []
  for (const o of objects) {
    if (!o || typeof o !== 'object' || Array.isArray(o)) continue
    const keys = Object.keys(o)
    if (!keys.some((k) => JOB_ID_KEY.test(k)) || !keys.some((k) => /^(?:status|state)$/i.test(k)))
      continue
    if (objects.length === 1 && [...trimmed].length <= LINE_CHAR_CAP) out.push(trimmed)
    else {
      const fields = Object.entries(o as Record<string, unknown>)
        .filter(([, v]) => v === null || typeof v !== 'object')
        .map(([k, v]) => `${k}: ${String(v)}`)
      out.push(cutCodePoints(fields.join(', '), LINE_CHAR_CAP))
    }
  }
  return out
}

/**
 * Text of a message that facts are searched in: content text plus tool-call arguments. Made once
 * per message object (messages are immutable; every run's fact index reads it again).
 */
export const messageFactText: (m: Message) => string = perMessage((m) => {
  const parts = [contentText(m.content)]
  for (const call of m.toolCalls ?? []) parts.push(call.arguments)
  return parts.join('\n')
})

/** A candidate fact of a transcript, the messages (ids, in order) that hold it, and how much it matters. */
export interface CandidateFact {
  fact: string
  kind: FactKind
  messageIds: string[]
  /** Who put it into the conversation and how it was used (`factOrigin`). */
  origin: FactOrigin
  /** Its tier (`factImportance`); `noise` facts are not at risk by default (`isNoiseFact`). */
  importance: FactImportance
}

/**
 * The `SEEN` bit of a fact found in message `m`: in an assistant message, `toolCall` when one of
 * its tool calls' arguments (`argFacts`) holds the fact, else `assistant`.
 */
export function sightingOf(m: Message, fact: string, argFacts: ReadonlySet<string> | undefined): number {
  if (m.role === 'tool') return SEEN.toolOutput
  if (isOrdinaryUser(m)) return SEEN.user
  if (m.role === 'assistant') return argFacts?.has(fact) ? SEEN.toolCall : SEEN.assistant
  return SEEN.system
}

/** The fact texts of a message's tool-call arguments (each call scanned on its own), or undefined. */
export function toolCallFacts(m: Message): Set<string> | undefined {
  if (!m.toolCalls || m.toolCalls.length === 0) return undefined
  const out = new Set<string>()
  for (const call of m.toolCalls) for (const s of findFactSpansMemo(call.arguments)) out.add(s.fact)
  return out
}

/**
 * Candidate facts of a transcript (normally the Before side), in order of first appearance,
 * deduplicated by (kind, text):
 * - `watched`: each of `watched` (trimmed, non-empty, once each) first, with every message whose
 *   fact text holds it verbatim, origin `user`, tier `watched`;
 * - `goal`: the first ordinary user message, verbatim;
 * - pattern facts (`FACT_PATTERNS`) of every message (tool-call arguments too);
 * - `instruction`: standing-rule lines of ordinary user and system-after-start messages;
 * - `todo`: TODO-like sentences of non-tool messages;
 * - `decision`: completed work / decisions reported by the assistant;
 * - `job`: in-flight job status in tool results.
 * Each gets its `origin` from where it was seen (`factOrigin`: a fact in an ordinary user message
 * is the user's, one in a tool call's arguments was acted on, …) and its `importance`
 * (`factImportance`; a date or size of tool output is noise only when every tool message holding
 * it has it on a listing, test or log line, judged at its first occurrence there).
 * Pure; `messageIds` lists every message holding the fact's text verbatim among those it was
 * found in. Source: SPEC §3.5, seed 004; the facts compaction may lose.
 */
export function extractFacts(messages: readonly Message[], watched: readonly string[] = []): CandidateFact[] {
  const facts: CandidateFact[] = []
  const byKey = new Map<string, CandidateFact>()
  const idSets = new Map<CandidateFact, Set<string>>()
  // Where each fact was seen (`SEEN` bits).
  const seen = new Map<CandidateFact, number>()
  const add = (fact: string, kind: FactKind, m: Message, sighting: number) => {
    if (!fact) return
    const id = m.id
    const key = `${kind}\u0000${fact}`
    const found = byKey.get(key)
    if (found) {
      seen.set(found, (seen.get(found) ?? 0) | sighting)
      // Messages are read in order, so a repeat from the same message is the last id; a
      // transcript repeating an id elsewhere is caught by the per-fact id set.
      const ids = found.messageIds
      if (ids[ids.length - 1] === id) return
      let ofFact = idSets.get(found)
      if (!ofFact) idSets.set(found, (ofFact = new Set(ids)))
      if (ofFact.has(id)) return
      ofFact.add(id)
      ids.push(id)
      return
    }
    const c: CandidateFact = { fact, kind, messageIds: [id], origin: 'tool-output', importance: 'other' }
    byKey.set(key, c)
    seen.set(c, sighting)
    facts.push(c)
  }
  const watchedFacts: CandidateFact[] = []
  for (const w of new Set(watched.map((t) => t.trim()).filter(Boolean))) {
    const messageIds = messages.filter((m) => messageFactText(m).includes(w)).map((m) => m.id)
    const c: CandidateFact = { fact: w, kind: 'watched', messageIds, origin: 'user', importance: 'watched' }
    watchedFacts.push(c)
  }
  const goal = goalMessage(messages)
  const goalText = goal ? contentText(goal.content).trim() : undefined
  if (goal) add(goalText!, 'goal', goal, SEEN.user)
  for (const m of messages) {
    const argFacts = m.role === 'assistant' ? toolCallFacts(m) : undefined
    for (const s of messageFactSpans(m)) add(s.fact, s.kind, m, sightingOf(m, s.fact, argFacts))
    const body = contentText(m.content)
    // A one-line goal that states a rule is the goal already: not a second, identical row.
    if (isOrdinaryUser(m)) {
      for (const line of instructionLines(body)) if (line !== goalText) add(line, 'instruction', m, SEEN.user)
    }
    if (m.role !== 'tool') for (const s of todoSentences(body)) add(s, 'todo', m, sightingOf(m, s, undefined))
    if (m.role === 'assistant') for (const s of decisionSentences(body)) add(s, 'decision', m, SEEN.assistant)
    if (m.role === 'tool') for (const j of jobStatusLines(body)) add(j, 'job', m, SEEN.toolOutput)
  }
  const byId = new Map(messages.map((m) => [m.id, m]))
  for (const f of facts) {
    f.origin = factOrigin(seen.get(f) ?? 0)
    f.importance = factImportance(f.kind, f.origin, () =>
      f.messageIds.every((id) => {
        const m = byId.get(id)
        return m === undefined || firstLineIsNoise(messageFactText(m), f.fact)
      }),
    )
  }
  return watchedFacts.length > 0 ? [...watchedFacts, ...facts] : facts
}
