import type { RunCost } from '../../engine/analysis/costs'

/** One bar of the strategy chart: a name and its dollars. */
export interface StrategyBar {
  label: string
  dollars: number
}

/**
 * The strategies the cost chart compares, from a priced run (engine `estimateRunCost`), in
 * dollars for the summarizer calls plus the agent's following turns:
 * - `no compaction`: the following turns over the uncompacted context (warm cache);
 * - `as configured`: the run's summarizer calls (insert-then-compress with its cached prefix) +
 *   the following turns over the compacted context (cold cache);
 * and, when the run has insert-then-compress passes, the same run with those calls made
 * - `insert-then-compress, cold cache`: with the prefix paid as uncached input;
 * - `separate summarization call`: as a seed 001 summarization prompt (SPEC §3.2).
 * Summarize passes cost the same in every strategy (they are separate calls already).
 */
export function strategyBars(cost: RunCost): StrategyBar[] {
  const following = cost.followingTurns.withCompaction.cost.total
  const bars: StrategyBar[] = [
    { label: 'no compaction', dollars: cost.total.withoutCompaction },
    { label: 'as configured', dollars: cost.total.withCompaction },
  ]
  const itc = cost.passes.filter((p) => p.stage === 'insert-then-compress')
  if (itc.length === 0) return bars
  const others = cost.passes
    .filter((p) => p.stage !== 'insert-then-compress')
    .reduce((n, p) => n + p.cost.total, 0)
  const cold = itc.reduce((n, p) => n + (p.withoutCache ?? p).cost.total, 0)
  const separate = itc.reduce((n, p) => n + (p.separateCall ?? p).cost.total, 0)
  bars.push(
    { label: 'insert-then-compress, cold cache', dollars: others + cold + following },
    { label: 'separate summarization call', dollars: others + separate + following },
  )
  return bars
}

/** Dollars with enough digits for fractions of a cent: `$0.0123`, `$12.34`. */
export function formatDollars(dollars: number): string {
  if (dollars === 0) return '$0'
  if (Math.abs(dollars) >= 1) return `$${dollars.toFixed(2)}`
  return `$${dollars.toPrecision(3)}`
}
