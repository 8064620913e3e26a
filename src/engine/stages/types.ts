import type { Fate, FormatId, Message, Origin, Pass, StageId, ToolSchema, TriggerDecision } from '../model'
import type { TextCounter } from '../tokens/count'

/**
 * What a summarizer is asked for. `prompt` is the exact text a model would receive
 * (seed 001 `prompt` for `summarize`; the appended instruction for `insert-then-compress`).
 * `slice` is the messages being summarized (for the offline extractive summarizer, which
 * reads structure instead of prose) and `previous` the summary being folded in, if any.
 */
export interface SummaryRequest {
  stage: StageId
  prompt: string
  slice: readonly Message[]
  previous?: string
  /** For `insert-then-compress`: the whole conversation the instruction is appended to. */
  conversation?: readonly Message[]
  /**
   * Filled in by the pipeline, not by stages: the transcript's tool schemas (sent unchanged
   * with an `insert-then-compress` request, so the cached prefix stays byte-identical), its
   * format (which opaque blocks may travel) and the run's cancel signal.
   */
  tools?: readonly ToolSchema[]
  format?: FormatId
  signal?: CancelSignal
}

/** A summarizer: returns the summary text (may be '' — callers treat that as an error). */
export type Summarizer = (request: SummaryRequest) => Promise<string>

/**
 * The part of `AbortSignal` the engine reads (the engine has no DOM types). A real
 * `AbortSignal` also has `addEventListener`, which the HTTP summarizers use to abort a request
 * in flight; a plain `{aborted}` object is only polled between passes.
 */
export interface CancelSignal {
  readonly aborted: boolean
  readonly reason?: unknown
  addEventListener?(type: 'abort', listener: () => void, options?: { once?: boolean }): void
  removeEventListener?(type: 'abort', listener: () => void): void
}

/** Everything a stage may use besides its input. Pure services only (no DOM, no I/O but the summarizer). */
export interface StageContext {
  /** Tokens of one message (cached per content; see tokens/count.ts `countMessageTokens`). */
  countMessage: (message: Message) => number
  /**
   * Tokens every request carries besides its messages (tool schemas + reply priming), so a
   * stage's triggers compare the same total the user sees (cases/28). 0 when omitted.
   */
  fixedTokens?: number
  /** Tokens of one string (cached). */
  countText: TextCounter
  /** The model's context window in tokens (`PipelineConfig.window`); absent: `DEFAULT_WINDOW`. */
  window?: number
  summarize: Summarizer
  /** Aborts a running pipeline (e.g. the user moved a slider again). */
  signal?: CancelSignal
}

/**
 * What a stage returns. Stages never mutate their input; messages they do not touch are
 * passed through by reference with their `id` unchanged; synthesized messages get fresh ids.
 * `fates` is keyed by **input** message id (only those the stage changed or removed);
 * `origins` by **output** message id (only those the stage created or changed).
 * `changed: false` means "no change": `messages` is then the input array itself.
 */
export interface StageOutput {
  messages: Message[]
  changed: boolean
  fates: Record<string, Fate>
  origins: Record<string, Origin>
  passes: Pass[]
  /** What the stage's trigger decided at each check point (stages with a trigger). */
  decisions?: TriggerDecision[]
  /** Why nothing fired ("nothing to compact", "under target", …) or what was refused. */
  note?: string
  /** An error that aborted the stage; the stage's input is passed on unchanged. */
  error?: string
  warnings: string[]
}
