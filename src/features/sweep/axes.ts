/**
 * Sweep axes for the page: the offered pairs, default ranges around the current setting, a range
 * written as from/to/step, and the colour scale of the heat map. Pure (no React, no store).
 */
import {
  defaultSweepSpan,
  parseSweepAxis,
  SWEEP_PARAMS,
  type SweepAxis,
  type SweepParam,
  type SweepScale,
  type SweepSpan,
} from '../../engine/analysis/sweep-params'
import type { SweepCell, SweepCellResult } from '../../engine/analysis/sweep'
import type { PipelineConfig } from '../../engine/model'
import { windowOf } from '../../engine/models'
import { summarizeTrigger } from '../../engine/stages/triggers'

/**
 * The pairs offered as one click: the summarize pair (seed 001's counts), the token pair (the
 * agents' token trigger × the kept tail's budget) and the prune pair.
 */
export const SWEEP_PAIRS: readonly { id: string; label: string; x: SweepParam; y: SweepParam }[] = [
  { id: 'summarize', label: 'keep_last × compact_after', x: 'keep_last', y: 'compact_after' },
  { id: 'tokens', label: 'keep_tokens × trigger_tokens', x: 'keep_tokens', y: 'trigger_tokens' },
  { id: 'prune', label: 'target × keep_steps', x: 'target', y: 'keep_steps' },
]

/**
 * The pair the Sweep tab opens with: the one the pipeline's active trigger uses — the token pair
 * when summarize fires on tokens (an agent preset), the summarize pair when it counts messages,
 * the prune pair when only prune is on. Pure.
 */
export function defaultPair(config: PipelineConfig | null | undefined): (typeof SWEEP_PAIRS)[number] {
  const byId = (id: string) => SWEEP_PAIRS.find((p) => p.id === id)!
  const summarize = config?.stages.find((s) => s.id === 'summarize' && s.enabled)
  if (summarize) return byId(summarizeTrigger(summarize.params, windowOf(config?.window)).measure === 'tokens' ? 'tokens' : 'summarize')
  if (config?.stages.some((s) => s.id === 'prune-tool-results' && s.enabled)) return byId('prune')
  return byId('summarize')
}

/** A range as the form edits it: from, to and step (whole numbers). */
export interface AxisRange extends SweepSpan {
  param: SweepParam
}

/**
 * The default range of `param` for a transcript of `scale.messages` messages and `scale.tokens`
 * tokens, centred on `current` (the param's value in the pipeline, `currentSweepValue`): the
 * engine's one rule, `defaultSweepSpan` (the CLI's `sweep --x P` uses it too).
 */
export function defaultRange(param: SweepParam, scale: SweepScale, current?: number): AxisRange {
  return { param, ...defaultSweepSpan(param, scale, current) }
}

/** The axis of a range, or the engine parser's one-line reason (`parseSweepAxis`). */
export function axisOf(range: AxisRange): { ok: true; axis: SweepAxis } | { ok: false; error: string } {
  return parseSweepAxis(`${range.param}=${range.from}..${range.to}:${range.step}`)
}

/** Label of a param with its stage and unit, for the pickers. */
export function paramLabel(param: SweepParam): string {
  const p = SWEEP_PARAMS[param]
  return `${param} (${p.stage}, ${p.unit})`
}

/** The metrics the heat map colours by. */
export type SweepMetric = 'tokensSaved' | 'factsLost' | 'neededLost' | 'passes'

/** Per metric: its label, whether more is better, and the cell's value. */
export const METRICS: Record<SweepMetric, { label: string; higherIsBetter: boolean | null; value: (c: SweepCellResult) => number }> = {
  tokensSaved: { label: 'tokens saved', higherIsBetter: true, value: (c) => c.tokensSaved },
  factsLost: { label: 'important facts lost', higherIsBetter: false, value: (c) => c.factsLost },
  neededLost: { label: 'needed facts lost', higherIsBetter: false, value: (c) => c.neededLost },
  passes: { label: 'passes', higherIsBetter: null, value: (c) => c.passes },
}

/**
 * Lowest and highest value of `metric` over the cells that ran inside the model window (null when
 * none did): a cell over the window (`overWindow`) is left out, so it never takes the scale's best end.
 */
export function metricRange(cells: readonly (readonly (SweepCell | null)[])[], metric: SweepMetric): [number, number] | null {
  let lo = Infinity
  let hi = -Infinity
  for (const row of cells) {
    for (const cell of row) {
      if (!cell?.ok || cell.overWindow) continue
      const v = METRICS[metric].value(cell)
      lo = Math.min(lo, v)
      hi = Math.max(hi, v)
    }
  }
  return lo === Infinity ? null : [lo, hi]
}

/**
 * Where `value` sits between `lo` and `hi`, 0…1 (0.5 when they are equal, so a flat grid reads as
 * one middle colour rather than all-extreme).
 */
export function shade(value: number, [lo, hi]: [number, number]): number {
  if (hi === lo) return 0.5
  return Math.min(1, Math.max(0, (value - lo) / (hi - lo)))
}
