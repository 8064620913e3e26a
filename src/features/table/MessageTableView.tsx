import {
  columnFilteringFeature,
  columnSizingFeature,
  createColumnHelper,
  createFilteredRowModel,
  createSortedRowModel,
  filterFn_equalsString,
  rowSortingFeature,
  sortFn_alphanumeric,
  sortFn_basic,
  tableFeatures,
  useTable,
} from '@tanstack/react-table'
import { useVirtualizer } from '@tanstack/react-virtual'
import { useMemo, useRef } from 'react'
import { Chip } from '../../components/Chip'
import { SortableHeaderRows } from '../../components/SortableHeader'
import { formatCount, formatCountOf } from '../../components/format'
import { fateChip, type ChangeKind } from '../../components/kinds'
import { RoleBadge } from '../../components/RoleBadge'
import type { Role } from '../../engine/model'
import { useStore } from '../../state/store'
import { useViewActions } from '../../state/hooks'
import { selectBeforeRows } from '../../state/selectors'

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

// v9 features are opt-in; the set is module-scoped so the table never rebuilds.
const features = tableFeatures({
  columnSizingFeature,
  columnFilteringFeature,
  rowSortingFeature,
  filteredRowModel: createFilteredRowModel(),
  sortedRowModel: createSortedRowModel(),
  filterFns: { equalsString: filterFn_equalsString },
  sortFns: { alphanumeric: sortFn_alphanumeric, basic: sortFn_basic },
})
const column = createColumnHelper<typeof features, TableRow>()

const columns = column.columns([
  column.accessor('index', { header: '#', size: 64, sortFn: 'basic' }),
  column.accessor('role', {
    header: 'Role',
    size: 110,
    filterFn: 'equalsString',
    sortFn: 'alphanumeric',
    cell: (c) => <RoleBadge role={c.getValue()} />,
  }),
  column.accessor('tokens', {
    header: 'Tokens',
    size: 90,
    sortFn: 'basic',
    cell: (c) => formatCount(c.getValue()),
  }),
  column.accessor('fate', {
    header: 'Fate',
    size: 190,
    filterFn: 'equalsString',
    enableSorting: false,
    cell: (c) => <Chip kind={c.row.original.fateKind} label={c.row.original.fateLabel} />,
  }),
  column.accessor('tool', { header: 'Tool', size: 130, enableSorting: false }),
  column.accessor('preview', { header: 'Preview', size: 560, enableSorting: false }),
])

const ROLES: Role[] = ['system', 'user', 'assistant', 'tool']

/** All before messages with their fates: sortable by index/role/tokens, filterable by role and fate. */
export function MessageTableView() {
  const rows = useStore(selectBeforeRows)
  const { selectRow, setTab } = useViewActions()
  const data = useMemo<TableRow[]>(
    () =>
      (rows ?? []).map((r) => {
        const chip = r.fate ? fateChip(r.fate) : { kind: 'kept' as const, label: 'kept' }
        return {
          id: r.id,
          index: r.index,
          role: r.role,
          tokens: r.tokens,
          fate: r.fate?.kind ?? 'kept',
          fateKind: chip.kind,
          fateLabel: chip.label,
          tool: r.toolName ?? r.toolCallNames?.join(', ') ?? '',
          preview: r.preview,
        }
      }),
    [rows],
  )
  const fates = useMemo(() => [...new Set(data.map((d) => d.fate))].sort(), [data])
  const table = useTable({ features, columns, data, getRowId: (r) => r.id })
  const tableRows = table.getRowModel().rows
  const scrollRef = useRef<HTMLDivElement>(null)
  const virtualizer = useVirtualizer({
    count: tableRows.length,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => 38,
    getItemKey: (i) => tableRows[i]?.id ?? i,
    overscan: 10,
  })
  const roleFilter = (table.getColumn('role')?.getFilterValue() as string | undefined) ?? ''
  const fateFilter = (table.getColumn('fate')?.getFilterValue() as string | undefined) ?? ''
  const width = table.getTotalSize()

  return (
    <div className="table-view">
      <div className="table-view__toolbar">
        <label>
          Role{' '}
          <select
            value={roleFilter}
            aria-label="Filter by role"
            onChange={(e) => table.getColumn('role')?.setFilterValue(e.target.value || undefined)}
          >
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
          <select
            value={fateFilter}
            aria-label="Filter by fate"
            onChange={(e) => table.getColumn('fate')?.setFilterValue(e.target.value || undefined)}
          >
            <option value="">all</option>
            {fates.map((f) => (
              <option key={f} value={f}>
                {f}
              </option>
            ))}
          </select>
        </label>
        <span className="muted">
          {formatCount(tableRows.length)} of {formatCountOf(data.length, 'message')} · click a row to see it in Before | After
        </span>
      </div>
      <div ref={scrollRef} className="table-view__scroll" data-testid="message-table">
        <div role="table" aria-label="Before messages" aria-rowcount={tableRows.length} style={{ width }}>
          <div className="table-view__head" role="rowgroup">
            <SortableHeaderRows groups={table.getHeaderGroups()} />
          </div>
          <div role="rowgroup" style={{ height: virtualizer.getTotalSize(), position: 'relative' }}>
            {virtualizer.getVirtualItems().map((v) => {
              const row = tableRows[v.index]
              if (!row) return null
              return (
                <div
                  key={row.id}
                  role="row"
                  data-id={row.id}
                  data-index={v.index}
                  ref={virtualizer.measureElement}
                  className="trow"
                  style={{ position: 'absolute', top: 0, transform: `translateY(${v.start}px)`, width }}
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
