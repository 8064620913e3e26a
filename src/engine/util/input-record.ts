/**
 * Records keyed by names that come from the input: message ids, tool-call ids, tool names, JSON
 * keys, XML tag names. A plain `{}` inherits from `Object.prototype`, so such a name can collide
 * with it: writing `__proto__` replaces the prototype instead of adding an entry (the entry is
 * then missing from `Object.keys`, JSON and a structured clone), and reading an absent
 * `constructor` or `toString` finds a function. A record without a prototype has neither fault.
 */

/**
 * An empty record with no prototype (`Object.create(null)`), or a copy of `from`'s own
 * enumerable entries: every key, `__proto__`, `constructor` and `toString` included, is an entry
 * like any other, and an absent key reads `undefined`. JSON, `Object.keys`/`entries` and
 * `structuredClone` see exactly its entries. Use it wherever a `Record<string, …>` is built with
 * keys from the input (a run's fates and origins, tokens by message id).
 */
export function inputRecord<T>(from?: Readonly<Record<string, T>>): Record<string, T> {
  const out = Object.create(null) as Record<string, T>
  if (from) for (const key of Object.keys(from)) out[key] = from[key] as T
  return out
}
