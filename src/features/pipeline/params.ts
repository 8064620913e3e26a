import type { StageId } from '../../engine/model'
import { formatCount } from '../../components/format'
import { STAGE_DEFINITIONS, type ParamUnit, type SliderMax, type StageParamDef } from '../../engine/stages/definitions'
import { effectiveCount } from '../../engine/stages/params'
import { DEFAULT_WINDOW } from '../../engine/models'

/** How one numeric stage param is edited: read off its definition (stages/definitions.ts). */
export interface ParamSpec {
  key: string
  label: string
  /** The unit as the control shows it (short: `calls` for tool calls, so a row fits the panel). */
  unit: string
  min: number
  step: number
  /** Upper slider bound given the transcript's message count and tokens and the model's window (tokens). */
  max: (scale: { messages: number; tokens: number; window?: number }) => number
  help: string
}

const roundUp = (n: number, to: number) => Math.ceil(n / to) * to

/** The slider's upper end for a definition's `SliderMax` (see there). */
function sliderMax(max: SliderMax): ParamSpec['max'] {
  if (max === 'messages') return ({ messages }) => Math.max(50, roundUp(messages + 10, 10))
  if (max === 'tokens') return ({ tokens }) => Math.max(2000, roundUp(tokens * 1.2, 1000))
  if (max === 'window') return ({ tokens, window }) => Math.max(window ?? DEFAULT_WINDOW, roundUp(tokens * 1.2, 1000))
  return () => max
}

/** Units shown shorter beside a control than in the definition (the panel is narrow). */
const SHORT_UNIT: Partial<Record<ParamUnit, string>> = { 'tool calls': 'calls' }

/** The page control of a count param with `control: 'slider'`. */
function specOf(def: StageParamDef): ParamSpec {
  return {
    key: def.key,
    label: def.key,
    unit: SHORT_UNIT[def.unit ?? 'messages'] ?? def.unit ?? 'messages',
    min: Math.max(0, def.min ?? 0),
    step: def.slider?.step ?? 1,
    max: sliderMax(def.slider?.max ?? 100),
    help: def.help,
  }
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
    return { value: typeof params[key] === 'number' ? (params[key] as number) : e.value, replace: false }
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
