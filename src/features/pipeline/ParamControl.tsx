import { Fragment, useId, useState } from 'react'
import { formatCount } from '../../components/format'
import { HelpButton, HelpText, useHelp } from '../../components/Help'
import type { StageParamDef } from '../../engine/stages/definitions'
import {
  fromPercent,
  positionOf,
  SLIDER_POSITIONS,
  sliderRange,
  toPercent,
  valueAt,
  windowShare,
  type EffectiveParam,
  type ParamSpec,
} from './params'

/** A snake_case label with a line-break opportunity after each `_`: a long one wraps at its words. */
function breakable(label: string) {
  const parts = label.split('_')
  return parts.map((part, i) => (
    <Fragment key={i}>
      {part}
      {i < parts.length - 1 && (
        <>
          _<wbr />
        </>
      )}
    </Fragment>
  ))
}

interface ParamControlProps {
  spec: ParamSpec
  stageTitle: string
  /** The param's value in its own unit (a share: 0–1); undefined when absent and `spec.offWhenAbsent` (off). */
  value: number | undefined
  /** What the engine makes of `value` (default, clamp); shown when it differs. */
  effective: EffectiveParam
  /** Upper bound of the slider; the number input accepts more, the slider then sits at its end. */
  max: number
  /** The model's context window in tokens: a token param shows its share of it. */
  window: number
  disabled: boolean
  /** Why the param has no effect given the stage's other params (engine `unusedParam`): greyed with it. */
  unused?: string | undefined
  /** A new value; undefined turns an optional param off (the number box emptied). */
  onChange: (value: number | undefined) => void
}

/**
 * One count param as a slider plus a number input; both commit on every change (runs coalesce).
 * A param whose slider end grows with the transcript (`spec.zoom`) slides over a logarithmic
 * range around its value (`sliderRange`), fixed during a drag and re-centred after it; the number
 * box takes any value. A share is shown and typed as %; a token count shows its share of the
 * model window beside it. On blur a value the engine would not use (non-positive, non-numeric) is
 * replaced by the one it does use, so the screen never shows a number the engine ignores; an
 * optional param without a default (a token trigger) is off when its box is empty. Its help (the
 * definition's text) is a tooltip on the label and, for the keyboard, behind an ⓘ button.
 */
export function ParamControl(props: ParamControlProps) {
  const { spec, stageTitle, value, effective, max, window, disabled, unused, onChange } = props
  const id = useId()
  const noteId = useId()
  const help = useHelp()
  // The typed text may be briefly invalid (e.g. empty) without snapping back.
  const [draft, setDraft] = useState<string | null>(null)
  // The value the slider's range is centred on while a drag runs (null: the current value).
  const [dragAnchor, setDragAnchor] = useState<number | null>(null)
  const off = value === undefined
  const shown = (v: number) => String(spec.percent ? toPercent(v) : v)
  const fromShown = (n: number) => (spec.percent ? fromPercent(n) : n)
  const commit = () => {
    setDraft(null)
    if (!off && effective.replace && Number.isFinite(effective.value)) onChange(effective.value)
  }
  const typedEmpty = draft !== null && (draft.trim() === '' || !Number.isFinite(Number(draft)))
  const note =
    typedEmpty && !spec.offWhenAbsent
      ? `not a number: engine keeps ${value === undefined ? '' : spec.percent ? `${shown(value)}%` : formatCount(value)}`
      : off
        ? undefined
        : effective.note
  const range = sliderRange(spec, max, dragAnchor ?? value ?? spec.min)
  const endDrag = () => setDragAnchor(null)
  const className = ['param', unused ? 'param--unused' : '', off ? 'param--off' : ''].filter(Boolean).join(' ')
  return (
    <div className={className} data-param={spec.key}>
      <div className="param__row">
        <label htmlFor={id} className="param__label" title={spec.help}>
          {breakable(spec.label)}
        </label>
        <HelpButton help={help} label={`About ${spec.label}`} />
        <span className="param__entry">
          <input
            className="param__number"
            type="number"
            min={spec.percent ? toPercent(spec.min) : spec.min}
            step={spec.percent ? 'any' : spec.step}
            value={draft ?? (off ? '' : shown(value))}
            placeholder={spec.offWhenAbsent ? 'off' : undefined}
            disabled={disabled}
            title={spec.offWhenAbsent ? `${spec.help} Empty: off.` : spec.help}
            aria-label={`${stageTitle} ${spec.label} value`}
            aria-describedby={note || unused ? noteId : undefined}
            onChange={(e) => {
              setDraft(e.target.value)
              const text = e.target.value.trim()
              const n = Number(text)
              if (text === '' && spec.offWhenAbsent) onChange(undefined)
              else if (text !== '' && Number.isFinite(n)) onChange(fromShown(n))
            }}
            onBlur={commit}
            onKeyDown={(e) => {
              if (e.key === 'Enter') commit()
            }}
          />
          <span className="param__unit">{spec.unit}</span>
        </span>
      </div>
      <HelpText help={help} text={spec.offWhenAbsent ? `${spec.help} Empty: off.` : spec.help} testId={`param-help-${spec.key}`} />
      <input
        id={id}
        className="param__slider"
        type="range"
        min={range.log ? 0 : spec.percent ? toPercent(range.lo) : range.lo}
        max={range.log ? SLIDER_POSITIONS : spec.percent ? toPercent(range.hi) : range.hi}
        step={range.log ? 1 : spec.percent ? toPercent(spec.step) : spec.step}
        value={
          range.log
            ? positionOf(value ?? range.lo, range)
            : shown(Math.min(Math.max(value ?? range.lo, range.lo), range.hi))
        }
        disabled={disabled || off}
        title={off ? 'Off: type a value in the box to turn it on' : undefined}
        aria-label={`${stageTitle} ${spec.label}`}
        aria-valuetext={value === undefined ? 'off' : `${shown(value)} ${spec.unit}`}
        data-range={range.log ? `${formatCount(range.lo)}–${formatCount(range.hi)}` : undefined}
        onPointerDown={() => setDragAnchor(value ?? spec.min)}
        onPointerUp={endDrag}
        onLostPointerCapture={endDrag}
        onBlur={endDrag}
        onKeyDown={(e) => {
          // On a logarithmic range one position is a sliver: an arrow key moves one step of the param.
          if (!range.log || value === undefined) return
          const delta = e.key === 'ArrowRight' || e.key === 'ArrowUp' ? 1 : e.key === 'ArrowLeft' || e.key === 'ArrowDown' ? -1 : 0
          if (delta === 0) return
          e.preventDefault()
          setDraft(null)
          onChange(Math.max(spec.min, Number((value + delta * spec.step).toPrecision(12))))
        }}
        onChange={(e) => {
          setDraft(null)
          const n = Number(e.target.value)
          onChange(range.log ? valueAt(n, range, spec.step) : fromShown(n))
        }}
      />
      {range.log && !off && (
        <p className="param__range muted" aria-hidden="true">
          <span>{formatCount(Math.ceil(range.lo))}</span>
          <span>{formatCount(Math.floor(range.hi))}</span>
        </p>
      )}
      {spec.tokens && !off && value !== undefined && Number.isFinite(value) && (
        <p className="param__share muted" data-testid={`param-share-${spec.key}`}>
          {formatCount(value)} tokens · {windowShare(value, window)}
        </p>
      )}
      {(unused || (note && !disabled)) && (
        <p className="param__note" id={noteId} data-testid={`param-note-${spec.key}`}>
          {unused ?? note}
        </p>
      )}
    </div>
  )
}

interface FlagControlProps {
  def: StageParamDef
  stageTitle: string
  value: boolean
  disabled: boolean
  unused?: string | undefined
  onChange: (value: boolean) => void
}

/** A flag param as a checkbox, its definition's help as tooltip and behind an ⓘ button; greyed with the reason when unused. */
export function FlagControl({ def, stageTitle, value, disabled, unused, onChange }: FlagControlProps) {
  const noteId = useId()
  const help = useHelp()
  return (
    <div className={unused ? 'param param--unused' : 'param'} data-param={def.key}>
      <div className="param__row">
        <label className="param__row param__toggle" title={def.help}>
          <input
            type="checkbox"
            checked={value}
            disabled={disabled}
            aria-label={`${stageTitle} ${def.key}`}
            aria-describedby={unused ? noteId : undefined}
            onChange={(e) => onChange(e.target.checked)}
          />
          <span className="param__label">{def.key}</span>
        </label>
        <HelpButton help={help} label={`About ${def.key}`} />
      </div>
      <HelpText help={help} text={def.help} testId={`param-help-${def.key}`} />
      {unused && (
        <p className="param__note" id={noteId} data-testid={`param-note-${def.key}`}>
          {unused}
        </p>
      )}
    </div>
  )
}

interface ChoiceControlProps {
  def: StageParamDef
  choices: readonly string[]
  stageTitle: string
  /** The chosen value; absent reads as the first choice (the engine's default). */
  value: string | undefined
  disabled: boolean
  unused?: string | undefined
  onChange: (value: string) => void
}

/** A choice param as a list of its choices, its definition's help as tooltip and behind an ⓘ button. */
export function ChoiceControl({ def, choices, stageTitle, value, disabled, unused, onChange }: ChoiceControlProps) {
  const id = useId()
  const noteId = useId()
  const help = useHelp()
  return (
    <div className={unused ? 'param param--unused' : 'param'} data-param={def.key}>
      <div className="param__row">
        <label htmlFor={id} className="param__label" title={def.help}>
          {def.key}
        </label>
        <HelpButton help={help} label={`About ${def.key}`} />
        <select
          id={id}
          className="param__select"
          value={value ?? choices[0]}
          disabled={disabled}
          title={def.help}
          aria-label={`${stageTitle} ${def.key}`}
          aria-describedby={unused ? noteId : undefined}
          onChange={(e) => onChange(e.target.value)}
        >
          {choices.map((c) => (
            <option key={c} value={c}>
              {c}
            </option>
          ))}
        </select>
      </div>
      <HelpText help={help} text={def.help} testId={`param-help-${def.key}`} />
      {unused && (
        <p className="param__note" id={noteId} data-testid={`param-note-${def.key}`}>
          {unused}
        </p>
      )}
    </div>
  )
}
