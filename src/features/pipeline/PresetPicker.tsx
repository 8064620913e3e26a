import { useId } from 'react'
import { applyPreset, matchPreset, presetById, PRESETS, type PipelinePreset } from '../../engine/presets'
import { useConfig, usePipelineActions } from '../../state/hooks'
import './presets.css'

/** Source and differences of a preset, as one tooltip. */
function tooltipOf(p: PipelinePreset): string {
  return `${p.source}\n\nHow ours differs: ${p.differs}`
}

/**
 * Picks a preset: the whole stage list (order, on/off, every param) is replaced in one undo step;
 * the encoding and summarizer stay. Shows the preset the current settings match, else "Custom".
 */
export function PresetPicker() {
  const config = useConfig()
  const { applyConfig } = usePipelineActions()
  const id = useId()
  if (!config) return null
  const current = matchPreset(config)
  return (
    <div className="field preset-picker">
      <label htmlFor={id}>Preset</label>
      <span className="preset-picker__row">
        <select
          id={id}
          value={current?.id ?? ''}
          title={current ? tooltipOf(current) : 'Your own settings: no preset matches them exactly'}
          onChange={(e) => {
            const preset = presetById(e.target.value)
            if (preset) applyConfig(applyPreset(preset, config))
          }}
        >
          {!current && (
            <option value="" disabled>
              Custom settings
            </option>
          )}
          {PRESETS.map((p) => (
            <option key={p.id} value={p.id} title={tooltipOf(p)}>
              {p.name}
            </option>
          ))}
        </select>
        {current && (
          <span className="preset-picker__info" title={tooltipOf(current)} aria-label={`About ${current.name}: ${tooltipOf(current)}`} role="img">
            i
          </span>
        )}
      </span>
    </div>
  )
}
