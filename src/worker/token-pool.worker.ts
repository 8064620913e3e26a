/**
 * One tokenizer worker of the pool (token-pool.ts): counts batches of distinct texts with the raw
 * fast counter and answers `{ id, counts }` in the same order, or finds the fact spans of a
 * batch of message texts (`{ task: 'spans' }` → `{ id, spans }`); `{ id, error }` when it cannot.
 */
import { findFactSpans } from '../engine/facts/patterns'
import type { Encoding } from '../engine/model'
import { loadTextCounter } from '../engine/tokens/count'
import type { PoolReply, PoolRequest } from './token-pool'

const scope = self as unknown as {
  onmessage: ((e: MessageEvent<PoolRequest>) => void) | null
  postMessage(reply: PoolReply): void
}

const loaded = new Map<Encoding, ReturnType<typeof loadTextCounter>>()

scope.onmessage = (e) => {
  const request = e.data
  if ('task' in request) {
    // Fact spans: the engine's own `findFactSpans` (a user's text with its stated values), so they
    // equal what the engine thread would find (`messageFactSpans`).
    try {
      const spans = request.texts.map((text, i) => findFactSpans(text, { stated: request.stated?.[i] === true }))
      scope.postMessage({ id: request.id, spans })
    } catch (err) {
      scope.postMessage({ id: request.id, error: err instanceof Error ? err.message : String(err) })
    }
    return
  }
  const { id, encoding, texts } = request
  let counter = loaded.get(encoding)
  if (!counter) {
    counter = loadTextCounter(encoding)
    loaded.set(encoding, counter)
  }
  counter.then(
    (count) => scope.postMessage({ id, counts: texts.map((t) => count(t)) }),
    (err: unknown) => scope.postMessage({ id, error: err instanceof Error ? err.message : String(err) }),
  )
}
