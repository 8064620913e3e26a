/**
 * Text helpers that every stage shares. Lengths are in Unicode **code points** (as Ruby's
 * `String#length` counts, which the seeds' constants assume), never UTF-16 units.
 * Cuts never split a surrogate pair. Source: SPEC §2 "Lengths used by seed rules".
 */

/** Number of Unicode code points in `text` (a lone surrogate counts as one). */
export function codePointLength(text: string): number {
  let n = 0
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    // A high surrogate followed by a low surrogate is one code point.
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
      const d = text.charCodeAt(i + 1)
      if (d >= 0xdc00 && d <= 0xdfff) i++
    }
    n++
  }
  return n
}

/**
 * The first `limit` code points of `text` (the whole text if shorter). Never ends in the
 * middle of a surrogate pair, so the result is well-formed whenever the input is.
 */
export function cutCodePoints(text: string, limit: number): string {
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

/**
 * Head + tail of `text` with an explicit `[... N chars omitted ...]` marker when it is longer
 * than `limit` code points (N in code points). Surrogate-safe. Source: cases/46.
 */
export function elideMiddle(text: string, limit: number): string {
  const total = codePointLength(text)
  if (total <= limit) return text
  const keep = Math.max(0, limit - 40)
  const head = Math.ceil(keep / 2)
  const tail = keep - head
  const omitted = total - head - tail
  return `${cutCodePoints(text, head)}\n[... ${omitted} chars omitted ...]\n${lastCodePoints(text, tail)}`
}
