/**
 * Which tool call each tool result answers, by position: the one pairing rule the validity
 * checker, the compaction stages and the export share, so they never disagree about a pair.
 * Pure functions over the canonical model.
 */
import type { Message, ToolCall } from './model'

/** A tool call by position: the assistant message holding it and its place in `toolCalls`. */
interface CallRef {
  /** Index of the assistant message in the list. */
  message: number
  /** Index of the call in that message's `toolCalls`. */
  call: number
  /** Position of the call among every call of the list (0 = the oldest). */
  ordinal: number
}

/** Why a tool result answers no call (see `pairToolResults`). */
type UnpairedReason =
  /** The tool message has no `toolCallId`. */
  | { kind: 'no-id' }
  /** No earlier assistant message made a call with that id. */
  | { kind: 'no-call'; callId: string }
  /** Every earlier call with that id already has its result; `by` = the newest such result. */
  | { kind: 'answered'; callId: string; by: number }

/** The pairing of a message list (see `pairToolResults`). Indices are positions in the list. */
export interface ToolPairs {
  /** Per message index: for a paired tool message, the call it answers; else undefined. */
  callOf: (CallRef | undefined)[]
  /** Per message index: for an unpaired tool message, why; else undefined. */
  unpaired: (UnpairedReason | undefined)[]
  /** Per message index: for an assistant message, per call, the index of its result or -1. */
  resultOf: (number[] | undefined)[]
  /** Tool calls in the list. */
  calls: number
}

/**
 * Pairs tool results with calls by position. Walking the list oldest first, a `tool` message
 * answers the newest earlier call with its `toolCallId` that no earlier result answered yet.
 * So an id may be reused once its call is answered (SWE-agent demonstrations, Chat
 * Completions logs): a later call with the same id and the result right after it are a pair,
 * whatever happened to the id before. A result is unpaired when it has no id, when no earlier
 * call used its id, or when every earlier call with its id is already answered (a second
 * answer). Calls keep their order; a call stays unanswered (-1) until a result pairs with it.
 * For a list of unique ids this is pairing by id. Pure; O(messages + calls).
 * Source: formats.md §1 items 6–7 (pairing keys), §4.11 (SWE-agent: one call per step, each
 * result directly after its call).
 */
export function pairToolResults(messages: readonly Message[]): ToolPairs {
  const callOf: (CallRef | undefined)[] = new Array<CallRef | undefined>(messages.length)
  const unpaired: (UnpairedReason | undefined)[] = new Array<UnpairedReason | undefined>(
    messages.length,
  )
  const resultOf: (number[] | undefined)[] = new Array<number[] | undefined>(messages.length)
  /** Unanswered calls per id, oldest first (the newest is answered first). */
  const open = new Map<string, CallRef[]>()
  /** The newest result per id, for "already answered by". */
  const lastResult = new Map<string, number>()
  let calls = 0
  messages.forEach((m, i) => {
    if (m.role === 'assistant' && m.toolCalls && m.toolCalls.length > 0) {
      resultOf[i] = m.toolCalls.map((c: ToolCall, k) => {
        const ref: CallRef = { message: i, call: k, ordinal: calls++ }
        const list = open.get(c.id)
        if (list) list.push(ref)
        else open.set(c.id, [ref])
        return -1
      })
      return
    }
    if (m.role !== 'tool') return
    const id = m.toolCallId
    if (id === undefined) {
      unpaired[i] = { kind: 'no-id' }
      return
    }
    const ref = open.get(id)?.pop()
    if (ref) {
      callOf[i] = ref
      resultOf[ref.message]![ref.call] = i
      lastResult.set(id, i)
      return
    }
    const by = lastResult.get(id)
    unpaired[i] =
      by === undefined ? { kind: 'no-call', callId: id } : { kind: 'answered', callId: id, by }
  })
  return { callOf, unpaired, resultOf, calls }
}
