/**
 * Facts: the things a compacted context must never lose (seed 004 "shabd bacha sakte ho, facts
 * nahi" — words may go, facts may not). One module holds the fact patterns used by the
 * extractive summarizer, the `pin-facts` stage, the fact finder and the failure-mode checks, so
 * that all four agree on what a fact is.
 *
 * The finder and the table only read a run's provenance (fates, origins, passes): they never
 * re-run compaction. Source: SPEC §3.5, seed 004.
 */
import { factPassRuns, passTimeline, type PassRun } from './pass-runs'
import { contentText } from '../content'
import type { Message, Pass, RunResult, StageId } from '../model'
import { SUMMARY_ID_PREFIX } from '../stages/output'
import { createStringSetMatcher, type StringSetMatcher } from './fact-index'
import { perMessage } from '../util/memo'
import { cutCodePoints } from '../util/text'
import { partitionPoint } from '../util/search'

/** What kind of fact a candidate is. Source: SPEC §3.5 (plus cases/19 jobs, cases/20 names). */
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
  | 'amount'
  | 'instruction'
  | 'todo'
  | 'decision'
  | 'job'

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
const FACT_PATTERNS: readonly { kind: FactKind; pattern: RegExp }[] = [
  // URLs before paths and e-mails, so their parts are not taken twice.
  { kind: 'url', pattern: /\bhttps?:\/\/[^\s<>"'`)\]]+[^\s<>"'`)\].,;:!?]/g },
  { kind: 'email', pattern: /\b[\w.+-]+@[\w-]+(?:\.[\w-]+)+\b/g },
  // IDs and order numbers: ORD-58213, A-48213-KQ, INV-2207, CACHE-58, job-4821.
  { kind: 'id', pattern: /\b[A-Z][A-Z0-9]*(?:-[A-Z0-9]+)+\b/g },
  { kind: 'id', pattern: /\b[a-z]+-\d{3,}\b/g },
  // Postal codes: CEP 01310-100, ZIP+4 12345-6789, or a code after the words.
  { kind: 'postal-code', pattern: /\b\d{5}-\d{3,4}\b/g },
  // Case-sensitive code: with the i flag "postal code 94107 are" took the next word along.
  {
    kind: 'postal-code',
    pattern:
      /\b(?:[Pp]ostal [Cc]ode|[Pp]ostcode|[Zz][Ii][Pp](?: [Cc]ode)?|CEP)[:\s]+[A-Z0-9][A-Z0-9 -]{2,8}[A-Z0-9]\b/g,
  },
  // Dates: ISO (with an optional time), day/month/year, "March 3, 2025", "3 March 2025".
  { kind: 'date', pattern: /\b\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2})?Z?)?\b/g },
  { kind: 'date', pattern: /\b\d{1,2}\/\d{1,2}\/\d{2,4}\b/g },
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
  { kind: 'file-path', pattern: /(?:~|\.{1,2})?\/?(?:[\w.-]+\/)+[\w-]+\.\w+/g },
  { kind: 'file-path', pattern: /(?<![\w.])\/(?:[\w.-]+\/)+[\w.-]+/g },
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
  // Amounts: currency + number, number + currency/unit, times like 7pm.
  { kind: 'amount', pattern: /(?:R\$|US\$|[$€£¥])\s?\d(?:[\d,.]*\d)?/g },
  {
    kind: 'amount',
    pattern:
      /\b\d(?:[\d,.]*\d)?\s?(?:USD|EUR|GBP|BRL|JPY|units?|items?|pcs|kg|g|lb|km|m|cm|mm|GB|MB|KB|TB|ms|s|h|min|days?|weeks?|months?|years?|hours?|minutes?|seconds?|%|am|pm)(?![\w-])/gi,
  },
]

/** A fact found in one text: its verbatim span and kind. */
export interface FactSpan {
  fact: string
  kind: FactKind
}

/**
 * Pattern facts in `text` (`FACT_PATTERNS`), in order of first appearance, deduplicated by
 * text, each cut to `FACT_CHAR_CAP` code points. A span must hold a digit, `/`, `.` or `@`
 * (names excepted) so plain words never count. Pure.
 */
export function findFactSpans(text: string): FactSpan[] {
  // Spans taken so far, sorted by start and pairwise disjoint (an overlapping match is never
  // taken), so one binary search tells whether a match overlaps any: O(matches · log matches).
  let taken: { at: number; end: number; fact: string; kind: FactKind }[] = []
  for (const { kind, pattern } of FACT_PATTERNS) {
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
      if (fact.length < 2 || (kind !== 'name' && !/\d|[/.@]/.test(fact))) continue
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
 */
export const messageFactSpans: (m: Message) => readonly FactSpan[] = perMessage((m) =>
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
function sentences(text: string): string[] {
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

/** A summary message: one a stage synthesized (`summary:` ids) or the agent's own recorded one. */
export function isSummaryMessage(m: Message): boolean {
  return m.id.startsWith(SUMMARY_ID_PREFIX) || m.flags?.compactSummary === true
}

/** A message the human typed: `user`, not injected, not a command echo, not a summary. */
export function isOrdinaryUser(m: Message): boolean {
  return (
    m.role === 'user' &&
    !m.flags?.injected &&
    !m.flags?.command &&
    !isSummaryMessage(m) &&
    // A summary pasted back as a user turn (cases/20 "[summary]") is not a request.
    !/^\s*\[summary\]/i.test(contentText(m.content))
  )
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

/** A candidate fact of a transcript and the messages (ids, in order) that hold it. */
export interface CandidateFact {
  fact: string
  kind: FactKind
  messageIds: string[]
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

/**
 * Candidate facts of a transcript (normally the Before side), in order of first appearance,
 * deduplicated by (kind, text):
 * - `goal`: the first ordinary user message, verbatim;
 * - pattern facts (`FACT_PATTERNS`) of every message (tool-call arguments too);
 * - `instruction`: standing-rule lines of ordinary user and system-after-start messages;
 * - `todo`: TODO-like sentences of non-tool messages;
 * - `decision`: completed work / decisions reported by the assistant;
 * - `job`: in-flight job status in tool results.
 * Pure; `messageIds` lists every message holding the fact's text verbatim among those it was
 * found in. Source: SPEC §3.5; the facts compaction may lose.
 */
export function extractFacts(messages: readonly Message[]): CandidateFact[] {
  const facts: CandidateFact[] = []
  const byKey = new Map<string, CandidateFact>()
  const idSets = new Map<CandidateFact, Set<string>>()
  const add = (fact: string, kind: FactKind, id: string) => {
    if (!fact) return
    const key = `${kind}\u0000${fact}`
    const found = byKey.get(key)
    if (found) {
      // Messages are read in order, so a repeat from the same message is the last id; a
      // transcript repeating an id elsewhere is caught by the per-fact id set.
      const ids = found.messageIds
      if (ids[ids.length - 1] === id) return
      let seen = idSets.get(found)
      if (!seen) idSets.set(found, (seen = new Set(ids)))
      if (seen.has(id)) return
      seen.add(id)
      ids.push(id)
      return
    }
    const c: CandidateFact = { fact, kind, messageIds: [id] }
    byKey.set(key, c)
    facts.push(c)
  }
  const goal = goalMessage(messages)
  if (goal) add(contentText(goal.content).trim(), 'goal', goal.id)
  for (const m of messages) {
    for (const s of messageFactSpans(m)) add(s.fact, s.kind, m.id)
    const body = contentText(m.content)
    if (isOrdinaryUser(m)) for (const line of instructionLines(body)) add(line, 'instruction', m.id)
    if (m.role !== 'tool') for (const s of todoSentences(body)) add(s, 'todo', m.id)
    if (m.role === 'assistant') for (const s of decisionSentences(body)) add(s, 'decision', m.id)
    if (m.role === 'tool') for (const j of jobStatusLines(body)) add(j, 'job', m.id)
  }
  return facts
}

// ---------------------------------------------------------------------------
// The fact finder: verdicts from a run's provenance
// ---------------------------------------------------------------------------

/** The parts of a run the finder reads (a `RunResult`, or a recorded run of the same shape). */
export type FactRun = Pick<RunResult, 'before' | 'after' | 'fates' | 'origins' | 'passes'> & {
  stages?: RunResult['stages']
}

/** What a fact is matched as: a verbatim string, or a regular expression. */
export type FactQuery = string | RegExp

/** How an after message holds a fact. */
export type KeptAs = 'verbatim' | 'summary' | 'pinned'

/** What replaced the last copy of a lost fact. */
type Replacement =
  | { kind: 'summary'; summaryId: string; text: string }
  | { kind: 'placeholder'; text: string }
  | { kind: 'back-reference'; firstId: string; text: string; targetEvicted: boolean }
  | { kind: 'slimmed'; text: string }
  | { kind: 'dropped'; reason: string }
  | { kind: 'changed'; text: string }

/** Where one copy of a fact (a before message holding it) was lost. */
interface LossEvent {
  /** The before message whose copy was lost. */
  beforeId: string
  stage: StageId | 'pipeline' | 'recorded'
  /** The pass of a summarizing stage, when a pass lost it. */
  pass?: number
  replacedBy: Replacement
}

/** The verdict on one fact. Source: SPEC §6 "Fact finder". */
export interface FactVerdict {
  query: string
  verdict: 'survives' | 'lost' | 'never-present'
  /** Before messages holding the fact. */
  beforeIds: string[]
  /** After messages holding it, and how. Priority when listing: verbatim, pinned, summary. */
  where: { id: string; as: KeptAs }[]
  /** For `lost`: the event that dropped the last copy. */
  lost?: LossEvent
  /** For `lost`: every copy's loss, in pipeline order. */
  events?: LossEvent[]
  /** One sentence for people. */
  explanation: string
}

/** A regex without global/sticky state, so `test` is repeatable. */
function matcher(query: FactQuery): (text: string) => boolean {
  if (typeof query === 'string') return (text) => text.includes(query)
  const re = new RegExp(query.source, query.flags.replace(/[gy]/g, ''))
  return (text) => re.test(text)
}

function queryLabel(query: FactQuery): string {
  return typeof query === 'string' ? query : String(query)
}

/** Per-run indexes the finder, table and checks share (computed once per run). */
export interface RunIndex {
  run: FactRun
  beforeTexts: Map<string, string>
  afterTexts: Map<string, string>
  beforeIndex: Map<string, number>
  /**
   * One more than the largest before `Message.index` (0 without messages, or when that exceeds
   * twice the message count: per-index tables are then not built).
   */
  beforeIndexLimit: number
  /** Stage id → position in the pipeline (stages that ran). */
  stageOrder: Map<string, number>
  passesByStage: Map<string, Pass[]>
}

/** Builds the shared indexes of a run. Pure. */
export function indexRun(run: FactRun): RunIndex {
  const beforeTexts = new Map(run.before.messages.map((m) => [m.id, messageFactText(m)]))
  const afterTexts = new Map(run.after.messages.map((m) => [m.id, messageFactText(m)]))
  const beforeIndex = new Map(run.before.messages.map((m) => [m.id, m.index]))
  let beforeIndexLimit = 0
  for (const m of run.before.messages)
    if (Number.isInteger(m.index) && m.index >= beforeIndexLimit) beforeIndexLimit = m.index + 1
  // Indices far beyond the message count (a hand-made run) get no per-index tables.
  if (beforeIndexLimit > 2 * run.before.messages.length + 1024) beforeIndexLimit = 0
  const stageOrder = new Map<string, number>()
  ;(run.stages ?? []).forEach((s, i) => stageOrder.set(s.stage, i))
  // Without stage reports, passes give the order.
  for (const p of run.passes) if (!stageOrder.has(p.stage)) stageOrder.set(p.stage, stageOrder.size)
  stageOrder.set('recorded', -1)
  const passesByStage = new Map<string, Pass[]>()
  for (const p of run.passes) {
    const list = passesByStage.get(p.stage) ?? []
    list.push(p)
    passesByStage.set(p.stage, list)
  }
  for (const list of passesByStage.values()) list.sort((a, b) => a.pass - b.pass)
  return { run, beforeTexts, afterTexts, beforeIndex, beforeIndexLimit, stageOrder, passesByStage }
}

function keptAs(run: FactRun, id: string): KeptAs {
  const o = run.origins[id]
  if (o?.kind === 'summary') return 'summary'
  if (o?.kind === 'pinned-facts') return 'pinned'
  return 'verbatim'
}

const AS_RANK: Record<KeptAs, number> = { verbatim: 0, pinned: 1, summary: 2 }

/** A position in the pipeline: stage order, then pass (0 for a stage without passes). */
type Key = [number, number]
const after = (a: Key, b: Key) => a[0] > b[0] || (a[0] === b[0] && a[1] > b[1])
const compareKeys = (a: Key, b: Key) => (after(a, b) ? 1 : after(b, a) ? -1 : 0)

function eventKey(ix: RunIndex, e: { stage: string; pass?: number }): Key {
  const order =
    e.stage === 'pipeline' ? Number.MAX_SAFE_INTEGER : (ix.stageOrder.get(e.stage) ?? -1)
  return [order, e.pass ?? 0]
}

/**
 * The summaries a before message's content went through, in order: the pass that first folded
 * it, the later passes of that stage (each folds the previous summary: seed 001 rolling), then
 * the pass of a later stage that folded that summary (the message's final fate). Held as a
 * view — `list[start..]`, then `extra` — so a message folded by the first of P passes costs
 * O(1), not a copy of P passes; null when the message went through no pass.
 */
interface Chain {
  list: readonly Pass[]
  start: number
  extra?: Pass
}

function summaryChain(ix: RunIndex, beforeId: string): Chain | null {
  // The chain depends on the message alone, and the facts table asks once per fact it holds.
  let cache = chainCache.get(ix)
  if (!cache) chainCache.set(ix, (cache = new Map()))
  let chain = cache.get(beforeId)
  if (chain === undefined) cache.set(beforeId, (chain = walkSummaryChain(ix, beforeId)))
  return chain
}

const chainCache = new WeakMap<RunIndex, Map<string, Chain | null>>()

/** Per stage that recorded passes: its passes, by pass number, and by the index they cover. */
interface StagePasses {
  passes: readonly Pass[]
  /** Pass number → position in `passes` of the first pass with it. */
  byNumber: Map<number, number>
  /** Before index → position of the first pass whose [from, upto) holds it; built on demand. */
  covering?: Int32Array
}

/** The stages that recorded passes, in pipeline order, each with its lookups. Once per run. */
function stagePasses(ix: RunIndex): { stage: string; passes: StagePasses }[] {
  let out = stagePassCache.get(ix)
  if (!out) {
    const stages = [...ix.passesByStage.keys()].sort(
      (a, b) => (ix.stageOrder.get(a) ?? 0) - (ix.stageOrder.get(b) ?? 0),
    )
    out = stages.map((stage) => {
      const passes = ix.passesByStage.get(stage) ?? []
      const byNumber = new Map<number, number>()
      passes.forEach((p, k) => {
        if (!byNumber.has(p.pass)) byNumber.set(p.pass, k)
      })
      return { stage, passes: { passes, byNumber } }
    })
    stagePassCache.set(ix, out)
  }
  return out
}

const stagePassCache = new WeakMap<RunIndex, { stage: string; passes: StagePasses }[]>()

/**
 * Position of the first of `sp.passes` with `from <= index < upto`, or -1: a table over the
 * before indices filled once per stage (each index assigned once, skipping assigned runs), so
 * a run of P passes over N messages costs O(N + P), not O(P) per message.
 */
function firstCovering(ix: RunIndex, sp: StagePasses, index: number): number {
  const size = ix.beforeIndexLimit
  if (!Number.isInteger(index) || index < 0 || index >= size)
    return sp.passes.findIndex((p) => p.from <= index && index < p.upto)
  if (!sp.covering) {
    const covering = new Int32Array(size).fill(-1)
    // nextFree[i]: a lower bound of the first unassigned index ≥ i (size: none left).
    const nextFree = new Int32Array(size + 1)
    for (let i = 0; i <= size; i++) nextFree[i] = i
    const find = (i: number) => {
      let r = i
      while ((nextFree[r] as number) !== r) r = nextFree[r] as number
      while ((nextFree[i] as number) !== r) {
        const up = nextFree[i] as number
        nextFree[i] = r
        i = up
      }
      return r
    }
    sp.passes.forEach((p, k) => {
      const lo = Math.max(0, Math.ceil(p.from))
      const hi = Math.min(size, Math.ceil(p.upto))
      if (!(lo < hi)) return
      for (let i = find(lo); i < hi; i = find(i)) {
        covering[i] = k
        nextFree[i] = i + 1
      }
    })
    sp.covering = covering
  }
  return sp.covering[index] as number
}

function walkSummaryChain(ix: RunIndex, beforeId: string): Chain | null {
  const fate = ix.run.fates[beforeId]
  if (fate?.kind !== 'summarized') return null
  const index = ix.beforeIndex.get(beforeId) ?? -1
  let chain: Chain | null = null
  for (const { stage, passes: sp } of stagePasses(ix)) {
    if (!chain) {
      // Pass from/upto are before-transcript indices for original messages.
      const first =
        stage === fate.stage ? (sp.byNumber.get(fate.pass) ?? -1) : firstCovering(ix, sp, index)
      if (first === -1) continue
      chain = { list: sp.passes, start: first }
    } else if (stage === fate.stage) {
      const k = sp.byNumber.get(fate.pass)
      if (k !== undefined) chain.extra = sp.passes[k] as Pass
    }
    if (stage === fate.stage) break
  }
  return chain
}

/**
 * The first pass of `chain` whose summary `holds` rejects, or undefined. `memo` (one per
 * `holds`) remembers, per pass list and position, the first rejected position at or after it,
 * so many messages folded into the same passes walk each pass once.
 */
function firstOmitting(
  chain: Chain,
  holds: (t: string) => boolean,
  memo: Map<readonly Pass[], Map<number, number>>,
): Pass | undefined {
  const { list } = chain
  let known = memo.get(list)
  if (!known) memo.set(list, (known = new Map()))
  let k = chain.start
  const walked: number[] = []
  let found: number | undefined
  while (k < list.length) {
    found = known.get(k)
    if (found !== undefined) break
    walked.push(k)
    if (!holds((list[k] as Pass).summary)) {
      found = k
      break
    }
    k++
  }
  const miss = found ?? list.length
  for (const w of walked) known.set(w, miss)
  if (miss < list.length) return list[miss]
  return chain.extra && !holds(chain.extra.summary) ? chain.extra : undefined
}

/** The loss of the copy held by before message `beforeId`, or null when no loss is recorded. */
function lossOf(
  ix: RunIndex,
  beforeId: string,
  holds: (t: string) => boolean,
  memo: Map<readonly Pass[], Map<number, number>>,
): LossEvent | null {
  const fate = ix.run.fates[beforeId]
  const afterText = ix.afterTexts.get(beforeId)
  if (!fate) return null
  switch (fate.kind) {
    case 'kept':
      if (afterText === undefined || holds(afterText)) return null
      return {
        beforeId,
        stage: 'pipeline',
        replacedBy: { kind: 'changed', text: afterText },
      }
    case 'back-referenced': {
      const targetText = ix.afterTexts.get(fate.firstId)
      const targetEvicted =
        targetText === undefined || targetText !== ix.beforeTexts.get(fate.firstId)
      return {
        beforeId,
        stage: fate.stage,
        replacedBy: {
          kind: 'back-reference',
          firstId: fate.firstId,
          text: afterText ?? '',
          targetEvicted,
        },
      }
    }
    case 'pruned':
      return {
        beforeId,
        stage: fate.stage,
        replacedBy: { kind: 'placeholder', text: fate.placeholder },
      }
    case 'slimmed':
      if (afterText !== undefined && holds(afterText)) return null
      return { beforeId, stage: fate.stage, replacedBy: { kind: 'slimmed', text: afterText ?? '' } }
    case 'dropped':
      return { beforeId, stage: fate.stage, replacedBy: { kind: 'dropped', reason: fate.reason } }
    case 'summarized': {
      const chain = summaryChain(ix, beforeId)
      const losing = chain
        ? (firstOmitting(chain, holds, memo) ?? chain.extra ?? chain.list[chain.list.length - 1])
        : undefined
      if (!losing) {
        return {
          beforeId,
          stage: fate.stage,
          pass: fate.pass,
          replacedBy: { kind: 'summary', summaryId: fate.summaryId, text: '' },
        }
      }
      return {
        beforeId,
        stage: losing.stage,
        pass: losing.pass,
        replacedBy: { kind: 'summary', summaryId: losing.summaryId, text: losing.summary },
      }
    }
  }
}

function describeEvent(e: LossEvent): string {
  const where = `${e.stage}${e.pass !== undefined ? ` pass ${e.pass}` : ''}`
  const r = e.replacedBy
  switch (r.kind) {
    case 'summary':
      return `${where} folded message ${e.beforeId} into summary ${r.summaryId}, which omits it`
    case 'placeholder':
      return `${where} replaced message ${e.beforeId} with the placeholder "${cutCodePoints(
        r.text,
        80,
      )}"`
    case 'back-reference':
      return (
        `${where} replaced message ${e.beforeId} with a back-reference to ${r.firstId}` +
        (r.targetEvicted ? ', whose target was evicted too' : '')
      )
    case 'slimmed':
      return `${where} slimmed message ${e.beforeId} and cut it`
    case 'dropped':
      return `${where} dropped message ${e.beforeId} (${r.reason})`
    case 'changed':
      return `message ${e.beforeId} was changed and no longer holds it`
  }
}

/**
 * The verdict on one fact in a run:
 * - `survives` when some after message holds it (`where`: which, and whether verbatim, only in
 *   a summary, or in the pinned block);
 * - `lost` when before messages held it and no after message does: each copy's loss is read
 *   from its fate (back-reference, placeholder, slimmed, dropped) or, for a summarized
 *   message, from the chain of passes it went through (the first pass whose summary omits
 *   it); `lost` is the latest of those events in pipeline order — the one that dropped the
 *   last copy;
 * - `never-present` when no before message holds it (`where` may still list after messages,
 *   e.g. a summary that invented it).
 * A string query matches verbatim (case-sensitive); a RegExp is tested per message. Pure; never
 * re-runs compaction. Source: SPEC §6 "Fact finder".
 */
export function findFact(run: FactRun | RunIndex, query: FactQuery): FactVerdict {
  const ix = 'beforeTexts' in run ? run : indexRun(run)
  const holds = matcher(query)
  const beforeIds = [...ix.beforeTexts].filter(([, t]) => holds(t)).map(([id]) => id)
  const afterIds = [...ix.afterTexts].filter(([, t]) => holds(t)).map(([id]) => id)
  return verdictOf(ix, queryLabel(query), holds, beforeIds, afterIds)
}

/**
 * The verdict once the messages holding the fact are known (`beforeIds`, `afterIds`, each in
 * their side's order): `holds` is only asked about after texts and pass summaries.
 */
function verdictOf(
  ix: RunIndex,
  label: string,
  holds: (text: string) => boolean,
  beforeIds: string[],
  afterIds: readonly string[],
): FactVerdict {
  const where = afterIds
    .map((id) => ({ id, as: keptAs(ix.run, id) }))
    .sort((a, b) => AS_RANK[a.as] - AS_RANK[b.as])
  if (beforeIds.length === 0) {
    return {
      query: label,
      verdict: 'never-present',
      beforeIds,
      where,
      explanation:
        where.length > 0
          ? `"${label}" is in no message of the original transcript, yet ` +
            `${where.map((w) => w.id).join(', ')} holds it`
          : `"${label}" is in no message of the original transcript`,
    }
  }
  if (where.length > 0) {
    const best = where[0] as { id: string; as: KeptAs }
    const how =
      best.as === 'verbatim'
        ? 'verbatim'
        : best.as === 'pinned'
          ? 'in the pinned block'
          : 'only in a summary'
    return {
      query: label,
      verdict: 'survives',
      beforeIds,
      where,
      explanation: `"${label}" survives ${how} (${where.map((w) => w.id).join(', ')})`,
    }
  }
  const memo = new Map<readonly Pass[], Map<number, number>>()
  const events = beforeIds
    .map((id) => lossOf(ix, id, holds, memo))
    .filter((e): e is LossEvent => e !== null)
    .sort((a, b) => compareKeys(eventKey(ix, a), eventKey(ix, b)))
  const lost = events[events.length - 1]
  const out: FactVerdict = {
    query: label,
    verdict: 'lost',
    beforeIds,
    where,
    events,
    explanation: lost
      ? `"${label}" is lost: ${describeEvent(lost)}`
      : `"${label}" is lost (no recorded step explains it)`,
  }
  if (lost) out.lost = lost
  return out
}

// ---------------------------------------------------------------------------
// The facts table: each fact's fate through every pass
// ---------------------------------------------------------------------------


/** One row of the facts table. */
export interface FactRow extends CandidateFact {
  /** Its state through the passes, as runs over `FactTable.passes` positions. */
  passRuns: PassRun[]
  /** Its fate in the final context. */
  final: KeptAs | 'lost'
  verdict: FactVerdict
}

/** The facts table of a run: each at-risk fact and its fate through every pass. */
export interface FactTable {
  /** The passes the columns stand for, in pipeline order. */
  passes: { stage: StageId; pass: number; summaryId: string }[]
  rows: FactRow[]
  totals: {
    facts: number
    survive: number
    verbatim: number
    pinned: number
    summaryOnly: number
    lost: number
    /** e.g. "11 of 14 facts survive". */
    text: string
  }
}

function orderedPasses(ix: RunIndex): Pass[] {
  return [...ix.run.passes].sort((a, b) => compareKeys(eventKey(ix, a), eventKey(ix, b)))
}

/** When before message `id` stopped being verbatim: its first loss or fold, or null. */
function verbatimUntil(ix: RunIndex, id: string): Key | null {
  const fate = ix.run.fates[id]
  if (!fate || fate.kind === 'kept') return null
  if (fate.kind === 'summarized') {
    const chain = summaryChain(ix, id)
    const first = chain ? chain.list[chain.start] : undefined
    return first ? eventKey(ix, first) : eventKey(ix, fate)
  }
  return eventKey(ix, { stage: fate.stage })
}

/**
 * The candidate facts of a transcript and the before messages holding each, verbatim (the
 * same test as `findFact` with a string). Depends on the transcript alone, so a caller running
 * the pipeline again and again over one transcript (the worker) builds it once and passes it to
 * every `factTable`.
 */
export interface FactIndex {
  /** The before messages it was built from (compared by identity in `factTable`). */
  messages: readonly Message[]
  facts: readonly CandidateFact[]
  /** Finds, in one scan of a text, which of `facts` it holds. */
  matcher: StringSetMatcher
  /** Per fact (same order as `facts`): ids of the before messages holding it, in order. */
  holders: string[][]
  /** Before message id → indices (into `facts`) of the facts its text holds, ascending. */
  byMessage: Map<string, number[]>
}

/**
 * Builds the fact index of `messages` (normally a transcript's Before side): one scan per
 * message for all facts. `facts` defaults to `extractFacts(messages)`. Pure. It keeps the facts
 * table well under a second on a 5,000-message session.
 */
export function indexFacts(
  messages: readonly Message[],
  facts: readonly CandidateFact[] = extractFacts(messages),
): FactIndex {
  const matcher = createStringSetMatcher(facts.map((f) => f.fact))
  const holders: string[][] = facts.map(() => [])
  const byMessage = new Map<string, number[]>()
  for (const m of messages) {
    const hits = matcher.find(messageFactText(m))
    byMessage.set(m.id, hits)
    for (const i of hits) holders[i]?.push(m.id)
  }
  return { messages, facts, matcher, holders, byMessage }
}

/**
 * The state of each fact after each pass and in the final context, read from the run's
 * provenance: after pass k a fact is `verbatim` when a message holding it was already in the
 * conversation (rolling replay: index ≤ the pass's `atMessage`) and not yet folded, pruned or
 * replaced; else `summary` when pass k's summary holds it; else `lost` (or `not-yet` when no
 * message holding it existed yet). Totals count `final !== 'lost'` as surviving; each row's
 * `verdict` equals `findFact(run, row.fact)`.
 *
 * `facts` defaults to `extractFacts(run.before.messages)`; pass a `FactIndex` of
 * `run.before.messages` (`indexFacts`) to skip extracting and scanning the Before again (an
 * index of other messages is rebuilt from its facts). Every text is scanned once for all facts
 * (`createStringSetMatcher`), never once per fact. A row's states through the passes are
 * runs (`factPassRuns`), so the table grows with facts + passes, never facts × passes. Pure.
 */
export function factTable(run: FactRun, facts?: readonly CandidateFact[] | FactIndex): FactTable {
  const fi =
    facts && 'matcher' in facts
      ? facts.messages === run.before.messages
        ? facts
        : indexFacts(run.before.messages, facts.facts)
      : indexFacts(run.before.messages, facts)
  const ix = indexRun(run)
  const passes = orderedPasses(ix)
  // Which facts each after text and pass summary holds, keyed by the text itself: `lossOf` and
  // the pass loop below test exactly these strings.
  const textHits = new Map<string, Set<number>>()
  const afterHolders: string[][] = fi.facts.map(() => [])
  for (const m of run.after.messages) {
    const text = ix.afterTexts.get(m.id) ?? ''
    const origin = run.origins[m.id]
    const source = origin === undefined ? m.id : origin.kind === 'original' ? origin.beforeId : undefined
    // An unchanged original has its Before text: reuse that scan.
    const same = source !== undefined && ix.beforeTexts.get(source) === text
    const hits = (same ? fi.byMessage.get(source) : undefined) ?? fi.matcher.find(text)
    textHits.set(text, new Set(hits))
    for (const i of hits) afterHolders[i]?.push(m.id)
  }
  for (const p of passes) {
    if (!textHits.has(p.summary)) textHits.set(p.summary, new Set(fi.matcher.find(p.summary)))
  }
  // A before message's first loss is the same for every fact it holds.
  const untilCache = new Map<string, Key | null>()
  const until = (id: string) => {
    let u = untilCache.get(id)
    if (u === undefined) {
      u = verbatimUntil(ix, id)
      untilCache.set(id, u)
    }
    return u
  }
  const passKeys = passes.map((p) => eventKey(ix, p))
  const timeline = passTimeline(
    passes.map((p) => p.stage === 'summarize'),
    passes.map((p) => p.atMessage),
  )
  // The positions whose summary holds each fact, ascending: one walk over every summary's hits.
  const summaryAt: number[][] = fi.facts.map(() => [])
  passes.forEach((p, k) => {
    for (const i of textHits.get(p.summary) ?? []) summaryAt[i]?.push(k)
  })
  // The first position at or after a loss key: passes are in key order.
  const firstAtOrAfter = (u: Key | null) =>
    u ? partitionPoint(0, passes.length, (k) => !after(u, passKeys[k] as Key)) : passes.length
  const rows: FactRow[] = fi.facts.map((f, i) => {
    const holds = (text: string) => {
      const hits = textHits.get(text)
      return hits ? hits.has(i) : text.includes(f.fact)
    }
    const carriers = fi.holders[i] ?? []
    const verdict = verdictOf(ix, f.fact, holds, [...carriers], afterHolders[i] ?? [])
    const passRuns = factPassRuns(
      timeline,
      carriers.map((id) => ({ at: ix.beforeIndex.get(id) ?? 0, until: firstAtOrAfter(until(id)) })),
      summaryAt[i] ?? [],
    )
    const final: KeptAs | 'lost' = verdict.where[0]?.as ?? 'lost'
    return { ...f, passRuns, final, verdict }
  })
  const count = (k: KeptAs | 'lost') => rows.filter((r) => r.final === k).length
  const survive = rows.length - count('lost')
  return {
    passes: passes.map((p) => ({ stage: p.stage, pass: p.pass, summaryId: p.summaryId })),
    rows,
    totals: {
      facts: rows.length,
      survive,
      verbatim: count('verbatim'),
      pinned: count('pinned'),
      summaryOnly: count('summary'),
      lost: count('lost'),
      text: `${survive.toLocaleString('en-US')} of ${rows.length.toLocaleString('en-US')} facts survive`,
    },
  }
}
