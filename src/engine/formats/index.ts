/*
 * The formats' one public entry: the rest of the app imports importing, the supported formats and
 * each format's request format from here, never from an importer module or the registry.
 */
import { failureText } from '../failure-text'
import type { FormatId } from '../model'
import { detectFormat } from './detect'
import { ImportFailure, runImporter } from './failure'
import { importJsonlRecords } from './jsonl-import'
import { binaryLookAlikeMessage } from './look-alikes'
import { formatsInOrder } from './registry'
import type { FileBundle, ImportOptions, ImportResult } from './types'
import { importBundle } from './bundle'
import { isZipArchive, openZipArchive } from './zip'

export type { ImportOptions, ImportResult, RequestFormat } from './types'
export { importJsonlRecords } from './jsonl-import'
export { requestFormatOf } from './registry'

/** One importable format, for pickers and the sample gallery. */
export interface SupportedFormat {
  id: FormatId
  label: string
  /** What files of this format look like. */
  description: string
  /** Typical file extensions, with the dot. */
  extensions: string[]
}

const DEFAULT_EXTENSIONS: Record<'json' | 'jsonl' | 'text', string[]> = {
  json: ['.json'],
  jsonl: ['.jsonl'],
  text: ['.md'],
}

/**
 * The formats `importTranscript` imports, in detection order: one entry per registered importer
 * (registry.ts). Source: design/formats.md §4.
 */
export const SUPPORTED_FORMATS: readonly SupportedFormat[] = supportedFormats()

/** One entry per format id, its extensions those of all its importers (JSON + JSONL). */
function supportedFormats(): SupportedFormat[] {
  return formatsInOrder().map(({ id, importers }) => {
    const first = importers[0]
    const extensions = importers.flatMap(
      (imp) => imp.extensions ?? DEFAULT_EXTENSIONS[imp.container],
    )
    return {
      id,
      label: first.label,
      description: first.description ?? first.label,
      extensions: [...new Set(extensions)],
    }
  })
}

/**
 * Above this many UTF-16 units of input, messages do not keep their original records in
 * `source.raw`: for a 50 MB session the raw records (with Claude Code's duplicated `toolUseResult`
 * payloads) would double the worker's memory.
 */
export const RAW_MAX_CHARS = 8_000_000

/**
 * Top-level JSONL record keys that no detector or importer reads: only `source.raw` keeps them.
 * Claude Code's `toolUseResult` repeats each tool's output in a structured shape (formats.md §1
 * item 8: Bash `stdout`, Read `file.content`, Edit the whole `originalFile`): about 40 % of the
 * bench's generated sessions. A streamed import that keeps no raw records (above `RAW_MAX_CHARS`)
 * drops them as each line is parsed instead of holding them until the file ends (BENCH B6).
 */
export const RAW_ONLY_KEYS: readonly string[] = ['toolUseResult']

/** Share of U+FFFD in the first 64 Ki characters above which a text is treated as binary. */
const REPLACEMENT_CHAR_RATIO = 0.05

/**
 * Whether a decoded text is really a binary file: a NUL character (never valid raw in JSON or
 * Markdown) or many U+FFFD replacement characters (bytes that were not UTF-8) in its first 64 Ki
 * characters.
 */
export function looksBinary(text: string): boolean {
  const sample = text.length > 65536 ? text.slice(0, 65536) : text
  if (sample.includes('\u0000')) return true
  let replaced = 0
  for (let i = 0; i < sample.length; i++) if (sample.charCodeAt(i) === 0xfffd) replaced++
  return replaced >= 4 && replaced / sample.length > REPLACEMENT_CHAR_RATIO
}

function fail(message: string, extra: { line?: number; field?: string } = {}): ImportResult {
  return { ok: false, error: { message, ...extra } }
}

/**
 * Imports a transcript from its text, detecting the format (design/formats.md §2) among the
 * registered importers (registry.ts `FORMAT_IMPORTERS`). A BOM is
 * stripped; CRLF is accepted. Never throws and never modifies its input: every failure is an
 * `ImportError` with a one-line message naming the line/field and the reason — the file is empty;
 * looks like a binary file; invalid JSON at line L, column C; unknown or not yet supported format
 * (with `tried`); no JSONL line readable; no messages found. Partial imports list what was skipped
 * in `transcript.warnings`. Message ids are unique and `index` is the position. Source: SPEC §1.
 */
export function importTranscript(text: string, options: ImportOptions = {}): ImportResult {
  try {
    const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text
    if (body.trim() === '') return fail('the file is empty')
    if (looksBinary(body)) return fail(binaryLookAlikeMessage(body) ?? 'this looks like a binary file, not a transcript')
    const detection = detectFormat(body, options)
    if (!detection.ok) return { ok: false, error: detection.error }
    const keepRaw = body.length <= RAW_MAX_CHARS
    // JSONL (and a lone JSONL record) goes through the step the worker's streamed import uses too.
    if (detection.jsonl) return importJsonlRecords(detection.jsonl, { ...options, keepRaw })
    return runImporter(detection.importer, detection.input, { ...options, keepRaw })
  } catch (e) {
    // A bug in an importer must still reach the page as a message, not an exception.
    return fail(`import failed: ${failureText(e)}`)
  }
}

/**
 * Imports several files as one input (`kind` names it: `zip archive`, `folder`): read by the
 * format whose files it holds (`importBundle`: an Inspect `.eval`, a Cline task folder, OpenCode
 * storage, a data export's `conversations.json`), raw records kept up to `RAW_MAX_CHARS`
 * bytes in all. An unreadable entry is a one-line error naming it. Never throws.
 */
export function importFileBundle(bundle: FileBundle, kind: string, options: ImportOptions = {}): ImportResult {
  return bundleResult(() => importBundle(bundle, kind, options, RAW_MAX_CHARS, importTranscript))
}

/** A zip archive's bytes imported as a `FileBundle` (`importFileBundle`). Never throws. */
function importZipBytes(bytes: Uint8Array, options: ImportOptions): ImportResult {
  return bundleResult(() => importFileBundle(openZipArchive(bytes), 'zip archive', options))
}

/** Runs a bundle's import; an `ImportFailure` (an unreadable archive or entry) or a bug becomes a one-line error. */
function bundleResult(run: () => ImportResult): ImportResult {
  try {
    return run()
  } catch (e) {
    if (e instanceof ImportFailure) return fail(e.message, e.field ? { field: e.field } : {})
    return fail(`import failed: ${failureText(e)}`)
  }
}

/** The part of the WHATWG `TextDecoder` the engine uses (its tsconfig has no DOM types). */
interface Utf8Decoder {
  decode(bytes: Uint8Array): string
}
type DecoderConstructor = new (
  label: string,
  options?: { fatal?: boolean; ignoreBOM?: boolean },
) => Utf8Decoder

/**
 * Decodes file bytes and imports them: a zip archive (by its `PK` signature, whatever the file's
 * name) is read by `importZipBytes`; UTF-16 files are recognized by their BOM, everything else is decoded as
 * UTF-8 (invalid sequences become U+FFFD, which the binary check counts). A gzip/NUL-bearing file
 * gives "looks like a binary file". Never throws.
 */
export function importBytes(bytes: Uint8Array, options: ImportOptions = {}): ImportResult {
  if (bytes.length === 0) return fail('the file is empty')
  if (isZipArchive(bytes)) return importZipBytes(bytes, options)
  const Decoder = (globalThis as unknown as { TextDecoder?: DecoderConstructor }).TextDecoder
  if (!Decoder) return fail('import failed: this runtime has no TextDecoder')
  let label = 'utf-8'
  if (bytes[0] === 0xff && bytes[1] === 0xfe) label = 'utf-16le'
  else if (bytes[0] === 0xfe && bytes[1] === 0xff) label = 'utf-16be'
  let text: string
  try {
    // The BOM is kept (ignoreBOM) and stripped once by importTranscript.
    text = new Decoder(label, { ignoreBOM: true }).decode(bytes)
  } catch (e) {
    return fail(`could not decode the file as text: ${e instanceof Error ? e.message : String(e)}`)
  }
  return importTranscript(text, options)
}
