import { useId, useState } from 'react'
import { formatCount } from '../../components/format'
import type { EffectiveParam, ParamSpec } from './params'

interface ParamControlProps {
  spec: ParamSpec
  stageTitle: string
  value: number
  /** What the engine makes of `value` (default, clamp); shown when it differs. */
  effective: EffectiveParam
  /** Upper bound of the slider; the number input accepts more, the slider then sits at its end. */
  max: number
  disabled: boolean
  onChange: (value: number) => void
}

/**
 * One param as a slider plus a number input; both commit on every change (runs coalesce). On
 * blur a value the engine would not use (non-positive, non-numeric) is replaced by the one it
 * does use, so the screen never shows a number the engine ignores.
 */
export function ParamControl(props: ParamControlProps) {
  const { spec, stageTitle, value, effective, max, disabled, onChange } = props
  const id = useId()
  const noteId = useId()
  // The typed text may be briefly invalid (e.g. empty) without snapping back.
  const [draft, setDraft] = useState<string | null>(null)
  const commit = () => {
    setDraft(null)
    if (effective.replace && Number.isFinite(effective.value)) onChange(effective.value)
  }
  const typedEmpty = draft !== null && (draft.trim() === '' || !Number.isFinite(Number(draft)))
  const note = typedEmpty ? `not a number: engine keeps ${formatCount(value)}` : effective.note
  return (
    <div className="param">
      <div className="param__row">
        <label htmlFor={id} className="param__label" title={spec.help}>
          {spec.label}
        </label>
        <span className="param__entry">
          <input
            className="param__number"
            type="number"
            min={spec.min}
            step={spec.step}
            value={draft ?? String(value)}
            disabled={disabled}
            aria-label={`${stageTitle} ${spec.label} value`}
            aria-describedby={note ? noteId : undefined}
            onChange={(e) => {
              setDraft(e.target.value)
              const n = Number(e.target.value)
              if (e.target.value.trim() !== '' && Number.isFinite(n)) onChange(n)
            }}
            onBlur={commit}
            onKeyDown={(e) => {
              if (e.key === 'Enter') commit()
            }}
          />
          <span className="param__unit">{spec.unit}</span>
        </span>
      </div>
      <input
        id={id}
        className="param__slider"
        type="range"
        min={spec.min}
        max={max}
        step={spec.step}
        value={Math.min(Math.max(value, spec.min), max)}
        disabled={disabled}
        aria-label={`${stageTitle} ${spec.label}`}
        onChange={(e) => {
          setDraft(null)
          onChange(Number(e.target.value))
        }}
      />
      {note && !disabled && (
        <p className="param__note" id={noteId} data-testid={`param-note-${spec.key}`}>
          {note}
        </p>
      )}
    </div>
  )
}
