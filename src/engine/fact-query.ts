/**
 * The facts table's filters and sort orders, one definition for both sides: the worker lists the
 * rows of a long table with it (`FactTables.rows`), the page a short one it holds whole. Pure.
 */
import type { FactKind } from './facts/patterns'
import { importanceRank, type FactImportance } from './facts/importance'
import type { KeptAs } from './facts/verdict'

/** The facts table's sortable columns: fact text, kind label, importance tier, first-seen message, final fate. */
export type FactSortColumn = 'fact' | 'kindLabel' | 'importanceRank' | 'firstSeen' | 'finalRank'

/**
 * Which facts-table rows to list, and in which order (`queryFactRows`): `text` a part of the fact
 * (any case; empty: every fact); `kind` one kind only, noise too (`''`: every kind, noise only with
 * `showNoise`); `onlyLost` only facts the final context lost; `sorting` columns to sort by, first
 * first (ties: facts needed after a loss, then by importance, then in order of first appearance).
 */
export interface FactRowsQuery {
  text: string
  kind: FactKind | ''
  showNoise: boolean
  onlyLost: boolean
  sorting: { id: FactSortColumn; desc: boolean }[]
}

/** The fields of a facts-table row (the worker's `FactRowView`) that its filters and orders read. */
export interface QueryableFactRow {
  /** Position in the engine's table (order of first appearance). */
  key: number
  fact: string
  kind: FactKind
  importance: FactImportance
  firstSeen: { index: number }
  final: KeptAs | 'lost'
  neededAfterLoss?: unknown
}

/** How each fact kind reads in the facts table (its Kind column, sorted by this text). */
export const FACT_KIND_LABEL: Record<FactKind, string> = {
  goal: 'goal',
  id: 'ID / order number',
  'postal-code': 'postal code',
  url: 'URL',
  email: 'e-mail',
  'file-path': 'path',
  date: 'date',
  reference: 'reference',
  name: 'name',
  money: 'money',
  quantity: 'quantity / size',
  duration: 'duration',
  percentage: 'percentage',
  count: 'count',
  instruction: 'instruction / constraint',
  todo: 'TODO',
  decision: 'decision',
  job: 'job status',
  hash: 'hash / commit',
  uuid: 'UUID',
  version: 'version',
  port: 'port',
  phone: 'phone number',
  branch: 'branch',
  'env-var': 'environment variable',
  number: 'number',
  code: 'code',
  watched: 'watched (yours)',
}

/** Sort rank of a final fate: lost first when ascending. */
const FINAL_RANK: Record<KeptAs | 'lost', number> = { lost: 0, summary: 1, pinned: 2, verbatim: 3 }

const isDigit = (code: number) => code >= 48 && code <= 57

/** The end of the run of digits (or of non-digits, `digits` false) starting at `from` in `s`. */
function chunkEnd(s: string, from: number, digits: boolean): number {
  let end = from + 1
  while (end < s.length && isDigit(s.charCodeAt(end)) === digits) end++
  return end
}

/** Whether `s` from `from` on holds digits or non-digits, as a count of runs. */
function chunksLeft(s: string, from: number): number {
  let n = 0
  for (let i = from; i < s.length; i = chunkEnd(s, i, isDigit(s.charCodeAt(i)))) n++
  return n
}

/**
 * Natural order of two texts, any case: runs of digits compare as numbers (leading zeros
 * ignored) and sort after text at the same place, other runs by UTF-16 code unit. The order of
 * TanStack Table's `alphanumeric` sort, which the table's headers name (compared in a test).
 */
export function compareAlphanumeric(x: string, y: string): number {
  const a = x.toLowerCase()
  const b = y.toLowerCase()
  let i = 0
  let j = 0
  while (i < a.length && j < b.length) {
    const da = isDigit(a.charCodeAt(i))
    const db = isDigit(b.charCodeAt(j))
    const ea = chunkEnd(a, i, da)
    const eb = chunkEnd(b, j, db)
    if (da !== db) return da ? 1 : -1
    let c: number
    if (da) {
      const na = a.slice(i, ea).replace(/^0+/, '')
      const nb = b.slice(j, eb).replace(/^0+/, '')
      c = na.length <= 15 && nb.length <= 15 ? Number(na || 0) - Number(nb || 0) : Number.parseInt(a.slice(i, ea), 10) - Number.parseInt(b.slice(j, eb), 10)
    } else {
      const ta = a.slice(i, ea)
      const tb = b.slice(j, eb)
      c = ta === tb ? 0 : ta < tb ? -1 : 1
    }
    if (c !== 0) return c > 0 ? 1 : -1
    i = ea
    j = eb
  }
  return chunksLeft(a, i) - chunksLeft(b, j)
}

const alphanumeric = compareAlphanumeric

const basic = (a: number, b: number) => (a === b ? 0 : a > b ? 1 : -1)

/** Each sortable column's comparison, ascending. */
const COMPARE: Record<FactSortColumn, (a: QueryableFactRow, b: QueryableFactRow) => number> = {
  fact: (a, b) => alphanumeric(a.fact, b.fact),
  kindLabel: (a, b) => alphanumeric(FACT_KIND_LABEL[a.kind], FACT_KIND_LABEL[b.kind]),
  importanceRank: (a, b) => basic(importanceRank(a.importance), importanceRank(b.importance)),
  firstSeen: (a, b) => basic(a.firstSeen.index, b.firstSeen.index),
  finalRank: (a, b) => basic(FINAL_RANK[a.final], FINAL_RANK[b.final]),
}

/** 0 for a fact needed after a pass removed it, 1 otherwise: those lead the table. */
const neededFirst = (r: QueryableFactRow) => (r.neededAfterLoss ? 0 : 1)

/**
 * `rows` (the engine's order, by `key`) in the table's default order: facts needed after
 * compaction removed them first, then by importance, ties in order of first appearance. A new array.
 */
export function defaultFactOrder<R extends QueryableFactRow>(rows: readonly R[]): R[] {
  const rank = rows.map((r) => neededFirst(r) * 8 + importanceRank(r.importance))
  return rows
    .map((_, i) => i)
    .sort((a, b) => (rank[a] ?? 0) - (rank[b] ?? 0) || (rows[a]?.key ?? 0) - (rows[b]?.key ?? 0))
    .map((i) => rows[i] as R)
}

/** A stable text of `query` (equal texts: equal answers for the same table). */
export function factQueryKey(query: FactRowsQuery): string {
  return JSON.stringify([query.text, query.kind, query.showNoise, query.onlyLost, query.sorting])
}

/**
 * The rows of `ordered` (a table in `defaultFactOrder`) that `query` lists, in its order: filtered
 * by kind (a kind chosen shows noise too), noise, "only lost" and text (any case, as the fact
 * column's `includesString`), then stably sorted by `query.sorting` (a `desc` entry reversed),
 * ties kept in the default order. A new array; `ordered` is not changed.
 */
export function queryFactRows<R extends QueryableFactRow>(ordered: readonly R[], query: FactRowsQuery): R[] {
  const text = query.text.toLowerCase()
  const { kind, showNoise, onlyLost } = query
  const out = ordered.filter(
    (r) =>
      (kind === '' ? showNoise || r.importance !== 'noise' : r.kind === kind) &&
      (!onlyLost || r.final === 'lost') &&
      (text === '' || r.fact.toLowerCase().includes(text)),
  )
  const sorting = query.sorting.filter((s) => s.id in COMPARE)
  if (sorting.length === 0) return out
  const at = new Map(out.map((r, i) => [r, i]))
  return out.sort((a, b) => {
    for (const s of sorting) {
      const c = COMPARE[s.id](a, b)
      if (c !== 0) return s.desc ? -c : c
    }
    return (at.get(a) ?? 0) - (at.get(b) ?? 0)
  })
}
