import { FlexRender, type HeaderGroup, type RowData, type TableFeatures } from '@tanstack/react-table'

/** The column methods the header row uses (present when the table has rowSortingFeature). */
interface SortableColumn {
  getCanSort(): boolean
  getIsSorted(): false | 'asc' | 'desc'
  getToggleSortingHandler(): ((event: unknown) => void) | undefined
}

/**
 * The header rows of a div-based TanStack table (v9): one `columnheader` per column, sized from
 * the column, with a sort toggle (▲ ▼ ↕ and `aria-sort`) on sortable columns. Shared by the
 * message table and the facts table; both tables need rowSortingFeature and columnSizingFeature.
 */
export function SortableHeaderRows<TFeatures extends TableFeatures, TData extends RowData>({
  groups,
}: {
  groups: HeaderGroup<TFeatures, TData>[]
}) {
  return groups.map((group) => (
    <div key={group.id} role="row" className="trow trow--head">
      {group.headers.map((header) => {
        // Sorting and sizing methods exist on the header only when the table has those features.
        const column = header.column as unknown as SortableColumn
        const width = (header as unknown as { getSize(): number }).getSize()
        const sortable = column.getCanSort()
        const dir = column.getIsSorted()
        return (
          <div
            key={header.id}
            role="columnheader"
            aria-sort={dir === 'asc' ? 'ascending' : dir === 'desc' ? 'descending' : undefined}
            className="tcell"
            style={{ width }}
          >
            {sortable ? (
              <button type="button" className="sort" onClick={column.getToggleSortingHandler()}>
                <FlexRender header={header} />
                <span aria-hidden="true">{dir === 'asc' ? ' ▲' : dir === 'desc' ? ' ▼' : ' ↕'}</span>
              </button>
            ) : (
              <FlexRender header={header} />
            )}
          </div>
        )
      })}
    </div>
  ))
}
