import type { ImportError } from '../../engine/formats/types'
import { useInfo, useLoad, useLoadActions } from '../../state/hooks'
import { formatImportError } from '../../state/selectors'
import './loader.css'

/**
 * A dismissible import error: one line (file, where, why); for an unknown format the supported
 * formats and what each looks like are folded into a <details> below it. The previous transcript
 * stays loaded.
 */
export function ImportErrorBanner() {
  const { importFailure: failure } = useLoad()
  const info = useInfo()
  const { dismissImportError: dismiss } = useLoadActions()
  if (!failure) return null
  const { error } = failure
  const formats = error.formats ?? []
  // The list of formats tried lives in the details, not in the one line.
  const line: ImportError = error.reason !== undefined ? { ...error, message: error.reason, tried: [] } : error
  const closest = formats.find((f) => error.reason?.includes(`closest match ${f.label}:`))
  return (
    <div
      className={failure.cancelled ? 'banner import-error' : 'banner banner--error import-error'}
      role={failure.cancelled ? 'status' : 'alert'}
      data-testid="import-error"
    >
      <span className="banner__icon" aria-hidden="true">{failure.cancelled ? 'ℹ' : '⚠'}</span>
      <span className="banner__text" title={formatImportError(failure.fileName, line)}>
        <strong>{failure.cancelled ? 'Import cancelled.' : 'Could not import.'}</strong>{' '}
        {formatImportError(failure.fileName, line)}
        {info && <span className="muted"> — still showing {info.fileName}.</span>}
      </span>
      <button
        type="button"
        className="icon-button"
        aria-label={failure.cancelled ? 'Dismiss notice' : 'Dismiss error'}
        onClick={dismiss}
      >
        ✕
      </button>
      {formats.length > 0 && (
        <details className="import-error__details" data-testid="import-error-formats">
          <summary>Supported formats ({formats.length}) and what was looked for</summary>
          <ul>
            {formats.map((f) => (
              <li key={f.id} className={f === closest ? 'import-error__closest' : undefined}>
                <strong>{f.label}</strong>
                {f === closest && <span className="pill">closest match</span>} <span className="muted">{f.lookedFor}</span>
              </li>
            ))}
          </ul>
        </details>
      )}
    </div>
  )
}
