/**
 * The data that crosses the worker boundary (DESIGN §1). Everything here is plain,
 * structured-cloneable data: the worker owns the transcript and the last RunResult, the UI
 * only ever receives these light shapes and asks for full text of the rows it shows.
 */
import type {
  Encoding,
  FormatId,
  Fate,
  MessageFlags,
  Origin,
  Pass,
  PipelineConfig,
  RecordedCompaction,
  Role,
  StageReport,
  TokenTotals,
  ValidityProblem,
} from '../engine/model'
import type { ImportError } from '../engine/formats/types'

/** Which column a row belongs to. */
export type Side = 'before' | 'after'

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
  origin?: Origin
  /** Ids on the other side: for a before row the after row(s) carrying it; for an after row its before id(s). */
  counterpartIds: string[]
}

/** A pass without its (possibly large) prompt. */
export type PassMeta = Omit<Pass, 'prompt'> & {
  /** Length of the prompt in code points (fetch it with `getPassPrompt`). */
  promptLength: number
}

/** What the UI needs from a finished run. */
export interface RunView {
  runId: number
  encoding: Encoding
  before: { rows: RowMeta[]; totals: TokenTotals }
  after: { rows: RowMeta[]; totals: TokenTotals }
  passes: PassMeta[]
  stages: StageReport[]
  checks: { before: ValidityProblem[]; after: ValidityProblem[] }
  warnings: string[]
}

/** What the UI keeps about the loaded transcript. */
export interface TranscriptInfo {
  fileName: string
  format: FormatId
  title?: string
  messageCount: number
  recordedCompactions: RecordedCompaction[]
  warnings: string[]
}

/** Result of an import: never throws across the boundary; on failure the previous transcript stays. */
export type ImportOutcome = { ok: true; info: TranscriptInfo } | { ok: false; error: ImportError }

/** Result of a run: never throws across the boundary. `cancelled` when a newer run superseded it. */
export type RunOutcome =
  | { ok: true; view: RunView }
  | { ok: false; error: string; cancelled?: boolean }

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
}

export type { PipelineConfig }
