import { useMemo, useState } from 'react'
import { LazyDetails } from '../../components/LazyDetails'
import type { FailureModeWarning } from '../../engine/model'
import { useStore } from '../../state/store'
import { useFailureModes } from '../../state/hooks'
import { figuresRunOf, selectShownRun } from '../../state/selectors'
import type { RunView, Side } from '../../worker/protocol'
import { warningPieces } from './warningText'
import './CheckWarnings.css'

/** What each failure-mode check is called on the page. Source: SPEC §3.5, seed 004. */
const FAILURE_MODE_LABEL: Record<FailureModeWarning['rule'], string> = {
  'goal-drift': 'Goal drift',
  'over-compression': 'Over-compression',
  'double-compression': 'Double compression',
  'fabricated-summary': 'Fabricated summary',
}

/** Links shown per warning before "+N more". */
const LINKS_SHOWN = 8

interface Target {
  side: Side
  label: string
  /** How the warning's sentence names it in place of its id. */
  short: string
}

/**
 * Where a message a warning names lives: a Before row (sources) or an After row (summaries,
 * the pinned block), labelled like the columns label rows.
 */
function targets(run: RunView, warnings: readonly FailureModeWarning[], afterSide: Side): Map<string, Target> {
  const map = new Map<string, Target>()
  // Only the ids the warnings name: a Before of 60,000 rows needs no 60,000 labels.
  const named = new Set<string>()
  for (const w of warnings) for (const id of w.messageIds) named.add(id)
  if (named.size === 0) return map
  for (const r of run.after.rows)
    if (named.has(r.id)) map.set(r.id, { side: afterSide, label: `after #${r.index} ${r.role}`, short: `after #${r.index}` })
  // Before wins: a kept message has the same id on both sides, and its source is the Before row.
  for (const r of run.before.rows) if (named.has(r.id)) map.set(r.id, { side: 'before', label: `#${r.index}`, short: `#${r.index}` })
  return map
}

function WarningItem({ warning, where }: { warning: FailureModeWarning; where: Map<string, Target> }) {
  const [all, setAll] = useState(false)
  const ids = warning.messageIds.filter((id) => where.has(id))
  const shown = all ? ids : ids.slice(0, LINKS_SHOWN)
  const pieces = useMemo(
    () => warningPieces(warning.message, new Map(ids.map((id) => [id, (where.get(id) as Target).short]))),
    // `ids` is derived from these two.
    // eslint-disable-next-line react-hooks/exhaustive-deps
    [warning, where],
  )
  const reveal = (side: Side, id: string) => {
    const { selectRow, setTab } = useStore.getState()
    selectRow({ side, id, reveal: true })
    setTab('compare')
  }
  return (
    <li className="check-warnings__item" data-rule={warning.rule}>
      <strong>{FAILURE_MODE_LABEL[warning.rule]}</strong>:{' '}
      {pieces.map((p, i) =>
        p.id ? (
          <span key={i} className="check-warnings__id" title={p.id}>
            {p.text}
          </span>
        ) : (
          p.text
        ),
      )}
      {ids.length > 0 && (
        <span className="check-warnings__links">
          {' '}
          Messages:{' '}
          {shown.map((id) => {
            const t = where.get(id) as Target
            return (
              <button
                key={id}
                type="button"
                className="check-warnings__link"
                title={`Show ${id} in Before | After`}
                onClick={() => reveal(t.side, id)}
              >
                {t.label}
              </button>
            )
          })}
          {ids.length > shown.length && (
            <button type="button" className="check-warnings__more" onClick={() => setAll(true)}>
              +{ids.length - shown.length} more
            </button>
          )}
        </span>
      )}
    </li>
  )
}

/**
 * The failure-mode checks of the run the figures are about (goal drift, over-compression, double
 * compression, fabricated summary; in Recorded mode of the agent's own compactions) as a
 * collapsible list under the totals; each warning links to the messages involved. Nothing when
 * the run raised none.
 */
export function CheckWarnings() {
  const run = useStore(selectShownRun)
  const afterSide: Side = useStore((s) => (figuresRunOf(s)?.recorded ? 'recorded' : 'after'))
  const { warnings, pending } = useFailureModes()
  if (run && pending) {
    return (
      <p className="check-warnings check-warnings--pending muted" data-testid="check-warnings-pending" role="status">
        Checking for failure modes…
      </p>
    )
  }
  if (!run || !warnings || warnings.length === 0) return null
  const rules = [...new Set(warnings.map((w) => FAILURE_MODE_LABEL[w.rule].toLowerCase()))]
  return (
    <LazyDetails
      className="check-warnings"
      testId="check-warnings"
      summary={
        <>
          <span className="check-warnings__count">
            {warnings.length} {warnings.length === 1 ? 'warning' : 'warnings'}
          </span>{' '}
          <span className="muted">({rules.join(', ')})</span>
        </>
      }
    >
      {() => <WarningList run={run} warnings={warnings} afterSide={afterSide} />}
    </LazyDetails>
  )
}

/** The warnings' items, built only while the list is open (a 50 MB session raises about 150). */
function WarningList({ run, warnings, afterSide }: { run: RunView; warnings: readonly FailureModeWarning[]; afterSide: Side }) {
  const where = useMemo(() => targets(run, warnings, afterSide), [run, warnings, afterSide])
  return (
    <ul>
      {warnings.map((w, i) => (
        <WarningItem key={`${w.rule}:${i}`} warning={w} where={where} />
      ))}
    </ul>
  )
}
