/**
 * The data that crosses the worker boundary (DESIGN §1). Everything here is plain,
 * structured-cloneable data: the worker owns the transcript and the last RunResult, the UI
 * only ever receives these light shapes and asks for full text of the rows it shows.
 */
import type {
  Encoding,
  FailureModeWarning,
  FormatId,
  Fate,
  MessageFlags,
  Origin,
  Pass,
  RecordedCompaction,
  Role,
  RunResult,
  StageId,
  StageReport,
  TokenTotals,
  TranscriptBranch,
  TriggerDecision,
  ValidityProblem,
} from '../engine/model'
import type { ExportTarget } from '../engine/export'
import type { FactKind } from '../engine/facts/patterns'
import type { FactImportance, FactOrigin } from '../engine/facts/importance'
import type { NeededAfterLoss, ReReadAfterLoss } from '../engine/facts/needed'
import type { FactTable } from '../engine/facts/table'
import type { FactRowsQuery } from '../engine/fact-query'
import type { PassRun } from '../engine/facts/pass-runs'
import type { FactEvent, FactVerdict, KeptAs } from '../engine/facts/verdict'
import type { ImportError } from '../engine/formats/types'
import type { RecordedComparison } from '../engine/analysis/recorded'
import type { Calibration } from '../engine/usage/calibration-terms'
import type { CompactionRework } from '../engine/analysis/rework'
import type { SummaryPlan } from '../engine/summarizers/preview'
import type { SweepResult } from '../engine/analysis/sweep'
import type { TimelinePass, TimelineThreshold } from '../engine/analysis/turns'
import type { CompositionPart, UsageCompaction, UsagePoint, UsageTimeline } from '../engine/usage/timeline'
import type { OriginView } from '../report/kinds'
import type { RedactionCounts } from '../report/redact'
import { samePlainData } from '../engine/util/plain-data'

/**
 * Which column a row belongs to: the Before, the simulated After, or the After the agent recorded
 * (its own compaction).
 */
export type Side = 'before' | 'after' | 'recorded'

/**
 * Prefix of the After row ids of a stage-by-stage view (`EngineApi.runUpTo`): those rows
 * are side `after` but belong to the prefix run, so their ids (and the Before rows'
 * `counterpartIds` pointing at them) carry this prefix; `getMessageDetail('after', id)` with it
 * reads the prefix run. Keeps their fetched details apart from the full run's.
 */
export const STAGE_ROW_PREFIX = 'stage-view:'

/** An After row's origin as the page gets it (report/kinds.ts `OriginView`): any `Origin` is one. */
export type { OriginView }

/** Row metadata of one message on one side (no full content). */
export interface RowMeta {
  id: string
  /** Position on its own side, 0-based (for the before side, the message's `index`). */
  index: number
  role: Role
  /** Tokens of this message in the run's encoding. */
  tokens: number
  /** ≤ 200 code points, whitespace collapsed; tool-calling assistants without text as `(tool calls: a, b)`. */
  preview: string
  toolName?: string
  toolCallId?: string
  /** Names of the tool calls an assistant message makes. */
  toolCallNames?: string[]
  isError?: boolean
  flags: MessageFlags
  /** Images and thinking blocks in the content, for badges. */
  images: number
  thinking: number
  /** Before side only. */
  fate?: Fate
  /** After side only. */
  origin?: OriginView
  /** Ids on the other side: for a before row the after row(s) carrying it; for an after row its before id(s). */
  counterpartIds: string[]
  /** `tokens` is an estimate (UTF-8 bytes / 3.4, BENCH.md) shown until exact counts arrive. */
  estimated?: true
  /**
   * `tokens` is an estimate: the message holds a run of this many UTF-16 code units counted in
   * chunks (`RunResult` `estimateById`, engine/tokens/count.ts).
   */
  chunkedRun?: number
}

/** A pass without its (possibly large) prompt. */
export type PassMeta = Omit<Pass, 'prompt' | 'summary'> & {
  /** Length of the prompt in code points (fetch it with `getPassText`). */
  promptLength: number
  /**
   * The summary the pass wrote; absent when the run made more than `PASS_SUMMARIES_SENT`
   * simulated passes (fetch it with `getPassText(pass, stage, 'summary')`): 45,000 passes of a
   * million-message chat carry hundreds of MB of summaries the page shows one at a time.
   */
  summary?: string
  /** Length of the summary in code points. */
  summaryLength: number
}

/** Simulated passes whose summaries a run's view carries; above it none do (a recorded compaction's always does). */
export const PASS_SUMMARIES_SENT = 500

/**
 * Part of a run's decision log (engine `RunResult.decisions`) for a view: `decisions` in log
 * order, cut to what the view needs when the log is long (worker/decision-log.ts
 * `decisionLogView`); the counts are of the whole log (check points, reached, fired). Word a
 * decision with engine/stages/triggers.ts `describeDecision` only.
 */
export interface DecisionLogView {
  decisions: TriggerDecision[]
  /** Check points in the whole log. */
  total: number
  /** Check points whose trigger was reached. */
  reached: number
  /** Check points where a stage compacted. */
  fired: number
}

/** What the UI needs from a finished run. */
export interface RunView {
  runId: number
  encoding: Encoding
  /**
   * How the run's token figures were counted (engine `RunResult.calibration`): fitted to the
   * file's usage, the preset's overhead, by hand, or raw. Absent: raw counts.
   */
  calibration?: Calibration
  /**
   * Identifies the open transcript (changes on every import or conversation switch): a Before
   * row's role, preview, flags and tool names depend on it alone, so a client holding a view with
   * this key can ask for the next run without them (`RunOptions.previewsOf`).
   */
  transcriptKey?: string
  /**
   * True when the Before rows were sent slim (only `id`, `index`, `tokens`, `fate`,
   * `counterpartIds`) because the client said it holds them (same `transcriptKey`); restore the
   * rest with `restoreBeforePreviews`.
   */
  beforePreviewsOmitted?: true
  /**
   * Set when `RunOptions.rowPage` cut `before.rows`: the full count; fetch the rest with
   * `getRows(runId, 'before', from, count)`.
   */
  beforeRowsTotal?: number
  /** Set when `RunOptions.rowPage` cut `after.rows`: the full count (`getRows(runId, 'after', …)`). */
  afterRowsTotal?: number
  before: { rows: RowMeta[]; totals: TokenTotals }
  after: { rows: RowMeta[]; totals: TokenTotals }
  passes: PassMeta[]
  stages: StageReport[]
  /**
   * Validity problems of each side; `failureModes`: the seed 004 failure-mode warnings of the run
   * (goal drift, over-compression, double compression, fabricated summary), each naming the
   * messages involved (before ids of sources, after ids of summaries).
   * `failureModesPending`: the page's runs leave them out so the run is shown first; ask for them
   * with `EngineApi.getFailureModes(runId)` (a recorded view's with its `RecordedRef`).
   */
  checks: {
    /** The first `PROBLEMS_SENT` validity problems of the Before (`problemCounts`: how many in all). */
    before: ValidityProblem[]
    /** The first `PROBLEMS_SENT` validity problems of the After. */
    after: ValidityProblem[]
    /** Set when a side had more than `PROBLEMS_SENT`: each side's count; the page reads it with `problemCount` (state/selectors.ts). */
    problemCounts?: { before: number; after: number }
    failureModes?: FailureModeWarning[]
    failureModesPending?: true
  }
  warnings: string[]
  /** What the send-ready cleanup dropped after the stages (engine `RunResult.cleanup`). */
  cleanup?: RunResult['cleanup']
  /**
   * The run's reached check points (passes fired, triggers held by a guard or the plan), for the
   * pass list; absent on recorded views, which have no triggers.
   */
  decisions?: DecisionLogView
  /**
   * The last check point of each stage that has a trigger, in stage order: when nothing fired,
   * how close each trigger came (its gap is in `describeDecision`). Absent on recorded views.
   */
  lastDecisions?: TriggerDecision[]
  /**
   * Set when the run was asked `asOfTurn` (`RunOptions`): the turn it ran as of, the transcript's
   * number of turns, and the inclusive index of the turn's last message (the Before is `0..endIndex`).
   */
  asOf?: { turn: number; turns: number; endIndex: number }
}

/** A fork off the main line (Claude Code edits/retries), listed but not shown. */
type BranchInfo = TranscriptBranch

/** A sub-agent conversation that can be opened as its own transcript. */
interface SidechainInfo {
  /** Position in the source transcript's `sidechains`. */
  index: number
  title: string
  messageCount: number
}

/** At most this many forks cross to the page in `TranscriptInfo.branches` (the header lists them). */
export const BRANCHES_LISTED = 200

/** What the UI keeps about the loaded transcript. */
export interface TranscriptInfo {
  fileName: string
  format: FormatId
  title?: string
  /** The agent version the file records (engine `Transcript.agentVersion`): a preset's trigger can depend on it. */
  agentVersion?: string
  messageCount: number
  recordedCompactions: RecordedCompaction[]
  warnings: string[]
  /** What the import noticed that is not a problem (engine `Transcript.notes`). */
  notes: string[]
  /** Title of the file's first conversation (the one opened first), when the source names one. */
  mainTitle?: string
  /**
   * Forks not on the main line (Claude Code): the first `BRANCHES_LISTED` of them, in file order;
   * `branchCount` says how many there are (a file can hold tens of thousands).
   */
  branches: BranchInfo[]
  /** How many forks are not on the main line. */
  branchCount: number
  /** Sub-agents of the imported file (Claude Code); empty for other formats. */
  sidechains: SidechainInfo[]
  /** Which conversation of the file is open: the main one, or a sidechain by index. */
  open: 'main' | number
  /** Export targets offered for the After: canonical, then the source's own request format. */
  exportTargets: ExportTarget[]
}

/** Where a streamed import is. Bytes are UTF-8 bytes of the file. */
export interface ImportProgress {
  /** `reading`: streaming the file; `building`: turning parsed records into the transcript. */
  phase: 'reading' | 'building'
  bytes: number
  totalBytes: number
  /** JSONL records parsed so far (JSONL files only). */
  records?: number
  /**
   * Sent once, while a large JSONL file still streams in: the first Before rows, imported from the
   * records read so far, with estimated tokens (`RowMeta.estimated`), so they can be read before
   * counting ends (BENCH B10). Ids may differ from the full import's; the first run's
   * rows replace them.
   */
  head?: ImportHead
}

/** The first Before rows of a file still being imported (see `ImportProgress.head`). */
export interface ImportHead {
  rows: RowMeta[]
  /** Messages the head import found (at least `rows.length`). */
  messages: number
}

/** What the agent itself kept after one of its recorded compactions, shaped like a run. */
export interface RecordedRunView {
  /** 0-based position of the compaction shown among `TranscriptInfo.recordedCompactions`. */
  compaction: number
  /** Before = the transcript with recorded fates; after = the context the agent continued with. */
  view: RunView
  /** Recorded vs the last simulated run of the same transcript, when there is one. */
  comparison: RecordedComparison | null
  /**
   * With `comparison`: which important facts each After kept (engine `factsKeptBy`), each list cut
   * to `FACTS_KEPT_LIMIT` facts, `FACT_VIEW_LIMIT` code points each; the counts are of all of them.
   */
  factsKept?: {
    recordedOnly: string[]
    simulatedOnly: string[]
    recordedOnlyCount: number
    simulatedOnlyCount: number
    both: number
    neither: number
  }
}

/** How many facts each list of `RecordedRunView.factsKept` carries at most. */
export const FACTS_KEPT_LIMIT = 50

/**
 * The recorded view a per-run figure is about (failure-mode warnings, re-work, the cost view's
 * counts; `EngineApi.getFailureModes`, `getRework`, `getRunTokens`): recorded compaction
 * `compaction` (0-based) counted in `encoding`, as `runRecorded` made it last. Without one a
 * figure is about the last simulated run.
 */
export interface RecordedRef {
  compaction: number
  encoding: Encoding
}

/** Result of `runRecorded`: never throws across the boundary. */
export type RecordedOutcome = { ok: true; recorded: RecordedRunView } | { ok: false; error: string }

/** Longest fact text a facts-table row carries, in code points (a goal can be a long message). */
export const FACT_VIEW_LIMIT = 300

/** One row of the facts table (engine `factTable`), light enough to cross the boundary. */
export interface FactRowView {
  /** Position in the engine's table (order of first appearance): a stable row id. */
  key: number
  /** The fact verbatim, cut to `FACT_VIEW_LIMIT` code points (an ellipsis added); untrusted text. */
  fact: string
  kind: FactKind
  /** Who put it into the conversation (engine `factOrigin`). */
  origin: FactOrigin
  /** Its tier, most important first (engine `factImportance`); `noise` rows are hidden by default. */
  importance: FactImportance
  /** The Before message it was first seen in. */
  firstSeen: { id: string; index: number }
  /** Before messages holding it verbatim. */
  messages: number
  /** Its state through the passes, as runs over `FactTableView.passes` positions. */
  passRuns: PassRun[]
  /** How the final context holds it. */
  final: KeptAs | 'lost'
  verdict: 'survives' | 'lost' | 'never-present'
  /** The finder's sentence (which pass of which stage lost the last copy, and what replaced it). */
  explanation: string
  /** For a lost fact: the step that dropped its last copy, and that copy's Before message. */
  lostAt?: { stage: string; pass?: number; beforeId: string }
  /**
   * The fact's history (engine `FactVerdict.history`) when it tells more than the final fate: a
   * loss then a mention that needed it or brought it back, or several losses. Shared by the rows
   * of facts held alike.
   */
  history?: FactEvent[]
  /** When a pass took it out of the context and a later message needed it (engine `NeededAfterLoss`). */
  neededAfterLoss?: NeededAfterLoss
  /** When a pass took it out and a tool brought it back: re-work, not a need (engine `ReReadAfterLoss`). */
  reReadAfterLoss?: ReReadAfterLoss
}

/**
 * At most this many rows cross with the facts table (`FactTableView.rows`): a longer table (a
 * long session holds tens of thousands of facts) keeps its rows in the worker, and the page asks
 * for the rows it shows (`EngineApi.getFactRows`), sorted and filtered there.
 */
export const FACT_ROWS_INLINE = 2_000

/** The facts table of the last run (`EngineApi.getFactTable`). */
export interface FactTableView {
  /** The `runId` the page asked for (the worker answers for its last run). */
  runId: number
  /** Bumped whenever the rows were recomputed: equal versions mean equal rows. */
  version: number
  passes: FactTable['passes']
  /**
   * Every row in the engine's order when `count` ≤ `FACT_ROWS_INLINE`; otherwise empty (the page
   * asks for them with `getFactRows`).
   */
  rows: FactRowView[]
  /** How many rows the table has. */
  count: number
  /** The kinds of its rows, in order of first appearance. */
  kinds: FactKind[]
  /** How many of its rows are noise. */
  noise: number
  totals: FactTable['totals']
}

/**
 * Result of `getFactRows`: rows `from`… of the facts table `version` for a query (at most the count
 * asked for) and how many rows match it in all; `ok: false` when the worker no longer holds that version.
 */
export type FactRowsOutcome =
  | { ok: true; version: number; from: number; matching: number; rows: FactRowView[] }
  | { ok: false; error: string }

/**
 * Result of `getFactTable`: the table, or `unchanged` when the page already holds this version
 * (nothing that decides a fact's fate changed since), or why there is none.
 */
export type FactTableOutcome =
  | { ok: true; table: FactTableView }
  | { ok: true; unchanged: true; runId: number; version: number }
  | { ok: false; error: string }

/** The facts table's query (engine `queryFactRows`), as the page sends it to `getFactRows`. */
export type { FactRowsQuery }

/** Export targets, as the engine names them. */
export type { ExportTarget }

/** A finished export: the file to download (made in the worker, so the text never crosses twice). */
export type ExportOutcome =
  | { ok: true; blob: Blob; fileName: string; warnings: string[] }
  | { ok: false; error: string }

/**
 * A report's redaction as worked out in the worker (report/redact.ts): distinct values replaced per
 * category and the same in words (`2 keys, 1 e-mail address`); with the file when it was made.
 */
export type ReportOutcome =
  | { ok: true; redactions: RedactionCounts; described: string; file?: { blob: Blob; fileName: string } }
  | { ok: false; error: string }

/** Result of an import: never throws across the boundary; on failure the previous transcript stays. */
export type ImportOutcome = { ok: true; info: TranscriptInfo } | { ok: false; error: ImportError }

/** Result of a run: never throws across the boundary. `cancelled` when a newer run superseded it. */
export type RunOutcome =
  | { ok: true; view: RunView }
  | {
      ok: false
      error: string
      cancelled?: boolean
      /** The summarizing stage whose LLM call failed (the previous result stays shown). */
      stage?: StageId
    }

/** `engineApi.planSummaries`: the prompt preview of the "send" step. */
export type PlanOutcome = { ok: true; plan: SummaryPlan } | { ok: false; error: string }

/**
 * Where a run with an HTTP summarizer is (streamed text shown as it arrives), sent to
 * the page's `onProgress` of `EngineApi.run` at most about ten times a second. Lengths and the
 * tail are in code points; the tail is model output, i.e. untrusted text.
 */
export interface SummaryProgress {
  /** The `runId` of the run this belongs to (the page drops progress of other runs). */
  runId: number
  stage: StageId
  /** 1-based number of this summarizer call in the run (calls answered from the cache count). */
  call: number
  /** Calls the send step's plan of this exact config expects, when the worker knows one. */
  expectedCalls?: number
  /** `waiting`: request sent, no text yet; `streaming`: text arriving; `done`: the call answered. */
  phase: 'waiting' | 'streaming' | 'done'
  /** The last `SUMMARY_PROGRESS_TAIL` code points of the answer so far. */
  tail: string
  /** Code points of the answer received so far. */
  received: number
}

/** How many code points of a streamed answer `SummaryProgress.tail` carries. */
export const SUMMARY_PROGRESS_TAIL = 300

/** One displayable block of a message's content. Images never carry their base64. */
export type DetailBlock =
  | { kind: 'text'; text: string }
  | { kind: 'image'; label: string }
  | { kind: 'thinking'; text: string; note: string }
  | { kind: 'opaque'; label: string; json: string }

/** Full content of one row, fetched on demand. */
export interface MessageDetail {
  side: Side
  id: string
  role: Role
  blocks: DetailBlock[]
  /** `arguments` pretty-printed when it is valid JSON, raw otherwise. */
  toolCalls: { id: string; name: string; arguments: string }[]
  toolCallId?: string
  toolName?: string
  isError?: boolean
  source?: { format: FormatId; line?: number }
  /**
   * Facts the engine finds in this message (`findFactSpans` over its text and tool-call
   * arguments), verbatim, in order of first appearance: the page makes them clickable.
   */
  facts?: string[]
}

/** Matches of a fact on one side of the last run: rows in column order, never their text. */
export interface FactSideMatches {
  /** Rows holding the fact and how many non-overlapping, non-empty occurrences each holds. */
  rows: { rowId: string; count: number }[]
  /** `rows.length`. */
  messages: number
  /** Sum of the counts. */
  occurrences: number
}

/**
 * The engine's `FactVerdict`, light enough to cross the boundary: `events` (one per Before copy)
 * reduced to their number and the replacement text of `lost` cut to 300 code points.
 */
export type FactVerdictView = Omit<FactVerdict, 'events' | 'beforeIds'> & {
  /** Before copies whose loss was traced (`events.length`). */
  copiesLost: number
}

/** Answer of `EngineApi.searchFact`: one fact searched in the last run. */
export interface FactSearch {
  query: string
  regex: boolean
  /** The `runId` of the run searched (null when unknown). */
  runId: number | null
  /**
   * Which After was searched, and so which column `after` marks: the simulated run's (`after`),
   * or what the agent kept after its own recorded compaction (`recorded`).
   */
  against: 'after' | 'recorded'
  before: FactSideMatches
  after: FactSideMatches
  verdict: FactVerdictView
  /** Recorded vs simulated: the verdict against what the agent kept, beside `verdict` (the simulation's). */
  recordedVerdict?: FactVerdictView
}

/** Result of `searchFact`: never throws across the boundary (an invalid regex is `ok: false`). */
export type FactSearchOutcome = { ok: true; search: FactSearch } | { ok: false; error: string }

/**
 * At most this many validity problems per side cross with a run view (`RunView.checks`): 200,000
 * tool results that answer no call are 200,000 problems, which the page would otherwise copy and
 * list on every run.
 */
export const PROBLEMS_SENT = 200

/** Options of `EngineApi.run`. */
export interface RunOptions {
  /**
   * The `transcriptKey` of the view the client shows: when it is still the open transcript the
   * static parts of the Before rows (previews of up to 200 code points, flags, ids of tool calls)
   * are not sent again: on a 5,000-message transcript that is ~2 of 2.5 MB the page would
   * otherwise deserialize on every run of a slider drag.
   */
  previewsOf?: string
  /**
   * When a side has more rows than this (full or slim Before rows, After rows), only its first
   * `rowPage` come with the view (`RunView.beforeRowsTotal`, `afterRowsTotal` say how many there
   * are); the page fetches the rest with `getRows`, one message per page, so no single message
   * costs the main thread a long deserialization (BENCH B5, B20).
   */
  rowPage?: number
  /**
   * The API key of an HTTP summarizer, for this run only (held in the page's memory, or in
   * localStorage after the person opted in); the worker never stores it.
   */
  apiKey?: string
  /**
   * Run on the transcript as of this turn (1-based, clamped to 1..T): its prefix up to the
   * turn's end, as the Turn N view and the timeline run it (`turnEnds`). Playback steps by it.
   */
  asOfTurn?: number
}

/**
 * Puts back the static parts of the Before rows a run left out (`beforePreviewsOmitted`) from
 * `previous`, a view of the same transcript (same `transcriptKey`) with at least as many Before
 * rows (a run as of an earlier turn has a prefix of them); rows match by position and id;
 * `tokens`, `fate` and `counterpartIds` come from `view`; a row where all three equal the held
 * row's is the held row object itself (rows are never mutated). Replaces `view.before.rows` (never
 * touches `previous`). Returns false when `previous` does not fit, so the caller can ask again.
 */
export function restoreBeforePreviews(view: RunView, previous: RunView | null | undefined): boolean {
  if (!view.beforePreviewsOmitted) return true
  if (!previous || previous.transcriptKey !== view.transcriptKey) return false
  const rows = view.before.rows
  const old = previous.before.rows
  // A run as of an earlier turn has a prefix of the rows: the longer view holds them too.
  if (old.length < rows.length) return false
  const full: RowMeta[] = []
  for (let i = 0; i < rows.length; i++) {
    const row = rows[i]
    const prev = old[i]
    if (!row || !prev || prev.id !== row.id) return false
    // Unchanged by this run: the held object itself (no copy per row; its markup is kept too).
    if (prev.tokens === row.tokens && samePlainData(prev.fate, row.fate) && samePlainData(prev.counterpartIds, row.counterpartIds)) {
      full.push(prev)
      continue
    }
    const next: RowMeta = { ...prev, tokens: row.tokens, counterpartIds: row.counterpartIds }
    if (row.fate) next.fate = row.fate
    else delete next.fate
    full.push(next)
  }
  view.before.rows = full
  delete view.beforePreviewsOmitted
  return true
}

/** One message of the context at a turn. `text` is untrusted: render as text. */
export interface TurnRow {
  id: string
  /** Position in the context, 0-based. */
  index: number
  role: Role
  tokens: number
  /** Content text, tool calls as `→ name(arguments)`; cut to `TURN_ROW_TEXT_LIMIT` code points. */
  text: string
  /** Code points of the whole text (more than `text` holds when it was cut). */
  textLength: number
  /** Where the message came from: summary / pinned-facts blocks, placeholders, originals. */
  origin?: Origin
  toolName?: string
}

/** The context the model had at one turn under the current pipeline (engine `contextAtTurn`). */
export interface TurnView {
  /** Echo of the request, so the page drops stale answers. */
  requestId: number
  /** 1-based; `turns` = T. */
  turn: number
  turns: number
  /** Inclusive index of the turn's last message in the transcript. */
  endIndex: number
  /** Context tokens at the turn (after the pipeline). */
  tokens: number
  /** Tokens and messages of the uncompacted prefix. */
  tokensBefore: number
  messagesBefore: number
  rows: TurnRow[]
  /** Passes that had fired by this turn. */
  passes: Omit<Pass, 'prompt'>[]
  /** The check points of this turn in the prefix run's decision log (every stage's). */
  decisions: DecisionLogView
  stages: StageReport[]
  warnings: string[]
}

/** Result of `getTurnContext`: never throws across the boundary. */
export type TurnOutcome = { ok: true; view: TurnView } | { ok: false; error: string; cancelled?: boolean }

/** Result of `turnRequestBody`: the JSON text to copy. */
export type TurnBodyOutcome = { ok: true; text: string; warnings: string[] } | { ok: false; error: string }

/** The token timeline (engine `TokenTimeline`), arrays indexed by turn − 1, possibly partial. */
export interface TimelineView {
  timelineId: number
  /** False while turns are still being evaluated (a progress snapshot). */
  done: boolean
  turns: number
  endIndex: number[]
  before: number[]
  after: (number | null)[]
  passesByTurn: (number | null)[]
  /** Turns evaluated so far. */
  evaluated: number
  sampled: boolean
  passes: TimelinePass[]
  thresholds: TimelineThreshold[]
  /** The model's context window, tokens (engine `TokenTimeline.window`). */
  window: number
  /** The whole-transcript run's decision log, for hovering a turn. */
  decisions: DecisionLogView
  /**
   * What the agent's own usage records say it sent, per request, with our calibrated estimate and
   * its composition, and the agent's compactions and clearings (engine `usageTimeline`), placed
   * on the turn axis (`x`, worker `turnPosition`). Empty `points` when the file records no usage.
   */
  usage: UsageTimelineView
}

/** The usage timeline (engine `UsageTimeline`) with each entry's position `x` on the timeline's turn axis. */
export interface UsageTimelineView {
  points: (UsagePoint & { x: number })[]
  compactions: (UsageCompaction & { x: number })[]
  clearings: (UsageTimeline['clearings'][number] & { x: number })[]
  parts: CompositionPart[]
}

/** Result of `runTimeline`: `cancelled` when a newer timeline or transcript superseded it. */
export type TimelineOutcome =
  | { ok: true; view: TimelineView }
  | { ok: false; error: string; cancelled?: boolean }

export type { SweepAxis, SweepCell, SweepProgress, SweepResult } from '../engine/analysis/sweep'

/**
 * `engineApi.sweep`: the grid — partial (`result.complete: false`) after `cancelSweep` — with a
 * `note` when the sweep ran other settings than the page's (an HTTP summarizer replaced by the
 * offline one); or why not (`cancelled` when a newer sweep replaced it).
 */
export type SweepOutcome =
  | { ok: true; result: SweepResult; note?: string }
  | { ok: false; error: string; cancelled?: boolean }

export type { CompactionRework }

/**
 * Result of `EngineApi.getRework`: the re-work after each simulated pass of the last run and each
 * recorded compaction (engine `reworkAfterCompactions`), labelled with the page's `runId`; asked
 * about a recorded view (`RecordedRef`), after each recorded compaction only; or why there is
 * none. Texts in it (a question, a call's arguments) are untrusted: render as text.
 */
export type ReworkOutcome =
  | { ok: true; runId: number; rework: CompactionRework[] }
  | { ok: false; error: string }

/**
 * The figures of one run of a config over the open transcript, for comparing two presets side by
 * side (`EngineApi.compareRun`): context tokens before and after (the config's encoding), the
 * compaction passes, and the facts a pass removed that a later message needed (`neededFacts`, as
 * the sweep's `neededLost`).
 */
export interface RunFigures {
  tokensBefore: number
  tokensAfter: number
  /** The most context one request of the run sends (engine `peakContextTokens`). */
  peakTokens: number
  passes: number
  neededLost: number
}

/**
 * Result of `EngineApi.compareRun`: the figures, with a `note` when it ran other settings than the
 * config's (an HTTP summarizer replaced by the offline one, as a sweep does); or why not (a stage's
 * error as `<stage>: <error>`, `cancelled` when another transcript opened meanwhile).
 */
export type CompareOutcome =
  | { ok: true; figures: RunFigures; note?: string }
  | { ok: false; error: string; cancelled?: boolean }
