import { passName } from '../../engine/facts/verdict'
import { describeDecision } from '../../engine/stages/triggers'
import type { RunView } from '../../worker/protocol'

/**
 * The compaction passes that fired at the turn a playback run is as of, one sentence for the
 * page's live status line, or null when the view is not one of playback or no pass fired there.
 * Worded from the engine's own pass fields and `describeDecision`: `Turn 7: pass 2 — messages
 * 0–21 → summary, because 38 unsummarized messages > 20 (compact_after 20) → pass 2 fired (9,120
 * → 2,210 tokens)`. Several passes at one turn are joined with `; `. Edits in place that make no
 * pass (pruning, which applies at every request over its trigger) are not announced. Reads the
 * run's decision log (`RunView.decisions`) and its passes.
 */
export function firedAtTurn(view: RunView | null): string | null {
  const turn = view?.asOf?.turn
  if (!view || turn === undefined) return null
  const parts: string[] = []
  for (const d of view.decisions?.decisions ?? []) {
    if (!d.fired || d.turn !== turn || d.pass === undefined) continue
    const pass = view.passes.find((p) => p.stage === d.stage && p.pass === d.pass)
    if (!pass) continue
    parts.push(`${passName(pass.stage, pass.pass)} — messages ${pass.from}–${pass.upto - 1} → summary, because ${describeDecision(d, false)}`)
  }
  return parts.length === 0 ? null : `Turn ${turn}: ${parts.join('; ')}`
}
