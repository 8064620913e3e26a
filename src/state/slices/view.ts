import type { Side } from '../../worker/protocol'
import type { SliceCreator } from './types'

/** A selected row: its side and id. */
interface Selection {
  side: Side
  id: string
  /** Also scroll the selected row itself into view (selection made outside its column). */
  reveal?: boolean
}

/** Which main view is shown. */
export type MainTab = 'compare' | 'table' | 'facts' | 'timeline' | 'turn' | 'stages' | 'sweep'

/** View state worth sharing across components (high-frequency values stay local). */
export interface ViewSlice {
  selection: Selection | null
  tab: MainTab
  /** Selects a row (null clears); its counterpart(s) on the other side are revealed. */
  selectRow: (selection: Selection | null) => void
  setTab: (tab: MainTab) => void
}

export const createViewSlice: SliceCreator<ViewSlice> = (set, _get, _api, events) => {
  // The selected row was a row of the transcript before; the tab shown stays.
  events.on('transcriptChanged', () => set({ selection: null }))
  return {
    selection: null,
    tab: 'compare',
    selectRow: (selection) => set({ selection }),
    setTab: (tab) => set({ tab }),
  }
}
