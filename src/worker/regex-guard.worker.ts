/**
 * The regex guard's disposable worker (fact-search.ts `workerRegexProbe`): runs a regular
 * expression over texts so that a catastrophically backtracking one, e.g. /(a+)+$/ on a long run
 * of "a", stalls this worker — which the engine worker terminates — instead of itself.
 * Texts arrive once per generation (`{ gen, texts }`) and are kept; probes (`{ id, gen, source }`)
 * answer `{ id }` when every text was scanned, or `{ id, stale: true }` when the texts of `gen`
 * are not here (the guard then sends them again).
 */
import type { GuardReply, GuardRequest } from './fact-search'

const scope = self as unknown as {
  onmessage: ((e: MessageEvent<GuardRequest>) => void) | null
  postMessage(reply: GuardReply): void
}

/** This worker's one session: the texts it holds (the last generation sent) and its message handler. */
function guardSession(reply: (r: GuardReply) => void): (e: MessageEvent<GuardRequest>) => void {
  let held: { gen: number; texts: readonly string[] } | null = null
  return (e) => {
    const req = e.data
    if ('texts' in req) {
      held = { gen: req.gen, texts: req.texts }
      return
    }
    if (held?.gen !== req.gen) {
      reply({ id: req.id, stale: true })
      return
    }
    const re = new RegExp(req.source, 'g')
    // matchAll visits every match, as the search's count does: the same backtracking, bounded here.
    for (const text of held.texts) for (const m of text.matchAll(re)) void m
    reply({ id: req.id })
  }
}

scope.onmessage = guardSession((r) => scope.postMessage(r))
