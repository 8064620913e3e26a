/**
 * A fact's state through the passes of a run, as runs of consecutive passes: what the facts
 * table holds per row (facts.ts `factTable`) and the page renders. Kept apart from facts.ts so
 * the page can read runs without bundling fact extraction. Pure.
 */
import { partitionPoint } from '../util/search'

/** A fact's state right after one pass. `not-yet`: the rolling replay had not reached it. */
export type PassState = 'verbatim' | 'summary' | 'lost' | 'not-yet'

/**
 * Consecutive passes over which a fact kept one state: positions `from`..`to` (inclusive,
 * 0-based) in `FactTable.passes`. A row's runs cover every pass once, in order, and neighbours
 * differ in state: a fact's story through thousands of passes is a few runs, never one entry
 * per pass (a 200,000-message session has ~9,000 passes and ~20,000 facts).
 */
export interface PassRun {
  state: PassState
  from: number
  to: number
}

/** The state at pass position `k` of runs covering it (binary search); `not-yet` outside them. */
export function passStateAt(runs: readonly PassRun[], k: number): PassState {
  const r = runs[partitionPoint(0, runs.length, (i) => (runs[i] as PassRun).to >= k)]
  return r && r.from <= k ? r.state : 'not-yet'
}

/**
 * The passes of a facts table as `factPassRuns` reads them, by position: whether each is a
 * rolling pass (summarize: a message counts only once the replay has reached it, i.e. its index
 * ≤ the pass's `atMessage`), and its `atMessage`. Build it once per table with `passTimeline`.
 */
export interface PassTimeline {
  rolling: readonly boolean[]
  atMessage: readonly number[]
  /** The rolling positions form one block `[rollFrom, rollTo]` with `atMessage` non-decreasing. */
  block: { rollFrom: number; rollTo: number } | null
}

/** A `PassTimeline` of passes in table order (see there). Linear. */
export function passTimeline(rolling: readonly boolean[], atMessage: readonly number[]): PassTimeline {
  let rollFrom = -1
  let rollTo = -1
  let block = true
  for (let k = 0; k < rolling.length; k++) {
    if (!rolling[k]) continue
    if (rollFrom < 0) rollFrom = k
    else if (rollTo !== k - 1 || (atMessage[k] as number) < (atMessage[k - 1] as number)) block = false
    rollTo = k
  }
  return { rolling, atMessage, block: block ? { rollFrom, rollTo } : null }
}

/**
 * The runs of one fact's state through the passes of `timeline`: after pass k the fact is
 * `verbatim` when a carrier (a before message holding it, `at` its index) was in the
 * conversation (always for a non-rolling pass; `at ≤ atMessage` for a rolling one) and still
 * verbatim (`k < until`, the position of the first pass at or after its first loss or fold;
 * the pass count when it never lost it); else `not-yet` when no carrier was in the
 * conversation yet; else `summary` when `k` is in `summaryAt` (the positions whose summary
 * holds the fact, ascending); else `lost`. When the rolling passes form one block with
 * non-decreasing `atMessage` (every pipeline run: the passes are in stage order) this costs
 * O((carriers + summaryAt) log) per fact, not O(passes); otherwise it walks the passes.
 */
export function factPassRuns(
  timeline: PassTimeline,
  carriers: readonly { at: number; until: number }[],
  summaryAt: readonly number[],
): PassRun[] {
  const count = timeline.rolling.length
  const out: PassRun[] = []
  const emit = (state: PassState, from: number, to: number) => {
    const last = out[out.length - 1]
    if (last && last.state === state && last.to === from - 1) last.to = to
    else out.push({ state, from, to })
  }
  if (count === 0) return out
  const summary = new Set(summaryAt)
  const block = timeline.block
  if (!block) {
    for (let k = 0; k < count; k++) {
      let state: PassState = 'not-yet'
      for (const c of carriers) {
        if (timeline.rolling[k] && c.at > (timeline.atMessage[k] as number)) continue
        state = 'lost'
        if (k < c.until) {
          state = 'verbatim'
          break
        }
      }
      if (state === 'lost' && summary.has(k)) state = 'summary'
      emit(state, k, k)
    }
    return out
  }
  if (carriers.length === 0) {
    emit('not-yet', 0, count - 1)
    return out
  }
  const { rollFrom, rollTo } = block
  // First rolling position whose atMessage reaches `at` (rollTo + 1 when none does).
  const reaches = (at: number) =>
    partitionPoint(rollFrom, rollTo + 1, (k) => (timeline.atMessage[k] as number) >= at)
  // Verbatim positions as intervals [start, end): outside the rolling block, any carrier that is
  // still verbatim; inside it, each carrier from the pass that reached it until its loss.
  const intervals: [number, number][] = []
  let latest = 0
  let firstPresent = rollTo + 1
  for (const c of carriers) {
    latest = Math.max(latest, c.until)
    if (rollFrom >= 0) {
      const start = reaches(c.at)
      firstPresent = Math.min(firstPresent, start)
      const end = Math.min(c.until, rollTo + 1)
      if (start < end) intervals.push([start, end])
    }
  }
  if (rollFrom < 0) intervals.push([0, latest])
  else {
    if (rollFrom > 0) intervals.push([0, Math.min(latest, rollFrom)])
    if (latest > rollTo + 1) intervals.push([rollTo + 1, latest])
  }
  intervals.sort((a, b) => a[0] - b[0])
  const verbatim: [number, number][] = []
  for (const iv of intervals) {
    if (iv[0] >= iv[1]) continue
    const last = verbatim[verbatim.length - 1]
    if (last && iv[0] <= last[1]) last[1] = Math.max(last[1], iv[1])
    else verbatim.push([iv[0], iv[1]])
  }
  const notYet: [number, number] | null = rollFrom >= 0 && firstPresent > rollFrom ? [rollFrom, firstPresent] : null
  // Every position where the state can change, then one state per segment between them.
  const cuts = new Set<number>([0, count])
  for (const [a, b] of verbatim) cuts.add(a).add(b)
  if (notYet) cuts.add(notYet[0]).add(notYet[1])
  for (const k of summaryAt) cuts.add(k).add(k + 1)
  const points = [...cuts].filter((k) => k >= 0 && k <= count).sort((a, b) => a - b)
  let v = 0
  for (let p = 0; p + 1 < points.length; p++) {
    const a = points[p] as number
    const b = (points[p + 1] as number) - 1
    while (v < verbatim.length && (verbatim[v] as [number, number])[1] <= a) v++
    const inVerbatim = v < verbatim.length && (verbatim[v] as [number, number])[0] <= a
    const state: PassState =
      notYet && a >= notYet[0] && a < notYet[1]
        ? 'not-yet'
        : inVerbatim
          ? 'verbatim'
          : summary.has(a)
            ? 'summary'
            : 'lost'
    emit(state, a, b)
  }
  return out
}
