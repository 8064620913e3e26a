import { Chip } from '../../components/Chip'
import { KIND_INFO, type ChangeKind } from '../../components/kinds'
import type { StageId } from '../../engine/model'
import { isStageId, STAGE_DEFINITIONS, stageDefinition } from '../../engine/stages/definitions'
import { useStore } from '../../state/store'
import { useHasRecordedCompactions } from '../../state/hooks'

const SHOWN: ChangeKind[] = ['kept', 'back-reference', 'placeholder', 'summary', 'pinned', 'slimmed', 'instruction', 'dropped']

/**
 * Which kinds a run can produce with these stages on: what each enabled stage's definition says it
 * produces (stages/definitions.ts `produces`); recorded compactions add summaries and re-injected
 * instructions; the pipeline itself may drop empty messages.
 */
function producibleKinds(enabled: readonly StageId[], hasRecorded: boolean): Set<ChangeKind> {
  const kinds = new Set<ChangeKind>(['kept', 'dropped'])
  for (const id of enabled) {
    if (isStageId(id)) for (const kind of stageDefinition(id).produces) kinds.add(kind)
  }
  if (hasRecorded) {
    kinds.add('summary')
    kinds.add('instruction')
  }
  return kinds
}

/** Kinds only stages the pipeline does not list can produce: shown in the details as coming with them. */
function laterKinds(known: readonly StageId[]): Set<ChangeKind> {
  const later = new Set<ChangeKind>()
  for (const def of STAGE_DEFINITIONS) {
    if (!known.includes(def.id)) for (const kind of def.produces) later.add(kind)
  }
  for (const id of known) if (isStageId(id)) for (const kind of stageDefinition(id).produces) later.delete(kind)
  return later
}

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
  const possible = producibleKinds(enabled.split(',') as StageId[], hasRecorded)
  const later = laterKinds(known.split(',') as StageId[])
  const why = (kind: ChangeKind) => (later.has(kind) ? 'appears with later stages' : 'its stage is off')
  return (
    <div className="legend" aria-label="Legend">
      <span className="legend__title visually-hidden">Legend</span>
      {SHOWN.filter((kind) => possible.has(kind)).map((kind) => (
        <Chip key={kind} kind={kind} label={KIND_INFO[kind].name} />
      ))}
      <details className="legend__more">
        <summary>What do these mean?</summary>
        <dl>
          {SHOWN.map((kind) => (
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
              <span className="boundary-sample">Σ pass 2: messages 0–57 → summary</span>
            </dt>
            <dd>A summary boundary: where a compaction pass folded older messages into one summary.</dd>
          </div>
          <div>
            <dt>
              <span className="boundary-sample boundary-sample--recorded">⎇ recorded compaction</span>
            </dt>
            <dd>A compaction the agent itself already made inside this transcript.</dd>
          </div>
        </dl>
      </details>
    </div>
  )
}
