import { passName } from '../../components/kinds'
import type { RecordedCompaction } from '../../engine/model'
import type { PassMeta, RowMeta } from '../../worker/protocol'

/** A labelled boundary separator of a column (a pass's slice, a recorded compaction). */
export interface BoundaryItem {
  type: 'boundary'
  key: string
  label: string
  kind: 'summary' | 'recorded'
}

/** One item of a virtualized column: a message row or a labelled boundary separator. */
export type ColumnItem = { type: 'row'; key: string; row: RowMeta } | BoundaryItem

/** A boundary and the position (in the column's rows) of the row it stands before; `rows.length`: after the last. */
export interface PlacedBoundary {
  before: number
  item: BoundaryItem
}

/**
 * A column's items (its rows in order, boundary separators between them), held as the rows, the
 * few boundaries and one typed array of positions: no object per row, so a column of 200,000 rows
 * is made in about a millisecond and read in O(1) per item. Item objects are made on read (`at`),
 * for the items in view only. Immutable.
 */
export class ColumnItems {
  /** Items in the column: rows plus boundaries. */
  readonly length: number
  /** Positions (in the items) of the boundaries, ascending. */
  readonly boundaryPositions: readonly number[]
  readonly #rows: readonly RowMeta[]
  readonly #boundaries: readonly BoundaryItem[]
  /** Per item: the row's position in `#rows` (≥ 0), or −1 − the boundary's position in `#boundaries`. */
  readonly #slots: Int32Array

  /** `boundaries` in column order (`before` ascending; equal ones keep their order), each `before` in 0..rows.length. */
  constructor(rows: readonly RowMeta[], boundaries: readonly PlacedBoundary[] = []) {
    this.#rows = rows
    this.#boundaries = boundaries.map((b) => b.item)
    this.length = rows.length + boundaries.length
    const slots = new Int32Array(this.length)
    const positions: number[] = []
    let at = 0
    let next = 0
    for (let r = 0; r <= rows.length; r++) {
      for (; next < boundaries.length && (boundaries[next] as PlacedBoundary).before <= r; next++) {
        positions.push(at)
        slots[at++] = -1 - next
      }
      if (r < rows.length) slots[at++] = r
    }
    this.boundaryPositions = positions
    this.#slots = slots
  }

  /** The item at position `i` (made on each call), or undefined outside 0..length − 1. */
  at(i: number): ColumnItem | undefined {
    const row = this.rowAt(i)
    if (row) return { type: 'row', key: `r-${row.id}`, row }
    return this.boundaryAt(i)
  }

  /** The row at position `i`, or undefined when it is a boundary or outside the items. */
  rowAt(i: number): RowMeta | undefined {
    const slot = this.#slots[i]
    return slot === undefined || slot < 0 ? undefined : this.#rows[slot]
  }

  /** The boundary at position `i`, or undefined when it is a row or outside the items. */
  boundaryAt(i: number): BoundaryItem | undefined {
    const slot = this.#slots[i]
    return slot === undefined || slot >= 0 ? undefined : this.#boundaries[-1 - slot]
  }

  /** True when the item at `i` is a boundary. */
  isBoundary(i: number): boolean {
    return (this.#slots[i] ?? 0) < 0
  }

  /**
   * The key a virtualizer keeps item `i`'s measured size under: the row's id (a string), or for a
   * boundary a negative number (−1 − its order), so the two never collide; stable across runs for
   * a row, without making a string per item.
   */
  sizeKeyAt(i: number): string | number {
    const slot = this.#slots[i] ?? 0
    return slot < 0 ? slot : (this.#rows[slot] as RowMeta).id
  }

  /** Position of the row with id `id` in the items, or −1 (a scan of the rows: no index is kept). */
  indexOfRow(id: string): number {
    const rows = this.#rows
    for (let r = 0; r < rows.length; r++) {
      if ((rows[r] as RowMeta).id !== id) continue
      let before = 0
      while (before < this.boundaryPositions.length && (this.boundaryPositions[before] as number) <= r + before) before++
      return r + before
    }
    return -1
  }

  /** Items `from`..`to` − 1 as objects (clamped to the items). */
  slice(from = 0, to = this.length): ColumnItem[] {
    const out: ColumnItem[] = []
    for (let i = Math.max(0, from); i < Math.min(to, this.length); i++) out.push(this.at(i) as ColumnItem)
    return out
  }
}

/**
 * Before column: rows in order, a separator before the first message of each pass's slice
 * (`pass 2: messages 40–57 → summary`, `insert-then-compress: messages 0–49 → summary`) and before the first message after each compaction
 * recorded in the source.
 */
export function buildBeforeItems(
  rows: readonly RowMeta[],
  passes: readonly PassMeta[],
  recorded: readonly RecordedCompaction[],
): ColumnItems {
  const before = new Map<number, BoundaryItem[]>()
  const add = (index: number, item: BoundaryItem) => {
    const list = before.get(index)
    if (list) list.push(item)
    else before.set(index, [item])
  }
  for (const p of passes) {
    if (p.upto <= p.from) continue
    add(p.from, {
      type: 'boundary',
      key: `pass-${p.stage}-${p.pass}`,
      kind: 'summary',
      label: `${passName(p.stage, p.pass)}: messages ${p.from}–${p.upto - 1} → summary`,
    })
  }
  recorded.forEach((c, i) => {
    const tokens =
      c.tokensBefore !== undefined && c.tokensAfter !== undefined
        ? `, ${c.tokensBefore.toLocaleString('en-US')} → ${c.tokensAfter.toLocaleString('en-US')} tokens`
        : c.tokensBefore !== undefined
          ? `, ${c.tokensBefore.toLocaleString('en-US')} tokens before`
          : ''
    add(c.atIndex, {
      type: 'boundary',
      key: `recorded-${i}`,
      kind: 'recorded',
      label: `recorded compaction in source${c.trigger ? ` (${c.trigger}${tokens})` : tokens ? ` (${tokens.slice(2)})` : ''}`,
    })
  })
  const placed: PlacedBoundary[] = []
  if (before.size > 0) {
    rows.forEach((row, r) => {
      for (const item of before.get(row.index) ?? []) placed.push({ before: r, item })
    })
  }
  return new ColumnItems(rows, placed)
}

/**
 * After column: rows in order, a separator before each summary message naming its pass and range;
 * a recorded summary (stage `recorded`) gets the recorded boundary:
 * `recorded compaction 1: messages 0–40 → the agent's summary`.
 */
export function buildAfterItems(rows: readonly RowMeta[]): ColumnItems {
  const placed: PlacedBoundary[] = []
  rows.forEach((row, r) => {
    const o = row.origin
    if (o?.kind === 'summary' && o.stage === 'recorded') {
      const range = o.toIndex >= o.fromIndex ? `: messages ${o.fromIndex}–${o.toIndex}` : ''
      placed.push({
        before: r,
        item: { type: 'boundary', key: `b-${row.id}`, kind: 'recorded', label: `recorded compaction ${o.pass}${range} → the agent's summary` },
      })
    } else if (o?.kind === 'summary') {
      placed.push({
        before: r,
        item: { type: 'boundary', key: `b-${row.id}`, kind: 'summary', label: `${passName(o.stage, o.pass)}: messages ${o.fromIndex}–${o.toIndex} → summary` },
      })
    }
  })
  return new ColumnItems(rows, placed)
}

/**
 * A row's counterparts by id (`RowMeta.counterpartIds`, as the engine sent them) without a map of
 * every row: each lookup scans `rows` from where the last one hit, so a scroll that asks for the
 * rows in turn costs a few steps per call, and a column of 200,000 rows is never indexed whole
 * (a map of them is a long task of its own). Unknown id: undefined.
 */
export function rowLinks(rows: readonly RowMeta[]): Pick<ReadonlyMap<string, string[]>, 'get'> {
  let last = 0
  return {
    get: (id) => {
      const n = rows.length
      for (let k = 0; k < n; k++) {
        const r = (last + k) % n
        const row = rows[r] as RowMeta
        if (row.id === id) {
          last = r
          return row.counterpartIds
        }
      }
      return undefined
    },
  }
}

/**
 * Links between two After columns of the same transcript (recorded vs simulated), through the
 * Before ids both carry: for each row of `after`, the rows of the other After that carry any of
 * its Before messages (read from the other run's Before rows' counterparts; nothing re-derived).
 */
export function linkAfters(
  after: readonly RowMeta[],
  otherBefore: readonly RowMeta[],
): Map<string, string[]> {
  const otherByBefore = new Map(otherBefore.map((r) => [r.id, r.counterpartIds]))
  const links = new Map<string, string[]>()
  for (const row of after) {
    const ids = new Set<string>()
    for (const b of row.counterpartIds) for (const id of otherByBefore.get(b) ?? []) ids.add(id)
    links.set(row.id, [...ids])
  }
  return links
}

/**
 * Where `[` and `]` stop in a column: each run of boundary items (a pass's separator, a recorded
 * compaction's) and the row right after it. `boundary` and `row` are positions in `items`; `label`
 * joins the labels of boundaries that stand before the same row with "; ". A run of boundaries with
 * no row after it is no stop.
 */
export interface PassStop {
  boundary: number
  row: number
  label: string
}

/** The column's pass stops in order (see `PassStop`); reads the boundaries only. */
export function passStops(items: ColumnItems): PassStop[] {
  const stops: PassStop[] = []
  const positions = items.boundaryPositions
  for (let k = 0; k < positions.length; ) {
    const first = positions[k] as number
    const labels: string[] = []
    let at = first
    // A run: boundaries at consecutive positions.
    while (k < positions.length && positions[k] === at) {
      labels.push(items.boundaryAt(at)?.label ?? '')
      k++
      at++
    }
    if (items.rowAt(at)) stops.push({ boundary: first, row: at, label: labels.join('; ') })
  }
  return stops
}

/**
 * The index in `stops` (`passStops(items)`) of the stop whose boundaries include pass `pass` of
 * stage `stage` (the Before column's `pass-<stage>-<pass>` separator), or −1 when the column has none.
 */
export function stopOfPass(items: ColumnItems, stops: readonly PassStop[], which: { stage: string; pass: number }): number {
  const key = `pass-${which.stage}-${which.pass}`
  const at = items.boundaryPositions.find((i) => items.boundaryAt(i)?.key === key)
  if (at === undefined) return -1
  return stops.findIndex((s) => s.boundary <= at && at < s.row)
}

/**
 * The stop `]` (dir 1) or `[` (dir −1) goes to from item position `pos` (the selected row's, or
 * −1 / `items.length` for none): the first stop whose row is after `pos`, or the last one whose row
 * is before it. −1 when there is none that way. Returns an index into `stops`.
 */
export function stepStop(stops: readonly PassStop[], pos: number, dir: 1 | -1): number {
  if (dir === 1) return stops.findIndex((s) => s.row > pos)
  return stops.findLastIndex((s) => s.row < pos)
}

/**
 * The position of the row `j` (dir 1) or `k` (dir −1) selects from item position `pos` (−1 for
 * none with dir 1, `items.length` for none with dir −1): the next or previous row item, skipping
 * boundaries; −1 at the column's end.
 */
export function stepRow(items: ColumnItems, pos: number, dir: 1 | -1): number {
  for (let i = pos + dir; i >= 0 && i < items.length; i += dir) if (!items.isBoundary(i)) return i
  return -1
}
