import { proxy } from 'comlink'
import { getEngine } from '../../app/engine-client'
import type { RequestShape } from '../../engine/analysis/turns'
import type { TimelineView, TranscriptInfo, TurnView } from '../../worker/protocol'
import { latestRequest } from '../latest'
import type { SliceCreator } from './types'

/**
 * Context at turn N and the token timeline. Both are computed
 * in the worker; "latest request wins" (older answers are dropped by id, and the worker cancels
 * the older computation).
 */
export interface TurnsSlice {
  /** The turn the scrubber is on (1-based); null = the last turn. */
  turn: number | null
  turnView: TurnView | null
  /** The `info` of the import `turnView` was made for. */
  turnViewOf: TranscriptInfo | null
  turnStatus: 'idle' | 'loading' | 'done' | 'error'
  turnError: string | null
  timeline: TimelineView | null
  /** The `info` of the import `timeline` was made for. */
  timelineOf: TranscriptInfo | null
  timelineStatus: 'idle' | 'running' | 'done' | 'error'
  timelineError: string | null
  /** Moves the scrubber (clamped to 1..T by the worker) and asks for that turn's context. */
  setTurn: (turn: number) => void
  /** Asks for the context at the current turn with the current config. */
  requestTurn: () => void
  /** Asks for the token timeline with the current config (a newer request supersedes it). */
  requestTimeline: () => void
  /** Timeline click: puts the scrubber on `turn`, reveals the turn's last message and opens the turn view. */
  showTurn: (turn: number) => void
  /** The context at the current turn as a request body (JSON text), for the clipboard. */
  turnRequestText: (shape: RequestShape) => Promise<{ ok: true; text: string } | { ok: false; error: string }>
}

export const createTurnsSlice: SliceCreator<TurnsSlice> = (set, get) => {
  const turnRequests = latestRequest()
  const timelineRequests = latestRequest()
  return {
    turn: null,
    turnView: null,
    turnViewOf: null,
    turnStatus: 'idle',
    turnError: null,
    timeline: null,
    timelineOf: null,
    timelineStatus: 'idle',
    timelineError: null,
    setTurn: (turn) => {
      set({ turn: Math.max(1, Math.round(turn)) })
      get().requestTurn()
    },
    requestTurn: () => {
      const config = get().config
      if (!config || !get().info) return
      const ticket = turnRequests.next()
      const of = get().info
      set({ turnStatus: 'loading' })
      const wanted = get().turn ?? Number.MAX_SAFE_INTEGER
      getEngine()
        .getTurnContext(config, wanted, ticket.id)
        .then(
          (outcome) => {
            if (!ticket.isLatest()) return
            if (outcome.ok) set({ turnView: outcome.view, turnViewOf: of, turnStatus: 'done', turnError: null })
            else if (!outcome.cancelled) set({ turnStatus: 'error', turnError: outcome.error })
          },
          (e: unknown) => {
            if (ticket.isLatest()) set({ turnStatus: 'error', turnError: String(e) })
          },
        )
    },
    requestTimeline: () => {
      const config = get().config
      if (!config || !get().info) return
      const ticket = timelineRequests.next()
      const of = get().info
      set({ timelineStatus: 'running' })
      const onProgress = proxy((view: TimelineView) => {
        if (!ticket.isLatest()) return
        // A finished timeline of the same transcript stays until the new one finishes: the chart
        // never falls back to a coarse partial (the caption says it is updating).
        const shown = get().timelineOf === of ? get().timeline : null
        if (!shown?.done || shown.turns !== view.turns) set({ timeline: view, timelineOf: of })
      })
      getEngine()
        .runTimeline(config, ticket.id, onProgress)
        .then(
          (outcome) => {
            if (!ticket.isLatest()) return
            if (outcome.ok) set({ timeline: outcome.view, timelineOf: of, timelineStatus: 'done', timelineError: null })
            else if (!outcome.cancelled) set({ timelineStatus: 'error', timelineError: outcome.error })
          },
          (e: unknown) => {
            if (ticket.isLatest()) set({ timelineStatus: 'error', timelineError: String(e) })
          },
        )
    },
    showTurn: (turn) => {
      const end = get().timelineOf === get().info ? get().timeline?.endIndex[turn - 1] : undefined
      const row = end === undefined ? undefined : get().run?.before.rows[end]
      if (row) get().selectRow({ side: 'before', id: row.id, reveal: true })
      set({ tab: 'turn' })
      get().setTurn(turn)
    },
    turnRequestText: async (shape) => {
      const config = get().config
      if (!config) return { ok: false, error: 'no pipeline yet' }
      const held = get().turnViewOf === get().info ? get().turnView : null
      const turn = held?.turn ?? get().turn ?? Number.MAX_SAFE_INTEGER
      const outcome = await getEngine().turnRequestBody(config, turn, shape)
      return outcome.ok ? { ok: true, text: outcome.text } : { ok: false, error: outcome.error }
    },
  }
}
