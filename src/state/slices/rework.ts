import { getEngine } from '../../app/engine-client'
import type { ReworkOutcome } from '../../worker/protocol'
import { perRunRequest } from './per-run'
import type { SliceCreator } from './types'

/** Re-work after compaction: fetched from the worker for the run shown. */
export interface ReworkSlice {
  /**
   * The worker's answer for the run `runId` (engine `reworkAfterCompactions`: one entry per simulated
   * pass and per recorded compaction); null before the first answer.
   */
  rework: ReworkOutcome | null
  /** Asks the worker for the current run's re-work unless it is held or in flight. */
  requestRework: () => void
}

export const createReworkSlice: SliceCreator<ReworkSlice> = (set, get) => ({
  rework: null,
  requestRework: perRunRequest(get, {
    skip: (run) => {
      const held = get().rework
      return !!held?.ok && held.runId === run.runId
    },
    ask: (run) => getEngine().getRework(run.runId),
    failed: (e): ReworkOutcome => ({ ok: false, error: e instanceof Error ? e.message : String(e) }),
    keep: (_, out) => set({ rework: out }),
  }),
})
