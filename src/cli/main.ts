/**
 * The command line: the same engine as the page, without a browser (SPEC §7).
 *
 *   npm run cli -- compact <file|-> [--stages dedupe,prune-tool-results,summarize] [--keep-last 20]
 *       [--compact-after 40] [--target N] [--keep-steps 1] [--min-tokens 200] [--threshold-tokens N]
 *       [--keep-recent N] [--encoding o200k_base|cl100k_base]
 *       [--summarizer extractive|openai-compatible|anthropic|recorded] [--base-url URL] [--model M]
 *       [--no-stream] [--timeout-ms N] [--recorded] [--json]
 *   npm run cli -- inspect <file|-> [--json]
 *   npm run cli -- export <file|-> --to canonical|openai-chat|anthropic|openai-responses [compact flags]
 *   npm run cli -- find <file|-> <fact…> [--regex] [compact flags] [--json]
 *   npm run cli -- sweep <file|-> --x keep_last=5..40:5 --y compact_after=10..80:10 [compact flags] [--json]
 *
 * Exit codes: 0 success, 1 bad input (one line on stderr naming the line/field and why),
 * 2 bad usage. With an LLM summarizer, a failed summarizer call also exits 1 (the report still
 * prints, the error on stderr). API keys come from the environment (OPENAI_API_KEY,
 * ANTHROPIC_API_KEY), never from flags.
 */
import { readFileSync } from 'node:fs'
import { pathToFileURL } from 'node:url'
import { parseArgs } from 'node:util'
import { importBytes } from '../engine/formats/index'
import { EXPORT_TARGETS, exportTranscript, type ExportTarget } from '../engine/export'
import type {
  Encoding,
  PipelineConfig,
  RunResult,
  StageId,
  SummarizerId,
  Transcript,
} from '../engine/model'
import { failureText } from '../engine/failure-text'
import { findFact } from '../engine/facts/finder'
import { indexRun } from '../engine/facts/run-index'
import { factTable } from '../engine/facts/table'
import { positionNames, verdictSentence, type FactVerdict } from '../engine/facts/verdict'
import { formatPercentDelta, formatTokenDelta } from '../engine/delta'
import { DEFAULT_PIPELINE, runPipeline, type PipelineDeps } from '../engine/pipeline'
import { hostOf } from '../engine/summarizers/errors'
import type { FetchLike } from '../engine/summarizers/fetch-types'
import {
  compareRecordedVsSimulated,
  recordedRunResult,
  type RecordedRun,
} from '../engine/analysis/recorded'
import { KEEP_STEPS_ERROR } from '../engine/stages/prune-tool-results'
import { parseSweepAxis, sweep, sweepConfigOf, type SweepAxis } from '../engine/analysis/sweep'
import { loadCounter, tokenEstimateNote } from '../engine/tokens/count'
import { sweepJson, sweepText } from './sweep'

const STAGE_IDS: readonly StageId[] = [
  'dedupe',
  'slim',
  'prune-tool-results',
  'summarize',
  'insert-then-compress',
  'pin-facts',
]
const ENCODINGS: readonly Encoding[] = ['o200k_base', 'cl100k_base']
const SUMMARIZERS: readonly SummarizerId[] = ['extractive', 'openai-compatible', 'anthropic', 'recorded']

/** The environment variable holding the key of each HTTP summarizer. */
export const KEY_ENV: Record<'openai-compatible' | 'anthropic', string> = {
  'openai-compatible': 'OPENAI_API_KEY',
  anthropic: 'ANTHROPIC_API_KEY',
}

/** The Anthropic API, when --base-url is not given. */
const ANTHROPIC_BASE_URL = 'https://api.anthropic.com'

const USAGE = `Usage:
  npm run cli -- compact <file|-> [options]   run the pipeline, report before → after
  npm run cli -- inspect <file|-> [--json]    format, counts, recorded compactions, warnings
  npm run cli -- export <file|-> --to T [options]
                                              print the After transcript as T: ${EXPORT_TARGETS.join(', ')}
  npm run cli -- find <file|-> <fact…> [options]
                                              each fact's verdict (survives / lost / never
                                              present) and the pass/stage that lost it; with
                                              --regex each fact is a regular expression
  npm run cli -- sweep <file|-> --x P=from..to:step --y P=a,b,c [options]
                                              the pipeline over a grid of two params: tokens
                                              after, passes, facts lost per cell. P: keep_last,
                                              compact_after, target, keep_steps, min_tokens,
                                              keep_tool_uses, clear_at_least, threshold (or
                                              threshold_tokens), keep_recent

Options (compact, export, find and sweep):
  --stages a,b,c            stages to run, in order (default: dedupe,prune-tool-results,summarize)
                            one of: ${STAGE_IDS.join(', ')}
  --keep-last N             summarize: messages kept verbatim (default 20)
  --compact-after N         summarize: compact when more than N uncompacted messages (default 40)
  --target N                prune-tool-results: token target
  --keep-steps N            prune-tool-results: newest steps guarded (default 1, at least 1)
  --min-tokens N            prune-tool-results: results under N tokens are kept (default 200)
  --exclude-tools a,b       prune-tool-results: tools whose results are never pruned
  --clear-at-least N        prune-tool-results: prune at least N tokens or nothing (default 0)
  --keep-tool-uses N        prune-tool-results: results of the newest N tool calls are kept
  --threshold-tokens N      insert-then-compress: fire above N tokens
  --keep-recent N           insert-then-compress: recent messages kept verbatim
  --slim-keep N             slim: items a JSON list keeps (default 5)
  --max-facts N             pin-facts: facts in the pinned block (default 40)
  --encoding E              o200k_base (default) or cl100k_base
  --summarizer S            extractive (default; offline, not an LLM), openai-compatible
                            (OpenAI, Ollama, LM Studio, vLLM), anthropic, or recorded (the
                            summary the transcript already holds)
  --base-url URL            openai-compatible: required, e.g. http://localhost:11434/v1 (Ollama),
                            http://localhost:1234/v1 (LM Studio), https://api.openai.com/v1;
                            anthropic: default https://api.anthropic.com
  --model M                 the model (required with openai-compatible and anthropic)
  --no-stream               ask for the whole answer at once instead of a stream
  --timeout-ms N            give up on a request after N ms without an answer (default 120000)
                            The key comes from OPENAI_API_KEY / ANTHROPIC_API_KEY, never a flag.
  --recorded                compact: add what the agent really kept after its last recorded
                            compaction, and recorded vs simulated
  --x P=RANGE, --y P=RANGE  sweep: the two axes, from..to:step (inclusive) or a,b,c
  --json                    compact/inspect/find/sweep: print one JSON object instead of the report
                            (compact --json includes the facts table and the failure-mode checks)
`

/** A usage error: exit code 2. */
class UsageError extends Error {}
/** A bad-input error: exit code 1. */
class InputError extends Error {}

function intFlag(name: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined
  if (!/^-?\d+$/.test(value.trim())) throw new UsageError(`--${name} takes a whole number, got "${value}"`)
  return Number(value)
}

/** Builds the pipeline configuration from the flags (defaults from DEFAULT_PIPELINE). */
function configFromFlags(values: Record<string, string | boolean | undefined>): PipelineConfig {
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
  const set = (stage: StageId, key: string, flag: string) => {
    const n = intFlag(flag, values[flag] as string | undefined)
    if (n === undefined) return
    const s = config.stages.find((x) => x.id === stage)
    if (s) (s.params as unknown as Record<string, number>)[key] = n
  }
  // Values the seeds reject are usage errors here, not a stage error buried in a report.
  const keepSteps = intFlag('keep-steps', values['keep-steps'] as string | undefined)
  if (keepSteps !== undefined && keepSteps < 1) throw new UsageError(`--keep-steps: ${KEEP_STEPS_ERROR}`)
  for (const flag of ['target', 'min-tokens', 'threshold-tokens', 'keep-recent', 'slim-keep', 'max-facts', 'clear-at-least', 'keep-tool-uses']) {
    const n = intFlag(flag, values[flag] as string | undefined)
    if (n !== undefined && n < 0) throw new UsageError(`--${flag} must not be negative, got ${n}`)
  }
  set('summarize', 'keep_last', 'keep-last')
  set('summarize', 'compact_after', 'compact-after')
  set('prune-tool-results', 'target', 'target')
  set('prune-tool-results', 'keep_steps', 'keep-steps')
  set('prune-tool-results', 'min_tokens', 'min-tokens')
  set('prune-tool-results', 'clear_at_least', 'clear-at-least')
  set('prune-tool-results', 'keep_tool_uses', 'keep-tool-uses')
  const exclude = values['exclude-tools']
  if (typeof exclude === 'string') {
    const prune = config.stages.find((x) => x.id === 'prune-tool-results')
    if (prune && prune.id === 'prune-tool-results') {
      prune.params.exclude_tools = exclude.split(',').map((t) => t.trim()).filter(Boolean)
    }
  }
  set('insert-then-compress', 'threshold_tokens', 'threshold-tokens')
  set('insert-then-compress', 'keep_recent', 'keep-recent')
  set('slim', 'keep', 'slim-keep')
  set('pin-facts', 'max_facts', 'max-facts')
  return config
}

function readInput(path: string): { bytes: Uint8Array; name: string } {
  try {
    const bytes = path === '-' ? readFileSync(0) : readFileSync(path)
    return { bytes: new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength), name: path === '-' ? 'stdin' : path }
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code
    throw new InputError(`${path}: cannot read the file (${code ?? (e as Error).message})`)
  }
}

/** The short human report (SPEC §7 "Without --json"). */
function report(name: string, transcript: Transcript, result: RunResult): string {
  const b = result.before.totals
  const a = result.after.totals
  const lines = [
    `${name}: ${transcript.format}${transcript.title ? ` — ${transcript.title}` : ''}`,
    `messages ${b.messages} → ${a.messages}`,
    `tokens   ${b.estimate ? '≈ ' : ''}${b.tokens} → ${a.estimate ? '≈ ' : ''}${a.tokens} (${formatPercentDelta(b.tokens, a.tokens)}; overhead ${a.overheadTokens} not compactable)`,
  ]
  if (b.estimate || a.estimate) lines.push(`         ${tokenEstimateNote()}`)
  lines.push(`passes   ${result.passes.length}`)
  for (const p of result.passes) {
    lines.push(`  pass ${p.pass} (${p.stage}) at message ${p.atMessage}: messages ${p.from}–${p.upto - 1} → summary`)
  }
  lines.push('stages')
  for (const s of result.stages) {
    const what = s.error ? `error: ${s.error}` : s.changed ? `${s.tokensBefore} → ${s.tokensAfter} tokens (${formatTokenDelta(s.tokensBefore, s.tokensAfter)})` : `no change${s.note ? ` (${s.note})` : ''}`
    lines.push(`  ${s.stage.padEnd(22)} ${what}`)
  }
  const problems = [...result.checks.after]
  lines.push(`validity ${problems.length === 0 ? 'after: no problems' : `after: ${problems.length} problem(s)`}${result.checks.before.length ? `; before: ${result.checks.before.length} problem(s)` : ''}`)
  for (const p of problems) lines.push(`  ${p.rule}: ${p.message}`)
  const modes = result.checks.failureModes ?? []
  lines.push(`failure modes ${modes.length === 0 ? 'none' : `${modes.length} warning(s)`}`)
  for (const w of modes) lines.push(`  ${w.rule}: ${w.message}`)
  // The run's warnings already include the import warnings (runPipeline copies them).
  for (const w of result.warnings) lines.push(`warning: ${w}`)
  return lines.join('\n')
}

/** Counts of a transcript, as `inspect` prints them. */
export interface InspectReport {
  format: Transcript['format']
  title?: string
  messages: number
  byRole: Record<string, number>
  toolCalls: number
  toolResults: number
  images: number
  thinkingBlocks: number
  tools: number
  recordedCompactions: {
    atIndex: number
    atMessageId?: string
    trigger?: string
    tokensBefore?: number
    tokensAfter?: number
    /** Summary length in characters (UTF-16 units); null when the summary is not in the source. */
    summaryChars: number | null
    source: string
  }[]
  branches: number
  sidechains: { title?: string; messages: number }[]
  warnings: string[]
  /** `Transcript.notes`: what the import noticed that is not a problem. */
  notes: string[]
}

/**
 * What `inspect` reports: messages by role, tool calls, tool results (tool messages), images and
 * thinking blocks (parts, also inside tool results), tool schemas, recorded compactions, branch
 * and sidechain counts, and the import warnings. Pure.
 */
export function inspectTranscript(t: Transcript): InspectReport {
  const byRole: Record<string, number> = { system: 0, user: 0, assistant: 0, tool: 0 }
  let toolCalls = 0
  let images = 0
  let thinkingBlocks = 0
  for (const m of t.messages) {
    byRole[m.role] = (byRole[m.role] ?? 0) + 1
    toolCalls += m.toolCalls?.length ?? 0
    if (Array.isArray(m.content)) {
      for (const p of m.content) {
        if (p.type === 'image') images++
        else if (p.type === 'thinking') thinkingBlocks++
      }
    }
  }
  const report: InspectReport = {
    format: t.format,
    messages: t.messages.length,
    byRole,
    toolCalls,
    toolResults: byRole.tool ?? 0,
    images,
    thinkingBlocks,
    tools: t.tools?.length ?? 0,
    recordedCompactions: t.recordedCompactions.map((c) => {
      const r: InspectReport['recordedCompactions'][number] = {
        atIndex: c.atIndex,
        summaryChars: c.summaryText === null ? null : c.summaryText.length,
        source: c.source,
      }
      if (c.atMessageId !== undefined) r.atMessageId = c.atMessageId
      if (c.trigger !== undefined) r.trigger = c.trigger
      if (c.tokensBefore !== undefined) r.tokensBefore = c.tokensBefore
      if (c.tokensAfter !== undefined) r.tokensAfter = c.tokensAfter
      return r
    }),
    branches: t.branches?.length ?? 0,
    sidechains: (t.sidechains ?? []).map((s) => {
      const x: { title?: string; messages: number } = { messages: s.messages.length }
      if (s.title !== undefined) x.title = s.title
      return x
    }),
    warnings: t.warnings,
    notes: t.notes ?? [],
  }
  if (t.title !== undefined) report.title = t.title
  return report
}

/** The human form of `inspect`. */
function inspectText(name: string, r: InspectReport): string {
  const roles = Object.entries(r.byRole)
    .map(([role, n]) => `${role} ${n}`)
    .join(', ')
  const lines = [
    `${name}: ${r.format}${r.title ? ` — ${r.title}` : ''}`,
    `messages          ${r.messages} (${roles})`,
    `tool calls        ${r.toolCalls}`,
    `tool results      ${r.toolResults}`,
    `images            ${r.images}`,
    `thinking blocks   ${r.thinkingBlocks}`,
    `tool schemas      ${r.tools}`,
    `recorded compactions ${r.recordedCompactions.length}`,
  ]
  for (const c of r.recordedCompactions) {
    const tokens =
      c.tokensBefore !== undefined
        ? `, ${c.tokensBefore}${c.tokensAfter !== undefined ? ` → ${c.tokensAfter}` : ''} tokens (agent's count)`
        : ''
    const summary = c.summaryChars === null ? 'summary not in the source' : `summary ${c.summaryChars} chars`
    lines.push(`  at message ${c.atIndex}${c.trigger ? ` (${c.trigger})` : ''}: ${summary}${tokens}`)
  }
  lines.push(`branches          ${r.branches}`)
  lines.push(`sidechains        ${r.sidechains.length}`)
  for (const sc of r.sidechains) lines.push(`  ${sc.title ?? '(untitled)'}: ${sc.messages} messages`)
  for (const n of r.notes) lines.push(`note: ${n}`)
  for (const w of r.warnings) lines.push(`warning: ${w}`)
  return lines.join('\n')
}

/** The recorded view in the CLI's JSON: like `before`/`after` of compact, plus the comparison. */
function recordedJson(recorded: RecordedRun | null, result: RunResult) {
  if (!recorded) return null
  return {
    compaction: recorded.compaction,
    pass: recorded.pass,
    after: { messages: recorded.after.messages, tokens: recorded.after.totals.tokens },
    fates: recorded.fates,
    origins: recorded.origins,
    checks: recorded.checks,
    comparison: compareRecordedVsSimulated(recorded, result),
  }
}

const COMPACT_OPTIONS = {
  stages: { type: 'string' },
  'keep-last': { type: 'string' },
  'compact-after': { type: 'string' },
  target: { type: 'string' },
  'keep-steps': { type: 'string' },
  'min-tokens': { type: 'string' },
  'exclude-tools': { type: 'string' },
  'clear-at-least': { type: 'string' },
  'keep-tool-uses': { type: 'string' },
  'threshold-tokens': { type: 'string' },
  'keep-recent': { type: 'string' },
  'slim-keep': { type: 'string' },
  'max-facts': { type: 'string' },
  encoding: { type: 'string' },
  summarizer: { type: 'string' },
  'base-url': { type: 'string' },
  model: { type: 'string' },
  'no-stream': { type: 'boolean' },
  'timeout-ms': { type: 'string' },
  json: { type: 'boolean' },
  recorded: { type: 'boolean' },
} as const

const COMMANDS = ['compact', 'inspect', 'export', 'find', 'sweep']

/** Reads and imports the one positional file (or `-`); bad input → InputError naming line/field. */
function importInput(positionals: string[], command: string): { name: string; transcript: Transcript } {
  if (positionals.length !== 1) throw new UsageError(`${command} takes exactly one <file> (or - for standard input)`)
  const input = readInput(positionals[0]!)
  const imported = importBytes(input.bytes, { fileName: input.name })
  if (!imported.ok) {
    const { line, field, message } = imported.error
    // Only what the message does not already say ("invalid JSON at line 3, column 3: …").
    const where = [line !== undefined && !message.includes(`line ${line}`) ? `line ${line}` : '', field && !message.includes(field) ? field : '']
      .filter(Boolean)
      .join(', ')
    throw new InputError(`${input.name}${where ? ` (${where})` : ''}: ${imported.error.message}`)
  }
  return { name: input.name, transcript: imported.transcript }
}

/** The global `fetch` of Node ≥ 18, as the engine's injected `FetchLike`. */
const nodeFetch: FetchLike = (url, init) => fetch(url, init as RequestInit)

/** What `main` takes from its surroundings (tests inject them). */
export interface CliEnv {
  /** Environment variables (the API keys). Default `process.env`. */
  env?: Record<string, string | undefined>
  /** Default: Node's global `fetch`. */
  fetch?: FetchLike
}

/** The summarizer dependencies of a run: the key from the environment, never from a flag. */
function summarizerDeps(
  config: PipelineConfig,
  values: Record<string, string | boolean | undefined>,
  cli: CliEnv,
): PipelineDeps['summarizerRuntime'] {
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

/** Flags that would put a key on the command line (and in shell history): refused. */
const KEY_FLAGS = /^--(api-key|key|openai-api-key|anthropic-api-key)(=|$)/

/** Runs the CLI; returns the exit code. Exported for tests. */
export async function main(
  argv: string[],
  out: (s: string) => void,
  err: (s: string) => void,
  cli: CliEnv = {},
): Promise<number> {
  try {
    const [command, ...rest] = argv
    if (rest.some((a) => KEY_FLAGS.test(a))) {
      throw new UsageError(
        'API keys are never flags (they would end up in shell history and logs): set OPENAI_API_KEY or ANTHROPIC_API_KEY',
      )
    }
    if (command === undefined || command === '--help' || command === '-h' || command === 'help') {
      out(USAGE)
      return command === undefined ? 2 : 0
    }
    if (!COMMANDS.includes(command)) throw new UsageError(`unknown command "${command}"; try: ${COMMANDS.join(', ')}`)
    if (rest.includes('--help') || rest.includes('-h')) {
      out(USAGE)
      return 0
    }
    let parsed
    try {
      parsed = parseArgs({
        args: rest,
        allowPositionals: true,
        options:
          command === 'inspect'
            ? { json: { type: 'boolean' } }
            : command === 'export'
              ? { ...COMPACT_OPTIONS, to: { type: 'string' } }
              : command === 'find'
                ? { ...COMPACT_OPTIONS, regex: { type: 'boolean' } }
                : command === 'sweep'
                  ? { ...COMPACT_OPTIONS, x: { type: 'string' }, y: { type: 'string' } }
                  : COMPACT_OPTIONS,
      })
    } catch (e) {
      const message = (e as Error).message
      // parseArgs reads "--keep-last -3" as two options; say how to pass a negative number.
      const ambiguous = /argument is ambiguous/.test(message)
      throw new UsageError(ambiguous ? `${message.split('\n')[0]} (write --flag=value)` : message)
    }
    const values = parsed.values as Record<string, string | boolean | undefined>
    const { positionals } = parsed

    if (command === 'inspect') {
      const { name, transcript } = importInput(positionals, command)
      const report = inspectTranscript(transcript)
      out(values.json ? JSON.stringify(report, null, 2) : inspectText(name, report))
      return 0
    }

    let target: ExportTarget | undefined
    if (command === 'export') {
      const to = values.to
      if (typeof to !== 'string') throw new UsageError(`export needs --to, one of ${EXPORT_TARGETS.join(', ')}`)
      if (!EXPORT_TARGETS.includes(to as ExportTarget)) {
        throw new UsageError(`--to must be one of ${EXPORT_TARGETS.join(', ')}, got "${to}"`)
      }
      if (values.json !== undefined || values.recorded !== undefined) {
        throw new UsageError('export always prints JSON; --json and --recorded belong to compact')
      }
      target = to as ExportTarget
    }
    let queries: (string | RegExp)[] = []
    if (command === 'find') {
      if (values.recorded !== undefined) throw new UsageError('--recorded belongs to compact')
      const [file, ...facts] = positionals
      if (file === undefined || facts.length === 0) throw new UsageError('find takes a <file> (or -) and at least one <fact>')
      queries = facts.map((f) => {
        if (f === '') throw new UsageError('an empty <fact> matches everything; give the text to find')
        if (!values.regex) return f
        try {
          return new RegExp(f)
        } catch (e) {
          throw new UsageError(`--regex: "${f}" is not a regular expression (${(e as Error).message})`)
        }
      })
      positionals.splice(1)
    }
    let axes: [SweepAxis, SweepAxis] | undefined
    if (command === 'sweep') axes = sweepAxesFromFlags(values)
    if (positionals.length !== 1) throw new UsageError(`${command} takes exactly one <file> (or - for standard input)`)
    const config = configFromFlags(values)
    const { name, transcript } = importInput(positionals, command)
    if (axes) {
      // With an LLM summarizer the sweep runs the offline extractive one, as the page does.
      const swept = sweepConfigOf(config)
      const counter = await loadCounter(swept.config.encoding)
      const result = await sweep(transcript, swept.config, axes[0], axes[1], { counter })
      out(
        values.json
          ? JSON.stringify(sweepJson(transcript, result, swept.note), null, 2)
          : sweepText(name, transcript, result, swept.note),
      )
      return 0
    }
    const runtime = summarizerDeps(config, values, cli)
    const counter = await loadCounter(config.encoding)
    const deps: PipelineDeps = { counter }
    if (runtime) deps.summarizerRuntime = runtime
    const result = await runPipeline(transcript, config, deps)
    // With an LLM summarizer a failed call is not a quiet "no change": say so and exit 1.
    const failed = runtime ? result.stages.filter((s) => s.error !== undefined) : []
    const failCode = () => {
      for (const s of failed) err(`error: ${s.stage}: ${s.error}`)
      return failed.length > 0 ? 1 : 0
    }

    if (target !== undefined) {
      const exported = exportTranscript(transcript, target, result.after.messages)
      for (const w of exported.warnings) err(`warning: ${w}`)
      out(JSON.stringify(exported.body, null, 2))
      return failCode()
    }

    if (command === 'find') {
      const ix = indexRun(result)
      const verdicts = queries.map((q) => findFact(ix, q))
      if (values.json) out(JSON.stringify({ format: transcript.format, facts: verdicts }, null, 2))
      else {
        const names = positionNames(
          new Map(result.before.messages.map((m) => [m.id, m.index])),
          (id) => result.origins[id],
          result.passes,
        )
        const line = (v: FactVerdict) => `${v.query}: ${verdictSentence({ ...v, copiesLost: v.events?.length ?? 0 }, names)}`
        out([`${name}: ${transcript.format}`, ...verdicts.map(line)].join('\n'))
      }
      return failCode()
    }

    const recorded = values.recorded ? recordedRunResult(transcript, counter) : undefined
    if (values.json) {
      const json: Record<string, unknown> = {
        format: transcript.format,
        before: { messages: result.before.messages, tokens: result.before.totals.tokens },
        after: { messages: result.after.messages, tokens: result.after.totals.tokens },
        fates: result.fates,
        origins: result.origins,
        passes: result.passes,
        stages: result.stages,
        checks: result.checks,
        failureModes: result.checks.failureModes ?? [],
        facts: factTable(result),
        recordedCompactions: transcript.recordedCompactions,
        warnings: result.warnings,
      }
      if (config.summarizer !== 'extractive') json.summarizer = summarizerJson(config)
      if (recorded !== undefined) json.recorded = recordedJson(recorded, result)
      out(JSON.stringify(json, null, 2))
    } else {
      let text = report(name, transcript, result)
      if (config.summarizer !== 'extractive') {
        const sj = summarizerJson(config)
        text += `\nsummarizer ${sj.id}${sj.model ? ` (model ${sj.model} at ${sj.host})` : ''}`
      }
      if (recorded !== undefined) text += `\n${recordedText(recorded, result)}`
      out(text)
    }
    return failCode()
  } catch (e) {
    if (e instanceof UsageError) {
      err(`error: ${e.message}\n\n${USAGE}`)
      return 2
    }
    if (e instanceof InputError) {
      err(`error: ${e.message}`)
      return 1
    }
    // An overflow or a string too long is reported as what it means for the input.
    err(`error: ${failureText(e)}`)
    return 1
  }
}

/** The two axes of `sweep` from --x and --y (engine `parseSweepAxis`); a bad one is a usage error. */
function sweepAxesFromFlags(values: Record<string, string | boolean | undefined>): [SweepAxis, SweepAxis] {
  if (values.recorded !== undefined) throw new UsageError('--recorded belongs to compact')
  const axis = (flag: 'x' | 'y'): SweepAxis => {
    const text = values[flag]
    if (typeof text !== 'string') {
      throw new UsageError(`sweep needs --${flag}, e.g. --x keep_last=5..40:5 --y compact_after=10..80:10`)
    }
    const parsed = parseSweepAxis(text)
    if (!parsed.ok) throw new UsageError(`--${flag}: ${parsed.error}`)
    return parsed.axis
  }
  const x = axis('x')
  const y = axis('y')
  if (x.param === y.param) throw new UsageError(`--x and --y are both ${x.param}: choose two different parameters`)
  return [x, y]
}

/** Which summarizer ran, for the report: id, model and host (never the key). */
function summarizerJson(config: PipelineConfig): { id: SummarizerId; model?: string; host?: string } {
  const o = config.summarizerOptions
  return o ? { id: config.summarizer, model: o.model, host: hostOf(o.baseUrl) } : { id: config.summarizer }
}

/** The human lines for `compact --recorded`. */
function recordedText(recorded: RecordedRun | null, result: RunResult): string {
  if (!recorded) return 'recorded no recorded compaction in this transcript'
  const cmp = compareRecordedVsSimulated(recorded, result)
  const k = cmp.keptVerbatim
  return [
    `recorded compaction ${recorded.pass} at message ${recorded.compaction.atIndex}: ` +
      `messages ${recorded.before.totals.messages} → ${cmp.recorded.messages}, tokens ${recorded.before.totals.tokens} → ${cmp.recorded.tokens}`,
    `  vs simulated: ${cmp.simulated.messages} messages, ${cmp.simulated.tokens} tokens; kept verbatim by both ${k.both.length}, ` +
      `only recorded ${k.recordedOnly.length}, only simulated ${k.simulatedOnly.length}`,
    `  validity after: ${recorded.checks.after.length === 0 ? 'no problems' : `${recorded.checks.after.length} problem(s)`}`,
  ].join('\n')
}

// Run when executed directly (tsx src/cli/main.ts), not when imported by tests.
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  // A reader that stops early (`| head`) closes the pipe: that ends the output, it is no error.
  process.stdout.on('error', (e: NodeJS.ErrnoException) => {
    if (e.code !== 'EPIPE') throw e
    process.exit(0)
  })
  main(process.argv.slice(2), (s) => process.stdout.write(s.endsWith('\n') ? s : `${s}\n`), (s) =>
    process.stderr.write(s.endsWith('\n') ? s : `${s}\n`),
  ).then((code) => {
    process.exitCode = code
  })
}
