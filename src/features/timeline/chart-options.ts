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

/** Tools with their own layer in the "what filled the window" view; the rest share one. */
const STACKED_TOOLS = 5

/** One layer of the stacked composition view: the composition parts it sums, and its name. */
export interface StackGroup {
  key: string
  label: string
  parts: string[]
}

const PART_LABELS: Record<string, string> = {
  overhead: 'overhead (system prompt, tool schemas: what the file does not show)',
  system: 'system messages',
  user: 'user messages',
  assistant: 'assistant text and tool calls',
  thinking: 'thinking',
  summaries: 'summaries',
}

/**
 * The layers of the stacked view, bottom to top, from the usage timeline's `parts` (engine
 * order: overhead, the message roles, then `tool:<name>` by size): every non-tool part, the first
 * `maxTools` tools each as "<name> results", and the other tools together ("other tools' results").
 */
export function stackGroups(parts: readonly string[], maxTools: number = STACKED_TOOLS): StackGroup[] {
  const groups: StackGroup[] = []
  const tools = parts.filter((p) => p.startsWith('tool:'))
  for (const p of parts) if (!p.startsWith('tool:')) groups.push({ key: p, label: PART_LABELS[p] ?? p, parts: [p] })
  for (const p of tools.slice(0, maxTools)) groups.push({ key: p, label: `${p.slice('tool:'.length)} results`, parts: [p] })
  const rest = tools.slice(maxTools)
  if (rest.length > 0) groups.push({ key: 'other-tools', label: `other tools' results (${rest.length})`, parts: rest })
  return groups
}

/** The tokens of each group in one request's `composition` (0 for a part it lacks). */
export function groupTokens(composition: Readonly<Record<string, number | undefined>>, groups: readonly StackGroup[]): number[] {
  return groups.map((g) => g.parts.reduce((n, p) => n + (composition[p] ?? 0), 0))
}

/**
 * The chart's x values: the turns 1..turns and the positions of the recorded requests, ascending
 * without repeats, and the index of each in it (`at`).
 */
export function mergedXs(turns: number, positions: readonly number[]): { xs: number[]; at: Map<number, number> } {
  const all = new Set<number>(positions)
  for (let t = 1; t <= turns; t++) all.add(t)
  const xs = [...all].sort((a, b) => a - b)
  return { xs, at: new Map(xs.map((x, i) => [x, i])) }
}

/** The index in ascending `xs` of the value nearest `x` (the earlier on a tie); -1 when `xs` is empty. */
export function nearestIndex(xs: readonly number[], x: number): number {
  if (xs.length === 0) return -1
  let lo = 0
  let hi = xs.length - 1
  while (lo < hi) {
    const mid = (lo + hi) >> 1
    if ((xs[mid] as number) < x) lo = mid + 1
    else hi = mid
  }
  if (lo > 0 && x - (xs[lo - 1] as number) <= (xs[lo] as number) - x) return lo - 1
  return lo
}

/**
 * The turn a position `x` on the turn axis reads: a turn's own position (x = t) is turn t; a
 * request between two turn ends (t − 1 < x < t) was sent during turn t. Clamped to 1..turns.
 */
export function turnAt(x: number, turns: number): number {
  return Math.min(Math.max(1, Math.ceil(x - 1e-9)), Math.max(1, turns))
}
