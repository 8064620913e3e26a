import { useStore } from '../../state/store'
import './FactFinder.css'

/**
 * The text to search for a facts-table row's fact: the fact without a trailing `…` (the worker
 * cuts a long fact, a goal, to `FACT_VIEW_LIMIT` code points and adds one). What is left every
 * message holding the fact holds verbatim too.
 */
function factSearchText(fact: string): string {
  return fact.length > 1 && fact.endsWith('…') ? fact.slice(0, -1) : fact
}

/**
 * Finds `fact` (as the facts table shows it) in Before | After: the finder searches it at once,
 * verbatim, and the compare view opens on its first match, marked in both columns.
 */
function findFactInCompare(fact: string): void {
  const { setFactQuery, setTab } = useStore.getState()
  setFactQuery(factSearchText(fact), { immediate: true, regex: false })
  setTab('compare')
}

/** A fact of the facts table as a button: a click finds and marks it in Before | After. Untrusted text, rendered as text. */
export function FindFactButton({ fact, className }: { fact: string; className?: string }) {
  return (
    <button
      type="button"
      className={`fact-link fact-finder__table-fact${className ? ` ${className}` : ''}`}
      title={`Find “${fact}” in Before | After`}
      data-testid="fact-find"
      onClick={() => findFactInCompare(fact)}
    >
      {fact}
    </button>
  )
}
