/**
 * Incremental JSONL parsing: the worker pushes the file as it streams in and reports progress
 * (bytes and records) between chunks, instead of holding the page until the whole text is split.
 * Pure: no I/O, no timers. Source: formats.md §1 item 13; SPEC §6 (progress bar for large files).
 */
import type { JsonlParse, JsonlRecord } from './json'
import { badJsonlLine, parseJson } from './json'

/** What `end()` returns: the good records in file order and one warning per skipped line. */
export interface JsonlStreamResult {
  records: JsonlRecord[]
  /** Each names the 1-based line and the reason (same wording as `parseJsonl`). */
  warnings: string[]
  /** Non-empty lines seen. */
  lines: number
  /** UTF-8 bytes consumed (BOM excluded). */
  bytes: number
}

/** Progress so far: UTF-8 bytes of the complete lines consumed, and records parsed from them. */
interface JsonlProgress {
  bytes: number
  records: number
}

/** An incremental JSONL parser (see `createJsonlParser`). */
export interface JsonlParser {
  /** Feeds the next chunk: text, or raw bytes decoded as UTF-8 in streaming mode. */
  push(chunk: string | Uint8Array): void
  /** Flushes the last line (a bad one is "half-written", never fatal) and returns everything. */
  end(): JsonlStreamResult
  progress(): JsonlProgress
  /**
   * The good records parsed so far, in file order (a live view: read it, do not keep or change
   * it). For a first look at a file's head while the rest still streams in (BENCH B10).
   */
  recordsSoFar(): readonly JsonlRecord[]
}

/** Options of `createJsonlParser`. */
export interface JsonlParserOptions {
  /**
   * Top-level keys deleted from every record as soon as its line is parsed, so they are not held
   * until the file ends. Only for keys that no detector or importer reads (`RAW_ONLY_KEYS`) and
   * only when messages will not keep their records in `source.raw`: the transcript is then the
   * same with or without them.
   */
  dropKeys?: readonly string[]
}

/** The part of the WHATWG `TextDecoder` used here (the engine's tsconfig has no DOM types). */
interface StreamDecoder {
  decode(bytes?: Uint8Array, options?: { stream?: boolean }): string
}
type StreamDecoderConstructor = new (
  label: string,
  options?: { fatal?: boolean; ignoreBOM?: boolean },
) => StreamDecoder

/**
 * UTF-8 length of a string in bytes: a surrogate pair is 4, a lone surrogate 3 (it is encoded as
 * U+FFFD), other code units 1–3. One pass, no allocation.
 */
export function utf8Length(text: string): number {
  let n = 0
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c < 0x80) n += 1
    else if (c < 0x800) n += 2
    else if (c >= 0xd800 && c <= 0xdbff) {
      const d = text.charCodeAt(i + 1)
      if (d >= 0xdc00 && d <= 0xdfff) {
        n += 4
        i++
      } else n += 3
    } else n += 3
  }
  return n
}

/** True when `text` has only JSON whitespace; stops at the first other character (no copy). */
function isBlank(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c !== 32 && c !== 9 && c !== 10 && c !== 13) return false
  }
  return true
}

/**
 * Creates an incremental JSONL parser. Lines end at `\n` only: raw U+2028/U+2029 are legal
 * inside JSON strings and stay in their line; a trailing `\r` is dropped (CRLF); a leading BOM
 * (U+FEFF, or EF BB BF bytes) is skipped; blank lines are skipped. A chunk may end anywhere —
 * mid-line, between the two halves of a surrogate pair, or (bytes) mid-UTF-8 sequence: the
 * unfinished line is kept as a list of pieces and joined once when its `\n` arrives, so a line of
 * many megabytes (base64 images) costs one join, not quadratic concatenation, and nothing
 * scans a whole line except `JSON.parse`. Each line parses alone: an invalid line or a non-object
 * is skipped with a warning naming its 1-based line (`badJsonlLine`); a cut-off last line
 * without a final newline is reported as half-written (the agent may still be appending). Lone
 * surrogate escapes (`\ud83d`) parse as JSON allows. `options.dropKeys` are deleted from each
 * record as it is parsed. Never throws. Source: formats.md §1 item 13.
 */
export function createJsonlParser(options: JsonlParserOptions = {}): JsonlParser {
  const dropKeys = options.dropKeys ?? []
  const records: JsonlRecord[] = []
  const warnings: string[] = []
  let pieces: string[] = []
  let line = 0
  let lines = 0
  let bytes = 0
  let started = false
  let decoder: StreamDecoder | undefined
  // Byte input: bytes are counted on the bytes themselves (0x0A never occurs inside a UTF-8
  // sequence), not re-encoded from the text.
  let pushedBytes = 0
  const head: number[] = []
  const bomBytes = () => (head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf ? 3 : 0)

  const finishLine = (raw: string, last: boolean) => {
    line++
    // Bytes of the line plus its `\n` (the last line has none).
    if (!decoder) bytes += utf8Length(raw) + (last ? 0 : 1)
    const text = raw.endsWith('\r') ? raw.slice(0, -1) : raw
    if (isBlank(text)) return
    lines++
    const parsed = parseJson(text)
    if (!parsed.ok) {
      warnings.push(badJsonlLine(line, parsed, last))
      return
    }
    const value = parsed.value
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      warnings.push(`line ${line}: not a JSON object, skipped`)
      return
    }
    const record = value as Record<string, unknown>
    for (const key of dropKeys) if (Object.prototype.hasOwnProperty.call(record, key)) delete record[key]
    records.push({ line, value: record })
  }

  const pushText = (chunk: string) => {
    let text = chunk
    if (!started) {
      if (text === '') return
      started = true
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1)
    }
    let from = 0
    for (let nl = text.indexOf('\n'); nl !== -1; nl = text.indexOf('\n', from)) {
      const tail = text.slice(from, nl)
      const raw = pieces.length === 0 ? tail : pieces.join('') + tail
      pieces = []
      finishLine(raw, false)
      from = nl + 1
    }
    if (from < text.length) pieces.push(from === 0 ? text : text.slice(from))
  }

  return {
    push(chunk) {
      if (typeof chunk === 'string') {
        pushText(chunk)
        return
      }
      if (!decoder) {
        const Decoder = (globalThis as unknown as { TextDecoder?: StreamDecoderConstructor })
          .TextDecoder
        if (!Decoder) {
          warnings.push('this runtime has no TextDecoder: bytes could not be read')
          return
        }
        // The BOM is kept by the decoder and skipped once by pushText.
        decoder = new Decoder('utf-8', { ignoreBOM: true })
      }
      // The first three bytes decide whether a BOM is there (chunks may split it).
      for (let i = 0; i < chunk.length && head.length < 3; i++) head.push(chunk[i] as number)
      const nl = chunk.lastIndexOf(10)
      if (nl >= 0) bytes = pushedBytes + nl + 1 - bomBytes()
      pushedBytes += chunk.length
      pushText(decoder.decode(chunk, { stream: true }))
    },
    end() {
      if (decoder) {
        pushText(decoder.decode())
        bytes = pushedBytes - bomBytes()
      }
      if (pieces.length > 0) {
        const raw = pieces.join('')
        pieces = []
        finishLine(raw, true)
      }
      return { records, warnings, lines, bytes }
    },
    progress() {
      return { bytes, records: records.length }
    },
    recordsSoFar() {
      return records
    },
  }
}

/** The streamed result in the shape `parseJsonl` gives (for importers taking a `JsonlParse`). */
export function toJsonlParse(result: JsonlStreamResult): JsonlParse {
  return { records: result.records, bad: result.warnings, lines: result.lines }
}
