import { create } from 'zustand'
import { createLoadSlice } from './slices/load'
import { createPipelineSlice } from './slices/pipeline'
import { createRunSlice } from './slices/run'
import type { StoreState } from './slices/types'
import { createViewSlice } from './slices/view'

export type { StoreState } from './slices/types'

/** The one bound store of the app, built from typed slices. */
export const useStore = create<StoreState>()((...a) => ({
  ...createLoadSlice(...a),
  ...createPipelineSlice(...a),
  ...createRunSlice(...a),
  ...createViewSlice(...a),
}))
