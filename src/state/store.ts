import { create } from 'zustand'
import { createStoreEvents } from './events'
import { createCompareSlice } from './slices/compare'
import { createCostsSlice } from './slices/costs'
import { createExportSlice } from './slices/export'
import { createFactTableSlice } from './slices/fact-table'
import { createFactsSlice } from './slices/facts'
import { createFailureModesSlice } from './slices/failure-modes'
import { createLoadSlice } from './slices/load'
import { createPipelineSlice } from './slices/pipeline'
import { createPlaybackSlice } from './slices/playback'
import { createRecordedSlice } from './slices/recorded'
import { createReworkSlice } from './slices/rework'
import { createRunSlice } from './slices/run'
import { createStagesSlice } from './slices/stages'
import { createSummarizerSlice } from './slices/summarizer'
import { createSweepSlice } from './slices/sweep'
import { createTurnsSlice } from './slices/turns'
import type { SliceCreator, StoreState } from './slices/types'
import { createViewSlice } from './slices/view'

export type { StoreState } from './slices/types'

/** The whole store from its slices, all over one set of events; slices answer events in this order. */
const createSlices: SliceCreator<StoreState> = (...a) => ({
  ...createLoadSlice(...a),
  ...createPipelineSlice(...a),
  ...createRunSlice(...a),
  ...createViewSlice(...a),
  ...createRecordedSlice(...a),
  ...createExportSlice(...a),
  ...createSummarizerSlice(...a),
  ...createStagesSlice(...a),
  ...createFactsSlice(...a),
  ...createFactTableSlice(...a),
  ...createTurnsSlice(...a),
  ...createSweepSlice(...a),
  ...createCostsSlice(...a),
  ...createFailureModesSlice(...a),
  ...createReworkSlice(...a),
  ...createCompareSlice(...a),
  ...createPlaybackSlice(...a),
})

/**
 * The one bound store of the app, built from typed slices. The slices share one set of events
 * (`transcriptChanged`…), each answering with its own reset instead of writing the others' fields.
 */
export const useStore = create<StoreState>()((set, get, api) => createSlices(set, get, api, createStoreEvents()))
