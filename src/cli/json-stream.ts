/**
 * JSON written in pieces: the text of `JSON.stringify(value, null, 2)`, produced as a sequence of
 * chunks so that a `--json` object of hundreds of MB is never one string (V8 caps a string near
 * 512 MB, and the whole text would sit in memory beside the object it was made from).
 */

/** Nesting depth down to which objects and arrays are walked piece by piece; below it a value is one `JSON.stringify`. */
const WALK_DEPTH = 4

/** Characters gathered before a chunk is handed on (cut after its last line feed). */
const CHUNK_CHARS = 1 << 20

/**
 * An array whose elements are made one at a time as the JSON is written: `map` of each element of
 * `source`, in order. The writer never holds more than one mapped element, so a table of a
 * million rows (the decision log with its reasons, the facts) is not built a second time beside
 * the run it comes from. `JSON.stringify` of it is the array of every mapped element (`toJSON`).
 */
export class MappedArray<T> {
  constructor(
    readonly source: readonly T[],
    readonly map: (item: T) => unknown,
  ) {}

  toJSON(): unknown[] {
    return this.source.map(this.map)
  }
}

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
  if (value instanceof MappedArray) {
    const { source, map } = value as MappedArray<unknown>
    yield* arrayPieces(source.length, (i) => map(source[i]), indent, depth)
    return
  }
  if (!walkable(value) || depth >= WALK_DEPTH) {
    const text = JSON.stringify(value, null, 2)
    yield text === undefined ? 'null' : indent === '' ? text : text.replace(/\n/g, `\n${indent}`)
    return
  }
  const inner = `${indent}  `
  if (Array.isArray(value)) {
    yield* arrayPieces(value.length, (i) => value[i], indent, depth)
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

/** The pieces of an array of `length` elements, element `i` being `at(i)` (read once, when written). */
function* arrayPieces(length: number, at: (i: number) => unknown, indent: string, depth: number): Generator<string> {
  if (length === 0) {
    yield '[]'
    return
  }
  const inner = `${indent}  `
  yield '['
  for (let i = 0; i < length; i++) {
    yield `${i > 0 ? ',' : ''}\n${inner}`
    const v = at(i)
    yield* jsonPieces(skipped(v) ? null : v, inner, depth + 1)
  }
  yield `\n${indent}]`
}

/**
 * Writes `JSON.stringify(value, null, 2)` through `out` in chunks of about `CHUNK_CHARS`, each cut
 * after a line feed so that a writer adding a line feed to a text without one (the CLI's) adds it
 * only after the last chunk: the output is the one-string output, byte for byte. Never builds the
 * whole text. When `out` returns false (a stream's buffer is full), waits for `drained` before the
 * next chunk: a reader slower than the writer (a pipe) never makes the output pile up in memory
 * (gigabytes of a million-message run, which Node then refuses to write whole: ENOBUFS).
 */
export async function writeJson(value: unknown, out: (s: string) => unknown, drained?: () => Promise<void>): Promise<void> {
  let buffer = ''
  for (const piece of jsonPieces(value)) {
    buffer += piece
    if (buffer.length < CHUNK_CHARS) continue
    const cut = buffer.lastIndexOf('\n')
    if (cut < 0) continue
    const more = out(buffer.slice(0, cut + 1))
    buffer = buffer.slice(cut + 1)
    if (more === false && drained) await drained()
  }
  out(buffer)
}
