/**
 * Test helpers shared by stage tests: a `StageContext` with a readable token counter and
 * short message builders. Not part of the engine's public surface (only tests import it).
 */
import type { Message, ToolCall } from '../model'
import { codePointLength } from '../util/text'
import { countMessageTokens, MESSAGE_OVERHEAD_TOKENS, type TextCounter } from '../tokens/count'
import type { StageContext, Summarizer } from './types'

/** A readable counter: one token per Unicode code point. */
export const countCodePoints: TextCounter = (text) => codePointLength(text)

/** A readable counter: one token per whitespace-separated word. */
export const countWords: TextCounter = (text) => text.split(/\s+/).filter(Boolean).length

/** Options of `makeContext`. */
export interface MakeContextOptions {
  /**
   * Tokens added per message. Default 0 (not `MESSAGE_OVERHEAD_TOKENS`) so that a message's
   * tokens are exactly what `countText` says about its content and tool calls.
   */
  overhead?: number
  /** Default: a summarizer that fails the test if a stage calls it unexpectedly. */
  summarize?: Summarizer
}

/**
 * A `StageContext` whose `countMessage` is the engine's `countMessageTokens` over `countText`
 * (content text/parts + each tool call's name and arguments) with the per-message overhead
 * replaced by `options.overhead` (default 0). Pure and deterministic.
 */
export function makeContext(countText: TextCounter, options: MakeContextOptions = {}): StageContext {
  const overhead = options.overhead ?? 0
  return {
    countText,
    countMessage: (message) =>
      countMessageTokens(message, countText) - MESSAGE_OVERHEAD_TOKENS + overhead,
    summarize:
      options.summarize ??
      (() => Promise.reject(new Error('this test did not expect a summarizer call'))),
  }
}

/** A tool call in builder shorthand: `arguments` defaults to `'{}'`. */
export interface CallSpec {
  id: string
  name: string
  arguments?: string
}

/** A `user` message with string content (index 0; use `indexed` to number a transcript). */
export function user(id: string, text: string): Message {
  return { id, index: 0, role: 'user', content: text, source: { format: 'canonical' } }
}

/** A `system` message with string content. */
export function system(id: string, text: string): Message {
  return { id, index: 0, role: 'system', content: text, source: { format: 'canonical' } }
}

/** An `assistant` message; `text` may be null (a tool-calling message with no text). */
export function assistant(id: string, text: string | null, calls?: CallSpec[]): Message {
  const message: Message = { id, index: 0, role: 'assistant', content: text, source: { format: 'canonical' } }
  if (calls && calls.length > 0) {
    message.toolCalls = calls.map(
      (c): ToolCall => ({ id: c.id, name: c.name, arguments: c.arguments ?? '{}' }),
    )
  }
  return message
}

/** A `tool` message answering `callId`, with string content. */
export function toolResult(id: string, callId: string, text: string, toolName?: string): Message {
  const message: Message = {
    id,
    index: 0,
    role: 'tool',
    content: text,
    toolCallId: callId,
    source: { format: 'canonical' },
  }
  if (toolName !== undefined) message.toolName = toolName
  return message
}

/** Copies of `messages` with `index` set to their position (inputs are not mutated). */
export function indexed(messages: readonly Message[]): Message[] {
  return messages.map((m, index) => ({ ...m, index }))
}

/** Recursively freezes `value` (objects and arrays) so a test fails if anything mutates it. */
export function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value)
    for (const key of Object.keys(value)) deepFreeze((value as Record<string, unknown>)[key])
  }
  return value
}

/** An OpenAI Chat Completions message as the fault cases write it (string or null content). */
export interface CaseChatMessage {
  role: 'system' | 'user' | 'assistant' | 'tool'
  content: string | null
  tool_calls?: { id: string; function: { name: string; arguments: string } }[]
  tool_call_id?: string
}

/**
 * The canonical messages of an `openai`-format fault case's `input` (cases/*.json): ids
 * `m<index>`, `toolName` resolved from the call. Minimal on purpose (text content only) so
 * stage tests do not depend on the importers; the importers have their own tests.
 */
export function fromCaseChat(input: readonly CaseChatMessage[]): Message[] {
  const names = new Map<string, string>()
  return input.map((m, index): Message => {
    const message: Message = {
      id: `m${index}`,
      index,
      role: m.role,
      content: m.content,
      source: { format: 'openai-chat', line: index + 1 },
    }
    if (m.tool_calls) {
      message.toolCalls = m.tool_calls.map((c) => {
        names.set(c.id, c.function.name)
        return { id: c.id, name: c.function.name, arguments: c.function.arguments }
      })
    }
    if (m.tool_call_id !== undefined) {
      message.toolCallId = m.tool_call_id
      const name = names.get(m.tool_call_id)
      if (name !== undefined) message.toolName = name
    }
    return message
  })
}
