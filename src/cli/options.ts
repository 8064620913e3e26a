/**
 * The CLI's options: the pipeline options every running command takes (a preset, the model
 * window, stages, the stage parameters, encoding, summarizer), how they become a
 * `PipelineConfig`, and the summarizer's runtime (its key from the environment, never a flag).
 * The stage-parameter flags are derived from the stage definitions (`STAGE_DEFINITIONS`, each
 * param's `cliFlag`): a param with a flag gets its option, its parsing and its usage line from its
 * definition — a count takes a number, a flag is on by itself (`--no-<flag>` turns it off), a
 * choice takes one of its choices.
 */
import type { CalibrationSetting, Encoding, PipelineConfig, SummarizerId } from '../engine/model'
import { DEFAULT_WINDOW, MODEL_WINDOWS } from '../engine/models'
import { DEFAULT_PIPELINE, type PipelineDeps } from '../engine/pipeline'
import { applyPreset, presetById, PRESETS, type PresetSession } from '../engine/presets'
import { ALL_PARAMS, STAGE_IDS, type StageId, type StageParamDef } from '../engine/stages/definitions'
import { unusedParam } from '../engine/stages/triggers'
import { displayUrl, hostOf } from '../engine/util/url-credentials'
import type { FetchLike } from '../engine/summarizers/fetch-types'
import { UsageError } from './errors'
import { ENCODING_OPTION, ENCODINGS } from './inspect'
import { CALIBRATION_RATIO_RANGE } from '../engine/usage/calibration-terms'

/** The values `parseArgs` gives for the options, by name without the dashes (a list for a `multiple` one). */
export type FlagValues = Record<string, string | boolean | string[] | undefined>

/** One option of a command: its name without the dashes, its value and its usage line. */
export interface CliOption {
  name: string
  type: 'string' | 'boolean'
  /** The value's placeholder in the usage text (`N`, `URL`); none for a boolean. */
  arg?: string
  /** The usage text after the flag; continuation lines are indented by `usageLines`. */
  help: string
  /** The option may be given more than once: its value is the list, in order. */
  multiple?: boolean
  /** A boolean option that `--no-<name>` turns off (its value is then `false`). */
  negatable?: boolean
}

const SUMMARIZERS: readonly SummarizerId[] = ['extractive', 'openai-compatible', 'anthropic', 'recorded']

/** The environment variable holding the key of each HTTP summarizer. */
const KEY_ENV: Record<'openai-compatible' | 'anthropic', string> = {
  'openai-compatible': 'OPENAI_API_KEY',
  anthropic: 'ANTHROPIC_API_KEY',
}

/** The Anthropic API, when --base-url is not given. */
const ANTHROPIC_BASE_URL = 'https://api.anthropic.com'

/** A stage param that has a CLI flag, with its stage. */
interface StageFlag {
  stage: StageId
  param: StageParamDef
  flag: string
}

/** Every stage-param flag, in the definitions' order (stage by stage). */
const STAGE_FLAGS: readonly StageFlag[] = ALL_PARAMS.flatMap(({ stage, param }) =>
  param.cliFlag === undefined ? [] : [{ stage, param, flag: param.cliFlag }],
)

/**
 * The usage text of a stage-param flag: `<stage>: <help> (default N[, at least M][, at most K])`;
 * a flag param adds `--no-<flag>: off`, a choice param lists its choices.
 */
function stageFlagHelp({ stage, param, flag }: StageFlag): string {
  const bounds: string[] = []
  if (!param.optional && typeof param.default === 'number') bounds.push(`default ${param.default}`)
  if (param.min !== undefined && param.min > 0) bounds.push(`at least ${param.min}`)
  if (param.max !== undefined) bounds.push(`at most ${param.max}`)
  if (param.type === 'flag') bounds.push(`--no-${flag}: off`)
  if (param.type === 'choice') bounds.push(`one of ${param.choices!.join(', ')}; default ${param.choices![0]}`)
  // "summarize: newest messages kept verbatim (default 20)": the help reads on from the stage.
  let help = /^[A-Z][a-z]/.test(param.help) ? param.help[0]!.toLowerCase() + param.help.slice(1) : param.help
  if (bounds.length > 0) help = `${help.replace(/\.$/, '')} (${bounds.join(', ')})`
  return `${stage}: ${help}`
}

/** The placeholder of a stage-param flag's value in the usage: `N`, `a,b` or the choices. */
function stageFlagArg(param: StageParamDef): string | undefined {
  if (param.type === 'flag') return undefined
  if (param.type === 'names') return 'a,b'
  if (param.type === 'choice') return param.choices!.join('|')
  return 'N'
}

/** The options of every command that runs the pipeline (compact, export, find, sweep). */
export const PIPELINE_OPTIONS: readonly CliOption[] = [
  {
    name: 'preset',
    type: 'string',
    arg: 'NAME',
    help:
      `start from an agent's preset (its stages, params and window; the flags\nafter it change it): ` +
      PRESETS.map((p) => p.id).join(', '),
  },
  {
    name: 'window',
    type: 'string',
    arg: 'N|MODEL',
    help:
      `the model's context window in tokens (default ${DEFAULT_WINDOW}, or the preset's),\nor a model: ` +
      MODEL_WINDOWS.map((m) => `${m.id} (${m.window})`).join(', '),
  },
  {
    name: 'stages',
    type: 'string',
    arg: 'a,b,c',
    help: `stages to run, in order (default: ${DEFAULT_PIPELINE.stages
      .filter((s) => s.enabled)
      .map((s) => s.id)
      .join(',')})\none of: ${STAGE_IDS.join(', ')}\nA stage flag below switches its stage on; with --stages, only the stages\nnamed run, and a flag of another stage is an error.`,
  },
  ...STAGE_FLAGS.map((f): CliOption => {
    const arg = stageFlagArg(f.param)
    return f.param.type === 'flag'
      ? { name: f.flag, type: 'boolean', negatable: true, help: stageFlagHelp(f) }
      : { name: f.flag, type: 'string', ...(arg ? { arg } : {}), help: stageFlagHelp(f) }
  }),
  ENCODING_OPTION,
  {
    name: 'calibration',
    type: 'string',
    arg: 'auto|manual|off',
    help:
      "how token counts are made the agent's (default auto): auto fits an overhead\nand a ratio to the file's recorded usage (else the preset's documented\n" +
      'overhead); manual takes --overhead and --ratio; off keeps raw counts',
  },
  { name: 'overhead', type: 'string', arg: 'N', help: 'manual calibration: tokens every request carries that the file does not show' },
  {
    name: 'ratio',
    type: 'string',
    arg: 'R',
    help: `manual calibration: the agent's tokens per token of ours (${CALIBRATION_RATIO_RANGE.min} to ${CALIBRATION_RATIO_RANGE.max})`,
  },
  {
    name: 'summarizer',
    type: 'string',
    arg: 'S',
    help:
      'extractive (default; offline, not an LLM), openai-compatible\n(OpenAI, Ollama, LM Studio, vLLM), anthropic, or recorded (the\n' +
      'summary the transcript already holds)',
  },
  {
    name: 'base-url',
    type: 'string',
    arg: 'URL',
    help:
      'openai-compatible: required, e.g. http://localhost:11434/v1 (Ollama),\nhttp://localhost:1234/v1 (LM Studio), https://api.openai.com/v1;\n' +
      `anthropic: default ${ANTHROPIC_BASE_URL}`,
  },
  { name: 'model', type: 'string', arg: 'M', help: 'the model (required with openai-compatible and anthropic)' },
  { name: 'no-stream', type: 'boolean', help: 'ask for the whole answer at once instead of a stream' },
  {
    name: 'timeout-ms',
    type: 'string',
    arg: 'N',
    help: `give up on a request after N ms without an answer (default 120000)\nThe key comes from ${Object.values(KEY_ENV).join(' / ')}, never a flag.`,
  },
]

/** A whole number from flag `--name`, or undefined when it is absent; anything else is a usage error. */
function intFlag(name: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined
  if (!/^-?\d+$/.test(value.trim())) throw new UsageError(`--${name} takes a whole number, got "${value}"`)
  return Number(value)
}

/**
 * The value of one stage-param flag, checked as its definition says: a count is a whole number
 * (a decimal one for a `fraction` param), never negative, never below its `min` nor above its
 * `max` — where the engine would refuse the value (`unusable`) the error is in the engine's words,
 * elsewhere it says the bound (the page would fall back to the default; a command line says so
 * instead). Names are a comma-separated list; a flag param is true (`--min-progress`) or false
 * (`--no-min-progress`); a choice is one of its choices. Undefined when the flag is absent.
 */
function stageFlagValue({ param, flag }: StageFlag, values: FlagValues): number | string[] | boolean | string | undefined {
  if (param.type === 'flag') {
    const on = values[flag] === true
    const off = values[`no-${flag}`] === true
    if (on && off) throw new UsageError(`--${flag} and --no-${flag} contradict each other: give one`)
    return on ? true : off ? false : undefined
  }
  const raw = values[flag]
  if (typeof raw !== 'string') return undefined
  if (param.type === 'names') return raw.split(',').map((t) => t.trim()).filter(Boolean)
  if (param.type === 'choice') {
    const choice = raw.trim()
    if (!param.choices!.includes(choice)) throw new UsageError(`--${flag} must be one of ${param.choices!.join(', ')}, got "${raw}"`)
    return choice
  }
  const n = param.fraction ? decimalFlag(flag, raw) : (intFlag(flag, raw) as number)
  // Values the seeds reject are usage errors here, not a stage error buried in a report.
  if (param.min !== undefined && n < param.min) {
    if (param.unusable !== undefined) throw new UsageError(`--${flag}: ${param.unusable}`)
    if (param.min > 0) throw new UsageError(`--${flag} must be at least ${param.min}, got ${n}`)
  }
  if (n < 0) throw new UsageError(`--${flag} must not be negative, got ${n}`)
  if (param.max !== undefined && n > param.max) throw new UsageError(`--${flag} must be at most ${param.max}, got ${n}`)
  return n
}

/**
 * The calibration of `--calibration`, `--overhead` and `--ratio` (engine `CalibrationSetting`):
 * `--overhead`/`--ratio` alone mean manual, and manual needs one of them; they contradict
 * `auto`/`off`. The overhead is a whole
 * number ≥ 0, the ratio a decimal in `CALIBRATION_RATIO_RANGE`. Undefined when none is given.
 */
function calibrationFlags(values: FlagValues): Pick<CalibrationSetting, 'mode' | 'overhead' | 'ratio'> | undefined {
  const mode = values.calibration as string | undefined
  const overhead = intFlag('overhead', values.overhead as string | undefined)
  const ratioText = values.ratio as string | undefined
  const ratio = ratioText === undefined ? undefined : decimalFlag('ratio', ratioText)
  if (mode === undefined && overhead === undefined && ratio === undefined) return undefined
  const m = mode?.trim() ?? 'manual'
  if (m !== 'auto' && m !== 'manual' && m !== 'off') throw new UsageError(`--calibration must be one of auto, manual, off, got "${mode}"`)
  if (m === 'manual' && overhead === undefined && ratio === undefined) {
    throw new UsageError('--calibration manual needs --overhead N and/or --ratio R (the other stays 0 tokens / 1)')
  }
  if (m !== 'manual' && (overhead !== undefined || ratio !== undefined)) {
    throw new UsageError(`--overhead and --ratio go with --calibration manual, not ${m}`)
  }
  if (overhead !== undefined && overhead < 0) throw new UsageError(`--overhead must not be negative, got ${overhead}`)
  const { min, max } = CALIBRATION_RATIO_RANGE
  if (ratio !== undefined && (ratio < min || ratio > max)) throw new UsageError(`--ratio must be between ${min} and ${max}, got ${ratio}`)
  const out: Pick<CalibrationSetting, 'mode' | 'overhead' | 'ratio'> = { mode: m }
  if (overhead !== undefined) out.overhead = overhead
  if (ratio !== undefined) out.ratio = ratio
  return out
}

/**
 * The window of `--window`: a whole number of tokens (at least 1,000, as the engine's `windowOf`
 * takes), or the id of a model in `MODEL_WINDOWS` (its window). Undefined when absent.
 */
function windowFlag(value: string | undefined): number | undefined {
  if (value === undefined) return undefined
  const model = MODEL_WINDOWS.find((m) => m.id === value.trim())
  if (model) return model.window
  if (!/^\d+$/.test(value.trim())) {
    throw new UsageError(`--window takes a number of tokens or a model: ${MODEL_WINDOWS.map((m) => m.id).join(', ')}; got "${value}"`)
  }
  const n = Number(value)
  if (n < 1000) throw new UsageError(`--window must be at least 1000 tokens, got ${n}`)
  return n
}

/** A decimal number from flag `--name` (`1.5`, `1e3`); anything else is a usage error. */
function decimalFlag(name: string, value: string): number {
  const n = value.trim() === '' ? NaN : Number(value)
  if (!Number.isFinite(n)) throw new UsageError(`--${name} takes a number, got "${value}"`)
  return n
}

/**
 * The pipeline configuration of the flags: `DEFAULT_PIPELINE`, or `--preset`'s stages and window
 * on it (engine `applyPreset`, for `session`'s recorded agent version when the preset's trigger
 * moved between versions; an unknown name is a usage error listing the presets), then
 * `--window`, `--stages` (the named stages on, in that order, the others off), each stage-param
 * flag, `--encoding` and the summarizer (`--summarizer`, `--base-url`, `--model`, `--no-stream`).
 * A stage-param flag switches its stage on when it is off (the preset's or the default list's),
 * as a sweep does; with `--stages` a flag of a stage the list leaves out is a usage error instead.
 * A bad value is a `UsageError`.
 */
export function configFromFlags(values: FlagValues, session?: PresetSession): PipelineConfig {
  let config: PipelineConfig = structuredClone(DEFAULT_PIPELINE)
  const presetName = values.preset as string | undefined
  if (presetName !== undefined) {
    const preset = presetById(presetName.trim())
    if (!preset) throw new UsageError(`unknown preset "${presetName}"; presets: ${PRESETS.map((p) => p.id).join(', ')}`)
    config = applyPreset(preset, config, session)
  }
  const window = windowFlag(values.window as string | undefined)
  if (window !== undefined) config.window = window
  const encoding = values.encoding as string | undefined
  if (encoding !== undefined) {
    if (!ENCODINGS.includes(encoding as Encoding)) throw new UsageError(`--encoding must be one of ${ENCODINGS.join(', ')}`)
    config.encoding = encoding as Encoding
  }
  const calibration = calibrationFlags(values)
  if (calibration) config.calibration = { ...config.calibration, ...calibration }
  const summarizer = (values.summarizer as string | undefined) ?? 'extractive'
  if (!SUMMARIZERS.includes(summarizer as SummarizerId)) {
    throw new UsageError(`--summarizer must be one of ${SUMMARIZERS.join(', ')}, got "${summarizer}"`)
  }
  config.summarizer = summarizer as SummarizerId
  const baseUrl = values['base-url'] as string | undefined
  const model = values.model as string | undefined
  if (summarizer === 'openai-compatible' || summarizer === 'anthropic') {
    const url = baseUrl ?? (summarizer === 'anthropic' ? ANTHROPIC_BASE_URL : undefined)
    if (url === undefined || url.trim() === '') {
      throw new UsageError(
        '--summarizer openai-compatible needs --base-url, e.g. http://localhost:11434/v1 (Ollama) or https://api.openai.com/v1',
      )
    }
    if (!/^https?:\/\/[^/]/i.test(url)) throw new UsageError(`--base-url must be an http(s) URL, got "${displayUrl(url)}"`)
    if (model === undefined || model.trim() === '') throw new UsageError(`--summarizer ${summarizer} needs --model`)
    config.summarizerOptions = { baseUrl: url, model, stream: values['no-stream'] !== true }
  } else if (baseUrl !== undefined || model !== undefined || values['no-stream'] !== undefined) {
    throw new UsageError('--base-url, --model and --no-stream go with --summarizer openai-compatible or anthropic')
  }
  if (values.stages !== undefined) {
    const wanted = String(values.stages).split(',').map((s) => s.trim()).filter(Boolean)
    if (wanted.length === 0) throw new UsageError(`--stages names no stage; stages: ${STAGE_IDS.join(', ')}`)
    for (const id of wanted) {
      if (!STAGE_IDS.includes(id as StageId)) throw new UsageError(`unknown stage "${id}"; stages: ${STAGE_IDS.join(', ')}`)
    }
    const byId = new Map(config.stages.map((s) => [s.id, s]))
    config.stages = [
      ...wanted.map((id) => ({ ...byId.get(id as StageId)!, enabled: true })),
      ...config.stages.filter((s) => !wanted.includes(s.id)).map((s) => ({ ...s, enabled: false })),
    ] as PipelineConfig['stages']
  }
  for (const f of STAGE_FLAGS) {
    const value = stageFlagValue(f, values)
    if (value === undefined) continue
    const stage = config.stages.find((s) => s.id === f.stage)
    if (!stage) continue
    if (!stage.enabled) {
      if (values.stages !== undefined) {
        const prefix = value === false ? 'no-' : ''
        throw new UsageError(`--${prefix}${f.flag} is a ${f.stage} param, and --stages leaves ${f.stage} out`)
      }
      stage.enabled = true
    }
    ;(stage.params as unknown as Record<string, unknown>)[f.param.key] = value
  }
  return config
}

/**
 * One warning per stage-param flag given that has no effect in `config` (engine `unusedParam`:
 * e.g. `--compact-after` when a token trigger is set), worded `--compact-after: not used: the
 * token trigger (trigger_reserve) replaces it`.
 */
export function unusedFlagWarnings(values: FlagValues, config: PipelineConfig): string[] {
  return STAGE_FLAGS.flatMap((f) => {
    if (values[f.flag] === undefined && values[`no-${f.flag}`] === undefined) return []
    const why = unusedParam(f.stage, f.param.key, config.stages.find((s) => s.id === f.stage)?.params)
    return why === undefined ? [] : [`--${f.flag}: ${why}`]
  })
}

/** What `main` takes from its surroundings (tests inject them). */
export interface CliEnv {
  /** Environment variables (the API keys). Default `process.env`. */
  env?: Record<string, string | undefined>
  /** Default: Node's global `fetch`. */
  fetch?: FetchLike
  /**
   * Resolves when the output can take more after a write returned false (standard output's
   * `drain`); absent, writes are never held back (tests collecting the output in memory).
   */
  drained?: () => Promise<void>
}

/** The global `fetch` of Node ≥ 18, as the engine's injected `FetchLike`. */
const nodeFetch: FetchLike = (url, init) => fetch(url, init as RequestInit)

/**
 * The summarizer dependencies of a run: undefined for an offline summarizer; for an HTTP one the
 * key from the environment (never from a flag), the fetch and `--timeout-ms`.
 */
export function summarizerDeps(config: PipelineConfig, values: FlagValues, cli: CliEnv): PipelineDeps['summarizerRuntime'] {
  if (config.summarizer !== 'openai-compatible' && config.summarizer !== 'anthropic') return undefined
  const env = cli.env ?? process.env
  const apiKey = env[KEY_ENV[config.summarizer]]
  if (config.summarizer === 'anthropic' && !apiKey) {
    const host = hostOf(config.summarizerOptions?.baseUrl ?? '')
    if (host === 'api.anthropic.com')
      throw new UsageError('--summarizer anthropic needs the key in ANTHROPIC_API_KEY (never a flag)')
  }
  const runtime: NonNullable<PipelineDeps['summarizerRuntime']> = { fetch: cli.fetch ?? nodeFetch }
  if (apiKey) runtime.apiKey = apiKey
  const timeout = intFlag('timeout-ms', values['timeout-ms'] as string | undefined)
  if (timeout !== undefined) {
    if (timeout < 1) throw new UsageError('--timeout-ms must be at least 1')
    runtime.timeoutMs = timeout
  }
  return runtime
}
