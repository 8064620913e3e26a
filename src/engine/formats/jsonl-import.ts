/**
 * The one "which JSONL importer reads these records" step, shared by the whole-text import
 * (`importTranscript`) and the worker's streamed import (records from `createJsonlParser`), so a
 * file gives the same transcript, warnings and errors whichever way it was read.
 */
import { detectJsonl } from './detect'
import { runImporter } from './failure'
import type { JsonlParse } from './json'
import type { ImportOptions, ImportResult } from './types'
import { capWarnings } from './util'

/**
 * Imports parsed JSONL: detects the format of the good records among the registered JSONL
 * importers (formats.md §2), runs that importer, and puts the skipped lines (`jsonl.bad`, at
 * most 20 then a count) before the importer's own warnings. Errors are `ImportError`s: no
 * readable line, unknown format (with `tried`), or the importer's own. Never throws; never
 * modifies the records. Source: formats.md §1 item 13.
 */
export function importJsonlRecords(jsonl: JsonlParse, options: ImportOptions = {}): ImportResult {
  const detection = detectJsonl(jsonl)
  if (!detection.ok) return { ok: false, error: detection.error }
  const result = runImporter(detection.importer, jsonl.records, options)
  if (!result.ok || jsonl.bad.length === 0) return result
  const warnings = [...capWarnings(jsonl.bad), ...result.transcript.warnings]
  return { ok: true, transcript: { ...result.transcript, warnings } }
}
