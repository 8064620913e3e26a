/**
 * Small pure choices of the token timeline chart, kept out of the component so they can be tested.
 */

/** Above this many turns the chart draws lines only: markers would merge into a thick band. */
export const MAX_TURNS_WITH_MARKERS = 50

/**
 * Whether the before/after series draw a marker on every turn. A line needs two turns: a session
 * of one turn (a single user request, a two-message transcript) would show an empty plot without
 * markers, and on short sessions they show which x positions are turns you can click.
 */
export function showTurnMarkers(turns: number): boolean {
  return turns >= 1 && turns <= MAX_TURNS_WITH_MARKERS
}

/** The y scale of the chart: tokens linear from 0, or logarithmic (small and large contexts both readable). */
export type YScale = 'linear' | 'log'

/** The widest of `values` by `measure` ('' when there is none: null before uPlot formatted any, or all empty). */
export function widestLabel(values: readonly (string | null)[] | null, measure: (text: string) => number): string {
  let widest = ''
  let width = 0
  for (const v of values ?? []) {
    if (!v) continue
    const w = measure(v)
    if (w > width) {
      widest = v
      width = w
    }
  }
  return widest
}

/**
 * Width in CSS pixels the y axis needs for its widest tick label: `gap` (ticks and the space
 * between them and the text) plus the widest of `values` measured by `measure` (CSS pixels),
 * rounded up. `values` is null before uPlot formatted any (then `gap` alone). A fixed width cut
 * the first digit of `1,200,000`.
 */
export function axisWidth(values: readonly (string | null)[] | null, measure: (text: string) => number, gap: number): number {
  const widest = widestLabel(values, measure)
  return Math.ceil(gap + (widest === '' ? 0 : measure(widest)))
}

/**
 * Whether a log-scale tick at `value` tokens gets a label: 1, 2 and 5 times a power of ten (uPlot
 * places a tick at every 1–9 multiple, whose labels would overlap near the top of each decade).
 */
export function labelsLogTick(value: number): boolean {
  if (!(value > 0)) return false
  const power = 10 ** Math.floor(Math.log10(value) + 1e-9)
  const lead = Math.round(value / power)
  return Math.abs(value - lead * power) <= power * 1e-6 && (lead === 1 || lead === 2 || lead === 5)
}

/**
 * The log scale's range: from a power of ten at or below the smallest positive value of `series`
 * (at least 1) up to `top`. Tokens; `[1, top]` when nothing is positive.
 */
export function logRange(series: readonly (readonly (number | null)[])[], top: number): [number, number] {
  let low = Infinity
  for (const values of series) for (const v of values) if (v !== null && v > 0 && v < low) low = v
  const bottom = Number.isFinite(low) ? Math.max(1, 10 ** Math.floor(Math.log10(low))) : 1
  return [bottom, Math.max(top, bottom * 10)]
}
