import type { FormatId, Part, SourceRef, ThinkingPart, ToolCall, Transcript } from '../model'
import { importFailure } from './failure'
import type { FormatImporter } from './types'
import {
  base64Bytes,
  finalizeTranscript,
  imageFromUrl,
  isObject,
  normalizeParts,
  str,
  type DraftMessage,
  type JsonObject,
} from './util'
import { quoteForMessage } from '../util/text'

const format: FormatId = 'vercel-model'

/** Tool arguments: Vercel keeps them as an object (`input`, v4 `args`); the model sees JSON. */
export function argumentsText(input: unknown): string {
  if (typeof input === 'string') return input
  return JSON.stringify(input ?? {})
}

/** A compact JSON text of any value (what providers send for `json` outputs). */
const jsonText = (v: unknown) => (typeof v === 'string' ? v : JSON.stringify(v ?? null))

/**
 * An image or file source (`image` / `data` / `url`: a data URL, https URL or bare base64) as an
 * image part (bytes from the base64 length, never text) when the media type is an image, else an
 * opaque part. Source: formats.md §4.7, §1 item 12.
 */
export function vercelMedia(source: unknown, mediaType: string | undefined, raw: unknown): Part {
  const isImage = mediaType === undefined || mediaType.startsWith('image/')
  if (typeof source === 'string' && isImage) {
    if (/^(data:|https?:)/.test(source)) return imageFromUrl(source, mediaType)
    const part: Part = { type: 'image', url: `data:${mediaType ?? 'image/png'};base64,${source}` }
    if (mediaType) part.mediaType = mediaType
    part.bytes = base64Bytes(source)
    return part
  }
  return { type: 'opaque', kind: 'file', raw }
}

/** A reasoning part as a thinking part; an Anthropic signature in provider options is kept. */
export function vercelReasoning(p: JsonObject): ThinkingPart {
  const t: ThinkingPart = { type: 'thinking', variant: 'reasoning', text: str(p.text) ?? '' }
  const meta = isObject(p.providerOptions) ? p.providerOptions : p.providerMetadata
  const anthropic = isObject(meta) && isObject(meta.anthropic) ? meta.anthropic : undefined
  const sig = anthropic ? str(anthropic.signature) : undefined
  if (sig !== undefined) t.signature = sig
  return t
}

/**
 * A ToolResultPart `output` as tool message content: `text` / `error-text` → the text; `json` /
 * `error-json` → compact JSON; `execution-denied` → its reason; `content` → text and media parts;
 * v4 `result` (any value) → JSON. `error-*` and `execution-denied` set `isError`.
 */
function toolOutput(p: JsonObject): { content: string | Part[]; isError: boolean } {
  const output = p.output
  if (!isObject(output) || typeof output.type !== 'string') {
    return { content: jsonText(p.result ?? output), isError: false }
  }
  switch (output.type) {
    case 'text':
      return { content: str(output.value) ?? '', isError: false }
    case 'error-text':
      return { content: str(output.value) ?? '', isError: true }
    case 'json':
      return { content: jsonText(output.value), isError: false }
    case 'error-json':
      return { content: jsonText(output.value), isError: true }
    case 'execution-denied':
      return { content: str(output.reason) ?? 'tool execution denied', isError: true }
    case 'content': {
      const list = Array.isArray(output.value) ? output.value : []
      const parts: Part[] = list.map((c) =>
        isObject(c) && c.type === 'text'
          ? { type: 'text', text: str(c.text) ?? '' }
          : isObject(c) && c.type === 'media'
            ? vercelMedia(c.data, str(c.mediaType), c)
            : { type: 'opaque', kind: 'unknown', raw: c },
      )
      return { content: normalizeParts(parts, '') ?? '', isError: false }
    }
    default:
      return { content: jsonText(output), isError: false }
  }
}

/** A non-tool content part of a user/assistant/system message. */
function contentPart(p: unknown): Part {
  if (typeof p === 'string') return { type: 'text', text: p }
  if (!isObject(p)) return { type: 'opaque', kind: 'unknown', raw: p }
  switch (p.type) {
    case 'text':
      return { type: 'text', text: str(p.text) ?? '' }
    case 'reasoning':
      return vercelReasoning(p)
    case 'image':
      return vercelMedia(p.image, str(p.mediaType) ?? str(p.mimeType), p)
    case 'file':
      return vercelMedia(p.data ?? p.url, str(p.mediaType) ?? str(p.mimeType), p)
    default:
      return { type: 'opaque', kind: str(p.type) ?? 'unknown', raw: p }
  }
}

/**
 * Imports Vercel AI SDK `ModelMessage[]` (or `{messages}`): system/user/assistant content string or
 * parts (text, reasoning → thinking, image/file → images, never text); assistant `tool-call` parts
 * → tool calls (`input`, v4 `args`, as JSON); every `tool-result` part — batched in one role-`tool`
 * message or provider-executed inside an assistant message — → its own tool message in order, with
 * `output.type` text/json/error-text/error-json handled by `toolOutput`. Never modifies the input.
 * Source: formats.md §4.7, §1 items 2, 3, 5; cases/43.
 */
function importVercelModelMessages(root: unknown, keepRaw = true): Transcript {
  const list = Array.isArray(root) ? root : isObject(root) ? root.messages : undefined
  if (!Array.isArray(list)) importFailure('expected a ModelMessage array', { field: 'messages' })
  const drafts: DraftMessage[] = []
  const warnings: string[] = []
  const toolNames = new Map<string, string>()
  const src = (i: number, raw: unknown): SourceRef => {
    const s: SourceRef = { format, line: i + 1 }
    if (keepRaw) s.raw = raw
    return s
  }
  const pushResult = (p: JsonObject, i: number) => {
    const callId = str(p.toolCallId) ?? ''
    const { content, isError } = toolOutput(p)
    const d: DraftMessage = { id: '', role: 'tool', content, toolCallId: callId, source: src(i, p) }
    const name = str(p.toolName) ?? toolNames.get(callId)
    if (name !== undefined) d.toolName = name
    if (isError) d.isError = true
    drafts.push(d)
  }
  list.forEach((m, i) => {
    const field = `messages[${i}]`
    if (!isObject(m)) {
      warnings.push(`${field}: not an object, skipped`)
      return
    }
    const role = m.role
    const id = str(m.id) ?? ''
    if (role === 'tool') {
      const parts = Array.isArray(m.content) ? m.content : []
      for (const p of parts) if (isObject(p) && p.type === 'tool-result') pushResult(p, i)
      return
    }
    if (role !== 'system' && role !== 'user' && role !== 'assistant') {
      warnings.push(`${field}.role: ${quoteForMessage(role)} is not a ModelMessage role, skipped`)
      return
    }
    if (typeof m.content === 'string' || !Array.isArray(m.content)) {
      drafts.push({ id, role, content: str(m.content) ?? '', source: src(i, m) })
      return
    }
    const parts: Part[] = []
    const toolCalls: ToolCall[] = []
    const results: JsonObject[] = []
    for (const p of m.content) {
      if (isObject(p) && p.type === 'tool-call') {
        const call = {
          id: str(p.toolCallId) ?? '',
          name: str(p.toolName) ?? '',
          arguments: argumentsText(p.input ?? p.args),
        }
        toolNames.set(call.id, call.name)
        toolCalls.push(call)
      } else if (isObject(p) && p.type === 'tool-result') {
        results.push(p)
      } else {
        parts.push(contentPart(p))
      }
    }
    const d: DraftMessage = {
      id,
      role,
      content: normalizeParts(parts, role === 'assistant' ? null : ''),
      source: src(i, m),
    }
    if (toolCalls.length > 0) d.toolCalls = toolCalls
    drafts.push(d)
    for (const r of results) pushResult(r, i)
  })
  if (drafts.length === 0) importFailure('no messages found in messages', { field: 'messages' })
  return finalizeTranscript(format, drafts, [], warnings)
}

function isModelMessage(x: unknown): boolean {
  if (!isObject(x) || typeof x.role !== 'string') return false
  return (
    Array.isArray(x.content) &&
    x.content.some((p) => isObject(p) && (p.type === 'tool-call' || p.type === 'tool-result'))
  )
}

/** The Vercel AI SDK ModelMessage importer (formats.md §2 item 9). */
export const vercelModelImporter: FormatImporter<'vercel-model'> = {
  id: 'vercel-model',
  label: 'Vercel AI SDK ModelMessage[]',
  container: 'json',
  priority: 9.5,
  requestFormat: null,
  description: 'Vercel AI SDK ModelMessage[] (tool-call / tool-result parts, role tool)',
  extensions: ['.json'],
  detect(root) {
    const list = Array.isArray(root) ? root : isObject(root) ? root.messages : undefined
    if (!Array.isArray(list)) return 'no message array'
    return list.slice(0, 200).some(isModelMessage)
      ? true
      : 'no message has tool-call/tool-result content parts'
  },
  importParsed: (root, options) => importVercelModelMessages(root, options.keepRaw),
}
