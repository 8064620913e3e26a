/**
 * The light part of the sweep heat map: which parameters a sweep can vary, parsing and
 * checking an axis, and the config of one cell. No pipeline code, so the page can use it without
 * loading the engine; `sweep.ts` runs the grid.
 */
import type { PipelineConfig, StageId } from '../model'
import { ALL_PARAMS, paramDefinition, type ParamUnit, type STAGE_DEFINITIONS, type SweepRange } from '../stages/definitions'
import { windowOf } from '../models'
import { summarizeTrigger } from '../stages/triggers'

/** Stage and unit of one sweepable parameter. */
interface SweepParamInfo {
  stage: StageId
  unit: ParamUnit
  /** Its default range (stages/definitions.ts `SweepRange`). */
  range: SweepRange
}

/**
 * The parameters a sweep can vary: every count param whose definition has `sweep`
 * (stages/definitions.ts), with its stage, unit and default range. A sweep key is the param's key,
 * so two stages may not both sweep a param of the same key.
 */
export const SWEEP_PARAMS = Object.fromEntries(
  ALL_PARAMS.filter(({ param }) => param.sweep !== undefined).map(({ stage, param }) => [
    param.key,
    { stage, unit: param.unit ?? 'messages', range: param.sweep! },
  ]),
) as Readonly<Record<SweepParam, SweepParamInfo>>

/** A parameter a sweep can vary: the key of a stage param whose definition has `sweep`. */
export type SweepParam = Extract<(typeof STAGE_DEFINITIONS)[number]['params'][number], { sweep: unknown }>['key']

/** Short names accepted for a parameter (`threshold` is insert-then-compress `threshold_tokens`). */
const SWEEP_PARAM_ALIASES = Object.fromEntries(
  ALL_PARAMS.flatMap(({ param }) => (param.sweep?.alias ? [[param.sweep.alias, param.key]] : [])),
) as Readonly<Record<string, SweepParam>>

/** At most this many values on one axis (a 50 × 50 grid is already 2,500 pipeline runs). */
const MAX_AXIS_VALUES = 50

/** The sweep parameter `name` or its alias names (`threshold`), or undefined. */
export function sweepParamOf(name: string): SweepParam | undefined {
  if (Object.hasOwn(SWEEP_PARAMS, name)) return name as SweepParam
  return Object.hasOwn(SWEEP_PARAM_ALIASES, name) ? SWEEP_PARAM_ALIASES[name] : undefined
}

/** One axis of the grid: a parameter and its values, in order (whole numbers ≥ 0). */
export interface SweepAxis {
  param: SweepParam
  values: number[]
}

/**
 * Parses an axis written `name=from..to:step` (inclusive; `:step` defaults to 1), or
 * `name=a,b,c`. `name` is a `SweepParam` or an alias. Values are whole numbers ≥ 0, in the order
 * given (a range ascends); at most `MAX_AXIS_VALUES`. Returns the axis or a one-line reason.
 * Examples: `keep_last=5..40:5` → 5, 10, …, 40; `target=4000,8000` → 4000, 8000.
 */
export function parseSweepAxis(text: string): { ok: true; axis: SweepAxis } | { ok: false; error: string } {
  const eq = text.indexOf('=')
  if (eq < 1) return { ok: false, error: `"${text}" is not name=from..to:step or name=a,b,c` }
  const name = text.slice(0, eq).trim()
  const param = sweepParamOf(name)
  if (!param) {
    return { ok: false, error: `unknown parameter "${name}"; one of: ${Object.keys(SWEEP_PARAMS).join(', ')}` }
  }
  const spec = text.slice(eq + 1).trim()
  const whole = (s: string) => (/^\d+$/.test(s.trim()) ? Number(s.trim()) : undefined)
  let values: number[]
  const range = /^(\d+)\s*\.\.\s*(\d+)(?:\s*:\s*(\S+))?$/.exec(spec)
  if (range) {
    const from = Number(range[1])
    const to = Number(range[2])
    const step = range[3] === undefined ? 1 : whole(range[3])
    if (step === undefined || step < 1) return { ok: false, error: `${name}: the step must be a whole number ≥ 1` }
    if (to < from) return { ok: false, error: `${name}: the range ${from}..${to} runs backwards` }
    const count = Math.floor((to - from) / step) + 1
    if (count > MAX_AXIS_VALUES) {
      return { ok: false, error: `${name}: ${count} values; at most ${MAX_AXIS_VALUES} per axis` }
    }
    values = Array.from({ length: count }, (_, i) => from + i * step)
  } else {
    const parts = spec.split(',').map(whole)
    if (spec === '' || parts.some((v) => v === undefined)) {
      return {
        ok: false,
        error: `${name}: "${spec}" is not from..to:step or a list of whole numbers ≥ 0 (a,b,c)`,
      }
    }
    values = parts as number[]
    if (values.length > MAX_AXIS_VALUES) {
      return { ok: false, error: `${name}: ${values.length} values; at most ${MAX_AXIS_VALUES} per axis` }
    }
    if (new Set(values).size !== values.length) return { ok: false, error: `${name}: a value is listed twice` }
  }
  return { ok: true, axis: { param, values } }
}

/**
 * Why a pair of axes cannot be swept, or null: an unknown parameter, the same parameter twice, an
 * empty axis, more than `MAX_AXIS_VALUES` values, a value that is not a whole number ≥ 0, or a
 * repeated value.
 */
export function checkAxes(x: SweepAxis, y: SweepAxis): string | null {
  for (const [label, axis] of [['x', x], ['y', y]] as const) {
    if (!Object.hasOwn(SWEEP_PARAMS, axis.param)) return `${label}: unknown parameter "${axis.param}"`
    if (axis.values.length === 0) return `${label}: ${axis.param} has no values`
    if (axis.values.length > MAX_AXIS_VALUES) return `${label}: at most ${MAX_AXIS_VALUES} values per axis`
    if (axis.values.some((v) => !Number.isInteger(v) || v < 0))
      return `${label}: ${axis.param} values must be whole numbers ≥ 0`
    if (new Set(axis.values).size !== axis.values.length) return `${label}: ${axis.param} lists a value twice`
  }
  if (x.param === y.param) return `x and y are both ${x.param}: choose two different parameters`
  return null
}

/** Values per axis of a default grid (8 × 8 = 64 cells). */
const DEFAULT_AXIS_LENGTH = 8

/** Of the default axis's values, at most this many lie below the current value (the rest above). */
const DEFAULT_BELOW = 3

/** A default axis as the page's form edits it: `from`, `to` and `step` (inclusive, `from + k × step`). */
export interface SweepSpan {
  from: number
  to: number
  step: number
}

/**
 * The transcript a default axis is scaled to: its message count and its Before tokens, and the
 * model window (`PipelineConfig.window`; absent: `DEFAULT_WINDOW`) no token axis goes past.
 */
export interface SweepScale {
  messages: number
  tokens: number
  window?: number
}

/** `x` rounded to 1, 2 or 5 × a power of ten, whichever is nearest by ratio (`x` > 0). */
function niceStep(x: number): number {
  const power = 10 ** Math.floor(Math.log10(x))
  const candidates = [1, 2, 5, 10].map((k) => k * power)
  let best = candidates[0]!
  for (const c of candidates) if (Math.abs(Math.log(c / x)) < Math.abs(Math.log(best / x))) best = c
  return best
}

/** A decimal without binary noise (0.1 + 0.2 → 0.3): 10 places are more than any share needs. */
const clean = (x: number) => Number(x.toFixed(10))

const roundUp = (n: number, to: number) => Math.max(to, Math.ceil(n / to) * to)

/**
 * The one rule for a parameter's default sweep axis, used by the page's Sweep tab and the CLI's
 * `sweep --x P`: 8 evenly spaced values that contain `current` exactly.
 *
 * - `current` > 0: the step is current / 4 rounded to 1, 2 or 5 × 10^k (at least 1 for a whole
 *   number param), three steps below the current value and four above — fewer below when the
 *   param's `min` (0 without one) is nearer, and then more above; fewer above when its `max` is
 *   nearer, and then more below. keep_last 20 → 5…40 step 5; compact_after 40 → 10…80 step 10;
 *   target 12,000 → 6,000…20,000 step 2,000; keep_steps 1 → 1…8.
 * - `current` 0 or absent (an optional param that is not set): the transcript-scaled range of
 *   the param's definition (stages/definitions.ts `SweepRange`: `round(messages / per) × times`
 *   messages, at least 1, or `tokens / per × times` tokens rounded up to 100), starting at 0 when
 *   `current` is 0 so that it stays on the grid.
 *
 * A token param's axis stops at the model window (`scale.window`): fewer values, none above it
 * (a context over the window is one the agent could not have sent); a current value above the
 * window keeps its own place, with the values below it.
 *
 * Units are the param's (messages, tokens, …; a share for `share` params). Pure.
 */
export function defaultSweepSpan(param: SweepParam, scale: SweepScale, current?: number): SweepSpan {
  const n = DEFAULT_AXIS_LENGTH
  const { stage, range, unit } = SWEEP_PARAMS[param]
  const def = paramDefinition(stage, param)
  const whole = def?.unit !== 'share'
  const cap = unit === 'tokens' ? windowOf(scale.window) : Infinity
  if (current !== undefined && Number.isFinite(current) && current > 0) {
    const step = whole ? Math.max(1, Math.round(niceStep(current / 4))) : niceStep(current / 4)
    const lo = def?.min ?? 0
    const hi = Math.min(def?.max ?? Infinity, Math.max(cap, current))
    const room = (from: number, to: number) => Math.max(0, Math.floor(clean((to - from) / step)))
    let below = Math.min(DEFAULT_BELOW, room(lo, current))
    const above = Math.min(n - 1 - below, room(current, hi))
    below = Math.min(n - 1 - above, room(lo, current))
    return { from: clean(current - below * step), to: clean(current + above * step), step }
  }
  const rule = range.step
  const step =
    typeof rule === 'number'
      ? rule
      : rule.of === 'messages'
        ? Math.max(1, Math.round(scale.messages / rule.per)) * (rule.times ?? 1)
        : roundUp((scale.tokens / rule.per) * (rule.times ?? 1), 100)
  const from = current === 0 ? 0 : range.from === 'step' ? step : range.from
  const count = Math.max(1, Math.min(n, Math.floor((cap - from) / step) + 1))
  return { from, to: clean(from + (count - 1) * step), step }
}

/**
 * The value `param` has in `config`: its stage's param when it is a number, else the
 * definition's numeric default (what the engine uses when it is absent); an unset summarize
 * `trigger_tokens` under a window trigger is that trigger's level (stages/triggers.ts); else
 * undefined (an optional param with no default that is not set: the stage does not use it).
 */
export function currentSweepValue(config: PipelineConfig | null | undefined, param: SweepParam): number | undefined {
  const stageId = SWEEP_PARAMS[param].stage
  const params = config?.stages.find((s) => s.id === stageId)?.params as Record<string, unknown> | undefined
  const v = params?.[param]
  if (typeof v === 'number') return v
  // An unset trigger_tokens under a window trigger (trigger_share, trigger_reserve) is that level.
  if (stageId === 'summarize' && param === 'trigger_tokens') {
    const rule = summarizeTrigger(params, windowOf(config?.window))
    if (rule.measure === 'tokens') return rule.threshold
  }
  const def = paramDefinition(stageId, param)
  return typeof def?.default === 'number' ? def.default : undefined
}

/** Reads a JSON-only value back as a deep copy (configs hold only JSON data). */
function cloneJson<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T
}

/**
 * `base` with `param` = `value` on its stage, and that stage switched on (a sweep of a stage that
 * is off would be a grid of identical cells). Everything else — order, other params, encoding,
 * summarizer — is `base`'s. Pure; `base` is not touched.
 */
export function configWith(base: PipelineConfig, ...settings: { param: SweepParam; value: number }[]): PipelineConfig {
  const config = cloneJson(base)
  for (const { param, value } of settings) {
    const stageId = SWEEP_PARAMS[param].stage
    const stage = config.stages.find((s) => s.id === stageId)
    if (!stage) continue
    stage.enabled = true
    ;(stage.params as unknown as Record<string, number>)[param] = value
  }
  return config
}
