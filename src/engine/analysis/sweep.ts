/**
 * The parameter sweep: the pipeline run over a grid of two parameters (keep_last × compact_after,
 * target × keep_steps, …), one cell per pair, each cell what a single `runPipeline` with those two
 * values would report (tokens after, tokens saved, passes, facts lost). The cells share the token
 * counter (its per-content cache: a text is tokenized once across the whole grid) and a summary
 * memo (a summarizer request the grid has already answered is not asked again). Pure over its
 * inputs; the summarizer is the only I/O. Source: SPEC §6 "sweep heat map".
 */
import type { Calibration } from '../usage/calibration-terms'
import type { FactRun } from '../facts/run-index'
import { defaultIndexOf, isImportantFact, lostFacts, neededFacts, type FactIndex } from '../facts/table'
import type { Encoding, Message, PipelineConfig, StageConfig, StageId, Transcript } from '../model'
import { checkAxes, configWith, SWEEP_PARAMS, type SweepAxis, type SweepParam } from './sweep-params'
import { windowOf } from '../models'
import { runPipeline, type PipelineDeps } from '../pipeline'
import { exceedsWindow, peakContextTokens } from './peak-context'
import { paramDefinition } from '../stages/definitions'
import { effectiveCount, readCount } from '../stages/params'
import type { CancelSignal, Summarizer, SummaryRequest } from '../stages/types'
import { createSummarizer } from '../summarizers/create'
import { extractiveSummarizer } from '../summarizers/extractive'

export {
  checkAxes,
  configWith,
  parseSweepAxis,
  SWEEP_PARAMS,
  type SweepAxis,
} from './sweep-params'

/** A cell the engine ran. Tokens are tokens of the config's encoding. */
export interface SweepCellResult {
  ok: true
  /** The x and y values of this cell. */
  x: number
  y: number
  /** Context tokens after the pipeline (`RunResult.after.totals.tokens`). */
  tokensAfter: number
  /** Tokens before − after. */
  tokensSaved: number
  /** `tokensSaved / tokensBefore × 100`, rounded to 0.1 (0 for an empty transcript). */
  percentSaved: number
  /** Compaction passes (`RunResult.passes.length`: summarize and insert-then-compress passes). */
  passes: number
  /**
   * Important facts lost: at-risk facts of the Before (`extractFacts`, noise left out:
   * `isNoiseFact`) that no After message holds: the fact finder's `lost` verdict
   * (`factTable(run).totals.lost`), counted by `factsLostCounter`.
   */
  factsLost: number
  /**
   * Facts a compaction pass removed that a later user or assistant message needed: repeating
   * it, referring back to it or asking for it again (a tool re-reading it is re-work, not
   * counted here): `neededFacts(run).length`, the facts table's `totals.needed`. Source:
   * facts/needed.ts.
   */
  neededLost: number
  /** The most context tokens one request of the run sends (`peakContextTokens`). */
  peakTokens: number
  /**
   * Set when `peakTokens` is over the model window (`SweepResult.window`): the agent would have
   * failed there, so the cell is marked (`overWindowText`) and never the best of the grid.
   */
  overWindow?: true
  /** The engine used other values than the cell's (a default, a clamp): which and why. */
  note?: string
}

/** A cell whose run failed: a stage refused the settings (e.g. keep_steps 0) or its summarizer failed. */
interface SweepCellInvalid {
  ok: false
  x: number
  y: number
  /** `<stage>: <error>`, the stage's own words. */
  reason: string
}

/** One cell of the grid. */
export type SweepCell = SweepCellResult | SweepCellInvalid

/** The grid. */
export interface SweepResult {
  x: SweepAxis
  y: SweepAxis
  /** `cells[yi][xi]`: row per y value, column per x value; null for a cell a cancel left unrun. */
  cells: (SweepCell | null)[][]
  /** Context tokens of the Before (the same for every cell). */
  tokensBefore: number
  /** The calibration every cell was counted with (the same for every cell; usage/calibration.ts). */
  calibration?: Calibration
  /** The encoding the cells were counted in (absent on a result made before any cell ran). */
  encoding?: Encoding
  /** The model window the cells' peaks are held against (`windowOf(config.window)`), tokens. */
  window: number
  /** At-risk facts of the Before (`extractFacts` without noise): the denominator of `factsLost`. */
  factsTotal: number
  /** Stages that were off in the base config and that the sweep switched on (see `configWith`). */
  enabledStages: StageId[]
  /** False when the signal aborted the sweep before every cell ran. */
  complete: boolean
  /** Times the real tokenizer ran during the sweep (cache misses of the shared counter). */
  tokenizerCalls: number
}

/** After each cell: how far the sweep is, and the cell just finished. */
export interface SweepProgress {
  done: number
  total: number
  xi: number
  yi: number
  cell: SweepCell
}

/**
 * Summaries already answered, keyed by request (see `memoizeSummarizer`). Hold one across sweeps
 * of the same transcript to re-use them; drop it with the transcript (it holds summary text).
 */
export interface SummaryMemo {
  /** Request key → summary. */
  answers: Map<string, string>
  /** Message content key → a short number, so request keys stay small. */
  contentIds: Map<string, number>
  /** Message object → its content number (stages never mutate a message). */
  objectIds: WeakMap<object, number>
}

/** An empty summary memo. */
export function createSummaryMemo(): SummaryMemo {
  return { answers: new Map(), contentIds: new Map(), objectIds: new WeakMap() }
}

/** Dependencies of a sweep: a pipeline's, plus an optional memo and a way to yield between cells. */
export interface SweepDeps extends Omit<PipelineDeps, 'signal'> {
  /** Re-used summaries; a fresh one per sweep when omitted. */
  memo?: SummaryMemo
  /**
   * Awaited after every cell: in a worker, a macrotask (`setTimeout 0`) so a cancel message or a
   * pipeline run can be handled between cells (a summary from the memo resolves in microtasks
   * only, which would otherwise hold the worker for the whole grid).
   */
  yieldToEvents?: () => Promise<void>
}

/**
 * A number per distinct message content (id, index, role, content, tool calls and result fields;
 * not `source`, which may hold the raw record): two cells that build the same message as two
 * objects (a placeholder, a re-run stage) get the same number, so their requests share a key.
 */
function contentIdOf(memo: SummaryMemo, m: Message): number {
  let n = memo.objectIds.get(m)
  if (n === undefined) {
    const key = JSON.stringify([m.id, m.index, m.role, m.content, m.toolCalls, m.toolCallId, m.toolName, m.isError, m.flags])
    n = memo.contentIds.get(key)
    if (n === undefined) {
      n = memo.contentIds.size + 1
      memo.contentIds.set(key, n)
    }
    memo.objectIds.set(m, n)
  }
  return n
}

/**
 * `inner` with a memo: a request with the same stage, prompt, previous summary, slice and
 * conversation (messages equal in content, see `contentIdOf`) gets the stored answer without
 * calling `inner`. Failures are not stored. `scope` separates summarizers sharing one memo (id,
 * endpoint, model). Sound for a deterministic summarizer that reads only its request (ours).
 */
function memoizeSummarizer(inner: Summarizer, memo: SummaryMemo, scope: string): Summarizer {
  return async (request: SummaryRequest) => {
    const ids = (ms: readonly Message[]) => ms.map((m) => contentIdOf(memo, m)).join(',')
    const key = [
      scope,
      request.stage,
      request.prompt,
      request.previous ?? '\u0001',
      ids(request.slice),
      request.conversation ? ids(request.conversation) : '-',
    ].join('\u0000')
    const hit = memo.answers.get(key)
    if (hit !== undefined) return hit
    const answer = await inner(request)
    memo.answers.set(key, answer)
    return answer
  }
}

/**
 * What the engine makes of the swept values of one cell, when it differs from them: a value the
 * engine does not use (it falls back to the default or truncates), or one raised to another param
 * (`compact_after` < `keep_last`), as stages/params.ts `effectiveCount` reads the definitions.
 */
function cellNote(config: PipelineConfig, params: readonly SweepParam[]): string | undefined {
  const notes: string[] = []
  for (const param of params) {
    const stage = SWEEP_PARAMS[param].stage
    const stageParams = config.stages.find((s) => s.id === stage)?.params as Record<string, unknown> | undefined
    if (!stageParams) continue
    const typed = stageParams[param]
    const e = effectiveCount(stage, param, stageParams)
    if (e.error !== undefined) continue
    if (e.fellBack) notes.push(`${param} ${String(typed)} is not used: the engine uses ${readOwn(stage, param, typed)}`)
    else if (e.raisedTo)
      notes.push(`${param} ${String(typed)} < ${e.raisedTo.key} ${e.raisedTo.value}: the engine clamps it up to ${e.value}`)
  }
  return notes.length > 0 ? notes.join('; ') : undefined
}

/** The value the engine makes of `typed` alone (before any `atLeast` raise). */
function readOwn(stage: StageId, key: string, typed: unknown): number {
  const def = paramDefinition(stage, key)
  const r = def ? readCount(def, typed) : undefined
  return r?.ok ? r.value : NaN
}

/**
 * Counts the important facts (`isImportantFact`) of `index` (a `FactIndex` of the runs' Before)
 * that a run lost: the fact finder's `lost` verdict (some Before message holds it, no After
 * message does), as `lostFacts` decides it — an unchanged original reuses its Before scan, any
 * other After text is scanned once for all facts. Equals `factTable(run).totals.lost`. A test
 * checks it against `factTable`.
 */
export function factsLostCounter(index: FactIndex): (run: FactRun) => number {
  const important = index.facts.map(isImportantFact)
  return (run) => {
    let lost = 0
    for (const i of lostFacts(run, index).lost) if (important[i]) lost++
    return lost
  }
}

/** The summarizer a run of `config` would build (as `runPipeline` does), or the one given. */
function summarizerFor(transcript: Transcript, config: PipelineConfig, deps: SweepDeps): Summarizer {
  if (deps.summarizer) return deps.summarizer
  const choice = createSummarizer(
    config.summarizer,
    config.summarizerOptions,
    transcript.recordedCompactions,
    deps.summarizerRuntime,
  )
  return choice.ok ? choice.summarizer : extractiveSummarizer
}

/**
 * Runs `baseConfig` with every pair (x value, y value) set by `configWith` (the swept stages
 * switched on) over `transcript`, row by row (y outer, x inner), and reports per cell what one
 * `runPipeline` with those settings reports: `tokensAfter`, `tokensSaved`, `percentSaved`,
 * `passes`, `peakTokens` (`peakContextTokens`; `overWindow` when it is over the base config's
 * window), `factsLost` over the at-risk facts of `extractFacts(transcript.messages)` (the fact
 * index of the Before, `defaultIndexOf`, built once per transcript and shared with the runs'
 * checks; `factsLostCounter`) and `neededLost` (`neededFacts`, the same index). A cell
 * where any stage reports an error is `ok: false` with that error as `reason`; a value the engine
 * defaults or clamps gives a `note` (e.g. compact_after < keep_last).
 *
 * Reuse: every cell counts with `deps.counter` (its per-content cache: a text — message, summary,
 * placeholder — is tokenized once for the whole grid) and asks summaries through
 * `memoizeSummarizer` (`deps.memo` or a fresh memo), so a request another cell already made is
 * answered from the memo. `tokenizerCalls` reports the counter's cache misses during the sweep.
 *
 * `onProgress` is called after each cell. `signal` (checked before each cell and passed to the
 * run) stops the sweep: the result then has `complete: false` and null for the cells not run.
 * Errors: throws an `Error` with `checkAxes`' reason when the axes are invalid; nothing else throws.
 * Deterministic for a deterministic summarizer.
 */
export async function sweep(
  transcript: Transcript,
  baseConfig: PipelineConfig,
  x: SweepAxis,
  y: SweepAxis,
  deps: SweepDeps,
  onProgress?: (progress: SweepProgress) => void,
  signal?: CancelSignal,
): Promise<SweepResult> {
  const problem = checkAxes(x, y)
  if (problem) throw new Error(problem)
  const callsBefore = deps.counter.tokenizerCalls
  const options = baseConfig.summarizerOptions
  const scope = `${baseConfig.summarizer} ${options?.baseUrl ?? ''} ${options?.model ?? ''}`
  const summarizer = memoizeSummarizer(summarizerFor(transcript, baseConfig, deps), deps.memo ?? createSummaryMemo(), scope)
  const runDeps: PipelineDeps = { counter: deps.counter, summarizer }
  if (signal) runDeps.signal = signal

  // The at-risk facts, as the facts table's totals count them: noise is never "lost". The index
  // is the one the run's checks made of this Before (kept per messages array).
  const index = defaultIndexOf(transcript.messages)
  const factsTotal = index.facts.filter(isImportantFact).length
  const countLost = factsLostCounter(index)
  const swept: SweepParam[] = [x.param, y.param]
  const enabledStages = [...new Set(swept.map((p) => SWEEP_PARAMS[p].stage as StageId))].filter(
    (id) => baseConfig.stages.find((s: StageConfig) => s.id === id)?.enabled === false,
  )
  const cells: (SweepCell | null)[][] = y.values.map(() => x.values.map(() => null))
  const total = x.values.length * y.values.length
  const window = windowOf(baseConfig.window)
  let tokensBefore = 0
  let calibration: Calibration | undefined
  let done = 0
  let complete = true

  outer: for (let yi = 0; yi < y.values.length; yi++) {
    for (let xi = 0; xi < x.values.length; xi++) {
      if (signal?.aborted) {
        complete = false
        break outer
      }
      const xv = x.values[xi] as number
      const yv = y.values[yi] as number
      const config = configWith(baseConfig, { param: x.param, value: xv }, { param: y.param, value: yv })
      const result = await runPipeline(transcript, config, runDeps)
      if (signal?.aborted) {
        complete = false
        break outer
      }
      tokensBefore = result.before.totals.tokens
      calibration = result.calibration
      const failed = result.stages.find((s) => s.error !== undefined)
      let cell: SweepCell
      if (failed) {
        cell = { ok: false, x: xv, y: yv, reason: `${failed.stage}: ${failed.error}` }
      } else {
        const after = result.after.totals.tokens
        const saved = tokensBefore - after
        cell = {
          ok: true,
          x: xv,
          y: yv,
          tokensAfter: after,
          tokensSaved: saved,
          percentSaved: tokensBefore > 0 ? Math.round((saved / tokensBefore) * 1000) / 10 : 0,
          passes: result.passes.length,
          factsLost: countLost(result),
          neededLost: neededFacts(result).length,
          peakTokens: peakContextTokens(result),
        }
        if (exceedsWindow(result, window)) cell.overWindow = true
        const note = cellNote(config, swept)
        if (note !== undefined) cell.note = note
      }
      ;(cells[yi] as (SweepCell | null)[])[xi] = cell
      done++
      onProgress?.({ done, total, xi, yi, cell })
      if (deps.yieldToEvents) await deps.yieldToEvents()
    }
  }
  return {
    x: { param: x.param, values: [...x.values] },
    y: { param: y.param, values: [...y.values] },
    cells,
    tokensBefore,
    ...(calibration ? { calibration } : {}),
    encoding: baseConfig.encoding,
    window,
    factsTotal,
    enabledStages,
    complete,
    tokenizerCalls: deps.counter.tokenizerCalls - callsBefore,
  }
}

/**
 * The config a sweep runs, the one rule for the page and the CLI: `config` itself with an offline
 * summarizer (extractive, recorded); with an HTTP summarizer (openai-compatible, anthropic) the
 * same config with the offline extractive one instead, and `note` says so — a grid would send one
 * request per pass per cell. Pure.
 */
export function sweepConfigOf(config: PipelineConfig): { config: PipelineConfig; note?: string } {
  if (config.summarizer === 'extractive' || config.summarizer === 'recorded') return { config }
  const offline: PipelineConfig = { ...config, summarizer: 'extractive' }
  delete offline.summarizerOptions
  return {
    config: offline,
    note: `The sweep uses the offline extractive summarizer instead of ${config.summarizer}: every pass of every cell would be a request.`,
  }
}
