import type { FormatId, Part, SourceRef, ThinkingPart, ToolCall, Transcript } from '../model'
import { importFailure } from './failure'
import type { JsonlRecord } from './json'
import type { FormatImporter } from './types'
import {
  base64Bytes,
  finalizeTranscript,
  imageFromUrl,
  isObject,
  normalizeParts,
  resolveUsage,
  str,
  type DraftMessage,
  type DraftUsage,
  type JsonObject,
  notAnArray,
} from './util'
import { quoteForMessage } from '../util/text'

const format: FormatId = 'gemini-cli'
/** The label of both Gemini CLI importers (JSON session, JSONL log). */
const LABEL = 'Gemini CLI session'

/** Record types that are UI notes, not model context (formats.md §3 "Roles"). */
const NOTE_TYPES = new Set(['info', 'error', 'warning'])

/**
 * One Gemini `Part` as canonical parts: `text` (with `thought:true` → a thinking part whose
 * `thoughtSignature` is kept), `inlineData` → image (or opaque for non-images; base64 never text),
 * `fileData` → image by URI; `functionCall` / `functionResponse` are handled by the caller; other
 * parts opaque. Source: formats.md §4.6 "Pitfalls".
 */
function geminiPart(part: unknown): Part | null {
  if (typeof part === 'string') return { type: 'text', text: part }
  if (!isObject(part)) return null
  if (typeof part.text === 'string') {
    if (part.thought === true) {
      const t: ThinkingPart = { type: 'thinking', variant: 'thinking', text: part.text }
      const sig = str(part.thoughtSignature)
      if (sig !== undefined) t.signature = sig
      return t
    }
    return { type: 'text', text: part.text }
  }
  if (isObject(part.inlineData)) {
    const mime = str(part.inlineData.mimeType) ?? ''
    const data = str(part.inlineData.data) ?? ''
    if (mime.startsWith('image/')) {
      const url = `data:${mime};base64,${data}`
      return { type: 'image', mediaType: mime, url, bytes: base64Bytes(data) }
    }
    return { type: 'opaque', kind: 'inlineData', raw: part }
  }
  if (isObject(part.fileData)) {
    const uri = str(part.fileData.fileUri)
    const mime = str(part.fileData.mimeType)
    if (uri !== undefined && (mime ?? '').startsWith('image/')) return imageFromUrl(uri, mime)
    return { type: 'opaque', kind: 'fileData', raw: part }
  }
  if (isObject(part.functionCall) || isObject(part.functionResponse)) return null
  return { type: 'opaque', kind: 'unknown', raw: part }
}

/** `content` (string in old files, `PartListUnion` in new ones) as canonical parts. */
function contentParts(content: unknown): Part[] {
  const list = Array.isArray(content) ? content : content === undefined ? [] : [content]
  const parts: Part[] = []
  for (const p of list) {
    const part = geminiPart(p)
    if (part && !(part.type === 'text' && part.text === '')) parts.push(part)
  }
  return parts
}

/** A `thoughts[]` entry (`{subject, description}`) as a readable thinking part. */
function thoughtPart(t: unknown): ThinkingPart | null {
  if (!isObject(t)) return null
  const subject = str(t.subject) ?? ''
  const description = str(t.description) ?? ''
  const text = subject && description ? `**${subject}**\n\n${description}` : subject || description
  return text === '' ? null : { type: 'thinking', variant: 'thinking', text }
}

/**
 * A tool call's `result` (`PartListUnion` of `functionResponse` parts, possibly with text or
 * inline data) as tool message content: `response.output` (or `response.error`) text as is, any
 * other response object as compact JSON; other parts as parts. `isError` when the call's status
 * is `error` or the response carries an `error`.
 */
function toolResult(call: JsonObject): { content: string | Part[]; isError: boolean } {
  const list = Array.isArray(call.result) ? call.result : call.result == null ? [] : [call.result]
  const parts: Part[] = []
  let isError = call.status === 'error'
  for (const p of list) {
    if (isObject(p) && isObject(p.functionResponse)) {
      const response = p.functionResponse.response
      if (isObject(response) && typeof response.output === 'string') {
        parts.push({ type: 'text', text: response.output })
      } else if (isObject(response) && typeof response.error === 'string') {
        isError = true
        parts.push({ type: 'text', text: response.error })
      } else if (typeof response === 'string') {
        parts.push({ type: 'text', text: response })
      } else {
        parts.push({ type: 'text', text: JSON.stringify(response ?? null) })
      }
      continue
    }
    const part = geminiPart(p)
    if (part) parts.push(part)
  }
  if (parts.length === 0) {
    const display = str(call.resultDisplay)
    const status = str(call.status) ?? 'unknown'
    parts.push({ type: 'text', text: display ?? `(no result recorded; status ${status})` })
    if (status !== 'success') isError = true
  }
  return { content: normalizeParts(parts, '') ?? '', isError }
}

/** A count field of `tokens`, undefined when absent or not a non-negative number. */
const count = (value: unknown): number | undefined =>
  typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : undefined

/**
 * The usage a `gemini` record's `tokens` (`TokensSummary{input, output, cached, thoughts?, tool?,
 * total}`, the response's `usageMetadata` as Gemini CLI copies it) records, at draft `atIndex`:
 * `context` = `input` (`promptTokenCount`; `cached` is a part of it), `output` = `output` +
 * `thoughts` (`candidatesTokenCount` leaves the thinking tokens out). Undefined without a numeric
 * `input` or when every count is 0. Source: formats.md §4.6; google-gemini/gemini-cli
 * `chatRecordingService.ts` (`recordMessageTokens`).
 */
function recordUsage(tokens: unknown, atIndex: number): DraftUsage | undefined {
  if (!isObject(tokens)) return undefined
  const context = count(tokens.input)
  if (context === undefined) return undefined
  const out = count(tokens.output)
  const thoughts = count(tokens.thoughts) ?? 0
  const output = out === undefined ? undefined : out + thoughts
  if (context === 0 && !output) return undefined
  const u: DraftUsage = { atIndex, context }
  if (output !== undefined) u.output = output
  return u
}

/**
 * Converts Gemini CLI `MessageRecord`s to canonical messages: `user` → user; `gemini` → assistant
 * (`thoughts` → thinking parts first, then content, `toolCalls` → tool calls with `args` as JSON)
 * followed by one tool message per call holding its embedded `functionResponse` result;
 * `info` / `error` / `warning` records are UI notes, skipped and counted in one warning. A
 * `gemini` record's `tokens` is the usage of the request that produced it (`recordUsage`).
 */
function convertMessages(
  messages: readonly unknown[],
  lineOf: (i: number) => number,
  keepRaw: boolean,
  fieldOf: (i: number) => string,
): { drafts: DraftMessage[]; warnings: string[]; usage: DraftUsage[] } {
  const drafts: DraftMessage[] = []
  const usage: DraftUsage[] = []
  const warnings: string[] = []
  const notes = new Map<string, number>()
  const src = (i: number, raw: unknown): SourceRef => {
    const s: SourceRef = { format, line: lineOf(i) }
    if (keepRaw) s.raw = raw
    return s
  }
  messages.forEach((m, i) => {
    if (!isObject(m)) {
      warnings.push(`${fieldOf(i)}: not an object, skipped`)
      return
    }
    const type = str(m.type) ?? ''
    if (NOTE_TYPES.has(type)) {
      notes.set(type, (notes.get(type) ?? 0) + 1)
      return
    }
    const id = str(m.id) ?? ''
    if (type === 'user') {
      drafts.push({
        id,
        role: 'user',
        content: normalizeParts(contentParts(m.content), ''),
        source: src(i, m),
      })
      return
    }
    if (type !== 'gemini') {
      warnings.push(`${fieldOf(i)}.type: ${quoteForMessage(m.type)} is not a message type, skipped`)
      return
    }
    const parts: Part[] = []
    if (Array.isArray(m.thoughts)) {
      for (const t of m.thoughts) {
        const p = thoughtPart(t)
        if (p) parts.push(p)
      }
    }
    for (const item of contentParts(m.content)) parts.push(item)
    const calls = Array.isArray(m.toolCalls) ? m.toolCalls.filter(isObject) : []
    const toolCalls: ToolCall[] = calls.map((c, k) => ({
      id: str(c.id) ?? `${id}-call${k + 1}`,
      name: str(c.name) ?? '',
      arguments: typeof c.args === 'string' ? c.args : JSON.stringify(c.args ?? {}),
    }))
    const d: DraftMessage = {
      id,
      role: 'assistant',
      content: normalizeParts(parts, null),
      source: src(i, m),
    }
    if (toolCalls.length > 0) d.toolCalls = toolCalls
    const u = recordUsage(m.tokens, drafts.length)
    if (u) usage.push(u)
    drafts.push(d)
    calls.forEach((c, k) => {
      const call = toolCalls[k] as ToolCall
      const { content, isError } = toolResult(c)
      const t: DraftMessage = {
        id: '',
        role: 'tool',
        content,
        toolCallId: call.id,
        toolName: call.name,
        source: src(i, c),
      }
      if (isError) t.isError = true
      drafts.push(t)
    })
  })
  for (const [type, n] of notes) {
    warnings.push(`${n} ${quoteForMessage(type)} record(s) skipped: UI notes, not model context`)
  }
  return { drafts, warnings, usage }
}

/**
 * Imports a Gemini CLI legacy session (`~/.gemini/tmp/<hash>/chats/session-*.json`,
 * `ConversationRecord{sessionId, projectHash, startTime, messages}`). See `convertMessages`. The
 * legacy JSON records no compaction (formats.md §4.6). Source: formats.md §4.6, §1 items 2, 7.
 */
function importGeminiSession(root: unknown, keepRaw = true): Transcript {
  if (!isObject(root) || !Array.isArray(root.messages)) {
    importFailure('expected a Gemini CLI session object with a "messages" array', {
      field: 'messages',
    })
  }
  const { drafts, warnings, usage } = convertMessages(
    root.messages,
    (i) => i + 1,
    keepRaw,
    (i) => `messages[${i}]`,
  )
  if (drafts.length === 0) importFailure('no messages found in messages', { field: 'messages' })
  const extras = typeof root.summary === 'string' ? { title: root.summary } : {}
  const t = finalizeTranscript(format, drafts, [], warnings, extras)
  const resolved = resolveUsage(t.messages, usage)
  if (resolved) t.usage = resolved
  return t
}

/**
 * Imports a Gemini CLI JSONL recording: a metadata first line (`sessionId`, `projectHash`), then
 * message records upserted by `id` (last write wins, first position kept), `{$set:{messages}}`
 * replacing the whole history and `{$rewindTo: id}` dropping that message and everything after it
 * [R: formats.md §4.6]. The folded history is converted like the legacy JSON.
 */
function importGeminiJsonl(records: readonly JsonlRecord[], keepRaw = true): Transcript {
  let order: string[] = []
  const byId = new Map<string, { value: unknown; line: number }>()
  let anon = 0
  const upsert = (value: unknown, line: number) => {
    const id = isObject(value) && typeof value.id === 'string' ? value.id : `#${anon++}`
    if (!byId.has(id)) order.push(id)
    byId.set(id, { value, line })
  }
  for (const { value, line } of records) {
    if (isObject(value.$set) && Array.isArray(value.$set.messages)) {
      order = []
      byId.clear()
      for (const m of value.$set.messages) upsert(m, line)
    } else if (typeof value.$rewindTo === 'string') {
      const at = order.indexOf(value.$rewindTo)
      if (at >= 0) for (const id of order.splice(at)) byId.delete(id)
    } else if (typeof value.type === 'string' && 'id' in value) {
      upsert(value, line)
    }
  }
  const folded = order.map((id) => byId.get(id) as { value: unknown; line: number })
  const { drafts, warnings, usage } = convertMessages(
    folded.map((f) => f.value),
    (i) => folded[i]?.line ?? 0,
    keepRaw,
    (i) => `line ${folded[i]?.line ?? 0}`,
  )
  if (drafts.length === 0) importFailure('no messages found in the recording')
  const t = finalizeTranscript(format, drafts, [], warnings)
  const resolved = resolveUsage(t.messages, usage)
  if (resolved) t.usage = resolved
  return t
}

/** The Gemini CLI legacy JSON session importer (formats.md §2 item 4). */
export const geminiCliImporter: FormatImporter<'gemini-cli'> = {
  id: 'gemini-cli',
  label: LABEL,
  container: 'json',
  priority: 4,
  requestFormat: null,
  description: 'Gemini CLI session, ~/.gemini/tmp/<project>/chats/session-*.json (or .jsonl)',
  extensions: ['.json', '.jsonl'],
  detect(root) {
    if (!isObject(root)) return 'not a JSON object'
    if (typeof root.sessionId !== 'string') return 'no "sessionId" string'
    if (typeof root.projectHash !== 'string') return 'no "projectHash" string'
    if (!Array.isArray(root.messages)) return notAnArray(root, 'messages')
    return true
  },
  closeness: (root) => {
    if (!isObject(root)) return 0
    return ['sessionId', 'projectHash', 'startTime'].filter((k) => k in root).length / 4
  },
  importParsed: (root, options) => importGeminiSession(root, options.keepRaw),
}

/** The Gemini CLI JSONL recording importer (formats.md §2 item 4). */
export const geminiCliJsonlImporter: FormatImporter<'gemini-cli'> = {
  id: 'gemini-cli',
  label: LABEL,
  container: 'jsonl',
  priority: 4,
  requestFormat: null,
  extensions: ['.jsonl'],
  detect(input) {
    const first = (input as JsonlRecord[])[0]
    if (!first) return 'no readable lines'
    const v = first.value
    if (typeof v.sessionId === 'string' && typeof v.projectHash === 'string') return true
    return `line ${first.line}: no sessionId + projectHash metadata line`
  },
  importParsed: (input, options) => importGeminiJsonl(input as JsonlRecord[], options.keepRaw),
}
