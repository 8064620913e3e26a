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
}

/** Result of an import: never throws at the UI (SPEC §1). */
export type ImportResult = { ok: true; transcript: Transcript } | { ok: false; error: ImportError }
