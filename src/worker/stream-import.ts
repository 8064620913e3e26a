/**
 * Importing a File/Blob inside the worker as it streams in, so a large file never holds the page: the
 * main thread hands over the Blob (structured-cloneable, not copied) and never holds its text.
 * JSONL is parsed incrementally with `createJsonlParser` and reports bytes and records; other files
 * are read chunk by chunk with byte progress and then imported whole by `importBytes`.
 */
import { importBytes, importJsonlRecords, RAW_MAX_CHARS, RAW_ONLY_KEYS } from '../engine/formats'
import { createJsonlParser, toJsonlParse } from '../engine/formats/jsonl-stream'
import { looksLikeJsonl } from '../engine/formats/json'
import type { ImportResult } from '../engine/formats/types'
import type { Transcript } from '../engine/model'
import type { ImportProgress } from './protocol'

/** Least time between two progress reports in ms (about ten a second). */
export const PROGRESS_INTERVAL_MS = 100

/**
 * Largest piece handed to the JSONL parser at once: browsers stream files in chunks of MBs, and a
 * report between pieces keeps the bar moving about ten times a second.
 */
const PIECE_BYTES = 256 * 1024

/** Bytes of the head used to decide whether a file without a `.jsonl` name is JSONL. */
const SNIFF_BYTES = 256 * 1024

/**
 * A JSONL file at least this large (bytes) gets a head import (`StreamImportOptions.onHead`):
 * below it the whole import is about as quick as the head's.
 */
export const HEAD_MIN_FILE_BYTES = 2 * 1024 * 1024

/** Records parsed before the head import runs: enough for a screenful of messages and more. */
export const HEAD_RECORDS = 120

/** Injected clock and callbacks, so tests drive the throttle without timers. */
export interface StreamImportOptions {
  onProgress?: (progress: ImportProgress) => void
  /**
   * Called at most once, for a JSONL file of at least `HEAD_MIN_FILE_BYTES`, as soon as
   * `HEAD_RECORDS` records are parsed: the transcript those records alone make (its ids may differ
   * from the full import's), so the first rows can be shown while the rest streams in (BENCH B10).
   */
  onHead?: (head: Transcript) => void
  /**
   * Called for a JSONL file of at least `HEAD_MIN_FILE_BYTES` each time `PART_RECORDS` more records
   * are parsed: the transcript those records alone make (ids and a few texts at a part's edges may
   * differ from the full import's). For work that can start before the import ends, such as
   * counting tokens ahead (BENCH B3); never used for what the page shows.
   */
  onPart?: (part: Transcript) => void
  /**
   * Asked between two pieces of the file: true when a newer import superseded this one, which then
   * cancels its stream and answers `IMPORT_SUPERSEDED` without building anything.
   */
  superseded?: () => boolean
  now?: () => number
}

/** The error message of an import that a newer one superseded (`StreamImportOptions.superseded`). */
export const IMPORT_SUPERSEDED = 'a newer import replaced this one'

/**
 * Longest stretch in ms the read loop runs without letting the worker's queued messages in: reads
 * of a Blob stream resolve as microtasks, so without a pause a newer import (or its abort) would
 * only be heard once the whole file is read.
 */
const YIELD_INTERVAL_MS = 50

/** Records per `StreamImportOptions.onPart` call: a few MB of a Claude Code session. */
export const PART_RECORDS = 600

/** A progress reporter that drops reports closer than `PROGRESS_INTERVAL_MS`, except forced ones. */
function throttled(options: StreamImportOptions) {
  const now = options.now ?? (() => performance.now())
  let last = -Infinity
  return (progress: ImportProgress, force = false) => {
    if (!options.onProgress) return
    const t = now()
    if (!force && t - last < PROGRESS_INTERVAL_MS) return
    last = t
    options.onProgress(progress)
  }
}

/** Whether the head of a file (without a `.jsonl`/`.ndjson` name) is JSONL-looking lines. */
function isJsonl(head: Uint8Array): boolean {
  // UTF-16 files are left to importBytes, which knows their BOMs.
  if ((head[0] === 0xff && head[1] === 0xfe) || (head[0] === 0xfe && head[1] === 0xff)) return false
  const text = new TextDecoder('utf-8').decode(head)
  // Cut at the last newline: a half line would count as a bad one.
  const cut = text.lastIndexOf('\n')
  return cut > 0 && text.trimStart().startsWith('{') && looksLikeJsonl(text.slice(0, cut))
}

/** The first `limit` bytes of a list of chunks joined into one array. */
function concat(chunks: readonly Uint8Array[], limit: number): Uint8Array {
  let total = 0
  for (const c of chunks) total += c.length
  const out = new Uint8Array(Math.min(total, limit))
  let at = 0
  for (const c of chunks) {
    if (at >= out.length) break
    const part = c.length <= out.length - at ? c : c.subarray(0, out.length - at)
    out.set(part, at)
    at += part.length
  }
  return out
}

/**
 * Imports a Blob (a File from the picker or a drop, a fetched sample) by streaming it. JSONL
 * (by name or by its first 256 KB) goes through the incremental parser with `{bytes, records}`
 * progress, and its records are imported by the engine's `importJsonlRecords` (the step the text
 * import uses too); when a sniffed file's records are not a known JSONL format, or the file is one
 * line, the whole file is imported by `importBytes` instead, so results and errors are exactly those
 * of a text import.
 * Progress is throttled to one report per `PROGRESS_INTERVAL_MS`, plus a last `reading` report at
 * 100 % and a `building` report before the transcript is built. The loop pauses for the worker's
 * queued messages at least every `YIELD_INTERVAL_MS` and asks `options.superseded` before each
 * piece: once it says true, the stream is cancelled and the answer is `IMPORT_SUPERSEDED`. Never throws.
 */
export async function importBlob(
  blob: Blob,
  fileName: string,
  options: StreamImportOptions = {},
): Promise<ImportResult> {
  const report = throttled(options)
  const now = options.now ?? (() => performance.now())
  const totalBytes = blob.size
  const superseded = options.superseded ?? (() => false)
  let lastYield = now()
  const pause = async () => {
    lastYield = now()
    await new Promise((resolve) => setTimeout(resolve, 0))
  }
  const stopped: ImportResult = { ok: false, error: { message: IMPORT_SUPERSEDED } }
  const keepRaw = totalBytes <= RAW_MAX_CHARS
  try {
    const reader = blob.stream().getReader()
    const stop = async (): Promise<ImportResult> => {
      await reader.cancel().catch(() => {})
      return stopped
    }
    const chunks: Uint8Array[] = []
    let bytes = 0
    const jsonlName = /\.(jsonl|ndjson)$/i.test(fileName)
    let mode = (jsonlName ? 'jsonl' : 'sniff') as 'sniff' | 'jsonl' | 'whole'
    // Without raw records, keys only `source.raw` would show need not wait for the file's end.
    const parser = createJsonlParser(keepRaw ? {} : { dropKeys: RAW_ONLY_KEYS })
    const decide = (): 'jsonl' | 'whole' => {
      if (!isJsonl(concat(chunks, SNIFF_BYTES))) return 'whole'
      for (const c of chunks) parser.push(c)
      // The parser keeps only records; the fallback re-reads the (immutable) Blob.
      chunks.length = 0
      return 'jsonl'
    }
    let headDone = !options.onHead || totalBytes < HEAD_MIN_FILE_BYTES
    const head = () => {
      headDone = true
      const records = parser.recordsSoFar().slice()
      const imported = importJsonlRecords({ records, bad: [], lines: records.length }, { fileName, keepRaw: false })
      if (imported.ok && imported.transcript.messages.length > 0) options.onHead?.(imported.transcript)
    }
    let partFrom = 0
    const part = () => {
      const all = parser.recordsSoFar()
      const records = all.slice(partFrom)
      partFrom = all.length
      try {
        const imported = importJsonlRecords({ records, bad: [], lines: records.length }, { fileName, keepRaw: false })
        if (imported.ok && imported.transcript.messages.length > 0) options.onPart?.(imported.transcript)
      } catch {
        // A part only lets work start early: whatever goes wrong with it, the import goes on.
      }
    }
    const parts = !!options.onPart && totalBytes >= HEAD_MIN_FILE_BYTES
    report({ phase: 'reading', bytes: 0, totalBytes }, true)
    for (;;) {
      if (now() - lastYield >= YIELD_INTERVAL_MS) await pause()
      if (superseded()) return await stop()
      const { done, value } = await reader.read()
      if (done) break
      if (mode === 'jsonl') {
        for (let at = 0; at < value.length; at += PIECE_BYTES) {
          const piece = value.subarray(at, at + PIECE_BYTES)
          parser.push(piece)
          bytes += piece.length
          const records = parser.progress().records
          report({ phase: 'reading', bytes, totalBytes, records })
          if (!headDone && records >= HEAD_RECORDS) head()
          if (parts && records - partFrom >= PART_RECORDS) {
            part()
            // Let the worker's queued messages in (the pool's answers to counting ahead).
            await pause()
          } else if (now() - lastYield >= YIELD_INTERVAL_MS) await pause()
          if (superseded()) return await stop()
        }
        continue
      }
      bytes += value.length
      chunks.push(value)
      if (mode === 'sniff' && bytes >= SNIFF_BYTES) mode = decide()
      const progress: ImportProgress = { phase: 'reading', bytes, totalBytes }
      if (mode === 'jsonl') progress.records = parser.progress().records
      report(progress)
    }
    if (mode === 'sniff') mode = decide()
    const last: ImportProgress = { phase: 'reading', bytes, totalBytes }
    if (mode === 'jsonl') last.records = parser.progress().records
    report(last, true)
    if (superseded()) return stopped
    if (mode === 'jsonl') {
      const result = parser.end()
      report({ phase: 'building', bytes, totalBytes, records: result.records.length }, true)
      // One line may be a whole JSON document: the text path decides.
      const lone = result.lines <= 1 && !jsonlName
      if (!lone) {
        const imported = importJsonlRecords(toJsonlParse(result), { fileName, keepRaw })
        // A `.jsonl` name gives the text path this very result; a sniffed file may still be one
        // JSON document whose lines all start with `{`, which only the text path tries.
        if (imported.ok || jsonlName) return imported
      }
      return importBytes(new Uint8Array(await blob.arrayBuffer()), { fileName })
    }
    report({ phase: 'building', bytes, totalBytes }, true)
    return importBytes(concat(chunks, bytes), { fileName })
  } catch (e) {
    return {
      ok: false,
      error: { message: `could not read the file: ${e instanceof Error ? e.message : String(e)}` },
    }
  }
}
