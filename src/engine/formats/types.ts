import type { FormatId, Transcript } from '../model'

/**
 * A typed import error: one line naming where and why. `line` is 1-based (JSONL line, or the
 * line in a JSON text where parsing failed); `field` a JSON path such as `messages[3].role`.
 */
export interface ImportError {
  message: string
  line?: number
  field?: string
  /** Formats that were tried, for "unknown format" errors. */
  tried?: FormatId[]
  /**
   * Unknown / not-yet-supported format only: `message` without its list of formats tried (e.g.
   * `unknown transcript format: closest match Anthropic Messages: messages[2].content: …`), for a
   * page that shows that list apart (`formats`).
   */
  reason?: string
  /** Unknown / not-yet-supported format only: each importable format and what its files are. */
  formats?: FormatHint[]
}

/** An importable format as an error lists it: its label and what was looked for. */
export interface FormatHint {
  id: FormatId
  label: string
  /** What files of this format look like (the importer's description), one line. */
  lookedFor: string
}

/** Result of an import: never throws at the UI (SPEC §1). */
export type ImportResult = { ok: true; transcript: Transcript } | { ok: false; error: ImportError }
