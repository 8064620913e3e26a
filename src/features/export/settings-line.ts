import { formatCount, formatCountOf } from '../../components/format'
import type { PipelineConfig } from '../../engine/model'
import { windowOf } from '../../engine/models'
import { calibrationLabel, type Calibration } from '../../engine/usage/calibration-terms'
import { stageDefinition, type StageParamDef } from '../../engine/stages/definitions'
import { codePointLength } from '../../engine/util/text'

/** A text param longer than this many code points is printed as its length, not its text (a prompt). */
const LONG_TEXT = 40

/** A param's value in the line: counts with their unit (shares as %), lists joined, long text as its length. */
function valueText(def: StageParamDef, value: unknown): string {
  if (typeof value === 'number') {
    if (def.unit === 'share') return `${Math.round(value * 1000) / 10}%`
    // The definitions' units are plural: `1 step`, `1 tool call` for a value of one.
    return def.unit ? formatCountOf(value, def.unit.replace(/s$/, ''), def.unit) : formatCount(value)
  }
  if (Array.isArray(value)) return value.length === 0 ? '(none)' : value.join(', ')
  const text = String(value)
  const length = codePointLength(text)
  return length > LONG_TEXT ? `${formatCount(length)} characters` : text
}

/**
 * The pipeline's settings in one line, for the top of a printed page: encoding, window (tokens),
 * how the run's tokens were counted when `calibration` (the run's, engine `RunResult.calibration`)
 * is given (`calibrationLabel`), summarizer, then the stages switched on in pipeline order, each
 * with the params it sets (`key value unit`, in the definition's order; params left to their
 * default are not named), then the stages switched off. Example: `o200k_base · window 200,000
 * tokens · summarizer extractive · on: prune (keep_last 3 messages) · off: dedupe`.
 */
export function settingsLine(config: PipelineConfig, calibration?: Calibration): string {
  const on: string[] = []
  const off: string[] = []
  for (const stage of config.stages) {
    if (!stage.enabled) {
      off.push(stage.id)
      continue
    }
    const params = stage.params as Readonly<Record<string, unknown>>
    const set = stageDefinition(stage.id).params.flatMap((def) => {
      const value = params[def.key]
      return value === undefined || value === null ? [] : [`${def.key} ${valueText(def, value)}`]
    })
    on.push(set.length > 0 ? `${stage.id} (${set.join(', ')})` : stage.id)
  }
  const summarizer = config.summarizerOptions ? `${config.summarizer} (model ${config.summarizerOptions.model})` : config.summarizer
  return [
    config.encoding,
    `window ${formatCount(windowOf(config.window))} tokens`,
    ...(calibration ? [calibrationLabel(calibration, config.encoding)] : []),
    `summarizer ${summarizer}`,
    `on: ${on.length > 0 ? on.join(', ') : '(none)'}`,
    ...(off.length > 0 ? [`off: ${off.join(', ')}`] : []),
  ].join(' · ')
}
