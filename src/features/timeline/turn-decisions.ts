/**
 * The decisions the timeline reads out for a hovered turn: pure choices over the decision log the
 * worker sent (protocol `DecisionLogView`), kept out of the component so they can be tested.
 */
import type { TriggerDecision } from '../../engine/model'
import type { DecisionLogView } from '../../worker/protocol'

/** The sent decisions grouped by turn, each group in log order. */
export function decisionsByTurn(log: DecisionLogView): Map<number, TriggerDecision[]> {
  const byTurn = new Map<number, TriggerDecision[]>()
  for (const d of log.decisions) {
    const group = byTurn.get(d.turn)
    if (group) group.push(d)
    else byTurn.set(d.turn, [d])
  }
  return byTurn
}

/** What the hover shows of one turn's decisions. */
export interface TurnDecisions {
  /** At most `max` decisions, in log order. */
  shown: TriggerDecision[]
  /** Decisions of the turn sent but not shown. */
  hidden: number
  /** True when the turn has none among those sent although the log was cut (it may have had checks). */
  cut: boolean
}

/**
 * The decisions of `turn` to read out, at most `max`: the ones that decided something (fired, or
 * reached and held) first, then the turn's last check of each stage (the one closest to the
 * trigger), then the others; shown in log order. A turn checked before every model request has
 * one check per request. Pure.
 */
export function turnDecisions(byTurn: ReadonlyMap<number, readonly TriggerDecision[]>, log: DecisionLogView, turn: number, max = 3): TurnDecisions {
  const all = byTurn.get(turn) ?? []
  const cut = all.length === 0 && log.decisions.length < log.total
  if (all.length <= max) return { shown: [...all], hidden: 0, cut }
  const rank = (d: TriggerDecision, i: number): number => {
    if (d.reached) return 0
    const next = all[i + 1]
    return !next || next.stage !== d.stage ? 1 : 2
  }
  const order = all.map((d, i) => ({ i, r: rank(d, i) })).sort((a, b) => a.r - b.r || b.i - a.i)
  const keep = new Set(order.slice(0, max).map((o) => o.i))
  return { shown: all.filter((_, i) => keep.has(i)), hidden: all.length - keep.size, cut }
}
