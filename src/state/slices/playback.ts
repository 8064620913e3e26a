import type { SliceCreator } from './types'

/** The playback speeds offered, as multiples of `PLAYBACK_STEP_MS`. */
export const PLAYBACK_SPEEDS = [0.5, 1, 2, 4] as const

/** One of `PLAYBACK_SPEEDS`. */
export type PlaybackSpeed = (typeof PLAYBACK_SPEEDS)[number]

/** How long (ms) a turn stays on screen at 1× once its run has arrived, before the next one is asked for. */
export const PLAYBACK_STEP_MS = 1500

/**
 * Playback: the session shown as of one turn — the page's run is the pipeline on the transcript's
 * prefix up to that turn's end (`RunOptions.asOfTurn`) — stepping turn by turn. Playing never
 * piles up work: the next turn is asked for only once the current turn's run has arrived and
 * stayed `PLAYBACK_STEP_MS / speed`; a setting changed meanwhile re-runs the current turn (the
 * run slice reads `playbackTurn` for every run).
 */
export interface PlaybackSlice {
  /** The turn (1-based) the page shows the session as of, or null when playback is off (the full run). */
  playbackTurn: number | null
  /** Whether playback advances by itself. */
  playing: boolean
  playbackSpeed: PlaybackSpeed
  /** Starts playback at `turn` (default 1), playing unless `play` is false; runs that turn. */
  startPlayback: (turn?: number, play?: boolean) => void
  /** Back to the full run: playback off, the whole transcript run again. */
  exitPlayback: () => void
  /** Shows the session as of `turn` (rounded, clamped to 1..T once T is known) and pauses. */
  seekPlayback: (turn: number) => void
  /** Moves `delta` turns (−1 back, +1 forward) from the turn shown and pauses. */
  stepPlayback: (delta: number) => void
  /** Play / pause; playing from the last turn starts again at turn 1. */
  togglePlaying: () => void
  setPlaybackSpeed: (speed: PlaybackSpeed) => void
}

/** The number of turns T, from the run shown when it is one of playback; null before the first arrives. */
function turnsOf(run: { asOf?: { turns: number } } | null): number | null {
  return run?.asOf?.turns ?? null
}

/** `turn` rounded and clamped to 1..`turns` (to 1.. when T is not known yet). */
function clampPlaybackTurn(turn: number, turns: number | null): number {
  const whole = Math.max(1, Math.round(Number.isFinite(turn) ? turn : 1))
  return turns === null ? whole : Math.min(whole, Math.max(1, turns))
}

export const createPlaybackSlice: SliceCreator<PlaybackSlice> = (set, get, api, events) => {
  let timer: ReturnType<typeof setTimeout> | undefined
  const stopTimer = () => {
    if (timer !== undefined) clearTimeout(timer)
    timer = undefined
  }
  const show = (turn: number, playing: boolean) => {
    stopTimer()
    set({ playbackTurn: clampPlaybackTurn(turn, turnsOf(get().run)), playing })
    if (get().info) get().requestRun()
  }

  /** While playing: once the current turn's run is shown, wait, then ask for the next turn. */
  const schedule = () => {
    const { playing, playbackTurn, run, runStatus, playbackSpeed } = get()
    if (!playing || playbackTurn === null || timer !== undefined) return
    if (runStatus === 'error') {
      set({ playing: false })
      return
    }
    if (runStatus !== 'done' || run?.asOf?.turn !== playbackTurn) return
    timer = setTimeout(() => {
      timer = undefined
      const s = get()
      if (!s.playing || s.playbackTurn !== playbackTurn) return
      const turns = turnsOf(s.run)
      if (turns !== null && playbackTurn >= turns) set({ playing: false })
      else show(playbackTurn + 1, true)
    }, PLAYBACK_STEP_MS / playbackSpeed)
  }

  api.subscribe((state, prev) => {
    // The worker clamps a turn past the end (a link's `turn=99`): the slice follows it.
    const asOf = state.run?.asOf
    if (state.run !== prev.run && asOf && state.playbackTurn !== null && state.playbackTurn > asOf.turns) {
      set({ playbackTurn: asOf.turns })
      return
    }
    if (
      state.run !== prev.run ||
      state.runStatus !== prev.runStatus ||
      state.playing !== prev.playing ||
      state.playbackTurn !== prev.playbackTurn
    ) {
      schedule()
    }
  })

  // Another transcript: playback ends (its turns were of the transcript before).
  events.on('transcriptChanged', () => {
    stopTimer()
    set({ playbackTurn: null, playing: false })
  })

  return {
    playbackTurn: null,
    playing: false,
    playbackSpeed: 1,
    startPlayback: (turn = 1, play = true) => show(turn, play),
    exitPlayback: () => {
      stopTimer()
      if (get().playbackTurn === null) return
      set({ playbackTurn: null, playing: false })
      if (get().info) get().requestRun()
    },
    seekPlayback: (turn) => {
      if (get().playbackTurn === null) return
      show(turn, false)
    },
    stepPlayback: (delta) => {
      const at = get().playbackTurn
      if (at === null) return
      const next = clampPlaybackTurn(at + delta, turnsOf(get().run))
      if (next === at) set({ playing: false })
      else show(next, false)
    },
    togglePlaying: () => {
      const { playing, playbackTurn, run } = get()
      if (playbackTurn === null) return
      if (playing) {
        stopTimer()
        set({ playing: false })
        return
      }
      const turns = turnsOf(run)
      if (turns !== null && playbackTurn >= turns) show(1, true)
      else set({ playing: true })
    },
    setPlaybackSpeed: (speed) => {
      // The wait in progress was for the old speed: start it again at the new one.
      stopTimer()
      set({ playbackSpeed: speed })
      schedule()
    },
  }
}
