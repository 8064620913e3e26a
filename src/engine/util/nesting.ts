/**
 * The one nesting limit for values read from text a user controls (a file, a JSONL line, a YAML
 * document, and JSON inside a string: tool-call arguments, tool output, a log record's text).
 * Every walk over such a value (the engine's own recursive walks, `JSON.stringify`,
 * `structuredClone`, the `yaml` library) recurses once or more per level, so a value nested
 * deeper than the limit is never built: a file or line is refused in one line naming where, and
 * JSON inside a string stays the text it was (`parseJsonWithin`). All scans here are iterative,
 * so any depth is safe to measure.
 */

/**
 * Deepest nesting of arrays and objects a parsed value may have (the root counts 1): every
 * recursive walk over a parsed value is then safe from stack overflow. Real transcripts nest a few
 * dozen levels; 1,000 leaves room for any tool's JSON output and refuses only generated or
 * hostile input.
 */
export const MAX_NESTING = 1000

/**
 * Deepest nesting of collections a YAML document may have before the `yaml` package composes
 * it. That package composes and converts recursively at about 18 stack frames a level, so a Web
 * Worker's stack (about three quarters of Node's) holds some 580 of its levels; a quarter of
 * `MAX_NESTING` leaves room for the frames around it. YAML transcripts (SWE-agent
 * demonstrations) nest under ten.
 */
export const MAX_YAML_NESTING = MAX_NESTING / 4

/** Past this depth `findTooDeep` stops counting and reports "more than" it. */
const NESTING_COUNT_CAP = 1_000_000

/**
 * A value nested deeper than `MAX_NESTING`: `depth` is the number of nested arrays/objects on
 * its deepest path (the root counts 1), `capped` when counting stopped (`depth` is then
 * `NESTING_COUNT_CAP` and the real depth is larger); `path` is where the limit is crossed,
 * shortened to its first few steps (`messages[2].content[0].content…`; empty for the root).
 */
export interface TooDeep {
  depth: number
  capped: boolean
  path: string
}

/** A walk frame: one array or object and the next child to visit. */
interface DepthFrame {
  value: object
  keys: string[] | undefined
  next: number
  /** The key or index this value has in its parent (undefined for the root). */
  at: string | number | undefined
}

/** Steps of a too-deep path that are named; the rest is shown as `…`. */
const PATH_STEPS = 8

/** `messages[2].content` from frames' keys (first `PATH_STEPS`, then `…`). */
function framePath(frames: DepthFrame[]): string {
  let out = ''
  let steps = 0
  for (const f of frames) {
    if (f.at === undefined) continue
    if (++steps > PATH_STEPS) return `${out}…`
    out += typeof f.at === 'number' ? `[${f.at}]` : out === '' ? f.at : `.${f.at}`
  }
  return out
}

/**
 * Whether a parsed JSON (or YAML) value nests deeper than `MAX_NESTING`, found by an iterative
 * walk (no recursion, so any depth is safe): undefined when it does not, else the real depth
 * (counted up to `NESTING_COUNT_CAP`) and where the limit is first crossed. Cost: one visit per
 * array element and object property.
 */
export function findTooDeep(root: unknown): TooDeep | undefined {
  if (typeof root !== 'object' || root === null) return undefined
  const frames: DepthFrame[] = []
  const enter = (value: object, at: string | number | undefined) =>
    frames.push({ value, keys: Array.isArray(value) ? undefined : Object.keys(value), next: 0, at })
  enter(root, undefined)
  let found: TooDeep | undefined
  while (frames.length > 0) {
    const top = frames[frames.length - 1] as DepthFrame
    const size = top.keys ? top.keys.length : (top.value as unknown[]).length
    if (top.next >= size) {
      frames.pop()
      continue
    }
    const i = top.next++
    const at = top.keys ? (top.keys[i] as string) : i
    const child = (top.value as Record<string | number, unknown>)[at]
    if (typeof child !== 'object' || child === null) continue
    enter(child, at)
    const depth = frames.length
    if (depth <= MAX_NESTING) continue
    if (!found) found = { depth, capped: false, path: framePath(frames) }
    else if (depth > found.depth) found.depth = depth
    if (depth > NESTING_COUNT_CAP) {
      found.depth = NESTING_COUNT_CAP
      found.capped = true
      return found
    }
  }
  return found
}

/**
 * Whether a JSON text opens more than `MAX_NESTING` arrays and objects: `[` and `{` characters,
 * those inside strings included, so false only when no value in it can nest too deep (a cheap
 * test before an exact one). A text this short (at most `2 * MAX_NESTING` UTF-16 units) cannot.
 * Stops counting past `MAX_NESTING`.
 */
export function mayNestTooDeep(text: string): boolean {
  if (text.length <= 2 * MAX_NESTING) return false
  let opens = 0
  for (const bracket of ['{', '[']) {
    for (let i = text.indexOf(bracket); i !== -1; i = text.indexOf(bracket, i + 1)) {
      if (++opens > MAX_NESTING) return true
    }
  }
  return false
}

/**
 * Whether a JSON text nests its arrays and objects deeper than `MAX_NESTING`, read from the text
 * itself in one iterative pass (brackets inside strings do not count; a closing bracket closes
 * whichever is open), stopping where the limit is crossed. Exact for valid JSON; for other text
 * a bound that `JSON.parse` then refuses anyway.
 */
export function jsonTextNestsTooDeep(text: string): boolean {
  if (!mayNestTooDeep(text)) return false
  let depth = 0
  let inString = false
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (inString) {
      if (c === 92) i++ // backslash: the next unit is escaped
      else if (c === 34) inString = false
    } else if (c === 34) inString = true
    else if (c === 91 || c === 123) {
      if (++depth > MAX_NESTING) return true
    } else if ((c === 93 || c === 125) && depth > 0) depth--
  }
  return false
}

/**
 * JSON inside a string (tool-call arguments, a tool's output, a record's text field) parsed only
 * when it is safe to walk: the value when `text` is valid JSON nesting at most `MAX_NESTING`
 * levels, undefined when it is not JSON or nests deeper — the caller then keeps `text` as the
 * text it is. Never throws. The depth is read from the text before parsing, so a hostile text is
 * never built into a value.
 */
export function parseJsonWithin(text: string): { value: unknown } | undefined {
  if (jsonTextNestsTooDeep(text)) return undefined
  try {
    return { value: JSON.parse(text) as unknown }
  } catch {
    return undefined
  }
}
