import { Chip } from '../../components/Chip'
import { BOUNDARY_INFO, KIND_INFO, LEGEND_KINDS, laterKinds, offKindReason, producibleKinds, type ChangeKind } from '../../report/kinds'
import { useStore } from '../../state/store'
import { useHasRecordedCompactions } from '../../state/hooks'

/**
 * Explains each provenance style (DESIGN §4: colour, icon and label), always visible, details on
 * demand. Only the kinds the current pipeline can produce are shown; the rest are dimmed in the
 * details with why.
 */
export function Legend() {
  // Joined to a string so the selector's result compares equal between renders.
  const enabled = useStore(
    (s) => s.config?.stages.filter((st) => st.enabled).map((st) => st.id).join(',') ?? '',
  )
  const hasRecorded = useHasRecordedCompactions()
  const known = useStore((s) => s.config?.stages.map((st) => st.id).join(',') ?? '')
  const possible = producibleKinds(enabled.split(','), hasRecorded)
  const later = laterKinds(known.split(','))
  const why = (kind: ChangeKind) => offKindReason(kind, later)
  return (
    <div className="legend" aria-label="Legend">
      <span className="legend__title visually-hidden">Legend</span>
      {LEGEND_KINDS.filter((kind) => possible.has(kind)).map((kind) => (
        <Chip key={kind} kind={kind} label={KIND_INFO[kind].name} />
      ))}
      <details className="legend__more">
        <summary>What do these mean?</summary>
        <dl>
          {LEGEND_KINDS.map((kind) => (
            <div key={kind} className={possible.has(kind) ? undefined : 'legend__off'}>
              <dt>
                <Chip kind={kind} label={KIND_INFO[kind].name} />
              </dt>
              <dd>
                {KIND_INFO[kind].explain}
                {!possible.has(kind) && <span className="muted"> ({why(kind)})</span>}
              </dd>
            </div>
          ))}
          <div>
            <dt>
              <span className="boundary-sample">{BOUNDARY_INFO.pass.sample}</span>
            </dt>
            <dd>{BOUNDARY_INFO.pass.explain}</dd>
          </div>
          <div>
            <dt>
              <span className="boundary-sample boundary-sample--recorded">{BOUNDARY_INFO.recorded.sample}</span>
            </dt>
            <dd>{BOUNDARY_INFO.recorded.explain}</dd>
          </div>
        </dl>
      </details>
    </div>
  )
}
