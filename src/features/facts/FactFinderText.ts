/**
 * Pure helpers of the fact finder's page side: where to put `<mark>`s and clickable facts in a
 * text the page shows, and the verdict sentence (worded by the engine, named as the columns
 * name messages). Offsets are UTF-16 code units (JavaScript string indices), since they only
 * slice strings for rendering.
 */
import { factIndexIn } from '../../engine/facts/fact-index'
import {
  lossReason,
  passName,
  positionNames,
  verdictSentence as engineVerdictSentence,
  type SummarizerKind,
  type VerdictNames,
} from '../../engine/facts/verdict'
import type { FactVerdictView, RunView } from '../../worker/protocol'

/** What the finder highlights: the query of the worker's answer. */
export interface FactHighlight {
  query: string
  regex: boolean
}

/** A half-open span `[start, end)` of a string. */
export interface TextRange {
  start: number
  end: number
}

/** A span holding a fact the engine found in the message. */
export interface FactRange extends TextRange {
  fact: string
}

/** A run of text, marked when it is (part of) a match. */
interface Segment {
  text: string
  mark: boolean
}

/** A run of text that is either a clickable fact or plain, split into marked segments. */
export interface Piece {
  fact?: string
  segments: Segment[]
}

let lastRegex: { source: string; re: RegExp | null } | null = null

/** The global RegExp of a regex query (cached: every visible row asks for the same one), or null. */
function regexOf(source: string): RegExp | null {
  if (lastRegex?.source !== source) {
    let re: RegExp | null
    try {
      re = new RegExp(source, 'g')
    } catch {
      re = null
    }
    lastRegex = { source, re }
  }
  return lastRegex.re
}

/**
 * The non-overlapping, non-empty matches of `h` in `text`, in order: verbatim, case-sensitive
 * whole values for a string (engine `factIndexIn`), every non-empty match for a regex (as the worker counts them). An invalid regex
 * has none.
 */
export function matchRanges(text: string, h: FactHighlight | null): TextRange[] {
  const out: TextRange[] = []
  if (!h || h.query === '') return out
  if (h.regex) {
    const re = regexOf(h.query)
    if (!re) return out
    re.lastIndex = 0
    for (const m of text.matchAll(re)) {
      const start = m.index ?? 0
      if (m[0].length > 0) out.push({ start, end: start + m[0].length })
    }
    return out
  }
  const q = h.query
  for (let at = factIndexIn(text, q); at !== -1; at = factIndexIn(text, q, at + q.length)) {
    out.push({ start: at, end: at + q.length })
  }
  return out
}

/**
 * Where the facts of a message occur in one of its texts: every occurrence of each fact as a whole
 * value (engine `factIndexIn`), then
 * non-overlapping, earliest first, the longer fact winning at the same start (a URL over the
 * path inside it).
 */
export function factRanges(text: string, facts: readonly string[]): FactRange[] {
  const all: FactRange[] = []
  for (const fact of facts) {
    if (fact === '') continue
    for (let at = factIndexIn(text, fact); at !== -1; at = factIndexIn(text, fact, at + fact.length)) {
      all.push({ start: at, end: at + fact.length, fact })
    }
  }
  all.sort((a, b) => a.start - b.start || b.end - a.end)
  const out: FactRange[] = []
  let end = 0
  for (const r of all) {
    if (r.start < end) continue
    out.push(r)
    end = r.end
  }
  return out
}

/**
 * Cuts `text` into pieces — each fact of `facts` one piece, the text between them others — and
 * each piece into segments marked where `marks` cover them. Both lists sorted and
 * non-overlapping (as `matchRanges` and `factRanges` give them). Joining every segment's text
 * gives `text` back.
 */
export function textPieces(text: string, marks: readonly TextRange[], facts: readonly FactRange[]): Piece[] {
  let mi = 0
  const segmentsOf = (a: number, b: number): Segment[] => {
    const out: Segment[] = []
    while (mi < marks.length && (marks[mi] as TextRange).end <= a) mi++
    let at = a
    for (let j = mi; j < marks.length; j++) {
      const m = marks[j] as TextRange
      if (m.start >= b) break
      const s = Math.max(m.start, a)
      const e = Math.min(m.end, b)
      if (s > at) out.push({ text: text.slice(at, s), mark: false })
      out.push({ text: text.slice(s, e), mark: true })
      at = e
    }
    if (at < b) out.push({ text: text.slice(at, b), mark: false })
    return out
  }
  const pieces: Piece[] = []
  let at = 0
  for (const f of facts) {
    if (f.start > at) pieces.push({ segments: segmentsOf(at, f.start) })
    pieces.push({ fact: f.fact, segments: segmentsOf(f.start, f.end) })
    at = f.end
  }
  if (at < text.length || pieces.length === 0) pieces.push({ segments: segmentsOf(at, text.length) })
  return pieces
}

/** The tone of a verdict, for its colour (never the only signal: the sentence says it). */
export type VerdictTone = 'good' | 'bad' | 'muted'

const TONE: Record<FactVerdictView['verdict'], VerdictTone> = { survives: 'good', lost: 'bad', 'never-present': 'muted' }

/** Names as the columns show them: `Before #12`, `Before #41 → After #7`, `After #0 (summary of pass 2)`. */
function columnNames(run: RunView): VerdictNames {
  const beforeIndex = new Map(run.before.rows.map((r) => [r.id, r.index]))
  const afterRows = new Map(run.after.rows.map((r) => [r.id, r]))
  return positionNames(beforeIndex, (id) => afterRows.get(id), run.passes)
}

/**
 * The verdict as one sentence (the engine's `verdictSentence`), naming messages as the columns
 * do (`Before #41 → After #7`, `After #0 (summary of pass 2)`; `run`: the view whose After was
 * searched), and its tone. Renders the engine's decision only: nothing is searched or
 * re-derived here.
 */
export function verdictSentence(v: FactVerdictView, run: RunView): { text: string; tone: VerdictTone } {
  return { text: engineVerdictSentence(v, columnNames(run)), tone: TONE[v.verdict] }
}

/** Why a lost fact went, as the finder shows it under the verdict. */
export interface LossWhyView {
  /** The engine's `lossReason`, messages named as the columns name them; absent when none. */
  reason?: string
  /**
   * The summarizer prompt's line that carried the fact (`[12] user: …`), or, when the prompt held
   * it nowhere (`inPrompt` false), the copy's own line as the summarizer got it. Untrusted text.
   */
  promptLine?: string
  inPrompt?: boolean
  /** The summary that came back without the fact (cut by the worker). Untrusted text. */
  summary?: string
  /** The placeholder that replaced the last copy. Untrusted text. */
  placeholder?: string
  /** For a back-reference: the Before id of the fact's first occurrence, and its name (`Before #4`). */
  firstOccurrence?: { id: string; name: string }
  /** The pass that wrote the summary: `pass 2`, `insert-then-compress`, or the agent's `compaction 2`. */
  pass?: string
}

/**
 * What the finder shows of why a lost fact went — the engine's reason, the prompt line, the
 * summary, the placeholder, the first occurrence — read from the verdict's last loss; null when
 * the fact is not lost or nothing is known. `summarizer`: which kind wrote the run's summaries.
 */
export function lossWhy(v: FactVerdictView, run: RunView, summarizer: SummarizerKind): LossWhyView | null {
  const e = v.verdict === 'lost' ? v.lost : undefined
  if (!e) return null
  const names = columnNames(run)
  const why: LossWhyView = {}
  const reason = lossReason(v, names, summarizer)
  if (reason !== undefined) why.reason = reason
  const r = e.replacedBy
  if (r.kind === 'summary') {
    if (r.promptLine !== undefined) why.promptLine = r.promptLine
    if (r.inPrompt !== undefined) why.inPrompt = r.inPrompt
    if (r.text !== '') why.summary = r.text
    why.pass = e.pass !== undefined ? passName(e.stage, e.pass) : e.stage
  } else if (r.kind === 'placeholder') why.placeholder = r.text
  else if (r.kind === 'back-reference') why.firstOccurrence = { id: r.firstId, name: names.before(r.firstId) }
  return Object.keys(why).length > 0 ? why : null
}
