import { getEngine } from '../../app/engine-client'
import type { FailureModeWarning } from '../../engine/model'
import { perRunRequest } from './per-run'
import type { SliceCreator } from './types'

/**
 * The failure-mode warnings of the run the figures are about (`figuresRunOf`: the recorded view in
 * Recorded mode, else the simulated run), when its view left them for later
 * (`RunView.checks.failureModesPending`): the page shows the run first and asks the worker for
 * its warnings after (`EngineApi.getFailureModes`), so a re-plan of a long session is not held up
 * by the fact-based checks.
 */
export interface FailureModesSlice {
  /** The warnings the worker answered for the run of `key` (null: that run is no longer its last). */
  failureModes: { key: string; warnings: FailureModeWarning[] | null } | null
  /** Asks for the run's warnings unless its view carries them, they are held, or in flight. */
  requestFailureModes: () => void
}

export const createFailureModesSlice: SliceCreator<FailureModesSlice> = (set, get) => ({
  failureModes: null,
  requestFailureModes: perRunRequest(get, {
    skip: (run) => !run.view.checks.failureModesPending || get().failureModes?.key === run.key,
    ask: (run) => getEngine().getFailureModes(run.view.runId, run.recorded),
    failed: () => null,
    keep: (key, warnings) => set({ failureModes: { key, warnings } }),
  }),
})
