import { useEffect, useRef, useState, type RefObject } from 'react'
import { shortcutFor, type ShortcutAction } from '../../app/shortcuts'
import { useStore } from '../../state/store'
import type { Side } from '../../worker/protocol'
import { passStops, stepRow, stepStop, stopOfPass, type ColumnItems, type PassStop } from './column-items'
import type { ColumnHandle } from './MessageColumn'

/** What the keys read of one column: its side and its items (rows and boundaries). */
interface KeyPane {
  side: Side
  items: ColumnItems
  links: Pick<ReadonlyMap<string, string[]>, 'get'>
}

/** A pass to go to, asked from outside the Before | After (the pass list): its stage and number. */
interface PassRequest {
  stage: string
  pass: number
}

// The pass asked for and not yet gone to: the Before | After may mount after the ask (tab switch).
let pendingPass: PassRequest | null = null
const passListeners = new Set<() => void>()

/**
 * Asks the Before | After to go to pass `pass` of stage `stage` the way `]` does (both columns
 * scroll to its boundary, its first message is selected and focused, the stop is announced). Taken
 * by the mounted `useCompareKeys`, or by the next one to mount (switch to the tab after asking).
 */
export function goToPass(stage: string, pass: number): void {
  pendingPass = { stage, pass }
  for (const listener of passListeners) listener()
}

/** The Before | After's own actions from the one shortcut table; the others are page-wide. */
const COMPARE_ACTIONS: ReadonlySet<ShortcutAction> = new Set([
  'next-message',
  'previous-message',
  'toggle-expand',
  'next-pass',
  'previous-pass',
])

/**
 * The Before | After's keys (the table in app/shortcuts.ts): `j` / `k` select the next / previous
 * message of the selected row's column (the left one when nothing is selected), revealing the
 * counterpart and moving focus to the row; Enter / Space expand or collapse the focused row, else
 * the selected one; `[` / `]` go to the previous / next pass stop of the left column (`passStops`):
 * both columns scroll to its boundary, its first message is selected and focused. Returns the text
 * to announce in a polite live region ("Pass 2 of 3: pass 2: messages 40–57 → summary"). Keys are
 * ignored while typing in a field and while a dialog is open. A pass asked by `goToPass` is gone to
 * the same way, once the columns hold it.
 */
export function useCompareKeys(
  panes: readonly [KeyPane, KeyPane] | null,
  handles: { left: RefObject<ColumnHandle | null>; right: RefObject<ColumnHandle | null> },
): string {
  const [announcement, setAnnouncement] = useState('')
  // The row of the last pass stepped to, for `[` / `]` while the selection is not in the left column.
  const lastStopRow = useRef<number | null>(null)
  const latest = useRef({ panes, handles })
  useEffect(() => {
    latest.current = { panes, handles }
  })
  useEffect(() => {
    lastStopRow.current = null
  }, [panes])

  // Goes to stop `k` of `stops` (the left column's `passStops`): the one step of `[`, `]` and `goToPass`.
  const goToStop = useRef((stops: readonly PassStop[], k: number) => {
    const { panes: current, handles: refs } = latest.current
    const stop = stops[k]
    if (!current || !stop) return
    const [left, right] = current
    const row = left.items.rowAt(stop.row)
    if (!row) return
    lastStopRow.current = stop.row
    useStore.getState().selectRow({ side: left.side, id: row.id })
    setAnnouncement(`Pass ${k + 1} of ${stops.length}: ${stop.label}`)
    // After the selection's own reveal (which centres the counterpart): both boundaries to the top.
    requestAnimationFrame(() => {
      refs.left.current?.scrollToIndex(stop.boundary, 'start')
      const counterpart = left.links.get(row.id)?.[0]
      const at = counterpart === undefined ? -1 : right.items.indexOfRow(counterpart)
      if (at >= 0) refs.right.current?.scrollToIndex(right.items.isBoundary(at - 1) ? at - 1 : at, 'start')
      refs.left.current?.focusId(row.id)
    })
  })

  // A pass asked by `goToPass`: taken as soon as the columns hold items.
  useEffect(() => {
    const take = () => {
      const request = pendingPass
      const left = latest.current.panes?.[0]
      if (!request || !left || left.items.length === 0) return
      pendingPass = null
      const stops = passStops(left.items)
      const k = stopOfPass(left.items, stops, request)
      if (k < 0) setAnnouncement(`Pass ${request.pass} has no boundary in this column.`)
      else goToStop.current(stops, k)
    }
    passListeners.add(take)
    take()
    return () => {
      passListeners.delete(take)
    }
  }, [panes])

  useEffect(() => {
    const onKeyDown = (e: KeyboardEvent) => {
      const target = e.target instanceof Element ? (e.target as HTMLElement) : null
      const action = shortcutFor(e, target)
      if (!action || !COMPARE_ACTIONS.has(action)) return
      if (document.querySelector('dialog[open]')) return
      const { panes: current, handles: refs } = latest.current
      if (!current) return
      const [left, right] = current
      const handleOf = (side: Side) =>
        side === left.side ? refs.left.current : side === right.side ? refs.right.current : null
      const paneOf = (side: Side) => (side === left.side ? left : side === right.side ? right : null)
      const { selection, selectRow } = useStore.getState()

      if (action === 'toggle-expand') {
        const row = target?.closest<HTMLElement>('[role="row"][data-id][data-side]')
        const side = (row?.dataset.side as Side | undefined) ?? selection?.side
        const id = row?.dataset.id ?? selection?.id
        if (!side || id === undefined || !paneOf(side)) return
        e.preventDefault()
        if (selection?.side !== side || selection.id !== id) selectRow({ side, id })
        handleOf(side)?.toggleExpand(id)
        return
      }

      e.preventDefault()
      if (action === 'next-message' || action === 'previous-message') {
        const pane = (selection && paneOf(selection.side)) || left
        const dir = action === 'next-message' ? 1 : -1
        const from = selection && pane.side === selection.side ? pane.items.indexOfRow(selection.id) : -1
        const at = stepRow(pane.items, from < 0 ? (dir === 1 ? -1 : pane.items.length) : from, dir)
        const row = pane.items.rowAt(at)
        if (!row) return
        selectRow({ side: pane.side, id: row.id, reveal: true })
        handleOf(pane.side)?.focusId(row.id)
        return
      }

      const stops = passStops(left.items)
      if (stops.length === 0) {
        setAnnouncement('This run has no compaction pass.')
        return
      }
      const dir = action === 'next-pass' ? 1 : -1
      const selected = selection?.side === left.side ? left.items.indexOfRow(selection.id) : -1
      const pos = selected >= 0 ? selected : (lastStopRow.current ?? (dir === 1 ? -1 : left.items.length))
      const k = stepStop(stops, pos, dir)
      if (!stops[k]) {
        setAnnouncement(`No ${dir === 1 ? 'later' : 'earlier'} compaction pass: ${stops.length} in this run.`)
        return
      }
      goToStop.current(stops, k)
    }
    document.addEventListener('keydown', onKeyDown)
    return () => document.removeEventListener('keydown', onKeyDown)
  }, [])

  return announcement
}
