import { getEngine } from '../../app/engine-client'
import type { RunTokens } from '../../engine/analysis/costs'
import type { SliceCreator } from './types'

/** The cost view's token counts: fetched from the worker on request, for the run shown. */
export interface CostsSlice {
  /**
   * Token counts of the run `runId`'s summarizer calls and of its context before and after
   * (engine `runTokens`, in the run's encoding); null before the first answer or when the worker
   * had no run or failed.
   */
  runTokens: { runId: number; tokens: RunTokens | null } | null
  /** Asks the worker for the current run's token counts unless they are held or in flight. */
  requestRunTokens: () => void
}

export const createCostsSlice: SliceCreator<CostsSlice> = (set, get) => {
  let asked: number | null = null // runId of the request in flight

  return {
    runTokens: null,
    requestRunTokens: () => {
      const run = get().run
      if (!run || asked === run.runId || get().runTokens?.runId === run.runId) return
      const runId = run.runId
      asked = runId
      const answer = (tokens: RunTokens | null) => {
        if (asked === runId) asked = null
        // A newer run arrived meanwhile: its own request follows (the view asks per run).
        if (get().run?.runId === runId) set({ runTokens: { runId, tokens } })
      }
      getEngine()
        .getRunTokens(run.encoding)
        .then(answer, () => answer(null))
    },
  }
}
