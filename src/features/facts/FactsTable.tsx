import {
  columnFilteringFeature,
  columnSizingFeature,
  createColumnHelper,
  createFilteredRowModel,
  createSortedRowModel,
  filterFn_equalsString,
  filterFn_includesString,
  rowSortingFeature,
  sortFn_alphanumeric,
  sortFn_basic,
  tableFeatures,
  useTable,
} from '@tanstack/react-table'
import { useVirtualizer } from '@tanstack/react-virtual'
import { useEffect, useMemo, useRef, useState, type CSSProperties, type ReactNode } from 'react'
import { Chip } from '../../components/Chip'
import { SortableHeaderRows } from '../../components/SortableHeader'
import { formatCount } from '../../components/format'
import { passName } from '../../components/kinds'
import type { FactKind } from '../../engine/facts/patterns'
import { importanceRank, type FactImportance, type FactOrigin } from '../../engine/facts/importance'
import type { KeptAs } from '../../engine/facts/verdict'
import { passStateAt, type PassRun, type PassState } from '../../engine/facts/pass-runs'
import { shownResult } from '../../state/selectors'
import { useStore } from '../../state/store'
import { useFactTable, useInfo, useRunId } from '../../state/hooks'
import type { FactRowView } from '../../worker/protocol'
import { FindFactButton } from './FactFinderLink'
import './FactsTable.css'

/** How each fact kind reads in the table. */
const FACT_KIND_LABEL: Record<FactKind, string> = {
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
  watched: 'watched (yours)',
}

/** How each importance tier reads in the table (`other` reads as its origin). */
const IMPORTANCE_LABEL: Record<FactImportance, string> = {
  watched: 'watched by you',
  goal: 'goal',
  constraint: 'constraint',
  user: 'stated by the user',
  decision: 'decision / open work',
  'acted-on': 'used in a tool call',
  other: 'other',
  noise: 'noise',
}

/** How each origin reads (the importance cell's title, and the label of an `other` fact). */
const ORIGIN_LABEL: Record<FactOrigin, string> = {
  user: 'stated by the user',
  'acted-on': 'used in a tool call',
  assistant: 'said by the assistant',
  system: 'system or injected context',
  'tool-output': 'read from a tool output',
}

/** The importance cell's text: the tier, or for an `other` fact where it came from. */
function importanceText(r: FactRowView): string {
  return r.importance === 'other' ? ORIGIN_LABEL[r.origin] : IMPORTANCE_LABEL[r.importance]
}

/**
 * Up to this many passes get a column each; a run with more (a long session under a small
 * `compact_after` makes thousands) shows each fact's runs of passes in one column instead.
 */
const PASS_COLUMNS = 24

/** Above this many rows the list is virtualized. */
const VIRTUALIZE_ABOVE = 200

/** Sort rank of a final fate: lost first when ascending. */
const FINAL_RANK: Record<KeptAs | 'lost', number> = { lost: 0, summary: 1, pinned: 2, verbatim: 3 }

/** One fact, flattened for sorting and filtering. */
interface Row extends FactRowView {
  kindLabel: string
  finalRank: number
  importanceRank: number
  importanceLabel: string
}

const features = tableFeatures({
  columnSizingFeature,
  columnFilteringFeature,
  rowSortingFeature,
  filteredRowModel: createFilteredRowModel(),
  sortedRowModel: createSortedRowModel(),
  filterFns: { equalsString: filterFn_equalsString, includesString: filterFn_includesString },
  sortFns: { alphanumeric: sortFn_alphanumeric, basic: sortFn_basic },
})
const column = createColumnHelper<typeof features, Row>()

/** Selects a Before message and shows it in Before | After (its counterpart revealed too). */
function revealBefore(id: string) {
  const { selectRow, setTab } = useStore.getState()
  selectRow({ side: 'before', id, reveal: true })
  setTab('compare')
}

/** A pass state as a chip (never by colour alone: each has its label). */
function PassChip({ state }: { state: PassState | undefined }) {
  switch (state) {
    case 'verbatim':
      return <Chip kind="kept" label="verbatim" title="Kept verbatim: a message holding it is still in context" />
    case 'summary':
      return <Chip kind="summary" label="summary" title="Only in this pass's summary" />
    case 'lost':
      return <Chip kind="dropped" label="lost" title="In no message and not in the summary" />
    default:
      return (
        <span className="facts__not-yet" title="Not in the conversation yet when this pass ran">
          –
        </span>
      )
  }
}

/**
 * A fact's runs of passes in one cell, for runs with more passes than `PASS_COLUMNS`: each run
 * as its state's chip and the passes it spans ("summary pass 4–pass 812").
 */
function PassRunsCell({ runs, passes }: { runs: readonly PassRun[]; passes: readonly { stage: string; pass: number }[] }) {
  const name = (k: number) => {
    const p = passes[k]
    return p ? passName(p.stage, p.pass) : `#${k + 1}`
  }
  const text = runs.map((r) => `${r.state} ${name(r.from)}${r.to > r.from ? `–${name(r.to)}` : ''}`).join(' · ')
  return (
    <span className="facts__runs" title={text}>
      {runs.map((r) => (
        <span key={r.from} className="facts__run">
          <PassChip state={r.state} /> {name(r.from)}
          {r.to > r.from && `–${name(r.to)}`}
        </span>
      ))}
    </span>
  )
}

/** 0 for a fact needed after a pass removed it, 1 otherwise: those lead the table. */
const neededFirst = (r: FactRowView) => (r.neededAfterLoss ? 0 : 1)

/** The final fate, with the step that lost it. */
function FinalChip({ row }: { row: Row }) {
  const title = row.explanation
  if (row.verdict === 'never-present')
    return (
      <span className="facts__not-yet" title={title}>
        never in the Before
      </span>
    )
  if (row.final === 'verbatim') return <Chip kind="kept" label="kept verbatim" title={title} />
  if (row.final === 'pinned') return <Chip kind="pinned" label="pinned" title={title} />
  if (row.final === 'summary') return <Chip kind="summary" label="only in a summary" title={title} />
  const at = row.lostAt
  const where = at ? ` · ${at.pass !== undefined ? passName(at.stage, at.pass) : at.stage}` : ''
  return <Chip kind="dropped" label={`lost${where}`} title={title} />
}

/** "needed at #11": a pass removed the fact and a later message needed it (the engine's `neededAfterLoss`). */
function NeededMark({ row }: { row: Row }) {
  const n = row.neededAfterLoss
  if (!n) return null
  const how = n.how === 'back-reference' ? `refers back to it: "${n.phrase ?? ''}"` : 'holds it again'
  return (
    <button
      type="button"
      className="facts__link"
      data-testid="fact-needed"
      title={`${passName(n.stage, n.pass)} (at #${n.atMessage}) removed it; #${n.messageIndex} (${n.role}) ${how}. Show #${n.messageIndex} in Before | After`}
      onClick={() => revealBefore(n.messageId)}
    >
      needed at #{n.messageIndex}
    </button>
  )
}

/**
 * "11 of 14 facts survive (3 only in a summary, 120 noise facts hidden)": the engine counts the
 * at-risk facts; the noise rows are named apart, hidden or shown as the table is.
 */
function factTotalsText(
  totals: { text: string; summaryOnly: number; pinned: number; noise: number },
  noiseShown: boolean,
): string {
  const noise = `${formatCount(totals.noise)} noise fact${totals.noise === 1 ? '' : 's'}`
  const extra = [
    totals.summaryOnly > 0 ? `${formatCount(totals.summaryOnly)} only in a summary` : '',
    totals.pinned > 0 ? `${formatCount(totals.pinned)} only pinned` : '',
    totals.noise > 0 ? `${noise} ${noiseShown ? 'shown' : 'hidden'}` : '',
  ].filter(Boolean)
  return extra.length > 0 ? `${totals.text} (${extra.join(', ')})` : totals.text
}

/** "Watch this": the user's own fact to track, added to the table (and the link) on submit. */
function WatchForm({ onWatch }: { onWatch: (text: string) => void }) {
  const [text, setText] = useState('')
  return (
    <form
      className="facts__watch"
      onSubmit={(e) => {
        e.preventDefault()
        if (text.trim() === '') return
        onWatch(text)
        setText('')
      }}
    >
      <input
        type="text"
        value={text}
        placeholder="a fact of yours…"
        aria-label="A fact to watch"
        onChange={(e) => setText(e.target.value)}
      />
      <button type="submit" className="button button--small" disabled={text.trim() === ''} title="Track this text through every pass, like the facts found">
        Watch
      </button>
    </form>
  )
}

/**
 * The at-risk facts of the Before transcript and their fate through every pass: the worker's
 * facts table, listed by importance (the engine's tiers: watched, goal, constraints, the user's
 * facts, decisions, identifiers used in tool calls, then the rest), sortable, filterable by text
 * and kind, "only lost"; noise hidden unless asked for (or its kind is chosen); the user's own
 * watched facts on top.
 */
export function FactsTable() {
  const runId = useRunId()
  const {
    factTable: held,
    factTableOf: of,
    factTableStatus: status,
    factTableError: error,
    requestFactTable,
    watchFact,
    unwatchFact,
  } = useFactTable()
  const info = useInfo()
  const shown = shownResult(held, of, status, error, info)
  const table = shown.kind === 'result' ? shown.value : null
  const [onlyLost, setOnlyLost] = useState(false)
  const [showNoise, setShowNoise] = useState(false)
  const [kind, setKind] = useState<FactKind | ''>('')

  // Asked when the view opens and after every run while it is open, never per run otherwise;
  // again when the After column switches to (or from) the agent's recorded compaction.
  const recordedAfter = useStore((s) => (s.afterMode === 'recorded' ? s.recorded : null))
  useEffect(() => {
    if (runId !== undefined) requestFactTable()
  }, [runId, recordedAfter, requestFactTable])

  const passes = table?.passes
  const facts = table?.rows
  // Most important first; ties in order of first appearance (the engine's row order).
  const all = useMemo<Row[]>(
    () =>
      (facts ?? [])
        .map((r) => ({
          ...r,
          kindLabel: FACT_KIND_LABEL[r.kind],
          finalRank: FINAL_RANK[r.final],
          importanceRank: importanceRank(r.importance),
          importanceLabel: importanceText(r),
        }))
        // Facts needed after compaction removed them lead, then by importance.
        .sort((a, b) => neededFirst(a) - neededFirst(b) || a.importanceRank - b.importanceRank || a.key - b.key),
    [facts],
  )
  // A kind chosen shows every fact of it, noise too: the filter shows any kind on request.
  const data = useMemo(
    () =>
      all.filter(
        (r) =>
          (kind === '' ? showNoise || r.importance !== 'noise' : r.kind === kind) && (!onlyLost || r.final === 'lost'),
      ),
    [all, onlyLost, showNoise, kind],
  )
  const kinds = useMemo(() => [...new Set(all.map((r) => r.kind))], [all])
  const noiseRows = useMemo(() => all.filter((r) => r.importance === 'noise').length, [all])

  const columns = useMemo(
    () =>
      column.columns([
        column.accessor('fact', {
          header: 'Fact',
          size: 300,
          filterFn: 'includesString',
          sortFn: 'alphanumeric',
          cell: (c) =>
            c.row.original.kind === 'watched' ? (
              <span className="facts__watched">
                <FindFactButton className="facts__fact" fact={c.getValue()} />
                <button
                  type="button"
                  className="icon-button facts__unwatch"
                  aria-label={`Stop watching ${c.getValue()}`}
                  title="Stop watching"
                  onClick={() => unwatchFact(c.getValue())}
                >
                  ×
                </button>
              </span>
            ) : (
              <FindFactButton className="facts__fact" fact={c.getValue()} />
            ),
        }),
        column.accessor('kindLabel', { header: 'Kind', size: 160, sortFn: 'alphanumeric' }),
        column.accessor('importanceRank', {
          header: 'Importance',
          size: 170,
          sortFn: 'basic',
          sortDescFirst: false,
          cell: (c) => (
            <span
              className={`facts__importance facts__importance--${c.row.original.importance}`}
              title={`${IMPORTANCE_LABEL[c.row.original.importance]} · ${ORIGIN_LABEL[c.row.original.origin]}`}
              data-testid="fact-importance"
            >
              {c.row.original.importanceLabel}
            </span>
          ),
        }),
        column.accessor((r) => r.firstSeen.index, {
          id: 'firstSeen',
          header: 'First seen',
          size: 110,
          sortFn: 'basic',
          cell: (c) => {
            const { id, index } = c.row.original.firstSeen
            if (index < 0) return <span className="facts__not-yet" title="In no message of the Before">–</span>
            return (
              <button
                type="button"
                className="facts__link"
                title={`Show message ${id} in Before | After`}
                data-testid="fact-first-seen"
                onClick={() => revealBefore(id)}
              >
                #{index}
              </button>
            )
          },
        }),
        ...((passes?.length ?? 0) <= PASS_COLUMNS
          ? (passes ?? []).map((p, i) =>
              column.accessor((r) => r.passRuns, {
                id: `pass-${i}`,
                header: passName(p.stage, p.pass),
                size: 120,
                enableSorting: false,
                cell: (c) => <PassChip state={passStateAt(c.getValue(), i)} />,
              }),
            )
          : [
              column.accessor((r) => r.passRuns, {
                id: 'pass-runs',
                header: `Through ${formatCount(passes?.length ?? 0)} passes`,
                size: 420,
                enableSorting: false,
                cell: (c) => <PassRunsCell runs={c.getValue()} passes={passes ?? []} />,
              }),
            ]),
        column.accessor('finalRank', {
          header: 'Final',
          // Room for the fate chip and a "needed at #N" mark on one line.
          size: 300,
          sortFn: 'basic',
          // Lost first on the first click (numbers would start descending).
          sortDescFirst: false,
          cell: (c) => (
            <>
              <FinalChip row={c.row.original} /> <NeededMark row={c.row.original} />
            </>
          ),
        }),
      ]),
    [passes, unwatchFact],
  )

  const t = useTable({ features, columns, data, getRowId: (r) => String(r.key) })
  const rows = t.getRowModel().rows
  const scrollRef = useRef<HTMLDivElement>(null)
  const virtual = rows.length > VIRTUALIZE_ABOVE
  const virtualizer = useVirtualizer({
    count: virtual ? rows.length : 0,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => 38,
    getItemKey: (i) => rows[i]?.id ?? i,
    overscan: 10,
  })

  if (!table) {
    return (
      <div className="facts facts--empty" aria-busy={shown.kind === 'waiting'}>
        {shown.kind === 'error' ? (
          <p className="banner banner--error" role="alert" data-testid="facts-status">
            No facts table: {shown.error}
          </p>
        ) : (
          <p className="muted" data-testid="facts-status">
            Finding the facts of the Before transcript…
          </p>
        )}
      </div>
    )
  }

  const textFilter = (t.getColumn('fact')?.getFilterValue() as string | undefined) ?? ''
  const width = t.getTotalSize()

  const renderRow = (row: (typeof rows)[number], style?: CSSProperties, index?: number): ReactNode => (
    <div
      key={row.id}
      role="row"
      className={`trow facts__row${row.original.final === 'lost' ? ' facts__row--lost' : ''}`}
      data-fact={row.original.fact}
      data-index={index}
      ref={virtual ? virtualizer.measureElement : undefined}
      style={style}
    >
      {row.getAllCells().map((cell) => (
        <div key={cell.id} role="cell" className="tcell" style={{ width: cell.column.getSize() }}>
          <t.FlexRender cell={cell} />
        </div>
      ))}
    </div>
  )

  return (
    <div className="table-view facts" aria-busy={shown.kind === 'result' && shown.updating}>
      <div className="facts__totals" data-testid="facts-totals">
        <strong>{factTotalsText(table.totals, showNoise || kind !== '')}</strong>
        {table.totals.needed > 0 && (
          <span data-testid="facts-needed"> · {table.totals.neededText}</span>
        )}
        {shown.kind === 'result' && shown.updating && <span className="muted"> · updating…</span>}
      </div>
      <div className="table-view__toolbar">
        <label>
          Filter{' '}
          <input
            type="search"
            value={textFilter}
            placeholder="fact contains…"
            aria-label="Filter facts by text"
            onChange={(e) => t.getColumn('fact')?.setFilterValue(e.target.value || undefined)}
          />
        </label>
        <label>
          Kind{' '}
          <select value={kind} aria-label="Filter by kind" onChange={(e) => setKind(e.target.value as FactKind | '')}>
            <option value="">all</option>
            {kinds.map((k) => (
              <option key={k} value={k}>
                {FACT_KIND_LABEL[k]}
              </option>
            ))}
          </select>
        </label>
        <label title="Durations, percentages and counts of tool runs, sizes and dates of listing, test and log lines">
          <input type="checkbox" checked={showNoise} onChange={(e) => setShowNoise(e.target.checked)} />{' '}
          {`Show noise (${formatCount(noiseRows)})`}
        </label>
        <label>
          <input
            type="checkbox"
            checked={onlyLost}
            onChange={(e) => setOnlyLost(e.target.checked)}
          />{' '}
          Only lost
        </label>
        <WatchForm onWatch={watchFact} />
        <span className="muted">
          {formatCount(rows.length)} of {formatCount(all.length)} shown · state after each pass, then in the final context
        </span>
      </div>
      <div ref={scrollRef} className="table-view__scroll" data-testid="facts-table">
        <div role="table" aria-label="At-risk facts" aria-rowcount={rows.length} style={{ width }}>
          <div className="table-view__head" role="rowgroup">
            <SortableHeaderRows groups={t.getHeaderGroups()} />
          </div>
          {rows.length === 0 ? (
            <p className="muted facts__none">
              {all.length === 0 ? 'The Before transcript holds no facts of these kinds.' : 'No fact matches the filters.'}
            </p>
          ) : virtual ? (
            <div role="rowgroup" style={{ height: virtualizer.getTotalSize(), position: 'relative' }}>
              {virtualizer.getVirtualItems().map((v) => {
                const row = rows[v.index]
                return row
                  ? renderRow(row, { position: 'absolute', top: 0, transform: `translateY(${v.start}px)`, width }, v.index)
                  : null
              })}
            </div>
          ) : (
            <div role="rowgroup">{rows.map((row, i) => renderRow(row, undefined, i))}</div>
          )}
        </div>
      </div>
    </div>
  )
}
