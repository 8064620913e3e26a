import { Chip } from '../../components/Chip'
import { KIND_INFO, type ChangeKind } from '../../components/kinds'
import type { StageId } from '../../engine/model'
import { useStore } from '../../state/store'

const SHOWN: ChangeKind[] = ['kept', 'back-reference', 'placeholder', 'summary', 'pinned', 'slimmed', 'instruction', 'dropped']

/**
 * Which kinds a run can produce with these stages on: read off what each producer writes (dedupe
 * back-references, prune placeholders, summarize and insert-then-compress summaries, the latter
 * also drops; recorded compactions summaries and re-injected instructions; the pipeline drops
 * empty messages; pin-facts pinned facts; slim slimmed outputs).
 */
function producibleKinds(enabled: readonly StageId[], hasRecorded: boolean): Set<ChangeKind> {
  const kinds = new Set<ChangeKind>(['kept', 'dropped'])
  if (enabled.includes('dedupe')) kinds.add('back-reference')
  if (enabled.includes('prune-tool-results')) kinds.add('placeholder')
  if (enabled.includes('summarize') || enabled.includes('insert-then-compress')) kinds.add('summary')
  if (enabled.includes('insert-then-compress')) {
    kinds.add('instruction')
    kinds.add('dropped')
  }
  if (enabled.includes('pin-facts')) kinds.add('pinned')
  if (enabled.includes('slim')) kinds.add('slimmed')
  if (hasRecorded) {
    kinds.add('summary')
    kinds.add('instruction')
  }
  return kinds
}

/** Kinds of stages the pipeline does not list yet: shown in the details as coming later. */
function laterKinds(known: readonly StageId[]): Set<ChangeKind> {
  const later = new Set<ChangeKind>()
  if (!known.includes('pin-facts')) later.add('pinned')
  if (!known.includes('slim')) later.add('slimmed')
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
  const hasRecorded = useStore((s) => (s.info?.recordedCompactions.length ?? 0) > 0)
  const known = useStore((s) => s.config?.stages.map((st) => st.id).join(',') ?? '')
  const possible = producibleKinds(enabled.split(',') as StageId[], hasRecorded)
  const later = laterKinds(known.split(',') as StageId[])
  const why = (kind: ChangeKind) => (later.has(kind) ? 'appears with later stages' : 'its stage is off')
  return (
    <div className="legend" aria-label="Legend">
      <span className="legend__title">Legend</span>
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
