import type { ImportResult } from './types'

/**
 * Imports a transcript from its text, detecting the format. Never throws.
 * STUB: replaced by the importers (issue 2 point 3).
 */
export function importTranscript(_text: string, _options: { fileName?: string } = {}): ImportResult {
  return { ok: false, error: { message: 'importers not built yet' } }
}
