import { useState } from 'react'
import { downloadSessionFile } from '../loader/session-open'

/**
 * Downloads the session file (`<name>.session.json`): the transcript as it was opened, the
 * settings, the watched facts, the tab and the selected message, in one file that opens in the
 * page by picker, drop or paste. Never the API key.
 */
export function SessionFileButton() {
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState<string | null>(null)
  const save = async () => {
    setBusy(true)
    setError(null)
    try {
      await downloadSessionFile()
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e))
    } finally {
      setBusy(false)
    }
  }
  return (
    <>
      <button
        type="button"
        className="button button--small"
        disabled={busy}
        title="The transcript, the settings, the watched facts, the tab and the selected message in one file: open it here by picker, drop or paste to see exactly this (never the API key)"
        onClick={() => void save()}
      >
        Session file
      </button>
      {error && (
        <span className="export__notice export__notice--error" role="status">
          Could not save the session file: {error}
        </span>
      )}
    </>
  )
}
