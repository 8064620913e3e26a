import type { FormatId, Part, Role, SourceRef, ToolCall, ToolSchema, Transcript } from '../model'
import type { RootImportOptions } from './anthropic'
import { importFailure } from './failure'
import { requestLogParts, requestLogUsage } from './request-log'
import type { FormatImporter } from './types'
import {
  pairLegacyFunctionResult,
  finalizeTranscript,
  imageFromUrl,
  isObject,
  normalizeParts,
  notAnArray,
  resolveUsage,
  str,
  type DraftMessage,
} from './util'
import { quoteForMessage } from '../util/text'

/** The roles an OpenAI Chat Completions message may have, mapped to the canonical role. */
const OPENAI_CHAT_ROLES: Readonly<Record<string, Role>> = {
  system: 'system',
  developer: 'system',
  user: 'user',
  assistant: 'assistant',
  tool: 'tool',
  function: 'tool',
}

/**
 * One content part as a canonical part: `text` → text; `refusal` → its text (the model sees it);
 * `image_url` → image (data URL bytes estimated from the base64 length, never text); `input_audio`,
 * `file` and unknown parts → opaque. Source: formats.md §4.1 "Messages".
 */
function chatPart(part: unknown): Part {
  if (typeof part === 'string') return { type: 'text', text: part }
  if (!isObject(part)) return { type: 'opaque', kind: 'unknown', raw: part }
  switch (part.type) {
    case 'text':
      return { type: 'text', text: str(part.text) ?? '' }
    case 'refusal':
      return { type: 'text', text: str(part.refusal) ?? '' }
    case 'image_url': {
      const image = part.image_url
      const url = typeof image === 'string' ? image : isObject(image) ? str(image.url) : undefined
      return url !== undefined ? imageFromUrl(url) : { type: 'image' }
    }
    default:
      return { type: 'opaque', kind: str(part.type) ?? 'unknown', raw: part }
  }
}

/** Content `string | parts[] | null` in the canonical shape (text-only parts joined with "\n"). */
function chatContent(content: unknown): string | Part[] | null {
  if (content === null || content === undefined) return null
  if (typeof content === 'string') return content
  if (Array.isArray(content)) return normalizeParts(content.map(chatPart), '')
  return [{ type: 'opaque', kind: 'unknown', raw: content }]
}

/**
 * Top-level `tools` (`{type:"function", function:{…}}` or `{type:"custom", custom:{…}}`) and legacy
 * `functions` (`{name, description, parameters}`) as tool schemas.
 */
function chatTools(root: Record<string, unknown>): ToolSchema[] | undefined {
  const out: ToolSchema[] = []
  const add = (def: unknown, params: 'parameters' | 'format') => {
    if (!isObject(def) || typeof def.name !== 'string') return
    const schema: ToolSchema = { name: def.name }
    if (typeof def.description === 'string') schema.description = def.description
    if (def[params] !== undefined) schema.parameters = def[params]
    out.push(schema)
  }
  if (Array.isArray(root.tools)) {
    for (const t of root.tools) {
      if (!isObject(t)) continue
      if (isObject(t.function)) add(t.function, 'parameters')
      else if (isObject(t.custom)) add(t.custom, 'format')
      else add(t, 'parameters')
    }
  }
  if (Array.isArray(root.functions)) for (const f of root.functions) add(f, 'parameters')
  return Array.isArray(root.tools) || Array.isArray(root.functions) ? out : undefined
}

/**
 * `tool_calls[]` as canonical tool calls: `function` calls keep `function.arguments` raw (may be
 * invalid JSON, '' or pretty-printed — formats.md §1 item 3); `custom` calls use their free-form
 * `custom.input` as arguments.
 */
function chatToolCalls(list: unknown): ToolCall[] {
  if (!Array.isArray(list)) return []
  const calls: ToolCall[] = []
  for (const c of list) {
    if (!isObject(c)) continue
    const fn = isObject(c.function) ? c.function : isObject(c.custom) ? c.custom : {}
    const args = fn.arguments ?? fn.input
    calls.push({
      id: str(c.id) ?? '',
      name: str(fn.name) ?? '',
      arguments: typeof args === 'string' ? args : args === undefined ? '' : JSON.stringify(args),
    })
  }
  return calls
}

/**
 * The reply of a Chat Completions *response* (`{object:"chat.completion", choices:[{index,
 * message, finish_reason}], model, usage}`): `choices[0].message` as the only message, plus the
 * warnings that say what the file lacks. Undefined for anything without `choices[].message`.
 * Source: formats.md §4.1 pitfalls (a response file has the message shape under `choices`).
 */
function responseReply(
  root: unknown,
): { messages: unknown[]; field: string; warnings: string[] } | undefined {
  if (!isObject(root) || !Array.isArray(root.choices)) return undefined
  const k = root.choices.findIndex((c) => isObject(c) && isObject(c.message))
  const choice = root.choices[k]
  if (!isObject(choice)) return undefined
  const warnings = [
    'this is an API response, not a conversation: only the model\'s reply ' +
      `(choices[${k}].message) is in it, the request's messages are not`,
  ]
  if (root.choices.length > 1)
    warnings.push(`the response has ${root.choices.length} choices; imported choices[${k}]`)
  return { messages: [choice.message], field: `choices[${k}].message`, warnings }
}

/** The messages array of a chat root: `{messages}` or a bare array. */
function chatMessages(root: unknown): unknown[] | undefined {
  if (Array.isArray(root)) return root
  if (isObject(root) && Array.isArray(root.messages)) return root.messages
  return undefined
}

/**
 * Imports an OpenAI Chat Completions request body `{messages, tools?, functions?}`, a bare
 * messages array, one response `{object:"chat.completion", choices:[{message}]}`, or a request +
 * response log (`requestLogParts`: OpenHands' completion logs — their `raw_messages` when logged —
 * litellm's StandardLoggingPayload, `{request, response}`), whose response message (the first
 * choice with one) is the last message and whose usage (`requestLogUsage`) is the transcript's
 * recorded usage at it; a logged response without a message is a warning. A response is
 * imported, not rejected: its one assistant message (text, reasoning, tool calls) is what a person
 * holding only the response wants to read and count, and a warning says the request's messages are
 * absent (so there is nothing before it to compact); with several `choices`, the first with a
 * message, and a warning. `developer` → `system`; content string | parts (text-only parts joined with "\n";
 * images as image parts; audio/files opaque); `tool_calls` (function and custom);
 * `reasoning_content` / `reasoning` → a reasoning thinking part. Legacy function calling: an
 * assistant `function_call` (no id) gets the stable id `fc-<message index>`, and each role
 * `function` result answers the oldest unanswered call of the same name (else the oldest unanswered
 * call) — pairing by order. Tool names are resolved from the call. Messages that are not objects or
 * have an unknown role are skipped with a warning naming `messages[i]`. Throws `ImportFailure`
 * (field `messages`) without a messages list or when no message is kept; never modifies `root`.
 * Source: formats.md §4.1, §1 item 6.
 */
function importOpenAIChat(input: unknown, options: RootImportOptions = {}): Transcript {
  const format: FormatId = 'openai-chat'
  const keepRaw = options.keepRaw ?? true
  const log = requestLogParts(input)
  const root = log.request
  const reply = chatMessages(root) ? undefined : responseReply(root)
  const requestList = chatMessages(root) ?? reply?.messages
  if (!requestList) importFailure('expected an object with a "messages" array', { field: 'messages' })
  const drafts: DraftMessage[] = []
  const warnings: string[] = [...(reply?.warnings ?? [])]
  // A request + response log: the response's message is the conversation's last turn.
  const logged = log.response ? responseReply(log.response) : undefined
  if (log.response && !logged)
    warnings.push("response: no choices[].message, so only the request's messages are imported")
  const list = logged ? [...requestList, ...logged.messages] : requestList
  let responseAt: number | undefined
  const toolNames = new Map<string, string>()
  // Legacy function calls still waiting for their `function` result, oldest first.
  const pendingLegacy: ToolCall[] = []

  list.forEach((m, i) => {
    const fromLog = logged !== undefined && i >= requestList.length
    if (fromLog) responseAt ??= drafts.length
    const field = fromLog ? `response.${logged.field}` : reply ? reply.field : `messages[${i}]`
    if (!isObject(m)) {
      warnings.push(`${field}: not an object, skipped`)
      return
    }
    const sourceRole = str(m.role) ?? ''
    const role = Object.hasOwn(OPENAI_CHAT_ROLES, sourceRole) ? OPENAI_CHAT_ROLES[sourceRole] : undefined
    if (!role) {
      warnings.push(`${field}.role: ${quoteForMessage(m.role)} is not a chat role, skipped`)
      return
    }
    const source: SourceRef = { format, line: i + 1 }
    if (keepRaw) source.raw = m
    let content = chatContent(m.content)
    const d: DraftMessage = { id: '', role, content, source }

    if (role === 'assistant') {
      if (content === null && typeof m.refusal === 'string') content = m.refusal
      const reasoning = str(m.reasoning_content) ?? str(m.reasoning)
      if (reasoning !== undefined && reasoning !== '') {
        const thinking: Part = { type: 'thinking', variant: 'reasoning', text: reasoning }
        const rest: Part[] =
          content === null
            ? []
            : typeof content === 'string'
              ? content === ''
                ? []
                : [{ type: 'text', text: content }]
              : content
        content = [thinking, ...rest]
      }
      d.content = content
      const calls = chatToolCalls(m.tool_calls)
      if (calls.length === 0 && isObject(m.function_call)) {
        const fc = m.function_call
        const args = fc.arguments
        const call: ToolCall = {
          id: `fc-${drafts.length}`,
          name: str(fc.name) ?? '',
          arguments:
            typeof args === 'string' ? args : args === undefined ? '' : JSON.stringify(args),
        }
        calls.push(call)
        pendingLegacy.push(call)
      }
      for (const c of calls) toolNames.set(c.id, c.name)
      if (calls.length > 0) d.toolCalls = calls
    } else if (sourceRole === 'tool') {
      const id = str(m.tool_call_id) ?? ''
      d.toolCallId = id
      const name = toolNames.get(id) ?? str(m.name)
      if (name !== undefined) d.toolName = name
      if (id === '') warnings.push(`${field}.tool_call_id: missing`)
    } else if (sourceRole === 'function') {
      pairLegacyFunctionResult(pendingLegacy, str(m.name), d, drafts.length, field, warnings)
      if (d.content === null) d.content = ''
    }
    drafts.push(d)
  })
  if (drafts.length === 0) importFailure('no messages found in messages', { field: 'messages' })
  // litellm's StandardLoggingPayload keeps the request's tools in `model_parameters`.
  const params = isObject(root) && isObject(root.model_parameters) ? root.model_parameters : undefined
  const tools = isObject(root) ? (chatTools(root) ?? (params ? chatTools(params) : undefined)) : undefined
  const model = (isObject(root) ? str(root.model) : undefined) ?? str(log.response?.model)
  const transcript = finalizeTranscript(format, drafts, [], warnings, {
    ...(tools ? { tools } : {}),
    model,
  })
  const usage = responseAt === undefined ? undefined : requestLogUsage(input, log.response, responseAt)
  const recorded = usage ? resolveUsage(transcript.messages, [usage]) : undefined
  if (recorded) transcript.usage = recorded
  return transcript
}

/**
 * Why a message list is not a list of chat messages, or undefined when it is: the first item that
 * is not an object (`<field>[i] is not an object`), else a list whose objects all carry a `parts`
 * array (a Vercel UIMessage or Gemini list, whose own detectors rejected it), else the first role
 * outside `OPENAI_CHAT_ROLES`. The shared first test of the OpenAI chat and Anthropic detectors.
 */
export function chatListMismatch(list: readonly unknown[], field: string): string | undefined {
  const head = list.slice(0, 50).filter(isObject)
  if (head.length > 0 && head.every((x) => typeof x.role === 'string' && Array.isArray(x.parts)))
    return `${field}[0] has a "parts" array, not chat "content"`
  let firstBadRole: string | undefined
  for (let i = 0; i < list.length; i++) {
    const m = list[i]
    if (!isObject(m)) return `${field}[${i}] is not an object`
    const role = m.role
    if (typeof role !== 'string' || !Object.hasOwn(OPENAI_CHAT_ROLES, role)) {
      const allowed = Object.keys(OPENAI_CHAT_ROLES).join('/')
      firstBadRole ??= `${field}[${i}].role is ${quoteForMessage(role)}, not one of ${allowed}`
    }
  }
  return firstBadRole
}

const OPENAI_PARTS = new Set(['image_url', 'input_audio', 'file', 'refusal'])

/**
 * Whether a chat message carries something only OpenAI Chat Completions has: a `tool` /
 * `function` / `developer` role, `tool_calls` / `function_call` / `tool_call_id`, or an
 * `image_url` / `input_audio` / `file` / `refusal` content part. Source: formats.md §2 item 11.
 */
export function hasOpenAIChatSignal(m: Record<string, unknown>): boolean {
  if (m.role === 'tool' || m.role === 'function' || m.role === 'developer') return true
  if ('tool_calls' in m || 'function_call' in m || 'tool_call_id' in m) return true
  return (
    Array.isArray(m.content) &&
    m.content.some((b) => isObject(b) && typeof b.type === 'string' && OPENAI_PARTS.has(b.type))
  )
}

/**
 * Detection (formats.md §2 item 12), the fallback for anything "OpenAI-compatible": a bare array or
 * `{messages}` whose every item is an object with a chat role (`chatListMismatch`), or one Chat
 * Completions response (`choices[].message`); a request + response log is judged by its request
 * (`requestLogParts`). Anthropic Messages lists are chat-role lists too:
 * the Anthropic importer's lower priority claims them first.
 */
function detectOpenAIChat(input: unknown): true | string {
  const root = requestLogParts(input).request
  if (Array.isArray(root)) return chatListMismatch(root, 'items') ?? true
  if (!isObject(root)) {
    const kind = root === null ? 'null' : `a ${typeof root}`
    return `the JSON is ${kind}, not an object or array`
  }
  if (Array.isArray(root.messages)) return chatListMismatch(root.messages, 'messages') ?? true
  if (Array.isArray(root.choices) && root.choices.some((c) => isObject(c) && isObject(c.message)))
    return true
  if (Object.prototype.hasOwnProperty.call(root, 'messages')) return notAnArray(root, 'messages')
  const keys = Object.keys(root).slice(0, 8).join(', ')
  return `no "messages" array at the top level (keys: ${keys || 'none'})`
}

/** OpenAI Chat Completions, the fallback for anything "OpenAI-compatible" (formats.md §4.1). */
export const openaiChatImporter: FormatImporter<'openai-chat'> = {
  id: 'openai-chat',
  label: 'OpenAI Chat Completions',
  container: 'json',
  priority: 12,
  requestFormat: 'openai-chat',
  description:
    'OpenAI Chat Completions request body {messages, tools?} or a messages array ' +
    '(legacy functions too)',
  extensions: ['.json'],
  detect: detectOpenAIChat,
  closeness: (input) =>
    Array.isArray(input) || (isObject(input) && Array.isArray(input.messages)) ? 0.5 : 0.1,
  importParsed: (input, options) =>
    importOpenAIChat(input, options.keepRaw === undefined ? {} : { keepRaw: options.keepRaw }),
}
