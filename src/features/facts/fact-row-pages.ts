/**
 * The paging of a long facts table the worker holds (`getFactRows`): which pages the Facts tab
 * asks for, how answers add up, and what the list shows meanwhile. Pure; positions are row
 * positions in the query's order, `[from, end)`.
 */

/** The rows of a long facts table the worker listed for one query: how many match, and those fetched by position. */
export interface FactRowPages<R> {
  /** The worker's facts table version the rows belong to. */
  version: number
  /** The query's `factQueryKey`. */
  key: string
  /** How many rows the query lists in all. */
  matching: number
  /** The rows fetched so far, by position. */
  rows: ReadonlyMap<number, R>
}

/**
 * What the list shows for table `version` and query `key` from the pages held: their count and
 * rows, `stale` when they belong to another query or version (their rows are then the previous
 * list's, not this query's: shown as such until its first page arrives). Null: nothing held.
 */
export function listedRows<R>(
  held: FactRowPages<R> | null,
  version: number,
  key: string,
): { matching: number; rows: ReadonlyMap<number, R>; stale: boolean } | null {
  if (!held) return null
  return { matching: held.matching, rows: held.rows, stale: held.version !== version || held.key !== key }
}

/**
 * The page numbers (a page: positions `p * pageRows`… `(p + 1) * pageRows - 1`) to ask for so that
 * `range` of table `version`, query `key` is listed, given the pages `held`: the pages over the
 * range, clipped to the rows the query lists once known; only the first page when the query
 * changed (the list starts again at its top); over the whole range when only the version changed
 * or nothing is held (the count not known yet).
 */
export function pagesToAsk<R>(
  held: FactRowPages<R> | null,
  version: number,
  key: string,
  range: readonly [number, number],
  pageRows: number,
): number[] {
  const [from, end] = range
  if (held && held.key !== key) return [0]
  const fresh = held !== null && held.version === version
  const last = Math.ceil(Math.min(end, fresh ? held.matching : end) / pageRows) - 1
  const out: number[] = []
  for (let p = Math.floor(Math.max(0, from) / pageRows); p <= Math.max(0, last); p++) out.push(p)
  return out
}

/**
 * `held` with the answer `rows` (from position `from`, of `matching` in all) for table `version`,
 * query `key` added: merged into the pages of the same version and query, replacing others'.
 * A new value; `held` is not changed.
 */
export function withPage<R>(
  held: FactRowPages<R> | null,
  version: number,
  key: string,
  answer: { from: number; matching: number; rows: readonly R[] },
): FactRowPages<R> {
  const same = held?.version === version && held.key === key
  const rows = new Map(same ? held.rows : [])
  answer.rows.forEach((r, i) => rows.set(answer.from + i, r))
  return { version, key, matching: answer.matching, rows }
}
