import { hashEntry, hashWithEntry } from '../pipeline/url-config'
import { useStore } from '../../state/store'

/** The hash key of the playback turn: `#cfg=…&turn=7`. */
const TURN_KEY = 'turn'

/** The playback turn of a location hash (its `turn` entry, a whole number ≥ 1), or null when it has none or it is malformed. */
export function turnFromHash(hash: string): number | null {
  const value = hashEntry(hash, TURN_KEY)
  if (value === null || !/^\d+$/.test(value)) return null
  const turn = Number(value)
  return turn >= 1 && Number.isSafeInteger(turn) ? turn : null
}

/** `hash` with its `turn` entry set to `turn`, or without one for null; other entries stay in place. */
export function hashWithTurn(hash: string, turn: number | null): string {
  return hashWithEntry(hash, TURN_KEY, turn === null ? null : String(turn))
}

/**
 * Keeps the playback turn in the URL hash (`&turn=7`, written with `history.replaceState`, no
 * history entries) and back: a hash with `turn=` when this starts, or pasted later, starts
 * playback paused at that turn; leaving playback removes the entry. Returns the stop function
 * (for a React effect).
 */
export function startTurnSync(): () => void {
  const fromHash = () => {
    const turn = turnFromHash(window.location.hash)
    const { playbackTurn, startPlayback, seekPlayback } = useStore.getState()
    if (turn === null || turn === playbackTurn) return
    if (playbackTurn === null) startPlayback(turn, false)
    else seekPlayback(turn)
  }
  const unsubscribe = useStore.subscribe((state, prev) => {
    if (state.playbackTurn === prev.playbackTurn) return
    const next = hashWithTurn(window.location.hash, state.playbackTurn)
    if (next !== window.location.hash) window.history.replaceState(window.history.state, '', next || window.location.pathname + window.location.search)
  })
  fromHash()
  window.addEventListener('hashchange', fromHash)
  return () => {
    unsubscribe()
    window.removeEventListener('hashchange', fromHash)
  }
}
