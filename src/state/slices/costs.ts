import { getEngine } from '../../app/engine-client'
import type { RunTokens } from '../../engine/analysis/costs'
import { perRunRequest } from './per-run'
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

export const createCostsSlice: SliceCreator<CostsSlice> = (set, get) => ({
  runTokens: null,
  requestRunTokens: perRunRequest(get, {
    skip: (run) => get().runTokens?.runId === run.runId,
    ask: (run) => getEngine().getRunTokens(run.encoding),
    failed: () => null,
    keep: (runId, tokens) => set({ runTokens: { runId, tokens } }),
  }),
})
