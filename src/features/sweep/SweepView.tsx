import { useRef, useState, type CSSProperties } from 'react'
import { formatCount } from '../../components/format'
import { Segmented } from '../../components/Segmented'
import { formatPercentDelta, formatTokenDelta } from '../../engine/delta'
import type { PipelineConfig } from '../../engine/model'
import { windowOf } from '../../engine/models'
import { overWindowText } from '../../engine/analysis/peak-context'
import type { SweepCellResult } from '../../engine/analysis/sweep'
import { currentSweepValue, SWEEP_PARAMS, type SweepAxis, type SweepParam } from '../../engine/analysis/sweep-params'
import { useConfig, useInfo, useRun, useSweep, useSweepActions } from '../../state/hooks'
import { useStore } from '../../state/store'
import { sweepBaseKey, type SweepMetricId } from '../../state/slices/sweep'
import type { SweepCell, SweepResult } from '../../worker/protocol'
import {
  axisOf,
  defaultRange,
  METRICS,
  metricRange,
  paramLabel,
  shade,
  SWEEP_PAIRS,
  defaultPair,
  type AxisRange,
} from './axes'
import { SavePngButton } from '../export/SavePngButton'
import './sweep.css'

const PARAMS = Object.keys(SWEEP_PARAMS) as SweepParam[]

/** A range that reproduces an axis the last sweep ran (so the form survives a tab switch). */
function rangeOf(axis: SweepAxis): AxisRange {
  const v = axis.values
  const from = v[0] ?? 0
  const to = v[v.length - 1] ?? from
  const step = v.length > 1 ? (v[1] as number) - from : 1
  return { param: axis.param, from, to, step: Math.max(1, step) }
}

/**
 * The sweep heat map: choose two params and their ranges, run the grid in the
 * worker with progress and cancel, read tokens saved / facts lost / passes per cell, and click a
 * cell to apply its two values to the pipeline.
 */
export function SweepView() {
  const info = useInfo()
  const { run } = useRun()
  const config = useConfig()
  const { sweepResult: result, sweepStatus: status, sweepOf } = useSweep()
  const scale = { messages: info?.messageCount ?? 0, tokens: run?.before.totals.tokens ?? 0, window: windowOf(config?.window) }
  const [ranges, setRanges] = useState<{ x: AxisRange; y: AxisRange } | null>(() =>
    result ? { x: rangeOf(result.x), y: rangeOf(result.y) } : null,
  )
  if (!info) return <div className="sweep-view muted">Load a transcript to sweep its settings.</div>
  if (!run) return <div className="sweep-view muted">Waiting for the first run…</div>
  // The default ranges are centred on the pipeline's current values, which they contain.
  const rangeFor = (param: SweepParam) => defaultRange(param, scale, currentSweepValue(config, param))
  const pair = defaultPair(config)
  const form = ranges ?? { x: rangeFor(pair.x), y: rangeFor(pair.y) }
  const stale = result && sweepOf && sweepOf.transcriptKey !== run.transcriptKey

  return (
    <div className="sweep-view" data-testid="sweep-view">
      <SweepForm
        ranges={form}
        running={status === 'running'}
        // The form keeps the axes it ran: a setting changed later (a cell applied) does not
        // move them away from the grid's.
        onRun={() => setRanges(form)}
        onChange={setRanges}
        onPair={(x, y) => setRanges({ x: rangeFor(x), y: rangeFor(y) })}
        onParam={rangeFor}
      />
      <SweepStatusLine />
      {result && stale && (
        <p className="sweep-view__notice" role="status">
          The transcript changed since this sweep. Run it again for this one.
        </p>
      )}
      {result && !stale && (
        <>
          <SweepNotices result={result} config={config} base={sweepOf?.config ?? null} />
          <HeatMap result={result} config={config} />
        </>
      )}
      {!result && (
        <p className="muted sweep-view__empty">
          Each cell is one run of the pipeline with the two values set (their stages switched on); the rest of the
          settings stay as they are. Run the sweep to fill the grid.
        </p>
      )}
    </div>
  )
}

interface SweepFormProps {
  ranges: { x: AxisRange; y: AxisRange }
  running: boolean
  /** The sweep of `ranges` is being started. */
  onRun: () => void
  onChange: (ranges: { x: AxisRange; y: AxisRange }) => void
  onPair: (x: SweepParam, y: SweepParam) => void
  /** The default range of a parameter for this transcript and setting (`defaultRange`). */
  onParam: (param: SweepParam) => AxisRange
}

function SweepForm({ ranges, running, onRun, onChange, onPair, onParam }: SweepFormProps) {
  const { runSweep, cancelSweep } = useSweepActions()
  const x = axisOf(ranges.x)
  const y = axisOf(ranges.y)
  const same = ranges.x.param === ranges.y.param
  const cells = x.ok && y.ok ? x.axis.values.length * y.axis.values.length : 0
  return (
    <form
      className="sweep-form"
      onSubmit={(e) => {
        e.preventDefault()
        if (!x.ok || !y.ok || same) return
        onRun()
        runSweep(x.axis, y.axis)
      }}
    >
      <div className="sweep-form__pairs" role="group" aria-label="Parameter pairs">
        {SWEEP_PAIRS.map((p) => (
          <button
            key={p.id}
            type="button"
            className="button button--small"
            aria-pressed={ranges.x.param === p.x && ranges.y.param === p.y}
            onClick={() => onPair(p.x, p.y)}
          >
            {p.label}
          </button>
        ))}
      </div>
      <AxisFields
        label="x (columns)"
        range={ranges.x}
        error={x.ok ? null : x.error}
        onChange={(r) => onChange({ ...ranges, x: r })}
        rangeOf={onParam}
      />
      <AxisFields
        label="y (rows)"
        range={ranges.y}
        error={y.ok ? null : y.error}
        onChange={(r) => onChange({ ...ranges, y: r })}
        rangeOf={onParam}
      />
      {same && <p className="sweep-form__error">Choose two different parameters.</p>}
      <div className="sweep-form__actions">
        <button
          type="submit"
          className="button button--primary"
          data-testid="sweep-run"
          disabled={!x.ok || !y.ok || same || running}
        >
          Run sweep{cells > 0 ? ` (${cells} cells)` : ''}
        </button>
        {running && (
          <button type="button" className="button" data-testid="sweep-cancel" onClick={cancelSweep}>
            Cancel
          </button>
        )}
      </div>
    </form>
  )
}

function AxisFields(props: {
  label: string
  range: AxisRange
  error: string | null
  onChange: (r: AxisRange) => void
  /** The default range of a parameter chosen in the picker (its own from/to/step, not the old one's). */
  rangeOf: (param: SweepParam) => AxisRange
}) {
  const { label, range, error, onChange, rangeOf } = props
  const num = (key: 'from' | 'to' | 'step', text: string) => {
    const n = Number(text)
    if (text.trim() !== '' && Number.isFinite(n)) onChange({ ...range, [key]: Math.trunc(n) })
  }
  const slug = label.charAt(0)
  return (
    <fieldset className="sweep-axis">
      <legend>{label}</legend>
      <select
        aria-label={`${slug} parameter`}
        value={range.param}
        onChange={(e) => onChange(rangeOf(e.target.value as SweepParam))}
      >
        {PARAMS.map((p) => (
          <option key={p} value={p}>
            {paramLabel(p)}
          </option>
        ))}
      </select>
      {(['from', 'to', 'step'] as const).map((key) => (
        <label key={key} className="sweep-axis__num">
          {key}
          <input
            type="number"
            min={key === 'step' ? 1 : 0}
            step={1}
            value={range[key]}
            aria-label={`${slug} ${key}`}
            onChange={(e) => num(key, e.target.value)}
          />
        </label>
      ))}
      {error && <p className="sweep-form__error">{error}</p>}
    </fieldset>
  )
}

function SweepStatusLine() {
  const { sweepStatus: status, sweepProgress: progress, sweepError: error } = useSweep()
  if (status === 'error') return <p className="sweep-view__error" role="alert">Sweep failed: {error}</p>
  if (!progress || status === 'idle') return null
  const percent = progress.total > 0 ? Math.round((progress.done / progress.total) * 100) : 0
  const what =
    status === 'running'
      ? `${progress.done} / ${progress.total} cells`
      : status === 'cancelled'
        ? `cancelled: ${progress.done} of ${progress.total} cells`
        : `${progress.total} cells`
  return (
    <div className="progress sweep-view__progress" data-testid="sweep-progress" data-status={status}>
      <span
        className="progress__track"
        role="progressbar"
        aria-label="Sweep progress"
        aria-valuemin={0}
        aria-valuemax={progress.total}
        aria-valuenow={progress.done}
      >
        <span className="progress__fill" style={{ width: `${percent}%` }} />
      </span>
      <span className="progress__text">{what}</span>
    </div>
  )
}

function SweepNotices({ result, config, base }: { result: SweepResult; config: PipelineConfig | null; base: PipelineConfig | null }) {
  const { sweepNote: note, sweepStatus: status } = useSweep()
  const restarted = useStore((s) => s.sweepRestarted)
  const key = (c: PipelineConfig) => sweepBaseKey(c, result.x.param, result.y.param)
  const changed = config && base && key(config) !== key(base)
  const notes: string[] = []
  if (result.enabledStages.length > 0) {
    notes.push(
      `${result.enabledStages.join(' and ')} ${result.enabledStages.length > 1 ? 'were' : 'was'} off: the sweep ` +
        `switched ${result.enabledStages.length > 1 ? 'them' : 'it'} on, and applying a cell does too.`,
    )
  }
  if (note) notes.push(note)
  if (restarted && status === 'running') notes.push('Other settings changed while the sweep ran: it started again on them.')
  if (changed) notes.push('Other settings changed since this sweep ran: the cells show the settings of then.')
  if (notes.length === 0) return null
  return (
    <ul className="sweep-view__notes">
      {notes.map((n) => (
        <li key={n}>{n}</li>
      ))}
    </ul>
  )
}

/** Text of a cell for its tooltip and accessible name. */
function describeCell(result: SweepResult, cell: SweepCell): string {
  const at = `${result.x.param} ${formatCount(cell.x)}, ${result.y.param} ${formatCount(cell.y)}`
  if (!cell.ok) return `${at}: invalid — ${cell.reason}`
  const text =
    `${at}: ${formatCount(cell.tokensAfter)} tokens after (${formatTokenDelta(cell.tokensAfter + cell.tokensSaved, cell.tokensAfter)}, ${formatPercentDelta(cell.tokensAfter + cell.tokensSaved, cell.tokensAfter)}), ` +
    `${cell.passes} pass${cell.passes === 1 ? '' : 'es'}, ${cell.factsLost} of ${result.factsTotal} important facts lost, ` +
    `${cell.neededLost} needed after compaction removed ${cell.neededLost === 1 ? 'it' : 'them'}`
  const over = cell.overWindow ? `. Peak context ${formatCount(cell.peakTokens)} tokens: ${overWindowText(result.window)}` : ''
  return cell.note ? `${text}${over}. ${cell.note}` : `${text}${over}`
}

/** The value shown in a cell for the chosen metric, and a second, smaller line. */
function cellValue(cell: SweepCellResult, metric: SweepMetricId, factsTotal: number): [string, string] {
  if (metric === 'tokensSaved') return [formatCount(cell.tokensSaved), `${cell.percentSaved}%`]
  if (metric === 'factsLost') return [String(cell.factsLost), `of ${formatCount(factsTotal)}`]
  if (metric === 'neededLost') return [String(cell.neededLost), 'needed later']
  return [String(cell.passes), cell.passes === 1 ? 'pass' : 'passes']
}

// The palette's heat-map shades (styles/app.css), under which --text stays readable at any mix.
const METRIC_COLOR: Record<SweepMetricId, string> = {
  tokensSaved: 'var(--heat-good)',
  factsLost: 'var(--heat-bad)',
  neededLost: 'var(--heat-bad)',
  passes: 'var(--heat-accent)',
}

/** Background of a cell: the metric's colour mixed in by where its value sits in the grid's range. */
function background(metric: SweepMetricId, t: number): string {
  return `color-mix(in srgb, ${METRIC_COLOR[metric]} ${Math.round(8 + 52 * t)}%, var(--surface))`
}

function HeatMap({ result, config }: { result: SweepResult; config: PipelineConfig | null }) {
  const { sweepMetric: metric } = useSweep()
  const { setSweepMetric: setMetric, applySweepCell: apply } = useSweepActions()
  const range = metricRange(result.cells, metric)
  const cx = currentSweepValue(config, result.x.param)
  const cy = currentSweepValue(config, result.y.param)
  const onGrid = result.x.values.includes(cx ?? NaN) && result.y.values.includes(cy ?? NaN)
  // What "Save as PNG" captures: the metric, its legend and the grid with its axes.
  const mapRef = useRef<HTMLDivElement>(null)
  return (
    <div ref={mapRef} className="heatmap">
      <div className="heatmap__bar">
        <Segmented
          label="Colour by"
          options={(Object.keys(METRICS) as SweepMetricId[]).map((m) => ({ value: m, label: METRICS[m].label }))}
          value={metric}
          onChange={setMetric}
        />
        <Legend metric={metric} range={range} window={result.window} />
        <SavePngButton target={mapRef} subject="heatmap" />
      </div>
      <p className="heatmap__hint muted" data-png-skip="">
        Click a cell to apply its {result.x.param} and {result.y.param} to the pipeline.
        {!onGrid && cx !== undefined && cy !== undefined && (
          <> The current settings ({result.x.param} {formatCount(cx)}, {result.y.param} {formatCount(cy)}) are not on the grid.</>
        )}
      </p>
      <div
        className="heatmap__grid"
        data-testid="sweep-grid"
        role="table"
        aria-label={`Sweep of ${result.x.param} by ${result.y.param}`}
        style={{ gridTemplateColumns: `auto repeat(${result.x.values.length}, minmax(64px, 1fr))` }}
      >
        <div className="heatmap__row" role="row">
          <div className="heatmap__corner" role="columnheader">
            <span>{result.y.param} ↓</span>
            <span>{result.x.param} →</span>
          </div>
          {result.x.values.map((v) => (
            <div key={`x${v}`} className="heatmap__head" role="columnheader">
              {formatCount(v)}
            </div>
          ))}
        </div>
        {result.y.values.map((yv, yi) => (
          <Row
            key={`y${yv}`}
            yv={yv}
            cells={result.cells[yi] ?? []}
            result={result}
            metric={metric}
            range={range}
            current={(xv) => xv === cx && yv === cy}
            onPick={apply}
          />
        ))}
      </div>
    </div>
  )
}

function Row(props: {
  yv: number
  cells: readonly (SweepCell | null)[]
  result: SweepResult
  metric: SweepMetricId
  range: [number, number] | null
  current: (xv: number) => boolean
  onPick: (x: number, y: number) => void
}) {
  const { yv, cells, result, metric, range, current, onPick } = props
  return (
    <div className="heatmap__row" role="row">
      <div className="heatmap__head heatmap__head--row" role="rowheader">
        {formatCount(yv)}
      </div>
      {result.x.values.map((xv, xi) => {
        const cell = cells[xi] ?? null
        const isCurrent = current(xv)
        const classes = ['heatmap__cell']
        if (isCurrent) classes.push('heatmap__cell--current')
        if (!cell) {
          return (
            <div key={xv} className={`${classes.join(' ')} heatmap__cell--pending`} role="cell" aria-label="not run yet">
              ·
            </div>
          )
        }
        const label = describeCell(result, cell)
        let content: [string, string]
        let style: CSSProperties | undefined
        if (cell.ok && cell.overWindow) {
          // Not coloured on the metric's scale: the agent would have failed at these settings.
          classes.push('heatmap__cell--over-window')
          content = [cellValue(cell, metric, result.factsTotal)[0], 'over window']
        } else if (cell.ok) {
          content = cellValue(cell, metric, result.factsTotal)
          style = { background: background(metric, range ? shade(METRICS[metric].value(cell), range) : 0.5) }
        } else {
          classes.push('heatmap__cell--invalid')
          content = ['invalid', '']
        }
        // The name ends with the text the cell shows, so a spoken label of what is seen matches it.
        const shown = [content[0], content[1]].filter((t) => t !== '').join(' ')
        return (
          <div key={xv} className="heatmap__slot" role="cell">
            <button
              type="button"
              className={classes.join(' ')}
              style={style}
              title={label}
              aria-label={`${label}; the cell shows ${shown}`}
              data-testid="sweep-cell"
              data-x={xv}
              data-y={yv}
              data-current={isCurrent || undefined}
              data-over-window={(cell.ok && cell.overWindow) || undefined}
              onClick={() => onPick(xv, yv)}
            >
              <span className="heatmap__value">
                {content[0]}
                {cell.ok && cell.note ? <sup title={cell.note}>*</sup> : null}
              </span>
              {/* A space between the two lines (a grid container does not render it), so the text reads as two words. */}
              {content[1] && <> <span className="heatmap__sub">{content[1]}</span></>}
            </button>
          </div>
        )
      })}
    </div>
  )
}

function Legend({ metric, range, window }: { metric: SweepMetricId; range: [number, number] | null; window: number }) {
  const better = METRICS[metric].higherIsBetter
  return (
    <div className="heatmap__legend" aria-label="Legend">
      <span className="heatmap__scale">
        <span>{range ? formatCount(range[0]) : '–'}</span>
        <span
          className="heatmap__gradient"
          style={{ background: `linear-gradient(to right, ${background(metric, 0)}, ${background(metric, 1)})` }}
        />
        <span>{range ? formatCount(range[1]) : '–'}</span>
        <span className="muted">
          {METRICS[metric].label}
          {better === true ? ' (more is better)' : better === false ? ' (fewer is better)' : ''}
        </span>
      </span>
      <span className="heatmap__key">
        <span className="heatmap__swatch heatmap__swatch--current" /> current settings
      </span>
      <span className="heatmap__key">
        <span className="heatmap__swatch heatmap__swatch--invalid" /> invalid (hover for why)
      </span>
      <span className="heatmap__key" title={`A run whose context goes ${overWindowText(window)}; never on the colour scale`}>
        <span className="heatmap__swatch heatmap__swatch--over-window" /> over the {formatCount(window)}-token window
      </span>
      <span className="heatmap__key">* the engine adjusted a value (hover)</span>
    </div>
  )
}
