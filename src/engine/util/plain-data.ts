/**
 * True when two values of plain data (strings, numbers, booleans, null, arrays, plain objects
 * such as a page row's `RowMeta` and its fate, origin and flags) hold the same content: the same
 * own keys with the same values, arrays element by element. Pure. A re-run sends every row anew:
 * a row whose content did not change keeps its object (restored rows) and its rendered markup.
 */
export function samePlainData(a: unknown, b: unknown): boolean {
  if (a === b) return true
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false
  if (Array.isArray(a) !== Array.isArray(b)) return false
  // Arrays element by element: no list of their keys made (a row's `counterpartIds`, per row of a run).
  if (Array.isArray(a) && Array.isArray(b)) {
    if (a.length !== b.length) return false
    for (let i = 0; i < a.length; i++) if (!samePlainData(a[i], b[i])) return false
    return true
  }
  const ka = Object.keys(a)
  if (ka.length !== Object.keys(b).length) return false
  const ra = a as Record<string, unknown>
  const rb = b as Record<string, unknown>
  return ka.every((k) => Object.hasOwn(rb, k) && samePlainData(ra[k], rb[k]))
}
