import { useConfig, useInfo } from '../../state/hooks'
import { settingsLine } from './settings-line'

/**
 * The top of a printed page (shown by print.css only): the transcript's name and format, and the
 * settings of the run in one line (`settingsLine`); the totals bar prints under it.
 */
export function PrintHeading() {
  const info = useInfo()
  const config = useConfig()
  if (!info) return null
  return (
    <div className="print-heading" data-testid="print-heading">
      <p className="print-heading__name">
        <strong>{info.title ?? info.fileName}</strong>
        {info.title !== undefined && <> · {info.fileName}</>} · {info.format} · Compaction Inspector
      </p>
      {config && <p className="print-heading__settings">Settings: {settingsLine(config)}</p>}
    </div>
  )
}
