import type { ExportTarget } from '../../worker/protocol'
import { useStore } from '../../state/store'
import { useExport, useInfo } from '../../state/hooks'
import { selectAfterMode } from '../../state/selectors'
import { ReportButton } from './ReportDialog'
import { SessionFileButton } from './SessionFileButton'
import './export.css'

const TARGET_LABELS: Record<ExportTarget, string> = {
  canonical: 'Canonical JSON',
  'openai-chat': 'OpenAI Chat request',
  anthropic: 'Anthropic Messages request',
  'openai-responses': 'Responses input',
}

/**
 * Downloads the After shown (recorded in Recorded mode, else simulated) as canonical JSON and in
 * the source's own request format where it has one, built by the worker (the Before never
 * changes); the session file, the report, and Print (the browser's print of the current view).
 */
export function ExportButtons() {
  const info = useInfo()
  const mode = useStore(selectAfterMode)
  const ready = useStore((s) => (s.afterMode === 'recorded' ? s.recorded !== null : s.run !== null))
  // The report is of the simulated run, whichever After the column shows.
  const runShown = useStore((s) => s.run !== null)
  const { exporting, exportNotice: notice, exportAfter, dismissExportNotice: dismiss } = useExport()
  if (!info) return null
  const which = mode === 'recorded' ? 'recorded After' : 'After'
  return (
    <div className="export" role="group" aria-label={`Download the ${which}`}>
      <span className="muted">Download {which}:</span>
      {info.exportTargets.map((target) => (
        <button
          key={target}
          type="button"
          className="button button--small"
          disabled={!ready || exporting}
          onClick={() => void exportAfter(target)}
        >
          {TARGET_LABELS[target]}
        </button>
      ))}
      <SessionFileButton />
      <ReportButton disabled={!runShown} />
      <button
        type="button"
        className="button button--small"
        data-testid="print"
        title="Print the current view (Ctrl+P): Before | After prints every row, wrapped, with the settings and totals on top"
        onClick={() => window.print()}
      >
        Print…
      </button>
      {notice && (
        <span className={notice.ok ? 'export__notice' : 'export__notice export__notice--error'} role="status" data-testid="export-notice">
          {notice.text}
          {notice.warnings.length > 0 && <span className="muted"> — not carried: {notice.warnings.join('; ')}</span>}
          <button type="button" className="icon-button" aria-label="Dismiss" onClick={dismiss}>
            ✕
          </button>
        </span>
      )}
    </div>
  )
}
