import { formatCount, formatCountOf } from '../../components/format'
import type { RecordedRunView } from '../../worker/protocol'
import { FindFactButton } from '../facts/FactFinderLink'

type FactsKept = NonNullable<RecordedRunView['factsKept']>

/** One side's list: its facts as finder links, and "+N more" past the ones sent. */
function KeptList({ label, facts, count, testId }: { label: string; facts: readonly string[]; count: number; testId: string }) {
  return (
    <div className="versus-facts__side" data-testid={testId}>
      <span className="versus-facts__label">
        {label} ({formatCount(count)}):
      </span>{' '}
      {count === 0 ? (
        <span className="muted">none</span>
      ) : (
        <>
          {facts.map((f, i) => (
            <span key={f}>
              {i > 0 && ', '}
              <FindFactButton fact={f} />
            </span>
          ))}
          {count > facts.length && <span className="muted">, +{formatCount(count - facts.length)} more</span>}
        </>
      )}
    </div>
  )
}

/**
 * Recorded vs simulated, fact by fact: the important facts only the agent's own compaction kept,
 * those only the simulation kept (each a finder link), and how many both or neither kept — as the
 * worker's `factsKept` says.
 */
export function VersusFacts({ kept }: { kept: FactsKept }) {
  return (
    <div className="versus-facts" data-testid="versus-facts" aria-label="Facts each After kept">
      <KeptList label="Kept only by the agent" facts={kept.recordedOnly} count={kept.recordedOnlyCount} testId="versus-facts-recorded" />
      <KeptList label="Kept only by the simulation" facts={kept.simulatedOnly} count={kept.simulatedOnlyCount} testId="versus-facts-simulated" />
      <div className="muted">
        {formatCountOf(kept.both, 'important fact')} kept by both · {formatCount(kept.neither)} by neither
      </div>
    </div>
  )
}
