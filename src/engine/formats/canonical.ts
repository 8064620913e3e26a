/**
 * The canonical transcript file: what export.ts writes with `--to canonical` and the page's
 * "download as canonical JSON", read back here so an exported After transcript re-imports as the
 * same messages. Source: SPEC §1 (canonical model).
 */
import type { FormatId, Message, Part, Role, ToolCall, Transcript } from '../model'
import { importFailure } from './failure'
import type { FormatImporter, ImportOptions } from './types'
import {
  finalizeTranscript,
  isObject,
  str,
  type DraftMessage,
  type JsonObject,
  type TranscriptExtras,
} from './util'
import { quoteForMessage } from '../util/text'

/** The `version` of the canonical file this engine writes. */
export const CANONICAL_VERSION = 1

/** A canonical transcript file: `{format: 'canonical', version, messages, …}`. */
export interface CanonicalFile {
  format: 'canonical'
  version: number
  /** The format the messages were imported from, for the reader. */
  sourceFormat?: FormatId
  title?: string
  /** The model the source named (Transcript.model). */
  model?: string
  /** Messages of the canonical model without `index` and `source` (position is the index). */
  messages: Omit<Message, 'index' | 'source'>[]
  tools?: Transcript['tools']
}

const ROLES = new Set<Role>(['system', 'user', 'assistant', 'tool'])
const THINKING_VARIANTS = new Set(['thinking', 'redacted_thinking', 'reasoning'])

/** True for a parsed JSON root that is a canonical transcript file. */
function isCanonicalRoot(root: unknown): root is JsonObject {
  return isObject(root) && root.format === 'canonical' && Array.isArray(root.messages)
}

/** One part of a canonical file, checked; an unknown part type is kept opaque. */
function canonicalPart(part: unknown): Part {
  if (!isObject(part)) return { type: 'opaque', kind: 'unknown', raw: part }
  switch (part.type) {
    case 'text':
      return { type: 'text', text: str(part.text) ?? '' }
    case 'image': {
      const p: Part = { type: 'image' }
      if (typeof part.url === 'string') p.url = part.url
      if (typeof part.mediaType === 'string') p.mediaType = part.mediaType
      if (typeof part.bytes === 'number') p.bytes = part.bytes
      return p
    }
    case 'thinking': {
      const variant = str(part.variant) ?? 'thinking'
      const p: Part = {
        type: 'thinking',
        variant: THINKING_VARIANTS.has(variant)
          ? (variant as 'thinking' | 'redacted_thinking' | 'reasoning')
          : 'thinking',
      }
      if (typeof part.text === 'string') p.text = part.text
      if (typeof part.signature === 'string') p.signature = part.signature
      if (typeof part.encrypted === 'string') p.encrypted = part.encrypted
      return p
    }
    case 'opaque':
      return { type: 'opaque', kind: str(part.kind) ?? 'unknown', raw: part.raw }
    default:
      return { type: 'opaque', kind: str(part.type) ?? 'unknown', raw: part }
  }
}

/**
 * Imports a canonical transcript file. Each message needs a `role` of system/user/assistant/tool
 * (else the import fails naming `messages[i].role`); `content` is a string, null or parts (text,
 * image, thinking, opaque; unknown part types kept opaque); `toolCalls` keep their raw
 * `arguments` (a non-string is re-serialized) and their `native` source form; ids are kept
 * (made unique), `index` is the position; `source` is `{format: 'canonical', line: i + 1}` (+ the
 * record when `keepRaw`). Throws an `ImportFailure` for a bad root or message. Never modifies
 * `root`.
 */
function importCanonical(root: unknown, options: ImportOptions = {}): Transcript {
  const format: FormatId = 'canonical'
  if (!isCanonicalRoot(root))
    importFailure('expected {"format": "canonical", "messages": [...]}', { field: 'messages' })
  const keepRaw = options.keepRaw ?? true
  const list = root.messages as unknown[]
  const drafts: DraftMessage[] = list.map((m, i) => {
    const field = `messages[${i}]`
    if (!isObject(m)) importFailure(`${field} is not an object`, { field })
    const role = m.role as Role
    if (!ROLES.has(role)) {
      importFailure(`${field}.role is ${quoteForMessage(m.role)}, not system/user/assistant/tool`, {
        field: `${field}.role`,
      })
    }
    const content =
      typeof m.content === 'string'
        ? m.content
        : Array.isArray(m.content)
          ? m.content.map(canonicalPart)
          : null
    const d: DraftMessage = {
      id: str(m.id) ?? '',
      role,
      content,
      source: keepRaw ? { format, line: i + 1, raw: m } : { format, line: i + 1 },
    }
    if (Array.isArray(m.toolCalls)) {
      const calls: ToolCall[] = m.toolCalls.filter(isObject).map((c) => {
        const call: ToolCall = {
          id: str(c.id) ?? '',
          name: str(c.name) ?? '',
          arguments:
            typeof c.arguments === 'string' ? c.arguments : JSON.stringify(c.arguments ?? {}),
        }
        const native = c.native
        if (isObject(native) && typeof native.kind === 'string') {
          call.native = { kind: native.kind, raw: native.raw }
          if (native.hosted === true) call.native.hosted = true
          if (native.result !== undefined) call.native.result = native.result
        }
        return call
      })
      if (calls.length > 0) d.toolCalls = calls
    }
    if (typeof m.toolCallId === 'string') d.toolCallId = m.toolCallId
    if (typeof m.toolName === 'string') d.toolName = m.toolName
    if (m.isError === true) d.isError = true
    if (isObject(m.flags)) {
      const flags: DraftMessage['flags'] = {}
      for (const k of ['injected', 'command', 'compactSummary', 'apiError'] as const)
        if (m.flags[k] === true) flags[k] = true
      if (Object.keys(flags).length > 0) d.flags = flags
    }
    return d
  })
  const extras: TranscriptExtras = {}
  if (typeof root.title === 'string') extras.title = root.title
  if (typeof root.model === 'string') extras.model = root.model
  if (Array.isArray(root.tools)) {
    extras.tools = root.tools
      .filter(isObject)
      .filter((t) => typeof t.name === 'string')
      .map((t) => {
        const schema: NonNullable<Transcript['tools']>[number] = { name: t.name as string }
        if (typeof t.description === 'string') schema.description = t.description
        if (t.parameters !== undefined) schema.parameters = t.parameters
        return schema
      })
  }
  return finalizeTranscript(format, drafts, [], [], extras)
}

/** The canonical file in the importer registry (detected first: its `format` key is exact). */
export const canonicalImporter: FormatImporter<'canonical'> = {
  id: 'canonical',
  label: 'canonical transcript',
  container: 'json',
  priority: 0,
  requestFormat: null,
  description: 'A transcript exported by this app: {"format": "canonical", "messages": [...]}',
  extensions: ['.json'],
  detect: (input) =>
    isCanonicalRoot(input) ? true : 'no "format": "canonical" key with a messages array',
  closeness: (input) => (isObject(input) && input.format === 'canonical' ? 0.9 : 0),
  importParsed: (input, options) => importCanonical(input, options),
}
