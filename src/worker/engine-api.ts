/**
 * Everything the UI may ask of the engine worker (DESIGN §1): one plain object of functions,
 * so tests call it directly without a Worker. Contract: every argument and result is
 * structured-cloneable plain data, and no function throws across the boundary — failures
 * come back as `{ ok: false, error }`.
 *
 * The worker owns the transcript and the last RunResult; the UI receives row metadata
 * (`RunView`) and fetches full content per row with `getMessageDetail`.
 */
import { releaseProxy } from 'comlink'
import { exportTranscript, type ExportTarget } from '../engine/export'
import { failureText } from '../engine/failure-text'
import { findFactSpans, messageFactText } from '../engine/facts/patterns'
import { importBytes, importTranscript } from '../engine/formats'
import type { ImportResult } from '../engine/formats/types'
import type { Encoding, Message, PipelineConfig, RunResult, StageId, Transcript } from '../engine/model'
import { DEFAULT_PIPELINE, runPipeline, type PipelineDeps } from '../engine/pipeline'
import { compareRecordedVsSimulated, recordedRunResult, type RecordedRun } from '../engine/analysis/recorded'
import { runTokens, type RunTokens } from '../engine/analysis/costs'
import { createSummarizer } from '../engine/summarizers/create'
import { planSummaryRequests, type SummaryPlan } from '../engine/summarizers/preview'
import { forgetCounts, loadCounter } from '../engine/tokens/count'
import type {
  ExportOutcome,
  FactTableOutcome,
  FactSearchOutcome,
  ImportOutcome,
  ImportProgress,
  MessageDetail,
  PlanOutcome,
  RecordedOutcome,
  RowMeta,
  RunOptions,
  RunOutcome,
  RunView,
  Side,
  SweepAxis,
  SweepOutcome,
  SweepProgress,
  TimelineOutcome,
  TimelineView,
  TurnBodyOutcome,
  TurnOutcome,
  SummaryProgress,
  TranscriptInfo,
} from './protocol'
import { searchFactGuarded, workerRegexProbe } from './fact-search'
import { BRANCHES_LISTED, STAGE_ROW_PREFIX } from './protocol'
import { factTableOutcome } from './fact-table'
import { importBlob } from './stream-import'
import { cancelSweep, runSweep } from './sweep'
import { timelineOutcome, turnBodyOutcome, turnContextOutcome } from './turns'
import type { RequestShape } from '../engine/analysis/turns'
import { countAhead, lastPrecount, measurePool, POOL_MIN_CHARS, precount, startAhead, warmPool, type PrecountStats } from './token-pool'
import {
  summarizerFailure,
  summarizerRuntimeFor,
  summaryCache,
  trackSummaryProgress,
  type SummaryProgressTracker,
} from './summarizers'
import { buildMessageDetail, buildRunView, estimatedBeforeRows, exportFileName, exportTargetsFor } from './view'

interface WorkerState {
  /** The imported file's transcript (its main line); sidechains hang off it. */
  root: Transcript | null
  /** The conversation open: `root` or one of its sidechains. */
  transcript: Transcript | null
  open: 'main' | number
  fileName: string
  result: RunResult | null
  /** The last recorded view of `transcript` (its own compaction), if asked for. */
  recorded: RecordedRun | null
  /**
   * The run in flight: a newer run or `cancelSummaries` aborts it (a real AbortController so a
   * summarizer request in flight is aborted too).
   */
  running: AbortController | null
  /** Key of the open transcript, new on every `openTranscript` (see `RunView.transcriptKey`). */
  transcriptKey: string
  /** How many summarizer calls the last plan (`planSummaries`) of a config (JSON) counted. */
  plannedCalls: { config: string; count: number } | null
}

/**
 * The last stage-by-stage view (`runUpTo`): the run of the pipeline's prefix up to one stage, and
 * the run in flight (a newer one aborts it). Apart from `state` so the main run never waits on it.
 */
const stageState: { result: RunResult | null; running: AbortController | null } = { result: null, running: null }

const state: WorkerState = {
  root: null,
  transcript: null,
  open: 'main',
  fileName: '',
  result: null,
  recorded: null,
  running: null,
  transcriptKey: '',
  plannedCalls: null,
}

/**
 * Releases a comlink proxy the page passed (its MessageChannel would otherwise stay open for
 * the page's lifetime); a plain function (tests calling the API directly) has nothing to release.
 */
function releaseRemote(fn: unknown): void {
  const release = fn ? (fn as Record<symbol, unknown>)[releaseProxy] : undefined
  if (typeof release === 'function') Promise.resolve(release.call(fn)).catch(() => {})
}

/** Before rows sent with an import's head (`ImportProgress.head`): a screenful and some scroll. */
const HEAD_ROWS = 200

/** The full Before rows of the last run answered in pages (`RunOptions.beforePage`). */
let pagedBefore: { runId: number; rows: RowMeta[] } | null = null

/** The `runId` each RunResult was made for (the fact finder echoes it). */
const runIds = new WeakMap<RunResult, number>()
/** Runs the fact finder's regexes in a worker it can stop (a regex must not hang the page). */
const regexProbe = workerRegexProbe()

/** One line for a failure the page shows (engine-api answers `{ ok: false, error }`). */
const errorText = failureText

function infoOf(root: Transcript, open: 'main' | number, fileName: string): TranscriptInfo {
  const transcript = open === 'main' ? root : (root.sidechains?.[open] ?? root)
  const info: TranscriptInfo = {
    fileName,
    format: transcript.format,
    messageCount: transcript.messages.length,
    // Replacement histories can be long and only the worker uses them.
    recordedCompactions: transcript.recordedCompactions.map(({ replacementHistory: _history, ...c }) => c),
    warnings: [...transcript.warnings],
    notes: [...(transcript.notes ?? [])],
    branches: (transcript.branches ?? []).slice(0, BRANCHES_LISTED).map((b) => ({ ...b })),
    branchCount: transcript.branches?.length ?? 0,
    sidechains: (root.sidechains ?? []).map((t, index) => ({
      index,
      title: t.title ?? `Sub-agent ${index + 1}`,
      messageCount: t.messages.length,
    })),
    open,
    exportTargets: exportTargetsFor(transcript.format),
  }
  if (transcript.title !== undefined) info.title = transcript.title
  if (root.title !== undefined) info.mainTitle = root.title
  return info
}

/** Makes `transcript` the open conversation; the last run and recorded view belong to the old one. */
let transcriptCounter = 0

function openTranscript(transcript: Transcript, open: 'main' | number): void {
  // Random part: a re-created worker restarts the counter, its keys must not match old views.
  state.transcriptKey = `${++transcriptCounter}-${Math.random().toString(36).slice(2)}`
  state.transcript = transcript
  state.open = open
  state.result = null
  state.recorded = null
  stageState.result = null
  state.plannedCalls = null
}

function accept(result: ImportResult, fileName: string): ImportOutcome {
  if (!result.ok) return { ok: false, error: { ...result.error } }
  if (result.transcript.messages.length === 0) {
    return { ok: false, error: { message: 'the transcript has no messages' } }
  }
  // Only a successful import replaces the transcript: a bad file never loses the previous one.
  // The old transcript's texts leave the counters' caches with it (memory across many files).
  if (state.root) forgetCounts()
  state.root = result.transcript
  state.fileName = fileName
  openTranscript(result.transcript, 'main')
  return { ok: true, info: infoOf(result.transcript, 'main', fileName) }
}

function guardImport(fileName: string, load: () => ImportResult): ImportOutcome {
  try {
    return accept(load(), fileName)
  } catch (e) {
    // Importers promise not to throw; this keeps the promise at the boundary even if one does.
    return { ok: false, error: { message: `import failed: ${errorText(e)}` } }
  }
}

function findMessage(side: Side, id: string): Message | undefined {
  const list =
    side === 'before'
      ? (state.result?.before.messages ?? state.transcript?.messages)
      : side === 'recorded'
        ? state.recorded?.after.messages
        : state.result?.after.messages
  if (side === 'after' && id.startsWith(STAGE_ROW_PREFIX)) {
    const own = id.slice(STAGE_ROW_PREFIX.length)
    return stageState.result?.after.messages.find((m) => m.id === own)
  }
  return list?.find((m) => m.id === id)
}

/** Recorded vs simulated, when both views belong to the open transcript. */
function comparison(recorded: RecordedRun) {
  const simulated = state.result
  if (!simulated || simulated.before.messages !== recorded.before.messages) return null
  return compareRecordedVsSimulated(recorded, simulated)
}

/**
 * Sends `view`'s Before rows slim: only `id`, `index`, `tokens`, `fate` and `counterpartIds`, for
 * a client that holds the rest (same `transcriptKey`; see `RunOptions.previewsOf`). Mutates `view`.
 */
function slimBeforeRows(view: RunView): void {
  view.before.rows = view.before.rows.map((r) => {
    const { id, index, tokens, counterpartIds } = r
    const slim = { id, index, tokens, counterpartIds } as RowMeta
    if (r.fate) slim.fate = r.fate
    return slim
  })
  view.beforePreviewsOmitted = true
}

/**
 * The encoding the page ran (or warmed up) last: a large import warms the pool and counts ahead
 * in it.
 */
let warmEncoding: Encoding = 'o200k_base'

/** Whether a run already scheduled the pool's warm-up (once per worker lifetime). */
let poolWarmScheduled = false

/**
 * After the first completed run, starts the tokenizer pool in the next task (the run's answer
 * goes out first): the page is idle then, and a large file dropped later finds warm workers.
 */
function warmPoolWhenIdle(encoding: Encoding): void {
  if (poolWarmScheduled) return
  poolWarmScheduled = true
  setTimeout(() => warmPool(encoding).catch(() => {}), 0)
}

export const engineApi = {
  /** The engine's default pipeline (the UI has no copy of it). */
  getDefaults(): PipelineConfig {
    return structuredClone(DEFAULT_PIPELINE)
  },

  /**
   * Loads the token counter ahead of the first run (its rank tables are MBs). The tokenizer pool
   * is not started here: it would compete with the first run for the cores; the first completed
   * run starts it (see `warmPool`).
   */
  async warmUp(encoding: Encoding): Promise<void> {
    warmEncoding = encoding
    await loadCounter(encoding)
  },

  /**
   * Starts the tokenizer pool if it is not running and resolves once each of its workers has
   * loaded `encoding`'s rank tables (≈ 0.5–2 s of CPU per worker; a no-op without `Worker`).
   * The engine does this on its own when its first run completes, while the page is idle, so a
   * large file dropped later is counted by warm workers (BENCH.md B1/B3); the bench awaits it.
   */
  async warmPool(encoding: Encoding): Promise<void> {
    await warmPool(encoding).catch(() => {})
  },

  /**
   * Tokenizer work so far in `encoding`: real tokenizer calls on this thread (cache misses) and
   * what the last pool pre-count did. For the bench (BENCH.md B1, B4) and tests.
   */
  async tokenStats(encoding: Encoding): Promise<{ tokenizerCalls: number; precount: PrecountStats }> {
    const counter = await loadCounter(encoding)
    return { tokenizerCalls: counter.tokenizerCalls, precount: { ...lastPrecount } }
  },

  /**
   * Counts every distinct text of the open transcript in the tokenizer pool from scratch and
   * reports the wall time: the pool's throughput, for the bench (BENCH.md B1). Zeros without a pool.
   */
  async measurePool(encoding: Encoding): Promise<PrecountStats> {
    const transcript = state.transcript
    if (!transcript) return { workers: 0, texts: 0, chars: 0, ms: 0 }
    return measurePool(encoding, transcript.messages, transcript.tools)
  },

  /** Imports a transcript from text (paste, sample). */
  importText(text: string, fileName: string): ImportOutcome {
    return guardImport(fileName, () => importTranscript(text, { fileName }))
  },

  /** Imports a transcript from file bytes (transferred, not copied). */
  importFile(bytes: ArrayBuffer, fileName: string): ImportOutcome {
    return guardImport(fileName, () => importBytes(new Uint8Array(bytes), { fileName }))
  },

  /**
   * Imports a File/Blob by streaming it here, in the worker (the page never holds its text):
   * JSONL incrementally with bytes + records progress, other files with byte progress.
   * `onProgress` (a comlink `proxy`) is called about ten times a second at most.
   */
  async importBlob(
    blob: Blob,
    fileName: string,
    onProgress?: (progress: ImportProgress) => void,
  ): Promise<ImportOutcome> {
    let result: ImportResult
    // A file this large will use the tokenizer pool: its workers load their rank tables while the
    // file streams in, not inside the first run (BENCH B1/B3).
    if (blob.size >= POOL_MIN_CHARS) warmPool(warmEncoding).catch(() => {})
    startAhead(warmEncoding)
    try {
      // A large file's first rows go to the page as soon as its head is parsed (BENCH B10).
      const onHead = (head: Transcript) => {
        const rows = estimatedBeforeRows(head.messages, HEAD_ROWS)
        onProgress?.({ phase: 'reading', bytes: 0, totalBytes: blob.size, head: { rows, messages: head.messages.length } })
      }
      // Each part's texts go to the pool as the file streams in: counting overlaps the import (B3).
      const onPart = (part: Transcript) => {
        loadCounter(warmEncoding).then((counter) => countAhead(counter, part.messages, part.tools), () => {})
      }
      result = await importBlob(blob, fileName, onProgress ? { onProgress, onHead, onPart } : { onPart })
    } catch (e) {
      return { ok: false, error: { message: `import failed: ${errorText(e)}` } }
    }
    return guardImport(fileName, () => result)
  },

  /**
   * Opens the file's main conversation or one of its sidechains (sub-agents) by index as the
   * transcript to run; the previous run is dropped. Fails when nothing is loaded or the index is
   * out of range.
   */
  openConversation(which: 'main' | number): ImportOutcome {
    const root = state.root
    if (!root) return { ok: false, error: { message: 'no transcript loaded' } }
    const transcript = which === 'main' ? root : root.sidechains?.[which]
    if (!transcript) return { ok: false, error: { message: `no sub-agent transcript ${which}` } }
    openTranscript(transcript, which)
    return { ok: true, info: infoOf(root, which, state.fileName) }
  },

  /**
   * Runs the pipeline over the loaded transcript. A newer `run` call cancels this one at its
   * next await (the UI also drops stale results by `runId`). With `options.previewsOf` equal to
   * the open transcript's key, the Before previews are left out (`beforePreviewsOmitted`).
   * With an HTTP summarizer, `onProgress` (a comlink `proxy`) hears where its calls are and the
   * streamed text (`SummaryProgress`, at most about ten times a second); it is released when
   * the run ends.
   */
  async run(
    config: PipelineConfig,
    runId: number,
    options: RunOptions = {},
    onProgress?: (progress: SummaryProgress) => void,
  ): Promise<RunOutcome> {
    const transcript = state.transcript
    if (!transcript) {
      releaseRemote(onProgress)
      return { ok: false, error: 'no transcript loaded' }
    }
    let tracker: SummaryProgressTracker | undefined
    // The next import counts ahead in the encoding the page runs in now.
    warmEncoding = config.encoding
    state.running?.abort()
    const controller = new AbortController()
    state.running = controller
    const signal = controller.signal
    try {
      const counter = await loadCounter(config.encoding)
      // Distinct uncounted texts go to the tokenizer pool first; the pipeline then hits the cache.
      await precount(counter, transcript.messages, transcript.tools, signal)
      if (signal.aborted) return { ok: false, error: 'cancelled', cancelled: true }
      // The key lives only in this call's runtime: never in the config, the result or a log.
      const summarizerRuntime = summarizerRuntimeFor(config, options.apiKey)
      const deps: PipelineDeps = summarizerRuntime ? { counter, signal, summarizerRuntime } : { counter, signal }
      if (summarizerRuntime && onProgress) {
        const expectedCalls = state.plannedCalls?.config === JSON.stringify(config) ? state.plannedCalls.count : undefined
        tracker = trackSummaryProgress(runId, onProgress, expectedCalls === undefined ? {} : { expectedCalls })
        const choice = createSummarizer(config.summarizer, config.summarizerOptions, transcript.recordedCompactions, {
          ...summarizerRuntime,
          onToken: tracker.onToken,
        })
        // When none can be built the pipeline falls back with its own warning.
        if (choice.ok) deps.summarizer = tracker.wrap(choice.summarizer)
      }
      const result = await runPipeline(transcript, config, deps)
      if (signal.aborted) return { ok: false, error: 'cancelled', cancelled: true }
      // Another import may have replaced the transcript while this run awaited.
      if (state.transcript !== transcript) return { ok: false, error: 'cancelled', cancelled: true }
      const failure = summarizerFailure(config, result)
      if (failure) return { ok: false, error: `${failure.stage}: ${failure.error}`, stage: failure.stage }
      state.result = result
      runIds.set(result, runId)
      warmPoolWhenIdle(config.encoding)
      const view = buildRunView(result, runId, config.encoding)
      view.transcriptKey = state.transcriptKey
      if (options.previewsOf === state.transcriptKey) {
        // Slim rows: the client keeps the static fields (see RunOptions.previewsOf).
        slimBeforeRows(view)
      } else if (options.beforePage !== undefined && view.before.rows.length > options.beforePage) {
        // Full rows of a long transcript go in pages, each its own message (BENCH B5).
        pagedBefore = { runId, rows: view.before.rows }
        view.beforeRowsTotal = view.before.rows.length
        view.before.rows = view.before.rows.slice(0, Math.max(0, options.beforePage))
      }
      return { ok: true, view }
    } catch (e) {
      if (signal.aborted) return { ok: false, error: 'cancelled', cancelled: true }
      return { ok: false, error: errorText(e) }
    } finally {
      tracker?.stop()
      releaseRemote(onProgress)
      if (state.running === controller) state.running = null
    }
  },

  /**
   * What the agent itself kept after its recorded compaction number `compaction` (0-based; default
   * the last), counted in `encoding`, as a run view (stage `recorded`), with the comparison to the
   * last simulated run when there is one.
   */
  async runRecorded(encoding: Encoding, compaction?: number): Promise<RecordedOutcome> {
    const transcript = state.transcript
    if (!transcript) return { ok: false, error: 'no transcript loaded' }
    try {
      const counter = await loadCounter(encoding)
      if (state.transcript !== transcript) return { ok: false, error: 'cancelled' }
      const options = compaction === undefined ? {} : { compaction }
      const recorded = recordedRunResult(transcript, counter, options)
      if (!recorded) return { ok: false, error: 'this transcript records no compaction' }
      state.recorded = recorded
      return {
        ok: true,
        recorded: {
          compaction: recorded.pass - 1,
          view: buildRunView(recorded, 0, encoding),
          comparison: comparison(recorded),
        },
      }
    } catch (e) {
      return { ok: false, error: errorText(e) }
    }
  },

  /**
   * The After of the last simulated run (`after`) or of the last recorded view (`recorded`) as a
   * downloadable JSON file in `target`'s shape (engine `exportTranscript`); the Before is never
   * touched. The Blob is made here so the text crosses to the page only as a file handle.
   */
  exportAfter(which: 'after' | 'recorded', target: ExportTarget): ExportOutcome {
    const transcript = state.transcript
    const messages = which === 'recorded' ? state.recorded?.after.messages : state.result?.after.messages
    if (!transcript || !messages) return { ok: false, error: 'nothing to export yet' }
    try {
      const exported = exportTranscript(transcript, target, messages)
      const text = `${JSON.stringify(exported.body, null, 2)}\n`
      return {
        ok: true,
        blob: new Blob([text], { type: 'application/json' }),
        fileName: exportFileName(state.fileName, which, target),
        warnings: exported.warnings,
      }
    } catch (e) {
      return { ok: false, error: errorText(e) }
    }
  },

  /**
   * What a run with `config` would send, without sending anything (engine `planSummaryRequests`):
   * every summarizer call with its exact request (the key shown as `KEY_PLACEHOLDER` when
   * `hasKey`), tokens to send and the host. Calls already in the summary cache are marked.
   */
  async planSummaries(config: PipelineConfig, hasKey: boolean): Promise<PlanOutcome> {
    const transcript = state.transcript
    if (!transcript) return { ok: false, error: 'no transcript loaded' }
    try {
      const counter = await loadCounter(config.encoding)
      const plan: SummaryPlan = await planSummaryRequests(transcript, config, {
        counter,
        cache: summaryCache,
        hasKey,
      })
      // The run the person sends next can then say "pass 2 of 3".
      state.plannedCalls = { config: JSON.stringify(config), count: plan.requests.length }
      return { ok: true, plan }
    } catch (e) {
      return { ok: false, error: errorText(e) }
    }
  },

  /**
   * Token counts of the last run's summarizer calls and of its context before and after, for the
   * cost view (engine `runTokens`), counted in `encoding` (the run's); null before any run.
   */
  async getRunTokens(encoding: Encoding): Promise<RunTokens | null> {
    const result = state.result
    if (!result) return null
    const counter = await loadCounter(encoding)
    return runTokens(result, counter.count, state.transcript?.tools)
  },

  /**
   * The sweep heat map's grid over the open transcript (engine `sweep`, see worker/sweep.ts):
   * `config` with every pair of `x` × `y` values; `onProgress` (a comlink `proxy`) after each cell.
   * A newer sweep or `cancelSweep` stops it.
   */
  async sweep(
    config: PipelineConfig,
    x: SweepAxis,
    y: SweepAxis,
    onProgress?: (progress: SweepProgress) => void,
  ): Promise<SweepOutcome> {
    const transcript = state.transcript
    if (!transcript) return { ok: false, error: 'no transcript loaded' }
    return runSweep(transcript, config, x, y, onProgress)
  },

  /** Stops the sweep in flight; it answers with the cells done so far. False when none runs. */
  cancelSweep(): boolean {
    return cancelSweep()
  },

  /** Aborts the run in flight (and its summarizer request); it answers `cancelled`. */
  cancelSummaries(): boolean {
    if (!state.running) return false
    state.running.abort()
    return true
  },

  /**
   * Before rows `from`..`from + count - 1` of the run `runId` answered with `RunOptions.beforePage`
   * (`RunView.beforeRowsTotal`); null when that run's rows are no longer held (a newer paged run).
   */
  getBeforeRows(runId: number, from: number, count: number): RowMeta[] | null {
    if (pagedBefore?.runId !== runId) return null
    return pagedBefore.rows.slice(from, from + count)
  },

  /** Full content of one row of the last run (before rows also work before any run). */
  getMessageDetail(side: Side, id: string): MessageDetail | null {
    const message = findMessage(side, id)
    if (!message) return null
    const detail = buildMessageDetail(message, side)
    // The facts the page underlines for "click a fact".
    detail.facts = findFactSpans(messageFactText(message)).map((s) => s.fact)
    return detail
  },

  /**
   * The fact finder: where `query` (a string, or a regex source when `regex`)
   * occurs in the last run, Before and After, as row ids with counts, and the engine's verdict
   * (survives / lost in which pass of which stage / never present). Full texts never cross.
   * `ok: false` with a message for an empty query, an invalid regex, or no run yet.
   */
  async searchFact(query: string, regex: boolean): Promise<FactSearchOutcome> {
    const result = state.result
    if (!result) return { ok: false, error: 'Nothing has run yet.' }
    try {
      // A regex runs first where it can be stopped: a backtracking one must not hang this worker.
      return await searchFactGuarded(result, query, regex, runIds.get(result) ?? null, regexProbe)
    } catch (e) {
      return { ok: false, error: errorText(e) }
    }
  },

  /**
   * The facts table of the last run: each at-risk fact of the Before, its state
   * after every pass, its final fate and the finder's verdict, as plain rows (`FactTableView`,
   * labelled with the page's `runId`). Built on request, never per run; the fact index is made
   * once per transcript, and a run that changed nothing deciding a fact's fate answers
   * `unchanged` when the page already holds that `version` (`known`).
   */
  getFactTable(runId: number, known?: number): FactTableOutcome {
    try {
      return factTableOutcome(state.result, runId, known)
    } catch (e) {
      return { ok: false, error: errorText(e) }
    }
  },

  /** The exact prompt of a pass of the last run, or null. */
  getPassPrompt(passNumber: number, stage?: string): string | null {
    const pass = state.result?.passes.find((p) => p.pass === passNumber && (stage === undefined || p.stage === stage))
    return pass?.prompt ?? null
  },

  /**
   * Stage by stage: the After as it stands after `stage`, made by running the
   * pipeline's prefix — `config` with every stage after `stage` switched off — so rows, totals and
   * provenance are exactly what the full run had at that point. Token counts come from the
   * counter's content cache (already filled by the full run: nothing is re-tokenized) and an HTTP
   * summarizer's answers from the summary cache. Kept apart from the last full run: its After
   * row ids carry `STAGE_ROW_PREFIX` (so does `getMessageDetail('after', id)`). Fails when
   * `stage` is not an enabled stage of `config`.
   */
  async runUpTo(
    config: PipelineConfig,
    stage: StageId,
    runId: number,
    options: RunOptions = {},
  ): Promise<RunOutcome> {
    const transcript = state.transcript
    if (!transcript) return { ok: false, error: 'no transcript loaded' }
    const at = config.stages.findIndex((s) => s.id === stage)
    if (at < 0 || !config.stages[at]?.enabled) return { ok: false, error: `${stage} is not an enabled stage` }
    const prefix: PipelineConfig = {
      ...config,
      stages: config.stages.map((s, i) => (i > at && s.enabled ? { ...s, enabled: false } : s)),
    }
    stageState.running?.abort()
    const controller = new AbortController()
    stageState.running = controller
    const signal = controller.signal
    try {
      const counter = await loadCounter(config.encoding)
      const summarizerRuntime = summarizerRuntimeFor(config, options.apiKey)
      const deps = summarizerRuntime ? { counter, signal, summarizerRuntime } : { counter, signal }
      const result = await runPipeline(transcript, prefix, deps)
      if (signal.aborted || state.transcript !== transcript) return { ok: false, error: 'cancelled', cancelled: true }
      const failure = summarizerFailure(config, result)
      if (failure) return { ok: false, error: `${failure.stage}: ${failure.error}`, stage: failure.stage }
      stageState.result = result
      const view = buildRunView(result, runId, config.encoding)
      view.transcriptKey = state.transcriptKey
      const prefixed = (id: string) => `${STAGE_ROW_PREFIX}${id}`
      view.after.rows = view.after.rows.map((r) => ({ ...r, id: prefixed(r.id) }))
      view.before.rows = view.before.rows.map((r) => ({ ...r, counterpartIds: r.counterpartIds.map(prefixed) }))
      if (options.previewsOf === state.transcriptKey) {
        slimBeforeRows(view)
      }
      return { ok: true, view }
    } catch (e) {
      if (signal.aborted) return { ok: false, error: 'cancelled', cancelled: true }
      return { ok: false, error: errorText(e) }
    } finally {
      if (stageState.running === controller) stageState.running = null
    }
  },

  /**
   * The context the model had at `turn` (1-based) under `config` (engine `contextAtTurn`): the
   * pipeline on the transcript's prefix up to that turn, with cached counts and summaries (an
   * HTTP summarizer is never called from here). A newer request cancels this one.
   */
  getTurnContext(config: PipelineConfig, turn: number, requestId: number): Promise<TurnOutcome> {
    const transcript = state.transcript
    return turnContextOutcome(transcript, config, turn, requestId, () => state.transcript === transcript)
  },

  /** The context at `turn` as an `openai` (Chat Completions) or `anthropic` (Messages) request body. */
  turnRequestBody(config: PipelineConfig, turn: number, shape: RequestShape, model?: string): Promise<TurnBodyOutcome> {
    return turnBodyOutcome(state.transcript, config, turn, shape, model)
  },

  /**
   * The token timeline under `config` (engine `tokenTimeline`), partial views to `onProgress`
   * (a comlink `proxy`); a newer call cancels this one.
   */
  async runTimeline(
    config: PipelineConfig,
    timelineId: number,
    onProgress?: (view: TimelineView) => void,
  ): Promise<TimelineOutcome> {
    const transcript = state.transcript
    try {
      return await timelineOutcome(transcript, config, timelineId, onProgress, () => state.transcript === transcript)
    } finally {
      releaseRemote(onProgress)
    }
  },
}

export type EngineApi = typeof engineApi
