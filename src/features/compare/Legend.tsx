import { Chip } from '../../components/Chip'
import { KIND_INFO, type ChangeKind } from '../../components/kinds'

const SHOWN: ChangeKind[] = ['kept', 'back-reference', 'placeholder', 'summary', 'pinned', 'slimmed', 'instruction', 'dropped']

/** Explains each provenance style (DESIGN §4: colour, icon and label), always visible, details on demand. */
export function Legend() {
  return (
    <div className="legend" aria-label="Legend">
      <span className="legend__title">Legend</span>
      {SHOWN.map((kind) => (
        <Chip key={kind} kind={kind} label={KIND_INFO[kind].name} />
      ))}
      <details className="legend__more">
        <summary>What do these mean?</summary>
        <dl>
          {SHOWN.map((kind) => (
            <div key={kind}>
              <dt>
                <Chip kind={kind} label={KIND_INFO[kind].name} />
              </dt>
              <dd>{KIND_INFO[kind].explain}</dd>
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
