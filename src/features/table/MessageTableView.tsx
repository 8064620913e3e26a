import {
  columnSizingFeature,
  createColumnHelper,
  rowSortingFeature,
  tableFeatures,
  useTable,
  type SortingState,
} from '@tanstack/react-table'
import { useLayoutEffect, useMemo, useRef, useState, type UIEvent } from 'react'
import { Chip } from '../../components/Chip'
import { SortableHeaderRows } from '../../components/SortableHeader'
import { formatCount, formatCountOf } from '../../components/format'
import { fateChip, type ChangeKind } from '../../components/kinds'
import { RoleBadge } from '../../components/RoleBadge'
import type { Role } from '../../engine/model'
import type { RowMeta } from '../../worker/protocol'
import { useStore } from '../../state/store'
import { useViewActions } from '../../state/hooks'
import { selectBeforeRows } from '../../state/selectors'
import { fateKindOf, fateKinds, tableOrder, type TableSortColumn } from './table-order'

/** One before message, flattened for sorting and filtering. */
interface TableRow {
  id: string
  index: number
  role: Role
  tokens: number
  fate: string
  fateKind: ChangeKind
  fateLabel: string
  tool: string
  preview: string
}

// v9 features are opt-in; the set is module-scoped so the table never rebuilds. The table model
// holds only the rows on screen: filtering and sorting go over positions (table-order.ts).
const features = tableFeatures({ columnSizingFeature, rowSortingFeature })
const column = createColumnHelper<typeof features, TableRow>()

const columns = column.columns([
  column.accessor('index', { header: '#', size: 64, sortDescFirst: true }),
  column.accessor('role', {
    header: 'Role',
    size: 110,
    sortDescFirst: false,
    cell: (c) => <RoleBadge role={c.getValue()} />,
  }),
  column.accessor('tokens', {
    header: 'Tokens',
    size: 90,
    sortDescFirst: true,
    cell: (c) => formatCount(c.getValue()),
  }),
  column.accessor('fate', {
    header: 'Fate',
    size: 190,
    enableSorting: false,
    cell: (c) => <Chip kind={c.row.original.fateKind} label={c.row.original.fateLabel} />,
  }),
  column.accessor('tool', { header: 'Tool', size: 130, enableSorting: false }),
  column.accessor('preview', { header: 'Preview', size: 560, enableSorting: false }),
])

const ROLES: Role[] = ['system', 'user', 'assistant', 'tool']

/** Height of a table row (px): rows are one line (cells never wrap), so positions are computed, never measured. */
const ROW_HEIGHT = 38
/** Rows rendered above and below those on screen. */
const OVERSCAN = 10

/** A Before row as a table row (made for the rows on screen only). */
function tableRow(r: RowMeta): TableRow {
  const chip = r.fate ? fateChip(r.fate) : { kind: 'kept' as const, label: 'kept' }
  return {
    id: r.id,
    index: r.index,
    role: r.role,
    tokens: r.tokens,
    fate: fateKindOf(r),
    fateKind: chip.kind,
    fateLabel: chip.label,
    tool: r.toolName ?? r.toolCallNames?.join(', ') ?? '',
    preview: r.preview,
  }
}

/**
 * All before messages with their fates: sortable by index/role/tokens, filterable by role and fate.
 * Only the rows on screen are made and rendered: the order is positions into the Before rows.
 */
export function MessageTableView() {
  const rows = useStore(selectBeforeRows)
  const all = useMemo(() => rows ?? [], [rows])
  const { selectRow, setTab } = useViewActions()
  const [roleFilter, setRoleFilter] = useState('')
  const [fateFilter, setFateFilter] = useState('')
  const [sorting, setSorting] = useState<SortingState>([])
  const sort = sorting[0] ? { id: sorting[0].id as TableSortColumn, desc: sorting[0].desc } : null
  const sortId = sort?.id ?? ''
  const sortDesc = sort?.desc ?? false
  const order = useMemo(
    () => tableOrder(all, { role: roleFilter, fate: fateFilter, sort: sortId ? { id: sortId as TableSortColumn, desc: sortDesc } : null }),
    [all, roleFilter, fateFilter, sortId, sortDesc],
  )
  const count = order ? order.length : all.length
  const fates = useMemo(() => fateKinds(all), [all])
  const scrollRef = useRef<HTMLDivElement>(null)
  const [view, setView] = useState({ top: 0, height: 800 })
  useLayoutEffect(() => {
    const el = scrollRef.current
    if (el) setView({ top: el.scrollTop, height: el.clientHeight })
  }, [])
  const onScroll = (e: UIEvent<HTMLDivElement>) => {
    const el = e.currentTarget
    setView({ top: el.scrollTop, height: el.clientHeight })
  }
  const first = Math.max(0, Math.floor(view.top / ROW_HEIGHT) - OVERSCAN)
  const end = Math.min(count, Math.ceil((view.top + view.height) / ROW_HEIGHT) + OVERSCAN)
  const positions: number[] = []
  for (let k = first; k < end; k++) positions.push(k)
  const onScreenKey = `${first}:${end}`
  // eslint-disable-next-line react-hooks/exhaustive-deps -- the rows change exactly when the window, the order or the rows do
  const data = useMemo(() => positions.map((k) => tableRow(all[order ? (order[k] as number) : k] as RowMeta)), [onScreenKey, order, all])
  const table = useTable({
    features,
    columns,
    data,
    getRowId: (r) => r.id,
    state: { sorting },
    onSortingChange: setSorting,
    manualSorting: true,
  })
  const tableRows = table.getRowModel().rows
  const width = table.getTotalSize()

  return (
    <div className="table-view">
      <div className="table-view__toolbar">
        <label>
          Role{' '}
          <select value={roleFilter} aria-label="Filter by role" onChange={(e) => setRoleFilter(e.target.value)}>
            <option value="">all</option>
            {ROLES.map((r) => (
              <option key={r} value={r}>
                {r}
              </option>
            ))}
          </select>
        </label>
        <label>
          Fate{' '}
          <select value={fateFilter} aria-label="Filter by fate" onChange={(e) => setFateFilter(e.target.value)}>
            <option value="">all</option>
            {fates.map((f) => (
              <option key={f} value={f}>
                {f}
              </option>
            ))}
          </select>
        </label>
        <span className="muted">
          {formatCount(count)} of {formatCountOf(all.length, 'message')} · click a row to see it in Before | After
        </span>
      </div>
      <div ref={scrollRef} className="table-view__scroll" data-testid="message-table" onScroll={onScroll}>
        <div role="table" aria-label="Before messages" aria-rowcount={count} style={{ width }}>
          <div className="table-view__head" role="rowgroup">
            <SortableHeaderRows groups={table.getHeaderGroups()} />
          </div>
          <div role="rowgroup" style={{ height: count * ROW_HEIGHT, position: 'relative' }}>
            {tableRows.map((row, i) => {
              const at = first + i
              return (
                <div
                  key={row.id}
                  role="row"
                  data-id={row.id}
                  data-index={at}
                  className="trow"
                  style={{ position: 'absolute', top: 0, height: ROW_HEIGHT, transform: `translateY(${at * ROW_HEIGHT}px)`, width }}
                  onClick={() => {
                    selectRow({ side: 'before', id: row.id, reveal: true })
                    setTab('compare')
                  }}
                >
                  {row.getAllCells().map((cell) => (
                    <div
                      key={cell.id}
                      role="cell"
                      className={cell.column.id === 'preview' ? 'tcell tcell--preview' : 'tcell'}
                      style={{ width: cell.column.getSize() }}
                    >
                      <table.FlexRender cell={cell} />
                    </div>
                  ))}
                </div>
              )
            })}
          </div>
        </div>
      </div>
    </div>
  )
}
