/**
 * One tokenizer worker of the pool (token-pool.ts): counts batches of distinct texts with the raw
 * fast counter and answers `{ id, counts }` in the same order (or `{ id, error }`).
 */
import type { Encoding } from '../engine/model'
import { loadTextCounter } from '../engine/tokens/count'
import type { PoolReply, PoolRequest } from './token-pool'

const scope = self as unknown as {
  onmessage: ((e: MessageEvent<PoolRequest>) => void) | null
  postMessage(reply: PoolReply): void
}

const loaded = new Map<Encoding, ReturnType<typeof loadTextCounter>>()

scope.onmessage = (e) => {
  const { id, encoding, texts } = e.data
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
