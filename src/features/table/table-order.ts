/**
 * The message table's rows in the order it lists them: a role and a fate filter and a sort of one
 * column, worked out as positions into the Before rows in a typed array, never as an object per
 * row (a 1,000,000-message Before is listed, filtered and sorted in tens of milliseconds). Pure.
 */
import type { RowMeta } from '../../worker/protocol'

/** The sortable columns of the message table. */
export type TableSortColumn = 'index' | 'role' | 'tokens'

/** What the table lists: rows of `role` and of fate kind `fate` ('' = any), sorted by `sort` (null: file order). */
export interface TableQuery {
  role: string
  fate: string
  sort: { id: TableSortColumn; desc: boolean } | null
}

/** A Before row's fate kind as the table shows and filters it (`kept` when it has none). */
export function fateKindOf(row: Pick<RowMeta, 'fate'>): string {
  return row.fate?.kind ?? 'kept'
}

/** The fate kinds of `rows`, sorted: the fate filter's options. */
export function fateKinds(rows: readonly Pick<RowMeta, 'fate'>[]): string[] {
  const kinds = new Set<string>()
  for (const r of rows) kinds.add(fateKindOf(r))
  return [...kinds].sort()
}

/**
 * Positions into `rows` of the rows `query` lists, in its order; null when it lists every row in
 * file order (no filter, no sort). Ties keep file order; `desc` reverses the column's order only.
 * Roles sort by name; index and tokens by number.
 */
export function tableOrder(rows: readonly RowMeta[], query: TableQuery): Int32Array | null {
  const { role, fate, sort } = query
  if (!role && !fate && !sort) return null
  let picked = new Int32Array(rows.length)
  let n = 0
  for (let i = 0; i < rows.length; i++) {
    const r = rows[i] as RowMeta
    if (role && r.role !== role) continue
    if (fate && fateKindOf(r) !== fate) continue
    picked[n++] = i
  }
  picked = picked.subarray(0, n)
  if (!sort) return picked
  // One number per row: the column's rank times a power of two above every position, plus the
  // position, so a numeric sort of the keys orders by the column, then by file order.
  const span = 2 ** Math.ceil(Math.log2(rows.length + 1))
  const roles = sort.id === 'role' ? [...new Set(rows.map((r) => r.role))].sort() : []
  const rankOf = (r: RowMeta): number =>
    sort.id === 'role' ? roles.indexOf(r.role) : sort.id === 'tokens' ? r.tokens : r.index
  let max = 0
  for (const i of picked) max = Math.max(max, rankOf(rows[i] as RowMeta))
  const keys = new Float64Array(n)
  for (let k = 0; k < n; k++) {
    const i = picked[k] as number
    const rank = rankOf(rows[i] as RowMeta)
    keys[k] = (sort.desc ? max - rank : rank) * span + i
  }
  keys.sort()
  const out = new Int32Array(n)
  for (let k = 0; k < n; k++) out[k] = (keys[k] as number) % span
  return out
}
