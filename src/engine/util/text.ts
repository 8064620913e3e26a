/**
 * Text helpers that every stage shares. Lengths are in Unicode **code points** (as Ruby's
 * `String#length` counts, which the seeds' constants assume), never UTF-16 units.
 * Cuts never split a surrogate pair. Source: SPEC §2 "Lengths used by seed rules".
 */

/** A high surrogate followed by a low one: one code point in two UTF-16 units. */
const SURROGATE_PAIR = /[\uD800-\uDBFF][\uDC00-\uDFFF]/g

/**
 * Number of Unicode code points in `text` (a lone surrogate counts as one): its UTF-16 units less
 * one per surrogate pair, the pairs found by the regex engine (several times faster than a
 * character loop on the 100 KB texts of a long session).
 */
export function codePointLength(text: string): number {
  let pairs = 0
  SURROGATE_PAIR.lastIndex = 0
  while (SURROGATE_PAIR.exec(text) !== null) pairs++
  return text.length - pairs
}

/**
 * The first `limit` code points of `text` (the whole text if shorter). Never ends in the
 * middle of a surrogate pair, so the result is well-formed whenever the input is. A fractional
 * `limit` counts whole code points only (it is floored).
 */
export function cutCodePoints(text: string, limit: number): string {
  limit = Math.floor(limit)
  if (limit <= 0) return ''
  if (text.length <= limit) return text // UTF-16 length ≥ code points: nothing to cut
  let units = 0
  let points = 0
  while (units < text.length && points < limit) {
    const c = text.charCodeAt(units)
    const pair =
      c >= 0xd800 && c <= 0xdbff && units + 1 < text.length &&
      text.charCodeAt(units + 1) >= 0xdc00 && text.charCodeAt(units + 1) <= 0xdfff
    units += pair ? 2 : 1
    points++
  }
  return text.slice(0, units)
}

/** The last `limit` code points of `text`; never starts in the middle of a surrogate pair. */
export function lastCodePoints(text: string, limit: number): string {
  limit = Math.floor(limit)
  if (limit <= 0) return ''
  const total = codePointLength(text)
  if (total <= limit) return text
  return text.slice(cutCodePoints(text, total - limit).length)
}

/**
 * The first line of `text`, trimmed; if that line is empty, the first non-empty line
 * (trimmed); '' when there is none. Source: SPEC §3.1 (seed 000 `summarize`).
 */
export function firstLine(text: string): string {
  const lines = text.split(/\r\n|\n|\r/)
  const first = (lines[0] ?? '').trim()
  if (first) return first
  for (const line of lines) {
    const t = line.trim()
    if (t) return t
  }
  return ''
}

/** Trims and collapses every run of whitespace to one space. Source: seed 001 `text_of`. */
export function collapseWhitespace(text: string): string {
  return text.trim().replace(/\s+/g, ' ')
}

/** Line breaks: CR LF, CR, LF, NEL, and the line and paragraph separators (U+2028, U+2029). */
const LINE_BREAKS = /(?:\r\n|[\r\n\u0085\u2028\u2029])+/g

/**
 * File text made one line for a note or a warning: each run of line breaks (CR LF, CR, LF, NEL,
 * U+2028, U+2029) becomes one space; nothing else changes, so the text never grows. The one way
 * a message puts file text (a header, a log line, a command) on its line unquoted.
 */
export function oneLine(text: string): string {
  return text.replace(LINE_BREAKS, ' ')
}

/** Code points of file content `quoteForMessage` shows before it cuts. */
export const QUOTE_LIMIT = 100

/** The line breaks `JSON.stringify` leaves as they are inside a string. */
const UNESCAPED_BREAKS = /[\u0085\u2028\u2029]/g

/** `text` (JSON) with NEL, U+2028 and U+2029 written as `\u` escapes, as JSON allows. */
function escapeBreaks(text: string): string {
  return text.replace(UNESCAPED_BREAKS, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)
}

/**
 * A value from a file quoted for a one-line message (an import failure, a warning, a note, a CLI
 * error): a string as JSON writes it (`"user"`: quotes, line breaks and control characters
 * escaped), any other value as its JSON text (`undefined`, a missing field, as `null`); NEL,
 * U+2028 and U+2029 are escaped too, so the result is always one line. Past `limit` code points
 * (default `QUOTE_LIMIT`) the value is cut there, ends in `…` and is followed by its whole length:
 * `"aaaa…" (900,000 code points)`, `{"text":"aa… (31 code points of JSON)`. So a message quoting a
 * field stays short whatever the field holds. Never throws: a value JSON cannot write (a BigInt,
 * a cycle, a function) is named by its type (`a bigint`).
 */
export function quoteForMessage(value: unknown, limit = QUOTE_LIMIT): string {
  if (typeof value === 'string') {
    const total = codePointLength(value)
    if (total <= limit) return escapeBreaks(JSON.stringify(value))
    return `${escapeBreaks(JSON.stringify(`${cutCodePoints(value, limit)}…`))} (${total.toLocaleString('en-US')} code points)`
  }
  let text: string | undefined
  try {
    text = JSON.stringify(value === undefined ? null : value) as string | undefined
  } catch {
    text = undefined
  }
  if (text === undefined) return typeof value === 'object' ? 'an object' : `a ${typeof value}`
  const total = codePointLength(text)
  if (total <= limit) return escapeBreaks(text)
  return `${escapeBreaks(cutCodePoints(text, limit))}… (${total.toLocaleString('en-US')} code points of JSON)`
}

/**
 * Code points `elideMiddle` reserves for its marker (`\n[... N chars omitted ...]\n` is
 * 26 + digits(N) code points, so 40 fits any N below 10^14).
 */
export const ELIDE_MARKER_RESERVE = 40

/**
 * Head + tail of `text` with an explicit `[... N chars omitted ...]` marker when it is longer
 * than `limit` code points (N in code points). The result is never longer than `limit` code
 * points: below `ELIDE_MARKER_RESERVE` there is no room for the marker, and the text is just
 * cut to `limit`. Surrogate-safe. Source: cases/46.
 */
export function elideMiddle(text: string, limit: number): string {
  limit = Math.floor(limit)
  const total = codePointLength(text)
  if (total <= limit) return text
  // A marker that does not fit would make the "elided" text longer than the limit, or even
  // than the text itself.
  if (limit < ELIDE_MARKER_RESERVE) return cutCodePoints(text, limit)
  const keep = limit - ELIDE_MARKER_RESERVE
  const head = Math.ceil(keep / 2)
  const tail = keep - head
  const omitted = total - head - tail
  return `${cutCodePoints(text, head)}\n[... ${omitted} chars omitted ...]\n${lastCodePoints(text, tail)}`
}

/**
 * The English noun for a count: `singular` when `n` rounds to 1, else `plural` (default:
 * `singular` + "s"). The one plural rule of the page (`formatCountOf`) and the HTML report.
 */
export function nounFor(n: number, singular: string, plural = `${singular}s`): string {
  return Math.round(n) === 1 ? singular : plural
}
