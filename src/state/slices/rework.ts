import { getEngine } from '../../app/engine-client'
import type { ReworkOutcome } from '../../worker/protocol'
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

export const createReworkSlice: SliceCreator<ReworkSlice> = (set, get) => {
  let asked: number | null = null // runId of the request in flight

  return {
    rework: null,
    requestRework: () => {
      const run = get().run
      const held = get().rework
      if (!run || asked === run.runId || (held?.ok && held.runId === run.runId)) return
      const runId = run.runId
      asked = runId
      const answer = (out: ReworkOutcome) => {
        if (asked === runId) asked = null
        // A newer run arrived meanwhile: its own request follows (the view asks per run).
        if (get().run?.runId === runId) set({ rework: out })
      }
      getEngine()
        .getRework(runId)
        .then(answer, (e: unknown) => answer({ ok: false, error: e instanceof Error ? e.message : String(e) }))
    },
  }
}
