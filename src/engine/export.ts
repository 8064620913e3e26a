/**
 * Export: an After (or any) list of canonical messages as a file the person can download or
 * send — the canonical JSON our own importer reads back, or the request body of a provider whose
 * format has one (OpenAI Chat Completions, Anthropic Messages, OpenAI Responses). Pure: builds
 * new objects, never mutates the messages (the Before transcript is never modified); opaque
 * payloads (thinking signatures, encrypted reasoning, image data URLs) are copied byte-identical.
 * The engine holds no API keys, so none can appear. Source: SPEC §1, formats.md
 * §4.1–§4.3.
 */
import { serverResultContent } from './formats/anthropic'
import { CANONICAL_VERSION, type CanonicalFile } from './formats/canonical'
import { computerOutputContent, hostedOutput } from './formats/openai-responses'
import { requestFormatOf, type RequestFormat } from './formats/index'
import type { FormatId, Message, Part, ToolCall, ToolSchema, Transcript } from './model'
import { jsonTextNestsTooDeep, MAX_NESTING, parseJsonWithin } from './util/nesting'
import { pairToolResults, type ToolPairs } from './tool-pairs'

/** The export targets. `anthropic` = an Anthropic Messages request body. */
export type ExportTarget = 'canonical' | RequestFormat

/** Every export target, for pickers and the CLI. */
export const EXPORT_TARGETS: readonly ExportTarget[] = [
  'canonical',
  'openai-chat',
  'anthropic',
  'openai-responses',
]

/** Where the messages came from: decides which opaque blocks can travel as they are. */
export interface ExportContext {
  /** The source format (opaque blocks are passed through only to their own provider family). */
  format?: FormatId
  title?: string
  tools?: readonly ToolSchema[]
  /** The model the source names (`Transcript.model`); request bodies need one. */
  model?: string
}

/**
 * `model` of a request body when the source names none: not a real model, so a provider rejects
 * the body until the person sets one (a warning says so) instead of running an arbitrary model.
 */
const MODEL_PLACEHOLDER = 'MODEL_NOT_RECORDED'

/**
 * `max_tokens` of an Anthropic request body (the Messages API requires it). The output budget is
 * a request setting, not part of a transcript, so no source records it: 4096 tokens is an answer
 * budget every current Claude model accepts.
 */
const ANTHROPIC_MAX_TOKENS = 4096

/** An export: the JSON body to write, and what the target could not carry. */
export interface ExportResult {
  target: ExportTarget
  /** Plain JSON data (write it with `JSON.stringify`). */
  body: unknown
  /** One line per kind of loss (e.g. thinking signatures the target has no field for). */
  warnings: string[]
}

type Json = Record<string, unknown>

/** Whether `format`'s own requests are `request` bodies (its fields carry over unchanged). */
const sameFamily = (format: FormatId | undefined, request: RequestFormat) =>
  format !== undefined && requestFormatOf(format) === request

/** Collects warnings once per kind, with a count. */
class Losses {
  private readonly counts = new Map<string, number>()
  add(what: string): void {
    this.counts.set(what, (this.counts.get(what) ?? 0) + 1)
  }
  list(): string[] {
    return [...this.counts].map(([what, n]) => `${n} ${what}`)
  }
}

/** Text parts of content joined with "\n" (images/thinking/opaque excluded). */
function textOf(content: Message['content']): string {
  if (content == null) return ''
  if (typeof content === 'string') return content
  return content
    .filter((p): p is Extract<Part, { type: 'text' }> => p.type === 'text')
    .map((p) => p.text)
    .join('\n')
}

/** A plain JSON object (a source block or item kept in `native`). */
function isJson(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/** Whether a stage left a result's content as the importer derived it from the source. */
function sameContent(a: Message['content'], b: Message['content']): boolean {
  return JSON.stringify(a ?? null) === JSON.stringify(b ?? null)
}

/** The call a tool message answers (paired by position), if any. */
function answeredCall(
  messages: readonly Message[],
  pairs: ToolPairs,
  i: number,
): ToolCall | undefined {
  const ref = pairs.callOf[i]
  return ref ? messages[ref.message]?.toolCalls?.[ref.call] : undefined
}

/** `data:<type>;base64,<data>` split into its media type and payload, or undefined. */
function dataUrl(url: string): { mediaType: string; data: string } | undefined {
  if (!url.startsWith('data:')) return undefined
  const comma = url.indexOf(',')
  if (comma < 0) return undefined
  const head = url.slice(5, comma)
  if (!head.endsWith(';base64')) return undefined
  return { mediaType: head.slice(0, -7) || 'application/octet-stream', data: url.slice(comma + 1) }
}

/**
 * Arguments as a JSON object for formats that want one (Anthropic `input`); `{}` with a loss for
 * anything else, JSON nested deeper than `MAX_NESTING` said as such (it is not parsed).
 */
function argumentsObject(args: string, losses: Losses): Json {
  if (args.trim() === '') return {}
  if (jsonTextNestsTooDeep(args)) {
    losses.add(`tool call argument(s) nested deeper than ${MAX_NESTING.toLocaleString('en-US')} levels: sent as {} (Anthropic needs an object)`)
    return {}
  }
  const v = parseJsonWithin(args)?.value
  if (typeof v === 'object' && v !== null && !Array.isArray(v)) return v as Json
  losses.add('tool call argument(s) not a JSON object: sent as {} (Anthropic needs an object)')
  return {}
}

/** The `model` of a request body: the source's, else the placeholder (warned once). */
function modelOf(ctx: ExportContext, losses: Losses): string {
  if (ctx.model !== undefined && ctx.model !== '') return ctx.model
  losses.add(`source naming no model: "model" is ${MODEL_PLACEHOLDER}, set one before sending`)
  return MODEL_PLACEHOLDER
}

// ---------------------------------------------------------------------------
// canonical
// ---------------------------------------------------------------------------

function toCanonical(messages: readonly Message[], ctx: ExportContext): CanonicalFile {
  const file: CanonicalFile = {
    format: 'canonical',
    version: CANONICAL_VERSION,
    messages: messages.map((m) => {
      const out: CanonicalFile['messages'][number] = { id: m.id, role: m.role, content: m.content }
      if (m.toolCalls) out.toolCalls = m.toolCalls
      if (m.toolCallId !== undefined) out.toolCallId = m.toolCallId
      if (m.toolName !== undefined) out.toolName = m.toolName
      if (m.isError) out.isError = true
      if (m.flags) out.flags = m.flags
      return out
    }),
  }
  if (ctx.format !== undefined) file.sourceFormat = ctx.format
  if (ctx.title !== undefined) file.title = ctx.title
  if (ctx.model !== undefined) file.model = ctx.model
  if (ctx.tools) file.tools = [...ctx.tools]
  return file
}

// ---------------------------------------------------------------------------
// OpenAI Chat Completions
// ---------------------------------------------------------------------------

function chatParts(parts: readonly Part[], ctx: ExportContext, losses: Losses): Json[] {
  const out: Json[] = []
  for (const p of parts) {
    if (p.type === 'text') out.push({ type: 'text', text: p.text })
    else if (p.type === 'image') {
      if (p.url !== undefined) out.push({ type: 'image_url', image_url: { url: p.url } })
      else losses.add('image(s) without a URL dropped')
    } else if (p.type === 'opaque') {
      if (ctx.format === 'openai-chat' && typeof p.raw === 'object' && p.raw !== null)
        out.push(p.raw as Json)
      else losses.add(`opaque block(s) (${p.kind}) with no OpenAI chat equivalent dropped`)
    } else if (p.type === 'thinking') {
      losses.add('thinking block(s) inside user/tool content dropped')
    }
  }
  return out
}

/** Content for a chat message: a string when text-only, else parts. */
function chatContent(content: Message['content'], ctx: ExportContext, losses: Losses) {
  if (content == null || typeof content === 'string') return content
  if (content.every((p) => p.type === 'text')) return textOf(content)
  return chatParts(content, ctx, losses)
}

function toOpenAIChat(messages: readonly Message[], ctx: ExportContext, losses: Losses): Json {
  const out: Json[] = []
  for (const m of messages) {
    if (m.role === 'system') {
      out.push({ role: 'system', content: textOf(m.content) })
    } else if (m.role === 'user') {
      out.push({ role: 'user', content: chatContent(m.content, ctx, losses) ?? '' })
    } else if (m.role === 'tool') {
      if (m.isError)
        losses.add('tool error flag(s) not representable in OpenAI chat (the error text stays)')
      out.push({
        role: 'tool',
        tool_call_id: m.toolCallId ?? '',
        content: chatContent(m.content, ctx, losses) ?? '',
      })
    } else {
      const msg: Json = { role: 'assistant' }
      const parts = typeof m.content === 'string' || m.content == null ? null : m.content
      const thinking = parts ? parts.filter((p) => p.type === 'thinking') : []
      const rest = parts ? parts.filter((p) => p.type !== 'thinking') : null
      const content = rest ? (rest.length === 0 ? null : chatContent(rest, ctx, losses)) : m.content
      msg.content = content === '' && m.toolCalls ? null : content
      if (thinking.length > 0) {
        // OpenAI-compatible servers (DeepSeek, vLLM) carry readable reasoning as reasoning_content.
        const texts = thinking.map((p) => (p.type === 'thinking' ? (p.text ?? '') : ''))
        msg.reasoning_content = texts.filter((t) => t !== '').join('\n')
        const opaque = thinking.some(
          (p) => p.type === 'thinking' && (p.signature ?? p.encrypted) !== undefined,
        )
        if (opaque)
          losses.add('thinking signature(s)/encrypted reasoning not representable in OpenAI chat')
      }
      if (m.toolCalls && m.toolCalls.length > 0) {
        msg.tool_calls = m.toolCalls.map((c) => ({
          id: c.id,
          type: 'function',
          function: { name: c.name, arguments: c.arguments },
        }))
      }
      out.push(msg)
    }
  }
  const body: Json = { model: modelOf(ctx, losses), messages: out }
  if (ctx.tools && ctx.tools.length > 0) {
    body.tools = ctx.tools.map((t) => {
      const fn: Json = { name: t.name }
      if (t.description !== undefined) fn.description = t.description
      if (t.parameters !== undefined) fn.parameters = t.parameters
      return { type: 'function', function: fn }
    })
  }
  return body
}

// ---------------------------------------------------------------------------
// Anthropic Messages
// ---------------------------------------------------------------------------

function anthropicBlocks(
  parts: readonly Part[],
  ctx: ExportContext,
  losses: Losses,
  role: 'user' | 'assistant',
): Json[] {
  const out: Json[] = []
  const family = sameFamily(ctx.format, 'anthropic')
  for (const p of parts) {
    switch (p.type) {
      case 'text':
        out.push({ type: 'text', text: p.text })
        break
      case 'image': {
        const data = p.url !== undefined ? dataUrl(p.url) : undefined
        if (data) {
          out.push({
            type: 'image',
            source: { type: 'base64', media_type: p.mediaType ?? data.mediaType, data: data.data },
          })
        } else if (p.url !== undefined) {
          out.push({ type: 'image', source: { type: 'url', url: p.url } })
        } else losses.add('image(s) without a URL dropped')
        break
      }
      case 'thinking':
        if (role !== 'assistant') losses.add('thinking block(s) outside assistant messages dropped')
        else if (p.variant === 'thinking') {
          const block: Json = { type: 'thinking', thinking: p.text ?? '' }
          if (p.signature !== undefined) block.signature = p.signature
          out.push(block)
        } else if (p.variant === 'redacted_thinking') {
          out.push({ type: 'redacted_thinking', data: p.encrypted ?? '' })
        } else losses.add('OpenAI reasoning item(s) dropped (Anthropic cannot replay them)')
        break
      case 'opaque':
        if (family && typeof p.raw === 'object' && p.raw !== null) out.push(p.raw as Json)
        else losses.add(`opaque block(s) (${p.kind}) with no Anthropic equivalent dropped`)
        break
    }
  }
  return out
}

function anthropicContent(
  content: Message['content'],
  ctx: ExportContext,
  losses: Losses,
  role: 'user' | 'assistant',
): Json[] {
  if (content == null) return []
  if (typeof content === 'string') return content === '' ? [] : [{ type: 'text', text: content }]
  return anthropicBlocks(content, ctx, losses, role)
}

/**
 * The blocks of an assistant message for Anthropic: its content, then its calls in order. A
 * server-tool call of an Anthropic source (`native.hosted`) is written back as its own block,
 * followed (after the run of server calls it belongs to) by its result block from the `tool`
 * message that answers it: the block as it was when the content is untouched; with the new
 * content when a stage replaced it and the block takes text (`mcp_tool_result`); otherwise the
 * call and its result give way to one text block holding the new content (warned: a
 * `web_search_tool_result` has no place for a placeholder). `hosted` says whether any such
 * call was written (the next assistant message continues this one).
 */
function anthropicAssistantBlocks(
  messages: readonly Message[],
  i: number,
  pairs: ToolPairs,
  ctx: ExportContext,
  losses: Losses,
): { blocks: Json[]; hosted: boolean } {
  const m = messages[i]!
  const family = sameFamily(ctx.format, 'anthropic')
  const blocks = anthropicContent(m.content, ctx, losses, 'assistant')
  let waiting: Json[] = []
  let hosted = false
  const flushWaiting = () => {
    for (const item of waiting) blocks.push(item)
    waiting = []
  }
  ;(m.toolCalls ?? []).forEach((c, k) => {
    const native = family && c.native?.hosted ? c.native : undefined
    if (native && isJson(native.raw)) {
      hosted = true
      const at = pairs.resultOf[i]?.[k] ?? -1
      const result = at >= 0 ? messages[at] : undefined
      const block = native.result
      if (!result || !isJson(block)) {
        blocks.push(native.raw)
        return
      }
      if (sameContent(result.content, serverResultContent(block).content)) {
        blocks.push(native.raw)
        waiting.push(block)
        return
      }
      const takesText =
        typeof block.content === 'string' ||
        (Array.isArray(block.content) &&
          block.content.every((b) => isJson(b) && b.type === 'text'))
      if (takesText) {
        blocks.push(native.raw)
        const content =
          typeof result.content === 'string'
            ? result.content
            : anthropicContent(result.content, ctx, losses, 'user')
        waiting.push({ ...block, content })
        return
      }
      losses.add(
        `server tool result(s) replaced by a stage sent as text with their call dropped ` +
          `(a ${String(block.type)} block has no place for it)`,
      )
      waiting.push({ type: 'text', text: textOf(result.content) })
      return
    }
    flushWaiting()
    const input = argumentsObject(c.arguments, losses)
    blocks.push({ type: 'tool_use', id: c.id, name: c.name, input })
  })
  flushWaiting()
  return { blocks, hosted }
}

function toAnthropic(messages: readonly Message[], ctx: ExportContext, losses: Losses): Json {
  let lead = 0
  while (lead < messages.length && messages[lead]?.role === 'system') lead++
  const systems = messages.slice(0, lead).map((m) => textOf(m.content))
  const family = sameFamily(ctx.format, 'anthropic')
  const pairs = pairToolResults(messages)
  const out: Json[] = []
  // tool_result blocks waiting for the next user message (they must open it, before any text).
  let results: Json[] = []
  const flushResults = () => {
    if (results.length === 0) return
    out.push({ role: 'user', content: results })
    results = []
  }
  // The blocks of the last assistant message when it wrote server-tool results: the next
  // assistant message continues it (the source had them in one message).
  let open: Json[] | null = null
  for (let i = lead; i < messages.length; i++) {
    const m = messages[i]!
    if (m.role === 'tool') {
      // A server-tool result is written inside its call's message.
      if (family && answeredCall(messages, pairs, i)?.native?.hosted) continue
      open = null
      const block: Json = { type: 'tool_result', tool_use_id: m.toolCallId ?? '' }
      block.content =
        typeof m.content === 'string'
          ? m.content
          : anthropicContent(m.content, ctx, losses, 'user')
      if (m.isError) block.is_error = true
      results.push(block)
      continue
    }
    if (m.role === 'user' || m.role === 'system') {
      open = null
      if (m.role === 'system')
        losses.add(
          'system message(s) after the first turn sent as user text ' +
            '(Anthropic has no mid-conversation system role)',
        )
      if (results.length > 0) {
        const text = anthropicContent(m.content, ctx, losses, 'user')
        out.push({ role: 'user', content: [...results, ...text] })
        results = []
      } else if (typeof m.content === 'string') {
        out.push({ role: 'user', content: m.content })
      } else {
        out.push({ role: 'user', content: anthropicContent(m.content, ctx, losses, 'user') })
      }
      continue
    }
    flushResults()
    if (!open && typeof m.content === 'string' && !(m.toolCalls && m.toolCalls.length > 0)) {
      out.push({ role: 'assistant', content: m.content })
      continue
    }
    const { blocks, hosted } = anthropicAssistantBlocks(messages, i, pairs, ctx, losses)
    if (open) for (const item of blocks) open.push(item)
    else out.push({ role: 'assistant', content: blocks })
    const written: Json[] = open ?? blocks
    open = hosted ? written : null
  }
  flushResults()
  const body: Json = { model: modelOf(ctx, losses), max_tokens: ANTHROPIC_MAX_TOKENS }
  if (systems.length === 1) body.system = systems[0]
  else if (systems.length > 1) body.system = systems.map((text) => ({ type: 'text', text }))
  body.messages = out
  if (ctx.tools && ctx.tools.length > 0) {
    body.tools = ctx.tools.map((t) => {
      const tool: Json = { name: t.name }
      if (t.description !== undefined) tool.description = t.description
      tool.input_schema = t.parameters ?? { type: 'object', properties: {} }
      return tool
    })
  }
  return body
}

// ---------------------------------------------------------------------------
// OpenAI Responses
// ---------------------------------------------------------------------------

function responsesParts(parts: readonly Part[], kind: 'input' | 'output', losses: Losses): Json[] {
  const out: Json[] = []
  for (const p of parts) {
    if (p.type === 'text') out.push({ type: `${kind}_text`, text: p.text })
    else if (p.type === 'image') {
      if (p.url !== undefined) out.push({ type: 'input_image', image_url: p.url })
      else losses.add('image(s) without a URL dropped')
    } else if (p.type === 'opaque') losses.add(`opaque block(s) (${p.kind}) inside content dropped`)
    else losses.add('thinking block(s) inside user/tool content dropped')
  }
  return out
}

/** The URL of the first image part of `content`, if any (a `computer_call_output` screenshot). */
function imageUrlOf(content: Message['content']): string | undefined {
  if (content == null || typeof content === 'string') return undefined
  for (const p of content) if (p.type === 'image' && p.url !== undefined) return p.url
  return undefined
}

/**
 * A call of a Responses source written as its own item (`native`), or undefined for a plain
 * `function_call`. A hosted item (`mcp_call`, `web_search_call`, …) holds its output: as it was
 * when the `tool` message answering it is untouched; an `mcp_call` gets the new text as its
 * `output`; any other becomes an assistant message with the new text (warned: the item has no
 * field for it). A `computer_call` is written as it was, unless its screenshot was replaced by
 * text: then it and its output give way to an assistant message with the text (warned). `skip`
 * gets the tool messages written here.
 */
function responsesNativeCall(
  call: ToolCall,
  result: Message | undefined,
  at: number,
  skip: Set<number>,
  losses: Losses,
): Json | undefined {
  const native = call.native
  if (!native || !isJson(native.raw)) return undefined
  const item = native.raw
  const asText = (what: string): Json => {
    losses.add(`${what} replaced by a stage sent as assistant text (the item has no field for it)`)
    const text = textOf(result?.content ?? null)
    return { type: 'message', role: 'assistant', content: [{ type: 'output_text', text }] }
  }
  if (native.hosted) {
    if (result) skip.add(at)
    if (!result || sameContent(result.content, hostedOutput(item).content)) return item
    if (native.kind === 'mcp_call') return { ...item, output: textOf(result.content), error: null }
    return asText(`${native.kind} output(s)`)
  }
  if (native.kind === 'computer_call' && result && imageUrlOf(result.content) === undefined) {
    const out = native.result
    if (!isJson(out) || !sameContent(result.content, computerOutputContent(out))) {
      skip.add(at)
      return asText('computer_call screenshot(s)')
    }
  }
  return item
}

function toResponses(messages: readonly Message[], ctx: ExportContext, losses: Losses): Json {
  const family = sameFamily(ctx.format, 'openai-responses')
  let lead = 0
  while (lead < messages.length && messages[lead]?.role === 'system') lead++
  const input: Json[] = []
  const content = (c: Message['content'], kind: 'input' | 'output'): string | Json[] =>
    c == null ? '' : typeof c === 'string' ? c : responsesParts(c, kind, losses)
  const pairs = pairToolResults(messages)
  // Tool messages already written with their call (hosted outputs, replaced screenshots).
  const skip = new Set<number>()
  for (let i = lead; i < messages.length; i++) {
    const m = messages[i]!
    if (m.role === 'system' || m.role === 'user') {
      input.push({ type: 'message', role: m.role, content: content(m.content, 'input') })
    } else if (m.role === 'tool') {
      if (skip.has(i)) continue
      const native = family ? answeredCall(messages, pairs, i)?.native : undefined
      if (native?.kind === 'computer_call') {
        const out = native.result
        if (isJson(out) && sameContent(m.content, computerOutputContent(out))) input.push(out)
        else {
          const output = { type: 'computer_screenshot', image_url: imageUrlOf(m.content) ?? '' }
          const callId = m.toolCallId ?? ''
          const base = isJson(out) ? out : {}
          input.push({ ...base, type: 'computer_call_output', call_id: callId, output })
        }
        continue
      }
      if (m.isError)
        losses.add('tool error flag(s) not representable in Responses (the error text stays)')
      const output = content(m.content, 'input')
      input.push({ type: 'function_call_output', call_id: m.toolCallId ?? '', output })
    } else {
      // One assistant message = its reasoning items, its message item and its calls, in order.
      let text: Part[] = []
      const flushText = () => {
        if (text.length === 0) return
        const parts = responsesParts(text, 'output', losses)
        input.push({ type: 'message', role: 'assistant', content: parts })
        text = []
      }
      const parts: Part[] =
        m.content == null || m.content === ''
          ? []
          : typeof m.content === 'string'
            ? [{ type: 'text', text: m.content }]
            : m.content
      for (const p of parts) {
        if (p.type === 'thinking') {
          flushText()
          const item: Json = {
            type: 'reasoning',
            summary:
              p.text !== undefined && p.text !== '' ? [{ type: 'summary_text', text: p.text }] : [],
          }
          if (p.variant === 'reasoning' && p.encrypted !== undefined)
            item.encrypted_content = p.encrypted
          else if (p.signature !== undefined || p.encrypted !== undefined)
            losses.add('Anthropic thinking signature(s) not representable in Responses')
          input.push(item)
        } else if (p.type === 'opaque') {
          flushText()
          if (family && typeof p.raw === 'object' && p.raw !== null) input.push(p.raw as Json)
          else losses.add(`opaque block(s) (${p.kind}) with no Responses equivalent dropped`)
        } else text.push(p)
      }
      flushText()
      ;(m.toolCalls ?? []).forEach((c, k) => {
        const at = pairs.resultOf[i]?.[k] ?? -1
        const own = family ? responsesNativeCall(c, messages[at], at, skip, losses) : undefined
        const plain = { type: 'function_call', call_id: c.id, name: c.name, arguments: c.arguments }
        input.push(own ?? plain)
      })
    }
  }
  const body: Json = { model: modelOf(ctx, losses) }
  if (lead > 0) {
    body.instructions = messages
      .slice(0, lead)
      .map((m) => textOf(m.content))
      .join('\n\n')
  }
  body.input = input
  if (ctx.tools && ctx.tools.length > 0) {
    body.tools = ctx.tools.map((t) => {
      const tool: Json = { type: 'function', name: t.name }
      if (t.description !== undefined) tool.description = t.description
      if (t.parameters !== undefined) tool.parameters = t.parameters
      return tool
    })
  }
  return body
}

// ---------------------------------------------------------------------------

/**
 * Exports `messages` to `target`:
 * - `canonical`: `{format: 'canonical', version, sourceFormat?, title?, model?, messages,
 *   tools?}` — every field of the model except `index`/`source` (formats/canonical.ts reads it
 *   back).
 * Request bodies carry `model`: the source's (`context.model`), else `MODEL_PLACEHOLDER` (warned).
 * - `openai-chat`: `{model, messages, tools?}`; tool calls as `tool_calls` (arguments raw),
 *   results as `role: 'tool'` messages; images as `image_url` data URLs; readable thinking as
 *   `reasoning_content` (signatures lost, warned); tool error flags lost (warned).
 * - `anthropic`: `{model, max_tokens, system?, messages, tools?}` (`max_tokens` =
 *   `ANTHROPIC_MAX_TOKENS`); leading system messages → `system`; tool calls → `tool_use`
 *   (arguments parsed into `input`); consecutive results → `tool_result` blocks opening the next
 *   user message (before its text); `is_error` kept; thinking /
 *   redacted_thinking blocks byte-identical with their signatures; images as base64 sources;
 *   server-tool calls of an Anthropic source back in their assistant message with their result
 *   blocks (`anthropicAssistantBlocks`), the messages the import cut at them joined again.
 * - `openai-responses`: `{model, instructions?, input, tools?}`; leading system messages →
 *   `instructions`; an assistant message → its `reasoning` items (encrypted_content kept), its
 *   `message` item and its `function_call`s in order; results → `function_call_output`; for a
 *   Responses source, hosted items and `computer_call`s as they were, with their outputs
 *   (`responsesNativeCall`).
 * Results pair with calls by position (`pairToolResults`).
 * Opaque blocks pass through only to their own provider family (else dropped, warned). Pure;
 * never mutates `messages`. Source: formats.md §4.1–§4.3.
 */
export function exportMessages(
  messages: readonly Message[],
  target: ExportTarget,
  context: ExportContext = {},
): ExportResult {
  const losses = new Losses()
  let body: unknown
  switch (target) {
    case 'canonical':
      body = toCanonical(messages, context)
      break
    case 'openai-chat':
      body = toOpenAIChat(messages, context, losses)
      break
    case 'anthropic':
      body = toAnthropic(messages, context, losses)
      break
    case 'openai-responses':
      body = toResponses(messages, context, losses)
      break
  }
  return { target, body, warnings: losses.list() }
}

/**
 * Exports `messages` (default: the transcript's own; pass a run's `after.messages` for the After
 * transcript) with the transcript's format, title, model and tool schemas as context.
 */
export function exportTranscript(
  transcript: Transcript,
  target: ExportTarget,
  messages: readonly Message[] = transcript.messages,
): ExportResult {
  const context: ExportContext = { format: transcript.format }
  if (transcript.title !== undefined) context.title = transcript.title
  if (transcript.model !== undefined) context.model = transcript.model
  if (transcript.tools) context.tools = transcript.tools
  return exportMessages(messages, target, context)
}
