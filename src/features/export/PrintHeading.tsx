import { useConfig, useInfo } from '../../state/hooks'
import { selectShownRun } from '../../state/selectors'
import { useStore } from '../../state/store'
import { settingsLine } from './settings-line'

/**
 * The top of a printed page (shown by print.css only): the transcript's name and format, and the
 * settings of the run in one line (`settingsLine`, with how the shown run counted its tokens); the
 * totals bar prints under it.
 */
export function PrintHeading() {
  const info = useInfo()
  const config = useConfig()
  const calibration = useStore(selectShownRun)?.calibration
  if (!info) return null
  return (
    <div className="print-heading" data-testid="print-heading">
      <p className="print-heading__name">
        <strong>{info.title ?? info.fileName}</strong>
        {info.title !== undefined && <> · {info.fileName}</>} · {info.format} · Compaction Inspector
      </p>
      {config && <p className="print-heading__settings">Settings: {settingsLine(config, calibration)}</p>}
    </div>
  )
}
