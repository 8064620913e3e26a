import { useEffect, useState } from 'react'
import type { RedactOptions } from '../../report/redact'
import { useStore } from '../../state/store'
import { FormDialog } from '../loader/FormDialog'

/** Milliseconds a change of the redaction settings waits before the worker counts again. */
const RECOUNT_DELAY = 250

/** The user's strings, one per line, blank lines dropped. */
function stringsOf(text: string): string[] {
  return text
    .split('\n')
    .map((s) => s.trim())
    .filter((s) => s !== '')
}

/**
 * A modal dialog that saves the HTML report of the last run (`<name>.report.html`): a Redact
 * checkbox for keys and tokens, e-mail addresses and home-directory user names, and a field for
 * strings of the user's own. Before saving it shows what will be replaced, counted in the worker.
 */
function ReportDialog({ onClose }: { onClose: () => void }) {
  const report = useStore((s) => s.report)
  const [patterns, setPatterns] = useState(true)
  const [extra, setExtra] = useState('')
  const [counted, setCounted] = useState<string | null>(null)
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState<string | null>(null)
  // Counts what the settings would replace, a moment after the last change.
  useEffect(() => {
    let live = true
    const redact: RedactOptions = { patterns, strings: stringsOf(extra) }
    const timer = setTimeout(() => {
      void report(redact, false).then((outcome) => {
        if (!live) return
        setCounted(outcome.ok ? outcome.described : null)
        setError(outcome.ok ? null : outcome.error)
      })
    }, RECOUNT_DELAY)
    return () => {
      live = false
      clearTimeout(timer)
    }
  }, [patterns, extra, report])
  const save = async () => {
    if (busy) return
    setBusy(true)
    setError(null)
    const outcome = await report({ patterns, strings: stringsOf(extra) }, true)
    setBusy(false)
    if (outcome.ok) onClose()
    else setError(outcome.error)
  }
  const redacting = patterns || stringsOf(extra).length > 0
  return (
    <FormDialog
      title="Save a report"
      className="report-dialog"
      onClose={onClose}
      onSubmit={() => void save()}
      submitLabel={busy ? 'Saving…' : 'Save report'}
      submitDisabled={busy}
      error={error}
    >
      <p className="muted">
        One HTML file of this run (the simulated After): settings, totals, passes, Before | After with every mark, the
        facts table and the token timeline. It has no script and loads nothing, so it opens offline anywhere.
      </p>
      <label className="report-dialog__check">
        <input type="checkbox" checked={patterns} onChange={(e) => setPatterns(e.target.checked)} />
        Redact API keys and tokens, e-mail addresses and home-directory user names
      </label>
      <label className="report-dialog__strings">
        Also replace these strings (one per line)
        <textarea value={extra} onChange={(e) => setExtra(e.target.value)} rows={3} spellCheck={false} />
      </label>
      <p role="status" data-testid="report-redactions">
        {!redacting
          ? 'Nothing is redacted: the report holds the transcript’s text as it is.'
          : counted === null
            ? 'Counting…'
            : counted === 'nothing to redact'
              ? 'Nothing found to replace.'
              : `Will replace: ${counted}.`}
      </p>
    </FormDialog>
  )
}

/** The "Report…" button of the export group: opens `ReportDialog` once a run is shown. */
export function ReportButton({ disabled }: { disabled: boolean }) {
  const [open, setOpen] = useState(false)
  return (
    <>
      <button type="button" className="button button--small" disabled={disabled} onClick={() => setOpen(true)}>
        Report…
      </button>
      {open && <ReportDialog onClose={() => setOpen(false)} />}
    </>
  )
}
