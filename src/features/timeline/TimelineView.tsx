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
import type { TimelineView as Timeline, UsageTimelineView } from '../../worker/protocol'
import {
  axisWidth,
  groupTokens,
  labelsLogTick,
  logRange,
  mergedXs,
  nearestIndex,
  showTurnMarkers,
  stackGroups,
  turnAt,
  widestLabel,
  type StackGroup,
  type YScale,
} from './chart-options'
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

/**
 * Theme variables (src/styles/app.css) of what the agent recorded and of the stacked layers: the
 * canvas reads them resolved (`resolveColor`), the legend's swatches use them as they are.
 */
const USAGE_VARS = {
  recorded: '--k-recorded',
  estimate: '--k-slimmed',
  clearing: '--k-placeholder',
}
/** Fixed parts' layer colours; tools take `TOOL_VARS` in order, the other tools `--k-changed`. */
const PART_VARS: Record<string, string> = {
  overhead: '--k-kept',
  system: '--r-system',
  user: '--r-user',
  assistant: '--r-assistant',
  thinking: '--k-instruction',
  summaries: '--k-summary',
  'other-tools': '--k-changed',
}
const TOOL_VARS = ['--r-tool', '--k-slimmed', '--k-dropped', '--k-pinned', '--k-backref']
/** Opacity of a stacked layer (the lines stay readable over it). */
const LAYER_ALPHA = 0.42
/** Up to this many recorded requests the recorded line marks each one. */
const MAX_REQUESTS_WITH_MARKERS = 80

/** The theme variable of each stacked layer. */
function layerVars(groups: readonly StackGroup[]): string[] {
  let tool = 0
  return groups.map((g) => PART_VARS[g.key] ?? TOOL_VARS[tool++ % TOOL_VARS.length] ?? '--k-changed')
}

/** `var(--name)` resolved to a colour in `el`'s theme (light-dark included), for the canvas. */
function resolveColor(el: HTMLElement, name: string): string {
  const probe = document.createElement('span')
  probe.style.color = `var(${name})`
  probe.style.display = 'none'
  el.appendChild(probe)
  const color = getComputedStyle(probe).color
  probe.remove()
  return color || 'gray'
}

/** How a recorded compaction is labelled on the chart: its trigger and the agent's count before it ("auto · 167,471"). */
function compactionLabel(c: UsageTimelineView['compactions'][number]): string {
  return `${c.trigger ?? 'compaction'}${c.tokensBefore !== undefined ? ` · ${formatCount(c.tokensBefore)}` : ''}`
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
  for (const p of timeline.usage.points) peak = Math.max(peak, p.recorded, p.estimated)
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
  /** The recorded request nearest the cursor, when the file records usage. */
  request: UsageTimelineView['points'][number] | null
}

/**
 * The uPlot chart: before vs after per turn, pass markers, thresholds; hover reads out, click opens
 * the turn. With `upTo` (playback's turn) only turns 1..upTo and their passes are drawn, on the
 * whole session's turn axis, with a cursor at `upTo`.
 */
function Chart({ timeline, levels, scale, upTo, groups, onHover, onPick }: {
  timeline: Timeline
  levels: Level[]
  scale: YScale
  upTo: number | null
  /** The stacked composition's layers; null when the stacked view is off. */
  groups: StackGroup[] | null
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
    // Turns at x = 1..T, each recorded request at its own place between them (worker `turnPosition`).
    const usage = timeline.usage
    const requests = upTo === null ? usage.points : usage.points.filter((p) => p.x <= upTo)
    const { xs, at } = mergedXs(timeline.turns, usage.points.map((p) => p.x))
    const column = (values: (number | null)[], ofTurns: boolean) => {
      const out = new Array<number | null>(xs.length).fill(null)
      values.forEach((v, i) => {
        const k = ofTurns ? at.get(i + 1) : at.get((usage.points[i] as { x: number }).x)
        if (k !== undefined && (!ofTurns || upTo === null || i < upTo)) out[k] = v
      })
      return out
    }
    const recorded = column(usage.points.map((p) => (upTo === null || p.x <= upTo ? p.recorded : null)), false)
    const estimated = column(usage.points.map((p) => (upTo === null || p.x <= upTo ? p.estimated : null)), false)
    const before = column(timeline.before, true)
    const after = column(timeline.after, true)
    const data: uPlot.AlignedData = [xs, before, after, recorded, estimated]
    const top = yMax(timeline, levels, scale)
    const logSeries = [timeline.before, timeline.after, usage.points.map((p) => p.recorded)]
    const bottom = scale === 'log' ? logRange(logSeries, top)[0] : 0
    const xMin = Math.min(1, xs[0] ?? 1)
    const color = (name: string) => resolveColor(el, name)
    const recordedColor = color(USAGE_VARS.recorded)
    const estimateColor = color(USAGE_VARS.estimate)
    const clearingColor = color(USAGE_VARS.clearing)
    const layerColors = groups ? layerVars(groups).map(color) : []
    const layers = groups ? requests.map((p) => groupTokens(p.composition, groups)) : []
    // What filled the window, under the lines: each layer between the sums below it and its own.
    const drawLayers = (u: uPlot) => {
      if (!groups || requests.length === 0) return
      const ctx = u.ctx
      const { left, top: y0, width, height } = u.bbox
      const low = u.scales.y?.min ?? 0
      const y = (v: number) => u.valToPos(Math.max(v, low), 'y', true)
      ctx.save()
      ctx.beginPath()
      ctx.rect(left, y0, width, height)
      ctx.clip()
      ctx.globalAlpha = LAYER_ALPHA
      const below = requests.map(() => 0)
      groups.forEach((_, g) => {
        const above = below.map((b, i) => b + (layers[i]?.[g] ?? 0))
        ctx.fillStyle = layerColors[g] ?? 'gray'
        ctx.beginPath()
        requests.forEach((p, i) => {
          const x = u.valToPos(p.x, 'x', true)
          if (i === 0) ctx.moveTo(x, y(above[i] as number))
          else ctx.lineTo(x, y(above[i] as number))
        })
        for (let i = requests.length - 1; i >= 0; i--) ctx.lineTo(u.valToPos((requests[i] as { x: number }).x, 'x', true), y(below[i] as number))
        ctx.closePath()
        ctx.fill()
        above.forEach((v, i) => (below[i] = v))
      })
      ctx.restore()
    }
    // The agent's compactions: a dashed line with its trigger and count, as text the picture keeps.
    const markerLayer = document.createElement('div')
    markerLayer.className = 'timeline-markers'
    const drawRecorded = (u: uPlot) => {
      const ctx = u.ctx
      const { top: y0, height } = u.bbox
      ctx.save()
      ctx.lineWidth = Math.max(1, devicePixelRatio) * 1.5
      ctx.strokeStyle = recordedColor
      ctx.setLineDash([2 * devicePixelRatio, 3 * devicePixelRatio])
      const shownCompactions = usage.compactions.filter((c) => upTo === null || c.x <= upTo)
      for (const c of shownCompactions) {
        const x = u.valToPos(c.x, 'x', true)
        ctx.beginPath()
        ctx.moveTo(x, y0)
        ctx.lineTo(x, y0 + height)
        ctx.stroke()
      }
      ctx.setLineDash([])
      // A clearing (tool results cleared in place): a small triangle on the plot's bottom edge.
      ctx.fillStyle = clearingColor
      const size = 5 * devicePixelRatio
      for (const c of usage.clearings) {
        if (upTo !== null && c.x > upTo) continue
        const x = u.valToPos(c.x, 'x', true)
        ctx.beginPath()
        ctx.moveTo(x, y0 + height - size * 1.6)
        ctx.lineTo(x - size, y0 + height)
        ctx.lineTo(x + size, y0 + height)
        ctx.closePath()
        ctx.fill()
      }
      ctx.restore()
      markerLayer.replaceChildren(
        ...shownCompactions.map((c, k) => {
          const label = document.createElement('span')
          label.className = 'timeline-markers__label'
          label.dataset.testid = 'timeline-compaction'
          label.dataset.tokensBefore = String(c.tokensBefore ?? '')
          const left = u.valToPos(c.x, 'x')
          label.style.left = `${left}px`
          // Right of its line, or left of it near the plot's right edge; below the top, where the
          // levels' labels are; neighbours take turns on two rows so close labels do not overlap.
          if (left > u.bbox.width / devicePixelRatio - 130) label.classList.add('timeline-markers__label--left')
          label.style.top = `${k % 2 === 0 ? 24 : 40}px`
          label.style.color = recordedColor
          label.textContent = compactionLabel(c)
          return label
        }),
      )
    }
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
      drawRecorded(u)
    }
    const markers = showTurnMarkers(timeline.turns)
    const plot = new uPlot(
      {
        width: Math.max(320, el.clientWidth || 720),
        height: 300,
        legend: { show: false },
        cursor: { drag: { x: false, y: false }, points: { size: 7 } },
        scales: {
          // From 0 (the empty context) when requests of turn 1 are drawn, else from turn 1.
          x: { time: false, range: [xMin, Math.max(2, timeline.turns)] },
          y:
            scale === 'log'
              ? { distr: 3, log: 10, range: () => logRange(logSeries, top) }
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
          { label: 'before', stroke: COLORS.before, width: 1.5, spanGaps: true, points: { show: markers, size: 5 } },
          {
            label: 'after',
            stroke: COLORS.after,
            fill: 'rgba(79, 70, 229, 0.08)',
            width: 2,
            spanGaps: true,
            points: { show: markers, size: 6 },
          },
          {
            label: 'recorded',
            stroke: recordedColor,
            width: 2,
            dash: [7, 4],
            spanGaps: true,
            points: { show: usage.points.length <= MAX_REQUESTS_WITH_MARKERS, size: 5 },
          },
          { label: 'our estimate', stroke: estimateColor, width: 1.25, spanGaps: true, points: { show: false } },
        ],
        hooks: {
          drawAxes: [drawLayers],
          draw: [draw],
          setCursor: [
            (u) => {
              const idx = u.cursor.idx
              const x = idx === null || idx === undefined ? undefined : xs[idx]
              if (x === undefined) handlers.current.onHover(null)
              else {
                const turn = turnAt(x, timeline.turns)
                const near = nearestIndex(requests.map((p) => p.x), x)
                handlers.current.onHover({
                  turn,
                  before: timeline.before[turn - 1] ?? 0,
                  after: timeline.after[turn - 1] ?? null,
                  request: requests[near] ?? null,
                })
              }
            },
          ],
        },
      },
      data,
      el,
    )
    plot.over.appendChild(markerLayer)
    plot.redraw(false, false)
    const click = () => {
      const idx = plot.cursor.idx
      const x = idx === null || idx === undefined ? undefined : xs[idx]
      if (x !== undefined) handlers.current.onPick(turnAt(x, timeline.turns))
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
  }, [timeline, levels, scale, upTo, groups])

  return (
    <div
      ref={host}
      className="timeline-chart"
      data-testid="timeline-chart"
      data-scale={scale}
      data-cursor={upTo ?? ''}
      data-requests={timeline.usage.points.length}
      data-x-min={Math.min(1, timeline.usage.points[0]?.x ?? 1)}
      data-stacked={groups ? 'true' : 'false'}
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

/** A request in words: the message its response produced, and the turn it was sent in. */
function requestPlace(p: UsageTimelineView['points'][number], turns: number): string {
  return `Request before #${p.atIndex} (turn ${turnAt(p.x, turns)})`
}

/**
 * The hovered point's recorded request: the agent's figure beside our estimate, and with the
 * stacked view on what its context was made of. Two fixed lines, so hovering never moves the page.
 */
function UsageHover({ hover, groups, turns }: { hover: Hover | null; groups: StackGroup[] | null; turns: number }) {
  const p = hover?.request ?? null
  const diff = p && p.recorded > 0 ? ((p.estimated - p.recorded) / p.recorded) * 100 : null
  const figures = p
    ? `${requestPlace(p, turns)}: recorded ${formatCountOf(p.recorded, 'token')} (the agent's usage) · our estimate ${formatCount(p.estimated)}${
        diff === null ? '' : ` (${diff >= 0 ? '+' : '−'}${Math.abs(diff).toFixed(1)}%)`
      }${p.output !== undefined ? ` · output ${formatCount(p.output)}` : ''}`
    : 'Hover the chart to read the context the agent recorded beside our estimate.'
  const made = p && groups
    ? groups
        .map((g, i) => ({ g, n: groupTokens(p.composition, groups)[i] ?? 0 }))
        .filter(({ n }) => n > 0)
        .map(({ g, n }) => `${g.key === 'overhead' ? 'overhead' : g.label} ${formatCount(n)}`)
        .join(' · ')
    : groups
      ? 'Hover a request to read what its context was made of.'
      : 'Switch on “What filled the window” to see what each request’s context was made of.'
  return (
    <div className="timeline-view__usage" data-testid="timeline-usage-hover" data-recorded={p?.recorded ?? ''} data-estimated={p?.estimated ?? ''}>
      <p title={figures}>{figures}</p>
      <p className="muted" data-testid="timeline-usage-composition" title={made}>
        {made}
      </p>
    </div>
  )
}

/** The legend's entries of what the agent recorded: its usage line, our estimate, its compactions and clearings. */
function UsageLegend({ usage }: { usage: UsageTimelineView }) {
  const cleared = usage.clearings.reduce((n, c) => n + c.results, 0)
  return (
    <>
      <li data-testid="timeline-legend-recorded">
        <span className="timeline-legend__line timeline-legend__line--dashed" style={{ color: `var(${USAGE_VARS.recorded})` }} /> recorded
        (agent's usage): the context the agent sent with each of its {formatCountOf(usage.points.length, 'request')}
      </li>
      <li data-testid="timeline-legend-estimate">
        <span className="timeline-legend__line" style={{ background: `var(${USAGE_VARS.estimate})` }} /> our estimate of the same
        requests (calibrated, through the agent's compactions)
      </li>
      <li data-testid="timeline-legend-compactions">
        <span className="timeline-legend__mark timeline-legend__mark--dotted" style={{ color: `var(${USAGE_VARS.recorded})` }} />{' '}
        {usage.compactions.length === 0
          ? 'no recorded compaction'
          : `${formatCountOf(usage.compactions.length, 'recorded compaction')} (trigger · the agent's tokens before it: ${usage.compactions
              .slice(0, 3)
              .map(compactionLabel)
              .join(', ')}${usage.compactions.length > 3 ? ', …' : ''})`}
      </li>
      {usage.clearings.length > 0 && (
        <li data-testid="timeline-legend-clearings">
          <span className="timeline-legend__tri" style={{ color: `var(${USAGE_VARS.clearing})` }} />{' '}
          {formatCountOf(usage.clearings.length, 'clearing')} ({formatCountOf(cleared, 'tool result')} cleared in place)
        </li>
      )}
    </>
  )
}

/** The stacked view's layers, bottom to top. */
function CompositionLegend({ groups }: { groups: StackGroup[] }) {
  const vars = layerVars(groups)
  return (
    <ul className="timeline-legend" aria-label="Composition legend" data-testid="timeline-composition-legend">
      <li className="timeline-legend__title">What filled the window (our estimate, bottom to top):</li>
      {groups.map((g, i) => (
        <li key={g.key} data-part={g.key}>
          <span className="timeline-legend__swatch" style={{ background: `var(${vars[i]})` }} /> {g.label}
        </li>
      ))}
    </ul>
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
  const [stacked, setStacked] = useState(false)
  // What "Save as PNG" captures: the chart with its axes, legend and caption, not the controls.
  const viewRef = useRef<HTMLDivElement>(null)

  // The timeline is of the whole session: playback's steps (each a run) do not ask for it again.
  const requestKey = upTo === null ? runId : 'playback'
  useEffect(() => {
    requestTimeline()
  }, [config, requestKey, requestTimeline])

  const levels = useMemo(() => (timeline ? levelsOf(timeline) : []), [timeline])
  const byTurn = useMemo(() => (timeline ? decisionsByTurn(timeline.decisions) : new Map()), [timeline])
  const usageParts = timeline?.usage.parts
  const allGroups = useMemo(() => (usageParts ? stackGroups(usageParts) : []), [usageParts])

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
  const usage = timeline.usage
  const hasUsage = usage.points.length > 0
  const groups = hasUsage && stacked ? allGroups : null

  return (
    <div ref={viewRef} className="timeline-view" data-testid="timeline-view">
      <div className="timeline-view__bar" data-png-skip="">
        <Segmented label="Token scale" options={SCALES} value={scale} onChange={setScale} />
        {hasUsage && (
          <label className="timeline-view__toggle">
            <input type="checkbox" checked={stacked} onChange={(e) => setStacked(e.target.checked)} /> What filled the window
          </label>
        )}
        <SavePngButton target={viewRef} subject="timeline" />
        <span className="timeline-view__hover" data-testid="timeline-hover" data-turn={hover?.turn ?? ''}>
          {hover
            ? `Turn ${hover.turn}: before ${formatCountOf(hover.before, 'token')} · after ${
                hover.after === null ? 'not evaluated (sampled)' : formatCountOf(hover.after, 'token')
              }`
            : 'Hover a turn to read it; click to open its context.'}
        </span>
      </div>
      {hasUsage && <UsageHover hover={hover} groups={groups} turns={timeline.turns} />}
      <Chart timeline={timeline} levels={levels} scale={scale} upTo={upTo} groups={groups} onHover={setHover} onPick={showTurn} />
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
        {hasUsage && <UsageLegend usage={usage} />}
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
      {groups && <CompositionLegend groups={groups} />}
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
        {hasUsage
          ? ` · ${formatCountOf(usage.points.length, 'recorded request')}, ${formatCountOf(usage.compactions.length, 'recorded compaction')}`
          : ' · this file records no usage'}
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
