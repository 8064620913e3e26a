/**
 * One open transcript in the engine worker and everything made from it: the last run, the
 * stage-by-stage view, the recorded view, the paged Before rows, the fact finder's and the facts
 * table's indexes, the sweep's and the turn views' memos, and the calls in flight over it. The
 * worker holds exactly one session (engine-api.ts); opening another transcript disposes it as a
 * whole, so nothing of the old transcript is reused or kept alive by the worker.
 */
import { createSummaryMemo } from '../engine/analysis/sweep'
import { compareRecordedVsSimulated, type RecordedRun } from '../engine/analysis/recorded'
import type { Encoding, Message, RunResult, Transcript } from '../engine/model'
import type { SummaryCache } from '../engine/summarizers/cache'
import { forgetCounts } from '../engine/tokens/count'
import { FactSearchIndex } from './fact-search'
import { FactTables } from './fact-table'
import { LatestCall } from './latest-call'
import { BRANCHES_LISTED, STAGE_ROW_PREFIX, type RecordedRef, type RowMeta, type Side, type TranscriptInfo } from './protocol'
import type { SweepScope } from './sweep'
import { TurnSummarizers, type TurnScope } from './turns'
import { exportTargetsFor } from './view'

/** What every session of one worker shares: services that outlive a transcript. */
export interface SessionServices {
  /** Summaries of every HTTP call this worker made, keyed by (summarizer, model, prompt hash). */
  summaryCache: SummaryCache
  /** The next facts table version (counts across sessions, see `FactTables`). */
  nextFactVersion: () => number
}

/**
 * The conversation `open` of the imported file `root` (its main line, or one of its sidechains
 * by index) as the transcript every call runs on. `key` names it in run views
 * (`RunView.transcriptKey`); it must differ between any two sessions of any two workers.
 */
export class TranscriptSession {
  /** The imported file's transcript (its main line); sidechains hang off it. */
  readonly root: Transcript
  /** The conversation open: `root` or one of its sidechains. */
  readonly transcript: Transcript
  readonly open: 'main' | number
  readonly fileName: string
  readonly key: string

  /** The last full run (`run`) and the page's runId for it (the fact finder echoes it). */
  result: RunResult | null = null
  resultRunId: number | null = null
  /** The last stage-by-stage view (`runUpTo`): the run of a prefix of the pipeline. */
  stageResult: RunResult | null = null
  /** The last recorded view of `transcript` (its own compaction), if asked for, and its encoding. */
  recorded: RecordedRun | null = null
  recordedEncoding: Encoding | null = null
  /** How many summarizer calls the last plan (`planSummaries`) of a config (JSON) counted. */
  plannedCalls: { config: string; count: number } | null = null
  /** The full rows of each side the last run answered in pages (`RunOptions.rowPage`). */
  pagedRows: { runId: number; before?: RowMeta[]; after?: RowMeta[] } | null = null
  /** The same for the last stage-by-stage view (`runUpTo` with `rowPage`), apart from the run's. */
  stagePagedRows: { runId: number; before?: RowMeta[]; after?: RowMeta[] } | null = null

  /** The full run in flight: a newer run, `cancelSummaries` or disposal aborts it. */
  readonly runs = new LatestCall()
  /** The stage-by-stage run in flight, apart from `runs` so the main run never waits on it. */
  readonly stageRuns = new LatestCall()
  readonly sweep: SweepScope = { calls: new LatestCall(), memo: createSummaryMemo() }
  readonly turns: TurnScope
  readonly factSearch = new FactSearchIndex()
  readonly factTables: FactTables

  #disposed = false

  constructor(root: Transcript, open: 'main' | number, fileName: string, key: string, services: SessionServices) {
    this.root = root
    this.open = open
    this.transcript = open === 'main' ? root : (root.sidechains?.[open] ?? root)
    this.fileName = fileName
    this.key = key
    this.factTables = new FactTables(services.nextFactVersion)
    this.turns = {
      transcript: this.transcript,
      summarizers: new TurnSummarizers(this.transcript, services.summaryCache),
      turnCalls: new LatestCall(),
      timelineCalls: new LatestCall(),
      usageViews: new Map(),
    }
  }

  /** True once another transcript replaced this one: a call that awaited answers `cancelled`. */
  get disposed(): boolean {
    return this.#disposed
  }

  /** Keeps `result` as the last full run, made for the page's `runId`. */
  keepRun(result: RunResult, runId: number): void {
    this.result = result
    this.resultRunId = runId
  }

  /**
   * Ends this session: aborts every call in flight over it (each answers `cancelled`) and drops
   * its runs. When `next` is not a conversation of the same file (another import, even of the
   * same file again), the token counters' cached counts go too, so the texts of every file
   * opened are not kept alive as cache keys (tens of MB per large file).
   */
  dispose(next?: TranscriptSession): void {
    this.#disposed = true
    for (const calls of [this.runs, this.stageRuns, this.sweep.calls, this.turns.turnCalls, this.turns.timelineCalls]) {
      calls.dispose()
    }
    this.result = null
    this.resultRunId = null
    this.stageResult = null
    this.recorded = null
    this.recordedEncoding = null
    this.plannedCalls = null
    this.pagedRows = null
    this.stagePagedRows = null
    if (next?.root !== this.root) forgetCounts()
  }

  /** What the page shows of the open conversation and of the file's others (plain data). */
  info(): TranscriptInfo {
    const { root, transcript, open } = this
    const info: TranscriptInfo = {
      fileName: this.fileName,
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
    const agentVersion = transcript.agentVersion ?? root.agentVersion
    if (agentVersion !== undefined) info.agentVersion = agentVersion
    if (root.title !== undefined) info.mainTitle = root.title
    return info
  }

  /**
   * The message of row `id` on `side`: the Before (of the last run, or the transcript before any
   * run), the last run's After (ids with `STAGE_ROW_PREFIX`: the stage-by-stage view's After),
   * or the recorded view's After.
   */
  findMessage(side: Side, id: string): Message | undefined {
    if (side === 'after' && id.startsWith(STAGE_ROW_PREFIX)) {
      const own = id.slice(STAGE_ROW_PREFIX.length)
      return this.stageResult?.after.messages.find((m) => m.id === own)
    }
    const list =
      side === 'before'
        ? (this.result?.before.messages ?? this.transcript.messages)
        : side === 'recorded'
          ? this.recorded?.after.messages
          : this.result?.after.messages
    return list?.find((m) => m.id === id)
  }

  /**
   * The last recorded view when it is the one `ref` names (recorded compaction `ref.compaction`,
   * counted in `ref.encoding`), else null: what a figure asked about a recorded view is made from.
   */
  recordedOf(ref: RecordedRef): RecordedRun | null {
    const r = this.recorded
    return r && r.pass - 1 === ref.compaction && this.recordedEncoding === ref.encoding ? r : null
  }

  /** Recorded vs simulated, when both views belong to this transcript. */
  comparison(recorded: RecordedRun): ReturnType<typeof compareRecordedVsSimulated> | null {
    const simulated = this.result
    if (!simulated || simulated.before.messages !== recorded.before.messages) return null
    return compareRecordedVsSimulated(recorded, simulated)
  }
}
