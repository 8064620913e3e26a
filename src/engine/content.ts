import type { Message, Part } from './model'

/**
 * Readable text of a message's content: a string as is; for `Part[]`, the text parts (and
 * readable thinking) joined with "\n"; images and opaque parts contribute nothing. `null`
 * gives ''. Units: a JS string. Pure.
 */
export function contentText(content: Message['content']): string {
  if (content == null) return ''
  if (typeof content === 'string') return content
  const out: string[] = []
  for (const part of content) {
    if (part.type === 'text') out.push(part.text)
  }
  return out.join('\n')
}

/** True when the message has no text, no parts of substance and no tool calls. Source: SPEC §5 "empty messages". */
export function isEmptyMessage(message: Message): boolean {
  if (message.toolCalls && message.toolCalls.length > 0) return false
  const c = message.content
  if (c == null) return true
  if (typeof c === 'string') return c.trim() === ''
  return !c.some((p: Part) => p.type !== 'text' || p.text.trim() !== '')
}

/**
 * True when `message` ends a turn: an assistant message with no tool calls (the model answered
 * and handed the conversation back). The one rule the rolling replay's check points, the turns of
 * the timeline and the stateless decision logs share. Source: SPEC §3.2 (the replay's turn ends).
 */
export function isTurnEnd(message: Pick<Message, 'role' | 'toolCalls'>): boolean {
  return message.role === 'assistant' && !(message.toolCalls && message.toolCalls.length > 0)
}
