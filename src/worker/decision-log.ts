/**
 * The part of a run's decision log (engine `RunResult.decisions`, model.ts `TriggerDecision`) that
 * crosses to the page. A 60k-message session checked before every model request logs tens of
 * thousands of check points; the views need the ones that decided something (a pass fired, or a
 * reached trigger was held) and, for hovering a turn, its last check. So a log longer than the
 * limit is cut by those priorities and says how much it left out.
 */
import type { TriggerDecision } from '../engine/model'
import type { DecisionLogView } from './protocol'

/** At most this many decisions cross to the page in one view. */
export const DECISIONS_SENT = 2000

/** Picks `count` of `items` evenly spaced, each from the middle of its share (all when `count >= items.length`). */
function spread<T>(items: readonly T[], count: number): T[] {
  if (count >= items.length) return [...items]
  if (count <= 0) return []
  const out: T[] = []
  for (let i = 0; i < count; i++) {
    const item = items[Math.floor(((i + 0.5) * items.length) / count)]
    if (item !== undefined) out.push(item)
  }
  return out
}

/**
 * The decisions of `log` to send, in log order, copied, with the log's counts.
 *
 * `keep` narrows what is eligible (e.g. only reached decisions for the pass list); counts are of
 * the whole `log`. When more than `limit` are eligible they are taken by priority: the decisions
 * that made a pass, then the reached ones a guard or the plan held, then the other fired ones (a
 * stateless stage, prune, fires at every turn past its trigger), then the last check of each
 * stage's turn, then the other checks; the first tier that does not fit whole is sampled evenly
 * across the session (so hovering any part of the timeline finds some). Pure.
 */
export function decisionLogView(
  log: readonly TriggerDecision[],
  limit = DECISIONS_SENT,
  keep: (d: TriggerDecision) => boolean = () => true,
): DecisionLogView {
  let reached = 0
  let fired = 0
  for (const d of log) {
    if (d.reached) reached++
    if (d.fired) fired++
  }
  const eligible: number[] = []
  log.forEach((d, i) => {
    if (keep(d)) eligible.push(i)
  })
  let chosen: number[]
  if (eligible.length <= limit) chosen = eligible
  else {
    const tiers: number[][] = [[], [], [], [], []]
    eligible.forEach((i, k) => {
      const d = log[i]!
      const next = log[eligible[k + 1] ?? -1]
      const lastOfTurn = !next || next.turn !== d.turn || next.stage !== d.stage
      const tier = d.fired && d.pass !== undefined ? 0 : d.reached && !d.fired ? 1 : d.fired ? 2 : lastOfTurn ? 3 : 4
      tiers[tier]!.push(i)
    })
    chosen = []
    for (const tier of tiers) {
      const room = limit - chosen.length
      if (room <= 0) break
      for (const i of spread(tier, room)) chosen.push(i)
    }
    chosen.sort((a, b) => a - b)
  }
  return {
    decisions: chosen.map((i) => ({ ...log[i]! })),
    total: log.length,
    reached,
    fired,
  }
}

/** The last decision of each stage in `log`, in the order the stages first appear; copies. Pure. */
export function lastOfEachStage(log: readonly TriggerDecision[]): TriggerDecision[] {
  const last = new Map<string, TriggerDecision>()
  for (const d of log) last.set(d.stage, d)
  return [...last.values()].map((d) => ({ ...d }))
}
