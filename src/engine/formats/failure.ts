/*
 * The one error convention of importers: `importParsed` throws an `ImportFailure`, and
 * `runImporter` turns what it throws into an `ImportResult`. A leaf module (types only besides):
 * importer files import it without a cycle through the registry (which imports them).
 */
import type { Transcript } from '../model'
import type { FormatImporter, ImportError, ImportOptions, ImportResult } from './types'
import { isObject } from './util'

/** An ImportError-shaped value an importer throws from `importParsed`. */
export class ImportFailure {
  readonly message: string
  readonly line?: number
  readonly field?: string
  constructor(message: string, extra: { line?: number; field?: string } = {}) {
    this.message = message
    if (extra.line !== undefined) this.line = extra.line
    if (extra.field !== undefined) this.field = extra.field
  }
}

/** Throws an `ImportFailure` (for `importParsed`): one-line reason plus line/field. */
export function importFailure(
  message: string,
  extra: { line?: number; field?: string } = {},
): never {
  throw new ImportFailure(message, extra)
}

/**
 * Runs an import and turns whatever it throws into an `ImportResult`: an `ImportFailure` (or any
 * ImportError-shaped throw) keeps its message/line/field; any other exception (a bug) becomes
 * `import failed: …`. A transcript without messages is the error `no messages found (<label>)`,
 * never an empty transcript. Never throws.
 */
export function importResult(run: () => Transcript, label: string): ImportResult {
  try {
    const transcript = run()
    if (transcript.messages.length === 0) {
      return { ok: false, error: { message: `no messages found (${label})` } }
    }
    return { ok: true, transcript }
  } catch (e) {
    const shaped = isObject(e) && !(e instanceof Error) && typeof e.message === 'string'
    if (e instanceof ImportFailure || shaped) {
      const error: ImportError = { message: String(e.message) }
      if (typeof e.line === 'number') error.line = e.line
      if (typeof e.field === 'string') error.field = e.field
      return { ok: false, error }
    }
    return {
      ok: false,
      error: { message: `import failed: ${e instanceof Error ? e.message : String(e)}` },
    }
  }
}

/** Runs one importer on its parsed input (`importResult` with the importer's label). */
export function runImporter(
  importer: FormatImporter,
  input: unknown,
  options: ImportOptions,
): ImportResult {
  return importResult(() => importer.importParsed(input, options), importer.label)
}
