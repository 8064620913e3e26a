import { useId, useState } from 'react'
import { formatCount } from '../../components/format'
import { HelpButton, HelpText, useHelp } from '../../components/Help'
import type { PipelineConfig } from '../../engine/model'
import { windowOf } from '../../engine/models'
import { overWindowText } from '../../engine/analysis/peak-context'
import { applyPreset, matchPreset, presetById, presetVersionNote, PRESETS, type PipelinePreset } from '../../engine/presets'
import type { CompareOutcome, RunFigures } from '../../worker/protocol'
import { useComparison, useConfig, useInfo, usePipelineActions } from '../../state/hooks'
import type { ComparisonSide } from '../../state/slices/compare'
import './presets.css'

/** Source (with the date it was read), the window it sets and how ours differs, as one tooltip. */
function presetTooltip(p: PipelinePreset): string {
  const window = p.window === undefined ? '' : `\n\nSets the model window to ${formatCount(p.window)} tokens.`
  return `Source: ${p.source}${window}\n\nHow ours differs: ${p.differs}`
}

/** The label of the page's own settings in a comparison: the preset they match, or "Current settings". */
function currentSide(config: PipelineConfig): Omit<ComparisonSide, 'outcome'> {
  const current = matchPreset(config)
  return current ? { label: current.name, presetId: current.id, config } : { label: 'Current settings', config }
}

/**
 * Picks a preset: the whole stage list (order, on/off, every param) is replaced in one undo step,
 * and a preset made for a model sets the model window; the encoding and summarizer stay. A preset
 * whose trigger moved between the agent's versions takes the open file's recorded version and
 * says which versions its trigger holds for (engine `presetVersionNote`). Shows the
 * preset the current settings match, else "Custom". Under it, *Compare*: the open transcript
 * under the current settings and under another preset, side by side (the worker's figures).
 */
export function PresetPicker() {
  const config = useConfig()
  const info = useInfo()
  const { applyConfig } = usePipelineActions()
  const { comparison, compareConfigs, closeComparison } = useComparison()
  const id = useId()
  const otherId = useId()
  const [other, setOther] = useState<string | null>(null)
  const help = useHelp()
  if (!config) return null
  const current = matchPreset(config)
  // Which of the agent's versions the preset's trigger holds for, with the open file's version.
  const versionNote = presetVersionNote(config, info)
  // The preset to compare with: the one picked, else the first that is not the current one.
  const otherPreset = presetById(other ?? '') ?? PRESETS.find((p) => p.id !== current?.id)
  return (
    <div className="field preset-picker">
      <label htmlFor={id}>Preset</label>
      <span className="preset-picker__row">
        <select
          id={id}
          value={current?.id ?? ''}
          title={current ? presetTooltip(current) : 'Your own settings: no preset matches them exactly'}
          onChange={(e) => {
            const preset = presetById(e.target.value)
            if (preset) applyConfig(applyPreset(preset, config, info))
          }}
        >
          {!current && (
            <option value="" disabled>
              Custom settings
            </option>
          )}
          {PRESETS.map((p) => (
            <option key={p.id} value={p.id} title={presetTooltip(p)}>
              {p.name}
            </option>
          ))}
        </select>
        {current && <HelpButton help={help} label={`About ${current.name}`} title={presetTooltip(current)} />}
      </span>
      {current && <HelpText help={help} text={presetTooltip(current)} testId="preset-help" />}
      {versionNote && (
        <p className="preset-picker__version muted" data-testid="preset-version">
          {versionNote}
        </p>
      )}
      <span className="preset-picker__row preset-picker__compare">
        <label htmlFor={otherId} className="muted">
          vs
        </label>
        <select
          id={otherId}
          value={otherPreset?.id ?? ''}
          title={otherPreset ? presetTooltip(otherPreset) : undefined}
          aria-label="Preset to compare with"
          onChange={(e) => setOther(e.target.value)}
        >
          {PRESETS.map((p) => (
            <option key={p.id} value={p.id} title={presetTooltip(p)}>
              {p.name}
            </option>
          ))}
        </select>
        <button
          type="button"
          className="button button--small"
          disabled={!info || !otherPreset}
          title={info ? 'Run this transcript under the current settings and under the other preset, side by side' : 'Open a transcript first'}
          onClick={() => {
            if (!otherPreset) return
            compareConfigs([
              currentSide(config),
              { label: otherPreset.name, presetId: otherPreset.id, config: applyPreset(otherPreset, config, info) },
            ])
          }}
        >
          Compare
        </button>
      </span>
      {comparison && (
        <PresetComparisonView
          sides={comparison.sides}
          onApply={(side) => applyConfig(side.config)}
          onClose={closeComparison}
        />
      )}
    </div>
  )
}

/** One figure of a side: the text, or "…" while it runs, "—" when it failed. */
function figure(outcome: CompareOutcome | null, pick: (f: RunFigures) => string): string {
  if (!outcome) return '…'
  return outcome.ok ? pick(outcome.figures) : '—'
}

interface ComparisonViewProps {
  sides: readonly [ComparisonSide, ComparisonSide]
  onApply: (side: ComparisonSide) => void
  onClose: () => void
}

/**
 * The two sides' figures as a small table: tokens after (and saved), the peak context (marked when
 * it is over the side's window: `overWindowText`), passes, needed facts lost.
 */
function PresetComparisonView({ sides, onApply, onClose }: ComparisonViewProps) {
  const rows: { label: string; value: (f: RunFigures, side: ComparisonSide) => string }[] = [
    { label: 'tokens after', value: (f) => formatCount(f.tokensAfter) },
    {
      label: 'peak context',
      value: (f, side) => {
        const window = windowOf(side.config.window)
        return f.peakTokens > window ? `${formatCount(f.peakTokens)} — ${overWindowText(window)}` : formatCount(f.peakTokens)
      },
    },
    {
      label: 'saved',
      value: (f) => (f.tokensBefore > 0 ? `${String(Math.round(((f.tokensBefore - f.tokensAfter) / f.tokensBefore) * 1000) / 10)}%` : '0%'),
    },
    { label: 'passes', value: (f) => formatCount(f.passes) },
    { label: 'needed facts lost', value: (f) => formatCount(f.neededLost) },
  ]
  const notes = sides.flatMap((s) => {
    const o = s.outcome
    if (!o) return []
    if (!o.ok) return o.cancelled ? [] : [`${s.label}: ${o.error}`]
    return o.note ? [o.note] : []
  })
  return (
    <div className="preset-compare" data-testid="preset-comparison" aria-live="polite">
      <table className="preset-compare__table">
        <thead>
          <tr>
            <th scope="col">
              <span className="visually-hidden">Figure</span>
            </th>
            {sides.map((s, i) => (
              <th key={i} scope="col" data-testid="preset-comparison-side">
                {s.label}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((r) => (
            <tr key={r.label}>
              <th scope="row">{r.label}</th>
              {sides.map((s, i) => (
                <td key={i} data-testid={`compare-${r.label.replace(/ /g, '-')}`}>
                  {figure(s.outcome, (f) => r.value(f, s))}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
      {[...new Set(notes)].map((n) => (
        <p key={n} className="preset-compare__note muted">
          {n}
        </p>
      ))}
      <div className="preset-compare__actions">
        {sides[1].presetId !== undefined && (
          <button type="button" className="button button--small" onClick={() => onApply(sides[1])}>
            Use {sides[1].label}
          </button>
        )}
        <button type="button" className="button button--small" onClick={onClose}>
          Close
        </button>
      </div>
    </div>
  )
}
