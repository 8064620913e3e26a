import { getEngine } from '../../app/engine-client'
import type { ReworkOutcome } from '../../worker/protocol'
import { perRunRequest } from './per-run'
import type { SliceCreator } from './types'

/** Re-work after compaction: fetched from the worker for the run the figures are about. */
export interface ReworkSlice {
  /**
   * The worker's answer for the run of `key` (`figuresRunOf`; engine `reworkAfterCompactions`: for
   * a simulated run one entry per simulated pass and per recorded compaction, for a recorded view
   * one per recorded compaction); null before the first answer.
   */
  rework: { key: string; outcome: ReworkOutcome } | null
  /** Asks the worker for the re-work of the run the figures are about unless it is held or in flight. */
  requestRework: () => void
}

export const createReworkSlice: SliceCreator<ReworkSlice> = (set, get) => ({
  rework: null,
  requestRework: perRunRequest(get, {
    skip: (run) => {
      const held = get().rework
      return !!held?.outcome.ok && held.key === run.key
    },
    ask: (run) => getEngine().getRework(run.view.runId, run.recorded),
    failed: (e): ReworkOutcome => ({ ok: false, error: e instanceof Error ? e.message : String(e) }),
    keep: (key, outcome) => set({ rework: { key, outcome } }),
  }),
})
