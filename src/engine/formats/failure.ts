/*
 * The error importers throw from `FormatImporter.importParsed`. A leaf module: importer files
 * import it without a cycle through the registry (which imports them).
 */

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
