import { useEffect, useRef, useState } from 'react'
import { isUserClose, showModalOnce } from '../features/loader/modal'
import { useTab } from '../state/hooks'
import { shortcutFor, shortcutGroups } from './shortcuts'
import './shortcuts.css'

/** The id of the main view's tab panel: the skip link's target. */
export const VIEW_PANEL_ID = 'view-panel'
/** The id of the `<main>` element: the skip link's target while no run is shown. */
export const MAIN_ID = 'main-content'

/** The fact finder's search field, or null while the Before | After is not shown. */
function finderInput(): HTMLInputElement | null {
  return document.querySelector<HTMLInputElement>('[role="search"][aria-label="Fact finder"] input[type="search"]')
}

/**
 * "Skip to the conversation": the first Tab stop of the page, shown only while focused. It moves
 * focus to the main view's tab panel (the Before | After by default), or to `<main>` before a run.
 */
export function SkipLink() {
  return (
    <a
      className="skip-link"
      href={`#${VIEW_PANEL_ID}`}
      onClick={(e) => {
        // Focus moves without a fragment: the hash holds the pipeline settings (url-sync).
        e.preventDefault()
        ;(document.getElementById(VIEW_PANEL_ID) ?? document.getElementById(MAIN_ID))?.focus()
      }}
    >
      Skip to the conversation
    </a>
  )
}

/**
 * The page-wide shortcuts (`/` focuses the fact finder, switching to Before | After first; `?`
 * opens the list of shortcuts) and the list's dialog, shown while open. Keys typed into fields or
 * dialogs are left alone (see `shortcutFor`).
 */
export function Shortcuts() {
  const [open, setOpen] = useState(false)
  const { setTab } = useTab()
  useEffect(() => {
    const onKeyDown = (e: KeyboardEvent) => {
      const action = shortcutFor(e, e.target instanceof Element ? (e.target as HTMLElement) : null)
      // The table's other actions belong to the views that handle them (Before | After, playback).
      if (action !== 'show-shortcuts' && action !== 'focus-finder') return
      e.preventDefault()
      if (action === 'show-shortcuts') {
        setOpen(true)
        return
      }
      const input = finderInput()
      if (input) {
        input.focus()
        return
      }
      // The finder is part of the Before | After: show it, then focus it once it is rendered.
      setTab('compare')
      requestAnimationFrame(() => finderInput()?.focus())
    }
    document.addEventListener('keydown', onKeyDown)
    return () => document.removeEventListener('keydown', onKeyDown)
  }, [setTab])
  return open ? <ShortcutsList onClose={() => setOpen(false)} /> : null
}

/** The modal list of every shortcut of the table, under its group's heading with its condition; Escape or Close closes it. */
function ShortcutsList({ onClose }: { onClose: () => void }) {
  const ref = useRef<HTMLDialogElement>(null)
  useEffect(() => {
    showModalOnce(ref.current)
  }, [])
  return (
    <dialog
      ref={ref}
      className="dialog shortcuts-dialog"
      aria-labelledby="shortcuts-title"
      data-testid="shortcuts-dialog"
      onClose={() => {
        if (isUserClose(ref.current)) onClose()
      }}
    >
      <form method="dialog">
        <h2 id="shortcuts-title">Keyboard shortcuts</h2>
        {shortcutGroups().map(({ group, entries }) => (
          <table key={group} className="shortcuts-dialog__table" data-testid="shortcuts-group">
            <caption className="shortcuts-dialog__group">{group}</caption>
            <tbody>
              {entries.map((s) => (
                <tr key={s.keys}>
                  <th scope="row">
                    <kbd>{s.keys}</kbd>
                  </th>
                  <td>
                    {s.does}
                    {s.when && <span className="shortcuts-dialog__when muted"> — when {s.when}</span>}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        ))}
        <div className="dialog__actions">
          <button type="submit" className="button" autoFocus>
            Close
          </button>
        </div>
      </form>
    </dialog>
  )
}
