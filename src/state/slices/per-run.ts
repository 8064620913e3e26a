import type { RunView } from '../../worker/protocol'
import type { StoreState } from './types'

/** How a slice asks the worker for something it derives from the run shown. */
export interface PerRunRequest<T> {
  /** True when the answer for `run` is held already (or not wanted): nothing is asked. */
  skip: (run: RunView) => boolean
  /** The worker call for `run`. */
  ask: (run: RunView) => Promise<T>
  /** The answer to keep when the call failed. */
  failed: (error: unknown) => T
  /** Keeps the answer of run `runId` (called only while that run is still the one shown). */
  keep: (runId: number, answer: T) => void
}

/**
 * The request function of a per-run answer (the run's token counts, its re-work, its failure-mode
 * warnings): asked at most once at a time per run, and dropped when a newer run is shown by the
 * time it comes (that run's view asks for its own).
 */
export function perRunRequest<T>(get: () => StoreState, spec: PerRunRequest<T>): () => void {
  let asked: number | null = null // runId of the request in flight
  return () => {
    const run = get().run
    if (!run || asked === run.runId || spec.skip(run)) return
    const runId = run.runId
    asked = runId
    const answer = (out: T) => {
      if (asked === runId) asked = null
      if (get().run?.runId === runId) spec.keep(runId, out)
    }
    spec.ask(run).then(answer, (e: unknown) => answer(spec.failed(e)))
  }
}
