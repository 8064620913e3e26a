import { useEffect, useMemo, useRef, useState } from 'react'
import uPlot from 'uplot'
import 'uplot/dist/uPlot.min.css'
import { formatCount, formatCountOf } from '../../components/format'
import { passName } from '../../components/kinds'
import { Segmented } from '../../components/Segmented'
import { describeDecision } from '../../engine/stages/triggers'
import { shownResult } from '../../state/selectors'
import { useConfig, useInfo, useRunId, useTimeline } from '../../state/hooks'
import { useStore } from '../../state/store'
import type { TimelineView as Timeline } from '../../worker/protocol'
import { axisWidth, labelsLogTick, logRange, showTurnMarkers, widestLabel, type YScale } from './chart-options'
import { decisionsByTurn, turnDecisions } from './turn-decisions'
import { SavePngButton } from '../export/SavePngButton'
import './timeline.css'

const COLORS = {
  before: 'rgb(100, 116, 139)',
  after: 'rgb(79, 70, 229)',
  pass: 'rgba(124, 58, 237, 0.55)',
  compactAfter: 'rgba(91, 99, 115, 0.8)',
  window: 'rgb(180, 35, 24)',
  'prune-tool-results': 'rgb(180, 83, 9)',
  'insert-then-compress': 'rgb(190, 24, 93)',
  summarize: 'rgb(124, 58, 237)',
  cursor: 'rgb(15, 23, 42)',
}

/** A horizontal token level drawn on the chart. */
interface Level {
  key: string
  /** Legend text before the token count. */
  label: string
  /** How the level was derived (a trigger's `source`), shown after the count. */
  source?: string
  tokens: number
  color: string
}

/** The model window, then every token threshold of the enabled stages (summarize's trigger with its source). */
function levelsOf(timeline: Timeline): Level[] {
  const levels: Level[] = [{ key: 'window', label: 'model window', tokens: timeline.window, color: COLORS.window }]
  for (const t of timeline.thresholds) {
    if (t.kind !== 'tokens') continue
    const level: Level = { key: `${t.stage}:${t.param}`, label: `${t.stage} ${t.param}`, tokens: t.tokens, color: COLORS[t.stage] }
    if (t.source !== undefined) level.source = t.source
    levels.push(level)
  }
  return levels
}

/**
 * The y range's top: the data, and each level unless (on the linear scale) it is far above the
 * data (then the legend says so); the log scale has room for every level.
 */
function yMax(timeline: Timeline, levels: Level[], scale: YScale): number {
  let peak = 0
  for (const v of timeline.before) peak = Math.max(peak, v)
  let max = peak
  for (const l of levels) if (scale === 'log' || l.tokens <= peak * 3) max = Math.max(max, l.tokens)
  return Math.max(1, max * 1.08)
}

/** The log scale's ticks that get a label, a tick and a grid line (the others are null). */
const logTicks = (_u: uPlot, splits: number[]) => splits.map((v) => (labelsLogTick(v) ? v : null))

/** The y scale choices. */
const SCALES = [
  { value: 'linear', label: 'Linear' },
  { value: 'log', label: 'Log scale' },
] as const

/** The y axis font; the axis is as wide as its widest label in this font. */
const AXIS_FONT = '12px system-ui, -apple-system, "Segoe UI", Roboto, sans-serif'
/** Ticks, the gap to the text and a little air (CSS px) besides the widest y label. */
const AXIS_GAP = 22

interface Hover {
  turn: number
  before: number
  after: number | null
}

/**
 * The uPlot chart: before vs after per turn, pass markers, thresholds; hover reads out, click opens
 * the turn. With `upTo` (playback's turn) only turns 1..upTo and their passes are drawn, on the
 * whole session's turn axis, with a cursor at `upTo`.
 */
function Chart({ timeline, levels, scale, upTo, onHover, onPick }: {
  timeline: Timeline
  levels: Level[]
  scale: YScale
  upTo: number | null
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
    const shown = <T,>(values: T[]) => (upTo === null ? values : values.map((v, i) => (i < upTo ? v : null)))
    const data: uPlot.AlignedData = [turns, shown(timeline.before), shown(timeline.after)]
    const top = yMax(timeline, levels, scale)
    const bottom = scale === 'log' ? logRange([timeline.before, timeline.after], top)[0] : 0
    const compactAfter = timeline.thresholds.find((t) => t.kind === 'messages')
    const markerTurn = compactAfter?.kind === 'messages' ? compactAfter.turn : null
    const draw = (u: uPlot) => {
      const ctx = u.ctx
      const { left, top: y0, width, height } = u.bbox
      ctx.save()
      ctx.lineWidth = Math.max(1, devicePixelRatio)
      for (const p of timeline.passes) {
        if (upTo !== null && p.turn > upTo) continue
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
      if (upTo !== null) {
        const x = u.valToPos(upTo, 'x', true)
        // The chart's text colour (the palette's --text): visible in light and dark.
        ctx.strokeStyle = getComputedStyle(el).color || COLORS.cursor
        ctx.setLineDash([3 * devicePixelRatio, 2 * devicePixelRatio])
        ctx.beginPath()
        ctx.moveTo(x, y0)
        ctx.lineTo(x, y0 + height)
        ctx.stroke()
        ctx.setLineDash([])
      }
      ctx.font = `${11 * devicePixelRatio}px system-ui, sans-serif`
      ctx.textAlign = 'right'
      ctx.textBaseline = 'bottom'
      // A label too close to the one above it goes under its own line instead of over it.
      let lastLabelY = -Infinity
      const drawn = levels.filter((l) => l.tokens <= top && l.tokens >= bottom).sort((a, b) => b.tokens - a.tokens)
      for (const l of drawn) {
        const y = u.valToPos(l.tokens, 'y', true)
        ctx.strokeStyle = l.color
        ctx.setLineDash(l.key === 'window' ? [] : [4 * devicePixelRatio, 4 * devicePixelRatio])
        ctx.beginPath()
        ctx.moveTo(left, y)
        ctx.lineTo(left + width, y)
        ctx.stroke()
        ctx.fillStyle = l.color
        const under = y - lastLabelY < 14 * devicePixelRatio
        ctx.textBaseline = under ? 'top' : 'bottom'
        ctx.fillText(`${l.label} ${formatCount(l.tokens)}`, left + width - 4 * devicePixelRatio, under ? y + 2 * devicePixelRatio : y - 2 * devicePixelRatio)
        lastLabelY = under ? y + 14 * devicePixelRatio : y
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
          y:
            scale === 'log'
              ? { distr: 3, log: 10, range: () => logRange([timeline.before, timeline.after], top) }
              : { range: () => [0, top] },
        },
        axes: [
          // Turns are whole numbers: only integer ticks.
          { label: 'turn', size: 40, labelSize: 16, incrs: [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000] },
          {
            font: AXIS_FONT,
            // On the log scale only 1, 2 and 5 × 10^k get a tick, a grid line and a label.
            ...(scale === 'log' ? { filter: logTicks, grid: { filter: logTicks }, ticks: { filter: logTicks } } : {}),
            values: (_u, splits) => splits.map((v) => (v === null || v === undefined ? '' : formatCount(v))),
            // As wide as the widest label needs: `1,200,000` keeps its first digit.
            size: (u, values) => {
              const measure = (text: string) => {
                u.ctx.save()
                u.ctx.font = AXIS_FONT
                const w = u.ctx.measureText(text).width
                u.ctx.restore()
                return w
              }
              const size = axisWidth(values, measure, AXIS_GAP)
              // What the axis was sized for, for tests that check no label is cut.
              el.dataset.yWidest = widestLabel(values, measure)
              el.dataset.yAxisSize = String(size)
              el.dataset.yFont = AXIS_FONT
              return size
            },
          },
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
  }, [timeline, levels, scale, upTo])

  return (
    <div
      ref={host}
      className="timeline-chart"
      data-testid="timeline-chart"
      data-scale={scale}
      data-cursor={upTo ?? ''}
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

/** A decision of the log with its stage named (the log holds every stage's check points). */
function DecisionLine({ d }: { d: Timeline['decisions']['decisions'][number] }) {
  return (
    <li data-fired={d.fired ? 'true' : 'false'} data-reached={d.reached ? 'true' : 'false'}>
      <span className="muted">{d.stage}:</span> {describeDecision(d)}
    </li>
  )
}

/** The hovered turn's trigger decisions (worded by the engine), or what the log holds when nothing is hovered. */
function HoverDecisions({ timeline, byTurn, turn }: {
  timeline: Timeline
  byTurn: ReturnType<typeof decisionsByTurn>
  turn: number | null
}) {
  const log = timeline.decisions
  if (turn === null) {
    return (
      <p className="timeline-view__decisions muted" data-testid="timeline-decisions" data-turn="">
        {log.total === 0
          ? 'No stage has a trigger to check.'
          : `Decision log: ${formatCountOf(log.total, 'check point')}, ${formatCount(log.reached)} reached the trigger, ${formatCount(log.fired)} compacted. Hover a turn for its decisions.`}
      </p>
    )
  }
  const { shown, hidden, cut } = turnDecisions(byTurn, log, turn)
  return (
    <div className="timeline-view__decisions" data-testid="timeline-decisions" data-turn={turn}>
      {shown.length === 0 ? (
        <p className="muted">
          {cut
            ? `Turn ${turn}: its checks are not among the ${formatCount(log.decisions.length)} of ${formatCount(log.total)} decisions sent (the ones that compacted or were held come first).`
            : `Turn ${turn}: no trigger was checked at this turn.`}
        </p>
      ) : (
        <ul>
          {shown.map((d, i) => (
            <DecisionLine key={`${d.stage}:${d.atMessage}:${i}`} d={d} />
          ))}
          {hidden > 0 && <li className="muted">… and {formatCountOf(hidden, 'more check')} at this turn (open it for all)</li>}
        </ul>
      )}
    </div>
  )
}

/**
 * The token timeline: context tokens per turn before (raw growth) and after
 * the current pipeline, passes where they fire, the model window and the stages' token thresholds,
 * on a linear or log scale; hover reads a turn and its trigger decisions out, a click opens that
 * turn's context.
 */
export function TimelineView() {
  const {
    timeline: held,
    timelineOf: of,
    timelineStatus: status,
    timelineError: error,
    requestTimeline,
    showTurn,
  } = useTimeline()
  const info = useInfo()
  const result = shownResult(held, of, status, error, info)
  const timeline = result.kind === 'result' ? result.value : null
  const config = useConfig()
  const runId = useRunId()
  // Playback's turn: the run shown is of the prefix up to it.
  const upTo = useStore((s) => s.run?.asOf?.turn ?? null)
  const [hover, setHover] = useState<Hover | null>(null)
  const [scale, setScale] = useState<YScale>('linear')
  // What "Save as PNG" captures: the chart with its axes, legend and caption, not the controls.
  const viewRef = useRef<HTMLDivElement>(null)

  // The timeline is of the whole session: playback's steps (each a run) do not ask for it again.
  const requestKey = upTo === null ? runId : 'playback'
  useEffect(() => {
    requestTimeline()
  }, [config, requestKey, requestTimeline])

  const levels = useMemo(() => (timeline ? levelsOf(timeline) : []), [timeline])
  const byTurn = useMemo(() => (timeline ? decisionsByTurn(timeline.decisions) : new Map()), [timeline])

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
  const top = yMax(timeline, levels, scale)
  const compactAfter = timeline.thresholds.find((t) => t.kind === 'messages')
  const running = !timeline.done || (result.kind === 'result' && result.updating)

  return (
    <div ref={viewRef} className="timeline-view" data-testid="timeline-view">
      <div className="timeline-view__bar" data-png-skip="">
        <Segmented label="Token scale" options={SCALES} value={scale} onChange={setScale} />
        <SavePngButton target={viewRef} subject="timeline" />
        <span className="timeline-view__hover" data-testid="timeline-hover" data-turn={hover?.turn ?? ''}>
          {hover
            ? `Turn ${hover.turn}: before ${formatCountOf(hover.before, 'token')} · after ${
                hover.after === null ? 'not evaluated (sampled)' : formatCountOf(hover.after, 'token')
              }`
            : 'Hover a turn to read it; click to open its context.'}
        </span>
      </div>
      <Chart timeline={timeline} levels={levels} scale={scale} upTo={upTo} onHover={setHover} onPick={showTurn} />
      <HoverDecisions timeline={timeline} byTurn={byTurn} turn={hover?.turn ?? null} />
      <ul className="timeline-legend" aria-label="Timeline legend" data-testid="timeline-legend">
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
            ? 'no summary pass (edits in place, such as pruning, have no marker)'
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
          <li key={l.key} data-testid="timeline-level" data-level={l.key} data-tokens={l.tokens}>
            <span
              className={l.key === 'window' ? 'timeline-legend__line' : 'timeline-legend__line timeline-legend__line--dashed'}
              style={{ color: l.color, background: l.key === 'window' ? l.color : undefined }}
            />{' '}
            {l.label} {formatCountOf(l.tokens, 'token')}
            {l.source !== undefined ? ` (${l.source})` : ''}
            {l.tokens > top ? ' (above this session’s peak, not drawn: try the log scale)' : ''}
          </li>
        ))}
      </ul>
      <p
        className="timeline-view__caption muted"
        data-testid="timeline-caption"
        data-last-after={lastAfter ?? ''}
        data-passes={timeline.passes.length}
        data-pass-turns={timeline.passes.map((p) => p.turn).join(',')}
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
