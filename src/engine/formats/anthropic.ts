import type { FormatId, Part, SourceRef, ToolCall, ToolSchema, Transcript } from '../model'
import { importFailure } from './failure'
import { chatListMismatch, hasOpenAIChatSignal } from './openai-chat'
import { requestLogParts, requestLogUsage } from './request-log'
import type { FormatImporter } from './types'
import {
  finalizeTranscript,
  imageFromUrl,
  isObject,
  normalizeParts,
  resolveUsage,
  str,
  type DraftCompaction,
  type DraftMessage,
  type JsonObject,
} from './util'
import { quoteForMessage } from '../util/text'

/** Options shared by the importers that take a parsed root. */
export interface RootImportOptions {
  /** Keep each message's original record in `source.raw` (default true). */
  keepRaw?: boolean
}

/**
 * One Anthropic content block (not `tool_use` / `tool_result`) as a canonical part: `text` → text;
 * `image` → image (base64 payloads become a data URL, never text); `thinking` / `redacted_thinking`
 * → a thinking part whose `signature` / `data` are kept byte-identical; everything else (documents,
 * `compaction`, server-tool blocks, unknown types) → an opaque part holding the block untouched.
 * Source: formats.md §4.3 "Blocks", §1 items 11–12.
 */
function anthropicBlockToPart(block: unknown): Part {
  if (typeof block === 'string') return { type: 'text', text: block }
  if (!isObject(block)) return { type: 'opaque', kind: 'unknown', raw: block }
  switch (block.type) {
    case 'text':
      return { type: 'text', text: str(block.text) ?? '' }
    case 'image': {
      const source = isObject(block.source) ? block.source : {}
      const mediaType = str(source.media_type)
      if (source.type === 'base64' && typeof source.data === 'string') {
        return imageFromUrl(`data:${mediaType ?? 'application/octet-stream'};base64,${source.data}`)
      }
      const url = str(source.url) ?? str(source.file_id)
      const part = url !== undefined ? imageFromUrl(url, mediaType) : ({ type: 'image' } as Part)
      return part
    }
    case 'thinking': {
      const part: Part = { type: 'thinking', variant: 'thinking' }
      if (typeof block.thinking === 'string') part.text = block.thinking
      if (typeof block.signature === 'string') part.signature = block.signature
      return part
    }
    case 'redacted_thinking': {
      const part: Part = { type: 'thinking', variant: 'redacted_thinking' }
      if (typeof block.data === 'string') part.encrypted = block.data
      return part
    }
    default:
      return { type: 'opaque', kind: str(block.type) ?? 'unknown', raw: block }
  }
}

/** A `text` block that carries citations (a non-empty `citations` array). */
function isCitedText(block: unknown): boolean {
  return (
    isObject(block) &&
    block.type === 'text' &&
    Array.isArray(block.citations) &&
    block.citations.length > 0
  )
}

/**
 * Appends `block` (the block right after `prev` in its content array) to `parts` as
 * `anthropicBlockToPart` does, except that a `text` block right after a `text` block, where
 * either carries `citations`, is appended to that block's text part as is: the API splits one
 * answer into several text blocks around its cited spans, and they read as one text when
 * concatenated without a separator ("Der Rhein steht bei " + "3,12 m." with a citation is
 * "Der Rhein steht bei 3,12 m."). Other adjacent text blocks stay parts of their own (joined
 * with "\n" by `normalizeParts`). Source: formats.md §4.3 "Blocks"; Anthropic Citations docs
 * (response `content` is text blocks, the cited ones with `citations`).
 */
function pushBlockPart(parts: Part[], block: unknown, prev: unknown): void {
  const last = parts[parts.length - 1]
  if (
    last?.type === 'text' &&
    isObject(block) &&
    block.type === 'text' &&
    isObject(prev) &&
    prev.type === 'text' &&
    (isCitedText(block) || isCitedText(prev))
  ) {
    parts[parts.length - 1] = { type: 'text', text: last.text + (str(block.text) ?? '') }
    return
  }
  parts.push(anthropicBlockToPart(block))
}

/** A block array as parts (`pushBlockPart`: citation-split text is one text part). */
function blocksToParts(blocks: readonly unknown[]): Part[] {
  const parts: Part[] = []
  blocks.forEach((b, i) => pushBlockPart(parts, b, blocks[i - 1]))
  return parts
}

/**
 * `tool_result.content` in the canonical shape: a string as is; a block array through
 * `anthropicBlockToPart`, text-only arrays joined with "\n"; absent or null → ''. Source:
 * formats.md §1 item 4.
 */
function anthropicResultContent(content: unknown): string | Part[] {
  if (content === undefined || content === null) return ''
  if (typeof content === 'string') return content
  if (Array.isArray(content)) return normalizeParts(blocksToParts(content), '') ?? ''
  return [{ type: 'opaque', kind: 'unknown', raw: content }]
}

/** A `tool_result` block split out of a user message. */
export interface AnthropicToolResult {
  toolCallId: string
  content: string | Part[]
  isError: boolean
  block: JsonObject
}

/**
 * Splits user-role content into its `tool_result` blocks (in order) and the remaining blocks as one
 * user content (`null` when there are none). A string is user text. The caller emits the tool
 * messages first, then the user message (the API puts results before any text). Source: SPEC §1,
 * formats.md §3 "Roles".
 */
export function splitUserContent(content: unknown): {
  results: AnthropicToolResult[]
  user: string | Part[] | null
} {
  if (typeof content === 'string') return { results: [], user: content }
  if (!Array.isArray(content))
    return { results: [], user: content == null ? '' : [anthropicBlockToPart(content)] }
  const results: AnthropicToolResult[] = []
  const rest: Part[] = []
  content.forEach((block: unknown, i) => {
    if (isObject(block) && block.type === 'tool_result') {
      results.push({
        toolCallId: str(block.tool_use_id) ?? '',
        content: anthropicResultContent(block.content),
        isError: block.is_error === true,
        block,
      })
    } else {
      pushBlockPart(rest, block, content[i - 1])
    }
  })
  return { results, user: rest.length > 0 ? normalizeParts(rest, '') : null }
}

/** Assistant-role content split into parts, tool calls and recorded compaction blocks. */
export interface AnthropicAssistantContent {
  /** Text-only → string; no parts at all (only tool_use) → null. */
  content: string | Part[] | null
  toolCalls: ToolCall[]
  /** `content` of each beta `compaction` block; null = failed compaction (formats.md §4.3). */
  compactions: (string | null)[]
}

/**
 * Splits assistant content: `tool_use` → tool calls with `arguments = JSON.stringify(input)` (the
 * object is re-serialized compactly; `{}` when absent); a repeated `tool_use` id is dropped
 * (duplicate writes, formats.md §1 item 15); everything else through `anthropicBlockToPart`, in
 * order. `compaction` blocks stay opaque parts and are reported.
 */
export function splitAssistantContent(content: unknown): AnthropicAssistantContent {
  if (typeof content === 'string') return { content, toolCalls: [], compactions: [] }
  const blocks = Array.isArray(content) ? content : content == null ? [] : [content]
  const parts: Part[] = []
  const toolCalls: ToolCall[] = []
  const compactions: (string | null)[] = []
  const seen = new Set<string>()
  for (const [i, block] of blocks.entries()) {
    if (isObject(block) && block.type === 'tool_use') {
      const id = str(block.id) ?? ''
      if (id !== '' && seen.has(id)) continue
      seen.add(id)
      const args = block.input === undefined ? '{}' : JSON.stringify(block.input)
      toolCalls.push({ id, name: str(block.name) ?? '', arguments: args })
      continue
    }
    if (isObject(block) && block.type === 'compaction') {
      compactions.push(typeof block.content === 'string' ? block.content : null)
    }
    pushBlockPart(parts, block, blocks[i - 1])
  }
  return { content: normalizeParts(parts, null), toolCalls, compactions }
}

/**
 * A server-tool call block inside assistant content: `server_tool_use` (web search, web fetch,
 * code execution, tool search…), `mcp_tool_use` (MCP connector), or any later `*_tool_use` with
 * an `id`. Anthropic runs these tools itself. Source: formats.md §4.3 "Blocks"; the Messages API
 * content block types (`ServerToolUseBlock`, `BetaMCPToolUseBlock`).
 */
function isServerCall(block: unknown): block is JsonObject {
  return (
    isObject(block) &&
    typeof block.type === 'string' &&
    block.type.endsWith('_tool_use') &&
    typeof block.id === 'string'
  )
}

/**
 * A server-tool result block inside assistant content: `web_search_tool_result`,
 * `web_fetch_tool_result`, `code_execution_tool_result`, `bash_code_execution_tool_result`,
 * `text_editor_code_execution_tool_result`, `tool_search_tool_result`, `mcp_tool_result`, or any
 * later `*_tool_result` with a `tool_use_id` (the client's own `tool_result` is not one).
 */
function isServerResult(block: unknown): block is JsonObject {
  return (
    isObject(block) &&
    typeof block.type === 'string' &&
    block.type.endsWith('_tool_result') &&
    typeof block.tool_use_id === 'string'
  )
}

/**
 * The canonical content of a server-tool result block, as the `tool` message holding it
 * carries it: its `content` string or block array through `anthropicBlockToPart` (text-only →
 * one string; `web_search_result` blocks stay opaque parts), an object content (`web_fetch_result`,
 * `code_execution_result`, an `*_error`) as one opaque part of its own `type`; absent → ''.
 * `isError`: `is_error: true`, or an error content (`type` ending in `_error`). Pure, so export
 * can tell an untouched result from a replaced one. Source: formats.md §4.3 "Blocks".
 */
export function serverResultContent(block: JsonObject): {
  content: string | Part[]
  isError: boolean
} {
  const c = block.content
  const errorContent = isObject(c) && typeof c.type === 'string' && c.type.endsWith('_error')
  const content: string | Part[] =
    c === undefined || c === null
      ? ''
      : typeof c === 'string' || Array.isArray(c)
        ? anthropicResultContent(c)
        : [{ type: 'opaque', kind: str(isObject(c) ? c.type : undefined) ?? 'unknown', raw: c }]
  return { content, isError: block.is_error === true || errorContent }
}

/** A server-tool result split out of assistant content. */
/** A server tool's result block, in the same shape as a client tool's `tool_result`. */
type ServerResult = AnthropicToolResult

/** One assistant message of the canonical model cut from an Anthropic assistant message. */
export interface AssistantTurn extends AnthropicAssistantContent {
  /** Results of this turn's server-tool calls, in block order: `tool` messages right after it. */
  results: ServerResult[]
  /** Index in the content's blocks of this turn's first block (0 for the first turn). */
  start: number
}

/**
 * Splits Anthropic assistant content into canonical assistant messages, each followed by the
 * results of its server-tool calls. Anthropic runs server tools (web search, web fetch, code
 * execution, MCP connector) itself and returns call and result in the SAME assistant message
 * (`server_tool_use`, then `web_search_tool_result`, then more text); in the canonical model a
 * call is a tool call and its result a `tool` message right after the call's message, so they
 * count, pair and prune like any other. A server call → a tool call with `native: {kind, raw,
 * hosted: true, result}` (`arguments` = `JSON.stringify(input)`); each run of result blocks
 * ends the current message, its results become `tool` messages (`serverResultContent`), and
 * what follows opens the next message. Client `tool_use` calls go to the last message (their
 * `tool_result`s open the next user message), a repeated `tool_use` id is dropped, and
 * `compaction` blocks are reported as in `splitAssistantContent`. Content without server-tool
 * blocks gives one message, as `splitAssistantContent` does. `hosted` (server calls by id, shared
 * by the messages of one transcript) gets this content's server calls, so a result block in a
 * later message (a turn resumed after `pause_turn`) finds its call. Each turn names the block it
 * starts at (`start`), so a caller whose blocks came from several records can tell which record
 * opened it. Source: formats.md §4.3 "Blocks".
 */
export function splitAssistantTurns(content: unknown, hosted: Map<string, ToolCall>): AssistantTurn[] {
  if (typeof content === 'string')
    return [{ content, toolCalls: [], compactions: [], results: [], start: 0 }]
  const blocks = Array.isArray(content) ? content : content == null ? [] : [content]
  const turns: AssistantTurn[] = []
  let parts: Part[] = []
  let calls: ToolCall[] = []
  let compactions: (string | null)[] = []
  let results: ServerResult[] = []
  const clientCalls: ToolCall[] = []
  const seen = new Set<string>()
  let start = 0
  const close = () => {
    turns.push({ content: normalizeParts(parts, null), toolCalls: calls, compactions, results, start })
    parts = []
    calls = []
    compactions = []
    results = []
  }
  for (const [i, block] of blocks.entries()) {
    if (isServerResult(block)) {
      const toolCallId = str(block.tool_use_id) ?? ''
      const call = hosted.get(toolCallId)
      if (call?.native) call.native.result = block
      results.push({ toolCallId, ...serverResultContent(block), block })
      continue
    }
    // Anything after a run of results opens the next message.
    if (results.length > 0) {
      close()
      start = i
    }
    if (isObject(block) && block.type === 'tool_use') {
      const id = str(block.id) ?? ''
      if (id !== '' && seen.has(id)) continue
      seen.add(id)
      const args = block.input === undefined ? '{}' : JSON.stringify(block.input)
      clientCalls.push({ id, name: str(block.name) ?? '', arguments: args })
      continue
    }
    if (isServerCall(block)) {
      const id = str(block.id) ?? ''
      const args = block.input === undefined ? '{}' : JSON.stringify(block.input)
      const kind = str(block.type) ?? 'server_tool_use'
      const call: ToolCall = {
        id,
        name: str(block.name) ?? '',
        arguments: args,
        native: { kind, raw: block, hosted: true },
      }
      hosted.set(id, call)
      calls.push(call)
      continue
    }
    if (isObject(block) && block.type === 'compaction') {
      compactions.push(typeof block.content === 'string' ? block.content : null)
    }
    pushBlockPart(parts, block, blocks[i - 1])
  }
  if (results.length > 0 || turns.length === 0 || parts.length > 0 || calls.length > 0) close()
  for (const item of clientCalls) turns[turns.length - 1]!.toolCalls.push(item)
  return turns
}

/** Top-level `system` (string or text blocks) as one string; '' when absent. */
function systemText(system: unknown): string {
  if (typeof system === 'string') return system
  if (Array.isArray(system)) {
    return system
      .map((b) => (typeof b === 'string' ? b : isObject(b) ? (str(b.text) ?? '') : ''))
      .join('\n')
  }
  return ''
}

/** Anthropic `tools` (`{name, description, input_schema}`; server tools by name) as schemas. */
function anthropicTools(tools: unknown): ToolSchema[] | undefined {
  if (!Array.isArray(tools)) return undefined
  const out: ToolSchema[] = []
  for (const t of tools) {
    if (!isObject(t) || typeof t.name !== 'string') continue
    const schema: ToolSchema = { name: t.name }
    if (typeof t.description === 'string') schema.description = t.description
    if (t.input_schema !== undefined) schema.parameters = t.input_schema
    out.push(schema)
  }
  return out
}

/**
 * The messages array of an Anthropic root: `{system?, messages, tools?}`, a bare array, or a single
 * response object `{type:"message", role, content}`.
 */
function anthropicMessages(root: unknown): unknown[] | undefined {
  if (Array.isArray(root)) return root
  if (!isObject(root)) return undefined
  if (Array.isArray(root.messages)) return root.messages
  if (root.type === 'message' && typeof root.role === 'string') return [root]
  return undefined
}

/**
 * Whether a root is one Messages API *response* (`{id, type:"message", role:"assistant", content,
 * stop_reason, usage}`), not a request body. Source: formats.md §4.3 "Response".
 */
function isResponseMessage(root: unknown): boolean {
  return (
    isObject(root) &&
    !Array.isArray(root.messages) &&
    root.type === 'message' &&
    root.role === 'assistant'
  )
}

/**
 * Imports an Anthropic Messages request body (or a bare messages array, or one response message,
 * or a `{request, response}` log — `requestLogParts` — whose response message is the last
 * message and whose `usage` the transcript's recorded usage at it, `requestLogUsage`).
 * A response is imported, not rejected: its one assistant message (text, thinking, tool calls) is
 * what a person holding only the response wants to read and count, and a warning says the
 * request's messages are absent (so there is nothing before it to compact).
 * Top-level `system` → a leading `system` message; each `tool_result` block → one `tool` message in
 * order (`is_error` → `isError`, tool name resolved from the `tool_use`), then the user message's
 * other blocks as one `user` message; server tools (`server_tool_use` / `mcp_tool_use` and their
 * result blocks, in the assistant message) → a tool call and a `tool` message right after it,
 * the message's text after the result continuing as another assistant message
 * (`splitAssistantTurns`); `thinking` / `redacted_thinking` kept as opaque thinking
 * parts; a beta `compaction` block → a `RecordedCompaction` at its message (summaryText = its
 * `content`). An inline `system` role message is kept as a system message; messages that are not
 * objects or have another role are skipped with a warning naming `messages[i]`. Throws
 * `ImportFailure` (field `messages`) without a messages list or when no message is kept; never
 * modifies `root`. Source: formats.md §4.3, SPEC §1.
 */
function importAnthropic(input: unknown, options: RootImportOptions = {}): Transcript {
  const format: FormatId = 'anthropic-messages'
  const keepRaw = options.keepRaw ?? true
  const log = requestLogParts(input)
  const root = log.request
  const requestList = anthropicMessages(root)
  if (!requestList) importFailure('expected an object with a "messages" array', { field: 'messages' })
  // A request + response log: the response message is the conversation's last turn.
  const logged = isResponseMessage(log.response) ? log.response : undefined
  const list = logged ? [...requestList, logged] : requestList
  let responseAt: number | undefined
  const drafts: DraftMessage[] = []
  const compactions: DraftCompaction[] = []
  const warnings: string[] = []
  if (log.response && !logged)
    warnings.push("response: not a Messages response, so only the request's messages are imported")
  if (isResponseMessage(root)) {
    warnings.push(
      'this is an API response, not a conversation: only the model\'s reply is in it, ' +
        "the request's messages are not",
    )
  }
  const toolNames = new Map<string, string>()
  const hostedCalls = new Map<string, ToolCall>()
  const src = (line: number | undefined, raw: unknown): SourceRef => {
    const s: SourceRef = { format }
    if (line !== undefined) s.line = line
    if (keepRaw) s.raw = raw
    return s
  }
  /** A tool message for a client or server tool result of message `i`. */
  const pushResult = (r: AnthropicToolResult, i: number) => {
    const d: DraftMessage = {
      id: '',
      role: 'tool',
      content: r.content,
      toolCallId: r.toolCallId,
      source: src(i + 1, r.block),
    }
    const name = toolNames.get(r.toolCallId)
    if (name !== undefined) d.toolName = name
    if (r.isError) d.isError = true
    drafts.push(d)
  }

  if (isObject(root) && root.system !== undefined) {
    const text = systemText(root.system)
    if (text !== '')
      drafts.push({ id: '', role: 'system', content: text, source: src(undefined, root.system) })
  }
  let imported = 0
  list.forEach((m, i) => {
    if (logged !== undefined && i === requestList.length) responseAt = drafts.length
    const field = i < requestList.length ? `messages[${i}]` : 'response'
    if (!isObject(m)) {
      warnings.push(`${field}: not an object, skipped`)
      return
    }
    const role = m.role
    if (role === 'user') {
      const { results, user } = splitUserContent(m.content)
      for (const r of results) pushResult(r, i)
      if (user !== null) drafts.push({ id: '', role: 'user', content: user, source: src(i + 1, m) })
      imported++
    } else if (role === 'assistant') {
      for (const turn of splitAssistantTurns(m.content, hostedCalls)) {
        for (const call of turn.toolCalls) toolNames.set(call.id, call.name)
        const at = drafts.length
        // A turn that is only server-tool results (no call before them in this message).
        if (turn.content !== null || turn.toolCalls.length > 0 || turn.results.length === 0) {
          const d: DraftMessage = {
            id: '',
            role: 'assistant',
            content: turn.content,
            source: src(i + 1, m),
          }
          if (turn.toolCalls.length > 0) d.toolCalls = turn.toolCalls
          drafts.push(d)
        }
        for (const r of turn.results) pushResult(r, i)
        for (const summary of turn.compactions) {
          if (summary === null) {
            warnings.push(
              `${field}: compaction block with null content (a failed compaction), kept as is`,
            )
            continue
          }
          compactions.push({ atIndex: at, summaryText: summary, source: format })
        }
      }
      imported++
    } else if (role === 'system') {
      // Not an API role, but logs sometimes carry the system prompt inline: keep it as one.
      const parts = Array.isArray(m.content) ? m.content.map(anthropicBlockToPart) : null
      const content = parts
        ? normalizeParts(parts, '')
        : typeof m.content === 'string'
          ? m.content
          : ''
      drafts.push({ id: '', role: 'system', content, source: src(i + 1, m) })
      imported++
    } else {
      warnings.push(`${field}.role: ${quoteForMessage(role)} is not user or assistant, skipped`)
    }
  })
  if (imported === 0) importFailure('no messages found in messages', { field: 'messages' })
  const tools = isObject(root) ? anthropicTools(root.tools) : undefined
  const transcript = finalizeTranscript(format, drafts, compactions, warnings, {
    ...(tools ? { tools } : {}),
    model: isObject(root) ? str(root.model) : undefined,
  })
  if (isResponseMessage(root)) transcript.responseOnly = true
  const usage = responseAt === undefined ? undefined : requestLogUsage(input, logged, responseAt)
  const recorded = usage ? resolveUsage(transcript.messages, [usage]) : undefined
  if (recorded) transcript.usage = recorded
  return transcript
}

/** Content block types only Anthropic Messages has (formats.md §4.3 "Blocks", server tools too). */
const ANTHROPIC_BLOCKS = new Set([
  'tool_use',
  'tool_result',
  'thinking',
  'redacted_thinking',
  'compaction',
  'server_tool_use',
  'mcp_tool_use',
  'mcp_tool_result',
  'web_search_tool_result',
  'web_fetch_tool_result',
  'code_execution_tool_result',
])

/**
 * Detection (formats.md §2 item 11): a bare array or `{messages}` of chat-role messages
 * (`chatListMismatch`) with no OpenAI-only signal (`hasOpenAIChatSignal`) and either a block only
 * Anthropic has (`tool_use`, `tool_result`, thinking, `compaction`, server tools of any name —
 * `isServerCall` / `isServerResult` — `image` with `source`) or, with only user/assistant roles,
 * a top-level `system` or `input_schema` tools; or one response message `{type:"message", role,
 * content: [blocks]}`; a `{request, response}` log is judged by its request, and is Anthropic
 * when its response is a Messages response. Runs before the OpenAI chat detector, which accepts
 * every other chat-role list.
 */
function detectAnthropic(input: unknown): true | string {
  const log = requestLogParts(input)
  const root = log.request
  const list = Array.isArray(root) ? root : isObject(root) ? root.messages : undefined
  if (!Array.isArray(list)) {
    const reply =
      isObject(root) &&
      root.type === 'message' &&
      (root.role === 'assistant' || root.role === 'user') &&
      Array.isArray(root.content)
    return reply || 'no messages array and not one response message {type:"message", content}'
  }
  const mismatch = chatListMismatch(list, Array.isArray(root) ? 'items' : 'messages')
  if (mismatch !== undefined) return mismatch
  let blocks = false
  let onlyUserAssistant = true
  for (const m of list as JsonObject[]) {
    if (hasOpenAIChatSignal(m)) return 'has OpenAI-only fields (tool roles, tool_calls, parts)'
    if (m.role !== 'user' && m.role !== 'assistant') onlyUserAssistant = false
    if (!Array.isArray(m.content)) continue
    for (const b of m.content) {
      if (!isObject(b) || typeof b.type !== 'string') continue
      const type = b.type
      const image = type === 'image' && 'source' in b
      if (ANTHROPIC_BLOCKS.has(type) || image || isServerCall(b) || isServerResult(b)) blocks = true
    }
  }
  if (blocks || isResponseMessage(log.response)) return true
  const rootHints =
    isObject(root) &&
    (root.system !== undefined ||
      (Array.isArray(root.tools) && root.tools.some((t) => isObject(t) && 'input_schema' in t)))
  if (rootHints && onlyUserAssistant) return true
  return 'no Anthropic-only block (tool_use, tool_result, thinking) nor a top-level system'
}

/** Anthropic Messages request bodies (formats.md §4.3). */
export const anthropicImporter: FormatImporter<'anthropic-messages'> = {
  id: 'anthropic-messages',
  label: 'Anthropic Messages',
  container: 'json',
  priority: 11,
  requestFormat: 'anthropic',
  description: 'Anthropic Messages API request body {system?, messages, tools?}',
  extensions: ['.json'],
  detect: detectAnthropic,
  importParsed: (input, options) =>
    importAnthropic(input, options.keepRaw === undefined ? {} : { keepRaw: options.keepRaw }),
}
