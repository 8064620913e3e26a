import { getEngine } from '../../app/engine-client'
import type { FactSearch, Side } from '../../worker/protocol'
import { latestRequest } from '../latest'
import type { SliceCreator } from './types'

/** Wait after the last keystroke before the worker searches (ms). */
export const FACT_SEARCH_DEBOUNCE_MS = 150

/** One match of the finder's walk: a row holding the fact. */
export interface FactMatch {
  side: Side
  rowId: string
  count: number
}

/**
 * The rows a search matched, in the order next/previous walks them: every Before row in column
 * order, then every row of the After searched (the simulated one, or the recorded one:
 * `search.against`), one stop per message, not per occurrence, so each stop is a row the
 * virtualized column can scroll to.
 */
export function factWalk(search: FactSearch | null): FactMatch[] {
  if (!search) return []
  const after: Side = search.against === 'recorded' ? 'recorded' : 'after'
  return [
    ...search.before.rows.map((r) => ({ side: 'before' as const, rowId: r.rowId, count: r.count })),
    ...search.after.rows.map((r) => ({ side: after, rowId: r.rowId, count: r.count })),
  ]
}

/** The fact finder: what is searched, the worker's answer, the current match. */
export interface FactsSlice {
  /** The finder's input text. */
  factQuery: string
  /** Whether `factQuery` is a regular expression source. */
  factRegex: boolean
  /** The worker's answer for the current query and the run shown; null when none. */
  factSearch: FactSearch | null
  /** Why the current query has no answer (invalid regex…), or null. */
  factError: string | null
  /** Position of the current match in `factWalk(factSearch)`, or -1. */
  factCursor: number
  /**
   * Sets the query; the worker searches `FACT_SEARCH_DEBOUNCE_MS` after the last call, or at
   * once with `immediate` (a clicked fact). `regex` switches the mode too.
   */
  setFactQuery: (query: string, options?: { immediate?: boolean; regex?: boolean }) => void
  /** Switches between string and regex search and searches again. */
  setFactRegex: (regex: boolean) => void
  /** Searches the current query again (a new run arrived: the verdict follows the settings). */
  refreshFactSearch: () => void
  /** Moves to the next (+1) or previous (−1) match, wrapping, and selects its row. */
  stepFactMatch: (delta: 1 | -1) => void
}

export const createFactsSlice: SliceCreator<FactsSlice> = (set, get) => {
  let timer: ReturnType<typeof setTimeout> | undefined
  const searches = latestRequest()

  const selectMatch = (cursor: number, search: FactSearch | null) => {
    const match = factWalk(search)[cursor]
    if (match) get().selectRow({ side: match.side, id: match.rowId, reveal: true })
  }

  const search = async () => {
    clearTimeout(timer)
    timer = undefined
    const ticket = searches.next()
    const { factQuery: query, factRegex: regex } = get()
    if (query === '' || !get().run) {
      set({ factSearch: null, factError: null, factCursor: -1 })
      return
    }
    let outcome
    try {
      // The Recorded After mode judges the fact against what the agent itself kept; Recorded vs
      // simulated judges it against both.
      const mode = get().afterMode
      outcome = await getEngine().searchFact(query, regex, mode === 'recorded' ? 'recorded' : mode === 'versus' ? 'versus' : 'after')
    } catch (e) {
      outcome = { ok: false as const, error: e instanceof Error ? e.message : String(e) }
    }
    if (!ticket.isLatest()) return
    if (!outcome.ok) {
      set({ factSearch: null, factError: outcome.error, factCursor: -1 })
      return
    }
    const previous = get().factSearch
    const next = outcome.search
    const walk = factWalk(next)
    if (previous && previous.query === next.query && previous.regex === next.regex) {
      // Same query, new run: stay on the same row when it still matches, without scrolling.
      const current = factWalk(previous)[get().factCursor]
      const kept = current ? walk.findIndex((m) => m.side === current.side && m.rowId === current.rowId) : -1
      set({ factSearch: next, factError: null, factCursor: kept >= 0 ? kept : walk.length > 0 ? 0 : -1 })
      return
    }
    // A new query: go to its first match, as a browser's find does.
    set({ factSearch: next, factError: null, factCursor: walk.length > 0 ? 0 : -1 })
    selectMatch(0, next)
  }

  return {
    factQuery: '',
    factRegex: false,
    factSearch: null,
    factError: null,
    factCursor: -1,
    setFactQuery: (query, options = {}) => {
      set(options.regex === undefined ? { factQuery: query } : { factQuery: query, factRegex: options.regex })
      clearTimeout(timer)
      if (options.immediate || query === '') void search()
      else timer = setTimeout(() => void search(), FACT_SEARCH_DEBOUNCE_MS)
    },
    setFactRegex: (regex) => {
      set({ factRegex: regex })
      void search()
    },
    refreshFactSearch: () => {
      if (get().factQuery !== '') void search()
      else if (get().factSearch) set({ factSearch: null, factCursor: -1 })
    },
    stepFactMatch: (delta) => {
      const walk = factWalk(get().factSearch)
      if (walk.length === 0) return
      const at = get().factCursor
      const cursor = at < 0 ? (delta > 0 ? 0 : walk.length - 1) : (at + delta + walk.length) % walk.length
      set({ factCursor: cursor })
      selectMatch(cursor, get().factSearch)
    },
  }
}
