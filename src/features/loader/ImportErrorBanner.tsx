import { useStore } from '../../state/store'
import { formatImportError, selectImportFailure, selectInfo } from '../../state/selectors'

/** One-line, dismissible import error; the previous transcript stays loaded. */
export function ImportErrorBanner() {
  const failure = useStore(selectImportFailure)
  const info = useStore(selectInfo)
  const dismiss = useStore((s) => s.dismissImportError)
  if (!failure) return null
  return (
    <div className="banner banner--error" role="alert" data-testid="import-error">
      <span className="banner__icon" aria-hidden="true">⚠</span>
      <span className="banner__text">
        <strong>Could not import.</strong> {formatImportError(failure.fileName, failure.error)}
        {info && <span className="muted"> — still showing {info.fileName}.</span>}
      </span>
      <button type="button" className="icon-button" aria-label="Dismiss error" onClick={dismiss}>
        ✕
      </button>
    </div>
  )
}
