import { useCallback, useEffect, useMemo, useRef, useState } from 'react'
import { formatCount } from '../../components/format'
import { useStore } from '../../state/store'
import { selectInfo, selectRun, selectSelection } from '../../state/selectors'
import type { Side } from '../../worker/protocol'
import { buildAfterItems, buildBeforeItems } from './column-items'
import { MessageColumn, type ColumnHandle } from './MessageColumn'
import { SplitHandle } from './SplitHandle'

/** Before | After, two synchronized virtualized columns with a draggable split. */
export function CompareView() {
  const run = useStore(selectRun)
  const info = useStore(selectInfo)
  const selection = useStore(selectSelection)
  const selectRow = useStore((s) => s.selectRow)
  const [split, setSplit] = useState(0.5) // high-frequency: stays out of the store
  const [syncScroll, setSyncScroll] = useState(true)
  const beforeRef = useRef<ColumnHandle>(null)
  const afterRef = useRef<ColumnHandle>(null)
  const containerRef = useRef<HTMLDivElement>(null)

  const beforeItems = useMemo(
    () => (run ? buildBeforeItems(run.before.rows, run.passes, info?.recordedCompactions ?? []) : []),
    [run, info],
  )
  const afterItems = useMemo(() => (run ? buildAfterItems(run.after.rows) : []), [run])

  const rowsById = useMemo(() => {
    const m = { before: new Map<string, string[]>(), after: new Map<string, string[]>() }
    if (run) {
      for (const r of run.before.rows) m.before.set(r.id, r.counterpartIds)
      for (const r of run.after.rows) m.after.set(r.id, r.counterpartIds)
    }
    return m
  }, [run])

  const counterparts = useMemo(
    () => (selection ? rowsById[selection.side].get(selection.id) ?? [] : []),
    [selection, rowsById],
  )
  const highlightBefore = useMemo(
    () => new Set(selection?.side === 'after' ? counterparts : []),
    [selection, counterparts],
  )
  const highlightAfter = useMemo(
    () => new Set(selection?.side === 'before' ? counterparts : []),
    [selection, counterparts],
  )

  // Reveal the counterpart: scroll the other column to the first row carrying the selection.
  useEffect(() => {
    if (!selection) return
    if (selection.reveal) {
      const own = selection.side === 'before' ? beforeRef.current : afterRef.current
      own?.scrollToId(selection.id, 'center')
    }
    const first = counterparts[0]
    if (first === undefined) return
    const other = selection.side === 'before' ? afterRef.current : beforeRef.current
    other?.scrollToId(first, 'center')
  }, [selection, counterparts])

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
      const target = rowsById[side].get(topRowId)?.[0]
      if (target === undefined) return
      const other = side === 'before' ? afterRef.current : beforeRef.current
      other?.scrollToId(target, 'start')
    },
    [syncScroll, rowsById],
  )

  if (!run) return null
  const selectedBefore = selection?.side === 'before' ? selection.id : null
  const selectedAfter = selection?.side === 'after' ? selection.id : null

  return (
    <div className="compare">
      <div className="compare__toolbar">
        <label className="check">
          <input type="checkbox" checked={syncScroll} onChange={(e) => setSyncScroll(e.target.checked)} />
          Sync scroll
        </label>
        <span className="muted">
          {selection
            ? counterparts.length > 0
              ? `Selected ${selection.side} ${selection.id} → ${counterparts.length} counterpart${counterparts.length > 1 ? 's' : ''} highlighted`
              : `Selected ${selection.side} ${selection.id}: no counterpart on the other side`
            : 'Click a message to reveal its counterpart on the other side.'}
        </span>
      </div>
      <div
        ref={containerRef}
        className="compare__columns"
        style={{ gridTemplateColumns: `${split}fr 8px ${1 - split}fr` }}
      >
        <MessageColumn
          side="before"
          title="Before"
          subtitle={`${formatCount(run.before.totals.messages)} messages · ${formatCount(run.before.totals.tokens)} tokens`}
          items={beforeItems}
          selectedId={selectedBefore}
          highlighted={highlightBefore}
          onSelect={onSelect}
          onUserScroll={onUserScroll}
          handleRef={beforeRef}
        />
        <SplitHandle value={split} onChange={setSplit} containerRef={containerRef} />
        <MessageColumn
          side="after"
          title="After"
          subtitle={`${formatCount(run.after.totals.messages)} messages · ${formatCount(run.after.totals.tokens)} tokens`}
          items={afterItems}
          selectedId={selectedAfter}
          highlighted={highlightAfter}
          onSelect={onSelect}
          onUserScroll={onUserScroll}
          handleRef={afterRef}
        />
      </div>
    </div>
  )
}
