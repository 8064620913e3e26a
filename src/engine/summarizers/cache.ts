/**
 * The summary cache: a summary is kept under (summarizer, model, SHA-256 of the prompt), so
 * moving a slider back re-uses the answer instead of asking the model again — a cache hit never
 * calls `fetch`. Source: SPEC §3.6 "Summaries are cached by (summarizer, model, prompt hash)".
 */
import { sha256Hex } from '../util/hash'

/** Default bound of a cache, in entries (least recently used entries go first). */
const DEFAULT_CACHE_ENTRIES = 500

/** A bounded in-memory summary cache. Keys come from `summaryCacheKey`. */
export interface SummaryCache {
  get(key: string): string | undefined
  set(key: string, summary: string): void
  has(key: string): boolean
  clear(): void
  readonly size: number
}

/**
 * A least-recently-used cache of at most `maxEntries` summaries (default
 * `DEFAULT_CACHE_ENTRIES`), held in memory only (never persisted: a summary holds transcript
 * text).
 */
export function createSummaryCache(maxEntries: number = DEFAULT_CACHE_ENTRIES): SummaryCache {
  const map = new Map<string, string>()
  const limit = Math.max(1, Math.trunc(maxEntries))
  return {
    get(key) {
      const v = map.get(key)
      if (v !== undefined) {
        // Re-insert: Map iteration order is insertion order, so this marks it most recent.
        map.delete(key)
        map.set(key, v)
      }
      return v
    },
    set(key, summary) {
      map.delete(key)
      map.set(key, summary)
      while (map.size > limit) {
        const oldest = map.keys().next()
        if (oldest.done) break
        map.delete(oldest.value)
      }
    },
    has: (key) => map.has(key),
    clear: () => map.clear(),
    get size() {
      return map.size
    },
  }
}

/**
 * The cache key of one request: `summarizer` (its id and endpoint, e.g.
 * `openai-compatible http://127.0.0.1:11434/v1`), `model`, and the SHA-256 (hex) of `prompt` —
 * the exact prompt sent (for HTTP summarizers: the request body without `model` and `stream`,
 * so switching streaming on or off still hits). Separated by U+0000, which none of them holds.
 */
export function summaryCacheKey(summarizer: string, model: string, prompt: string): string {
  return `${summarizer}\u0000${model}\u0000${sha256Hex(prompt)}`
}
