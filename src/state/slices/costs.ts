import { getEngine } from '../../app/engine-client'
import type { RunTokens } from '../../engine/analysis/costs'
import { perRunRequest } from './per-run'
import type { SliceCreator } from './types'

/** The cost view's token counts: fetched from the worker on request, for the run the figures are about. */
export interface CostsSlice {
  /**
   * Token counts of the run of `key` (`figuresRunOf`): its summarizer calls and its context before
   * and after (engine `runTokens`, in the run's encoding; a recorded view has no summarizer calls
   * of ours); null before the first answer or when the worker had no run or failed.
   */
  runTokens: { key: string; tokens: RunTokens | null } | null
  /** Asks the worker for the run's token counts unless they are held or in flight. */
  requestRunTokens: () => void
}

export const createCostsSlice: SliceCreator<CostsSlice> = (set, get) => ({
  runTokens: null,
  requestRunTokens: perRunRequest(get, {
    skip: (run) => get().runTokens?.key === run.key,
    ask: (run) => getEngine().getRunTokens(run.view.encoding, run.recorded),
    failed: () => null,
    keep: (key, tokens) => set({ runTokens: { key, tokens } }),
  }),
})
