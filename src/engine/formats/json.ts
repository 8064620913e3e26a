import { findTooDeep, MAX_NESTING, mayNestTooDeep, type TooDeep } from '../util/nesting'
import type { ImportError } from './types'

/**
 * Result of parsing one JSON text: the value, or where and why it failed. `truncated`: the text
 * ends before the JSON value does (a cut-off file or a half-written line); `line`/`column` then
 * point just after the last non-whitespace character — the last real line, never one past it.
 */
export type JsonParse =
  | { ok: true; value: unknown }
  | {
      ok: false
      reason: string
      line?: number
      column?: number
      truncated?: boolean
      /** Set when the text parsed but nests deeper than `MAX_NESTING` (see `findTooDeep`). */
      tooDeep?: TooDeep
    }

/** `20005` → `20,005`. */
function grouped(n: number): string {
  return String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ',')
}

/**
 * The words for a too-deep value: `nests 20,005 levels deep at messages[2].content…; the limit is
 * 1,000` (`more than 1,000,000 levels` when counting stopped).
 */
export function tooDeepReason(deep: TooDeep): string {
  const levels = deep.capped ? `more than ${grouped(deep.depth)}` : grouped(deep.depth)
  const where = deep.path === '' ? '' : ` at ${deep.path}`
  return `nests ${levels} levels deep${where}; the limit is ${grouped(MAX_NESTING)}`
}

/**
 * 1-based line and column of a UTF-16 offset in `text` (lines end at `\n`; a `\r` before it is part
 * of the line, so CRLF files give the same line numbers as LF files).
 */
export function lineColumnAt(text: string, offset: number): { line: number; column: number } {
  let line = 1
  let lineStart = 0
  const end = Math.min(offset, text.length)
  for (let i = text.indexOf('\n'); i !== -1 && i < end; i = text.indexOf('\n', i + 1)) {
    line++
    lineStart = i + 1
  }
  return { line, column: end - lineStart + 1 }
}

/**
 * The reason of a `JSON.parse` error without engine noise: V8 appends `in JSON at position N` or
 * `(line L column C)`, newer V8 quotes a snippet of the input, Firefox prefixes `JSON.parse:`. The
 * snippet can be huge or private, so it is dropped; the result is one line of at most 100
 * characters.
 */
function cleanReason(message: string): string {
  const reason = message
    .replace(/^JSON\.parse:\s*/, '')
    .replace(/,\s*(?:\.\.\.)?".*" is not valid JSON$/s, '')
    .replace(/\s*in JSON at position \d+.*$/s, '')
    .replace(/\s*\(line \d+ column \d+\)$/, '')
    .replace(/\s*at line \d+ column \d+ of the JSON data$/, '')
    // Messages to the page and the CLI are one line, whatever the engine quoted.
    .replace(/\s+/g, ' ')
    .trim()
  return reason.length > 100 ? `${reason.slice(0, 99)}…` : reason || 'invalid JSON'
}

/** UTF-16 offset just after the last non-whitespace character of `text` (0 when all blank). */
function contentEnd(text: string): number {
  let end = text.length
  for (let c = text.charCodeAt(end - 1); c === 32 || c === 9 || c === 10 || c === 13; )
    c = text.charCodeAt(--end - 1)
  return end
}

/** Engine wordings of "the input ended inside a value" (V8, Firefox, Safari). */
const END_OF_INPUT = /unexpected end|end of data|unexpected EOF/i

/**
 * Parses JSON without throwing. On failure gives the engine's reason and the 1-based line and
 * column in `text`: from the engine when it reports them (V8: `position N` or `line L column C`;
 * Firefox: `line L column C`), else from `locateJsonError`. A text that ends inside its value
 * (the error sits at or past the last non-whitespace character, or the engine says the input
 * ended) is `truncated`, placed just after its last non-whitespace character. A text that parses
 * but nests deeper than `MAX_NESTING` fails with `tooDeep` set (reason from `tooDeepReason`).
 */
export function parseJson(text: string): JsonParse {
  try {
    const value: unknown = JSON.parse(text)
    const deep = mayNestTooDeep(text) ? findTooDeep(value) : undefined
    if (deep) return { ok: false, reason: tooDeepReason(deep), tooDeep: deep }
    return { ok: true, value }
  } catch (e) {
    const message = e instanceof Error ? e.message : String(e)
    const reason = cleanReason(message)
    const end = contentEnd(text)
    const lc = /line (\d+) column (\d+)/.exec(message)
    const pos = /at position (\d+)/.exec(message)
    // Newer V8 ("Unexpected token 'x', \"…\" is not valid JSON") and Safari give no position.
    const offset = pos ? Number(pos[1]) : lc ? undefined : locateJsonError(text)
    if (END_OF_INPUT.test(message) || (offset !== undefined && offset >= end))
      return { ok: false, reason, truncated: true, ...lineColumnAt(text, end) }
    if (lc) return { ok: false, reason, line: Number(lc[1]), column: Number(lc[2]) }
    if (offset !== undefined) return { ok: false, reason, ...lineColumnAt(text, offset) }
    return { ok: false, reason }
  }
}

const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y

/**
 * UTF-16 offset of the first JSON syntax error in `text` (RFC 8259 grammar), or undefined when the
 * text is valid or nests deeper than `MAX_NESTING` before its error (the scan recurses once a level
 * and stops there). Used only after `JSON.parse` failed without saying
 * where, so its cost (one pass) is paid only for broken files.
 */
export function locateJsonError(text: string): number | undefined {
  let i = 0
  const fail = (): never => {
    throw new JsonErrorAt(i)
  }
  const ws = () => {
    for (
      let c = text.charCodeAt(i);
      c === 32 || c === 9 || c === 10 || c === 13;
      c = text.charCodeAt(++i)
    );
  }
  const string = () => {
    i++
    for (;;) {
      if (i >= text.length) fail()
      const c = text.charCodeAt(i)
      if (c === 34) {
        i++
        return
      }
      if (c < 0x20) fail()
      if (c === 92) {
        const e = text[i + 1] ?? ''
        if (e === 'u') {
          if (!/^[0-9a-fA-F]{4}$/.test(text.slice(i + 2, i + 6))) {
            i += 2
            fail()
          }
          i += 6
        } else if ('"\\/bfnrt'.includes(e) && e !== '') i += 2
        else {
          i++
          fail()
        }
      } else i++
    }
  }
  const value = (depth: number): void => {
    ws()
    const c = text[i]
    if ((c === '{' || c === '[') && depth >= MAX_NESTING) throw new TooDeepToScan()
    if (c === '{') {
      i++
      ws()
      if (text[i] === '}') {
        i++
        return
      }
      for (;;) {
        ws()
        if (text[i] !== '"') fail()
        string()
        ws()
        if (text[i] !== ':') fail()
        i++
        value(depth + 1)
        ws()
        if (text[i] === ',') i++
        else if (text[i] === '}') {
          i++
          return
        } else fail()
      }
    }
    if (c === '[') {
      i++
      ws()
      if (text[i] === ']') {
        i++
        return
      }
      for (;;) {
        value(depth + 1)
        ws()
        if (text[i] === ',') i++
        else if (text[i] === ']') {
          i++
          return
        } else fail()
      }
    }
    if (c === '"') return string()
    for (const word of ['true', 'false', 'null']) {
      if (text.startsWith(word, i)) {
        i += word.length
        return
      }
      // `tru` at the very end: the text stops inside the literal.
      if (i < text.length && word.startsWith(text.slice(i))) {
        i = text.length
        fail()
      }
    }
    NUMBER.lastIndex = i
    if (NUMBER.test(text)) {
      i = NUMBER.lastIndex
      return
    }
    fail()
  }
  try {
    value(0)
    ws()
    if (i < text.length) fail()
    return undefined
  } catch (e) {
    return e instanceof JsonErrorAt ? e.offset : undefined
  }
}

class JsonErrorAt {
  constructor(readonly offset: number) {}
}

/** Thrown by `locateJsonError` where the text opens a value past `MAX_NESTING` levels. */
class TooDeepToScan {}

/** One parsed JSONL record with its 1-based line number. */
export interface JsonlRecord {
  line: number
  value: Record<string, unknown>
}

/** The good records of a JSONL text plus one warning per skipped line. */
export interface JsonlParse {
  records: JsonlRecord[]
  /** Each names the 1-based line and the reason, e.g. `line 7: invalid JSON (…), skipped`. */
  bad: string[]
  /** Non-empty lines seen. */
  lines: number
}

/**
 * The warning for a JSONL line that does not parse (shared by `parseJsonl` and the streaming
 * parser, so both word it alike). A last line without a final newline that ends inside its value
 * is half-written — the agent may still be appending to a live session (formats.md §1 item 13) —
 * and says so; another line cut short says after which column it ends; any other error keeps the
 * engine's reason and its exact column. `line` is 1-based; columns are UTF-16 units.
 */
export function badJsonlLine(
  line: number,
  parsed: Extract<JsonParse, { ok: false }>,
  last: boolean,
): string {
  if (parsed.tooDeep) return `line ${line}: this line ${parsed.reason}, skipped`
  if (parsed.truncated && last)
    return (
      `line ${line}: half-written last line (it ends unexpectedly; the session may still be ` +
      'being written), skipped'
    )
  // `column` is just past the last character: name the last one there is.
  if (parsed.truncated && parsed.column !== undefined)
    return (
      `line ${line}: invalid JSON (the line ends unexpectedly after column ` +
      `${parsed.column - 1}), skipped`
    )
  const at = parsed.column ? ` at column ${parsed.column}` : ''
  return `line ${line}: invalid JSON (${parsed.reason}${at}), skipped`
}

/**
 * Splits JSONL on `\n` only (raw U+2028/U+2029 inside strings are legal JSON and stay in their
 * line), drops a trailing `\r` (CRLF files), skips blank lines, and parses each line alone so one
 * bad line never aborts the import. A cut-off last line without a final newline is reported as
 * half-written (the agent may still be appending); see `badJsonlLine`. Lines that parse to a
 * non-object are bad too. Source: formats.md §1 item 13.
 */
export function parseJsonl(text: string): JsonlParse {
  const records: JsonlRecord[] = []
  const bad: string[] = []
  let lines = 0
  const parts = text.split('\n')
  const endsWithNewline = text.endsWith('\n')
  for (let i = 0; i < parts.length; i++) {
    let raw = parts[i] as string
    if (raw.endsWith('\r')) raw = raw.slice(0, -1)
    if (raw.trim() === '') continue
    lines++
    const line = i + 1
    const parsed = parseJson(raw)
    if (!parsed.ok) {
      bad.push(badJsonlLine(line, parsed, i === parts.length - 1 && !endsWithNewline))
      continue
    }
    const value = parsed.value
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      bad.push(`line ${line}: not a JSON object, skipped`)
      continue
    }
    records.push({ line, value: value as Record<string, unknown> })
  }
  return { records, bad, lines }
}

/**
 * Whether a text that failed to parse as one JSON document is JSONL: at least two non-empty lines,
 * and among the first 50 either every one starts with `{` at column 1 (pretty-printed JSON indents
 * its inner objects) or at least half parse as JSON objects on their own.
 */
export function looksLikeJsonl(text: string): boolean {
  const sample: string[] = []
  let from = 0
  while (sample.length < 50 && from <= text.length) {
    let to = text.indexOf('\n', from)
    if (to === -1) to = text.length
    const line = text.slice(from, to)
    if (line.trim() !== '') sample.push(line)
    from = to + 1
  }
  if (sample.length < 2) return false
  if (sample.every((l) => l.startsWith('{'))) return true
  const objects = sample.filter((l) => {
    const p = parseJson(l)
    return p.ok && typeof p.value === 'object' && p.value !== null && !Array.isArray(p.value)
  }).length
  return objects * 2 >= sample.length
}

/**
 * The `ImportError` for a JSON text that does not parse: a cut-off text says so and names its last
 * real line ("the file ends unexpectedly at line 125 — is it truncated?"); any other syntax error
 * names its exact line and column and the engine's reason. `line` is set for both. A text nested
 * too deep says how deep and where (`this file nests 20,005 levels deep at messages[2]…; the limit
 * is 1,000`, `field` the path).
 */
export function jsonError(parsed: Extract<JsonParse, { ok: false }>): ImportError {
  if (parsed.tooDeep) {
    const error: ImportError = { message: `this file ${parsed.reason}` }
    if (parsed.tooDeep.path !== '') error.field = parsed.tooDeep.path.replace(/…$/, '')
    return error
  }
  if (parsed.truncated && parsed.line !== undefined) {
    return {
      message: `the file ends unexpectedly at line ${parsed.line} — is it truncated?`,
      line: parsed.line,
    }
  }
  const where = parsed.line !== undefined ? ` at line ${parsed.line}, column ${parsed.column}` : ''
  const error: ImportError = { message: `invalid JSON${where}: ${parsed.reason}` }
  if (parsed.line !== undefined) error.line = parsed.line
  return error
}
