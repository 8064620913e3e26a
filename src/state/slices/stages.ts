import { getEngine } from '../../app/engine-client'
import type { StageId } from '../../engine/model'
import { restoreBeforePreviews, type RunView } from '../../worker/protocol'
import { latestRequest } from '../latest'
import { fetchRowPages, ROW_PAGE } from './run'
import type { SliceCreator } from './types'

/**
 * Stage by stage: which stage's After the Stages view shows, and that After (the
 * worker's `runUpTo`: the pipeline's prefix up to the stage). `stageShown` null = the final After.
 * Follows the run shown: of a run as of a turn (`RunView.asOf`, playback) it is as of that turn.
 */
export interface StagesSlice {
  stageShown: StageId | null
  /** The After as of `stageShown`, for the run `stageViewOf` was asked for; null while fetching. */
  stageView: RunView | null
  /** Which run and stage `stageView` (or the fetch in flight) belongs to. */
  stageViewOf: { runId: number; stage: StageId } | null
  stageViewError: string | null
  /** Shows the After as of `stage` (null: the final After) and fetches it. */
  showStage: (stage: StageId | null) => void
  /**
   * Keeps the stage view in step with the last run: re-fetches after a re-run, and goes back to the
   * final After when the stage shown was switched off or removed. Cheap when nothing changed.
   */
  syncStageView: () => void
}

export const createStagesSlice: SliceCreator<StagesSlice> = (set, get) => {
  const fetches = latestRequest()

  const fetchView = (stage: StageId) => {
    const { run, config, apiKey } = get()
    if (!run || !config) return
    const ticket = fetches.next()
    set({ stageView: null, stageViewOf: { runId: run.runId, stage }, stageViewError: null })
    // A run as of a turn (playback) has its stage views as of the same turn.
    const asOf = run.asOf ? { asOfTurn: run.asOf.turn } : {}
    const whole = { ...(apiKey ? { apiKey } : {}), ...asOf }
    const options = { ...(run.transcriptKey ? { previewsOf: run.transcriptKey } : {}), ...whole }
    // Rows in pages, as a run's (`fetchRowPages`); whole again only when the pages are gone.
    const ask = (withPreviews: boolean, paged = true) =>
      getEngine().runUpTo(config, stage, run.runId, { ...(withPreviews ? whole : options), ...(paged ? { rowPage: ROW_PAGE } : {}) })
    const done = (patch: Partial<StagesSlice>) => {
      if (ticket.isLatest()) set(patch)
    }
    void (async () => {
      try {
        let outcome = await ask(false)
        if (outcome.ok && !(await fetchRowPages(outcome.view, 'stage'))) outcome = await ask(false, false)
        // The slim Before rows go with the run they were asked against.
        if (outcome.ok && !restoreBeforePreviews(outcome.view, get().run)) {
          outcome = await ask(true)
          if (outcome.ok && !(await fetchRowPages(outcome.view, 'stage'))) outcome = await ask(true, false)
        }
        if (outcome.ok) done({ stageView: outcome.view, stageViewError: null })
        else if (!outcome.cancelled) done({ stageViewError: outcome.error })
      } catch (e) {
        done({ stageViewError: e instanceof Error ? e.message : String(e) })
      }
    })()
  }

  return {
    stageShown: null,
    stageView: null,
    stageViewOf: null,
    stageViewError: null,
    showStage: (stage) => {
      if (stage === get().stageShown) return
      set({ stageShown: stage, selection: null })
      if (stage === null) {
        fetches.drop()
        set({ stageView: null, stageViewOf: null, stageViewError: null })
      } else fetchView(stage)
    },
    syncStageView: () => {
      const { stageShown, run, config, stageViewOf } = get()
      if (stageShown === null || !run) return
      const enabled = config?.stages.some((s) => s.id === stageShown && s.enabled) ?? false
      if (!enabled) {
        get().showStage(null)
        return
      }
      if (stageViewOf?.runId !== run.runId || stageViewOf.stage !== stageShown) fetchView(stageShown)
    },
  }
}
