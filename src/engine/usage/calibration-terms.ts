/**
 * What a calibration is and how it is worded: the `Calibration` shape, the raw-counts identity, the
 * ratio bounds and the label every calibrated figure carries. No imports: the page's main thread
 * (totals, settings, links, report, print) reads these without the engine's counting code, which
 * stays in the worker (calibration.ts, which re-exports them). Source: see calibration.ts.
 */

/**
 * The two numbers that turn our count into the agent's, and where they come from. A context of
 * `x` tokens by our count (messages, tool schemas) is `overhead + ratio·x` tokens of the agent,
 * plus the reply priming; per message `calibrateTokens` (the ratio, rounded), per request the
 * overhead once.
 */
export interface Calibration {
  /** Where the numbers come from: the file's usage, the agent preset, the user, or none (raw). */
  source: 'usage' | 'preset' | 'manual' | 'none'
  /** Tokens every request carries that the file does not show (system prompt, tools, memory). ≥ 0. */
  overhead: number
  /** The agent's tokens per token of ours (1 = our count). */
  ratio: number
  /**
   * `usage`: tokens the context right after each recorded compaction carries beyond its summary
   * and kept messages (files the agent re-reads, memory it re-injects; Claude Code re-reads up to
   * 5 recent files), fitted; only the walk through recorded compactions adds it.
   */
  reinjected?: number
  /**
   * `usage`: the median over the recorded requests of |estimated − recorded| / recorded (a
   * fraction: 0.021 = 2.1%), the estimate counted exactly as the run counts.
   */
  medianError?: number
  /** `usage`: how many recorded requests the file has (all of them are judged; outliers are not fitted). */
  requests?: number
  /** `preset`: where the documented overhead comes from. */
  from?: string
  /** Why the file's recorded usage was not used (too few requests, a fit that misses by half). */
  note?: string
}

/** The identity: our raw counts. */
export const RAW_COUNTS: Calibration = { source: 'none', overhead: 0, ratio: 1 }

/**
 * Plausible tokenizer ratios (the agent's tokens per token of ours): a fit outside them is a bad
 * fit (the ratio falls back to 1), a hand-set ratio is clamped to them; the page's ratio box, a
 * link's `cr` and the CLI's `--ratio` are checked against them.
 */
export const CALIBRATION_RATIO_RANGE = { min: 0.5, max: 2.5 } as const

/**
 * The line that labels every calibrated figure, in two parts: `headline` ("calibrated to the
 * file's usage: ±2.1%", "calibrated by hand", "overhead from the preset: 20,000 tokens", "raw
 * o200k_base counts") and `details` (the numbers and where they come from: "overhead 23,114
 * tokens, ratio 1.12; 412 recorded requests"), empty for raw counts. One wording for the page,
 * the report and the CLI (`calibrationLabel` joins them).
 */
export function calibrationParts(c: Calibration, encoding: string): { headline: string; details: string } {
  const numbers =
    `overhead ${c.overhead.toLocaleString('en-US')} tokens, ratio ${c.ratio.toFixed(2)}` +
    (c.reinjected ? `, ${c.reinjected.toLocaleString('en-US')} re-injected after each compaction` : '')
  switch (c.source) {
    case 'usage':
      return {
        headline: `calibrated to the file's usage: ±${((c.medianError ?? 0) * 100).toFixed(1)}%`,
        details: `${numbers}; ${c.requests ?? 0} recorded requests`,
      }
    case 'manual':
      return { headline: 'calibrated by hand', details: numbers }
    case 'preset':
      return {
        headline: `overhead from the preset: ${c.overhead.toLocaleString('en-US')} tokens`,
        details: `${c.from ? `${c.from}; ` : ''}${c.note ?? 'the file records no usage'}`,
      }
    case 'none':
      return { headline: `raw ${encoding} counts`, details: c.note ?? '' }
  }
}

/** `calibrationParts` as one line: "headline (details)". */
export function calibrationLabel(c: Calibration, encoding: string): string {
  const { headline, details } = calibrationParts(c, encoding)
  return details ? `${headline} (${details})` : headline
}
