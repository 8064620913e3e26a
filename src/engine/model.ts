/**
 * The canonical transcript model and the engine's result types.
 *
 * Every importer normalizes to these shapes (SPEC §1); every stage reads and writes them
 * (SPEC §3); the UI only renders them (SPEC §4). All values are plain, structured-cloneable
 * data: no classes, no Maps, no functions — they cross the worker boundary unchanged.
 */
import type { FormatId } from './formats/registry'
import type { StageId, StageParams } from './stages/definitions'
import type { Calibration } from './usage/calibration-terms'

/** A message role in the canonical model. `developer` imports as `system`. Source: SPEC §1. */
export type Role = 'system' | 'user' | 'assistant' | 'tool'

/** A text part (used inside `Part[]` content when a message also carries non-text parts). */
interface TextPart {
  type: 'text'
  text: string
}

/**
 * An image part. `data` is never tokenized as text: images count a flat estimate
 * (`IMAGE_TOKENS` in tokens/count.ts). `bytes` is the size of the encoded payload in bytes
 * (base64 length × 3/4 for data URLs), for display only.
 */
export interface ImagePart {
  type: 'image'
  mediaType?: string
  /** data: URL, https URL, or a file id; kept for export, never shown as text. */
  url?: string
  bytes?: number
}

/**
 * A thinking / redacted-thinking / reasoning block: opaque, kept byte-identical, never cut.
 * `text` is the readable thinking (counted as text); `signature`/`data`/`encrypted` are opaque
 * and counted by their length in UTF-8 bytes / 4 (documented in tokens/count.ts).
 */
export interface ThinkingPart {
  type: 'thinking'
  variant: 'thinking' | 'redacted_thinking' | 'reasoning'
  text?: string
  signature?: string
  /** redacted_thinking `data` or reasoning `encrypted_content`. */
  encrypted?: string
}

/** Any other block (documents, server-tool blocks, unknown types): kept as raw JSON, opaque. */
interface OpaquePart {
  type: 'opaque'
  /** The source block's own `type`, e.g. `document`, `server_tool_use`. */
  kind: string
  raw: unknown
}

/** A content part. Text-only content is a plain string instead (SPEC §1). */
export type Part = TextPart | ImagePart | ThinkingPart | OpaquePart

/** A tool call made by an assistant message. `arguments` is the raw JSON text (may be invalid JSON). */
export interface ToolCall {
  /** The provider's call id (`tool_call_id` / `tool_use.id` / `call_id`). */
  id: string
  name: string
  arguments: string
  /** Set when the source wrote the call as something other than its plain function call. */
  native?: NativeToolCall
}

/**
 * A tool call as the source wrote it, when that is not the format's plain function call, kept
 * so export can write it back unchanged. Source: formats.md §4.2 "Items", §4.3 "Blocks".
 */
interface NativeToolCall {
  /**
   * The block's or item's `type`: `server_tool_use` / `mcp_tool_use` (Anthropic), `mcp_call`,
   * `web_search_call`, `file_search_call`, `code_interpreter_call`, `image_generation_call`,
   * `computer_call` (Responses).
   */
  kind: string
  /** The call block or item, untouched. */
  raw: unknown
  /**
   * The provider ran the tool itself and its result came back in the model's own output (the
   * same assistant message, or the same Responses item); the importer puts that result in a
   * `tool` message right after the call's message.
   */
  hosted?: true
  /**
   * The result block or item, untouched, when its shape is not the format's plain tool result
   * (Anthropic `web_search_tool_result`, `mcp_tool_result`, …; Responses `computer_call_output`).
   */
  result?: unknown
}

/** Where a message came from, for "show original". `line` is 1-based (JSONL line or JSON array item). */
export interface SourceRef {
  format: FormatId
  line?: number
  /** The original record(s), untouched. Omitted for large inputs to save memory. */
  raw?: unknown
}

/** Non-semantic markers an importer sets on a message (e.g. Claude Code `isMeta`). */
export interface MessageFlags {
  /** Injected by the agent, not typed by the human (Claude Code `isMeta`, `<system-reminder>`, Codex env context). */
  injected?: boolean
  /** A slash-command echo or local command output (Claude Code `<command-name>`). */
  command?: boolean
  /** The agent's own recorded compaction summary (Claude Code `isCompactSummary`). */
  compactSummary?: boolean
  /** A synthetic error record (Claude Code `isApiErrorMessage`). */
  apiError?: boolean
}

/** One message of the canonical model. Source: SPEC §1. */
export interface Message {
  /** Source id (uuid, item id) or `m<index>`. Unique within a transcript. */
  id: string
  /** Position in the imported transcript, 0-based. */
  index: number
  role: Role
  /** Text-only content is a string; anything with images, thinking or opaque blocks is `Part[]`. */
  content: string | Part[] | null
  /** Assistant only. */
  toolCalls?: ToolCall[]
  /** Tool only: the call this result answers (`tool_call_id`). */
  toolCallId?: string
  /** Tool only: resolved from the call. */
  toolName?: string
  /** Tool only. */
  isError?: boolean
  flags?: MessageFlags
  source: SourceRef
}

/**
 * Identifiers of the importable formats, derived from the format registry (each importer's `id`):
 * registering an importer adds its id, no list here to keep in step.
 */
export type { FormatId }

/**
 * A compaction that already happened inside the source (Claude Code `compact_boundary` +
 * `isCompactSummary`, Codex `compacted`, Responses `compaction` items). Source: SPEC §1,
 * design/formats.md §3 "Recorded compaction".
 */
export interface RecordedCompaction {
  /** Id of the message the boundary sits before (the first message after compaction), if any. */
  atMessageId?: string
  /** Index in `Transcript.messages` of the first message after the boundary. */
  atIndex: number
  trigger?: 'auto' | 'manual' | string
  /** Tokens as the agent recorded them (its own tokenizer). */
  tokensBefore?: number
  tokensAfter?: number
  /** Readable summary text; null when encrypted/opaque. */
  summaryText: string | null
  /**
   * Id of the message holding the summary or the compaction marker in `messages`, if it is one
   * (Claude Code `isCompactSummary` record, a Responses `compaction` item, a LangChain summary
   * message). recorded.ts places it right after what the agent kept.
   */
  summaryMessageId?: string
  /**
   * Ids of messages before the boundary that the agent kept verbatim in its context (Responses
   * compact output: the user messages; OpenHands: events not forgotten). When absent, recorded.ts
   * uses the format's default (Responses: every user message before the boundary; others: only the
   * leading system messages).
   */
  keptMessageIds?: string[]
  /**
   * Codex `replacement_history`: the model-visible history right after the compaction, as
   * canonical messages (ids unique within the transcript, `index` = position in this list). When
   * present, recorded.ts uses it as the kept context instead of guessing. Source: formats.md §4.5.
   */
  replacementHistory?: Message[]
  source: FormatId
}

/**
 * The usage one API request of the agent recorded: what the agent itself counted, in its own
 * model's tokenizer. Ground truth for the context the agent sent (usage/calibration.ts fits our
 * counts to it). One entry per API response, in file order. Sources: formats-more.md §10.6
 * (Claude Code `message.usage`, one response per `message.id`, `output_tokens` the max over its
 * records, `<synthetic>` records skipped), §11 (Codex `token_count.info.last_token_usage`),
 * formats.md §4.6 (Gemini CLI per-message `tokens`), formats-more.md (Copilot CLI, Inspect).
 */
export interface RequestUsage {
  /** Id of the first message the response produced (the request's context is what came before it). */
  atMessageId: string
  /** Index in `Transcript.messages` of that message. */
  atIndex: number
  /**
   * Tokens of the context the agent sent with the request (input side, the agent's tokenizer):
   * Anthropic `input_tokens + cache_creation_input_tokens + cache_read_input_tokens`; OpenAI /
   * Codex `input_tokens` (cached tokens are a part of it); Gemini `input` / `promptTokenCount`.
   */
  context: number
  /** Output tokens of the response (thinking included), when recorded. */
  output?: number
  /** The model's context window the file records with the request (Codex `model_context_window`). */
  window?: number
}

/**
 * Tool results the agent cleared from its context in place, without a summary (Claude Code
 * `microcompact_boundary`: `microcompactMetadata{trigger, preTokens, tokensSaved,
 * compactedToolIds[]}`): from `atIndex` on, each listed result is sent as `placeholder`. Not a
 * `RecordedCompaction` (nothing was summarized); the context walk (analysis/recorded.ts) and so
 * the calibration count it. Source: formats.md §4.4 (`microcompact_boundary`), agent-presets.md
 * (placeholder `[Old tool result content cleared]`).
 */
export interface ClearedToolResults {
  /** Index in `Transcript.messages` of the first message after the boundary. */
  atIndex: number
  /** The `tool_call_id`s whose results were cleared. */
  toolCallIds: string[]
  trigger?: string
  /** The agent's figures (its tokenizer): context before, tokens the clearing saved. */
  tokensBefore?: number
  tokensSaved?: number
  /** What each cleared result reads as afterwards. */
  placeholder: string
}

/** A tool schema sent with the request (counts as non-compactable overhead). */
export interface ToolSchema {
  name: string
  description?: string
  /** JSON schema of the parameters, as in the source. */
  parameters?: unknown
}

/** An imported transcript. Source: SPEC §1. */
export interface Transcript {
  format: FormatId
  title?: string
  /**
   * The conversation's own id in its source, when it names one (a ChatGPT export's
   * `conversation_id`, a claude.ai `uuid`, an OpenCode session id, a Cline task folder's name, a
   * Claude Code `sessionId` or a sub-agent's `agentId`); the CLI's `--conversation ID` finds a
   * conversation by it.
   */
  conversationId?: string
  messages: Message[]
  recordedCompactions: RecordedCompaction[]
  /** Human-readable import warnings, each naming the line/field and the reason (skipped lines etc.). */
  warnings: string[]
  /**
   * What the import noticed that is not a problem, one sentence each: the file's other
   * conversations, a tool's own log that is not a message (aider's startup banner and console
   * output). Shown apart from the warnings; never part of a message, a prompt or the facts.
   */
  notes?: string[]
  /** Tool schemas sent with every request (request bodies only); part of the overhead. */
  tools?: ToolSchema[]
  /**
   * The model the source names (a request body's `model`, the last assistant record's model in a
   * session log), when it names one. Exports put it into request bodies (export.ts).
   */
  model?: string
  /**
   * The usage the source records per API request, in file order (`RequestUsage`); absent when the
   * format or the file records none. Never summed across records of one response.
   */
  usage?: RequestUsage[]
  /** Tool results the agent cleared in place (`ClearedToolResults`), in file order. */
  clearedToolResults?: ClearedToolResults[]
  /**
   * The agent and its version as the source names them (Claude Code record `version`, Codex
   * `session_meta.cli_version`, Gemini CLI / Copilot CLI version fields), e.g. `2.1.37`. Presets
   * whose trigger moved between versions read it (presets.ts).
   */
  agentVersion?: string
  /**
   * Forks not on the main line (Claude Code edits/retries: a record with several children). The
   * main line is the branch holding the last leaf; each other branch is summarized here.
   */
  branches?: TranscriptBranch[]
  /**
   * Sub-agent conversations (Claude Code `isSidechain:true` records, grouped by `agentId` or by
   * sidechain root), each its own transcript with the same format — or, with `sidechainKind`
   * `conversation`, the file's other conversations (an export's, a log's samples).
   */
  sidechains?: Transcript[]
  /**
   * What `sidechains` are: `conversation` when they are the file's other conversations
   * (`withConversations`: a data export, an eval log's samples, several sessions of one folder);
   * absent for sub-agents.
   */
  sidechainKind?: 'conversation' 
  /**
   * The file is one API response (the model's reply), not a conversation: the request's messages
   * are not in it (the importer warns). The checker does not report what belongs to the absent
   * request (`checkOptionsFor`).
   */
  responseOnly?: true
}

/** A fork that is not on the transcript's main line. Source: formats.md §1 item 10. */
export interface TranscriptBranch {
  /** Id of the branch's first record (Claude Code uuid). */
  id: string
  /** Id of the main-line (or parent-branch) message it forks from; null when it forks at the root. */
  fromMessageId: string | null
  /** Messages on the branch (from its first record to its newest leaf). */
  messageCount: number
  /** First text of the branch, at most 120 code points, for a picker. */
  firstText: string
}

// ---------------------------------------------------------------------------
// Stages, pipeline and provenance (SPEC §3, §4)
// ---------------------------------------------------------------------------

/** Identifiers of the compaction stages (their one definition: stages/definitions.ts). */
export type { StageId }

/**
 * Who produced a fate or an origin: a simulated stage, or `recorded` — the compaction the agent
 * itself performed and recorded in the source (recorded.ts), shown in the same shape.
 */
export type ProvenanceStage = StageId | 'recorded'

/** Params of `dedupe`: none (the constants are seed 000's). Derived from stages/definitions.ts. */
export type DedupeParams = StageParams<'dedupe'>

/**
 * Params of `prune-tool-results` (seed 002; `exclude_tools` / `clear_at_least` /
 * `keep_tool_uses`: Anthropic context editing `clear_tool_uses`). Token values are tokens of the
 * chosen encoding. Derived from stages/definitions.ts, where each param's meaning is written.
 */
export type PruneParams = StageParams<'prune-tool-results'>

/** Params of `summarize` (seed 001). Counts are messages. Derived from stages/definitions.ts. */
export type SummarizeParams = StageParams<'summarize'>

/** Params of `insert-then-compress` (seed 003). Derived from stages/definitions.ts. */
export type InsertThenCompressParams = StageParams<'insert-then-compress'>

/** Params of `pin-facts` (seed 004, SPEC §3.5). Derived from stages/definitions.ts. */
export type PinFactsParams = StageParams<'pin-facts'>

/** Params of `slim` (seed 004 `slim(result, keep=5)`). Derived from stages/definitions.ts. */
export type SlimParams = StageParams<'slim'>

/** One stage of a pipeline: enabled flag and its params (typed by its definition). */
export type StageConfig = {
  [K in StageId]: { id: K; enabled: boolean; params: StageParams<K> }
}[StageId]

/** Encodings the token counter supports. Source: SPEC §2. */
export type Encoding = 'o200k_base' | 'cl100k_base'

/** The summarizer used by `summarize` and `insert-then-compress`. `extractive` is the offline default. */
export type SummarizerId = 'extractive' | 'openai-compatible' | 'anthropic' | 'recorded'

/**
 * Settings of an HTTP summarizer (`openai-compatible`, `anthropic`) that may be stored, shared
 * and exported. Never the API key: it travels only in the run's dependencies. Source: SPEC §3.6.
 */
export interface SummarizerSettings {
  /** e.g. `http://localhost:11434/v1` (Ollama), `https://api.anthropic.com`. */
  baseUrl: string
  model: string
  /** Stream the answer (server-sent events). Default true. */
  stream?: boolean
  /** Answer cap in tokens (Anthropic requires one; default 4096 there, none for OpenAI). */
  maxTokens?: number
}

/** The whole pipeline configuration (not the transcript). Stages run in array order. */
export interface PipelineConfig {
  stages: StageConfig[]
  encoding: Encoding
  /**
   * The model's context window in tokens, what a token trigger's share is of (`trigger_share`,
   * `trigger_reserve`). Absent: `DEFAULT_WINDOW` (models.ts). A setting of the environment, like
   * the encoding, not of a stage.
   */
  window?: number
  summarizer: SummarizerId
  /** For `openai-compatible` / `anthropic`: endpoint and model (no key). */
  summarizerOptions?: SummarizerSettings
  /**
   * How the context's tokens are made the agent's (usage/calibration.ts `calibrationFor`).
   * Absent: `auto`. A setting of the environment, like the encoding.
   */
  calibration?: CalibrationSetting
}

/**
 * The calibration setting: `auto` fits our counts to the file's recorded usage (else applies the
 * chosen agent preset's documented overhead), `manual` takes `overhead` (tokens per request) and
 * `ratio` (the agent's tokens per token of ours) as set, `off` keeps the encoding's raw counts.
 */
export interface CalibrationSetting {
  mode: 'auto' | 'manual' | 'off'
  /** `manual`: tokens every request carries that the file does not show (≥ 0). */
  overhead?: number
  /** `manual`: the agent's tokens per token of ours (0.5–2.5). */
  ratio?: number
  /**
   * Set by an agent preset (presets.ts): the overhead its agent documents for what every request
   * carries (system prompt, tool schemas), used by `auto` when the file records no usage.
   */
  agentOverhead?: { tokens: number; source: string }
}

/** What became of a message of the **before** transcript. Source: SPEC §4. */
export type Fate =
  | { kind: 'kept'; changed: false }
  | { kind: 'back-referenced'; stage: StageId; firstId: string }
  | { kind: 'pruned'; stage: StageId; placeholder: string }
  /** `stage: 'recorded'` for the agent's own recorded compaction (pass = its 1-based number). */
  | { kind: 'summarized'; stage: ProvenanceStage; pass: number; summaryId: string }
  | { kind: 'slimmed'; stage: StageId }
  /** Removed outright; `stage: 'pipeline'` for the send-ready cleanup of empty messages (cases/34). */
  | { kind: 'dropped'; stage: StageId | 'pipeline'; reason: string }

/** Where a message of the **after** transcript came from. Source: SPEC §4. */
export type Origin =
  | { kind: 'original'; beforeId: string; changed: boolean }
  | { kind: 'back-reference'; beforeId: string; firstId: string; stage: StageId }
  | { kind: 'placeholder'; beforeId: string; stage: StageId }
  | {
      kind: 'summary'
      /** `recorded` for the agent's own recorded summary (recorded.ts). */
      stage: ProvenanceStage
      pass: number
      /** Before-transcript indices covered, inclusive `from` … `to`. */
      fromIndex: number
      toIndex: number
      coveredIds: string[]
    }
  | { kind: 'pinned-facts'; stage: StageId; sourceIds: string[] }
  /** `recorded`: context the agent re-injected after its own compaction (Codex initial context). */
  | { kind: 'instruction'; stage: ProvenanceStage }

/** One firing of a summarizing stage. Source: SPEC §3.2 rolling replay. */
export interface Pass {
  /** 1-based pass number within its stage (for `recorded`: the compaction's number in the file). */
  pass: number
  /** The stage that fired, or `recorded`: a compaction the agent performed and the file records. */
  stage: ProvenanceStage
  /** Index (in the before transcript) of the turn end at which the pass fired. */
  atMessage: number
  /** Plan boundaries, before-transcript indices: messages `from`..`upto-1` were summarized. */
  from: number
  upto: number
  /**
   * The exact prompt sent to the summarizer. A stage may define it as a getter that renders it
   * when read (summarize does: a long replay's prompts are not kept); copy a pass with
   * `copyPass`, which keeps the getter, not with a spread, which renders it.
   */
  readonly prompt: string
  summary: string
  summaryId: string
  /** Context tokens just before and just after this pass. */
  tokensBefore: number
  tokensAfter: number
  /**
   * Before-transcript indices inside `from`..`upto-1` that the pass kept verbatim instead of
   * summarizing (`keep_user_only`: the user messages it kept, Codex). Absent: none.
   */
  kept?: number[]
  /** What moved the pass's boundary away from the plain rule (a tool call kept with its results). */
  note?: string
  /**
   * Why the pass made the context larger (`tokensAfter > tokensBefore`), worded by the stage;
   * absent when it did not (the same text as its decision's `grew`).
   */
  grew?: string
}

/**
 * A shallow copy of `pass` that keeps its accessors (a lazily rendered `prompt` stays lazy);
 * a spread would read every getter once and keep the strings.
 */
export function copyPass(pass: Pass): Pass {
  return Object.defineProperties({}, Object.getOwnPropertyDescriptors(pass)) as Pass
}

/**
 * What a stage's trigger saw and decided at one check point (a turn end, or before a model
 * request): the decision log. Plain data; `describeDecision` (stages/triggers.ts) words it.
 * Source: the agents' triggers in agent-presets.md; seed 001 `plan` for the message trigger.
 */
export interface TriggerDecision {
  stage: StageId
  /** 1-based turn holding the check point (`turnEnds`, analysis/turns.ts). */
  turn: number
  /** `Message.index` of the last message the check saw (before-transcript position). */
  atMessage: number
  /** Context tokens at the check: messages in context + tool schemas + reply priming. */
  tokens: number
  /** Messages not yet summarized at the check (what `compact_after` counts). */
  unsummarized: number
  /** What the trigger compares: context tokens, or unsummarized messages. */
  measure: 'tokens' | 'messages'
  /** The level it compares with (tokens or messages, by `measure`). */
  threshold: number
  /** How it compares: `≥` (tokens reach the level) or `>` (more than `compact_after`; over `target`). */
  op: '≥' | '>'
  /** How the threshold was derived, e.g. `200,000 window − 33,000 reserve`, `compact_after 40`. */
  thresholdSource: string
  /** The trigger condition held (tokens ≥ threshold; messages > compact_after). */
  reached: boolean
  /** The stage compacted here (a pass for summarize; a pruning for prune). */
  fired: boolean
  /** The pass it made, when `fired` and the stage makes passes. */
  pass?: number
  /** Context tokens right after the pass, when it fired. */
  tokensAfter?: number
  /** When the pass made the context larger (`tokensAfter > tokens`): why, worded by the stage. */
  grew?: string
  /**
   * Why a reached trigger made no pass: the plan could not move the boundary, or a guard
   * (`min_progress`, `refuse_larger`) refused it — worded by the stage.
   */
  held?: string
}

/**
 * A failure-mode warning on a run (failure-modes.ts): goal drift, over-compression, double
 * compression, fabricated summary. Source: SPEC §3.5, seed 004 "failure modes".
 */
export interface FailureModeWarning {
  rule: 'goal-drift' | 'over-compression' | 'double-compression' | 'fabricated-summary'
  message: string
  /**
   * For an over-compression warning about facts a pass removed that a later message needed
   * (facts/needed.ts): how many such facts it names; absent on every other warning.
   */
  neededFacts?: number
  /**
   * With `neededFacts`: the texts of those facts, in fact order (the totals line names the first
   * ones, `neededText`); absent on every other warning.
   */
  neededFactTexts?: string[]
  /** The messages involved: before ids of the sources, after ids of the summary/pinned block. */
  messageIds: string[]
}

/** A problem the validity checker found. Source: SPEC §5. */
export interface ValidityProblem {
  rule:
    | 'orphan-tool-result'
    | 'missing-tool-result'
    | 'result-not-adjacent'
    | 'first-not-user'
    | 'empty-message'
    | 'duplicate-system-prompt'
    | 'duplicate-tool-call-id'
    | 'stale-thinking'
  /** The messages involved (ids). */
  messageIds: string[]
  message: string
}

/** What one stage did. `changed: false` means "no change" (SPEC §3.3), not an identical copy. */
export interface StageReport {
  stage: StageId
  changed: boolean
  tokensBefore: number
  tokensAfter: number
  messagesBefore: number
  messagesAfter: number
  /** Why nothing fired, or the error that aborted the stage (the stage's input is kept). */
  note?: string
  error?: string
}

/** Token totals; `overhead` = system prompt + tool schemas, not compactable (cases/28). */
export interface TokenTotals {
  messages: number
  tokens: number
  overheadTokens: number
  /** Set when a count summed here is an estimate (a run counted in chunks, tokens/count.ts). */
  estimate?: true
}

/** One side (Before or After) of a run: its messages, their totals and per-message tokens. */
interface RunSide {
  messages: Message[]
  totals: TokenTotals
  tokensById: Record<string, number>
  /**
   * Messages whose count is an estimate, by id: the length in UTF-16 code units of the longest
   * run counted in chunks (`chunkedRunLength`, tokens/count.ts). Absent when every count is exact.
   */
  estimateById?: Record<string, number>
}

/** The result of running a pipeline over a transcript. Plain data. */
export interface RunResult {
  /**
   * The calibration every token figure of the run is counted with (usage/calibration.ts); absent
   * on results built elsewhere, which count raw.
   */
  calibration?: Calibration
  before: RunSide
  after: RunSide
  /** Keyed by before-message id. */
  fates: Record<string, Fate>
  /** Keyed by after-message id. */
  origins: Record<string, Origin>
  passes: Pass[]
  /**
   * The decision log: every check point of every enabled stage that has a trigger, in stage
   * order then message order. Optional so results built elsewhere (recorded views) stay valid.
   */
  decisions?: TriggerDecision[]
  stages: StageReport[]
  /**
   * `failureModes`: the seed 004 failure-mode warnings (failure-modes.ts), set by `runPipeline`;
   * optional so results built elsewhere (recorded views) stay valid.
   */
  checks: {
    before: ValidityProblem[]
    after: ValidityProblem[]
    failureModes?: FailureModeWarning[]
  }
  warnings: string[]
  /**
   * What the send-ready cleanup removed after the stages (pipeline.ts: messages left empty,
   * which providers reject, dropped once any stage changed the context or found it over budget):
   * messages dropped and their tokens. Absent when it removed nothing. Source: cases/34.
   */
  cleanup?: { messages: number; tokens: number }
}
