/*
 * Zip archives among the files a person drops: Inspect AI's `.eval` logs are zips (formats.md
 * §4.9). Reading is fflate's (a maintained, dependency-free zip/deflate library that runs the
 * same in the worker, in Node and in the CLI); this module only lists entries, decompresses the
 * ones asked for, and turns fflate's errors into one-line import errors.
 */
import { strFromU8, unzipSync } from 'fflate'
import { ImportFailure, importResult } from './failure'
import { importInspectEval } from './inspect-ai'
import { parseJson } from './json'
import type { ImportOptions, ImportResult } from './types'

/** One entry of a zip archive's central directory. Sizes in bytes. */
export interface ZipEntry {
  name: string
  /** Uncompressed size (bytes). */
  bytes: number
  /** PKWARE APPNOTE 4.4.5 method: 0 stored, 8 deflate, 93 Zstandard, … */
  compression: number
}

/** A zip archive opened for reading: its entries, and a reader for the ones wanted. */
export interface ZipArchive {
  entries: readonly ZipEntry[]
  /**
   * Decompresses the named entries (names not in the archive are left out of the result).
   * Throws an `ImportFailure` naming the entry when its compression method is not stored or
   * deflate (e.g. Zstandard) or its data is corrupt.
   */
  read(names: readonly string[]): Map<string, Uint8Array>
  /**
   * One entry's bytes as JSON: decoded as UTF-8 (a BOM skipped) and parsed. Throws an
   * `ImportFailure` naming the entry and the line/column of invalid JSON.
   */
  json(name: string, data: Uint8Array): unknown
}

/** Names of compression methods fflate cannot decompress, for the error message. */
const METHOD_NAMES: Readonly<Record<number, string>> = {
  9: 'Deflate64',
  12: 'bzip2',
  14: 'LZMA',
  93: 'Zstandard',
  95: 'xz',
}

/**
 * True when `bytes` open with a zip signature: a local file header (`PK\x03\x04`) or, for an
 * archive without entries, the end-of-central-directory record (`PK\x05\x06`).
 * Source: PKWARE APPNOTE 4.3.7, 4.3.16.
 */
export function isZipArchive(bytes: Uint8Array): boolean {
  return (
    bytes.length >= 4 &&
    bytes[0] === 0x50 &&
    bytes[1] === 0x4b &&
    ((bytes[2] === 0x03 && bytes[3] === 0x04) || (bytes[2] === 0x05 && bytes[3] === 0x06))
  )
}

const reason = (e: unknown) => (e instanceof Error ? e.message : String(e))

/**
 * Largest uncompressed size of one entry read, in bytes (256 MiB): a few hundred KB of deflate
 * can declare gigabytes of spaces (a zip bomb), and an entry's text must fit one string (V8's
 * limit is about 512 MB of UTF-16). Inspect samples are MBs to tens of MBs.
 */
const MAX_ENTRY_BYTES = 256 * 1024 * 1024

const megabytes = (bytes: number) => `${Math.round(bytes / (1024 * 1024)).toLocaleString('en-US')} MB`

/**
 * Opens a zip archive: reads its central directory (nothing is decompressed yet). Throws an
 * `ImportFailure` when the bytes are not a readable zip (truncated, no central directory).
 */
function openZipArchive(bytes: Uint8Array): ZipArchive {
  const entries: ZipEntry[] = []
  try {
    unzipSync(bytes, {
      filter(file) {
        entries.push({ name: file.name, bytes: file.originalSize, compression: file.compression })
        return false
      },
    })
  } catch (e) {
    throw new ImportFailure(`the zip archive cannot be read (${reason(e)}); is it truncated?`)
  }
  const byName = new Map(entries.map((e) => [e.name, e]))
  return {
    entries,
    read(names) {
      const wanted = new Set(names.filter((n) => byName.has(n)))
      for (const name of wanted) {
        const size = byName.get(name)?.bytes ?? 0
        if (size > MAX_ENTRY_BYTES) {
          throw new ImportFailure(
            `${name} is ${megabytes(size)} uncompressed; the limit for one entry is ${megabytes(MAX_ENTRY_BYTES)}`,
            { field: name },
          )
        }
        const method = byName.get(name)?.compression ?? 0
        if (method !== 0 && method !== 8) {
          const label = METHOD_NAMES[method] ?? `method ${method}`
          throw new ImportFailure(
            `${name} is compressed with ${label}, which cannot be read here (only stored and ` +
              'deflate entries)',
            { field: name },
          )
        }
      }
      let out: Record<string, Uint8Array>
      try {
        out = unzipSync(bytes, { filter: (file) => wanted.has(file.name) })
      } catch (e) {
        throw new ImportFailure(`the zip archive cannot be read (${reason(e)})`)
      }
      return new Map(Object.entries(out))
    },
    json: entryJson,
  }
}

/** `ZipArchive.json`. */
function entryJson(name: string, data: Uint8Array): unknown {
  let text = strFromU8(data)
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1)
  const parsed = parseJson(text)
  if (parsed.ok) return parsed.value
  // Valid JSON nested too deep is not "invalid": its reason says what it is.
  if (parsed.tooDeep) throw new ImportFailure(`${name}: ${parsed.reason}`, { field: name })
  const at = parsed.line !== undefined ? ` at line ${parsed.line}, column ${parsed.column}` : ''
  throw new ImportFailure(`${name}: invalid JSON${at}: ${parsed.reason}`, { field: name })
}

/** How many entry names an error about an unknown archive lists. */
const LISTED_ENTRIES = 5

/**
 * Imports a zip archive's bytes (`isZipArchive`): an Inspect AI `.eval` log (formats.md §4.9;
 * `importInspectEval`), with raw records kept (`source.raw`) when `options.keepRaw` says so or,
 * unset, when the entries' uncompressed bytes total at most `rawMaxBytes`. Any other zip is the
 * error "a zip archive without header.json: not an Inspect .eval log", naming its first entries.
 * Unreadable archives and entries (corrupt data, Zstandard or other methods fflate lacks, invalid
 * JSON) are one-line errors naming the entry. Never throws.
 */
export function importZip(
  bytes: Uint8Array,
  options: ImportOptions,
  rawMaxBytes: number,
): ImportResult {
  let archive: ZipArchive
  try {
    archive = openZipArchive(bytes)
  } catch (e) {
    return { ok: false, error: { message: e instanceof ImportFailure ? e.message : reason(e) } }
  }
  const names = new Set(archive.entries.map((e) => e.name))
  if (!names.has('header.json') && !names.has('_journal/start.json')) {
    const listed = archive.entries.slice(0, LISTED_ENTRIES).map((e) => e.name)
    const more = archive.entries.length > LISTED_ENTRIES ? ', …' : ''
    const holds = listed.length > 0 ? ` (it holds ${listed.join(', ')}${more})` : ' (it is empty)'
    return {
      ok: false,
      error: { message: `a zip archive without header.json: not an Inspect .eval log${holds}` },
    }
  }
  const total = archive.entries.reduce((n, e) => n + e.bytes, 0)
  const keepRaw = options.keepRaw ?? total <= rawMaxBytes
  // A zip's contents are an Inspect AI `.eval` log, recognized above by its `header.json` (a
  // finished log) or `_journal/start.json` (one still being written): no detection among the
  // registry's importers, whose containers are texts.
  return importResult(
    () => importInspectEval(archive, { ...options, keepRaw }),
    'Inspect AI eval log (.eval)',
  )
}
