import { useEffect } from 'react'
import { useStore } from '../../state/store'

/** Input types that edit text: there Ctrl/Cmd+Z is the field's own undo, not the settings'. */
const TEXT_INPUTS = new Set(['text', 'number', 'search', 'url', 'email', 'password', 'tel', ''])

/** True when a key press belongs to a text field (its own undo), not to the page. */
function isTextEditing(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false
  if (target.isContentEditable || target instanceof HTMLTextAreaElement) return true
  return target instanceof HTMLInputElement && TEXT_INPUTS.has(target.type)
}

/**
 * Which settings command a key press asks for: Ctrl/Cmd+Z undo; Ctrl/Cmd+Shift+Z and Ctrl+Y redo;
 * else null.
 */
function undoCommandOf(e: Pick<KeyboardEvent, 'key' | 'ctrlKey' | 'metaKey' | 'shiftKey' | 'altKey'>): 'undo' | 'redo' | null {
  if (!(e.ctrlKey || e.metaKey) || e.altKey) return null
  const key = e.key.toLowerCase()
  if (key === 'z') return e.shiftKey ? 'redo' : 'undo'
  if (key === 'y' && e.ctrlKey && !e.shiftKey) return 'redo'
  return null
}

/**
 * Page-wide undo/redo of the pipeline settings (not while a text field has focus: it keeps its own
 * undo), and the end of a slider drag (pointerup) closes the undo step it was coalescing.
 */
export function useUndoShortcuts(): void {
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const command = undoCommandOf(e)
      if (!command || isTextEditing(e.target)) return
      // A dialog (paste, send step) has its own focus and content: leave its keys alone.
      if (e.target instanceof Element && e.target.closest('[role="dialog"]')) return
      e.preventDefault()
      const state = useStore.getState()
      if (command === 'undo') state.undoConfig()
      else state.redoConfig()
    }
    const onPointerUp = () => useStore.getState().endConfigEdit()
    window.addEventListener('keydown', onKey)
    window.addEventListener('pointerup', onPointerUp)
    window.addEventListener('pointercancel', onPointerUp)
    return () => {
      window.removeEventListener('keydown', onKey)
      window.removeEventListener('pointerup', onPointerUp)
      window.removeEventListener('pointercancel', onPointerUp)
    }
  }, [])
}
