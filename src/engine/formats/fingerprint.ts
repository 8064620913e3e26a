/**
 * A transcript's fingerprint: a short name for its content that a settings link carries, so the
 * page that opens the link can tell whether it shows the transcript the link was made on. It
 * reveals nothing of the text (a truncated SHA-256) and ignores the file name.
 */
import type { Transcript } from '../model'
import { sha256Hex } from '../util/hash'

/** Hex digits of a fingerprint (48 bits of the SHA-256). */
const FINGERPRINT_LENGTH = 12

/** A string of `FINGERPRINT_LENGTH` lowercase hex digits: a fingerprint as a link carries it. */
export const FINGERPRINT_PATTERN = /^[0-9a-f]{12}$/

/**
 * The fingerprint of an imported transcript: the first `FINGERPRINT_LENGTH` hex digits of the
 * SHA-256 of its canonical JSON (the whole file's transcript: main line, forks, sub-agents,
 * recorded compactions, import warnings). The same file opened by picker, drop, paste or as a
 * sample gives the same fingerprint; any change to a message gives another.
 */
export function transcriptFingerprint(transcript: Transcript): string {
  return sha256Hex(JSON.stringify(transcript)).slice(0, FINGERPRINT_LENGTH)
}
