/**
 * Pure helpers of the fact finder's page side: where to put `<mark>`s and
 * clickable facts in a text the page shows, and the verdict sentence. Offsets are UTF-16 code
 * units (JavaScript string indices), since they only slice strings for rendering.
 */
import { passName } from '../../components/kinds'
import type { FactVerdictView, RowMeta, RunView } from '../../worker/protocol'

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
 * The non-overlapping, non-empty matches of `h` in `text`, in order: verbatim and case-sensitive
 * for a string, every non-empty match for a regex (as the worker counts them). An invalid regex
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
  for (let at = text.indexOf(q); at !== -1; at = text.indexOf(q, at + q.length)) {
    out.push({ start: at, end: at + q.length })
  }
  return out
}

/**
 * Where the facts of a message occur in one of its texts: every occurrence of each fact, then
 * non-overlapping, earliest first, the longer fact winning at the same start (a URL over the
 * path inside it).
 */
export function factRanges(text: string, facts: readonly string[]): FactRange[] {
  const all: FactRange[] = []
  for (const fact of facts) {
    if (fact === '') continue
    for (let at = text.indexOf(fact); at !== -1; at = text.indexOf(fact, at + fact.length)) {
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

/** How many labels a verdict lists before "+N more". */
const LIST_CAP = 3

function listOf(labels: readonly string[]): string {
  const shown = labels.slice(0, LIST_CAP).join(', ')
  return labels.length > LIST_CAP ? `${shown}, +${labels.length - LIST_CAP} more` : shown
}

/** `#41`: a message named by its position in the Before, as the Before column shows it. */
function beforeName(beforeIndex: ReadonlyMap<string, number>, id: string): string {
  const i = beforeIndex.get(id)
  return i === undefined ? id : `#${i}`
}

/** How a message of the After is named in a verdict: `#41`, `summary of pass 2`, `pinned facts`. */
function afterName(row: RowMeta | undefined, id: string, beforeIndex: ReadonlyMap<string, number>): string {
  const o = row?.origin
  if (!o) return beforeName(beforeIndex, id)
  switch (o.kind) {
    case 'original':
      return beforeName(beforeIndex, o.beforeId)
    case 'back-reference':
      return `${beforeName(beforeIndex, o.beforeId)} (back-reference)`
    case 'placeholder':
      return `${beforeName(beforeIndex, o.beforeId)} (placeholder)`
    case 'summary':
      return o.stage === 'recorded' ? "the agent's recorded summary" : `summary of ${passName(o.stage, o.pass)}`
    case 'pinned-facts':
      return 'pinned facts'
    case 'instruction':
      return 'an injected instruction'
  }
}

/** The tone of a verdict, for its colour (never the only signal: the sentence says it). */
export type VerdictTone = 'good' | 'bad' | 'muted'

/**
 * The verdict as one sentence, naming messages as the columns do (`m41` = Before message 41):
 * - `survives in 3 messages after (#41, #42, summary of pass 2)`, or `survives only in summary of
 *   pass 1` when no verbatim copy is left;
 * - `lost in pass 2 of summarize — replaced by the summary of messages 0–21` (the event that lost
 *   the last copy, read from the engine's verdict and the run's passes);
 * - `never present in the Before` (and, when the After holds it anyway, which message does).
 * Renders the engine's decision only: nothing is searched or re-derived here.
 */
export function verdictSentence(v: FactVerdictView, run: RunView): { text: string; tone: VerdictTone } {
  const beforeIndex = new Map(run.before.rows.map((r) => [r.id, r.index]))
  const afterRows = new Map(run.after.rows.map((r) => [r.id, r]))
  const names = v.where.map((w) => afterName(afterRows.get(w.id), w.id, beforeIndex))
  if (v.verdict === 'never-present') {
    return {
      text:
        names.length > 0
          ? `never present in the Before — yet the After holds it (${listOf(names)})`
          : 'never present in the Before',
      tone: 'muted',
    }
  }
  if (v.verdict === 'survives') {
    const verbatim = v.where.some((w) => w.as === 'verbatim')
    const text = verbatim
      ? `survives in ${v.where.length} message${v.where.length === 1 ? '' : 's'} after (${listOf(names)})`
      : `survives only in ${listOf(names)}`
    return { text, tone: 'good' }
  }
  const e = v.lost
  if (!e) return { text: 'lost — no recorded step explains it', tone: 'bad' }
  const where =
    e.stage === 'pipeline'
      ? 'the pipeline'
      : e.stage === 'recorded'
        ? "the agent's recorded compaction"
        : e.pass !== undefined
          ? `pass ${e.pass} of ${e.stage}`
          : e.stage
  const copies = v.copiesLost > 1 ? ` (the last of ${v.copiesLost} copies)` : ''
  const r = e.replacedBy
  let what: string
  switch (r.kind) {
    case 'summary': {
      const p = run.passes.find((x) => x.stage === e.stage && x.pass === e.pass)
      what = p && p.upto > p.from ? `the summary of messages ${p.from}–${p.upto - 1}` : 'a summary that omits it'
      break
    }
    case 'placeholder':
      what = `a placeholder in ${beforeName(beforeIndex, e.beforeId)}`
      break
    case 'back-reference':
      what =
        `a back-reference to ${beforeName(beforeIndex, r.firstId)}` +
        (r.targetEvicted ? ', whose original was evicted too' : '')
      break
    case 'slimmed':
      what = `a slimmed ${beforeName(beforeIndex, e.beforeId)} without it`
      break
    case 'dropped':
      return { text: `lost in ${where}${copies} — ${beforeName(beforeIndex, e.beforeId)} dropped (${r.reason})`, tone: 'bad' }
    case 'changed':
      what = `a changed ${beforeName(beforeIndex, e.beforeId)} without it`
      break
  }
  return { text: `lost in ${where}${copies} — replaced by ${what}`, tone: 'bad' }
}
