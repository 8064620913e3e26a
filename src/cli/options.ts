/**
 * The CLI's options: the pipeline options every running command takes (stages, the stage
 * parameters, encoding, summarizer), how they become a `PipelineConfig`, and the summarizer's
 * runtime (its key from the environment, never a flag). The stage-parameter flags are derived
 * from the stage definitions (`STAGE_DEFINITIONS`, each param's `cliFlag`): a param with a flag
 * gets its option, its parsing and its usage line from its definition.
 */
import type { Encoding, PipelineConfig, SummarizerId } from '../engine/model'
import { DEFAULT_PIPELINE, type PipelineDeps } from '../engine/pipeline'
import { ALL_PARAMS, STAGE_IDS, type StageId, type StageParamDef } from '../engine/stages/definitions'
import { hostOf } from '../engine/summarizers/errors'
import type { FetchLike } from '../engine/summarizers/fetch-types'
import { UsageError } from './errors'

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
}

const ENCODINGS: readonly Encoding[] = ['o200k_base', 'cl100k_base']
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

/** The usage text of a stage-param flag: `<stage>: <help> (default N[, at least M])`. */
function stageFlagHelp({ stage, param }: StageFlag): string {
  const bounds: string[] = []
  if (!param.optional && typeof param.default === 'number') bounds.push(`default ${param.default}`)
  if (param.min !== undefined && param.min > 0) bounds.push(`at least ${param.min}`)
  // "summarize: newest messages kept verbatim (default 20)": the help reads on from the stage.
  let help = /^[A-Z][a-z]/.test(param.help) ? param.help[0]!.toLowerCase() + param.help.slice(1) : param.help
  if (bounds.length > 0) help = `${help.replace(/\.$/, '')} (${bounds.join(', ')})`
  return `${stage}: ${help}`
}

/** The options of every command that runs the pipeline (compact, export, find, sweep). */
export const PIPELINE_OPTIONS: readonly CliOption[] = [
  {
    name: 'stages',
    type: 'string',
    arg: 'a,b,c',
    help: `stages to run, in order (default: ${DEFAULT_PIPELINE.stages
      .filter((s) => s.enabled)
      .map((s) => s.id)
      .join(',')})\none of: ${STAGE_IDS.join(', ')}`,
  },
  ...STAGE_FLAGS.map(
    (f): CliOption => ({ name: f.flag, type: 'string', arg: f.param.type === 'names' ? 'a,b' : 'N', help: stageFlagHelp(f) }),
  ),
  { name: 'encoding', type: 'string', arg: 'E', help: 'o200k_base (default) or cl100k_base' },
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
 * (a decimal one for a `fraction` param), never negative, and never below its `min` — where the
 * engine would refuse the value (`unusable`) the error is in the engine's words, elsewhere it says
 * the minimum (the page would fall back to the default; a command line says so instead). Names are
 * a comma-separated list. Undefined when the flag is absent.
 */
function stageFlagValue({ param, flag }: StageFlag, values: FlagValues): number | string[] | undefined {
  const raw = values[flag]
  if (typeof raw !== 'string') return undefined
  if (param.type === 'names') return raw.split(',').map((t) => t.trim()).filter(Boolean)
  const n = param.fraction ? decimalFlag(flag, raw) : (intFlag(flag, raw) as number)
  // Values the seeds reject are usage errors here, not a stage error buried in a report.
  if (param.min !== undefined && n < param.min) {
    if (param.unusable !== undefined) throw new UsageError(`--${flag}: ${param.unusable}`)
    if (param.min > 0) throw new UsageError(`--${flag} must be at least ${param.min}, got ${n}`)
  }
  if (n < 0) throw new UsageError(`--${flag} must not be negative, got ${n}`)
  return n
}

/** A decimal number from flag `--name` (`1.5`, `1e3`); anything else is a usage error. */
function decimalFlag(name: string, value: string): number {
  const n = value.trim() === '' ? NaN : Number(value)
  if (!Number.isFinite(n)) throw new UsageError(`--${name} takes a number, got "${value}"`)
  return n
}

/**
 * The pipeline configuration of the flags: `DEFAULT_PIPELINE` with `--stages` (the named stages
 * on, in that order, the others off), each stage-param flag, `--encoding` and the summarizer
 * (`--summarizer`, `--base-url`, `--model`, `--no-stream`). A bad value is a `UsageError`.
 */
export function configFromFlags(values: FlagValues): PipelineConfig {
  const config: PipelineConfig = structuredClone(DEFAULT_PIPELINE)
  const encoding = values.encoding as string | undefined
  if (encoding !== undefined) {
    if (!ENCODINGS.includes(encoding as Encoding)) throw new UsageError(`--encoding must be one of ${ENCODINGS.join(', ')}`)
    config.encoding = encoding as Encoding
  }
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
    if (!/^https?:\/\/[^/]/i.test(url)) throw new UsageError(`--base-url must be an http(s) URL, got "${url}"`)
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
    if (stage) (stage.params as unknown as Record<string, unknown>)[f.param.key] = value
  }
  return config
}

/** What `main` takes from its surroundings (tests inject them). */
export interface CliEnv {
  /** Environment variables (the API keys). Default `process.env`. */
  env?: Record<string, string | undefined>
  /** Default: Node's global `fetch`. */
  fetch?: FetchLike
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
