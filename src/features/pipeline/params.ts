import type { StageId } from '../../engine/model'
import { formatCount } from '../../components/format'
import { STAGE_DEFINITIONS, type ParamUnit, type SliderMax, type StageParamDef } from '../../engine/stages/definitions'
import { effectiveCount } from '../../engine/stages/params'
import { windowOf } from '../../engine/models'

/** How one numeric stage param is edited: read off its definition (stages/definitions.ts). */
export interface ParamSpec {
  key: string
  label: string
  /** The unit as the control shows it (short: `calls` for tool calls, `%` for a share). */
  unit: string
  /** Least and step in the param's own unit (a share: 0–1). */
  min: number
  step: number
  /** Upper slider bound given the transcript's message count and tokens and the model's window (tokens). */
  max: (scale: { messages: number; tokens: number; window?: number }) => number
  help: string
  /**
   * The slider's upper end grows with the transcript (`SliderMax` 'messages' | 'tokens' |
   * 'window'): the slider then spans a logarithmic range around the current value (`sliderRange`).
   */
  zoom: boolean
  /** A share (unit 'share', 0–1): shown and typed as a percentage. */
  percent: boolean
  /** Measured in tokens: shown beside its share of the model window. */
  tokens: boolean
  /** Optional with no default: absent means off (an empty number box), as the engine reads it. */
  offWhenAbsent: boolean
}

const roundUp = (n: number, to: number) => Math.ceil(n / to) * to

/**
 * The slider's upper end for a definition's `SliderMax` (see there); a token count never slides
 * past the model window (a context over it is one the agent could not send): `tokens` is 1.2 × the
 * transcript's tokens capped at the window, `window` the window itself.
 */
function sliderMax(max: SliderMax): ParamSpec['max'] {
  if (max === 'messages') return ({ messages }) => Math.max(50, roundUp(messages + 10, 10))
  if (max === 'tokens') return ({ tokens, window }) => Math.min(windowOf(window), Math.max(2000, roundUp(tokens * 1.2, 1000)))
  if (max === 'window') return ({ window }) => windowOf(window)
  return () => max
}

/** Units shown shorter beside a control than in the definition (the panel is narrow). */
const SHORT_UNIT: Partial<Record<ParamUnit, string>> = { 'tool calls': 'calls' }

/** The page control of a count param with `control: 'slider'`. */
function specOf(def: StageParamDef): ParamSpec {
  const max = def.slider?.max ?? 100
  return {
    key: def.key,
    label: def.key,
    unit: def.unit === 'share' ? '%' : (SHORT_UNIT[def.unit ?? 'messages'] ?? def.unit ?? 'messages'),
    min: Math.max(0, def.min ?? 0),
    step: def.slider?.step ?? 1,
    max: sliderMax(max),
    help: def.help,
    zoom: typeof max !== 'number',
    percent: def.unit === 'share',
    tokens: def.unit === 'tokens',
    offWhenAbsent: def.optional === true && def.default === undefined,
  }
}

/** One control of a stage card, in the definition's order (`control` of stages/definitions.ts). */
export type StageControl =
  | { kind: 'slider'; key: string; spec: ParamSpec }
  | { kind: 'toggle'; key: string; def: StageParamDef }
  | { kind: 'select'; key: string; def: StageParamDef; choices: readonly string[] }

/** Every control a stage card renders from its definition, in order (custom controls are the card's own). */
export const STAGE_CONTROLS: Record<StageId, StageControl[]> = Object.fromEntries(
  STAGE_DEFINITIONS.map((d) => [
    d.id,
    (d.params as readonly StageParamDef[]).flatMap((def): StageControl[] => {
      if (def.control === 'slider' && def.type === 'count') return [{ kind: 'slider', key: def.key, spec: specOf(def) }]
      if (def.control === 'toggle' && def.type === 'flag') return [{ kind: 'toggle', key: def.key, def }]
      if (def.control === 'select' && def.type === 'choice' && def.choices) {
        return [{ kind: 'select', key: def.key, def, choices: def.choices }]
      }
      return []
    }),
  ]),
) as Record<StageId, StageControl[]>

/**
 * How many times the upper end of a zoomed slider's range is its lower end (in steps above `min`, plus one):
 * 9, from a third of the value to three times it, so a 245 px track moves a value by about 1.3×
 * per 30 px (keep_last 20 → 26) and any value from the least to the transcript's size is a drag
 * or a few away (the range re-centres after each).
 */
const ZOOM_FACTOR = 9

/**
 * A zoomed slider whose full range holds at most this many steps stays linear: a 245 px track
 * then moves at most 8 steps per 30 px.
 */
const LINEAR_SPAN = 64

/** Positions of a zoomed slider's `<input type=range>` (0 … SLIDER_POSITIONS). */
export const SLIDER_POSITIONS = 1000

/**
 * The values a slider spans: `lo`…`hi` in the param's unit, linear, or logarithmic in
 * `u = (value − base) / unit + 1` (`log`: equal drags multiply `u` by equal factors). A zoomed
 * spec whose full range holds more than `LINEAR_SPAN` steps spans `ZOOM_FACTOR` around `anchor`
 * (from a third of its `u` to three times it, counted in steps, shifted to stay within
 * `min`…`max`: the anchor sits mid-track, or at the left end near `min`); any other spans
 * `min`…`max` linearly.
 */
export interface SliderRange {
  lo: number
  hi: number
  log: boolean
  /** The param's least value (where `u` is 1). */
  base: number
  /** The param's step: `u` counts steps, so a token budget at 0 spans 0 … 8 steps, not 0 … 8 tokens. */
  unit: number
}

/** The range a slider of `spec` spans around `anchor`, given its full upper end `max` (see `SliderRange`). */
export function sliderRange(spec: Pick<ParamSpec, 'min' | 'step' | 'zoom'>, max: number, anchor: number): SliderRange {
  const { min } = spec
  const unit = spec.step > 0 ? spec.step : 1
  const top = Math.max(max, min)
  const full = (top - min) / unit + 1
  if (!spec.zoom || full <= LINEAR_SPAN) return { lo: min, hi: top, log: false, base: min, unit }
  const u = Math.min(Math.max(Number.isFinite(anchor) ? (anchor - min) / unit + 1 : 1, 1), full)
  let uLo = Math.max(1, u / Math.sqrt(ZOOM_FACTOR))
  let uHi = uLo * ZOOM_FACTOR
  if (uHi > full) {
    uHi = full
    uLo = full / ZOOM_FACTOR
  }
  return { lo: min + (uLo - 1) * unit, hi: min + (uHi - 1) * unit, log: true, base: min, unit }
}

/** `u` of `value` in `range` (see `SliderRange`). */
const stepsOf = (value: number, range: SliderRange) => (value - range.base) / range.unit + 1

/** The slider position (0 … SLIDER_POSITIONS) of `value` in `range`, clamped to its ends. */
export function positionOf(value: number, range: SliderRange): number {
  if (!Number.isFinite(value) || range.hi <= range.lo) return 0
  const v = Math.min(Math.max(value, range.lo), range.hi)
  const t = range.log
    ? Math.log(stepsOf(v, range) / stepsOf(range.lo, range)) / Math.log(stepsOf(range.hi, range) / stepsOf(range.lo, range))
    : (v - range.lo) / (range.hi - range.lo)
  return Math.round(t * SLIDER_POSITIONS)
}

/**
 * The value at slider position `position` of `range`, rounded to `step` and kept within the
 * range's ends (a share's step is 0.01: whole percent).
 */
export function valueAt(position: number, range: SliderRange, step: number): number {
  const t = Math.min(Math.max(position / SLIDER_POSITIONS, 0), 1)
  const uLo = stepsOf(range.lo, range)
  const raw = range.log
    ? range.base + (uLo * Math.pow(stepsOf(range.hi, range) / uLo, t) - 1) * range.unit
    : range.lo + t * (range.hi - range.lo)
  const rounded = step > 0 ? Math.round(raw / step) * step : raw
  const floor = step > 0 ? Math.ceil(range.lo / step - 1e-9) * step : range.lo
  const ceiling = step > 0 ? Math.max(floor, Math.floor(range.hi / step + 1e-9) * step) : range.hi
  // Float noise (0.07 × 100) never reaches the config.
  return Number(Math.min(Math.max(rounded, floor), ceiling).toPrecision(12))
}

/** `200K`, `1M`, `1.05M`, `262.1K`: a window size in tokens, short (for "83.5% of 200K"). */
export function shortTokens(n: number): string {
  const trim = (x: number, digits: number) => String(Number(x.toFixed(digits)))
  if (n >= 1_000_000) return `${trim(n / 1_000_000, 2)}M`
  if (n >= 1000) return `${trim(n / 1000, 1)}K`
  return formatCount(n)
}

/** `83.5% of 200K`: `tokens` as a share of the model window `window` (tokens), to 0.1%. */
export function windowShare(tokens: number, window: number): string {
  return `${String(Number(((tokens / window) * 100).toFixed(1)))}% of ${shortTokens(window)}`
}

/** A share (0–1) as the percentage the number box shows: `0.835` → `83.5` (float noise removed). */
export function toPercent(share: number): number {
  return Number((share * 100).toPrecision(10))
}

/** A typed percentage as the share the engine reads: `83.5` → `0.835`. */
export function fromPercent(percent: number): number {
  return Number((percent / 100).toPrecision(10))
}

/** Every slider-edited param per stage, from the stage definitions (SPEC §3). */
export const STAGE_PARAMS: Record<StageId, ParamSpec[]> = Object.fromEntries(
  STAGE_DEFINITIONS.map((d) => [
    d.id,
    (d.params as readonly StageParamDef[]).filter((p) => p.control === 'slider').map(specOf),
  ]),
) as Record<StageId, ParamSpec[]>

/** Per stage: its title, a one-line description, and what it uses without a control. */
export const STAGE_INFO: Record<StageId, { title: string; description: string; fixed?: string }> = Object.fromEntries(
  STAGE_DEFINITIONS.map((d) => [d.id, { title: d.title, description: d.description, fixed: 'fixed' in d ? d.fixed : undefined }]),
) as Record<StageId, { title: string; description: string; fixed?: string }>

/**
 * What the engine makes of one typed param: the value it uses, whether the typed value should
 * be replaced by it when the input is committed (it falls back to a default or is truncated), and
 * a short note when they differ (`default 20`, `clamped to keep_last (20)`).
 */
export interface EffectiveParam {
  value: number
  replace: boolean
  note?: string
}

/**
 * The value the engine uses for `key` of `stage` given all that stage's params, as the engine
 * reads it (stages/params.ts `effectiveCount`, from the param's definition: below `min` or not a
 * number → its default, truncated unless fractional, raised to its `atLeast` param), worded for the
 * control. An absent optional param shows its default without a note. Params the engine takes as
 * given pass through.
 */
export function effectiveParam(
  stage: StageId,
  key: string,
  params: Readonly<Record<string, unknown>>,
): EffectiveParam {
  const e = effectiveCount(stage, key, params)
  if (e.error !== undefined || !Number.isFinite(e.value)) {
    const value = typeof params[key] === 'number' ? (params[key] as number) : e.value
    // The stage stops with this error (its card shows it too): say it where the value was typed.
    return e.error !== undefined ? { value, replace: false, note: e.error } : { value, replace: false }
  }
  const typed = params[key]
  const truncated = typeof typed === 'number' && Math.trunc(typed) === e.value
  const own = e.raisedTo ? undefined : e.value
  const note = e.raisedTo
    ? `clamped to ${e.raisedTo.key} (${formatCount(e.raisedTo.value)})`
    : !e.fellBack
      ? undefined
      : truncated
        ? `engine uses ${formatCount(own!)}`
        : `engine uses the default, ${formatCount(own!)}`
  return note === undefined ? { value: e.value, replace: e.fellBack } : { value: e.value, replace: e.fellBack, note }
}
