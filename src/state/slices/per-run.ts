import { figuresRunOf, type FiguresRun } from '../selectors'
import type { StoreState } from './types'

/** How a slice asks the worker for something it derives from the run its figures are about. */
export interface PerRunRequest<T> {
  /** True when the answer for `run` is held already (or not wanted): nothing is asked. */
  skip: (run: FiguresRun) => boolean
  /** The worker call for `run` (a recorded view's carries its `RecordedRef`). */
  ask: (run: FiguresRun) => Promise<T>
  /** The answer to keep when the call failed. */
  failed: (error: unknown) => T
  /** Keeps the answer for the run of `key` (called only while that run is still the one the figures are about). */
  keep: (key: string, answer: T) => void
}

/**
 * The request function of a per-run answer (the run's token counts, its re-work, its failure-mode
 * warnings) for the run the figures are about (`figuresRunOf`: the recorded view in Recorded mode,
 * else the simulated run): asked at most once at a time per run, and dropped when the figures are
 * about another run by the time it comes (that run asks for its own).
 */
export function perRunRequest<T>(get: () => StoreState, spec: PerRunRequest<T>): () => void {
  let asked: string | null = null // key of the request in flight
  return () => {
    const run = figuresRunOf(get())
    if (!run || asked === run.key || spec.skip(run)) return
    const { key } = run
    asked = key
    const answer = (out: T) => {
      if (asked === key) asked = null
      if (figuresRunOf(get())?.key === key) spec.keep(key, out)
    }
    spec.ask(run).then(answer, (e: unknown) => answer(spec.failed(e)))
  }
}
