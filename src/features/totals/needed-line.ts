import type { FailureModeWarning } from '../../engine/model'
import type { RunView } from '../../worker/protocol'

/**
 * What the totals card's "facts were needed" line shows: `checking` while the run's deferred
 * failure-mode checks are on their way, `needed` with the facts the over-compression warnings
 * name (`neededFactsOf`; the line is `neededText(facts)`), `none` when deferred checks came and
 * name none, null for no line (the view carried its checks and they name none, or the deferred
 * ones failed).
 */
export type NeededLineState = { state: 'checking' } | { state: 'needed'; facts: string[] } | { state: 'none' } | null

/**
 * The texts of the facts a pass removed and a later message needed, as the over-compression
 * warnings of a run name them (`neededFactTexts`, warnings in order), each text once. Pure.
 */
export function neededFactsOf(warnings: readonly FailureModeWarning[]): string[] {
  return [...new Set(warnings.flatMap((w) => w.neededFactTexts ?? []))]
}

/**
 * The line's state for the shown run's `checks` and the deferred answer (`useFailureModes`:
 * the warnings the worker answered for the run in the store, and whether they are still to
 * come). A run whose view left its checks for later (`failureModesPending`: a long session)
 * always has the line, so the card keeps its height when they come.
 */
export function neededLineState(
  checks: RunView['checks'],
  answered: { warnings: readonly FailureModeWarning[] | undefined; pending: boolean },
): NeededLineState {
  const deferred = checks.failureModesPending === true
  if (deferred && answered.pending) return { state: 'checking' }
  // A recorded view carries its own (none); the simulated run's may come after its view.
  const warnings = checks.failureModes ?? answered.warnings
  const facts = neededFactsOf(warnings ?? [])
  if (facts.length > 0) return { state: 'needed', facts }
  return deferred && warnings ? { state: 'none' } : null
}
