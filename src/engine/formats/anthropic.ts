import type { FormatId, Part, SourceRef, ToolCall, ToolSchema } from '../model'
import type { ImportResult } from './types'
import {
  finalizeTranscript,
  imageFromUrl,
  isObject,
  normalizeParts,
  str,
  type DraftCompaction,
  type DraftMessage,
  type JsonObject,
} from './util'

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

/**
 * `tool_result.content` in the canonical shape: a string as is; a block array through
 * `anthropicBlockToPart`, text-only arrays joined with "\n"; absent or null → ''. Source:
 * formats.md §1 item 4.
 */
function anthropicResultContent(content: unknown): string | Part[] {
  if (content === undefined || content === null) return ''
  if (typeof content === 'string') return content
  if (Array.isArray(content)) return normalizeParts(content.map(anthropicBlockToPart), '') ?? ''
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
  for (const block of content) {
    if (isObject(block) && block.type === 'tool_result') {
      results.push({
        toolCallId: str(block.tool_use_id) ?? '',
        content: anthropicResultContent(block.content),
        isError: block.is_error === true,
        block,
      })
    } else {
      rest.push(anthropicBlockToPart(block))
    }
  }
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
  for (const block of blocks) {
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
    parts.push(anthropicBlockToPart(block))
  }
  return { content: normalizeParts(parts, null), toolCalls, compactions }
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
 * Imports an Anthropic Messages request body (or a bare messages array, or one response message).
 * Top-level `system` → a leading `system` message; each `tool_result` block → one `tool` message in
 * order (`is_error` → `isError`, tool name resolved from the `tool_use`), then the user message's
 * other blocks as one `user` message; `thinking` / `redacted_thinking` kept as opaque thinking
 * parts; a beta `compaction` block → a `RecordedCompaction` at its message (summaryText = its
 * `content`). An inline `system` role message is kept as a system message; messages that are not
 * objects or have another role are skipped with a warning naming `messages[i]`. Never throws; never
 * modifies `root`. Source: formats.md §4.3, SPEC §1.
 */
export function importAnthropic(root: unknown, options: RootImportOptions = {}): ImportResult {
  const format: FormatId = 'anthropic-messages'
  const keepRaw = options.keepRaw ?? true
  const list = anthropicMessages(root)
  if (!list) {
    return {
      ok: false,
      error: { message: 'expected an object with a "messages" array', field: 'messages' },
    }
  }
  const drafts: DraftMessage[] = []
  const compactions: DraftCompaction[] = []
  const warnings: string[] = []
  const toolNames = new Map<string, string>()
  const src = (line: number | undefined, raw: unknown): SourceRef => {
    const s: SourceRef = { format }
    if (line !== undefined) s.line = line
    if (keepRaw) s.raw = raw
    return s
  }

  if (isObject(root) && root.system !== undefined) {
    const text = systemText(root.system)
    if (text !== '')
      drafts.push({ id: '', role: 'system', content: text, source: src(undefined, root.system) })
  }
  let imported = 0
  list.forEach((m, i) => {
    const field = `messages[${i}]`
    if (!isObject(m)) {
      warnings.push(`${field}: not an object, skipped`)
      return
    }
    const role = m.role
    if (role === 'user') {
      const { results, user } = splitUserContent(m.content)
      for (const r of results) {
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
      if (user !== null) drafts.push({ id: '', role: 'user', content: user, source: src(i + 1, m) })
      imported++
    } else if (role === 'assistant') {
      const split = splitAssistantContent(m.content)
      for (const call of split.toolCalls) toolNames.set(call.id, call.name)
      const at = drafts.length
      const d: DraftMessage = {
        id: '',
        role: 'assistant',
        content: split.content,
        source: src(i + 1, m),
      }
      if (split.toolCalls.length > 0) d.toolCalls = split.toolCalls
      drafts.push(d)
      for (const summary of split.compactions) {
        if (summary === null) {
          warnings.push(
            `${field}: compaction block with null content (a failed compaction), kept as is`,
          )
          continue
        }
        compactions.push({ atIndex: at, summaryText: summary, source: format })
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
      warnings.push(`${field}.role: "${String(role)}" is not user or assistant, skipped`)
    }
  })
  if (imported === 0) {
    return { ok: false, error: { message: 'no messages found in messages', field: 'messages' } }
  }
  const tools = isObject(root) ? anthropicTools(root.tools) : undefined
  return {
    ok: true,
    transcript: finalizeTranscript(format, drafts, compactions, warnings, {
      ...(tools ? { tools } : {}),
      model: isObject(root) ? str(root.model) : undefined,
    }),
  }
}
