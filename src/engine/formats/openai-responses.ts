import type {
  FormatId,
  MessageFlags,
  Part,
  SourceRef,
  ThinkingPart,
  ToolCall,
  ToolSchema,
  Transcript,
} from '../model'
import { FORMAT_LABELS } from './labels'
import { importFailure } from './failure'
import type { FormatImporter } from './registry'
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

/** Item types that belong to the model's output turn (they join the current assistant message). */
const CALL_TYPES = new Set(['function_call', 'custom_tool_call', 'local_shell_call'])
const OUTPUT_TYPES = new Set([
  'function_call_output',
  'custom_tool_call_output',
  'local_shell_call_output',
])
/** Every item type formats.md §4.2 names, for detection. */
export const RESPONSES_ITEM_TYPES = new Set([
  'message',
  'reasoning',
  'compaction',
  'compaction_summary',
  'item_reference',
  ...CALL_TYPES,
  ...OUTPUT_TYPES,
])

/** Roles of Responses message items mapped to canonical roles (`developer` → system). */
const ROLES = {
  user: 'user',
  system: 'system',
  developer: 'system',
  assistant: 'assistant',
} as const

/**
 * One Responses content part as a canonical part: `input_text` / `output_text` / `text` → text;
 * `refusal` → its text; `input_image` → image (`image_url` data URL sized from its base64 length,
 * or the `file_id`); `input_file` and unknown parts → opaque. Source: formats.md §4.2 "Items".
 */
function responsesPart(part: unknown): Part {
  if (typeof part === 'string') return { type: 'text', text: part }
  if (!isObject(part)) return { type: 'opaque', kind: 'unknown', raw: part }
  switch (part.type) {
    case 'input_text':
    case 'output_text':
    case 'text':
      return { type: 'text', text: str(part.text) ?? '' }
    case 'refusal':
      return { type: 'text', text: str(part.refusal) ?? '' }
    case 'input_image': {
      const url = str(part.image_url) ?? str(part.file_id)
      return url !== undefined ? imageFromUrl(url) : { type: 'image' }
    }
    default:
      return { type: 'opaque', kind: str(part.type) ?? 'unknown', raw: part }
  }
}

/** Content `string | parts[]` (message content or a tool output) in the canonical shape. */
function responsesContent(content: unknown): string | Part[] {
  if (typeof content === 'string') return content
  if (Array.isArray(content)) return normalizeParts(content.map(responsesPart), '') ?? ''
  if (content === null || content === undefined) return ''
  return [{ type: 'opaque', kind: 'unknown', raw: content }]
}

/**
 * A `reasoning` item as an opaque thinking part (variant `reasoning`): the readable `summary` /
 * `content` texts joined with a blank line become `text`; `encrypted_content` is kept
 * byte-identical in `encrypted`. Source: formats.md §1 item 11, §4.2.
 */
function reasoningPart(item: JsonObject): ThinkingPart {
  const texts: string[] = []
  for (const list of [item.summary, item.content]) {
    if (!Array.isArray(list)) continue
    for (const s of list) {
      const t = isObject(s) ? str(s.text) : str(s)
      if (t !== undefined && t !== '') texts.push(t)
    }
  }
  const part: ThinkingPart = { type: 'thinking', variant: 'reasoning' }
  if (texts.length > 0) part.text = texts.join('\n\n')
  const encrypted = str(item.encrypted_content)
  if (encrypted !== undefined) part.encrypted = encrypted
  return part
}

/** The item's `type`; an EasyInputMessage (`{role, content}` without `type`) is a `message`. */
export function itemType(item: JsonObject): string {
  if (typeof item.type === 'string') return item.type
  return typeof item.role === 'string' ? 'message' : 'unknown'
}

/** Where an item came from, for source refs and warnings. */
export interface ItemOrigin {
  /** 1-based JSONL line or JSON array position. */
  line: number
  /** JSON path for warnings, e.g. `input[3]` or `line 17`. */
  field: string
}

/** Options of `ResponsesItemBuilder`. */
export interface ItemBuilderOptions {
  format: FormatId
  keepRaw: boolean
  /** Flags for a user/system message by its text (Codex marks injected context). */
  flagsFor?: (role: 'user' | 'system', text: string) => MessageFlags | undefined
  /**
   * The text a tool output's `output` stands for, when the format wraps it (Codex's JSON-in-string
   * `{"output": …, "metadata": …}`); undefined keeps the output as it is.
   */
  unwrapOutput?: (output: unknown) => string | undefined
}

interface AssistantAcc {
  id: string
  parts: Part[]
  toolCalls: ToolCall[]
  raws: unknown[]
  line: number
}

/**
 * Turns a stream of Responses items (OpenAI Responses input/output, Codex `response_item`
 * payloads) into draft messages. Consecutive model-output items — `reasoning`, assistant
 * `message`s, `function_call` / `custom_tool_call` / `local_shell_call`, other server-tool items —
 * form ONE assistant message, so a reasoning item always travels with the call it precedes
 * (cases/45: a reasoning item and its function_call are a linked pair); a reasoning item or an
 * assistant message after a call starts a new assistant message. Tool outputs pair on `call_id`
 * (not the `fc_…` item `id`, formats.md §1 item 6) and are kept as text even when they hold JSON.
 * A `compaction` item becomes an assistant message holding it as an opaque part
 * (`flags.compactSummary`) and a recorded compaction with `summaryText: null` (encrypted).
 */
export class ResponsesItemBuilder {
  readonly drafts: DraftMessage[] = []
  readonly compactions: DraftCompaction[] = []
  readonly warnings: string[] = []
  private readonly toolNames = new Map<string, string>()
  private acc: AssistantAcc | null = null
  private readonly opts: ItemBuilderOptions

  constructor(opts: ItemBuilderOptions) {
    this.opts = opts
  }

  private src(line: number, raw: unknown): SourceRef {
    const s: SourceRef = { format: this.opts.format, line }
    if (this.opts.keepRaw) s.raw = raw
    return s
  }

  private assistant(item: JsonObject, at: ItemOrigin): AssistantAcc {
    if (!this.acc) {
      this.acc = { id: str(item.id) ?? '', parts: [], toolCalls: [], raws: [], line: at.line }
    }
    this.acc.raws.push(item)
    return this.acc
  }

  /** Ends the current assistant message (before a non-assistant item or a boundary). */
  flush(): void {
    const acc = this.acc
    if (!acc) return
    this.acc = null
    const d: DraftMessage = {
      id: acc.id,
      role: 'assistant',
      content: normalizeParts(acc.parts, null),
      source: this.src(acc.line, acc.raws.length === 1 ? acc.raws[0] : acc.raws),
    }
    if (acc.toolCalls.length > 0) d.toolCalls = acc.toolCalls
    this.drafts.push(d)
  }

  /** A plain text message (instructions, Codex events) outside the item stream. */
  addText(role: 'system' | 'user' | 'assistant', text: string, at: ItemOrigin, raw: unknown): void {
    this.flush()
    const d: DraftMessage = { id: '', role, content: text, source: this.src(at.line, raw) }
    if (role !== 'assistant') {
      const flags = this.opts.flagsFor?.(role, text)
      if (flags) d.flags = flags
    }
    this.drafts.push(d)
  }

  /** Adds one item; non-objects are skipped with a warning. */
  add(item: unknown, at: ItemOrigin): void {
    if (!isObject(item)) {
      this.warnings.push(`${at.field}: not an object, skipped`)
      return
    }
    const type = itemType(item)
    if (type === 'message') return this.addMessage(item, at)
    if (type === 'reasoning') {
      // Reasoning after a call opens the next model turn.
      if (this.acc && this.acc.toolCalls.length > 0) this.flush()
      this.assistant(item, at).parts.push(reasoningPart(item))
      return
    }
    if (CALL_TYPES.has(type)) {
      const call = toolCallOf(item, type)
      if (call.id === '') this.warnings.push(`${at.field}: ${type} without call_id`)
      this.toolNames.set(call.id, call.name)
      this.assistant(item, at).toolCalls.push(call)
      return
    }
    if (OUTPUT_TYPES.has(type)) return this.addOutput(item, type, at)
    if (type === 'compaction' || type === 'compaction_summary') {
      this.flush()
      const at2 = this.drafts.length
      this.drafts.push({
        id: str(item.id) ?? '',
        role: 'assistant',
        content: [{ type: 'opaque', kind: 'compaction', raw: item }],
        flags: { compactSummary: true },
        source: this.src(at.line, item),
      })
      this.compactions.push({
        atIndex: at2,
        summaryIndex: at2,
        summaryText: null,
        source: this.opts.format,
      })
      return
    }
    if (type === 'item_reference') {
      this.flush()
      this.warnings.push(
        `${at.field}: item_reference ${str(item.id) ?? ''} points to an item stored on the ` +
          'server, skipped',
      )
      return
    }
    // Server-side tool items (web_search_call, mcp_call, …) are model output: kept opaque.
    this.assistant(item, at).parts.push({ type: 'opaque', kind: type, raw: item })
  }

  private addMessage(item: JsonObject, at: ItemOrigin): void {
    const role = typeof item.role === 'string' ? ROLES[item.role as keyof typeof ROLES] : undefined
    if (!role) {
      this.flush()
      const shown = JSON.stringify(item.role ?? null)
      this.warnings.push(`${at.field}.role: ${shown} is not a message role, skipped`)
      return
    }
    const content = responsesContent(item.content)
    if (role === 'assistant') {
      if (this.acc && this.acc.toolCalls.length > 0) this.flush()
      const acc = this.assistant(item, at)
      if (typeof content === 'string') {
        if (content !== '') acc.parts.push({ type: 'text', text: content })
      } else acc.parts.push(...content)
      return
    }
    this.flush()
    const source = this.src(at.line, item)
    const d: DraftMessage = { id: str(item.id) ?? '', role, content, source }
    const text = typeof content === 'string' ? content : ''
    const flags = this.opts.flagsFor?.(role, text)
    if (flags) d.flags = flags
    this.drafts.push(d)
  }

  private addOutput(item: JsonObject, type: string, at: ItemOrigin): void {
    this.flush()
    const callId = str(item.call_id) ?? ''
    const d: DraftMessage = {
      id: str(item.id) ?? '',
      role: 'tool',
      content: this.opts.unwrapOutput?.(item.output) ?? responsesContent(item.output),
      toolCallId: callId,
      source: this.src(at.line, item),
    }
    const name = this.toolNames.get(callId)
    if (name !== undefined) d.toolName = name
    else this.warnings.push(`${at.field}: ${type} ${callId} answers no earlier call`)
    this.drafts.push(d)
  }
}

/** A call item as a tool call: `arguments` (function) or `input` (custom, freeform) kept raw. */
function toolCallOf(item: JsonObject, type: string): ToolCall {
  const id = str(item.call_id) ?? str(item.id) ?? ''
  if (type === 'local_shell_call') {
    return { id, name: 'local_shell', arguments: JSON.stringify(item.action ?? null) }
  }
  const raw = type === 'custom_tool_call' ? item.input : item.arguments
  const args = typeof raw === 'string' ? raw : raw === undefined ? '' : JSON.stringify(raw)
  return { id, name: str(item.name) ?? '', arguments: args }
}

/** Request `tools` (`{type:"function", name, description, parameters}` / custom) as schemas. */
function responsesTools(tools: unknown): ToolSchema[] | undefined {
  if (!Array.isArray(tools)) return undefined
  const out: ToolSchema[] = []
  for (const t of tools) {
    if (!isObject(t)) continue
    const name = str(t.name) ?? str(t.type)
    if (name === undefined) continue
    const schema: ToolSchema = { name }
    const description = str(t.description)
    if (description !== undefined) schema.description = description
    if (t.parameters !== undefined) schema.parameters = t.parameters
    else if (t.format !== undefined) schema.parameters = t.format
    out.push(schema)
  }
  return out.length > 0 ? out : undefined
}

/** The item lists of a Responses root, in conversation order, with their field names. */
function itemLists(root: unknown): { field: string; items: unknown[] }[] {
  if (Array.isArray(root)) return [{ field: 'items', items: root }]
  if (!isObject(root)) return []
  const lists: { field: string; items: unknown[] }[] = []
  if (typeof root.input === 'string')
    lists.push({ field: 'input', items: [{ role: 'user', content: root.input }] })
  for (const field of ['input', 'messages', 'output'] as const) {
    const v = root[field]
    if (Array.isArray(v)) lists.push({ field, items: v })
  }
  return lists
}

/**
 * Imports an OpenAI Responses request `{instructions?, input: string | items, tools?}`, a response
 * `{object:"response", output}`, a compact result `{object:"response.compaction", output}` or a
 * bare item array. `instructions` → a leading system message; items as `ResponsesItemBuilder`
 * describes. Throws an ImportError-shaped failure when there are no items. Never modifies `root`.
 * Source: formats.md §4.2, §1 items 3, 4, 6, 11, 12; cases/45.
 */
function importOpenAIResponses(root: unknown, keepRaw = true): Transcript {
  const format: FormatId = 'openai-responses'
  const lists = itemLists(root)
  if (lists.every((l) => l.items.length === 0)) {
    importFailure('no items found in input/output', { field: 'input' })
  }
  const b = new ResponsesItemBuilder({ format, keepRaw })
  if (isObject(root) && typeof root.instructions === 'string' && root.instructions !== '') {
    b.addText('system', root.instructions, { line: 0, field: 'instructions' }, root.instructions)
  }
  for (const { field, items } of lists) {
    items.forEach((item, i) => b.add(item, { line: i + 1, field: `${field}[${i}]` }))
    b.flush()
  }
  const warnings = [...b.warnings]
  if (isObject(root) && (root.previous_response_id || root.conversation)) {
    warnings.push(
      'previous_response_id/conversation: earlier history lives on the server; ' +
        'only this file is shown',
    )
  }
  const tools = isObject(root) ? responsesTools(root.tools) : undefined
  return finalizeTranscript(format, b.drafts, b.compactions, warnings, {
    ...(tools ? { tools } : {}),
    model: isObject(root) ? str(root.model) : undefined,
  })
}

function looksLikeItem(x: unknown): boolean {
  if (!isObject(x)) return false
  if (typeof x.type === 'string' && RESPONSES_ITEM_TYPES.has(x.type) && x.type !== 'message')
    return true
  return (
    Array.isArray(x.content) &&
    x.content.some((p) => isObject(p) && (p.type === 'input_text' || p.type === 'output_text'))
  )
}

/**
 * Detection (formats.md §2 item 10): `object:"response"` / `"response.compaction"`; an `input`
 * string with a `model`; an `input` or `output` array (or a bare array / `{messages}`) holding an
 * item other than a message (`function_call`, `reasoning`, `compaction`, …) or `input_text` /
 * `output_text` parts; an `input` array of `type:"message"` items.
 */
function detectResponses(root: unknown): true | string {
  if (Array.isArray(root)) {
    return root.slice(0, 200).some(looksLikeItem)
      ? true
      : 'no Responses items (function_call, reasoning, input_text parts) in the array'
  }
  if (!isObject(root)) return 'not a JSON object or array'
  if (root.object === 'response' || root.object === 'response.compaction') return true
  if (typeof root.input === 'string' && 'model' in root) return true
  for (const field of ['input', 'output', 'messages'] as const) {
    const list = root[field]
    if (!Array.isArray(list)) continue
    if (list.slice(0, 200).some(looksLikeItem)) return true
    if (field !== 'messages' && list.some((x) => isObject(x) && x.type === 'message')) return true
    if (field === 'input' && list.every((x) => isObject(x) && 'role' in x && 'content' in x))
      return true
  }
  if (Array.isArray(root.output) && !('messages' in root)) return true
  return 'no "input"/"output" item array and no object:"response"'
}

/** The OpenAI Responses importer (registry entry). */
export const openaiResponsesImporter: FormatImporter = {
  id: 'openai-responses',
  label: FORMAT_LABELS['openai-responses'],
  container: 'json',
  priority: 10,
  description:
    'OpenAI Responses request {instructions?, input: items} or response {object:"response", ' +
    'output}, incl. /responses/compact results',
  extensions: ['.json'],
  detect: detectResponses,
  closeness: (root) =>
    isObject(root) && ('input' in root || 'output' in root || 'instructions' in root) ? 0.6 : 0,
  importParsed: (root, options) => importOpenAIResponses(root, options.keepRaw ?? true),
}
