/**
 * The facts table for the page, made in the worker from the last run: the
 * engine's `factTable` shaped into light rows. Two caches (`FactTables`, one per transcript
 * session) keep it cheap while sliders move: the fact index (candidate facts and the Before
 * messages holding each) is built once per transcript, and a run that changed nothing deciding a
 * fact's fate (same Before, fates, origins, passes and After texts) reuses the last rows under the
 * same version.
 */
import { extractFacts, messageFactText } from '../engine/facts/patterns'
import { factTable, indexFacts, type FactIndex, type FactRow, type FactTable } from '../engine/facts/table'
import type { Message, RunResult } from '../engine/model'
import { codePointLength, cutCodePoints } from '../engine/util/text'
import {
  FACT_VIEW_LIMIT,
  type FactRowView,
  type FactTableOutcome,
  type FactTableView,
} from './protocol'


/**
 * True when `a` and `b` decide the same fate for every fact: the same Before messages (by
 * identity, i.e. the same transcript), stage order, fates, origins, passes (summaries, ranges)
 * and After texts. Exact: never true for runs whose tables could differ.
 */
export function sameFactInputs(a: RunResult, b: RunResult): boolean {
  if (a === b) return true
  if (a.before.messages !== b.before.messages) return false
  if (a.after.messages.length !== b.after.messages.length) return false
  if (a.stages.map((s) => s.stage).join() !== b.stages.map((s) => s.stage).join()) return false
  const passKey = (r: RunResult) =>
    JSON.stringify(r.passes.map(({ prompt: _p, tokensBefore: _b, tokensAfter: _a, ...rest }) => rest))
  if (passKey(a) !== passKey(b)) return false
  if (JSON.stringify(a.fates) !== JSON.stringify(b.fates)) return false
  if (JSON.stringify(a.origins) !== JSON.stringify(b.origins)) return false
  return a.after.messages.every((m, i) => {
    const o = b.after.messages[i]
    return o !== undefined && o.id === m.id && (o === m || messageFactText(o) === messageFactText(m))
  })
}

function rowView(row: FactRow, key: number, indexOf: Map<string, number>): FactRowView {
  const first = row.messageIds[0] ?? row.verdict.beforeIds[0] ?? ''
  const fact =
    codePointLength(row.fact) > FACT_VIEW_LIMIT ? `${cutCodePoints(row.fact, FACT_VIEW_LIMIT - 1)}…` : row.fact
  const view: FactRowView = {
    key,
    fact,
    kind: row.kind,
    origin: row.origin,
    importance: row.importance,
    firstSeen: { id: first, index: indexOf.get(first) ?? -1 },
    messages: row.verdict.beforeIds.length,
    passRuns: row.passRuns.map((r) => ({ ...r })),
    final: row.final,
    verdict: row.verdict.verdict,
    explanation: row.verdict.explanation,
  }
  const lost = row.verdict.lost
  if (lost) {
    view.lostAt = { stage: lost.stage, beforeId: lost.beforeId }
    if (lost.pass !== undefined) view.lostAt.pass = lost.pass
  }
  return view
}

/** Shapes an engine `FactTable` into the rows the page renders. Pure. */
function buildFactTableView(
  table: FactTable,
  before: readonly Message[],
  runId: number,
  version: number,
): FactTableView {
  const indexOf = new Map(before.map((m) => [m.id, m.index]))
  return {
    runId,
    version,
    passes: table.passes.map((p) => ({ ...p })),
    rows: table.rows.map((r, i) => rowView(r, i, indexOf)),
    totals: { ...table.totals },
  }
}

/**
 * The facts tables of one transcript: its fact index (built on first use, kept across runs) and
 * the last table made, with the run it was made from. `nextVersion` numbers a new table; it
 * counts across transcripts (the worker's), so a version the page holds from another transcript
 * never matches.
 */
export class FactTables {
  #index: { messages: readonly Message[]; watched: string; index: FactIndex } | null = null
  #last: { result: RunResult; watched: string; view: Omit<FactTableView, 'runId'> } | null = null

  readonly #nextVersion: () => number

  constructor(nextVersion: () => number) {
    this.#nextVersion = nextVersion
  }

  /**
   * The fact index of `messages` (a run's Before) with the user's `watched` facts, built on first
   * use and again when either changes.
   */
  #factIndexOf(messages: readonly Message[], watched: readonly string[]): FactIndex {
    const key = JSON.stringify(watched)
    if (this.#index?.messages !== messages || this.#index.watched !== key) {
      const facts = watched.length > 0 ? extractFacts(messages, watched) : undefined
      this.#index = { messages, watched: key, index: indexFacts(messages, facts) }
    }
    return this.#index.index
  }

  /**
   * The facts table of `result` for the page's run `runId`. `known`: the version the page holds;
   * when the rows would be the same, only `{unchanged: true}` crosses. `ok: false` before any run.
   * `watched`: the user's own facts (`extractFacts`' `watched`), rows of kind `watched` first.
   */
  outcome(result: RunResult | null, runId: number, known?: number, watched: readonly string[] = []): FactTableOutcome {
    if (!result) return { ok: false, error: 'Nothing has run yet.' }
    let last = this.#last
    const watchedKey = JSON.stringify(watched)
    if (!last || last.watched !== watchedKey || !sameFactInputs(last.result, result)) {
      const table = factTable(result, this.#factIndexOf(result.before.messages, watched))
      const view = buildFactTableView(table, result.before.messages, runId, this.#nextVersion())
      const { runId: _runId, ...rest } = view
      last = { result, watched: watchedKey, view: rest }
      this.#last = last
    } else last.result = result
    if (known === last.view.version) return { ok: true, unchanged: true, runId, version: known }
    return { ok: true, table: { ...last.view, runId } }
  }
}
