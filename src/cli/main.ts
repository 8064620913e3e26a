/**
 * The command line: the same engine as the page, without a browser (SPEC §7).
 *
 *   npm run cli -- compact <file|-> [--stages dedupe,prune-tool-results,summarize] [--keep-last 20] [--json]
 *   npm run cli -- inspect | export | find | sweep …      (`npm run cli -- --help` for all of it)
 *
 * The commands are the table of commands.ts; the usage text is built from it and, for the stage
 * parameters, from the stage definitions (options.ts). Exit codes: 0 success, 1 bad input (one
 * line on stderr naming the line/field and why), 2 bad usage (the error and a line pointing to
 * `--help`; no arguments at all print the usage). A stage that stops with an error (a
 * failed LLM summarizer call, a token trigger at 0 tokens) also exits 1 (the report still prints,
 * the error on stderr). API keys come from
 * the environment (OPENAI_API_KEY, ANTHROPIC_API_KEY), never from flags.
 */
import { once } from 'node:events'
import { pathToFileURL } from 'node:url'
import { parseArgs, type ParseArgsConfig } from 'node:util'
import { failureText } from '../engine/failure-text'
import type { CliCommand } from './commands'
import { InputError, UsageError } from './errors'
import { rerunWithLargerHeap } from './heap'
import { INSPECT_COMMAND } from './inspect'
import type { CliEnv, CliOption, FlagValues } from './options'
import { visibleControls, writeFailure } from './output'

/** Where a usage line's description starts: command lines, then option lines. */
const COMMAND_COLUMN = 46
const OPTION_COLUMN = 28
/** The width descriptions are wrapped to. */
const WRAP = 100

/** `text` wrapped at word boundaries to lines of at most `width` characters; `\n` always breaks. */
function wrap(text: string, width: number): string[] {
  const lines: string[] = []
  for (const paragraph of text.split('\n')) {
    let line = ''
    for (const word of paragraph.split(' ')) {
      if (line !== '' && line.length + 1 + word.length > width) {
        lines.push(line)
        line = word
      } else line = line === '' ? word : `${line} ${word}`
    }
    lines.push(line)
  }
  return lines
}

/** `head` padded to `column`, then `text` wrapped beside it (on the next line when `head` is too long). */
function usageLines(head: string, text: string, column: number): string[] {
  const body = wrap(text, WRAP - column)
  const indent = ' '.repeat(column)
  if (head.length + 2 > column) return [head, ...body.map((l) => indent + l)]
  return [head.padEnd(column) + (body[0] ?? ''), ...body.slice(1).map((l) => indent + l)]
}

/** The usage line of one option: `--name ARG` and its help. */
function optionLines(o: CliOption): string[] {
  return usageLines(`  --${o.name}${o.arg ? ` ${o.arg}` : ''}`, o.help, OPTION_COLUMN)
}

/**
 * The usage text, from the command table: one entry per command, then the pipeline options
 * (stage flags from the stage definitions) and every other option once, in the table's order.
 */
function usageText(commands: readonly CliCommand[], pipelineOptions: readonly CliOption[]): string {
  const lines = ['Usage:']
  for (const c of commands) lines.push(...usageLines(`  npm run cli -- ${c.name} ${c.synopsis}`, c.summary, COMMAND_COLUMN))
  const piped = commands.filter((c) => pipelineOptions.every((o) => c.options.includes(o))).map((c) => c.name)
  const listed = piped.length > 1 ? `${piped.slice(0, -1).join(', ')} and ${piped[piped.length - 1]}` : piped.join('')
  lines.push('', `Options (${listed}):`)
  const seen = new Set<string>()
  for (const o of [...pipelineOptions, ...commands.flatMap((c) => c.options)]) {
    if (seen.has(o.name)) continue
    seen.add(o.name)
    lines.push(...optionLines(o))
  }
  return `${lines.join('\n')}\n`
}

/**
 * The command table (commands.ts), loaded on first use: it brings the pipeline, the stages, the
 * tokenizer and the reports, which `inspect` does not need.
 */
async function commandTable(): Promise<readonly CliCommand[]> {
  return (await import('./commands')).COMMANDS
}

/** The usage text of the whole table (loads it). */
async function usage(): Promise<string> {
  const [commands, { PIPELINE_OPTIONS }] = await Promise.all([commandTable(), import('./options')])
  return usageText(commands, PIPELINE_OPTIONS)
}

/** What follows a usage error's one line: where the usage is (the whole text buries the error). */
const USAGE_HINT = 'see npm run cli -- --help for the usage'

/** Commands run without loading the table: their modules import no pipeline code. */
const LIGHT_COMMANDS: readonly CliCommand[] = [INSPECT_COMMAND]

/** Flags that would put a key on the command line (and in shell history): refused. */
const KEY_FLAGS = /^--(api-key|key|openai-api-key|anthropic-api-key)(=|$)/

/** `parseArgs` options of a command: each option's name and type, and `no-<name>` of a negatable one. */
function parseOptions(command: CliCommand): NonNullable<ParseArgsConfig['options']> {
  return Object.fromEntries(
    command.options.flatMap((o) => [
      [o.name, o.multiple ? { type: o.type, multiple: true } : { type: o.type }],
      ...(o.negatable ? [[`no-${o.name}`, { type: 'boolean' as const }]] : []),
    ]),
  )
}

/**
 * Runs the CLI; returns the exit code. Everything it prints goes through `visibleControls` (a
 * transcript's control sequences are shown, never run). Exported for tests.
 */
export async function main(
  argv: string[],
  write: (s: string) => unknown,
  writeErr: (s: string) => void,
  cli: CliEnv = {},
): Promise<number> {
  const out = (s: string) => write(visibleControls(s))
  const err = (s: string) => writeErr(visibleControls(s))
  try {
    const [name, ...rest] = argv
    if (rest.some((a) => KEY_FLAGS.test(a))) {
      throw new UsageError(
        'API keys are never flags (they would end up in shell history and logs): set OPENAI_API_KEY or ANTHROPIC_API_KEY',
      )
    }
    if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
      out(await usage())
      return name === undefined ? 2 : 0
    }
    const command = LIGHT_COMMANDS.find((c) => c.name === name) ?? (await commandTable()).find((c) => c.name === name)
    if (!command) throw new UsageError(`unknown command "${name}"; try: ${(await commandTable()).map((c) => c.name).join(', ')}`)
    if (rest.includes('--help') || rest.includes('-h')) {
      out(await usage())
      return 0
    }
    let parsed
    try {
      parsed = parseArgs({ args: rest, allowPositionals: true, options: parseOptions(command) })
    } catch (e) {
      const message = (e as Error).message
      // parseArgs reads "--keep-last -3" as two options; say how to pass a negative number.
      const ambiguous = /argument is ambiguous/.test(message)
      throw new UsageError(ambiguous ? `${message.split('\n')[0]} (write --flag=value)` : message)
    }
    return await command.run({ positionals: parsed.positionals, values: parsed.values as FlagValues, out, err, cli })
  } catch (e) {
    if (e instanceof UsageError) {
      err(`error: ${e.message}\n${USAGE_HINT}`)
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

// Run when executed directly (tsx src/cli/main.ts), not when imported by tests.
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  // A large input runs in a child with a heap sized to the machine (heap.ts); else here. The
  // check comes before anything touches process.stdout: opening it as a stream makes the pipe
  // non-blocking for every process sharing it, and the child's synchronous writes would fail.
  void rerunWithLargerHeap(process.argv.slice(2)).then(async (rerun) => {
    if (rerun !== null) {
      process.exitCode = rerun
      return
    }
    // A reader that stops early (`| head`) closes the pipe: that ends the output, it is no error.
    // Any other failed write (a full disk) ends it with one line.
    const onWriteError = (e: NodeJS.ErrnoException) => {
      const line = writeFailure(e)
      if (line === null) process.exit(0)
      process.stderr.write(`${line}\n`)
      process.exit(1)
    }
    process.stdout.on('error', onWriteError)
    process.stderr.on('error', () => process.exit(1))
    process.exitCode = await main(
      process.argv.slice(2),
      (s) => process.stdout.write(s.endsWith('\n') ? s : `${s}\n`),
      (s) => process.stderr.write(s.endsWith('\n') ? s : `${s}\n`),
      { drained: () => once(process.stdout, 'drain').then(() => undefined) },
    )
  })
}
