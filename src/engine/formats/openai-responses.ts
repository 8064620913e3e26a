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
import { importFailure } from './failure'
import { requestLogUsage } from './request-log'
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

/**
 * Items of tools OpenAI runs itself: one item holds the call and its output (`mcp_call`:
 * `arguments` + `output`/`error`; `web_search_call`: `action`, results not recorded except
 * `action.sources`; `file_search_call`: `queries` + `results`; `code_interpreter_call`: `code` +
 * `outputs`; `image_generation_call`: `result`). Source: formats.md §4.2 "Items"; openai-python
 * `response_input_item_param.py` and the `response_*_tool_call_param.py` types.
 */
const HOSTED_TYPES = new Set([
  'mcp_call',
  'web_search_call',
  'file_search_call',
  'code_interpreter_call',
  'image_generation_call',
])

/** The tool name a hosted item stands for: `mcp_call` its `name`, else the tool's own name. */
function hostedName(item: JsonObject, type: string): string {
  if (type === 'mcp_call') return str(item.name) ?? 'mcp'
  return type.slice(0, -'_call'.length)
}

/** A hosted item's input as raw text: `arguments`, `action`, `queries`, `code`; '{}' if none. */
function hostedArguments(item: JsonObject, type: string): string {
  const input =
    type === 'mcp_call'
      ? item.arguments
      : type === 'web_search_call'
        ? item.action
        : type === 'file_search_call'
          ? { queries: item.queries ?? [] }
          : type === 'code_interpreter_call'
            ? item.code
            : undefined
  if (typeof input === 'string') return input
  return input === undefined || input === null ? '{}' : JSON.stringify(input)
}

/**
 * The output a hosted item holds, as the content of the `tool` message that stands for it:
 * `mcp_call` its `output` (else its `error`, `isError`); `web_search_call` the `action.sources`
 * URLs one per line ('' when the item records none); `file_search_call` each result's file name
 * and text; `code_interpreter_call` its `logs` as text and `image` outputs as images;
 * `image_generation_call` its base64 `result` as an image. `isError` also for `status:
 * "failed"`. Pure, so export can tell an untouched output from a replaced one. Source:
 * openai-python `response_input_item_param.py` (`McpCall`, `ImageGenerationCall`),
 * `response_function_web_search_param.py`, `response_file_search_tool_call_param.py`,
 * `response_code_interpreter_tool_call_param.py`.
 */
export function hostedOutput(item: JsonObject): { content: string | Part[]; isError: boolean } {
  const type = itemType(item)
  let isError = item.status === 'failed'
  let content: string | Part[] = ''
  if (type === 'mcp_call') {
    const error = item.error
    if (typeof item.output === 'string') content = item.output
    else if (error !== undefined && error !== null) {
      content = typeof error === 'string' ? error : JSON.stringify(error)
      isError = true
    }
  } else if (type === 'web_search_call') {
    const sources = isObject(item.action) ? item.action.sources : undefined
    if (Array.isArray(sources)) {
      content = sources.map((x) => (isObject(x) ? (str(x.url) ?? '') : String(x))).join('\n')
    }
  } else if (type === 'file_search_call') {
    if (Array.isArray(item.results)) {
      content = item.results
        .filter(isObject)
        .map((r) => `${str(r.filename) ?? str(r.file_id) ?? ''}\n${str(r.text) ?? ''}`)
        .join('\n\n')
    }
  } else if (type === 'code_interpreter_call') {
    if (Array.isArray(item.outputs)) {
      const parts: Part[] = item.outputs.filter(isObject).map((o): Part => {
        if (o.type === 'logs') return { type: 'text', text: str(o.logs) ?? '' }
        const url = str(o.url)
        if (o.type === 'image' && url !== undefined) return imageFromUrl(url)
        return { type: 'opaque', kind: str(o.type) ?? 'unknown', raw: o }
      })
      content = normalizeParts(parts, '') ?? ''
    }
  } else if (type === 'image_generation_call') {
    if (typeof item.result === 'string' && item.result !== '') {
      const format = str(item.output_format) ?? 'png'
      content = [imageFromUrl(`data:image/${format};base64,${item.result}`)]
    }
  }
  return { content, isError }
}

/**
 * A `computer_call_output`'s `output` as content: a `computer_screenshot` → an image (its
 * `image_url`, else its `file_id`); anything else as a tool output is read. Pure (export compares
 * with it). Source: openai-python `response_input_item_param.py` (`ComputerCallOutput`).
 */
export function computerOutputContent(item: JsonObject): string | Part[] {
  const output = item.output
  if (isObject(output) && output.type === 'computer_screenshot') {
    const url = str(output.image_url) ?? str(output.file_id)
    return [url !== undefined ? imageFromUrl(url) : { type: 'image' }]
  }
  return responsesContent(output)
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
 * A `computer_call` is a call (`computer`) and its `computer_call_output` screenshot the result
 * (kept on the call's `native.result`). A hosted tool item (`mcp_call`, `web_search_call`,
 * `file_search_call`, `code_interpreter_call`, `image_generation_call`) is a call and a result in
 * one: a tool call ending its assistant message and a `tool` message right after it
 * (`addHosted`). A `compaction` item becomes an assistant message holding it as an opaque part
 * (`flags.compactSummary`) and a recorded compaction with `summaryText: null` (encrypted).
 */
export class ResponsesItemBuilder {
  readonly drafts: DraftMessage[] = []
  readonly compactions: DraftCompaction[] = []
  readonly warnings: string[] = []
  private readonly toolNames = new Map<string, string>()
  /** The newest call per `call_id`, so a `computer_call_output` can be kept on its call. */
  private readonly calls = new Map<string, ToolCall>()
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
    if (CALL_TYPES.has(type) || type === 'computer_call') {
      const call = toolCallOf(item, type)
      if (call.id === '') this.warnings.push(`${at.field}: ${type} without call_id`)
      this.toolNames.set(call.id, call.name)
      this.calls.set(call.id, call)
      this.assistant(item, at).toolCalls.push(call)
      return
    }
    if (OUTPUT_TYPES.has(type) || type === 'computer_call_output')
      return this.addOutput(item, type, at)
    if (HOSTED_TYPES.has(type)) return this.addHosted(item, type, at)
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
    // Other server-side items (mcp_list_tools, mcp_approval_request, …): model output, opaque.
    this.assistant(item, at).parts.push({ type: 'opaque', kind: type, raw: item })
  }

  private addMessage(item: JsonObject, at: ItemOrigin): void {
    const role = typeof item.role === 'string' && Object.hasOwn(ROLES, item.role) ? ROLES[item.role as keyof typeof ROLES] : undefined
    if (!role) {
      this.flush()
      this.warnings.push(`${at.field}.role: ${quoteForMessage(item.role)} is not a message role, skipped`)
      return
    }
    const content = responsesContent(item.content)
    if (role === 'assistant') {
      if (this.acc && this.acc.toolCalls.length > 0) this.flush()
      const acc = this.assistant(item, at)
      if (typeof content === 'string') {
        if (content !== '') acc.parts.push({ type: 'text', text: content })
      } else for (const item of content) acc.parts.push(item)
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
    const computer = type === 'computer_call_output'
    const d: DraftMessage = {
      id: str(item.id) ?? '',
      role: 'tool',
      content: computer
        ? computerOutputContent(item)
        : (this.opts.unwrapOutput?.(item.output) ?? responsesContent(item.output)),
      toolCallId: callId,
      source: this.src(at.line, item),
    }
    const name = this.toolNames.get(callId)
    if (name !== undefined) d.toolName = name
    else this.warnings.push(`${at.field}: ${type} ${quoteForMessage(callId)} answers no earlier call`)
    const call = this.calls.get(callId)
    if (computer && call?.native?.kind === 'computer_call') call.native.result = item
    this.drafts.push(d)
  }

  /**
   * A hosted tool item (`HOSTED_TYPES`): the call joins the current assistant message and ends
   * it (`native: {kind, raw, hosted: true}`, id = the item `id`, name and arguments from
   * `hostedName` / `hostedArguments`), and the output it holds becomes the `tool` message right
   * after it (`hostedOutput`). An item without `id` (Codex never writes a `web_search_call`'s
   * id) gets `hostedId`, without a warning: call and output are one item, nothing to pair.
   */
  private addHosted(item: JsonObject, type: string, at: ItemOrigin): void {
    const id = str(item.id) || hostedId(type, at)
    const name = hostedName(item, type)
    const call: ToolCall = {
      id,
      name,
      arguments: hostedArguments(item, type),
      native: { kind: type, raw: item, hosted: true },
    }
    this.toolNames.set(id, name)
    this.calls.set(id, call)
    this.assistant(item, at).toolCalls.push(call)
    this.flush()
    const output = hostedOutput(item)
    const d: DraftMessage = {
      id: '',
      role: 'tool',
      content: output.content,
      toolCallId: id,
      toolName: name,
      source: this.src(at.line, item),
    }
    if (output.isError) d.isError = true
    this.drafts.push(d)
  }
}

/**
 * The stable id of a hosted item that has none: its type and where it is, e.g.
 * `web_search_call@line-17` or `web_search_call@input-3` (`at.field`, runs of other characters as
 * `-`), so it is the same on every import and unique within the file. Source: codex-rs
 * `protocol/src/models.rs` (`WebSearchCall` declares `id` `#[serde(default, skip_serializing)]`,
 * so rollouts never carry it).
 */
function hostedId(type: string, at: ItemOrigin): string {
  const where = at.field.replace(/[^A-Za-z0-9]+/g, '-').replace(/^-|-$/g, '')
  return `${type}@${where}`
}

/**
 * A call item as a tool call: `arguments` (function) or `input` (custom, freeform) kept raw; a
 * `computer_call` (computer use: the model's action, the client's screenshot answers it) named
 * `computer` with its `action` (or `actions`) as arguments and `native` holding the item.
 */
function toolCallOf(item: JsonObject, type: string): ToolCall {
  const id = str(item.call_id) ?? str(item.id) ?? ''
  if (type === 'local_shell_call') {
    return { id, name: 'local_shell', arguments: JSON.stringify(item.action ?? null) }
  }
  if (type === 'computer_call') {
    const action = item.action ?? item.actions ?? null
    return {
      id,
      name: 'computer',
      arguments: JSON.stringify(action),
      native: { kind: type, raw: item },
    }
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
  // A request + response log (OpenHands' Responses-API completion log): the response's output.
  const logged = loggedResponse(root)
  if (logged) lists.push({ field: 'response.output', items: logged.output as unknown[] })
  return lists
}

/**
 * The response a request + response log holds beside its request (`{input, response:{object:
 * "response", output[]}}`, as OpenHands logs Responses-API calls: `llm/llm.py` `telemetry_ctx`
 * with `llm_path:"responses"`), if any.
 */
function loggedResponse(root: JsonObject): JsonObject | undefined {
  const r = root.response
  return isObject(r) && Array.isArray(r.output) && root.input !== undefined ? r : undefined
}

/**
 * Imports an OpenAI Responses request `{instructions?, input: string | items, tools?}`, a response
 * `{object:"response", output}`, a compact result `{object:"response.compaction", output}`, a
 * bare item array, or a request + response log `{instructions?, input, response:{output,
 * usage}}` (OpenHands), whose output follows the input and whose usage is the recorded usage. `instructions` → a leading system message; items as `ResponsesItemBuilder`
 * describes. A response without `input` is imported, not rejected: its output turn (text,
 * reasoning, calls) is what a person holding only the response wants to read and count, and a
 * warning says the request's input is absent (a compact result is the whole compacted context, so
 * it gets none). Throws an ImportError-shaped failure when there are no items. Never modifies `root`.
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
  let responseAt: number | undefined
  for (const { field, items } of lists) {
    if (field === 'response.output') responseAt = b.drafts.length
    items.forEach((item, i) => b.add(item, { line: i + 1, field: `${field}[${i}]` }))
    b.flush()
  }
  const warnings = [...b.warnings]
  if (isObject(root) && root.object === 'response' && root.input === undefined) {
    warnings.unshift(
      'this is an API response, not a conversation: only the model\'s output is in it, ' +
        "the request's input is not",
    )
  }
  if (isObject(root) && (root.previous_response_id || root.conversation)) {
    warnings.push(
      'previous_response_id/conversation: earlier history lives on the server; ' +
        'only this file is shown',
    )
  }
  const tools = isObject(root) ? responsesTools(root.tools) : undefined
  const logged = isObject(root) ? loggedResponse(root) : undefined
  const transcript = finalizeTranscript(format, b.drafts, b.compactions, warnings, {
    ...(tools ? { tools } : {}),
    model: (isObject(root) ? str(root.model) : undefined) ?? str(logged?.model),
  })
  // The logged response's usage (`input_tokens`, cached ones included) at its first message.
  const usage =
    logged && responseAt !== undefined ? requestLogUsage(root, logged, responseAt) : undefined
  const recorded = usage ? resolveUsage(transcript.messages, [usage]) : undefined
  if (recorded) transcript.usage = recorded
  return transcript
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
export const openaiResponsesImporter: FormatImporter<'openai-responses'> = {
  id: 'openai-responses',
  label: 'OpenAI Responses',
  container: 'json',
  priority: 10,
  requestFormat: 'openai-responses',
  description:
    'OpenAI Responses request {instructions?, input: items} or response {object:"response", ' +
    'output}, incl. /responses/compact results',
  extensions: ['.json'],
  detect: detectResponses,
  closeness: (root) =>
    isObject(root) && ('input' in root || 'output' in root || 'instructions' in root) ? 0.6 : 0,
  importParsed: (root, options) => importOpenAIResponses(root, options.keepRaw ?? true),
}
