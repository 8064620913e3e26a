import { useEffect, useState } from 'react'
import { droppedItems, openDroppedItems } from './folder-drop'
import { openInputFile } from './session-open'
import './loader.css'

function hasFiles(e: DragEvent): boolean {
  return !!e.dataTransfer && Array.from(e.dataTransfer.types).includes('Files')
}

/**
 * Drag-and-drop anywhere on the page (a transcript, a session file, or a folder of one session's
 * files); says "Drop a transcript or a session file" while a file is over it.
 */
export function DropOverlay() {
  const [over, setOver] = useState(false)
  useEffect(() => {
    let depth = 0 // dragenter/dragleave fire for every child element crossed
    const enter = (e: DragEvent) => {
      if (!hasFiles(e)) return
      e.preventDefault()
      depth++
      setOver(true)
    }
    const leave = (e: DragEvent) => {
      if (!hasFiles(e)) return
      depth = Math.max(0, depth - 1)
      if (depth === 0) setOver(false)
    }
    const overHandler = (e: DragEvent) => {
      if (hasFiles(e)) e.preventDefault() // allows the drop
    }
    const drop = (e: DragEvent) => {
      if (!hasFiles(e)) return
      e.preventDefault()
      depth = 0
      setOver(false)
      if (!e.dataTransfer) return
      // A folder or several files are one input (a session kept in several files).
      const dropped = droppedItems(e.dataTransfer)
      if (dropped) {
        void openDroppedItems(dropped)
        return
      }
      const file = e.dataTransfer.files[0]
      if (file) void openInputFile(file)
    }
    window.addEventListener('dragenter', enter)
    window.addEventListener('dragleave', leave)
    window.addEventListener('dragover', overHandler)
    window.addEventListener('drop', drop)
    return () => {
      window.removeEventListener('dragenter', enter)
      window.removeEventListener('dragleave', leave)
      window.removeEventListener('dragover', overHandler)
      window.removeEventListener('drop', drop)
    }
  }, [])
  if (!over) return null
  return (
    <div className="drop-overlay" data-testid="drop-overlay" aria-live="polite">
      <div className="drop-overlay__box">
        <span className="drop-overlay__icon" aria-hidden="true">⤓</span>
        Drop a transcript or a session file
        <span className="muted">JSON / JSONL, .zip or .eval, a session's folder, or a .session.json — it never leaves this browser</span>
      </div>
    </div>
  )
}
