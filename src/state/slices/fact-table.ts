import { getEngine } from '../../app/engine-client'
import type { FactRowsOutcome, FactRowsQuery, FactTableView, TranscriptInfo } from '../../worker/protocol'
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
   * The user's own facts to track ("watch this"), as typed (trimmed, each once), in the order
   * added: rows of kind `watched` at the top of the table. Kept across transcripts and in the link.
   */
  watchedFacts: string[]
  /** The `watchedFacts` the held `factTable` was made with. */
  factTableWatched: string[]
  /** Which After the held `factTable` judged facts against: the simulation's, or the agent's recorded one. */
  factTableAgainst: 'after' | 'recorded'
  /**
   * Asks the worker for the facts table of the current run, unless the table shown already
   * belongs to it (with the current `watchedFacts`) or that request is in flight. The version
   * held goes along, so a run that changed no fact's fate only relabels the table (nothing
   * recomputed, no rows sent).
   */
  requestFactTable: () => void
  /**
   * Rows `from`… (at most `count`) of the worker's facts table `version`, as `query` lists them,
   * and how many match: how the Facts tab lists a table too long to cross whole (its `rows` empty).
   */
  getFactRows: (version: number, query: FactRowsQuery, from: number, count: number) => Promise<FactRowsOutcome>
  /** Adds `text` (trimmed) to `watchedFacts` unless empty or already there, and asks for the table again. */
  watchFact: (text: string) => void
  /** Removes `text` from `watchedFacts` and asks for the table again. */
  unwatchFact: (text: string) => void
  /** Replaces `watchedFacts` (a link opened), each trimmed, empty ones and repeats dropped. */
  setWatchedFacts: (facts: readonly string[]) => void
}

/** `facts` trimmed, without empty ones and repeats, in order. */
function cleanWatched(facts: readonly string[]): string[] {
  return [...new Set(facts.map((f) => f.trim()).filter(Boolean))]
}

const sameList = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((x, i) => x === b[i])

export const createFactTableSlice: SliceCreator<FactTableSlice> = (set, get) => {
  // runId and watched facts of the request in flight
  let asked: { runId: number; watched: string[]; against: 'after' | 'recorded' } | null = null
  const againstNow = (): 'after' | 'recorded' => (get().afterMode === 'recorded' && get().recorded ? 'recorded' : 'after')

  const setWatched = (watchedFacts: string[]) => {
    if (sameList(watchedFacts, get().watchedFacts)) return
    set({ watchedFacts })
    get().requestFactTable()
  }

  return {
    factTable: null,
    factTableOf: null,
    factTableStatus: 'idle',
    factTableError: null,
    watchedFacts: [],
    factTableWatched: [],
    factTableAgainst: 'after',
    requestFactTable: () => {
      const runId = get().run?.runId
      const watched = get().watchedFacts
      // The Recorded After mode, once its view is in, judges the facts against what the agent kept.
      const against = againstNow()
      if (runId === undefined || (asked?.runId === runId && asked.watched === watched && asked.against === against)) return
      const held = get().factTable
      const sameWatched = sameList(get().factTableWatched, watched) && get().factTableAgainst === against
      if (held?.runId === runId && sameWatched && get().factTableStatus === 'done') return
      const request = { runId, watched, against }
      asked = request
      const of = get().info
      set({ factTableStatus: 'loading', factTableError: null })
      const done = () => {
        if (asked === request) asked = null
      }
      getEngine()
        // A table of another transcript or other watched facts is never reused: its version is not sent.
        .getFactTable(runId, get().factTableOf === of && sameWatched ? held?.version : undefined, watched, against)
        .then(
          (out) => {
            done()
            // A newer run (or watched list) arrived meanwhile: its own request follows.
            if (get().run?.runId !== runId || get().watchedFacts !== watched || againstNow() !== against) return
            if (!out.ok) set({ factTableStatus: 'error', factTableError: out.error })
            else if ('unchanged' in out) {
              const table = get().factTable
              if (table?.version === out.version) set({ factTable: { ...table, runId }, factTableStatus: 'done' })
              else get().requestFactTable()
            } else set({ factTable: out.table, factTableOf: of, factTableWatched: watched, factTableAgainst: against, factTableStatus: 'done' })
          },
          (e: unknown) => {
            done()
            set({ factTableStatus: 'error', factTableError: e instanceof Error ? e.message : String(e) })
          },
        )
    },
    getFactRows: (version, query, from, count) =>
      getEngine()
        .getFactRows(version, query, from, count)
        .catch((e: unknown) => ({ ok: false as const, error: e instanceof Error ? e.message : String(e) })),
    watchFact: (text) => setWatched(cleanWatched([...get().watchedFacts, text])),
    unwatchFact: (text) => setWatched(get().watchedFacts.filter((f) => f !== text)),
    setWatchedFacts: (facts) => setWatched(cleanWatched(facts)),
  }
}
