import { useEffect, useRef, useState } from 'react'
import { useStore } from '../../state/store'

/** A modal dialog to paste a transcript (any supported format) and import it. */
export function PasteDialog({ onClose }: { onClose: () => void }) {
  const ref = useRef<HTMLDialogElement>(null)
  const [text, setText] = useState('')
  const loadText = useStore((s) => s.loadText)
  useEffect(() => {
    const dialog = ref.current
    if (dialog && !dialog.open) dialog.showModal()
    return () => dialog?.close()
  }, [])
  return (
    <dialog ref={ref} className="dialog" aria-labelledby="paste-title" onClose={onClose}>
      <form
        method="dialog"
        onSubmit={(e) => {
          e.preventDefault()
          if (!text.trim()) return
          void loadText(text, 'pasted text')
          onClose()
        }}
      >
        <h2 id="paste-title">Paste a transcript</h2>
        <p className="muted">
          JSON or JSONL in any supported format: OpenAI Chat, Anthropic Messages, Claude Code session… It stays in
          this browser.
        </p>
        <textarea
          aria-label="Transcript text"
          value={text}
          onChange={(e) => setText(e.target.value)}
          rows={14}
          spellCheck={false}
          autoFocus
          placeholder='{"messages": [{"role": "user", "content": "…"}]}'
        />
        <div className="dialog__actions">
          <button type="button" className="button" onClick={onClose}>
            Cancel
          </button>
          <button type="submit" className="button button--primary" disabled={!text.trim()}>
            Import
          </button>
        </div>
      </form>
    </dialog>
  )
}
