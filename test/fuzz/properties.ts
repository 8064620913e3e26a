/**
 * The fuzz harness's properties, over the inputs of generators.ts. Each is run by `fuzz.test.ts`
 * (`npm test`: few runs, a fixed seed) and by `run.ts` (`npm run fuzz`: many runs, a printed
 * seed), except those marked `fuzzOnly`, which `npm run fuzz` alone runs (a fault being fixed,
 * named there). A property fails by throwing an `Error` whose message says which promise broke.
 *
 * Importers (every registered format, through `importBytes` as the page and the CLI call it):
 * never a crash (a thrown exception becomes `import failed: …`, which no import failure should
 * say), a failure is one non-empty line, the input bytes and the parsed records are never changed,
 * every detector answers without throwing, and the same input imports the same way twice; a
 * failure, warning or note is one line of at most `MESSAGE_LIMIT` characters.
 *
 * Pipeline (`runPipeline` with random configs of every stage): no throw, no stage error that is
 * an exception's text (a stage's throw is caught into its report), the transcript never changed,
 * the same result twice, After = Before when nothing fired, no validity problem in After of the
 * kinds in `NEW_PROBLEM_RULES` that Before did not already have, signed thinking by the provider's
 * rules (never `stale-thinking` in After, a kept block byte-identical), and tokens never up (After ≤
 * Before; each stage's output ≤ its input, and pin-facts ≤ Before: the pipeline's growth rule; a
 * summarize pass that grows says why in `grew`; a stage's last pass made at the last message
 * records the tokens of the context the stage leaves).
 */
import { isDeepStrictEqual } from 'node:util'
import fc from 'fast-check'
import { detectFormat } from '../../src/engine/formats/detect'
import { runImporter } from '../../src/engine/formats/failure'
import { importBytes } from '../../src/engine/formats/index'
import { importJsonlRecords } from '../../src/engine/formats/jsonl-import'
import { importersInOrder } from '../../src/engine/formats/registry'
import type { ImportResult } from '../../src/engine/formats/types'
import type { Message, PipelineConfig, RunResult, Transcript, ValidityProblem } from '../../src/engine/model'
import { runPipeline } from '../../src/engine/pipeline'
import { countCodePoints, deepFreeze } from '../../src/engine/stages/test-helpers'
import { cacheCounter, loadCounter, type CachedCounter } from '../../src/engine/tokens/count'
import {
  configArb,
  describeMutant,
  mutantArb,
  mutantBytes,
  mutantName,
  pipelineInputArb,
  reshapedArb,
  type FuzzSize,
  type Mutant,
  type PipelineInput,
} from './generators'

/** One property of the harness. */
export interface FuzzProperty {
  name: string
  /** Runs in `npm test` (this many times); absent with `fuzzOnly`. */
  unitRuns: number
  /** Set: `npm run fuzz` only, because of the fault named here (being fixed elsewhere). */
  fuzzOnly?: string
  /** The fast-check property over inputs of `size`. */
  property(size: FuzzSize): fc.IRawProperty<never, boolean>
}

function fail(what: string, detail: string, cause?: unknown): never {
  throw new Error(`${what}: ${detail}`, cause === undefined ? undefined : { cause })
}

/** Texts a failure must never carry: an exception the import did not expect. */
const CRASH = /^import failed:|Maximum call stack size exceeded|detector failed|is not a function|Cannot read properties of/

/** The checks every import result must pass. */
function checkResult(r: ImportResult): void {
  if (r.ok) {
    const crashed = r.transcript.warnings.find((w) => CRASH.test(w.replace(/^line \d+: /, '')))
    if (crashed) fail('an exception reached a warning', crashed)
    return
  }
  const message = r.error.message
  if (message.trim() === '') fail('an import failure without a message', JSON.stringify(r.error))
  if (/[\r\n]/.test(message)) fail('an import failure of more than one line', JSON.stringify(message.slice(0, 300)))
  if (CRASH.test(message)) fail('an importer threw (not an import failure)', message.slice(0, 300))
}

/** A mutant through `importBytes`: never a crash, bytes untouched, the same result twice. */
function importsCleanly(m: Mutant): void {
  const bytes = mutantBytes(m)
  const copy = bytes.slice()
  const options = { fileName: mutantName(m) }
  const first = importBytes(bytes, options)
  if (!isDeepStrictEqual(bytes, copy)) fail('the import changed its input bytes', describeMutant(m))
  checkResult(first)
  const second = importBytes(bytes, options)
  if (!isDeepStrictEqual(first, second)) fail('two imports of the same bytes differ', describeMutant(m))
}

const decoder = new TextDecoder('utf-8')

/**
 * A mutant's parsed value (its JSON root, its JSONL records, or its text) handed to every
 * detector of its container and to the importer detection picks, frozen: nothing may write to
 * it (a write throws, and the import reports a crash), nothing may throw from a detector.
 */
function leavesParsedInputAlone(m: Mutant): void {
  const bytes = mutantBytes(m)
  if (bytes[0] === 0x50 && bytes[1] === 0x4b) return
  const text = decoder.decode(bytes).replace(/^\ufeff/, '')
  const detection = detectFormat(text, { fileName: mutantName(m) })
  if (!detection.ok) return
  const parsed: unknown = detection.jsonl ?? detection.input
  const snapshot = JSON.stringify(parsed)
  deepFreeze(parsed)
  const container = detection.importer.container
  const input = detection.jsonl ? detection.jsonl.records : detection.input
  for (const importer of importersInOrder()) {
    if (importer.container !== container) continue
    try {
      importer.detect(input)
    } catch (e) {
      fail(`the ${importer.id} detector threw`, `${String(e)} on ${describeMutant(m)}`, e)
    }
  }
  const result = detection.jsonl
    ? importJsonlRecords(detection.jsonl, { keepRaw: true })
    : runImporter(detection.importer, detection.input, { keepRaw: true })
  checkResult(result)
  if (JSON.stringify(parsed) !== snapshot) fail(`the ${detection.format} importer changed its parsed input`, describeMutant(m))
}

/** Runs a property's check with the mutant named in the error. */
function named<T>(describe: (x: T) => string, check: (x: T) => void): (x: T) => void {
  return (x) => {
    try {
      check(x)
    } catch (e) {
      const message = e instanceof Error ? e.message : String(e)
      throw new Error(message.includes(describe(x).slice(0, 40)) ? message : `${message} (input: ${describe(x)})`, { cause: e })
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Pipeline

/** A fresh code-point counter, or the real o200k_base one (loaded once, its cache shared). */
async function counterOf(real: boolean): Promise<CachedCounter> {
  return real ? loadCounter('o200k_base') : cacheCounter('o200k_base', countCodePoints)
}

/** The validity rules whose new appearance in After is a fault of the compaction. */
const NEW_PROBLEM_RULES = ['orphan-tool-result', 'missing-tool-result', 'empty-message', 'first-not-user'] as const
type Rule = (typeof NEW_PROBLEM_RULES)[number]

/** The Before ids an After message stands for (a summary: the messages it covers). */
function beforeIdsOf(result: RunResult, afterId: string): string[] {
  const o = result.origins[afterId]
  if (!o) return [afterId]
  if (o.kind === 'summary') return o.coveredIds
  if (o.kind === 'original' || o.kind === 'back-reference' || o.kind === 'placeholder') return [o.beforeId]
  return []
}

/**
 * After's problems of `rule` that Before did not have: a problem is old when Before has one of the
 * same rule about the message (its first id) it stands for; `first-not-user` is old when Before
 * had it and no pass was made (a pass's summary opens the request, in whatever `summary_role`:
 * the pipeline makes it a user turn where the provider requires one).
 */
function newProblems(result: RunResult, rule: Rule): ValidityProblem[] {
  const old = result.checks.before.filter((p) => p.rule === rule)
  const after = result.checks.after.filter((p) => p.rule === rule)
  if (rule === 'first-not-user') return old.length > 0 && result.passes.length === 0 ? [] : after
  const oldIds = new Set(old.map((p) => p.messageIds[0]))
  return after.filter((p) => !beforeIdsOf(result, p.messageIds[0] ?? '').some((id) => oldIds.has(id)))
}

/** A pipeline case as a counterexample prints it. */
function describeRun(input: PipelineInput, config: PipelineConfig): string {
  return `${input.from}; config ${JSON.stringify(config)}`
}

async function run(transcript: Transcript, config: PipelineConfig, real: boolean): Promise<RunResult> {
  return runPipeline(transcript, config, { counter: await counterOf(real) })
}

/** The pipeline property with one check on a finished run. */
function pipelineProperty(
  size: FuzzSize,
  check: (result: RunResult, input: PipelineInput, config: PipelineConfig, real: boolean) => Promise<void> | void,
): fc.IRawProperty<never, boolean> {
  const real = size.tokens === 'both' ? fc.boolean() : fc.constant(false)
  return fc.asyncProperty(pipelineInputArb(size), configArb, real, async (input, config, real) => {
    const transcript = deepFreeze(input.transcript)
    let result: RunResult
    try {
      result = await run(transcript, config, real)
    } catch (e) {
      fail('the pipeline threw', `${e instanceof Error ? e.message : String(e)} on ${describeRun(input, config)}`, e)
    }
    try {
      await check(result, input, config, real)
    } catch (e) {
      const message = e instanceof Error ? e.message : String(e)
      throw new Error(`${message}; counter ${real ? 'o200k_base' : 'code points'}`, { cause: e })
    }
  }) as unknown as fc.IRawProperty<never, boolean>
}

const pipelinePure: FuzzProperty = {
  name: 'pipeline: no throw, the transcript unchanged, the same result twice',
  unitRuns: 30,
  property: (size) =>
    pipelineProperty(size, async (result, input, config, real) => {
      // A fresh copy (no per-array memo shared with the first run), frozen too.
      const copy = deepFreeze(structuredClone(input.transcript))
      if (!isDeepStrictEqual(input.transcript, copy)) fail('the pipeline changed its transcript', describeRun(input, config))
      const again = await run(copy, config, real)
      if (!isDeepStrictEqual(result, again)) fail('two runs of the same input differ', describeRun(input, config))
    }),
}

const pipelineTokens: FuzzProperty = {
  name: 'pipeline: tokens never up (After ≤ Before, each stage ≤ its input, pin-facts ≤ Before; a growing pass says why)',
  unitRuns: 30,
  property: (size) =>
    pipelineProperty(size, (result, input, config) => {
      const before = result.before.totals.tokens
      if (result.after.totals.tokens > before) {
        fail(`After has more tokens than Before (${before} → ${result.after.totals.tokens})`, describeRun(input, config))
      }
      for (const s of result.stages) {
        const limit = s.stage === 'pin-facts' ? before : s.tokensBefore
        if (s.tokensAfter > limit) {
          fail(`${s.stage} grew the context (${s.tokensBefore} → ${s.tokensAfter})`, describeRun(input, config))
        }
      }
      // A pass may grow the context (seed 001 makes every pass its plan makes) but must say why.
      for (const p of result.passes) {
        if ((p.tokensAfter > p.tokensBefore) !== (p.grew !== undefined)) {
          fail(`${p.stage} pass ${p.pass} (${p.tokensBefore} → ${p.tokensAfter}) grew: ${p.grew ?? 'not said'}`, describeRun(input, config))
        }
      }
    }),
}

const pipelinePassTokens: FuzzProperty = {
  name: "pipeline: a stage's last pass, made at the last message, records the tokens of the context it leaves (the stage's tokensAfter, thinking blocks dropped)",
  unitRuns: 40,
  property: (size) =>
    pipelineProperty(size, (result, input, config) => {
      const last = result.before.messages[result.before.messages.length - 1]?.index
      for (const s of result.stages) {
        const own = result.passes.filter((p) => p.stage === s.stage)
        const final = own[own.length - 1]
        if (!s.changed || !final || final.atMessage !== last) continue
        if (final.tokensAfter !== s.tokensAfter) {
          fail(`${s.stage} pass ${final.pass} records ${final.tokensAfter} tokens after, the context it leaves has ${s.tokensAfter}`, describeRun(input, config))
        }
      }
    }),
}

/** What a JavaScript engine says when code breaks: never a stage's own error. */
const EXCEPTION = /Maximum call stack size exceeded|is not a function|Cannot read properties of|is not iterable|Invalid (array|string) length|is not defined|Cannot convert/

const pipelineStageErrors: FuzzProperty = {
  name: "pipeline: a stage fails only with its own message, never an exception's",
  unitRuns: 30,
  property: (size) =>
    pipelineProperty(size, (result, input, config) => {
      for (const s of result.stages) {
        if (s.error !== undefined && EXCEPTION.test(s.error)) fail(`${s.stage} threw: ${s.error}`, describeRun(input, config))
      }
    }),
}

const pipelineNothingFired: FuzzProperty = {
  name: 'pipeline: when nothing fired, After is Before message for message',
  unitRuns: 30,
  property: (size) =>
    pipelineProperty(size, (result, input, config) => {
      if (result.stages.some((s) => s.changed) || result.passes.length > 0) return
      if (!isDeepStrictEqual(result.after.messages, result.before.messages)) {
        const ids = (ms: readonly { id: string }[]) => ms.map((m) => m.id).join(' ')
        fail(`nothing fired, yet After (${ids(result.after.messages)}) is not Before (${ids(result.before.messages)})`, describeRun(input, config))
      }
    }),
}

/** A signed thinking block's text and signature (or encrypted payload), as one comparable string. */
function signedBlocks(m: Message | undefined): string[] {
  if (!m || !Array.isArray(m.content)) return []
  return m.content.flatMap((p) =>
    p.type === 'thinking' && (p.variant === 'redacted_thinking' || (p.variant === 'thinking' && !!p.signature))
      ? [JSON.stringify([p.variant, p.text, p.signature, p.encrypted])]
      : [],
  )
}

const pipelineThinking: FuzzProperty = {
  name: "pipeline: signed thinking follows the provider's rules (never stale-thinking in After; a block is the Before's, byte-identical, or gone whole; the current turn keeps its blocks)",
  unitRuns: 60,
  property: (size) =>
    pipelineProperty(size, (result, input, config) => {
      const stale = result.checks.after.find((p) => p.rule === 'stale-thinking')
      if (stale) fail(`stale-thinking in After: ${stale.message}`, describeRun(input, config))
      const before = new Map(result.before.messages.map((m) => [m.id, m]))
      let latestUser = result.before.messages.length - 1
      while (latestUser >= 0 && result.before.messages[latestUser]!.role !== 'user') latestUser--
      const current = new Set(result.before.messages.slice(latestUser + 1).map((m) => m.id))
      for (const m of result.after.messages) {
        const blocks = signedBlocks(m)
        const o = result.origins[m.id]
        const from = o?.kind === 'original' ? before.get(o.beforeId) : undefined
        const had = signedBlocks(from)
        // What is kept is the Before's blocks in their order, none edited.
        let k = 0
        for (const b of blocks) {
          while (k < had.length && had[k] !== b) k++
          if (k++ >= had.length) fail(`${m.id} holds a signed thinking block that is not its Before's, byte for byte`, describeRun(input, config))
        }
        if (from && current.has(from.id) && blocks.length !== had.length) {
          fail(`${m.id} of the current turn lost a signed thinking block (${had.length} → ${blocks.length})`, describeRun(input, config))
        }
      }
    }),
}

function noNewProblem(rule: Rule, fuzzOnly?: string): FuzzProperty {
  return {
    name: `pipeline: no new ${rule} in After`,
    unitRuns: 30,
    ...(fuzzOnly ? { fuzzOnly } : {}),
    property: (size) =>
      pipelineProperty(size, (result, input, config) => {
        const found = newProblems(result, rule)
        if (found.length > 0) fail(`a new ${rule}: ${found[0]!.message}`, describeRun(input, config))
      }),
  }
}

/**
 * Longest import failure or warning (UTF-16 units) the harness accepts: a message names where and
 * why in a line; quoting a field's whole value makes it as long as the value (hundreds of KB).
 */
const MESSAGE_LIMIT = 1_000

/** Line breaks a one-line message must not hold (those of JavaScript's `.` and `^`/`$`, and NEL). */
const LINE_BREAK = /[\r\n\u0085\u2028\u2029]/

/**
 * A mutant's import failure, warnings and notes (its further conversations' too) are each one
 * line within `MESSAGE_LIMIT`.
 */
function messagesBounded(m: Mutant): void {
  const r = importBytes(mutantBytes(m), { fileName: mutantName(m) })
  const texts = r.ok
    ? [r.transcript, ...(r.transcript.sidechains ?? [])].flatMap((t) => [...t.warnings, ...(t.notes ?? [])])
    : [r.error.message]
  const long = texts.find((t) => t.length > MESSAGE_LIMIT)
  if (long) fail(`a message of ${long.length.toLocaleString('en-US')} characters`, `${JSON.stringify(long.slice(0, 160))}… on ${describeMutant(m)}`)
  const broken = texts.find((t) => LINE_BREAK.test(t))
  if (broken) fail('a message of more than one line', `${JSON.stringify(broken.slice(0, 300))} on ${describeMutant(m)}`)
}

/** Every property, importers first. */
export const PROPERTIES: readonly FuzzProperty[] = [
  {
    name: 'importers: a mutant of a sample or fixture imports or fails in one line, bytes untouched, the same twice',
    unitRuns: 60,
    property: (size) => fc.property(mutantArb(size), named(describeMutant, importsCleanly)) as unknown as fc.IRawProperty<never, boolean>,
  },
  {
    name: "importers: a random transcript in each format's shape imports or fails in one line, the same twice",
    unitRuns: 40,
    property: (size) => fc.property(reshapedArb(size), named(describeMutant, importsCleanly)) as unknown as fc.IRawProperty<never, boolean>,
  },
  {
    name: 'importers: detectors and the importer never throw on, nor change, the parsed input',
    unitRuns: 40,
    property: (size) =>
      fc.property(fc.oneof(mutantArb(size), reshapedArb(size)), named(describeMutant, leavesParsedInputAlone)) as unknown as fc.IRawProperty<never, boolean>,
  },
  {
    name: 'importers: an import failure, warning or note is one line of at most 1,000 characters',
    unitRuns: 40,
    property: (size) => fc.property(fc.oneof(mutantArb(size), reshapedArb(size)), messagesBounded) as unknown as fc.IRawProperty<never, boolean>,
  },
  pipelinePure,
  pipelineStageErrors,
  pipelineTokens,
  pipelinePassTokens,
  pipelineNothingFired,
  pipelineThinking,
  ...NEW_PROBLEM_RULES.map((rule) => noNewProblem(rule)),
]
