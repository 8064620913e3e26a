import { startTransition, useCallback, useEffect, useMemo, useRef, useState } from 'react'
import { formatCountOf } from '../../components/format'
import type { RecordedCompaction } from '../../engine/model'
import type { AfterMode } from '../../state/slices/recorded'
import { useStore } from '../../state/store'
import { useInfo, useRecorded, useSelection } from '../../state/hooks'
import { selectRun } from '../../state/selectors'
import { factWalk } from '../../state/slices/facts'
import type { RecordedRunView, RunView, Side } from '../../worker/protocol'
import { FactFinder } from '../facts/FactFinder'
import { Legend } from './Legend'
import { buildAfterItems, buildBeforeItems, ColumnItems, linkAfters, rowLinks } from './column-items'
import { useCompareKeys } from './compare-keys'
import { MessageColumn, type ColumnHandle } from './MessageColumn'
import { SplitHandle } from './SplitHandle'
import { VersusFacts } from './VersusFacts'
import './compare.css'

/** Rows (Before + After) from which the After column renders one deferred render after the Before. */
const DEFER_AFTER_FROM_ROWS = 2_000

/** One of the two columns: which rows, and for each row the ids it links to in the other column. */
interface Pane {
  side: Side
  title: string
  subtitle: string
  items: ColumnItems
  links: Pick<ReadonlyMap<string, string[]>, 'get'>
}

const NO_COMPACTIONS: readonly RecordedCompaction[] = []

const totalsText = (t: RunView['after']['totals']) =>
  `${formatCountOf(t.messages, 'message')} · ${formatCountOf(t.tokens, 'token')}`

/** The right column's items while its run is still to render (see `laterRun`). */
const NO_ITEMS = new ColumnItems([])

/**
 * The two panes of a mode: simulated = Before | After; recorded = Before (recorded fates) | what the
 * agent kept; versus = recorded After | simulated After, linked through the Before ids they carry.
 * Null while the recorded view is still being fetched.
 */
function panesFor(
  mode: AfterMode,
  run: RunView,
  recorded: RecordedRunView | null,
  compactions: readonly RecordedCompaction[],
): [Pane, Pane] | null {
  if (mode === 'simulated' || compactions.length === 0) {
    return [
      {
        side: 'before',
        title: 'Before',
        subtitle: totalsText(run.before.totals),
        items: buildBeforeItems(run.before.rows, run.passes, compactions),
        links: rowLinks(run.before.rows),
      },
      {
        side: 'after',
        title: 'After',
        subtitle: totalsText(run.after.totals),
        items: buildAfterItems(run.after.rows),
        links: rowLinks(run.after.rows),
      },
    ]
  }
  if (!recorded) return null
  const rec = recorded.view
  const recordedPane: Pane = {
    side: 'recorded',
    title: 'After — recorded',
    subtitle: totalsText(rec.after.totals),
    items: buildAfterItems(rec.after.rows),
    links: rowLinks(rec.after.rows),
  }
  if (mode === 'recorded') {
    return [
      {
        side: 'before',
        title: 'Before',
        subtitle: totalsText(rec.before.totals),
        items: buildBeforeItems(rec.before.rows, [], compactions),
        links: rowLinks(rec.before.rows),
      },
      recordedPane,
    ]
  }
  return [
    { ...recordedPane, links: linkAfters(rec.after.rows, run.before.rows) },
    {
      side: 'after',
      title: 'After — simulated',
      subtitle: totalsText(run.after.totals),
      items: buildAfterItems(run.after.rows),
      links: linkAfters(run.after.rows, rec.before.rows),
    },
  ]
}

/** The panes last made for each run (a pure function of its arguments), kept while the run is held. */
const paneCache = new WeakMap<
  RunView,
  { mode: AfterMode; recorded: RecordedRunView | null; compactions: readonly RecordedCompaction[]; panes: [Pane, Pane] | null }
>()

/**
 * `panesFor`, made once per run and arguments: while the right column still shows the run
 * before (see `laterRun`), its panes are those already made for it, not made again.
 */
function panesOf(
  mode: AfterMode,
  run: RunView,
  recorded: RecordedRunView | null,
  compactions: readonly RecordedCompaction[],
): [Pane, Pane] | null {
  const hit = paneCache.get(run)
  if (hit && hit.mode === mode && hit.recorded === recorded && hit.compactions === compactions) return hit.panes
  const panes = panesFor(mode, run, recorded, compactions)
  paneCache.set(run, { mode, recorded, compactions, panes })
  return panes
}

/** `Before #12 assistant`: how the status line names a selected row (never its raw id). */
function rowName(pane: Pane | null, id: string): string {
  const row = pane?.items.rowAt(pane.items.indexOfRow(id))
  if (!pane || !row) return 'message'
  return `${pane.title} #${row.index} ${row.role}`
}

/**
 * Before | After, two synchronized virtualized columns with a draggable split. In Recorded mode the
 * After is what the agent kept after its own compaction; in Recorded vs simulated mode both Afters
 * stand side by side.
 */
export function CompareView() {
  // The run alone, not the run slice: its status flips at every re-run and would re-render both columns.
  const run = useStore(selectRun)
  const info = useInfo()
  const { afterMode: mode, recorded, recordedStatus, recordedError: error } = useRecorded()
  const recordedError = recordedStatus === 'error' ? error : null
  const { selection, selectRow } = useSelection()
  // The finder's answer alone: its query changes at every keystroke.
  const factSearch = useStore((s) => s.factSearch)
  const factCursor = useStore((s) => s.factCursor)
  const [split, setSplit] = useState(0.5) // high-frequency: stays out of the store
  const [syncScroll, setSyncScroll] = useState(true)
  const leftRef = useRef<ColumnHandle>(null)
  const rightRef = useRef<ColumnHandle>(null)
  const containerRef = useRef<HTMLDivElement>(null)

  // On a long transcript the right column follows a new run one render later: React renders that
  // one as a transition (in slices) and commits it in a task of its own, so the two columns'
  // renders, commits and layouts never add up in one main-thread task. On mount it starts empty.
  // A short one renders both at once: its columns cost little, and an After appearing a moment
  // after its Before would only flash. The transition starts from an effect, after the Before's
  // commit: `useDeferredValue` would give the new run at once to a view that mounts in a deferred
  // render (the shell mounts it so), committing both columns together.
  const [deferredRun, setDeferredRun] = useState<RunView | null>(null)
  useEffect(() => startTransition(() => setDeferredRun(run)), [run])
  const laterRun = run && run.before.rows.length + run.after.rows.length >= DEFER_AFTER_FROM_ROWS ? deferredRun : run
  const compactions = info?.recordedCompactions ?? NO_COMPACTIONS
  const panes = useMemo(() => (run ? panesOf(mode, run, recorded, compactions) : null), [mode, run, recorded, compactions])
  const laterPanes = useMemo(
    () => (laterRun ? panesOf(mode, laterRun, recorded, compactions) : null),
    [mode, laterRun, recorded, compactions],
  )
  const left = panes?.[0] ?? null
  const right = useMemo(() => (!panes ? null : (laterPanes?.[1] ?? { ...panes[1], items: NO_ITEMS })), [panes, laterPanes])
  const shownPanes = useMemo((): [Pane, Pane] | null => (left && right ? [left, right] : null), [left, right])
  // j / k, Enter / Space and [ / ] (the table in app/shortcuts.ts); the pass steps are announced.
  const announcement = useCompareKeys(shownPanes, { left: leftRef, right: rightRef })

  // The fact finder's matches per side: its After rows belong to the After it searched (the
  // simulated one, or in Recorded mode the agent's), and its query.
  const factMatches = useMemo(() => {
    const of = (rows: readonly { rowId: string; count: number }[] | undefined) =>
      new Map((rows ?? []).map((r) => [r.rowId, r.count]))
    const after = of(factSearch?.after.rows)
    const none = of([])
    return factSearch?.against === 'recorded'
      ? { before: of(factSearch.before.rows), after: none, recorded: after }
      : { before: of(factSearch?.before.rows), after, recorded: none }
  }, [factSearch])
  // The finder's current match: its row opens to the full text, scrolled to the mark.
  const currentMatch = useMemo(() => factWalk(factSearch)[factCursor] ?? null, [factSearch, factCursor])
  const factHighlight = useMemo(
    () => (factSearch ? { query: factSearch.query, regex: factSearch.regex } : null),
    [factSearch],
  )

  const paneOf = useCallback(
    (side: Side) => (left?.side === side ? 'left' : right?.side === side ? 'right' : null),
    [left, right],
  )

  const counterparts = useMemo(() => {
    if (!selection) return []
    const which = paneOf(selection.side)
    const pane = which === 'left' ? left : which === 'right' ? right : null
    return pane?.links.get(selection.id) ?? []
  }, [selection, paneOf, left, right])
  const highlightLeft = useMemo(
    () => new Set(selection && paneOf(selection.side) === 'right' ? counterparts : []),
    [selection, paneOf, counterparts],
  )
  const highlightRight = useMemo(
    () => new Set(selection && paneOf(selection.side) === 'left' ? counterparts : []),
    [selection, paneOf, counterparts],
  )

  // Reveal the counterpart: scroll the other column to the first row carrying the selection.
  useEffect(() => {
    if (!selection) return
    const which = paneOf(selection.side)
    if (!which) return
    const own = which === 'left' ? leftRef.current : rightRef.current
    const other = which === 'left' ? rightRef.current : leftRef.current
    if (selection.reveal) own?.scrollToId(selection.id, 'center')
    const first = counterparts[0]
    if (first !== undefined) other?.scrollToId(first, 'center')
  }, [selection, counterparts, paneOf])

  const onSelect = useCallback(
    (side: Side, id: string) => {
      const current = useStore.getState().selection
      selectRow(current?.side === side && current.id === id ? null : { side, id })
    },
    [selectRow],
  )

  const onUserScroll = useCallback(
    (side: Side, topRowId: string) => {
      if (!syncScroll) return
      const which = paneOf(side)
      const pane = which === 'left' ? left : right
      const target = pane?.links.get(topRowId)?.[0]
      if (target === undefined) return
      const other = which === 'left' ? rightRef.current : leftRef.current
      other?.scrollToId(target, 'start')
    },
    [syncScroll, paneOf, left, right],
  )

  if (!run) return null
  if (!left || !right) {
    if (recordedError) {
      return (
        <div className="banner banner--error" role="alert" data-testid="recorded-error">
          <span className="banner__text">Could not show the recorded compaction: {recordedError}</span>
        </div>
      )
    }
    return (
      <div className="compare compare--waiting" role="status" data-testid="recorded-loading">
        Reading what the agent kept after its recorded compaction…
      </div>
    )
  }
  const selectedLeft = selection?.side === left.side ? selection.id : null
  const selectedPane = selection?.side === left.side ? left : selection?.side === right.side ? right : null
  const selectedName = selection ? rowName(selectedPane, selection.id) : ''
  const selectedRight = selection?.side === right.side ? selection.id : null
  const status = selection
    ? counterparts.length > 0
      ? `Selected ${selectedName} → ${formatCountOf(counterparts.length, 'counterpart')} highlighted`
      : `Selected ${selectedName}: no counterpart on the other side`
    : 'Click a message (or j / k) to reveal its counterpart · Enter expands · [ ] step passes'

  return (
    <div className="compare">
      <FactFinder />
      <p className="visually-hidden" role="status" data-testid="pass-announcement">
        {announcement}
      </p>
      <div className="compare__toolbar">
        <label className="check">
          <input type="checkbox" checked={syncScroll} onChange={(e) => setSyncScroll(e.target.checked)} />
          Sync scroll
        </label>
        <span className="muted compare__status" title={status}>
          {status}
        </span>
        <Legend />
      </div>
      {mode === 'versus' && recorded?.factsKept && <VersusFacts kept={recorded.factsKept} />}
      <div
        ref={containerRef}
        className="compare__columns"
        style={{ gridTemplateColumns: `${split}fr 8px ${1 - split}fr` }}
      >
        <MessageColumn
          key={left.side}
          side={left.side}
          title={left.title}
          subtitle={left.subtitle}
          items={left.items}
          selectedId={selectedLeft}
          highlighted={highlightLeft}
          matches={factMatches[left.side]}
          factHighlight={factHighlight}
          currentMatchId={currentMatch?.side === left.side ? currentMatch.rowId : null}
          onSelect={onSelect}
          onUserScroll={onUserScroll}
          handleRef={leftRef}
        />
        <SplitHandle value={split} onChange={setSplit} containerRef={containerRef} />
        <MessageColumn
          key={right.side}
          side={right.side}
          title={right.title}
          subtitle={right.subtitle}
          items={right.items}
          selectedId={selectedRight}
          highlighted={highlightRight}
          matches={factMatches[right.side]}
          factHighlight={factHighlight}
          currentMatchId={currentMatch?.side === right.side ? currentMatch.rowId : null}
          onSelect={onSelect}
          onUserScroll={onUserScroll}
          handleRef={rightRef}
        />
      </div>
    </div>
  )
}
