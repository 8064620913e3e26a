import { formatCount } from '../../components/format'
import { Segmented, type SegmentedOption } from '../../components/Segmented'
import type { AfterMode } from '../../state/slices/recorded'
import { useInfo, useRecorded, useRecordedActions, useTab } from '../../state/hooks'

const MODES: SegmentedOption<AfterMode>[] = [
  { value: 'simulated', label: 'Simulated' },
  { value: 'recorded', label: 'Recorded' },
  { value: 'versus', label: 'Recorded vs simulated' },
]

/**
 * "Simulated | Recorded | Recorded vs simulated": what the After column shows, offered only when
 * the transcript records compactions of its own; with several, a picker of which one.
 */
export function AfterModeControl() {
  const info = useInfo()
  const { afterMode: mode, recorded, recordedCompaction } = useRecorded()
  const chosen = recorded?.compaction ?? recordedCompaction
  const { setAfterMode, setRecordedCompaction } = useRecordedActions()
  const { tab } = useTab()
  const compactions = info?.recordedCompactions ?? []
  // Stage by stage always shows the simulation, stage after stage.
  if (compactions.length === 0 || tab === 'stages') return null
  const last = compactions.length - 1
  return (
    <div className="after-mode">
      <Segmented label="After column shows" options={MODES} value={mode} onChange={setAfterMode} />
      {mode !== 'simulated' && compactions.length > 1 && (
        <label className="after-mode__pick">
          <span className="muted">Compaction</span>
          <select
            aria-label="Recorded compaction"
            value={chosen ?? last}
            onChange={(e) => setRecordedCompaction(Number(e.target.value))}
          >
            {compactions.map((c, i) => (
              <option key={i} value={i}>
                {`#${i + 1} at message ${c.atIndex}`}
                {c.tokensBefore !== undefined ? ` (${formatCount(c.tokensBefore)} tokens)` : ''}
                {i === last ? ' — last' : ''}
              </option>
            ))}
          </select>
        </label>
      )}
    </div>
  )
}
