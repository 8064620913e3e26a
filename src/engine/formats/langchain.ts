import type { Part, Role, SourceRef, ToolCall, Transcript } from '../model'
import { importFailure } from './failure'
import type { FormatImporter, ImportOptions } from './types'
import {
  pairLegacyFunctionResult,
  arrayOrWrapped,
  finalizeTranscript,
  imageFromUrl,
  isObject,
  normalizeParts,
  str,
  type DraftCompaction,
  type DraftMessage,
  type JsonObject,
} from './util'
import { quoteForMessage } from '../util/text'

const format = 'langchain'

/** Canonical LangChain message kind (after `canonicalType`) → role (`chat` takes `data.role`). */
const LANGCHAIN_ROLES: Readonly<Record<string, Role>> = {
  human: 'user',
  ai: 'assistant',
  tool: 'tool',
  system: 'system',
  function: 'tool',
}

/**
 * Every message `type` LangChain itself reads back, mapped to its canonical kind:
 * `_message_from_dict` (`messages_from_dict`) accepts `human`, `ai`, `system`, `chat`, `function`,
 * `tool`, `remove` and the chunk classes by class name (`AIMessageChunk`, `HumanMessageChunk`,
 * `SystemMessageChunk`, `ToolMessageChunk`, `FunctionMessageChunk`, `ChatMessageChunk` — a chunk's
 * own `type` field is its class name, so `model_dump()` of a streamed message carries it too);
 * `convert_to_messages` also accepts `user`, `assistant` and `developer` (a system message sent
 * with the OpenAI `developer` role). `remove` is LangGraph's `RemoveMessage` (an instruction to the
 * state reducer, no content). Source: langchain-ai/langchain
 * `libs/core/langchain_core/messages/utils.py` (`_message_from_dict`,
 * `_create_message_from_message_type`); formats.md §4.8.
 */
const LANGCHAIN_TYPES: Readonly<Record<string, string>> = {
  human: 'human',
  user: 'human',
  HumanMessageChunk: 'human',
  ai: 'ai',
  assistant: 'ai',
  AIMessageChunk: 'ai',
  system: 'system',
  developer: 'system',
  SystemMessageChunk: 'system',
  tool: 'tool',
  ToolMessageChunk: 'tool',
  function: 'function',
  FunctionMessageChunk: 'function',
  chat: 'chat',
  ChatMessageChunk: 'chat',
  remove: 'remove',
}

/** `dumpd` class names (the last element of `id`) → canonical kinds (as `LANGCHAIN_TYPES`). */
const DUMPD_CLASSES: Readonly<Record<string, string>> = {
  HumanMessage: 'human',
  HumanMessageChunk: 'human',
  AIMessage: 'ai',
  AIMessageChunk: 'ai',
  ToolMessage: 'tool',
  ToolMessageChunk: 'tool',
  SystemMessage: 'system',
  SystemMessageChunk: 'system',
  ChatMessage: 'chat',
  ChatMessageChunk: 'chat',
  FunctionMessage: 'function',
  FunctionMessageChunk: 'function',
  RemoveMessage: 'remove',
}

/** The canonical kind of a serialized message `type` (see `LANGCHAIN_TYPES`), else undefined. */
function canonicalType(type: unknown): string | undefined {
  return typeof type === 'string' && Object.hasOwn(LANGCHAIN_TYPES, type)
    ? LANGCHAIN_TYPES[type]
    : undefined
}

/**
 * The opening of the human message LangChain's SummarizationMiddleware puts in place of the
 * messages it summarized. Source: formats.md §4.8 [R].
 */
const LANGCHAIN_SUMMARY_PREFIX = 'Here is a summary of the conversation to date:'

/** One serialized message, normalized to `{type, data}` whichever shape it came in. */
interface LangChainRecord {
  type: string
  data: JsonObject
}

/** A message `type` LangChain reads back (any key of `LANGCHAIN_TYPES`). */
function isMessageType(type: unknown): type is string {
  return canonicalType(type) !== undefined
}

/**
 * A flat message dict: the message's own fields with its `type` beside them
 * (`{type:"ai", content, tool_calls?, id?, …}`), what `BaseMessage.model_dump()` and LangGraph
 * state (`{"messages": [...]}`) give and `convert_to_messages` accepts. Every message has
 * `content`; `{type, data}` items are the `messages_to_dict` shape instead.
 */
function isFlatMessage(item: JsonObject): boolean {
  return isMessageType(item.type) && 'content' in item && !isObject(item.data)
}

/**
 * A `messages_to_dict` item (`{type, data}`), a flat `model_dump()` dict (`{type, content, …}`,
 * read as its own `data`) or a `dumpd` constructor (`{lc:1, type:"constructor",
 * id:[…,"AIMessage"], kwargs}`) as `{type, data}` with `type` the canonical kind (`human`, `ai`,
 * `tool`, `system`, `chat`, `function`, `remove`); undefined for anything else (unknown types and
 * classes too). A `RemoveMessage` flat dict has `id` but may lack `content`.
 */
function asRecord(item: unknown): LangChainRecord | undefined {
  if (!isObject(item)) return undefined
  if (item.lc === 1 && item.type === 'constructor') {
    const id = Array.isArray(item.id) ? item.id : []
    const cls = str(id[id.length - 1]) ?? ''
    const type = Object.hasOwn(DUMPD_CLASSES, cls) ? DUMPD_CLASSES[cls] : undefined
    if (!type) return undefined
    return { type, data: isObject(item.kwargs) ? item.kwargs : {} }
  }
  const type = canonicalType(item.type)
  if (type === undefined) return undefined
  if (isObject(item.data)) return { type, data: item.data }
  if (isFlatMessage(item) || (type === 'remove' && typeof item.id === 'string'))
    return { type, data: item }
  return undefined
}

/** The message list of a root: a bare array or `{messages:[…]}` (LangGraph state dumps). */
function messageList(root: unknown): unknown[] | undefined {
  return arrayOrWrapped(root, 'messages')
}

/**
 * Detection (formats.md §2 item 8, §4.8): an array (or `{messages}`, LangGraph state) whose first
 * 50 items each are `{type, data}` with a LangChain message type, a flat `model_dump()` dict
 * (`{type, content, …}` with a LangChain message type), or a `dumpd` message constructor.
 * Returns the first mismatch naming the item otherwise.
 */
export function detectLangChain(root: unknown): true | string {
  const list = messageList(root)
  if (!list) return 'not an array (or {messages}) of LangChain messages'
  if (list.length === 0) return 'the array is empty'
  const head = list.slice(0, 50)
  for (let i = 0; i < head.length; i++) {
    const item = head[i]
    if (isObject(item) && item.lc === 1 && item.type === 'constructor') {
      if (!asRecord(item)) return `items[${i}].id does not name a LangChain message class`
      continue
    }
    if (!isObject(item) || typeof item.type !== 'string')
      return `items[${i}] has no string "type"`
    if (!isMessageType(item.type))
      return (
        `items[${i}].type is ${quoteForMessage(item.type)}, ` +
        'not a LangChain message type (human/ai/tool/system/chat/function, a *MessageChunk ' +
        'class, user/assistant/developer or remove)'
      )
    if (!isObject(item.data) && !isFlatMessage(item) && !asRecord(item))
      return `items[${i}] has neither a "data" object nor "content"`
  }
  return true
}

/**
 * One content block as a canonical part. Text (`text`, plain strings), images in the shapes
 * LangChain carries (OpenAI `image_url`, standard `image` with `url` / `base64` / `data` +
 * `mime_type`, Anthropic `image.source`), thinking (`thinking` + `signature`, `reasoning`);
 * anything else (documents, provider blocks) opaque.
 */
function blockToPart(block: unknown): Part {
  if (typeof block === 'string') return { type: 'text', text: block }
  if (!isObject(block)) return { type: 'opaque', kind: 'unknown', raw: block }
  switch (block.type) {
    case 'text':
      return { type: 'text', text: str(block.text) ?? '' }
    case 'image_url': {
      const image = block.image_url
      const url = typeof image === 'string' ? image : isObject(image) ? str(image.url) : undefined
      return url !== undefined ? imageFromUrl(url) : { type: 'image' }
    }
    case 'image': {
      const mime = str(block.mime_type)
      const url = str(block.url)
      if (url !== undefined) return imageFromUrl(url, mime)
      const base64 =
        str(block.base64) ?? (block.source_type === 'base64' ? str(block.data) : undefined)
      if (base64 !== undefined) return imageFromUrl(`data:${mime ?? 'image/png'};base64,${base64}`)
      const source = block.source
      if (isObject(source) && typeof source.data === 'string') {
        const media = str(source.media_type) ?? 'image/png'
        return imageFromUrl(`data:${media};base64,${source.data}`)
      }
      if (isObject(source) && typeof source.url === 'string') return imageFromUrl(source.url)
      return { type: 'image' }
    }
    case 'thinking': {
      const part: Part = { type: 'thinking', variant: 'thinking', text: str(block.thinking) ?? '' }
      if (typeof block.signature === 'string') part.signature = block.signature
      return part
    }
    case 'redacted_thinking':
      return { type: 'thinking', variant: 'redacted_thinking', encrypted: str(block.data) ?? '' }
    case 'reasoning':
      return { type: 'thinking', variant: 'reasoning', text: str(block.reasoning) ?? '' }
    default:
      return { type: 'opaque', kind: str(block.type) ?? 'unknown', raw: block }
  }
}

/**
 * `content` (string or block list) in the canonical shape; `tool_use` blocks whose id is in
 * `skipIds` are dropped (they are the message's tool calls already).
 */
function contentOf(content: unknown, skipIds: ReadonlySet<string>): string | Part[] | null {
  if (content === null || content === undefined) return ''
  if (typeof content === 'string') return content
  if (!Array.isArray(content)) return [{ type: 'opaque', kind: 'unknown', raw: content }]
  const kept = content.filter(
    (b) => !(isObject(b) && b.type === 'tool_use' && typeof b.id === 'string' && skipIds.has(b.id)),
  )
  return normalizeParts(kept.map(blockToPart), '')
}

/** Tool-call arguments as JSON text: objects serialized, strings raw (formats.md §1 item 3). */
function argumentsText(args: unknown): string {
  if (typeof args === 'string') return args
  if (args === undefined || args === null) return '{}'
  return JSON.stringify(args)
}

/**
 * The tool calls of an AI message, in the first shape present: parsed `tool_calls[].args`
 * (objects → JSON text) plus `invalid_tool_calls` (raw `args` string; the model did emit them);
 * else the provider's raw `additional_kwargs.tool_calls` (OpenAI shape, `arguments` string); else
 * Anthropic `tool_use` blocks inside `content`. Never both copies (formats.md §4.8 pitfalls).
 */
function toolCallsOf(data: JsonObject, field: string, warnings: string[]): ToolCall[] {
  const calls: ToolCall[] = []
  const parsed = Array.isArray(data.tool_calls) ? data.tool_calls : []
  const invalid = Array.isArray(data.invalid_tool_calls) ? data.invalid_tool_calls : []
  for (const c of parsed) {
    if (!isObject(c)) continue
    calls.push({ id: str(c.id) ?? '', name: str(c.name) ?? '', arguments: argumentsText(c.args) })
  }
  for (const c of invalid) {
    if (!isObject(c)) continue
    calls.push({ id: str(c.id) ?? '', name: str(c.name) ?? '', arguments: argumentsText(c.args) })
    warnings.push(
      `${field}.invalid_tool_calls: call "${str(c.name) ?? ''}" has arguments that are not ` +
        'valid JSON, kept raw',
    )
  }
  if (calls.length > 0) return calls
  const kwargs = isObject(data.additional_kwargs) ? data.additional_kwargs : {}
  if (Array.isArray(kwargs.tool_calls)) {
    for (const c of kwargs.tool_calls) {
      if (!isObject(c)) continue
      const fn = isObject(c.function) ? c.function : {}
      calls.push({
        id: str(c.id) ?? '',
        name: str(fn.name) ?? '',
        arguments: argumentsText(fn.arguments),
      })
    }
    if (calls.length > 0) return calls
  }
  if (Array.isArray(data.content)) {
    for (const b of data.content) {
      if (!isObject(b) || b.type !== 'tool_use') continue
      calls.push({
        id: str(b.id) ?? '',
        name: str(b.name) ?? '',
        arguments: argumentsText(b.input),
      })
    }
  }
  return calls
}

/** Whether a human message is a SummarizationMiddleware summary (formats.md §4.8). */
function isSummaryMessage(data: JsonObject, content: string | Part[] | null): boolean {
  const kwargs = isObject(data.additional_kwargs) ? data.additional_kwargs : {}
  if (kwargs.lc_source === 'summarization') return true
  const text =
    typeof content === 'string'
      ? content
      : Array.isArray(content) && content[0]?.type === 'text'
        ? content[0].text
        : ''
  return text.trimStart().startsWith(LANGCHAIN_SUMMARY_PREFIX)
}

/** Readable summary text without the middleware's fixed opening line. */
function summaryTextOf(content: string | Part[] | null): string | null {
  const text =
    typeof content === 'string'
      ? content
      : Array.isArray(content)
        ? content
            .filter((p) => p.type === 'text')
            .map((p) => (p as { text: string }).text)
            .join('\n')
        : ''
  const trimmed = text.trimStart()
  return trimmed.startsWith(LANGCHAIN_SUMMARY_PREFIX)
    ? trimmed.slice(LANGCHAIN_SUMMARY_PREFIX.length).trim()
    : text
}

/**
 * Imports LangChain messages: the `messages_to_dict` list `[{type, data}]`, the flat
 * `model_dump()` dicts `[{type, content, tool_calls?, tool_call_id?, …}]` (a list, or LangGraph
 * state `{messages:[…]}`; both shapes may be mixed) and the `dumpd` shape
 * `[{lc:1, type:"constructor", id:[…, "<Class>"], kwargs}]`. Every type LangChain reads back is
 * accepted (`LANGCHAIN_TYPES`: the `*MessageChunk` class names of streamed messages,
 * `user`/`assistant`/`developer`); a `remove` (RemoveMessage) is skipped with a warning. Types map
 * `human` → user, `ai` → assistant, `tool` → tool (`tool_call_id`; `status:"error"` → isError),
 * `system` → system, `chat` → `data.role` (user when it is not a canonical role), `function` →
 * tool answering the oldest open legacy `additional_kwargs.function_call` (pairing by order, ids
 * `fc-<position>`). Tool calls: see `toolCallsOf` (arguments as JSON text). A human message with
 * `additional_kwargs.lc_source:"summarization"` or starting "Here is a summary of the conversation
 * to date:" is a SummarizationMiddleware summary: kept as a message with `flags.compactSummary`
 * and recorded as a `RecordedCompaction` at its own position (the messages before it were
 * replaced). Ids: `data.id` when present (unique-suffixed), else `m<index>`. Items that are not
 * messages are skipped with a warning naming `items[i]`. Throws an ImportError-shaped object
 * naming the field when there is no message list; never modifies `root`. Source: formats.md §4.8.
 */
export function importLangChainRoot(root: unknown, options: ImportOptions = {}): Transcript {
  const keepRaw = options.keepRaw ?? true
  const list = messageList(root)
  if (!list)
    importFailure('expected an array of LangChain messages ({type, data} or {type, content})', {
      field: 'items',
    })
  const drafts: DraftMessage[] = []
  const compactions: DraftCompaction[] = []
  const warnings: string[] = []
  const toolNames = new Map<string, string>()
  const pendingLegacy: ToolCall[] = []

  list.forEach((item, i) => {
    const field = `items[${i}]`
    const record = asRecord(item)
    if (!record) {
      warnings.push(
        `${field}: not a LangChain message ({type, data}, {type, content} or dumpd), skipped`,
      )
      return
    }
    const { type, data } = record
    if (type === 'remove') {
      warnings.push(
        `${field}: a RemoveMessage (id ${quoteForMessage(str(data.id) ?? '')}) is an instruction ` +
          'to the LangGraph state reducer, not a message; skipped',
      )
      return
    }
    let role: Role | undefined = LANGCHAIN_ROLES[type]
    if (type === 'chat') {
      const r = str(data.role)
      role =
        r === 'assistant' || r === 'system' || r === 'user'
          ? r
          : r === 'ai'
            ? 'assistant'
            : 'user'
    }
    if (!role) {
      warnings.push(`${field}.type: ${quoteForMessage(type)} is not a LangChain message type, skipped`)
      return
    }
    const source: SourceRef = { format, line: i + 1 }
    if (keepRaw) source.raw = item
    const d: DraftMessage = { id: str(data.id) ?? '', role, content: '', source }

    if (role === 'assistant') {
      const calls = toolCallsOf(data, `${field}.data`, warnings)
      const kwargs = isObject(data.additional_kwargs) ? data.additional_kwargs : {}
      if (calls.length === 0 && isObject(kwargs.function_call)) {
        const fc = kwargs.function_call
        const call: ToolCall = {
          id: `fc-${drafts.length}`,
          name: str(fc.name) ?? '',
          arguments: argumentsText(fc.arguments),
        }
        calls.push(call)
        pendingLegacy.push(call)
      }
      d.content = contentOf(data.content, new Set(calls.map((c) => c.id)))
      for (const c of calls) toolNames.set(c.id, c.name)
      if (calls.length > 0) d.toolCalls = calls
    } else {
      d.content = contentOf(data.content, new Set())
    }

    if (type === 'tool') {
      const id = str(data.tool_call_id) ?? ''
      if (id === '') warnings.push(`${field}.data.tool_call_id: missing`)
      d.toolCallId = id
      const name = toolNames.get(id) ?? str(data.name)
      if (name !== undefined) d.toolName = name
      if (data.status === 'error') d.isError = true
    } else if (type === 'function') {
      pairLegacyFunctionResult(pendingLegacy, str(data.name), d, drafts.length, field, warnings)
    } else if (role === 'user' && isSummaryMessage(data, d.content)) {
      d.flags = { compactSummary: true }
      compactions.push({
        atIndex: drafts.length,
        summaryIndex: drafts.length,
        summaryText: summaryTextOf(d.content),
        source: format,
      })
    }
    drafts.push(d)
  })
  if (drafts.length === 0) importFailure('no LangChain messages found', { field: 'items' })
  return finalizeTranscript(format, drafts, compactions, warnings)
}

/** The LangChain importer for the format registry (formats.md §2 item 8, §4.8). */
export const langchainImporter: FormatImporter<typeof format> = {
  id: format,
  label: 'LangChain message dicts',
  container: 'json',
  priority: 8,
  requestFormat: null,
  description:
    'LangChain messages: messages_to_dict [{type, data}], model_dump() dicts [{type, content}] ' +
    '(or LangGraph state {messages}), dumpd constructors',
  extensions: ['.json'],
  detect: detectLangChain,
  closeness(input) {
    const list = messageList(input)
    if (!list || list.length === 0) return 0
    const head = list.slice(0, 50)
    return head.filter((x) => asRecord(x) !== undefined).length / head.length
  },
  importParsed: importLangChainRoot,
}
