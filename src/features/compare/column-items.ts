import { passName } from '../../components/kinds'
import type { RecordedCompaction } from '../../engine/model'
import type { PassMeta, RowMeta } from '../../worker/protocol'

/** One item of a virtualized column: a message row or a labelled boundary separator. */
export type ColumnItem =
  | { type: 'row'; key: string; row: RowMeta }
  | { type: 'boundary'; key: string; label: string; kind: 'summary' | 'recorded' }


/**
 * Before column: rows in order, a separator before the first message of each pass's slice
 * (`pass 2: messages 40–57 → summary`, `insert-then-compress: messages 0–49 → summary`) and before the first message after each compaction
 * recorded in the source.
 */
export function buildBeforeItems(
  rows: readonly RowMeta[],
  passes: readonly PassMeta[],
  recorded: readonly RecordedCompaction[],
): ColumnItem[] {
  const before = new Map<number, ColumnItem[]>()
  const add = (index: number, item: ColumnItem) => {
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
  const items: ColumnItem[] = []
  for (const row of rows) {
    for (const b of before.get(row.index) ?? []) items.push(b)
    items.push({ type: 'row', key: `r-${row.id}`, row })
  }
  return items
}

/**
 * After column: rows in order, a separator before each summary message naming its pass and range;
 * a recorded summary (stage `recorded`) gets the recorded boundary:
 * `recorded compaction 1: messages 0–40 → the agent's summary`.
 */
export function buildAfterItems(rows: readonly RowMeta[]): ColumnItem[] {
  const items: ColumnItem[] = []
  for (const row of rows) {
    const o = row.origin
    if (o?.kind === 'summary' && o.stage === 'recorded') {
      const range = o.toIndex >= o.fromIndex ? `: messages ${o.fromIndex}–${o.toIndex}` : ''
      items.push({
        type: 'boundary',
        key: `b-${row.id}`,
        kind: 'recorded',
        label: `recorded compaction ${o.pass}${range} → the agent's summary`,
      })
    } else if (o?.kind === 'summary') {
      items.push({
        type: 'boundary',
        key: `b-${row.id}`,
        kind: 'summary',
        label: `${passName(o.stage, o.pass)}: messages ${o.fromIndex}–${o.toIndex} → summary`,
      })
    }
    items.push({ type: 'row', key: `r-${row.id}`, row })
  }
  return items
}

/** Position of a row in a column's items, or -1. */
export function itemIndexOf(items: readonly ColumnItem[], id: string): number {
  return items.findIndex((it) => it.type === 'row' && it.row.id === id)
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

/** The column's pass stops in order (see `PassStop`). */
export function passStops(items: readonly ColumnItem[]): PassStop[] {
  const stops: PassStop[] = []
  let first = -1
  const labels: string[] = []
  items.forEach((it, i) => {
    if (it.type === 'boundary') {
      if (first < 0) first = i
      labels.push(it.label)
      return
    }
    if (first >= 0) stops.push({ boundary: first, row: i, label: labels.join('; ') })
    first = -1
    labels.length = 0
  })
  return stops
}

/**
 * The index in `stops` (`passStops(items)`) of the stop whose boundaries include pass `pass` of
 * stage `stage` (the Before column's `pass-<stage>-<pass>` separator), or −1 when the column has none.
 */
export function stopOfPass(items: readonly ColumnItem[], stops: readonly PassStop[], which: { stage: string; pass: number }): number {
  const at = items.findIndex((it) => it.type === 'boundary' && it.key === `pass-${which.stage}-${which.pass}`)
  if (at < 0) return -1
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
export function stepRow(items: readonly ColumnItem[], pos: number, dir: 1 | -1): number {
  for (let i = pos + dir; i >= 0 && i < items.length; i += dir) if (items[i]?.type === 'row') return i
  return -1
}

/**
 * True when two values of a row's plain data (strings, numbers, booleans, arrays, plain objects
 * such as `RowMeta` and its fate, origin and flags) hold the same content. A re-run sends every
 * row anew: a row whose content did not change keeps its rendered markup.
 */
export function sameRowData(a: unknown, b: unknown): boolean {
  if (a === b) return true
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false
  if (Array.isArray(a) !== Array.isArray(b)) return false
  const ka = Object.keys(a)
  if (ka.length !== Object.keys(b).length) return false
  const ra = a as Record<string, unknown>
  const rb = b as Record<string, unknown>
  return ka.every((k) => Object.hasOwn(rb, k) && sameRowData(ra[k], rb[k]))
}
