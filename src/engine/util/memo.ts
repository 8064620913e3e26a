import type { Message } from '../model'

/** A per-message memo (`perMessage`): call it for the value; `known` and `prime` reach its table. */
export type PerMessage<T> = ((message: Message) => T) & {
  /** Whether the value of `message` is held already (made or primed). */
  known(message: Message): boolean
  /**
   * Stores `value` as `message`'s, unless one is held: for a value made elsewhere by the same
   * `derive` (another thread running the same engine code), so it is not made again here.
   */
  prime(message: Message, value: T): void
}

/**
 * `derive` memoized per message object, in a WeakMap: messages are immutable and a re-plan passes
 * the same Before objects again, so what is derived from one (a preview, a prompt line, fact
 * spans) is computed once and dropped with the transcript (BENCH.md B4). `derive` must depend on
 * the message alone.
 */
export function perMessage<T>(derive: (message: Message) => T): PerMessage<T> {
  const memo = new WeakMap<Message, T>()
  const get = (message: Message) => {
    if (memo.has(message)) return memo.get(message) as T
    const value = derive(message)
    memo.set(message, value)
    return value
  }
  return Object.assign(get, {
    known: (message: Message) => memo.has(message),
    prime: (message: Message, value: T) => {
      if (!memo.has(message)) memo.set(message, value)
    },
  })
}
