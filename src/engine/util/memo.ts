import type { Message } from '../model'

/**
 * `derive` memoized per message object, in a WeakMap: messages are immutable and a re-plan passes
 * the same Before objects again, so what is derived from one (a preview, a prompt line, fact
 * spans) is computed once and dropped with the transcript (BENCH.md B4). `derive` must depend on
 * the message alone.
 */
export function perMessage<T>(derive: (message: Message) => T): (message: Message) => T {
  const memo = new WeakMap<Message, T>()
  return (message) => {
    if (memo.has(message)) return memo.get(message) as T
    const value = derive(message)
    memo.set(message, value)
    return value
  }
}
