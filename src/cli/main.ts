/**
 * The command line: the same engine as the page, without a browser (SPEC §7).
 *
 *   npm run cli -- compact <file|-> [--stages dedupe,prune-tool-results,summarize] [--keep-last 20]
 *       [--compact-after 40] [--target N] [--keep-steps 1] [--min-tokens 200] [--threshold-tokens N]
 *       [--keep-recent N] [--encoding o200k_base|cl100k_base] [--summarizer extractive] [--json]
 *
 * Exit codes: 0 success, 1 bad input (one line on stderr naming the line/field and why),
 * 2 bad usage. API keys would come from the environment, never from flags.
 */
import { readFileSync } from 'node:fs'
import { pathToFileURL } from 'node:url'
import { parseArgs } from 'node:util'
import { importBytes } from '../engine/formats/index'
import type { Encoding, PipelineConfig, RunResult, StageId, Transcript } from '../engine/model'
import { DEFAULT_PIPELINE, runPipeline } from '../engine/pipeline'
import { loadCounter } from '../engine/tokens/count'

const STAGE_IDS: readonly StageId[] = ['dedupe', 'prune-tool-results', 'summarize', 'insert-then-compress']
const ENCODINGS: readonly Encoding[] = ['o200k_base', 'cl100k_base']

const USAGE = `Usage: npm run cli -- compact <file|-> [options]

Options:
  --stages a,b,c            stages to run, in order (default: dedupe,prune-tool-results,summarize)
                            one of: ${STAGE_IDS.join(', ')}
  --keep-last N             summarize: messages kept verbatim (default 20)
  --compact-after N         summarize: compact when more than N uncompacted messages (default 40)
  --target N                prune-tool-results: token target
  --keep-steps N            prune-tool-results: newest steps guarded (default 1, at least 1)
  --min-tokens N            prune-tool-results: results under N tokens are kept (default 200)
  --threshold-tokens N      insert-then-compress: fire above N tokens
  --keep-recent N           insert-then-compress: recent messages kept verbatim
  --encoding E              o200k_base (default) or cl100k_base
  --summarizer S            extractive (default; offline, not an LLM)
  --json                    print one JSON object instead of the report
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
  if (summarizer !== 'extractive') {
    throw new UsageError(`--summarizer ${summarizer} is not available yet; only "extractive" (offline) is built`)
  }
  if (values.stages !== undefined) {
    const wanted = String(values.stages).split(',').map((s) => s.trim()).filter(Boolean)
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
  set('summarize', 'keep_last', 'keep-last')
  set('summarize', 'compact_after', 'compact-after')
  set('prune-tool-results', 'target', 'target')
  set('prune-tool-results', 'keep_steps', 'keep-steps')
  set('prune-tool-results', 'min_tokens', 'min-tokens')
  set('insert-then-compress', 'threshold_tokens', 'threshold-tokens')
  set('insert-then-compress', 'keep_recent', 'keep-recent')
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

function pct(before: number, after: number): string {
  if (before === 0) return '0%'
  return `${(((after - before) / before) * 100).toFixed(1)}%`
}

/** The short human report (SPEC §7 "Without --json"). */
function report(name: string, transcript: Transcript, result: RunResult): string {
  const b = result.before.totals
  const a = result.after.totals
  const lines = [
    `${name}: ${transcript.format}${transcript.title ? ` — ${transcript.title}` : ''}`,
    `messages ${b.messages} → ${a.messages}`,
    `tokens   ${b.tokens} → ${a.tokens} (${pct(b.tokens, a.tokens)}; overhead ${a.overheadTokens} not compactable)`,
    `passes   ${result.passes.length}`,
  ]
  for (const p of result.passes) {
    lines.push(`  pass ${p.pass} (${p.stage}) at message ${p.atMessage}: messages ${p.from}–${p.upto - 1} → summary`)
  }
  lines.push('stages')
  for (const s of result.stages) {
    const what = s.error ? `error: ${s.error}` : s.changed ? `${s.tokensBefore} → ${s.tokensAfter} tokens (−${s.tokensBefore - s.tokensAfter})` : `no change${s.note ? ` (${s.note})` : ''}`
    lines.push(`  ${s.stage.padEnd(22)} ${what}`)
  }
  const problems = [...result.checks.after]
  lines.push(`validity ${problems.length === 0 ? 'after: no problems' : `after: ${problems.length} problem(s)`}${result.checks.before.length ? `; before: ${result.checks.before.length} problem(s)` : ''}`)
  for (const p of problems) lines.push(`  ${p.rule}: ${p.message}`)
  for (const w of [...transcript.warnings, ...result.warnings]) lines.push(`warning: ${w}`)
  return lines.join('\n')
}

/** Runs the CLI; returns the exit code. Exported for tests. */
export async function main(argv: string[], out: (s: string) => void, err: (s: string) => void): Promise<number> {
  try {
    const [command, ...rest] = argv
    if (command === undefined || command === '--help' || command === '-h' || command === 'help') {
      out(USAGE)
      return command === undefined ? 2 : 0
    }
    if (command !== 'compact') throw new UsageError(`unknown command "${command}"; try: compact`)
    let parsed
    try {
      parsed = parseArgs({
        args: rest,
        allowPositionals: true,
        options: {
          stages: { type: 'string' },
          'keep-last': { type: 'string' },
          'compact-after': { type: 'string' },
          target: { type: 'string' },
          'keep-steps': { type: 'string' },
          'min-tokens': { type: 'string' },
          'threshold-tokens': { type: 'string' },
          'keep-recent': { type: 'string' },
          encoding: { type: 'string' },
          summarizer: { type: 'string' },
          'base-url': { type: 'string' },
          model: { type: 'string' },
          json: { type: 'boolean' },
        },
      })
    } catch (e) {
      throw new UsageError((e as Error).message)
    }
    const { values, positionals } = parsed
    if (positionals.length !== 1) throw new UsageError('compact takes exactly one <file> (or - for standard input)')
    const config = configFromFlags(values)
    const input = readInput(positionals[0]!)
    const imported = importBytes(input.bytes, { fileName: input.name })
    if (!imported.ok) {
      const where = [imported.error.line !== undefined ? `line ${imported.error.line}` : '', imported.error.field ?? '']
        .filter(Boolean)
        .join(', ')
      throw new InputError(`${input.name}${where ? ` (${where})` : ''}: ${imported.error.message}`)
    }
    const transcript = imported.transcript
    const counter = await loadCounter(config.encoding)
    const result = await runPipeline(transcript, config, { counter })
    if (values.json) {
      out(
        JSON.stringify(
          {
            format: transcript.format,
            before: { messages: result.before.messages, tokens: result.before.totals.tokens },
            after: { messages: result.after.messages, tokens: result.after.totals.tokens },
            fates: result.fates,
            origins: result.origins,
            passes: result.passes,
            stages: result.stages,
            checks: result.checks,
            recordedCompactions: transcript.recordedCompactions,
            warnings: [...transcript.warnings, ...result.warnings],
          },
          null,
          2,
        ),
      )
    } else {
      out(report(input.name, transcript, result))
    }
    return 0
  } catch (e) {
    if (e instanceof UsageError) {
      err(`error: ${e.message}\n\n${USAGE}`)
      return 2
    }
    if (e instanceof InputError) {
      err(`error: ${e.message}`)
      return 1
    }
    err(`error: ${(e as Error).message}`)
    return 1
  }
}

// Run when executed directly (tsx src/cli/main.ts), not when imported by tests.
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main(process.argv.slice(2), (s) => process.stdout.write(s.endsWith('\n') ? s : `${s}\n`), (s) =>
    process.stderr.write(s.endsWith('\n') ? s : `${s}\n`),
  ).then((code) => {
    process.exitCode = code
  })
}
