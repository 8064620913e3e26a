/**
 * Everything the UI may ask of the engine worker (DESIGN §1): one plain object of functions,
 * so tests call it directly without a Worker. Contract: every argument and result is
 * structured-cloneable plain data, and no function throws across the boundary — failures
 * come back as `{ ok: false, error }`.
 *
 * A thin facade: the open transcript and all made from it live in one `TranscriptSession`
 * (session.ts), replaced and disposed when another transcript opens; runs are in runs.ts, the
 * other views in their modules. The UI receives row metadata (`RunView`) and fetches full content
 * per row with `getMessageDetail`.
 */
import { releaseProxy } from 'comlink'
import { exportTranscript, type ExportTarget } from '../engine/export'
import { failureText } from '../engine/failure-text'
import { factsKeptBy } from '../engine/facts/kept-by'
import { messageFactSpans } from '../engine/facts/patterns'
import { importBytes, importTranscript } from '../engine/formats'
import { transcriptFingerprint } from '../engine/formats/fingerprint'
import { zipFiles } from '../engine/formats/zip'
import type { ImportResult } from '../engine/formats/types'
import type { CalibrationSetting, Encoding, FailureModeWarning, PipelineConfig, RunResult, StageId, Transcript } from '../engine/model'
import { DEFAULT_PIPELINE, failureModesOf } from '../engine/pipeline'
import { recordedRunResult } from '../engine/analysis/recorded'
import { calibrationFor } from '../engine/usage/calibration'
import { runTokens, type RunTokens } from '../engine/analysis/costs'
import { reworkAfterCompactions, type CompactionRework } from '../engine/analysis/rework'
import { sweepConfigOf } from '../engine/analysis/sweep'
import { peakContextTokens } from '../engine/analysis/peak-context'
import { neededFacts } from '../engine/facts/table'
import { runPipeline } from '../engine/pipeline'
import type { RequestShape } from '../engine/analysis/turns'
import { createSummaryCache } from '../engine/summarizers/cache'
import { planSummaryRequests, type SummaryPlan } from '../engine/summarizers/preview'
import { loadCounter } from '../engine/tokens/count'
import { codePointLength, cutCodePoints } from '../engine/util/text'
import { FACT_VIEW_LIMIT, FACTS_KEPT_LIMIT } from './protocol'
import type {
  CompareOutcome,
  ExportOutcome,
  FactRowsOutcome,
  FactRowsQuery,
  FactTableOutcome,
  FactSearchOutcome,
  ImportOutcome,
  ImportProgress,
  MessageDetail,
  PlanOutcome,
  RecordedOutcome,
  RecordedRef,
  RecordedRunView,
  ReportOutcome,
  ReworkOutcome,
  RowMeta,
  RunOptions,
  RunOutcome,
  Side,
  SweepAxis,
  SweepOutcome,
  SweepProgress,
  TimelineOutcome,
  TimelineView,
  TurnBodyOutcome,
  TurnOutcome,
  SummaryProgress,
} from './protocol'
import { searchFactGuarded, workerRegexProbe } from './fact-search'
import type { RedactOptions } from '../report/redact'
import { reportOutcome } from './report'
import { fullRun, prefixRun, type RunHost } from './runs'
import { TranscriptSession, type SessionServices } from './session'
import { IMPORT_SUPERSEDED, importBlob } from './stream-import'
import { runSweep } from './sweep'
import { timelineOutcome, turnBodyOutcome, turnContextOutcome } from './turns'
import { countAhead, factSpansSettled, lastPrecount, measurePool, POOL_MIN_CHARS, startAhead, warmPool, type PrecountStats } from './token-pool'
import { buildMessageDetail, buildRunView, estimatedBeforeRows, exportFileName } from './view'

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

/** One line for a failure the page shows (engine-api answers `{ ok: false, error }`). */
const errorText = failureText

const NOTHING_LOADED = 'no transcript loaded'

/**
 * A fresh engine: no transcript open, its own summary cache, regex guard and pool warm-up. The
 * worker makes one (engine.worker.ts) and exposes it; tests and the bench make their own. Every
 * piece of state lives in this closure: the current `TranscriptSession` (null before the first
 * import) and what outlives a transcript.
 */
export function createEngineApi() {
  /** The open transcript's session: replaced, and the old one disposed, by every import or open. */
  let session: TranscriptSession | null = null
  /** Sessions made so far: part of each `transcriptKey`. */
  let sessionsMade = 0
  let factVersions = 0
  const services: SessionServices = { summaryCache: createSummaryCache(), nextFactVersion: () => ++factVersions }
  /** Runs the fact finder's regexes in a worker it can stop (a regex must not hang the page). */
  const regexProbe = workerRegexProbe()
  /**
   * The encoding the page ran (or warmed up) last: a large import warms the pool and counts ahead
   * in it.
   */
  let warmEncoding: Encoding = 'o200k_base'
  /** Whether a run already scheduled the pool's warm-up (once per engine). */
  let poolWarmScheduled = false
  /** Fingerprints made so far, by imported file (its root transcript; sub-agents share it). */
  const fingerprints = new WeakMap<Transcript, string>()
  /** Imports started or aborted so far: a streamed import whose number is no longer the last is superseded. */
  let imports = 0
  /** Re-work made so far, by run (simulated or recorded): asked again, a run answers the same list. */
  const reworkByRun = new WeakMap<RunResult, CompactionRework[]>()

  const runHost: RunHost = {
    summaryCache: services.summaryCache,
    runStarted: (encoding) => {
      warmEncoding = encoding
    },
    // After the first completed run, starts the tokenizer pool in the next task (the run's answer
    // goes out first): the page is idle then, and a large file dropped later finds warm workers.
    runCompleted: (encoding) => {
      if (poolWarmScheduled) return
      poolWarmScheduled = true
      setTimeout(() => warmPool(encoding).catch(() => {}), 0)
    },
  }

  /** Makes conversation `open` of `root` the open transcript: the previous session is disposed. */
  function openSession(root: Transcript, open: 'main' | number, fileName: string): TranscriptSession {
    // Random part: a re-created worker restarts the counter, its keys must not match old views.
    const key = `${++sessionsMade}-${Math.random().toString(36).slice(2)}`
    const next = new TranscriptSession(root, open, fileName, key, services)
    const previous = session
    session = next
    previous?.dispose(next)
    return next
  }

  function accept(result: ImportResult, fileName: string): ImportOutcome {
    if (!result.ok) return { ok: false, error: { ...result.error } }
    if (result.transcript.messages.length === 0) {
      return { ok: false, error: { message: 'the transcript has no messages' } }
    }
    // Only a successful import replaces the transcript: a bad file never loses the previous one.
    return { ok: true, info: openSession(result.transcript, 'main', fileName).info() }
  }

  function guardImport(fileName: string, load: () => ImportResult): ImportOutcome {
    try {
      return accept(load(), fileName)
    } catch (e) {
      // Importers promise not to throw; this keeps the promise at the boundary even if one does.
      return { ok: false, error: { message: `import failed: ${errorText(e)}` } }
    }
  }

  const api = {
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
      const transcript = session?.transcript
      if (!transcript) return { workers: 0, texts: 0, chars: 0, ms: 0 }
      return measurePool(encoding, transcript.messages, transcript.tools)
    },

    /**
     * Imports a transcript from text (paste, sample). A successful import opens it in a new
     * session: everything made from the previous transcript is dropped, its calls in flight
     * answer `cancelled`, and its texts leave the token counters' caches.
     */
    importText(text: string, fileName: string): ImportOutcome {
      imports++
      return guardImport(fileName, () => importTranscript(text, { fileName }))
    },

    /** Imports a transcript from file bytes (transferred, not copied). */
    importFile(bytes: ArrayBuffer, fileName: string): ImportOutcome {
      imports++
      return guardImport(fileName, () => importBytes(new Uint8Array(bytes), { fileName }))
    },

    /**
     * Packs a dropped folder's files (`name`: the path inside the folder, `/`-separated) into one
     * stored zip archive, which the page then opens like a dropped zip (a Cline task folder,
     * OpenCode storage, an OpenHands conversation). The files are read here, not in the page.
     */
    async zipFiles(files: { name: string; file: Blob }[]): Promise<Uint8Array> {
      const read = new Map<string, Uint8Array>()
      for (const { name, file } of files) read.set(name, new Uint8Array(await file.arrayBuffer()))
      return zipFiles(read)
    },

    /**
     * Imports a File/Blob by streaming it here, in the worker (the page never holds its text):
     * JSONL incrementally with bytes + records progress, other files with byte progress.
     * `onProgress` (a comlink `proxy`) is called about ten times a second at most. A newer import
     * (of any kind) or `abortImport` supersedes it: its stream is cancelled, nothing of it is
     * opened, and it answers `IMPORT_SUPERSEDED`.
     */
    async importBlob(
      blob: Blob,
      fileName: string,
      onProgress?: (progress: ImportProgress) => void,
    ): Promise<ImportOutcome> {
      let result: ImportResult
      const number = ++imports
      const superseded = () => number !== imports
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
        const options = { onPart, superseded }
        result = await importBlob(blob, fileName, onProgress ? { ...options, onProgress, onHead } : options)
      } catch (e) {
        return { ok: false, error: { message: `import failed: ${errorText(e)}` } }
      }
      if (superseded()) return { ok: false, error: { message: IMPORT_SUPERSEDED } }
      return guardImport(fileName, () => result)
    },

    /**
     * Abandons the streamed import in flight (`importBlob`), if any: it stops reading at its next
     * piece and answers `IMPORT_SUPERSEDED`; the open transcript stays. The page calls it when a
     * newer file is chosen (an AbortSignal cannot cross the worker boundary).
     */
    abortImport(): void {
      imports++
    },

    /**
     * The open file's fingerprint (`transcriptFingerprint` of its root transcript: 12 hex digits,
     * the same for every conversation of the file), made on first request and kept with the
     * import; null when nothing is loaded.
     */
    fingerprint(): string | null {
      if (!session) return null
      const root = session.root
      let known = fingerprints.get(root)
      if (known === undefined) {
        known = transcriptFingerprint(root)
        fingerprints.set(root, known)
      }
      return known
    },

    /**
     * Opens the file's main conversation or one of its sidechains (sub-agents) by index as the
     * transcript to run, in a new session: the previous one's runs are dropped and its calls in
     * flight answer `cancelled` (the file's cached counts stay). Fails when nothing is loaded or
     * the index is out of range.
     */
    openConversation(which: 'main' | number): ImportOutcome {
      if (!session) return { ok: false, error: { message: NOTHING_LOADED } }
      const { root, fileName } = session
      if (which !== 'main' && !root.sidechains?.[which]) return { ok: false, error: { message: `no sub-agent transcript ${which}` } }
      return { ok: true, info: openSession(root, which, fileName).info() }
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
      try {
        const open = session
        if (!open) return { ok: false, error: NOTHING_LOADED }
        open.factTables.cancelAhead()
        const out = await fullRun(open, runHost, config, runId, options, onProgress)
        // The first run's facts table is made while the page is idle: the Facts tab then only fetches it.
        const result = open.result
        if (out.ok && result) open.factTables.buildAhead(result, runId, () => !open.disposed && open.result === result)
        return out
      } finally {
        releaseRemote(onProgress)
      }
    },

    /**
     * What the agent itself kept after its recorded compaction number `compaction` (0-based; default
     * the last), counted in `encoding`, as a run view (stage `recorded`), with the comparison to the
     * last simulated run when there is one, and which important facts each kept (`factsKept`). The
     * recorded run is made once per compaction and encoding and kept (`session.recorded`): asked
     * again after a simulated run, the same one answers, with the figures already made from it.
     */
    async runRecorded(encoding: Encoding, compaction?: number, calibrationSetting?: CalibrationSetting): Promise<RecordedOutcome> {
      const open = session
      if (!open) return { ok: false, error: NOTHING_LOADED }
      try {
        const counter = await loadCounter(encoding)
        if (open.disposed) return { ok: false, error: 'cancelled' }
        const k = compaction ?? open.transcript.recordedCompactions.length - 1
        // Counted as a simulation of the same file is: calibrated the same way.
        const calibration = calibrationFor(open.transcript, calibrationSetting, counter)
        const held = open.recordedOf({ compaction: k, encoding })
        const recorded =
          held && held.calibration?.overhead === calibration.overhead && held.calibration.ratio === calibration.ratio
            ? held
            : recordedRunResult(open.transcript, counter, { compaction: k, calibration })
        if (!recorded) return { ok: false, error: 'this transcript records no compaction' }
        open.recorded = recorded
        open.recordedEncoding = encoding
        const comparison = open.comparison(recorded)
        const runView = buildRunView(recorded, 0, encoding)
        // Names the transcript the view is of: the page keys the figures it asks about this view by it.
        runView.transcriptKey = open.key
        const view: RecordedRunView = { compaction: recorded.pass - 1, view: runView, comparison }
        if (comparison && open.result) {
          const kept = factsKeptBy(open.factTables.foundIndexOf(recorded.before.messages), recorded, open.result)
          const cut = (facts: string[]) =>
            facts.slice(0, FACTS_KEPT_LIMIT).map((f) => (codePointLength(f) > FACT_VIEW_LIMIT ? `${cutCodePoints(f, FACT_VIEW_LIMIT - 1)}…` : f))
          view.factsKept = {
            recordedOnly: cut(kept.recordedOnly),
            simulatedOnly: cut(kept.simulatedOnly),
            recordedOnlyCount: kept.recordedOnly.length,
            simulatedOnlyCount: kept.simulatedOnly.length,
            both: kept.both,
            neither: kept.neither,
          }
        }
        return { ok: true, recorded: view }
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
      const messages = which === 'recorded' ? session?.recorded?.after.messages : session?.result?.after.messages
      if (!session || !messages) return { ok: false, error: 'nothing to export yet' }
      try {
        const exported = exportTranscript(session.transcript, target, messages)
        const text = `${JSON.stringify(exported.body, null, 2)}\n`
        return {
          ok: true,
          blob: new Blob([text], { type: 'application/json' }),
          fileName: exportFileName(session.fileName, which, target),
          warnings: exported.warnings,
        }
      } catch (e) {
        return { ok: false, error: errorText(e) }
      }
    },

    /**
     * The self-contained HTML report of the last run (src/report `buildReport`): `config` is the
     * config of that run, `redact` what to replace. `save: false` answers only what redaction
     * would replace (for the dialog, before saving); `save: true` also the file, as a Blob made
     * here, with the token timeline (cached summaries only: nothing is sent).
     */
    report(config: PipelineConfig, redact: RedactOptions, save: boolean): Promise<ReportOutcome> {
      if (!session) return Promise.resolve({ ok: false, error: NOTHING_LOADED })
      return reportOutcome(session, config, redact, save)
    },

    /**
     * What a run with `config` would send, without sending anything (engine `planSummaryRequests`):
     * every summarizer call with its exact request (the key shown as `KEY_PLACEHOLDER` when
     * `hasKey`), tokens to send and the host. Calls already in the summary cache are marked.
     */
    async planSummaries(config: PipelineConfig, hasKey: boolean): Promise<PlanOutcome> {
      const open = session
      if (!open) return { ok: false, error: NOTHING_LOADED }
      try {
        const counter = await loadCounter(config.encoding)
        const plan: SummaryPlan = await planSummaryRequests(open.transcript, config, {
          counter,
          cache: services.summaryCache,
          hasKey,
        })
        // The run the person sends next can then say "pass 2 of 3".
        open.plannedCalls = { config: JSON.stringify(config), count: plan.requests.length }
        return { ok: true, plan }
      } catch (e) {
        return { ok: false, error: errorText(e) }
      }
    },

    /**
     * Token counts of the last run's summarizer calls and of its context before and after, for the
     * cost view (engine `runTokens`), counted in `encoding` (the run's); null before any run. With
     * `recorded`, of that recorded view (null when it is not the last one made): its context before
     * and after, and no summarizer calls — the agent's own compaction requests are not in the file.
     */
    async getRunTokens(encoding: Encoding, recorded?: RecordedRef): Promise<RunTokens | null> {
      const open = session
      const result = recorded ? open?.recordedOf(recorded) : open?.result
      if (!open || !result) return null
      const counter = await loadCounter(recorded?.encoding ?? encoding)
      return runTokens(recorded ? { ...result, passes: [] } : result, counter.count, open.transcript.tools)
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
      if (!session) return { ok: false, error: NOTHING_LOADED }
      return runSweep(session.transcript, config, x, y, session.sweep, onProgress)
    },

    /**
     * One run of `config` over the open transcript, apart from the page's last run, for comparing
     * presets side by side: tokens before and after, passes and needed facts lost (as a sweep cell
     * counts them, engine `sweep`), with the sweep's offline summarizer rule (`sweepConfigOf`: an
     * HTTP summarizer is replaced by the extractive one and `note` says so: each side would send
     * its own requests). Never throws.
     */
    async compareRun(config: PipelineConfig): Promise<CompareOutcome> {
      const open = session
      if (!open) return { ok: false, error: NOTHING_LOADED }
      try {
        const { config: offline, note } = sweepConfigOf(config)
        const counter = await loadCounter(offline.encoding)
        const result = await runPipeline(open.transcript, offline, { counter })
        if (open.disposed) return { ok: false, error: 'cancelled', cancelled: true }
        const failed = result.stages.find((s) => s.error !== undefined)
        if (failed) return { ok: false, error: `${failed.stage}: ${failed.error}` }
        const figures = {
          tokensBefore: result.before.totals.tokens,
          tokensAfter: result.after.totals.tokens,
          peakTokens: peakContextTokens(result),
          passes: result.passes.length,
          neededLost: neededFacts(result).length,
        }
        if (note === undefined) return { ok: true, figures }
        return { ok: true, figures, note: `Compared with the offline extractive summarizer instead of ${config.summarizer}.` }
      } catch (e) {
        return { ok: false, error: errorText(e) }
      }
    },

    /** Stops the sweep in flight; it answers with the cells done so far. False when none runs. */
    cancelSweep(): boolean {
      return session?.sweep.calls.cancel() ?? false
    },

    /** Aborts the run in flight (and its summarizer request); it answers `cancelled`. */
    cancelSummaries(): boolean {
      return session?.runs.cancel() ?? false
    },

    /**
     * Rows `from`..`from + count - 1` of `side` of the run `runId` answered with `RunOptions.rowPage`
     * (`RunView.beforeRowsTotal`, `afterRowsTotal`); of its last stage-by-stage view (`runUpTo`)
     * when `of` is `stage`. Null when those rows are no longer held (a newer paged run or view) or
     * that side was sent whole.
     */
    getRows(runId: number, side: 'before' | 'after', from: number, count: number, of: 'run' | 'stage' = 'run'): RowMeta[] | null {
      const paged = of === 'stage' ? session?.stagePagedRows : session?.pagedRows
      const rows = paged?.runId === runId ? paged[side] : undefined
      return rows ? rows.slice(from, from + count) : null
    },

    /** Full content of one row of the last run (before rows also work before any run). */
    getMessageDetail(side: Side, id: string): MessageDetail | null {
      const message = session?.findMessage(side, id)
      if (!message) return null
      const detail = buildMessageDetail(message, side)
      // The facts the page underlines for "click a fact".
      detail.facts = messageFactSpans(message).map((s) => s.fact)
      return detail
    },

    /**
     * The fact finder: where `query` (a string, or a regex source when `regex`)
     * occurs in the last run, Before and After, as row ids with counts, and the engine's verdict
     * (survives / lost in which pass of which stage / never present, and why). Full texts never
     * cross. `against: 'recorded'` judges it against the last recorded view (`runRecorded`) instead,
     * what the agent kept after its own compaction (`versus`: the simulation's, with the recorded
     * verdict beside it, `FactSearch.recordedVerdict`). `ok: false` with a message for an empty query,
     * an invalid regex, or no run (or recorded view) yet.
     */
    async searchFact(query: string, regex: boolean, against: 'after' | 'recorded' | 'versus' = 'after'): Promise<FactSearchOutcome> {
      const open = session
      const result = against === 'recorded' ? open?.recorded : open?.result
      if (!open || !result) {
        return { ok: false, error: against === 'recorded' ? 'The recorded compaction is not read yet.' : 'Nothing has run yet.' }
      }
      try {
        // A regex runs first where it can be stopped: a backtracking one must not hang this worker.
        // Recorded vs simulated: the simulation is searched, and the agent's recorded run judged too.
        const options = {
          index: open.factSearch,
          against: against === 'recorded' ? against : ('after' as const),
          recorded: against === 'versus' ? (open.recorded ?? undefined) : undefined,
        }
        return await searchFactGuarded(result, query, regex, open.resultRunId, regexProbe, options)
      } catch (e) {
        return { ok: false, error: errorText(e) }
      }
    },

    /**
     * The facts table of the last run: each at-risk fact of the Before, its state
     * after every pass, its final fate and the finder's verdict, as plain rows (`FactTableView`,
     * labelled with the page's `runId`). Built on request, never per run; the fact index is made
     * once per transcript, and a run that changed nothing deciding a fact's fate answers
     * `unchanged` when the page already holds that `version` (`known`). `watched`: the user's
     * own facts to track too (kind `watched`, first), as typed. `against: 'recorded'`: the table of
     * the last recorded view (`runRecorded`), each fact judged against what the agent kept.
     */
    async getFactTable(
      runId: number,
      known?: number,
      watched: readonly string[] = [],
      against: 'after' | 'recorded' = 'after',
    ): Promise<FactTableOutcome> {
      try {
        if (!session) return { ok: false, error: 'Nothing has run yet.' }
        if (against === 'recorded' && !session.recorded) return { ok: false, error: 'The recorded compaction is not read yet.' }
        const open = session
        // Fact spans the pool is finding for this Before are waited for, not found again here.
        if (open.result) await factSpansSettled(open.result.before.messages)
        if (open !== session) return { ok: false, error: 'Another transcript was opened.' }
        return open.factTables.outcome(against === 'recorded' ? open.recorded : open.result, runId, known, watched)
      } catch (e) {
        return { ok: false, error: errorText(e) }
      }
    },

    /**
     * Rows `from`… (at most `count`) of the facts table `version` the last `getFactTable` made,
     * filtered and sorted as `query` says, and how many match (`FactTables.rows`): how the page
     * lists a table too long to cross whole (`FACT_ROWS_INLINE`).
     */
    getFactRows(version: number, query: FactRowsQuery, from: number, count: number): FactRowsOutcome {
      if (!session) return { ok: false, error: 'Nothing has run yet.' }
      return session.factTables.rows(version, query, from, count)
    },

    /**
     * Re-work after compaction for the last run (engine `reworkAfterCompactions`): after each of
     * its simulated passes and each compaction the open transcript records, the tool calls repeated
     * after an earlier result was compacted away and the questions asked again, with their tokens
     * (the run's encoding). Labelled with the page's `runId` (the worker answers for its last run).
     * With `recorded`, of that recorded view (the last one made): after each recorded compaction
     * only, whatever the simulation. Made once per run.
     */
    getRework(runId: number, recorded?: RecordedRef): ReworkOutcome {
      const result = recorded ? session?.recordedOf(recorded) : session?.result
      if (!session || !result) {
        return { ok: false, error: recorded ? 'The recorded compaction is not read yet.' : 'Nothing has run yet.' }
      }
      try {
        let rework = reworkByRun.get(result)
        if (!rework) {
          rework = reworkAfterCompactions(session.transcript, result)
          reworkByRun.set(result, rework)
        }
        return { ok: true, runId, rework }
      } catch (e) {
        return { ok: false, error: errorText(e) }
      }
    },

    /**
     * The failure-mode warnings of the last run (engine `failureModesOf`, seed 004), when it is
     * the run `runId`: computed on the first ask and kept on the run. Null when another run is
     * the last one (the page asks again for that one) or nothing has run. With `recorded`, those
     * of that recorded view (the agent's compactions up to it), when it is the last one made.
     */
    async getFailureModes(runId: number, recorded?: RecordedRef): Promise<FailureModeWarning[] | null> {
      const open = session
      const result = recorded ? open?.recordedOf(recorded) : open?.result
      if (!open || !result || (!recorded && open.resultRunId !== runId)) return null
      // Fact spans the pool is finding for this Before are waited for, not found again here.
      await factSpansSettled(result.before.messages)
      if (open !== session || (!recorded && open.result !== result)) return null
      return failureModesOf(result)
    },

    /**
     * A text of a pass of the last run — the exact prompt sent to its summarizer, or the summary
     * it wrote (a long run's view leaves summaries out: `PASS_SUMMARIES_SENT`) — or null.
     */
    getPassText(passNumber: number, stage?: string, which: 'prompt' | 'summary' = 'prompt'): string | null {
      const pass = session?.result?.passes.find((p) => p.pass === passNumber && (stage === undefined || p.stage === stage))
      if (!pass) return null
      return which === 'prompt' ? pass.prompt : pass.summary
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
      if (!session) return { ok: false, error: NOTHING_LOADED }
      return prefixRun(session, runHost, config, stage, runId, options)
    },

    /**
     * The context the model had at `turn` (1-based) under `config` (engine `contextAtTurn`): the
     * pipeline on the transcript's prefix up to that turn, with cached counts and summaries (an
     * HTTP summarizer is never called from here). A newer request cancels this one.
     */
    getTurnContext(config: PipelineConfig, turn: number, requestId: number): Promise<TurnOutcome> {
      if (!session) return Promise.resolve({ ok: false, error: NOTHING_LOADED })
      return turnContextOutcome(session.turns, config, turn, requestId)
    },

    /** The context at `turn` as an `openai` (Chat Completions) or `anthropic` (Messages) request body. */
    turnRequestBody(config: PipelineConfig, turn: number, shape: RequestShape, model?: string): Promise<TurnBodyOutcome> {
      if (!session) return Promise.resolve({ ok: false, error: NOTHING_LOADED })
      return turnBodyOutcome(session.turns, config, turn, shape, model)
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
      try {
        if (!session) return { ok: false, error: NOTHING_LOADED }
        return await timelineOutcome(session.turns, config, timelineId, onProgress)
      } finally {
        releaseRemote(onProgress)
      }
    },
  }
  // Every call of the page postpones the worker's idle-time work (the facts table built ahead).
  return postponingIdleWork(api, () => session?.factTables.hold())
}

/**
 * `api` with every method first calling `onCall`, which holds the worker's idle-time work and
 * returns its release: called once the method has answered (a promise settled), so that work
 * waits while the page keeps asking and while an answer is still on its way. Mutates and returns
 * `api` (its type unchanged).
 */
function postponingIdleWork<T extends object>(api: T, onCall: () => (() => void) | undefined): T {
  const methods = api as Record<string, unknown>
  for (const [key, method] of Object.entries(methods)) {
    if (typeof method !== 'function') continue
    methods[key] = (...args: unknown[]) => {
      const release = onCall()
      const out = (method as (...a: unknown[]) => unknown)(...args)
      // An answer still on its way (awaiting the pool or a run) holds the idle work until it is given.
      if (out instanceof Promise) out.then(release, release)
      else release?.()
      return out
    }
  }
  return api
}

/** The engine worker's API, as `createEngineApi` makes it (the page reaches it through comlink). */
export type EngineApi = ReturnType<typeof createEngineApi>
