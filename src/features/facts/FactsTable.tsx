import {
  columnSizingFeature,
  createColumnHelper,
  rowSortingFeature,
  sortFn_alphanumeric,
  sortFn_basic,
  tableFeatures,
  useTable,
  type SortingState,
} from '@tanstack/react-table'
import { useVirtualizer } from '@tanstack/react-virtual'
import { useEffect, useMemo, useRef, useState, type CSSProperties, type ReactNode } from 'react'
import { Chip } from '../../components/Chip'
import { SortableHeaderRows } from '../../components/SortableHeader'
import { formatCount } from '../../components/format'
import { passName } from '../../components/kinds'
import type { FactKind } from '../../engine/facts/patterns'
import { importanceRank, type FactImportance, type FactOrigin } from '../../engine/facts/importance'
import { passStateAt, type PassRun, type PassState } from '../../engine/facts/pass-runs'
import { historySentence } from '../../engine/facts/verdict'
import { shownResult } from '../../state/selectors'
import { useStore } from '../../state/store'
import { useFactTable, useInfo, useRunId } from '../../state/hooks'
import { FACT_KIND_LABEL, defaultFactOrder, factQueryKey, queryFactRows, type FactRowsQuery, type FactSortColumn } from '../../engine/fact-query'
import type { FactRowView } from '../../worker/protocol'
import { FindFactButton } from './FactFinderLink'
import { listedRows, pagesToAsk, withPage, type FactRowPages } from './fact-row-pages'
import './FactsTable.css'

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

/** Rows asked of the worker at a time, for a table too long to cross whole. */
const PAGE_ROWS = 100

/** One fact as the table shows it (sorted and filtered by `queryFactRows`, never by the table model). */
type Row = FactRowView

// Sorting only keeps the header's state (sortDescFirst, multi-sort): `queryFactRows` sorts.
const features = tableFeatures({
  columnSizingFeature,
  rowSortingFeature,
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

/**
 * The fact's history under its row, when it tells more than the fate (the worker sends it only
 * then): every loss, who asked for it, what brought it back — the engine's `historySentence`,
 * messages named `#N` as the columns number them.
 */
function HistoryLine({ row, columns }: { row: Row; columns: number }) {
  const history = row.history
  if (!history) return null
  const at = new Map<string, number>()
  for (const e of history) if (e.kind !== 'lost') at.set(e.messageId, e.index)
  const text = historySentence(history, { before: (id) => (at.has(id) ? `#${at.get(id)}` : id) })
  if (text === undefined) return null
  // A line of the row's own under its cells, as wide as the row: the story reads left to right.
  return (
    <div role="cell" aria-colspan={columns} className="facts__history" data-testid="fact-history">
      History: {text}
    </div>
  )
}

/**
 * "needed at #11": a pass removed the fact and a later user or assistant message needed it (the
 * engine's `neededAfterLoss`); else "re-read at #9 (re-work)": a tool brought it back after the
 * loss (`reReadAfterLoss`), re-work rather than a need. Either leads to that message.
 */
function NeededMark({ row }: { row: Row }) {
  const n = row.neededAfterLoss
  if (n) {
    const how = n.phrase === undefined ? 'holds it again' : `${n.asked ? 'asks for it again' : 'refers back to it'}: "${n.phrase}"`
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
  const r = row.reReadAfterLoss
  if (!r) return null
  const by = r.how === 'tool-call' ? "the agent's tool call asks for it again" : 'a tool result brings it back'
  return (
    <button
      type="button"
      className="facts__link facts__reread"
      data-testid="fact-reread"
      title={`${passName(r.stage, r.pass)} (at #${r.atMessage}) removed it; at #${r.messageIndex} ${by}: re-work, not a need. Show #${r.messageIndex} in Before | After`}
      onClick={() => revealBefore(r.messageId)}
    >
      re-read at #{r.messageIndex} (re-work)
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
 * The pages of the facts table `version` held in the worker that list `range` ([first, end)
 * positions) as `query` lists them (`getFactRows`), fetched a page (`PAGE_ROWS`) at a time
 * (`pagesToAsk`) and kept per version and query. Until a new query's first page arrives, the last
 * query's pages are answered (`listedRows` marks them stale). `version` null: none (the table is
 * held whole on the page).
 */
function useFactRowPages(version: number | null, query: FactRowsQuery, range: [number, number]): FactRowPages<FactRowView> | null {
  const [pages, setPages] = useState<FactRowPages<FactRowView> | null>(null)
  const asked = useRef(new Set<string>())
  const key = factQueryKey(query)
  // An answer for another version or query than the one now shown is dropped.
  const wanted = useRef('')
  useEffect(() => {
    wanted.current = `${version}\u0000${key}`
    // Pages of another version or query are asked again when needed.
    asked.current = new Set([...asked.current].filter((id) => id.startsWith(`${version}\u0000${key}\u0000`)))
  }, [version, key])
  useEffect(() => {
    if (version === null) return
    for (const p of pagesToAsk(pages, version, key, range, PAGE_ROWS)) {
      const id = `${version}\u0000${key}\u0000${p}`
      if (asked.current.has(id)) continue
      asked.current.add(id)
      void useStore
        .getState()
        .getFactRows(version, query, p * PAGE_ROWS, PAGE_ROWS)
        .then((out) => {
          if (!out.ok || wanted.current !== `${version}\u0000${key}`) {
            asked.current.delete(id)
            return
          }
          setPages((held) => withPage(held, version, key, out))
        })
    }
  }, [version, key, query, range, pages])
  return version === null ? null : pages
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

  const [text, setText] = useState('')
  const [sorting, setSorting] = useState<SortingState>([])
  const query = useMemo<FactRowsQuery>(
    () => ({ text, kind, showNoise, onlyLost, sorting: sorting.map((x) => ({ id: x.id as FactSortColumn, desc: x.desc })) }),
    [text, kind, showNoise, onlyLost, sorting],
  )
  const passes = table?.passes
  // A short table crosses whole and is listed here; a long one stays in the worker (its `rows` empty).
  const inline = table !== null && table.rows.length === table.count ? table.rows : null
  const ordered = useMemo(() => (inline ? defaultFactOrder(inline) : null), [inline])
  const local = useMemo(() => (ordered ? queryFactRows(ordered, query) : null), [ordered, query])
  const [range, setRange] = useState<[number, number]>([0, VIRTUALIZE_ABOVE])
  const pages = useFactRowPages(local || !table ? null : table.version, query, range)
  const remote = table ? listedRows(pages, table.version, factQueryKey(query)) : null
  // The previous query's (or table version's) rows until this one's first page arrives: shown
  // dimmed, inert and busy, never as if they matched.
  const stale = !local && remote?.stale === true
  const matching = local ? local.length : (remote?.matching ?? 0)
  const rowAt = (i: number): Row | undefined => (local ? local[i] : remote?.rows.get(i))
  const kinds = table?.kinds ?? []
  const noiseRows = table?.noise ?? 0
  const total = table?.count ?? 0

  const columns = useMemo(
    () =>
      column.columns([
        column.accessor('fact', {
          header: 'Fact',
          size: 300,
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
        column.accessor((r) => FACT_KIND_LABEL[r.kind], { id: 'kindLabel', header: 'Kind', size: 160, sortFn: 'alphanumeric' }),
        column.accessor((r) => importanceRank(r.importance), {
          id: 'importanceRank',
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
              {importanceText(c.row.original)}
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
        column.accessor('final', {
          id: 'finalRank',
          header: 'Final',
          // Room for the fate chip and a "needed at #N" or "re-read at #N (re-work)" mark on one line.
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

  const scrollRef = useRef<HTMLDivElement>(null)
  const virtual = matching > VIRTUALIZE_ABOVE
  const virtualizer = useVirtualizer({
    count: virtual ? matching : 0,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => 38,
    // A row's size comes from its ResizeObserver entry, after the layout the frame does anyway: the
    // first call (as the row mounts, no entry yet) answers the size known or the estimate instead of
    // reading offsetHeight, which would lay the page out in the task that renders the rows.
    measureElement: (el, entry, v) => {
      const box = entry?.borderBoxSize[0]
      if (box) return Math.round(box.blockSize)
      return v.itemSizeCache.get(v.options.getItemKey(v.indexFromElement(el))) ?? v.options.estimateSize(0)
    },
    // Sizes are kept by position (the default key): a key per row would be looked up for every
    // one of a long table's positions whenever a row is measured.
    overscan: 10,
  })
  const items = virtualizer.getVirtualItems()
  const first = virtual ? (items[0]?.index ?? 0) : 0
  const last = virtual ? (items[items.length - 1]?.index ?? 0) + 1 : Math.min(matching, VIRTUALIZE_ABOVE)
  useEffect(() => {
    setRange((r) => (r[0] === first && r[1] === last ? r : [first, last]))
  }, [first, last])
  // The table model holds only the rows on screen: its rows are made per row shown, not per fact.
  const positions = virtual ? items.map((v) => v.index) : Array.from({ length: last }, (_, i) => i)
  const onScreen = positions.map((i) => rowAt(i)).filter((r): r is Row => r !== undefined)
  const onScreenKey = onScreen.map((r) => r.key).join()
  // eslint-disable-next-line react-hooks/exhaustive-deps -- the rows change exactly when their keys do (same version)
  const data = useMemo(() => onScreen, [onScreenKey, table?.version])
  const t = useTable({
    features,
    columns,
    data,
    getRowId: (r) => String(r.key),
    state: { sorting },
    onSortingChange: setSorting,
    manualSorting: true,
  })
  const byKey = new Map(t.getRowModel().rows.map((r) => [r.original.key, r]))

  // A sort or filter change lists from the top.
  const queryKey = factQueryKey(query)
  useEffect(() => {
    scrollRef.current?.scrollTo({ top: 0 })
  }, [queryKey])

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

  const width = t.getTotalSize()
  type TableRow = ReturnType<typeof t.getRowModel>['rows'][number]

  const renderRow = (row: TableRow, style?: CSSProperties, index?: number): ReactNode => (
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
      <HistoryLine row={row.original} columns={row.getAllCells().length} />
    </div>
  )
  // A row whose page has not arrived yet.
  const renderPlaceholder = (index: number, style?: CSSProperties): ReactNode => (
    <div
      key={`loading-${index}`}
      role="row"
      aria-busy="true"
      className="trow facts__row facts__row--loading"
      data-index={index}
      ref={virtual ? virtualizer.measureElement : undefined}
      style={style}
    >
      <div role="cell" className="tcell muted" style={{ width }}>
        Loading…
      </div>
    </div>
  )
  const rowOrPlaceholder = (index: number, style?: CSSProperties): ReactNode => {
    const at = rowAt(index)
    const row = at ? byKey.get(at.key) : undefined
    return row ? renderRow(row, style, index) : renderPlaceholder(index, style)
  }

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
            value={text}
            placeholder="fact contains…"
            aria-label="Filter facts by text"
            onChange={(e) => setText(e.target.value)}
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
          {stale ? 'Listing the facts that match' : `${formatCount(matching)} of ${formatCount(total)} shown`}
          {' · state after each pass, then in the final context'}
        </span>
      </div>
      <div ref={scrollRef} className="table-view__scroll facts__scroll" data-testid="facts-table">
        <div role="table" aria-label="At-risk facts" aria-rowcount={stale ? -1 : matching} aria-busy={stale} style={{ width }}>
          <div className="table-view__head" role="rowgroup">
            <SortableHeaderRows groups={t.getHeaderGroups()} />
          </div>
          {!local && (!remote || (stale && matching === 0)) ? (
            <p className="muted facts__none">Listing the facts…</p>
          ) : matching === 0 ? (
            <p className="muted facts__none">
              {total === 0 ? 'The Before transcript holds no facts of these kinds.' : 'No fact matches the filters.'}
            </p>
          ) : virtual ? (
            <div
              role="rowgroup"
              className={stale ? 'facts__rows facts__rows--stale' : 'facts__rows'}
              aria-busy={stale}
              inert={stale}
              style={{ height: virtualizer.getTotalSize(), position: 'relative' }}
            >
              {items.map((v) => rowOrPlaceholder(v.index, { position: 'absolute', top: 0, transform: `translateY(${v.start}px)`, width }))}
            </div>
          ) : (
            <div role="rowgroup" className={stale ? 'facts__rows facts__rows--stale' : 'facts__rows'} aria-busy={stale} inert={stale}>
              {positions.map((i) => rowOrPlaceholder(i))}
            </div>
          )}
        </div>
      </div>
    </div>
  )
}
