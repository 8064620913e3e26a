import { getEngine } from '../../app/engine-client'
import type { FactTableView, TranscriptInfo } from '../../worker/protocol'
import type { SliceCreator } from './types'

/** `loading` while the worker builds the table (the previous table stays shown meanwhile). */
type FactTableStatus = 'idle' | 'loading' | 'done' | 'error'

/** The facts table: built in the worker on request, for the run shown. */
export interface FactTableSlice {
  /** The last table received; its `runId` says which run it belongs to. */
  factTable: FactTableView | null
  /** The `info` of the import `factTable` was made for (views show it only for that transcript). */
  factTableOf: TranscriptInfo | null
  factTableStatus: FactTableStatus
  factTableError: string | null
  /**
   * Asks the worker for the facts table of the current run, unless the table shown already
   * belongs to it or that request is in flight. The version held goes along, so a run that
   * changed no fact's fate only relabels the table (nothing recomputed, no rows sent).
   */
  requestFactTable: () => void
}

export const createFactTableSlice: SliceCreator<FactTableSlice> = (set, get) => {
  let asked: number | null = null // runId of the request in flight

  return {
    factTable: null,
    factTableOf: null,
    factTableStatus: 'idle',
    factTableError: null,
    requestFactTable: () => {
      const runId = get().run?.runId
      if (runId === undefined || asked === runId) return
      const held = get().factTable
      if (held?.runId === runId && get().factTableStatus === 'done') return
      asked = runId
      const of = get().info
      set({ factTableStatus: 'loading', factTableError: null })
      const done = () => {
        if (asked === runId) asked = null
      }
      getEngine()
        // A table of another transcript is never reused: its version is not sent.
        .getFactTable(runId, get().factTableOf === of ? held?.version : undefined)
        .then(
          (out) => {
            done()
            // A newer run arrived meanwhile: its own request follows (the view asks per run).
            if (get().run?.runId !== runId) return
            if (!out.ok) set({ factTableStatus: 'error', factTableError: out.error })
            else if ('unchanged' in out) {
              const table = get().factTable
              if (table?.version === out.version) set({ factTable: { ...table, runId }, factTableStatus: 'done' })
              else get().requestFactTable()
            } else set({ factTable: out.table, factTableOf: of, factTableStatus: 'done' })
          },
          (e: unknown) => {
            done()
            set({ factTableStatus: 'error', factTableError: e instanceof Error ? e.message : String(e) })
          },
        )
    },
  }
}
