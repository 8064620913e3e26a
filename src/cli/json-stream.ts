/**
 * JSON written in pieces: the text of `JSON.stringify(value, null, 2)`, produced as a sequence of
 * chunks so that a `--json` object of hundreds of MB is never one string (V8 caps a string near
 * 512 MB, and the whole text would sit in memory beside the object it was made from).
 */

/** Nesting depth down to which objects and arrays are walked piece by piece; below it a value is one `JSON.stringify`. */
const WALK_DEPTH = 4

/** Characters gathered before a chunk is handed on (cut after its last line feed). */
const CHUNK_CHARS = 1 << 20

/** Whether `v` is walked member by member: an array, or an object without `toJSON` (a Date has one). */
function walkable(v: unknown): v is Record<string, unknown> | unknown[] {
  return typeof v === 'object' && v !== null && typeof (v as { toJSON?: unknown }).toJSON !== 'function'
}

/** Whether `JSON.stringify` leaves an object member with this value out. */
function skipped(v: unknown): boolean {
  return v === undefined || typeof v === 'function' || typeof v === 'symbol'
}

/**
 * The pieces of `JSON.stringify(value, null, 2)` in order; their concatenation is that text,
 * character for character (members `JSON.stringify` leaves out are left out, `undefined` in an
 * array is `null`). `indent`: the indentation of the line `value` starts on.
 */
export function* jsonPieces(value: unknown, indent = '', depth = 0): Generator<string> {
  if (!walkable(value) || depth >= WALK_DEPTH) {
    const text = JSON.stringify(value, null, 2)
    yield text === undefined ? 'null' : indent === '' ? text : text.replace(/\n/g, `\n${indent}`)
    return
  }
  const inner = `${indent}  `
  if (Array.isArray(value)) {
    if (value.length === 0) {
      yield '[]'
      return
    }
    yield '['
    for (let i = 0; i < value.length; i++) {
      yield `${i > 0 ? ',' : ''}\n${inner}`
      const v = value[i]
      yield* jsonPieces(skipped(v) ? null : v, inner, depth + 1)
    }
    yield `\n${indent}]`
    return
  }
  let first = true
  for (const key of Object.keys(value)) {
    const v = value[key]
    if (skipped(v)) continue
    yield `${first ? '{' : ','}\n${inner}${JSON.stringify(key)}: `
    first = false
    yield* jsonPieces(v, inner, depth + 1)
  }
  yield first ? '{}' : `\n${indent}}`
}

/**
 * Writes `JSON.stringify(value, null, 2)` through `out` in chunks of about `CHUNK_CHARS`, each cut
 * after a line feed so that a writer adding a line feed to a text without one (the CLI's) adds it
 * only after the last chunk: the output is the one-string output, byte for byte. Never builds the
 * whole text.
 */
export function writeJson(value: unknown, out: (s: string) => void): void {
  let buffer = ''
  for (const piece of jsonPieces(value)) {
    buffer += piece
    if (buffer.length < CHUNK_CHARS) continue
    const cut = buffer.lastIndexOf('\n')
    if (cut < 0) continue
    out(buffer.slice(0, cut + 1))
    buffer = buffer.slice(cut + 1)
  }
  out(buffer)
}
