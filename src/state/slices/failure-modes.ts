import { getEngine } from '../../app/engine-client'
import type { FailureModeWarning } from '../../engine/model'
import type { SliceCreator } from './types'

/**
 * The failure-mode warnings of the run shown, when its view left them for later
 * (`RunView.checks.failureModesPending`): the page shows the run first and asks the worker for
 * its warnings after (`EngineApi.getFailureModes`), so a re-plan of a long session is not held up
 * by the fact-based checks.
 */
export interface FailureModesSlice {
  /** The warnings the worker answered for run `runId` (null: that run is no longer its last). */
  failureModes: { runId: number; warnings: FailureModeWarning[] | null } | null
  /** Asks for the shown run's warnings unless its view carries them, they are held, or in flight. */
  requestFailureModes: () => void
}

export const createFailureModesSlice: SliceCreator<FailureModesSlice> = (set, get) => {
  let asked: number | null = null // runId of the request in flight

  return {
    failureModes: null,
    requestFailureModes: () => {
      const run = get().run
      if (!run?.checks.failureModesPending || asked === run.runId || get().failureModes?.runId === run.runId) return
      const runId = run.runId
      asked = runId
      const answer = (warnings: FailureModeWarning[] | null) => {
        if (asked === runId) asked = null
        // A newer run arrived meanwhile: the view asks again for that one.
        if (get().run?.runId === runId) set({ failureModes: { runId, warnings } })
      }
      getEngine()
        .getFailureModes(runId)
        .then(answer, () => answer(null))
    },
  }
}
