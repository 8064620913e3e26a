import { useState } from 'react'
import { formatImportError } from '../../state/selectors'
import { useStore } from '../../state/store'
import { FormDialog } from './FormDialog'
import { openPastedText } from './session-open'

/**
 * A modal dialog to paste a transcript (any supported format) or a session file and open it. It closes only after
 * a successful import: on failure the pasted text stays, with the error under it.
 */
export function PasteDialog({ onClose }: { onClose: () => void }) {
  const [text, setText] = useState('')
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState<string | null>(null)
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
    <FormDialog
      title="Paste a transcript"
      onClose={onClose}
      onSubmit={() => void submit()}
      submitLabel={busy ? 'Importing…' : 'Import'}
      submitDisabled={!text.trim() || busy}
      error={error && `Could not import: ${error}`}
      errorTestId="paste-error"
    >
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
    </FormDialog>
  )
}
