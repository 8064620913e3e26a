import { useId, useState } from 'react'
import type { ParamSpec } from './params'

interface ParamControlProps {
  spec: ParamSpec
  stageTitle: string
  value: number
  max: number
  disabled: boolean
  onChange: (value: number) => void
}

/** One param as a slider plus a number input; both commit on every change (runs coalesce). */
export function ParamControl({ spec, stageTitle, value, max, disabled, onChange }: ParamControlProps) {
  const id = useId()
  // The typed text may be briefly invalid (e.g. empty) without snapping back.
  const [draft, setDraft] = useState<string | null>(null)
  const upper = Math.max(max, value)
  return (
    <div className="param">
      <div className="param__row">
        <label htmlFor={id} className="param__label" title={spec.help}>
          {spec.label}
        </label>
        <input
          className="param__number"
          type="number"
          min={spec.min}
          step={spec.step}
          value={draft ?? String(value)}
          disabled={disabled}
          aria-label={`${stageTitle} ${spec.label} value`}
          onChange={(e) => {
            setDraft(e.target.value)
            const n = Number(e.target.value)
            if (e.target.value !== '' && Number.isFinite(n)) onChange(n)
          }}
          onBlur={() => setDraft(null)}
        />
        <span className="param__unit">{spec.unit}</span>
      </div>
      <input
        id={id}
        className="param__slider"
        type="range"
        min={spec.min}
        max={upper}
        step={spec.step}
        value={value}
        disabled={disabled}
        aria-label={`${stageTitle} ${spec.label}`}
        onChange={(e) => {
          setDraft(null)
          onChange(Number(e.target.value))
        }}
      />
    </div>
  )
}
