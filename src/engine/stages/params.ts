/**
 * How the engine reads a stage's count params, from their definitions (definitions.ts): the one
 * rule every stage, the page's "engine uses …" notes and the sweep's cell notes share. No run
 * code, so the page can use it without loading a stage.
 */
import { paramDefinition, stageDefinition, type StageId, type StageParamDef } from './definitions'

/** What the engine makes of one count param's typed value. */
export type CountReading =
  /** The value used; `fellBack` when it is the default instead of the typed value (or its truncation). */
  | { ok: true; value: number; fellBack: boolean }
  /** The value is unusable and the stage reports this error (definition `unusable`). */
  | { ok: false; error: string }

/**
 * Reads a count param's raw value by its definition: absent → the default; a finite number (or
 * numeric string) in `min`..`max` → itself, truncated unless `fraction`; anything else → the default, or
 * the definition's `unusable` error. `atLeast` is not applied here (see `readCounts`). Throws for a
 * param with no default that is absent or unusable and has no error (a definition mistake).
 */
export function readCount(def: StageParamDef, raw: unknown): CountReading {
  const fallback = (): CountReading => {
    if (def.unusable !== undefined && raw !== undefined) return { ok: false, error: def.unusable }
    if (typeof def.default !== 'number') return { ok: true, value: NaN, fellBack: true }
    return { ok: true, value: def.default, fellBack: true }
  }
  if (raw === undefined) return fallback()
  const n = typeof raw === 'number' ? raw : typeof raw === 'string' && raw.trim() !== '' ? Number(raw) : NaN
  if (!Number.isFinite(n)) return fallback()
  const value = def.fraction ? n : Math.trunc(n)
  if (def.min !== undefined && value < def.min) return fallback()
  if (def.max !== undefined && value > def.max) return fallback()
  return { ok: true, value, fellBack: false }
}

/**
 * The param that replaces param `key` of stage `id` given the stage's `params`: the first of its
 * definition's `replacedBy` that is set — a count present and usable, a flag on, anything else
 * present — and itself in use (not replaced in turn); undefined when `key` is in use. E.g.
 * summarize `keep_last` with `{keep_tokens: 100}` → `keep_tokens`; `keep_tokens` with
 * `{keep_share: 0.3, keep_user_only: true}` → undefined (keep_user_only replaces keep_share, and
 * keeps user messages within keep_tokens). Pure.
 */
export function replacingParam(id: StageId, key: string, params: object | undefined): string | undefined {
  const raw = (params ?? {}) as Readonly<Record<string, unknown>>
  const isSet = (def: StageParamDef): boolean => {
    const value = Object.hasOwn(raw, def.key) ? raw[def.key] : undefined
    if (value === undefined) return false
    if (def.type === 'flag') return value === true
    if (def.type !== 'count') return true
    const reading = readCount(def, value)
    return reading.ok && !Number.isNaN(reading.value)
  }
  const seen = new Set<string>()
  const replacer = (k: string): string | undefined => {
    if (seen.has(k)) return undefined // a cycle in the definitions replaces nothing
    seen.add(k)
    const found = paramDefinition(id, k)?.replacedBy?.find((r) => {
      const def = paramDefinition(id, r)
      return def !== undefined && isSet(def) && replacer(r) === undefined
    })
    seen.delete(k)
    return found
  }
  return replacer(key)
}

/**
 * The count params of stage `id` as the engine uses them: every count param with a default (and
 * any other one present) read by `readCount`, then each `atLeast` raised to its other param while
 * that one is in use (`replacingParam`: a replaced param's value or default never leaks into
 * another). The first unusable value's error is returned in `error` (its param keeps NaN). Pure.
 * Example: summarize `{keep_last: 0, compact_after: 5}` → `{keep_last: 20, compact_after: 20}`;
 * `{keep_tokens: 100, compact_after: 5}` → `compact_after` 5 (keep_last is not used).
 */
export function readCounts(
  id: StageId,
  params: object | undefined,
): { values: Record<string, number>; error?: string } {
  const values: Record<string, number> = {}
  let error: string | undefined
  const defs = stageDefinition(id).params.filter((p) => p.type === 'count')
  for (const def of defs) {
    const raw = (params as Readonly<Record<string, unknown>> | undefined)?.[def.key]
    if (raw === undefined && typeof def.default !== 'number') continue
    const reading = readCount(def, raw)
    if (reading.ok) values[def.key] = reading.value
    else {
      values[def.key] = NaN
      error ??= reading.error
    }
  }
  for (const def of defs) {
    const other = def.atLeast
    if (other !== undefined && def.key in values && other in values && replacingParam(id, other, params) === undefined) {
      values[def.key] = Math.max(values[def.key]!, values[other]!)
    }
  }
  return error === undefined ? { values } : { values, error }
}

/** What the engine makes of one typed count param, for the page's and the sweep's notes. */
export interface EffectiveCount {
  /** The value the engine uses (NaN when the value is unusable and the stage errors). */
  value: number
  /** The typed value was unusable or not whole, so `value` differs from it (never for an absent one). */
  fellBack: boolean
  /** Raised to another param (`atLeast`): its key and value. */
  raisedTo?: { key: string; value: number }
  /** The stage error an unusable value causes. */
  error?: string
}

/**
 * What the engine makes of param `key` of stage `id` given all that stage's `params` (see
 * `readCount`, `readCounts`). A param the stage does not define, or that is not a count, passes
 * through as given (`fellBack` false).
 */
export function effectiveCount(id: StageId, key: string, params: Readonly<Record<string, unknown>>): EffectiveCount {
  const def = paramDefinition(id, key)
  const typed = params[key]
  if (!def || def.type !== 'count') return { value: typeof typed === 'number' ? typed : NaN, fellBack: false }
  const own = readCount(def, typed)
  if (!own.ok) return { value: NaN, fellBack: false, error: own.error }
  const raw = typeof typed === 'number' ? typed : NaN
  const fellBack = typed !== undefined && own.value !== raw
  const used = readCounts(id, params).values[key] ?? own.value
  if (def.atLeast !== undefined && used !== own.value) {
    return { value: used, fellBack, raisedTo: { key: def.atLeast, value: used } }
  }
  return { value: own.value, fellBack }
}
