import { useEffect, useMemo } from 'react'
import { Segmented } from '../../components/Segmented'
import { shortcutFor } from '../../app/shortcuts'
import { useConfig, useInfo, usePlayback, useRun, useTimeline } from '../../state/hooks'
import { PLAYBACK_SPEEDS, type PlaybackSpeed } from '../../state/slices/playback'
import { firedAtTurn } from './announce'
import { startTurnSync } from './url'
import './playback.css'

const SPEED_OPTIONS = PLAYBACK_SPEEDS.map((s) => ({ value: String(s), label: `${s}×` }))

/**
 * Playback of the session turn by turn: a "▶ Play" button while it is off; while it is on, the bar
 * with play / pause, step, first / last, the turn slider, the speed and Exit, the context so far as
 * a strip, and a live status line that announces each pass as the turn it fired at is reached
 * (worded by `firedAtTurn`). The page around it shows the run as of the turn (the run slice asks
 * for it). Keeps the turn in the URL (`&turn=`) and answers the playback shortcuts (`p` also
 * starts playback while it is off). In presentation mode the bar stays, compact (playback.css).
 */
export function Playback() {
  const playback = usePlayback()
  const off = playback.playbackTurn === null
  const { startPlayback } = playback
  useEffect(() => startTurnSync(), [])
  // While playback is off, `p` starts it (the bar's own handler takes the key once it is on): the
  // way in from presentation mode, where the ▶ Play button is hidden.
  useEffect(() => {
    if (!off) return
    const onKeyDown = (e: KeyboardEvent) => {
      if (shortcutFor(e, e.target instanceof Element ? (e.target as HTMLElement) : null) !== 'playback-toggle') return
      e.preventDefault()
      startPlayback()
    }
    document.addEventListener('keydown', onKeyDown, true)
    return () => document.removeEventListener('keydown', onKeyDown, true)
  }, [off, startPlayback])
  if (off) {
    return (
      <button
        type="button"
        className="button button--small playback-start"
        data-testid="playback-start"
        title="Play the session turn by turn: the context growing, each compaction as it fires (p)"
        onClick={() => playback.startPlayback()}
      >
        ▶ Play
      </button>
    )
  }
  return <PlaybackBar />
}

function PlaybackBar() {
  const { playbackTurn, playing, playbackSpeed, exitPlayback, seekPlayback, stepPlayback, togglePlaying, setPlaybackSpeed } = usePlayback()
  const { run, runStatus } = useRun()
  const turn = playbackTurn ?? 1
  const asOf = run?.asOf
  const turns = asOf?.turns ?? null
  const computing = runStatus === 'running' || asOf?.turn !== turn
  const announcement = computing ? null : firedAtTurn(run)

  useEffect(() => {
    const onKeyDown = (e: KeyboardEvent) => {
      const action = shortcutFor(e, e.target instanceof Element ? (e.target as HTMLElement) : null)
      if (action === 'playback-toggle') togglePlaying()
      else if (action === 'playback-back') stepPlayback(-1)
      else if (action === 'playback-forward') stepPlayback(1)
      else return
      e.preventDefault()
    }
    // Capture: the playback keys are taken before any page-wide handler reads the event.
    document.addEventListener('keydown', onKeyDown, true)
    return () => document.removeEventListener('keydown', onKeyDown, true)
  }, [togglePlaying, stepPlayback])

  const readout = `Turn ${turn} of ${turns ?? '…'}`
  return (
    <section className="playback" aria-label="Playback" data-testid="playback-bar" data-turn={turn} data-turns={turns ?? ''} data-playing={playing}>
      <div className="playback__controls">
        <button type="button" className="button button--small" aria-label="First turn" title="First turn" onClick={() => seekPlayback(1)} disabled={turn <= 1}>
          {/* ⏮ and ⏭ are missing from common fonts (a box on Linux): drawn from ▶ ◀ and a bar. */}
          <span aria-hidden="true">|◀</span>
        </button>
        <button type="button" className="button button--small" aria-label="Step back" title="Step back (,)" onClick={() => stepPlayback(-1)} disabled={turn <= 1}>
          ◀
        </button>
        <button type="button" className="button button--small button--primary playback__play" data-testid="playback-toggle" onClick={togglePlaying} title="Play / pause (p)">
          {playing ? '❚❚ Pause' : '▶ Play'}
        </button>
        <button
          type="button"
          className="button button--small"
          aria-label="Step forward"
          title="Step forward (.)"
          onClick={() => stepPlayback(1)}
          disabled={turns !== null && turn >= turns}
        >
          ▶
        </button>
        <button
          type="button"
          className="button button--small"
          aria-label="Last turn"
          title="Last turn"
          onClick={() => turns !== null && seekPlayback(turns)}
          disabled={turns === null || turn >= turns}
        >
          <span aria-hidden="true">▶|</span>
        </button>
        <input
          type="range"
          className="playback__slider"
          aria-label="Turn"
          aria-valuetext={readout}
          min={1}
          max={turns ?? turn}
          step={1}
          value={turn}
          onChange={(e) => seekPlayback(Number(e.target.value))}
        />
        <span className="playback__readout" data-testid="playback-readout">
          {readout}
        </span>
        <Segmented
          label="Playback speed"
          options={SPEED_OPTIONS}
          value={String(playbackSpeed)}
          onChange={(v) => setPlaybackSpeed(Number(v) as PlaybackSpeed)}
        />
        <span className="playback__computing muted" data-testid="playback-computing" data-computing={computing}>
          {computing ? `computing turn ${turn}…` : ''}
        </span>
        <span className="msg__spacer" />
        <button type="button" className="button button--small" data-testid="playback-exit" onClick={exitPlayback} title="Back to the run over the whole session">
          Exit playback
        </button>
      </div>
      <GrowthStrip turn={asOf?.turn ?? null} />
      <p className="playback__status" role="status" aria-live="polite" data-testid="playback-status">
        {announcement ?? ''}
      </p>
    </section>
  )
}

/** Strip size (SVG user units; it stretches to the bar's width). */
const STRIP_W = 600
const STRIP_H = 36

/**
 * The context so far: the timeline's tokens per turn before (grey) and after compaction (accent)
 * for turns 1..`turn` on the whole session's turn axis, a cursor at `turn`, a tick at each pass
 * reached. Reads the token timeline, asked for when the bar opens and whenever the settings change.
 */
function GrowthStrip({ turn }: { turn: number | null }) {
  const { timeline, timelineOf, requestTimeline } = useTimeline()
  const info = useInfo()
  const config = useConfig()
  const held = timelineOf === info ? timeline : null
  // The timeline depends on the settings, not on the turn shown: asked again only when they change.
  useEffect(() => {
    requestTimeline()
  }, [config, info, requestTimeline])
  const paths = useMemo(() => {
    if (!held || turn === null || held.turns === 0) return null
    let peak = 1
    for (const v of held.before) peak = Math.max(peak, v)
    const x = (t: number) => (held.turns <= 1 ? STRIP_W : ((t - 1) / (held.turns - 1)) * STRIP_W)
    const y = (v: number) => STRIP_H - 2 - (v / peak) * (STRIP_H - 4)
    const line = (values: readonly (number | null)[]) =>
      values
        .slice(0, turn)
        .map((v, i) => (v === null || v === undefined ? null : `${x(i + 1).toFixed(1)},${y(v).toFixed(1)}`))
        .filter((p): p is string => p !== null)
        .join(' ')
    return {
      before: line(held.before),
      after: line(held.after),
      cursor: x(turn),
      passes: held.passes.filter((p) => p.turn <= turn).map((p) => x(p.turn)),
    }
  }, [held, turn])
  if (!paths) return <div className="playback__strip playback__strip--empty" aria-hidden="true" />
  return (
    <svg
      className="playback__strip"
      data-testid="playback-strip"
      viewBox={`0 0 ${STRIP_W} ${STRIP_H}`}
      preserveAspectRatio="none"
      role="img"
      aria-label={`Context tokens per turn up to turn ${turn}, before and after compaction`}
    >
      {paths.passes.map((px, i) => (
        <line key={i} className="playback__strip-pass" x1={px} x2={px} y1={0} y2={STRIP_H} />
      ))}
      <polyline className="playback__strip-before" points={paths.before} />
      <polyline className="playback__strip-after" points={paths.after} />
      <line className="playback__strip-cursor" data-testid="playback-cursor" x1={paths.cursor} x2={paths.cursor} y1={0} y2={STRIP_H} />
    </svg>
  )
}
