import { getEngine } from '../../app/engine-client'
import type { FailureModeWarning } from '../../engine/model'
import { perRunRequest } from './per-run'
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

export const createFailureModesSlice: SliceCreator<FailureModesSlice> = (set, get) => ({
  failureModes: null,
  requestFailureModes: perRunRequest(get, {
    skip: (run) => !run.checks.failureModesPending || get().failureModes?.runId === run.runId,
    ask: (run) => getEngine().getFailureModes(run.runId),
    failed: () => null,
    keep: (runId, warnings) => set({ failureModes: { runId, warnings } }),
  }),
})
