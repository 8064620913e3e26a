/**
 * The CLI's commands as one table: each `{name, synopsis, summary, options, run}`. `main` parses
 * a command's `options` and calls its `run`; the usage text is built from the same table, so a
 * command, its flags and its usage line are written once.
 */
import { writeFileSync } from 'node:fs'
import { tokenTimeline } from '../engine/analysis/turns'
import { factTable, neededFacts } from '../engine/facts/table'
import { buildReport } from '../report/build'
import { describeRedactions } from '../report/redact'
import { EXPORT_TARGETS, exportTranscript, type ExportTarget } from '../engine/export'
import { findFact } from '../engine/facts/finder'
import { indexRun } from '../engine/facts/run-index'
import type { PipelineConfig, RunResult, Transcript } from '../engine/model'
import { runPipeline, type PipelineDeps } from '../engine/pipeline'
import { windowOf } from '../engine/models'
import { recordedRunResult } from '../engine/analysis/recorded'
import { parseSweepAxis, sweep, sweepConfigOf, type SweepAxis } from '../engine/analysis/sweep'
import { currentSweepValue, defaultSweepSpan, sweepParamOf, type SweepScale } from '../engine/analysis/sweep-params'
import { ALL_PARAMS } from '../engine/stages/definitions'
import {
  countMessageTokens,
  countToolSchemaTokens,
  loadCounter,
  REPLY_PRIMING_TOKENS,
  type CachedCounter,
} from '../engine/tokens/count'
import { InputError, UsageError } from './errors'
import { CONVERSATION_OPTION, importInput, MAX_SIZE_OPTION, refuseOverwrite } from './input'
import { INSPECT_COMMAND, JSON_OPTION } from './inspect'
import {
  configFromFlags,
  PIPELINE_OPTIONS,
  summarizerDeps,
  unusedFlagWarnings,
  type CliEnv,
  type CliOption,
  type FlagValues,
} from './options'
import { compactJson, compactReport, findText, findVerdictsJson } from './report'
import { neededFor } from '../engine/facts/history'
import { sweepJson, sweepText } from './sweep'
import { writeJson } from './json-stream'
import { probeRegex } from './regex-guard'
import { FactSearchIndex, REGEX_DEADLINE_MS, regexTooSlow } from '../worker/fact-search'

/** What a command's `run` gets: the parsed arguments, where to print, and the surroundings. */
interface CommandContext {
  positionals: string[]
  values: FlagValues
  /** Writes to standard output; false when the stream's buffer is full (wait for `cli.drained`). */
  out: (s: string) => unknown
  err: (s: string) => void
  cli: CliEnv
}

/** One command of the CLI. */
export interface CliCommand {
  name: string
  /** What follows the command name in the usage line: `<file|-> [options]`. */
  synopsis: string
  /** What it does, for the usage text (wrapped there). */
  summary: string
  /** Every option it accepts (anything else is a usage error). */
  options: readonly CliOption[]
  /** Runs it; resolves to the exit code. Throws `UsageError` (2) or `InputError` (1). */
  run: (ctx: CommandContext) => Promise<number>
}

const RECORDED_OPTION: CliOption = {
  name: 'recorded',
  type: 'boolean',
  help:
    'compact: add what the agent really kept after its last recorded\ncompaction, and recorded vs simulated; ' +
    'find: judge each fact against that\ncompaction instead of the simulation',
}

const WATCH_OPTION: CliOption = {
  name: 'watch',
  type: 'string',
  arg: 'X',
  multiple: true,
  help:
    'compact/find: track the text X as a fact of yours (repeatable): compact\nadds it to the facts table ' +
    '(kind watched, first) and names its verdict,\nfind gives its verdict after the other facts',
}

/** The texts of every `--watch`, trimmed, empty ones refused, each once, in order. */
function watchedFlag(values: FlagValues): string[] {
  const raw = values.watch
  const list = Array.isArray(raw) ? raw : typeof raw === 'string' ? [raw] : []
  if (list.some((w) => w.trim() === '')) throw new UsageError('--watch takes a text to track, got an empty one')
  return [...new Set(list.map((w) => w.trim()))]
}

/**
 * The options of the commands that run the pipeline. `--json` and `--recorded` are accepted by
 * all four so that a command they do not belong to says so in its own words.
 */
const RUN_OPTIONS: readonly CliOption[] = [...PIPELINE_OPTIONS, CONVERSATION_OPTION, MAX_SIZE_OPTION, RECORDED_OPTION, JSON_OPTION]

/** A pipeline run of the command's one file, as compact, export and find make it. */
interface Run {
  name: string
  transcript: Transcript
  config: PipelineConfig
  counter: CachedCounter
  result: RunResult
  /** Prints each stage that stopped with an error on stderr; 1 when one did, else 0. */
  failCode: () => number
}

/**
 * The configuration of the flags (`configFromFlags`; a preset for `transcript`'s recorded agent
 * version when given), with a `warning:` line on stderr for each stage-param flag that has no
 * effect in it (`unusedFlagWarnings`).
 */
function configOf(ctx: CommandContext, transcript?: Transcript): PipelineConfig {
  const config = configFromFlags(ctx.values, transcript)
  for (const w of unusedFlagWarnings(ctx.values, config)) ctx.err(`warning: ${w}`)
  return config
}

/**
 * Imports the file and runs the pipeline of the flags. A stage that stopped with an error (a
 * failed LLM summarizer call, a token trigger at 0 tokens) is not a quiet "no change": `failCode`
 * says so and gives exit code 1.
 */
async function runFile(ctx: CommandContext, command: string): Promise<Run> {
  if (ctx.positionals.length !== 1) throw new UsageError(`${command} takes exactly one <file> (or - for standard input)`)
  // A bad flag is reported before the file is read; the preset then takes the file's agent version.
  configFromFlags(ctx.values)
  const { name, transcript } = importInput(ctx, command)
  const config = configOf(ctx, transcript)
  const runtime = summarizerDeps(config, ctx.values, ctx.cli)
  const counter = await loadCounter(config.encoding)
  const deps: PipelineDeps = { counter }
  if (runtime) deps.summarizerRuntime = runtime
  const result = await runPipeline(transcript, config, deps)
  // A stage that stopped (a failed summarizer call, a token trigger at 0 tokens) is not a quiet "no change".
  const failed = result.stages.filter((s) => s.error !== undefined)
  const failCode = () => {
    for (const s of failed) ctx.err(`error: ${s.stage}: ${s.error}`)
    return failed.length > 0 ? 1 : 0
  }
  return { name, transcript, config, counter, result, failCode }
}

/**
 * The two axes of `sweep` from --x and --y (engine `parseSweepAxis`); a bad one is a usage error.
 * An axis that names a parameter alone (`--x keep_last`) gets the default range around its value
 * in `config` — the page's default grid (engine `defaultSweepSpan`, scaled to `scale`).
 */
function sweepAxesFromFlags(values: FlagValues, config: PipelineConfig, scale: () => SweepScale): [SweepAxis, SweepAxis] {
  const axis = (flag: 'x' | 'y'): SweepAxis => {
    const text = values[flag]
    if (typeof text !== 'string') {
      throw new UsageError(`sweep needs --${flag}, e.g. --x keep_last=5..40:5 --y compact_after=10..80:10`)
    }
    const named = text.includes('=') ? undefined : sweepParamOf(text.trim())
    const span = named === undefined ? undefined : defaultSweepSpan(named, scale(), currentSweepValue(config, named))
    const parsed = parseSweepAxis(span === undefined ? text : `${text.trim()}=${span.from}..${span.to}:${span.step}`)
    if (!parsed.ok) throw new UsageError(`--${flag}: ${parsed.error}`)
    return parsed.axis
  }
  const x = axis('x')
  const y = axis('y')
  if (x.param === y.param) throw new UsageError(`--x and --y are both ${x.param}: choose two different parameters`)
  return [x, y]
}

/**
 * The size of a transcript a default sweep range is scaled to: its messages and Before tokens, and
 * the model window (`window`) no token axis goes past.
 */
function scaleOf(transcript: Transcript, counter: CachedCounter, window: number | undefined): SweepScale {
  const tokens = transcript.messages.reduce((k, m) => k + countMessageTokens(m, counter.count), 0)
  return {
    messages: transcript.messages.length,
    tokens: tokens + countToolSchemaTokens(transcript.tools, counter.count) + REPLY_PRIMING_TOKENS,
    window: windowOf(window),
  }
}

/** The parameters a sweep axis may name, as the usage lists them (aliases in parentheses). */
function sweepParamList(): string {
  return ALL_PARAMS.flatMap(({ param }) =>
    param.sweep === undefined ? [] : [param.sweep.alias ? `${param.sweep.alias} (or ${param.key})` : param.key],
  ).join(', ')
}

/** The options of `report`: where the file goes and what to redact. */
const REPORT_OPTIONS: readonly CliOption[] = [
  { name: 'out', type: 'string', arg: 'F', help: 'report: write the HTML file to F; without --out (or with --out -) to\nstandard output' },
  { name: 'redact', type: 'boolean', help: 'report: replace API keys and tokens, e-mail addresses and home-directory\nuser names by placeholders ([key-1], [email-1], /home/[user-1])' },
  { name: 'redact-string', type: 'string', arg: 'S', multiple: true, help: 'report: also replace the text S by [redacted-N] (repeatable)' },
]

/** Every command, in the order the usage lists them. */
export const COMMANDS: readonly CliCommand[] = [
  {
    name: 'compact',
    synopsis: '<file|-> [options]',
    summary: 'run the pipeline, report before → after',
    options: [...RUN_OPTIONS, WATCH_OPTION],
    async run(ctx) {
      const watched = watchedFlag(ctx.values)
      const run = await runFile(ctx, 'compact')
      const recorded = ctx.values.recorded ? recordedRunResult(run.transcript, run.counter, { calibration: run.result.calibration }) : undefined
      if (ctx.values.json) {
        const schemaTokens = countToolSchemaTokens(run.transcript.tools, run.counter.count)
        // Every count the JSON shows is in the run; the cache of counted texts (a key per
        // message) is not needed again by this one-command process and is let go first.
        run.counter.forget?.()
        // Written in chunks: the object of a long session is hundreds of MB of text.
        await writeJson(compactJson(run.transcript, run.config, run.result, recorded, watched, schemaTokens), ctx.out, ctx.cli.drained)
        return run.failCode()
      }
      let text = compactReport(run.name, run.transcript, run.config, run.result, recorded)
      if (watched.length > 0) {
        // One line per watched fact, the verdict `find` gives it: with --recorded, against what
        // the agent kept (as `find --recorded` and the report above judge it).
        const judged = recorded ?? run.result
        const ix = indexRun(judged)
        const needed = neededFacts(judged)
        const verdicts = watched.map((w) => findFact(ix, w, { why: true, needed: neededFor(needed, w)?.needs }))
        const summarizer = recorded || run.config.summarizer !== 'extractive' ? 'llm' : 'extractive'
        const lines = findText(run.name, run.transcript, judged, verdicts, summarizer).split('\n').slice(1)
        text += `\n${lines.map((l) => (l.startsWith('  ') ? l : `watched ${l}`)).join('\n')}`
      }
      ctx.out(text)
      return run.failCode()
    },
  },
  {
    name: 'report',
    synopsis: '<file|-> [--out F] [--redact] [options]',
    summary:
      'one self-contained HTML file of the run (no script, nothing loaded): settings, totals, passes, ' +
      'before | after with every mark, facts, token timeline; what was redacted goes to stderr',
    options: [...PIPELINE_OPTIONS, CONVERSATION_OPTION, MAX_SIZE_OPTION, ...REPORT_OPTIONS],
    async run(ctx) {
      const raw = ctx.values['redact-string']
      const strings = Array.isArray(raw) ? raw : typeof raw === 'string' ? [raw] : []
      if (strings.some((x) => x.trim() === '')) throw new UsageError('--redact-string takes a text to replace, got an empty one')
      const out = ctx.values.out
      if (out === '') throw new UsageError('--out takes a file name (or - for standard output)')
      if (typeof out === 'string' && out !== '-' && ctx.positionals.length === 1) refuseOverwrite('--out', out, ctx.positionals[0]!)
      const run = await runFile(ctx, 'report')
      // A timeline is one prefix run per turn: with an HTTP summarizer each would send its own
      // requests, so the report then goes without it (its section says so).
      const offline = run.config.summarizer === 'extractive' || run.config.summarizer === 'recorded'
      const timeline = offline ? await tokenTimeline(run.transcript, run.config, { counter: run.counter, skipChecks: true }) : undefined
      const { html, redactions } = buildReport({
        fileName: run.name,
        transcript: run.transcript,
        config: run.config,
        result: run.result,
        facts: factTable(run.result),
        ...(timeline ? { timeline } : {}),
        redact: { patterns: ctx.values.redact === true, strings },
        createdAt: new Date().toISOString(),
      })
      if (ctx.values.redact === true || strings.length > 0) ctx.err(`redacted: ${describeRedactions(redactions)}`)
      if (typeof out === 'string' && out !== '-') {
        try {
          writeFileSync(out, html)
        } catch (e) {
          throw new InputError(`${out}: cannot write the report (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`)
        }
      } else ctx.out(html.replace(/\n$/, ''))
      return run.failCode()
    },
  },
  INSPECT_COMMAND,
  {
    name: 'export',
    synopsis: '<file|-> --to T [options]',
    summary: `print the After transcript as T: ${EXPORT_TARGETS.join(', ')}`,
    options: [...RUN_OPTIONS, { name: 'to', type: 'string', arg: 'T', help: `export: the format, one of ${EXPORT_TARGETS.join(', ')}` }],
    async run(ctx) {
      const to = ctx.values.to
      if (typeof to !== 'string') throw new UsageError(`export needs --to, one of ${EXPORT_TARGETS.join(', ')}`)
      if (!EXPORT_TARGETS.includes(to as ExportTarget)) {
        throw new UsageError(`--to must be one of ${EXPORT_TARGETS.join(', ')}, got "${to}"`)
      }
      if (ctx.values.json !== undefined || ctx.values.recorded !== undefined) {
        throw new UsageError('export always prints JSON; --json and --recorded belong to compact')
      }
      const run = await runFile(ctx, 'export')
      const exported = exportTranscript(run.transcript, to as ExportTarget, run.result.after.messages)
      for (const w of exported.warnings) ctx.err(`warning: ${w}`)
      ctx.out(JSON.stringify(exported.body, null, 2))
      return run.failCode()
    },
  },
  {
    name: 'find',
    synopsis: '<file|-> <fact…> [options]',
    summary:
      "each fact's verdict (survives / lost / never present) and the pass/stage that lost it; with " +
      '--regex each fact is a regular expression',
    options: [...RUN_OPTIONS, { name: 'regex', type: 'boolean', help: 'find: each <fact> is a regular expression' }, WATCH_OPTION],
    async run(ctx) {
      const [file, ...facts] = ctx.positionals
      const watched = watchedFlag(ctx.values)
      if (file === undefined || facts.length + watched.length === 0)
        throw new UsageError('find takes a <file> (or -) and at least one <fact> (or --watch X)')
      const queries = facts.map((f) => {
        if (f === '') throw new UsageError('an empty <fact> matches everything; give the text to find')
        if (!ctx.values.regex) return f
        try {
          return new RegExp(f)
        } catch (e) {
          throw new UsageError(`--regex: "${f}" is not a regular expression (${(e as Error).message})`)
        }
      })
      const run = await runFile({ ...ctx, positionals: [file] }, 'find')
      // --recorded: the verdicts are against what the agent kept after its own last compaction.
      const judged = ctx.values.recorded ? recordedRunResult(run.transcript, run.counter, { calibration: run.result.calibration }) : run.result
      if (!judged) throw new InputError(`${run.name}: --recorded, but this transcript records no compaction`)
      const search = new FactSearchIndex()
      // Each regex first runs where it can be stopped, over the texts the search reads (the page's guard).
      for (const q of queries) {
        if (typeof q === 'string' || (await probeRegex(q.source, search.textsOf(judged), REGEX_DEADLINE_MS)) === 'ok') continue
        throw new InputError(`--regex "${q.source}": this regular expression ${regexTooSlow(REGEX_DEADLINE_MS)}; simplify it`)
      }
      const ix = search.indexOf(judged)
      const needed = neededFacts(judged)
      const verdicts = queries.map((q) => findFact(ix, q, { why: true, needed: neededFor(needed, q)?.needs }))
      // Watched facts are plain strings, never regular expressions: the user's own text.
      const watchedVerdicts = watched.map((w) => findFact(ix, w, { why: true, needed: neededFor(needed, w)?.needs }))
      const summarizer = ctx.values.recorded || run.config.summarizer !== 'extractive' ? 'llm' : 'extractive'
      if (ctx.values.json) {
        const json: Record<string, unknown> = { format: run.transcript.format, facts: findVerdictsJson(judged, verdicts, queries) }
        if (watched.length > 0) json.watched = findVerdictsJson(judged, watchedVerdicts, watched)
        ctx.out(JSON.stringify(json, null, 2))
      } else {
        const text = findText(run.name, run.transcript, judged, verdicts, summarizer)
        const extra = watched.length > 0 ? findText(run.name, run.transcript, judged, watchedVerdicts, summarizer).split('\n').slice(1) : []
        ctx.out([text, ...extra.map((l) => (l.startsWith('  ') ? l : `watched ${l}`))].join('\n'))
      }
      return run.failCode()
    },
  },
  {
    name: 'sweep',
    synopsis: '<file|-> --x P=from..to:step --y P=a,b,c [options]',
    summary: `the pipeline over a grid of two params: tokens after, passes, facts lost per cell. P: ${sweepParamList()}`,
    options: [
      ...RUN_OPTIONS,
      {
        name: 'x',
        type: 'string',
        arg: 'P=RANGE',
        help: 'sweep: the x axis, from..to:step (inclusive) or a,b,c; P alone: 8\nvalues around its current value (the page\'s default grid)',
      },
      { name: 'y', type: 'string', arg: 'P=RANGE', help: 'sweep: the y axis, the same way' },
    ],
    async run(ctx) {
      if (ctx.values.recorded !== undefined) throw new UsageError('--recorded belongs to compact')
      // Checked before the file is read; a bare parameter's range needs the transcript's size.
      const flagged = configFromFlags(ctx.values)
      const early = ['x', 'y'].every((f) => typeof ctx.values[f] !== 'string' || ctx.values[f].includes('='))
      if (early) sweepAxesFromFlags(ctx.values, flagged, () => ({ messages: 0, tokens: 0 }))
      if (ctx.positionals.length !== 1) throw new UsageError('sweep takes exactly one <file> (or - for standard input)')
      const { name, transcript } = importInput(ctx, 'sweep')
      // The preset takes the file's agent version.
      const config = configOf(ctx, transcript)
      // With an LLM summarizer the sweep runs the offline extractive one, as the page does.
      const swept = sweepConfigOf(config)
      const counter = await loadCounter(swept.config.encoding)
      const axes = sweepAxesFromFlags(ctx.values, config, () => scaleOf(transcript, counter, config.window))
      const result = await sweep(transcript, swept.config, axes[0], axes[1], { counter })
      ctx.out(
        ctx.values.json
          ? JSON.stringify(sweepJson(transcript, result, swept.note), null, 2)
          : sweepText(name, transcript, result, swept.note),
      )
      return 0
    },
  },
]
