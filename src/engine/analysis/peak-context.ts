/**
 * The context a run sends at its peak, and whether it fits the model window: a setting whose
 * context outgrows the window is one the agent could not have run (the request would have been
 * refused). The one rule for the sweep's cells, the page's totals and the preset comparison.
 * Pure; no I/O.
 */

/** What `peakContextTokens` reads of a run (`RunResult`, or the page's `RunView`). */
export interface PeakInput {
  /** The After side's total context tokens (what the last request carries). */
  after: { totals: { tokens: number } }
  /** The compaction passes, each with the context tokens just before it fired. */
  passes: readonly { tokensBefore: number }[]
}

/**
 * The most context tokens a run sends in one request: the largest of the After total and every
 * pass's `tokensBefore` (the context a pass found when it fired is the highest the context got
 * before that pass shrank it; after the last pass it only grows up to the After total). Tokens
 * of the run's encoding.
 */
export function peakContextTokens(run: PeakInput): number {
  let peak = run.after.totals.tokens
  for (const p of run.passes) peak = Math.max(peak, p.tokensBefore)
  return peak
}

/** True when the run's peak context (`peakContextTokens`) is more than `window` tokens. */
export function exceedsWindow(run: PeakInput, window: number): boolean {
  return peakContextTokens(run) > window
}

/**
 * How the page and the CLI mark a setting whose context outgrows `window` tokens: `over the
 * 200,000-token window: the agent would have failed here`.
 */
export function overWindowText(window: number): string {
  return `over the ${window.toLocaleString('en-US')}-token window: the agent would have failed here`
}
