/**
 * The facts table for the page, made in the worker from the last run: the
 * engine's `factTable` shaped into light rows. Two caches (`FactTables`, one per transcript
 * session) keep it cheap while sliders move: the fact index (candidate facts and the Before
 * messages holding each) is built once per transcript, and a run that changed nothing deciding a
 * fact's fate (same Before, fates, origins, passes and After texts) reuses the last rows under the
 * same version.
 */
import { holdsFact, type StringSetMatcher } from '../engine/facts/fact-index'
import { extractFacts, messageFactText, type CandidateFact } from '../engine/facts/patterns'
import { defaultIndexOf, factTable, type FactIndex, type FactRow, type FactTable } from '../engine/facts/table'
import type { PassRun } from '../engine/facts/pass-runs'
import { historyHasLoss } from '../engine/facts/history'
import type { FactEvent } from '../engine/facts/verdict'
import type { Message, RunResult } from '../engine/model'
import { codePointLength, cutCodePoints } from '../engine/util/text'
import { defaultFactOrder, factQueryKey, queryFactRows } from '../engine/fact-query'
import {
  FACT_ROWS_INLINE,
  FACT_VIEW_LIMIT,
  type FactRowsOutcome,
  type FactRowsQuery,
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

/**
 * One shared object per distinct value made by `make` for `key`: rows that say the same thing
 * hold the same object, which a structured clone sends once (a reference for every other row).
 * The page never mutates rows, so sharing is safe.
 */
function interner<T>(): (key: string, make: () => T) => T {
  const made = new Map<string, T>()
  return (key, make) => {
    let v = made.get(key)
    if (v === undefined) made.set(key, (v = make()))
    return v
  }
}

/** The shared parts of the rows of one view (`interner`): pass runs, first-seen and lost-at places. */
interface RowShare {
  runsView: (runs: readonly PassRun[]) => FactRowView['passRuns']
  firstSeen: (key: string, make: () => FactRowView['firstSeen']) => FactRowView['firstSeen']
  lostAt: (key: string, make: () => NonNullable<FactRowView['lostAt']>) => NonNullable<FactRowView['lostAt']>
}

function rowView(row: FactRow, key: number, indexOf: Map<string, number>, share: RowShare): FactRowView {
  const first = row.messageIds[0] ?? row.verdict.beforeIds[0] ?? ''
  const fact =
    codePointLength(row.fact) > FACT_VIEW_LIMIT ? `${cutCodePoints(row.fact, FACT_VIEW_LIMIT - 1)}…` : row.fact
  const view: FactRowView = {
    key,
    fact,
    kind: row.kind,
    origin: row.origin,
    importance: row.importance,
    firstSeen: share.firstSeen(first, () => ({ id: first, index: indexOf.get(first) ?? -1 })),
    messages: row.verdict.beforeIds.length,
    passRuns: share.runsView(row.passRuns),
    final: row.final,
    verdict: row.verdict.verdict,
    explanation: row.verdict.explanation,
  }
  const lost = row.verdict.lost
  if (lost) {
    view.lostAt = share.lostAt(`${lost.stage}\u0000${lost.beforeId}\u0000${lost.pass ?? ''}`, () => {
      const at: NonNullable<FactRowView['lostAt']> = { stage: lost.stage, beforeId: lost.beforeId }
      if (lost.pass !== undefined) at.pass = lost.pass
      return at
    })
  }
  const history = row.verdict.history
  if (history && tellsMore(history, row.verdict.verdict)) view.history = history
  if (row.neededAfterLoss) view.neededAfterLoss = { ...row.neededAfterLoss }
  if (row.reReadAfterLoss) view.reReadAfterLoss = { ...row.reReadAfterLoss }
  return view
}

/**
 * Whether a history tells more than a row's final fate: a loss, and after it something else (a
 * need, a return, another loss), or a loss behind a fact that survives.
 */
function tellsMore(history: readonly FactEvent[], verdict: FactRowView['verdict']): boolean {
  if (!historyHasLoss(history)) return false
  const told = history.filter((e) => e.kind !== 'entered')
  return verdict !== 'lost' || told.length > 1
}

/** Shapes an engine `FactTable` into the rows the page renders. Pure. */
function buildFactTableView(
  table: FactTable,
  before: readonly Message[],
  runId: number,
  version: number,
): FactTableView {
  const indexOf = new Map(before.map((m) => [m.id, m.index]))
  // Facts held alike share their runs (`factTable`): one copy each, shared by their rows, which
  // a structured clone keeps shared (3,121 copies for 15,578 rows on the 10 MB bench session).
  // First-seen and lost-at places are shared the same way: the page's copy of the table is read
  // in half the time.
  const copies = new Map<readonly PassRun[], FactRowView['passRuns']>()
  const share: RowShare = {
    runsView: (runs) => {
      let copy = copies.get(runs)
      if (!copy) copies.set(runs, (copy = runs.map((r) => ({ state: r.state, from: r.from, to: r.to }))))
      return copy
    },
    firstSeen: interner(),
    lostAt: interner(),
  }
  const rows = table.rows.map((r, i) => rowView(r, i, indexOf, share))
  return {
    runId,
    version,
    passes: table.passes.map((p) => ({ ...p })),
    rows,
    count: rows.length,
    kinds: [...new Set(rows.map((r) => r.kind))],
    noise: rows.reduce((n, r) => n + (r.importance === 'noise' ? 1 : 0), 0),
    totals: { ...table.totals },
  }
}

/**
 * `found` (`indexFacts` of its messages) with the user's `watched` facts (kind `watched`, their
 * `messageIds` not yet filled) put first: the index `indexFacts(messages, extractFacts(messages,
 * watched))` builds, without extracting or scanning the Before again. A watched fact is found
 * with `includes` (the same test), the found facts keep `found`'s scan with their indices
 * shifted; its matcher answers in the same way. Fills each watched fact's `messageIds`.
 */
export function withWatched(found: FactIndex, watched: readonly CandidateFact[]): FactIndex {
  const w = watched.length
  const own = (text: string) => {
    const hits: number[] = []
    watched.forEach((f, j) => {
      if (holdsFact(text, f.fact)) hits.push(j)
    })
    return hits
  }
  const shifted = (hits: readonly number[]) => hits.map((i) => i + w)
  const holders: string[][] = [...watched.map(() => []), ...found.holders]
  const byMessage = new Map<string, number[]>()
  for (const m of found.messages) {
    const mine = own(messageFactText(m))
    for (const j of mine) holders[j]?.push(m.id)
    byMessage.set(m.id, [...mine, ...shifted(found.byMessage.get(m.id) ?? [])])
  }
  watched.forEach((f, j) => {
    f.messageIds = [...(holders[j] ?? [])]
  })
  const matcher: StringSetMatcher = {
    size: w + found.matcher.size,
    find: (text) => [...own(text), ...shifted(found.matcher.find(text))],
  }
  return { messages: found.messages, facts: [...watched, ...found.facts], matcher, holders, byMessage }
}

/**
 * How long the worker must have been asked nothing after the first run before the facts table
 * is built ahead (ms): the page's own requests right after a run (the rest of its Before rows,
 * the failure-mode checks, the re-work) go first, and each call waits this long again
 * (`postponeAhead`).
 */
const BUILD_AHEAD_MS = 1_000

/**
 * The facts tables of one transcript: its fact index (built on first use, kept across runs) and
 * the last table made, with the run it was made from. `nextVersion` numbers a new table; it
 * counts across transcripts (the worker's), so a version the page holds from another transcript
 * never matches.
 */
/** A timer for idle-time work: in Node (the CLI, tests, the bench) it never keeps the process alive. */
function idleTimer(run: () => void, ms: number): ReturnType<typeof setTimeout> {
  const timer = setTimeout(run, ms)
  ;(timer as { unref?: () => void }).unref?.()
  return timer
}

export class FactTables {
  /** The index of the facts found in the Before (no watched facts): once per transcript. */
  #found: { messages: readonly Message[]; index: FactIndex } | null = null
  #index: { messages: readonly Message[]; watched: string; index: FactIndex } | null = null
  #last: { result: RunResult; watched: string; view: Omit<FactTableView, 'runId'> } | null = null
  /** The last table's rows in the default order, and the rows of the last query asked of it (`rows`). */
  #listed: { version: number; ordered: FactRowView[]; query: string; rows: FactRowView[] } | null = null

  /** The watched facts of the last table asked for: a table built ahead uses them. */
  #watched: readonly string[] = []
  /** The build ahead waiting for the page to be idle, and whether one ran (once per transcript). */
  #ahead: { timer: ReturnType<typeof setTimeout>; build: () => void; delayMs: number } | undefined
  #aheadRan = false
  /** Calls of the page still being answered (`hold`): the worker is not idle while any is. */
  #held = 0

  readonly #nextVersion: () => number

  constructor(nextVersion: () => number) {
    this.#nextVersion = nextVersion
  }

  /**
   * Builds the table of `result` (the page's run `runId`) ahead, `delayMs` (ms) after this call,
   * while the page is idle after the transcript's first run, so a first click on the Facts tab
   * only fetches it: the fact index, the table and the rows (`outcome` then answers from it). Once
   * per transcript; a later call before it ran moves it to the later run; `stillWanted()` false
   * when the timer fires (a newer run, another transcript) skips it. Never throws.
   */
  buildAhead(result: RunResult, runId: number, stillWanted: () => boolean, delayMs = BUILD_AHEAD_MS): void {
    if (this.#aheadRan) return
    this.cancelAhead()
    const build = () => {
      // A call still being answered (one awaiting the pool) is not idle time: wait again.
      if (this.#held > 0) {
        this.#ahead = { timer: idleTimer(build, delayMs), build, delayMs }
        return
      }
      this.#ahead = undefined
      if (this.#aheadRan || !stillWanted()) return
      this.#aheadRan = true
      try {
        this.outcome(result, runId, undefined, this.#watched)
      } catch {
        // The page's own request reports the error.
      }
    }
    this.#ahead = { timer: idleTimer(build, delayMs), build, delayMs }
  }

  /** Moves a build ahead not started yet to `delayMs` from now: the page asked for something. */
  postponeAhead(): void {
    const ahead = this.#ahead
    if (!ahead) return
    clearTimeout(ahead.timer)
    ahead.timer = idleTimer(ahead.build, ahead.delayMs)
  }

  /**
   * Marks a call of the page as being answered until the returned function is called: a build
   * ahead does not start meanwhile, and its delay starts again when the call is answered.
   */
  hold(): () => void {
    this.#held++
    let released = false
    return () => {
      if (released) return
      released = true
      this.#held--
      this.postponeAhead()
    }
  }

  /** Drops a build ahead not started yet (a run began: the table would be of an older run). */
  cancelAhead(): void {
    if (this.#ahead !== undefined) clearTimeout(this.#ahead.timer)
    this.#ahead = undefined
  }

  /**
   * The fact index of `messages` (a run's Before) with the user's `watched` facts. The facts found
   * are indexed once per transcript (extraction, matcher, a scan of the Before: most of a first
   * Facts tab's time); a change of `watched` only adds those few strings (`withWatched`).
   */
  #factIndexOf(messages: readonly Message[], watched: readonly string[]): FactIndex {
    const key = JSON.stringify(watched)
    if (this.#index?.messages !== messages || this.#index.watched !== key) {
      if (this.#found?.messages !== messages) this.#found = { messages, index: defaultIndexOf(messages) }
      const found = this.#found.index
      // extractFacts puts the watched facts first, each trimmed and once; with no messages, only them.
      const own = watched.length > 0 ? extractFacts([], watched) : []
      this.#index = { messages, watched: key, index: own.length > 0 ? withWatched(found, own) : found }
    }
    return this.#index.index
  }

  /** The index of the facts found in `messages` (a run's Before), without watched facts: built once per transcript. */
  foundIndexOf(messages: readonly Message[]): FactIndex {
    if (this.#found?.messages !== messages) this.#found = { messages, index: defaultIndexOf(messages) }
    return this.#found.index
  }

  /**
   * The facts table of `result` for the page's run `runId`. `known`: the version the page holds;
   * when the rows would be the same, only `{unchanged: true}` crosses. `ok: false` before any run.
   * `watched`: the user's own facts (`extractFacts`' `watched`), rows of kind `watched` first.
   */
  outcome(result: RunResult | null, runId: number, known?: number, watched: readonly string[] = []): FactTableOutcome {
    if (!result) return { ok: false, error: 'Nothing has run yet.' }
    this.#watched = watched
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
    // A long table's rows stay here: the page asks for the ones it shows (`rows`).
    return { ok: true, table: { ...last.view, runId, rows: last.view.count <= FACT_ROWS_INLINE ? last.view.rows : [] } }
  }

  /**
   * Rows `from`… (at most `count`) of the last table made, if it is `version`, that `query` lists
   * in its order (`queryFactRows`), and how many it lists in all. The query's rows are kept, so
   * the page scrolling through them only slices. `ok: false` when the last table is another version.
   */
  rows(version: number, query: FactRowsQuery, from: number, count: number): FactRowsOutcome {
    const view = this.#last?.view
    if (view?.version !== version) return { ok: false, error: 'This facts table is no longer held.' }
    if (this.#listed?.version !== version) {
      // No query's key is empty: the first query lists its rows.
      this.#listed = { version, ordered: defaultFactOrder(view.rows), query: '', rows: [] }
    }
    const listed = this.#listed
    const key = factQueryKey(query)
    if (listed.query !== key) {
      listed.rows = queryFactRows(listed.ordered, query)
      listed.query = key
    }
    const start = Math.max(0, Math.floor(from))
    return { ok: true, version, from: start, matching: listed.rows.length, rows: listed.rows.slice(start, start + Math.max(0, Math.floor(count))) }
  }
}
