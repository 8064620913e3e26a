/*
 * Zip archives among the files a person drops (an Inspect AI `.eval` log, a zipped Cline task
 * folder or OpenCode storage, a chat service's data export): opened as a `FileBundle` that
 * bundle.ts hands to the format whose files it holds. Reading is fflate's (a maintained,
 * dependency-free zip/deflate library that runs the same in the worker, in Node and in the CLI);
 * this module only lists entries, decompresses the ones asked for, and turns fflate's errors into
 * one-line import errors.
 */
import { strFromU8, unzipSync, zipSync } from 'fflate'
import { ImportFailure } from './failure'
import { parseJson } from './json'
import { byteSize, MAX_INPUT_BYTES } from './limits'
import type { BundleEntry, FileBundle } from './types'
import { inputRecord } from '../util/input-record'

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
export const MAX_ENTRY_BYTES = 256 * 1024 * 1024

/**
 * Names of the entries importers read: every format kept in several files writes them as JSON or
 * JSON Lines (an Inspect log's `header.json` and samples, a Cline task's histories, OpenCode's
 * storage, a data export's `conversations.json`); a bundle no format claims is read through them.
 */
const JSON_ENTRY = /\.(jsonl?|ndjson)$/i

/**
 * The bytes `entries` would bring into memory if importers read them all: the sizes of the JSON
 * entries (`JSON_ENTRY`) no larger than `MAX_ENTRY_BYTES` (a larger one is refused on its own,
 * unread, and its sample skipped).
 */
export function readableBytes(entries: readonly BundleEntry[]): number {
  return entries.reduce((n, e) => (JSON_ENTRY.test(e.name) && e.bytes <= MAX_ENTRY_BYTES ? n + e.bytes : n), 0)
}

/**
 * The refusal of an input whose files hold `bytes` in all, over `limit` (`MAX_INPUT_BYTES`):
 * `kind` says what they are (`its JSON entries uncompressed`, `its JSON files`).
 */
export function overBudget(kind: string, bytes: number, limit: number): ImportFailure {
  return new ImportFailure(`${kind} hold ${byteSize(bytes)} in all; the limit for one input is ${byteSize(limit)}`)
}

/**
 * Opens a zip archive as a `FileBundle`: reads its central directory (nothing is decompressed
 * yet). Throws an `ImportFailure` when the bytes are not a readable zip (truncated, no central
 * directory), or when the uncompressed sizes its JSON entries declare (`readableBytes`) add up
 * to more than `maxTotalBytes` (default `MAX_INPUT_BYTES`) — a zip bomb is
 * refused before anything is inflated. Reading then keeps a running count over every `read`:
 * the bytes inflated so far plus each entry's declared size before it is inflated (fflate
 * inflates an entry into a buffer of its declared size, so a size that lies low truncates the
 * entry instead of growing past it); over `maxTotalBytes` → `ImportFailure`.
 */
export function openZipArchive(bytes: Uint8Array, maxTotalBytes = MAX_INPUT_BYTES): FileBundle {
  const entries: BundleEntry[] = []
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
  const declared = readableBytes(entries)
  if (declared > maxTotalBytes) throw overBudget('its JSON entries uncompressed', declared, maxTotalBytes)
  const byName = new Map(entries.map((e) => [e.name, e]))
  /** Bytes inflated by every `read` so far. */
  let inflated = 0
  return {
    entries,
    read(names) {
      const wanted = new Set(names.filter((n) => byName.has(n)))
      for (const name of wanted) {
        const size = byName.get(name)?.bytes ?? 0
        if (size > MAX_ENTRY_BYTES) {
          throw new ImportFailure(
            `${name} is ${byteSize(size)} uncompressed; the limit for one entry is ${byteSize(MAX_ENTRY_BYTES)}`,
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
      let running = inflated
      try {
        out = unzipSync(bytes, {
          filter(file) {
            if (!wanted.has(file.name)) return false
            running += file.originalSize
            if (running > maxTotalBytes) throw overBudget('its entries read uncompressed', running, maxTotalBytes)
            return true
          },
        })
      } catch (e) {
        if (e instanceof ImportFailure) throw e
        throw new ImportFailure(`the zip archive cannot be read (${reason(e)})`)
      }
      for (const data of Object.values(out)) inflated += data.length
      return new Map(Object.entries(out))
    },
    json: entryJson,
    text: entryText,
  }
}

/** `FileBundle.text`: UTF-8, a BOM skipped. */
export function entryText(data: Uint8Array): string {
  const text = strFromU8(data)
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text
}

/** `FileBundle.json`: the entry's text parsed; invalid JSON is an ImportFailure naming it. */
export function entryJson(name: string, data: Uint8Array): unknown {
  const parsed = parseJson(entryText(data))
  if (parsed.ok) return parsed.value
  // Valid JSON nested too deep is not "invalid": its reason says what it is.
  if (parsed.tooDeep) throw new ImportFailure(`${name}: ${parsed.reason}`, { field: name })
  const at = parsed.line !== undefined ? ` at line ${parsed.line}, column ${parsed.column}` : ''
  throw new ImportFailure(`${name}: invalid JSON${at}: ${parsed.reason}`, { field: name })
}


/**
 * Packs files into one zip archive, stored (uncompressed: they are read back at once), so a folder
 * dropped on the page opens like its zip: `files` maps each path (`/`-separated, relative to the
 * folder) to its bytes. The archive's entries keep the map's order.
 */
export function zipFiles(files: ReadonlyMap<string, Uint8Array>): Uint8Array {
  const tree = inputRecord<[Uint8Array, { level: 0 }]>()
  for (const [name, data] of files) tree[name] = [data, { level: 0 }]
  return zipSync(tree)
}
