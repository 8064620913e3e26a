import { getEngine } from '../../app/engine-client'
import type { PipelineConfig } from '../../engine/model'
import type { CompareOutcome } from '../../worker/protocol'
import type { SliceCreator } from './types'

/** One side of a side-by-side comparison: what it is called, the config it ran, the worker's answer. */
export interface ComparisonSide {
  /** A preset's name, or "Current settings". */
  label: string
  /** The preset's id when the side is one (a side of the page's own settings may be none). */
  presetId?: string
  config: PipelineConfig
  /** Null while the worker runs it. */
  outcome: CompareOutcome | null
}

/** Two configs over the open transcript, side by side (`EngineApi.compareRun` for each). */
interface PresetComparison {
  /** Bumped by every new comparison: answers of an older one are dropped. */
  id: number
  sides: [ComparisonSide, ComparisonSide]
}

/** The side-by-side preset comparison; cleared when another transcript opens. */
export interface CompareSlice {
  comparison: PresetComparison | null
  /** Runs both sides in the worker (apart from the page's run) and shows them as their answers come. */
  compareConfigs: (sides: readonly [Omit<ComparisonSide, 'outcome'>, Omit<ComparisonSide, 'outcome'>]) => void
  closeComparison: () => void
}

export const createCompareSlice: SliceCreator<CompareSlice> = (set, get, _api, events) => {
  let made = 0
  events.on('transcriptChanged', () => {
    made++
    set({ comparison: null })
  })
  return {
    comparison: null,
    compareConfigs: (sides) => {
      if (!get().info) return
      const id = ++made
      set({ comparison: { id, sides: [{ ...sides[0], outcome: null }, { ...sides[1], outcome: null }] } })
      sides.forEach((side, i) => {
        const answer = (outcome: CompareOutcome) => {
          const current = get().comparison
          if (!current || current.id !== id) return
          const next = [...current.sides] as PresetComparison['sides']
          next[i] = { ...next[i]!, outcome }
          set({ comparison: { id, sides: next } })
        }
        getEngine()
          .compareRun(side.config)
          .then(answer, (e: unknown) => answer({ ok: false, error: e instanceof Error ? e.message : String(e) }))
      })
    },
    closeComparison: () => {
      made++
      set({ comparison: null })
    },
  }
}
