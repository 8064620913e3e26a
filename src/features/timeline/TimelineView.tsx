import { useEffect, useMemo, useRef, useState } from 'react'
import uPlot from 'uplot'
import 'uplot/dist/uPlot.min.css'
import { formatCount, formatCountOf } from '../../components/format'
import { passName } from '../../components/kinds'
import { shownResult } from '../../state/selectors'
import { useConfig, useInfo, useRunId, useTimeline } from '../../state/hooks'
import type { TimelineView as Timeline } from '../../worker/protocol'
import { showTurnMarkers } from './chart-options'
import './timeline.css'

const COLORS = {
  before: 'rgb(100, 116, 139)',
  after: 'rgb(79, 70, 229)',
  pass: 'rgba(124, 58, 237, 0.55)',
  compactAfter: 'rgba(91, 99, 115, 0.8)',
  limit: 'rgb(180, 35, 24)',
  'prune-tool-results': 'rgb(180, 83, 9)',
  'insert-then-compress': 'rgb(190, 24, 93)',
  summarize: 'rgb(124, 58, 237)',
}

/** A horizontal token level drawn on the chart. */
interface Level {
  key: string
  label: string
  tokens: number
  color: string
}

function levelsOf(timeline: Timeline, limit: number): Level[] {
  const levels: Level[] = [{ key: 'limit', label: 'context limit', tokens: limit, color: COLORS.limit }]
  for (const t of timeline.thresholds) {
    if (t.kind !== 'tokens') continue
    levels.push({ key: `${t.stage}:${t.param}`, label: `${t.stage} ${t.param}`, tokens: t.tokens, color: COLORS[t.stage] })
  }
  return levels
}

/** The y range: the data, and each level unless it is far above the data (then the legend says so). */
function yMax(timeline: Timeline, levels: Level[]): number {
  let peak = 0
  for (const v of timeline.before) peak = Math.max(peak, v)
  let max = peak
  for (const l of levels) if (l.tokens <= peak * 3) max = Math.max(max, l.tokens)
  return Math.max(1, max * 1.08)
}

interface Hover {
  turn: number
  before: number
  after: number | null
}

/** The uPlot chart: before vs after per turn, pass markers, thresholds; hover reads out, click opens the turn. */
function Chart({ timeline, levels, onHover, onPick }: {
  timeline: Timeline
  levels: Level[]
  onHover: (hover: Hover | null) => void
  onPick: (turn: number) => void
}) {
  const host = useRef<HTMLDivElement>(null)
  // The plot outlives renders: its hooks read the latest callbacks through this ref.
  const handlers = useRef({ onHover, onPick })
  useEffect(() => {
    handlers.current = { onHover, onPick }
  }, [onHover, onPick])

  useEffect(() => {
    const el = host.current
    if (!el) return
    const turns = timeline.before.map((_, i) => i + 1)
    const data: uPlot.AlignedData = [turns, timeline.before, timeline.after]
    const top = yMax(timeline, levels)
    const compactAfter = timeline.thresholds.find((t) => t.kind === 'messages')
    const markerTurn = compactAfter?.kind === 'messages' ? compactAfter.turn : null
    const draw = (u: uPlot) => {
      const ctx = u.ctx
      const { left, top: y0, width, height } = u.bbox
      ctx.save()
      ctx.lineWidth = Math.max(1, devicePixelRatio)
      for (const p of timeline.passes) {
        const x = u.valToPos(p.turn, 'x', true)
        ctx.strokeStyle = COLORS.pass
        ctx.beginPath()
        ctx.moveTo(x, y0)
        ctx.lineTo(x, y0 + height)
        ctx.stroke()
      }
      if (markerTurn !== null) {
        const x = u.valToPos(markerTurn, 'x', true)
        ctx.strokeStyle = COLORS.compactAfter
        ctx.setLineDash([6 * devicePixelRatio, 4 * devicePixelRatio])
        ctx.beginPath()
        ctx.moveTo(x, y0)
        ctx.lineTo(x, y0 + height)
        ctx.stroke()
      }
      for (const l of levels) {
        if (l.tokens > top) continue
        const y = u.valToPos(l.tokens, 'y', true)
        ctx.strokeStyle = l.color
        ctx.setLineDash(l.key === 'limit' ? [] : [4 * devicePixelRatio, 4 * devicePixelRatio])
        ctx.beginPath()
        ctx.moveTo(left, y)
        ctx.lineTo(left + width, y)
        ctx.stroke()
      }
      ctx.restore()
    }
    const markers = showTurnMarkers(timeline.turns)
    const plot = new uPlot(
      {
        width: Math.max(320, el.clientWidth || 720),
        height: 300,
        legend: { show: false },
        cursor: { drag: { x: false, y: false }, points: { size: 7 } },
        scales: {
          x: { time: false, range: [1, Math.max(2, timeline.turns)] },
          y: { range: () => [0, top] },
        },
        axes: [
          // Turns are whole numbers: only integer ticks.
          { label: 'turn', size: 40, labelSize: 16, incrs: [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000] },
          { values: (_u, splits) => splits.map((v) => formatCount(v)), size: 70 },
        ],
        series: [
          {},
          { label: 'before', stroke: COLORS.before, width: 1.5, points: { show: markers, size: 5 } },
          {
            label: 'after',
            stroke: COLORS.after,
            fill: 'rgba(79, 70, 229, 0.08)',
            width: 2,
            spanGaps: true,
            points: { show: markers, size: 6 },
          },
        ],
        hooks: {
          draw: [draw],
          setCursor: [
            (u) => {
              const idx = u.cursor.idx
              if (idx === null || idx === undefined) handlers.current.onHover(null)
              else {
                handlers.current.onHover({
                  turn: idx + 1,
                  before: timeline.before[idx] ?? 0,
                  after: timeline.after[idx] ?? null,
                })
              }
            },
          ],
        },
      },
      data,
      el,
    )
    const click = () => {
      const idx = plot.cursor.idx
      if (idx !== null && idx !== undefined) handlers.current.onPick(idx + 1)
    }
    plot.over.addEventListener('click', click)
    const resize = new ResizeObserver(() => {
      const w = el.clientWidth
      if (w > 0 && Math.abs(w - plot.width) > 2) plot.setSize({ width: Math.max(320, w), height: 300 })
    })
    resize.observe(el)
    return () => {
      resize.disconnect()
      plot.over.removeEventListener('click', click)
      plot.destroy()
    }
  }, [timeline, levels])

  return (
    <div
      ref={host}
      className="timeline-chart"
      data-testid="timeline-chart"
      role="img"
      aria-label={`Context tokens per turn over ${timeline.turns} turns, before and after compaction`}
    />
  )
}

function lastValue(values: (number | null)[]): number | null {
  for (let i = values.length - 1; i >= 0; i--) {
    const v = values[i]
    if (v !== null && v !== undefined) return v
  }
  return null
}

/**
 * The token timeline: context tokens per turn before (raw growth) and after
 * the current pipeline, passes where they fire, the context limit and the stages' thresholds;
 * hover reads a turn out, a click opens that turn's context.
 */
export function TimelineView() {
  const {
    timeline: held,
    timelineOf: of,
    timelineStatus: status,
    timelineError: error,
    contextLimit: limit,
    setContextLimit: setLimit,
    requestTimeline,
    showTurn,
  } = useTimeline()
  const info = useInfo()
  const result = shownResult(held, of, status, error, info)
  const timeline = result.kind === 'result' ? result.value : null
  const config = useConfig()
  const runId = useRunId()
  const [hover, setHover] = useState<Hover | null>(null)

  useEffect(() => {
    requestTimeline()
  }, [config, runId, requestTimeline])

  const levels = useMemo(() => (timeline ? levelsOf(timeline, limit) : []), [timeline, limit])

  if (!timeline) {
    return (
      <div className="timeline-view" data-testid="timeline-view">
        {result.kind === 'error' ? (
          <p className="banner banner--error" role="alert">
            Could not build the timeline: {result.error}
          </p>
        ) : (
          <p className="muted">Building the timeline…</p>
        )}
      </div>
    )
  }

  const lastAfter = lastValue(timeline.after)
  const lastBefore = timeline.before[timeline.before.length - 1] ?? 0
  const top = yMax(timeline, levels)
  const compactAfter = timeline.thresholds.find((t) => t.kind === 'messages')
  const running = !timeline.done || (result.kind === 'result' && result.updating)

  return (
    <div className="timeline-view" data-testid="timeline-view">
      <div className="timeline-view__bar">
        <label className="timeline-view__limit">
          Context limit
          <input
            type="number"
            className="number-input"
            min={1000}
            step={1000}
            value={limit}
            aria-label="Context limit (tokens)"
            data-testid="timeline-limit"
            onChange={(e) => setLimit(Number(e.target.value))}
          />
          tokens
        </label>
        <span className="timeline-view__hover" data-testid="timeline-hover" data-turn={hover?.turn ?? ''}>
          {hover
            ? `Turn ${hover.turn}: before ${formatCountOf(hover.before, 'token')} · after ${
                hover.after === null ? 'not evaluated (sampled)' : formatCountOf(hover.after, 'token')
              }`
            : 'Hover a turn to read it; click to open its context.'}
        </span>
      </div>
      <Chart timeline={timeline} levels={levels} onHover={setHover} onPick={showTurn} />
      <ul className="timeline-legend" aria-label="Timeline legend">
        <li>
          <span className="timeline-legend__line" style={{ background: COLORS.before }} /> before: every message up to
          the turn
        </li>
        <li>
          <span className="timeline-legend__line" style={{ background: COLORS.after }} /> after: the current pipeline's
          context at the turn
        </li>
        <li>
          <span className="timeline-legend__mark" style={{ background: COLORS.pass }} />{' '}
          {timeline.passes.length === 0
            ? 'no pass fires'
            : `${formatCountOf(timeline.passes.length, 'pass', 'passes')} (${timeline.passes
                .slice(0, 3)
                .map((p) => `${passName(p.stage, p.pass)} at turn ${p.turn}`)
                .join(', ')}${timeline.passes.length > 3 ? ', …' : ''})`}
        </li>
        {compactAfter?.kind === 'messages' && (
          <li>
            <span className="timeline-legend__mark timeline-legend__mark--dashed" /> compact_after {compactAfter.messages}{' '}
            is a message count:{' '}
            {compactAfter.turn === null
              ? 'no turn has that many messages'
              : `first exceeded at turn ${compactAfter.turn}`}
          </li>
        )}
        {levels.map((l) => (
          <li key={l.key}>
            <span className="timeline-legend__line" style={{ background: l.color }} /> {l.label}{' '}
            {formatCountOf(l.tokens, 'token')}
            {l.tokens > top ? ' (above this session’s peak, not drawn)' : ''}
          </li>
        ))}
      </ul>
      <p
        className="timeline-view__caption muted"
        data-testid="timeline-caption"
        data-last-after={lastAfter ?? ''}
        data-passes={timeline.passes.length}
        data-done={timeline.done ? 'true' : 'false'}
      >
        {formatCountOf(timeline.turns, 'turn')} · at the last turn {formatCountOf(lastBefore, 'token')} before,{' '}
        {lastAfter === null ? '…' : formatCountOf(lastAfter, 'token')} after ·{' '}
        {formatCountOf(timeline.passes.length, 'pass', 'passes')}
        {timeline.sampled
          ? ` · sampled: ${formatCount(timeline.evaluated)} of ${formatCount(timeline.turns)} turns evaluated (about 300 evenly spaced plus every turn where a pass fires; each is a pipeline run on that turn's prefix), the after line joins them`
          : ''}
        {running
          ? timeline.done
            ? ' · updating…'
            : ` · evaluating turns… (${formatCount(timeline.evaluated)} so far)`
          : ''}
      </p>
    </div>
  )
}
