import { useEffect, useRef, useState } from 'react'
import { formatImportError } from '../../state/selectors'
import { useStore } from '../../state/store'
import { isUserClose, showModalOnce } from './modal'
import { openPastedText } from './session-open'

/**
 * A modal dialog to paste a transcript (any supported format) or a session file and open it. It closes only after
 * a successful import: on failure the pasted text stays, with the error under it.
 */
export function PasteDialog({ onClose }: { onClose: () => void }) {
  const ref = useRef<HTMLDialogElement>(null)
  const [text, setText] = useState('')
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState<string | null>(null)
  useEffect(() => {
    showModalOnce(ref.current)
  }, [])
  const submit = async () => {
    if (!text.trim() || busy) return
    setBusy(true)
    setError(null)
    const problem = await openPastedText(text)
    const failure = useStore.getState().importFailure
    setBusy(false)
    if (problem) setError(problem)
    else if (failure) setError(formatImportError(failure.fileName, failure.error))
    else onClose()
  }
  return (
    <dialog
      ref={ref}
      className="dialog"
      aria-labelledby="paste-title"
      onClose={() => {
        if (isUserClose(ref.current)) onClose()
      }}
    >
      <form
        method="dialog"
        onSubmit={(e) => {
          e.preventDefault()
          void submit()
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
        {error && (
          <p className="dialog__error" role="alert" data-testid="paste-error">
            Could not import: {error}
          </p>
        )}
        <div className="dialog__actions">
          <button type="button" className="button" onClick={onClose}>
            Cancel
          </button>
          <button type="submit" className="button button--primary" disabled={!text.trim() || busy}>
            {busy ? 'Importing…' : 'Import'}
          </button>
        </div>
      </form>
    </dialog>
  )
}
