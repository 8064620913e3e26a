import type { FormatId, Part, Role, SourceRef, ThinkingPart, ToolCall, Transcript } from '../model'
import { importFailure } from './failure'
import { FORMAT_LABELS } from './labels'
import type { FormatImporter, ImportOptions } from './registry'
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

const format: FormatId = 'inspect-ai'

const ROLES: ReadonlySet<string> = new Set(['system', 'user', 'assistant', 'tool'])

/** The reference prefix Inspect's log condensing writes in place of a long string. */
const ATTACHMENT_PREFIX = 'attachment://'

/**
 * Detection (formats.md §2 item 5): an object with a numeric `version`, an `eval` object and
 * `samples` (or `results`). Returns the first missing key otherwise.
 */
function detectInspectAI(root: unknown): true | string {
  if (!isObject(root)) return 'not a JSON object with version, eval and samples'
  if (typeof root.version !== 'number') return 'no numeric "version" at the top level'
  if (!isObject(root.eval)) return 'no "eval" object at the top level'
  if (!('samples' in root) && !('results' in root)) return 'no "samples" at the top level'
  return true
}

/**
 * Resolves `attachment://<hash>` strings through `sample.attachments` (Inspect's
 * `condense_sample` moves long strings there). Returns a copy of `value` with every string that is
 * exactly such a reference replaced by its text; the input is never modified. Unknown hashes stay
 * as they are and are counted in `missing`. Source: formats.md §4.9, §1 item 8.
 */
export function resolveAttachments(
  value: unknown,
  attachments: Readonly<Record<string, unknown>>,
  missing: Set<string>,
): unknown {
  if (typeof value === 'string') {
    if (!value.startsWith(ATTACHMENT_PREFIX)) return value
    const hash = value.slice(ATTACHMENT_PREFIX.length)
    const text = attachments[hash]
    if (typeof text === 'string') return text
    missing.add(hash)
    return value
  }
  if (Array.isArray(value)) return value.map((v) => resolveAttachments(v, attachments, missing))
  if (isObject(value)) {
    const out: JsonObject = {}
    for (const [k, v] of Object.entries(value)) out[k] = resolveAttachments(v, attachments, missing)
    return out
  }
  return value
}

/**
 * One Inspect content item as a canonical part: `text` → text (a `refusal` counts as text);
 * `reasoning` → a reasoning thinking part (readable `reasoning` as text, `signature` kept; when
 * `redacted`, the reasoning string is the provider's encrypted payload); `image` → image (data
 * URL bytes from the base64 length); audio, video, document, data and server `tool_use` → opaque.
 * Source: formats.md §4.9 (`_util/content.py`).
 */
function contentItemToPart(item: unknown): Part {
  if (typeof item === 'string') return { type: 'text', text: item }
  if (!isObject(item)) return { type: 'opaque', kind: 'unknown', raw: item }
  switch (item.type) {
    case 'text':
      return { type: 'text', text: str(item.text) ?? '' }
    case 'reasoning': {
      const reasoning = str(item.reasoning) ?? ''
      const part: ThinkingPart =
        item.redacted === true
          ? { type: 'thinking', variant: 'redacted_thinking', encrypted: reasoning }
          : { type: 'thinking', variant: 'reasoning', text: reasoning }
      if (typeof item.signature === 'string') part.signature = item.signature
      return part
    }
    case 'image': {
      const url = str(item.image)
      return url !== undefined ? imageFromUrl(url) : { type: 'image' }
    }
    default:
      return { type: 'opaque', kind: str(item.type) ?? 'unknown', raw: item }
  }
}

/** `content: str | list[Content]` in the canonical shape (text-only lists joined with "\n"). */
function contentOf(content: unknown): string | Part[] | null {
  if (content === null || content === undefined) return ''
  if (typeof content === 'string') return content
  if (Array.isArray(content)) return normalizeParts(content.map(contentItemToPart), '')
  return [{ type: 'opaque', kind: 'unknown', raw: content }]
}

/** `tool_calls[]` (`{id, function, arguments: dict}`) with arguments as JSON text. */
function toolCallsOf(list: unknown): ToolCall[] {
  if (!Array.isArray(list)) return []
  const calls: ToolCall[] = []
  for (const c of list) {
    if (!isObject(c)) continue
    const args = c.arguments
    calls.push({
      id: str(c.id) ?? '',
      name: str(c.function) ?? '',
      arguments: typeof args === 'string' ? args : JSON.stringify(args ?? {}),
    })
  }
  return calls
}

/** Message ids an event shows the model had seen or produced (model input/output, tool message). */
function eventMessageIds(event: JsonObject): string[] {
  const ids: string[] = []
  if (Array.isArray(event.input)) {
    for (const m of event.input) if (isObject(m) && typeof m.id === 'string') ids.push(m.id)
  }
  const output = isObject(event.output) ? event.output : undefined
  if (output && Array.isArray(output.choices)) {
    for (const c of output.choices) {
      if (isObject(c) && isObject(c.message) && typeof c.message.id === 'string')
        ids.push(c.message.id)
    }
  }
  if (typeof event.message_id === 'string') ids.push(event.message_id)
  return ids
}

/**
 * Imports an Inspect AI eval log (`{version, eval, samples}`, the `.json` log format): the
 * `messages` of `samples[0]` (several samples: the first, with a warning naming how many; no
 * samples: an error naming `samples`, since header-only logs keep them in the `.eval` zip).
 * Every `attachment://<hash>` string is resolved through `sample.attachments` first (unknown
 * hashes warned, kept). Roles map one to one; content string or list (`text`, `reasoning`,
 * `image`; others opaque); old logs' top-level assistant `reasoning` becomes a leading reasoning
 * part. Assistant `tool_calls[].function` + `arguments` (dict → JSON text); tool messages answer
 * `tool_call_id`, are named by `function`, and are errors when `error` (or the old `tool_error`)
 * is set. Each `events[]` entry with `event:"compaction"` becomes a `RecordedCompaction`
 * (`tokens_before` / `tokens_after`, `type` as trigger, no summary text — Inspect records none):
 * its boundary sits after the last message any earlier event (model input/output, tool message)
 * refers to. Ids are the messages' own (`m<index>` when null). Never modifies `root`. Source:
 * formats.md §4.9.
 */
export function importInspectAIRoot(root: unknown, options: ImportOptions = {}): Transcript {
  const keepRaw = options.keepRaw ?? true
  if (!isObject(root)) importFailure('expected an Inspect AI eval log object')
  if (!Array.isArray(root.samples) || root.samples.length === 0) {
    importFailure(
      'the log has no samples (header-only logs keep them in the .eval archive under samples/)',
      { field: 'samples' },
    )
  }
  const warnings: string[] = []
  const samples = root.samples
  const sample = samples[0]
  if (!isObject(sample)) importFailure('samples[0] is not an object', { field: 'samples[0]' })
  if (samples.length > 1) {
    warnings.push(
      `the log has ${samples.length} samples; imported the first ` +
        `(id ${JSON.stringify(sample.id ?? null)}, epoch ${JSON.stringify(sample.epoch ?? null)})`,
    )
  }
  if (!Array.isArray(sample.messages)) {
    importFailure('samples[0].messages is not an array', { field: 'samples[0].messages' })
  }
  const attachments = isObject(sample.attachments) ? sample.attachments : {}
  const missing = new Set<string>()
  const drafts: DraftMessage[] = []
  const toolNames = new Map<string, string>()
  // Source message id → draft position, to place compaction boundaries.
  const positionOf = new Map<string, number>()

  sample.messages.forEach((original, i) => {
    const field = `samples[0].messages[${i}]`
    const m = resolveAttachments(original, attachments, missing)
    if (!isObject(m)) {
      warnings.push(`${field}: not an object, skipped`)
      return
    }
    const role = str(m.role)
    if (role === undefined || !ROLES.has(role)) {
      warnings.push(
        `${field}.role: ${JSON.stringify(m.role ?? null)} ` +
          'is not system/user/assistant/tool, skipped',
      )
      return
    }
    const source: SourceRef = { format, line: i + 1 }
    if (keepRaw) source.raw = original
    const id = str(m.id) ?? ''
    const d: DraftMessage = { id, role: role as Role, content: contentOf(m.content), source }
    if (role === 'assistant') {
      const reasoning = str(m.reasoning)
      if (reasoning !== undefined && reasoning !== '') {
        const rest = d.content
        const parts: Part[] =
          typeof rest === 'string'
            ? rest === ''
              ? []
              : [{ type: 'text', text: rest }]
            : (rest ?? [])
        d.content = [{ type: 'thinking', variant: 'reasoning', text: reasoning }, ...parts]
      }
      const calls = toolCallsOf(m.tool_calls)
      for (const c of calls) toolNames.set(c.id, c.name)
      if (calls.length > 0) d.toolCalls = calls
    } else if (role === 'tool') {
      const callId = str(m.tool_call_id) ?? ''
      if (callId === '') warnings.push(`${field}.tool_call_id: missing`)
      d.toolCallId = callId
      const name = toolNames.get(callId) ?? str(m.function)
      if (name !== undefined) d.toolName = name
      if (isObject(m.error) || (typeof m.tool_error === 'string' && m.tool_error !== ''))
        d.isError = true
    }
    if (id !== '') positionOf.set(id, drafts.length)
    drafts.push(d)
  })

  const compactions: DraftCompaction[] = []
  const events = Array.isArray(sample.events) ? sample.events : []
  let seenUpTo = -1
  events.forEach((event) => {
    if (!isObject(event)) return
    if (event.event === 'compaction') {
      const c: DraftCompaction = { atIndex: seenUpTo + 1, summaryText: null, source: format }
      if (typeof event.type === 'string') c.trigger = event.type
      if (typeof event.tokens_before === 'number') c.tokensBefore = event.tokens_before
      if (typeof event.tokens_after === 'number') c.tokensAfter = event.tokens_after
      compactions.push(c)
      return
    }
    for (const id of eventMessageIds(event)) {
      const at = positionOf.get(id)
      if (at !== undefined && at > seenUpTo) seenUpTo = at
    }
  })
  if (missing.size > 0) {
    warnings.push(
      `${missing.size} attachment:// reference(s) not found in samples[0].attachments, kept as is`,
    )
  }
  if (drafts.length === 0)
    importFailure('samples[0] has no messages', { field: 'samples[0].messages' })
  const title = isObject(root.eval) ? str(root.eval.task) : undefined
  return finalizeTranscript(format, drafts, compactions, warnings, title ? { title } : {})
}

/** The Inspect AI importer for the format registry (formats.md §2 item 5, §4.9). */
export const inspectAIImporter: FormatImporter = {
  id: format,
  label: FORMAT_LABELS[format],
  container: 'json',
  priority: 5,
  description: 'Inspect AI eval log in JSON ({version, eval, samples}); the first sample',
  extensions: ['.json'],
  detect: detectInspectAI,
  closeness(input) {
    if (!isObject(input)) return 0
    const keys = ['version', 'eval', 'samples', 'plan', 'stats']
    return keys.filter((k) => k in input).length / keys.length
  },
  importParsed: importInspectAIRoot,
}
