/**
 * Export: an After (or any) list of canonical messages as a file the person can download or
 * send — the canonical JSON our own importer reads back, or the request body of a provider whose
 * format has one (OpenAI Chat Completions, Anthropic Messages, OpenAI Responses). Pure: builds
 * new objects, never mutates the messages (the Before transcript is never modified); opaque
 * payloads (thinking signatures, encrypted reasoning, image data URLs) are copied byte-identical.
 * The engine holds no API keys, so none can appear. Source: SPEC §1, formats.md
 * §4.1–§4.3.
 */
import { CANONICAL_VERSION, type CanonicalFile } from './formats/canonical'
import type { FormatId, Message, Part, ToolSchema, Transcript } from './model'

/** The export targets. `anthropic` = an Anthropic Messages request body. */
export type ExportTarget = 'canonical' | 'openai-chat' | 'anthropic' | 'openai-responses'

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

const ANTHROPIC_FAMILY: readonly FormatId[] = ['anthropic-messages', 'claude-code']
const RESPONSES_FAMILY: readonly FormatId[] = ['openai-responses', 'codex-rollout']

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

/** `data:<type>;base64,<data>` split into its media type and payload, or undefined. */
function dataUrl(url: string): { mediaType: string; data: string } | undefined {
  if (!url.startsWith('data:')) return undefined
  const comma = url.indexOf(',')
  if (comma < 0) return undefined
  const head = url.slice(5, comma)
  if (!head.endsWith(';base64')) return undefined
  return { mediaType: head.slice(0, -7) || 'application/octet-stream', data: url.slice(comma + 1) }
}

/** Arguments as a JSON object for formats that want one (Anthropic `input`). */
function argumentsObject(args: string, losses: Losses): Json {
  if (args.trim() === '') return {}
  try {
    const v: unknown = JSON.parse(args)
    if (typeof v === 'object' && v !== null && !Array.isArray(v)) return v as Json
  } catch {
    // fall through: not JSON
  }
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
  const family = ctx.format !== undefined && ANTHROPIC_FAMILY.includes(ctx.format)
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

function toAnthropic(messages: readonly Message[], ctx: ExportContext, losses: Losses): Json {
  let lead = 0
  while (lead < messages.length && messages[lead]?.role === 'system') lead++
  const systems = messages.slice(0, lead).map((m) => textOf(m.content))
  const out: Json[] = []
  // tool_result blocks waiting for the next user message (they must open it, before any text).
  let results: Json[] = []
  const flushResults = () => {
    if (results.length === 0) return
    out.push({ role: 'user', content: results })
    results = []
  }
  for (const m of messages.slice(lead)) {
    if (m.role === 'tool') {
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
    if (typeof m.content === 'string' && !(m.toolCalls && m.toolCalls.length > 0)) {
      out.push({ role: 'assistant', content: m.content })
      continue
    }
    const blocks = anthropicContent(m.content, ctx, losses, 'assistant')
    for (const c of m.toolCalls ?? []) {
      const input = argumentsObject(c.arguments, losses)
      blocks.push({ type: 'tool_use', id: c.id, name: c.name, input })
    }
    out.push({ role: 'assistant', content: blocks })
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

function toResponses(messages: readonly Message[], ctx: ExportContext, losses: Losses): Json {
  const family = ctx.format !== undefined && RESPONSES_FAMILY.includes(ctx.format)
  let lead = 0
  while (lead < messages.length && messages[lead]?.role === 'system') lead++
  const input: Json[] = []
  const content = (c: Message['content'], kind: 'input' | 'output'): string | Json[] =>
    c == null ? '' : typeof c === 'string' ? c : responsesParts(c, kind, losses)
  for (const m of messages.slice(lead)) {
    if (m.role === 'system' || m.role === 'user') {
      input.push({ type: 'message', role: m.role, content: content(m.content, 'input') })
    } else if (m.role === 'tool') {
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
      for (const c of m.toolCalls ?? []) {
        input.push({ type: 'function_call', call_id: c.id, name: c.name, arguments: c.arguments })
      }
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
 *   redacted_thinking blocks byte-identical with their signatures; images as base64 sources.
 * - `openai-responses`: `{model, instructions?, input, tools?}`; leading system messages →
 *   `instructions`; an assistant message → its `reasoning` items (encrypted_content kept), its
 *   `message` item and its `function_call`s in order; results → `function_call_output`.
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
