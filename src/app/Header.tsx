import { formatCount } from '../components/format'
import { LoadControls } from '../features/loader/LoadControls'
import { useStore } from '../state/store'
import { selectInfo } from '../state/selectors'

/** Product name, the loaded transcript (file, format, messages, recorded compactions) and load controls. */
export function Header() {
  const info = useStore(selectInfo)
  const recorded = info?.recordedCompactions.length ?? 0
  return (
    <header className="app-header">
      <div className="brand">
        <img src={`${import.meta.env.BASE_URL}favicon.svg`} alt="" width={22} height={22} />
        <span className="brand__name">Compaction Inspector</span>
      </div>
      <div className="file-info" data-testid="file-info">
        {info ? (
          <>
            <span className="file-info__name" title={info.title ?? info.fileName}>
              {info.fileName}
            </span>
            <span className="pill" data-testid="file-format">
              {info.format}
            </span>
            <span className="muted" data-testid="message-count">
              {formatCount(info.messageCount)} messages
            </span>
            {recorded > 0 && (
              <span className="pill pill--recorded" data-testid="recorded-compactions">
                ⎇ {recorded} recorded compaction{recorded > 1 ? 's' : ''} in source
              </span>
            )}
            {info.warnings.length > 0 && (
              <details className="warnings">
                <summary className="pill pill--warn">
                  {info.warnings.length} import warning{info.warnings.length > 1 ? 's' : ''}
                </summary>
                <ul>
                  {info.warnings.map((w, i) => (
                    <li key={i}>{w}</li>
                  ))}
                </ul>
              </details>
            )}
          </>
        ) : (
          <span className="muted">No transcript loaded</span>
        )}
      </div>
      <LoadControls />
    </header>
  )
}
