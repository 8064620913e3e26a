import type { Part, Role, SourceRef, ThinkingPart, ToolCall, Transcript } from '../model'
import { ImportFailure, importFailure } from './failure'
import type { BundleEntry, FileBundle, FormatImporter, ImportOptions } from './types'
import {
  andList,
  capWarnings,
  finalizeTranscript,
  imageFromUrl,
  isObject,
  missingFields,
  normalizeParts,
  str,
  type DraftCompaction,
  type DraftMessage,
  type JsonObject,
  withConversations,
} from './util'
import { quoteForMessage } from '../util/text'
import { inputRecord } from '../util/input-record'

const format = 'inspect-ai'

const ROLES: ReadonlySet<string> = new Set(['system', 'user', 'assistant', 'tool'])

/** The reference prefix Inspect's log condensing writes in place of a long string. */
const ATTACHMENT_PREFIX = 'attachment://'

/** The top-level keys of an eval log, each named as its detection's message says it. */
const LOG_KEYS: Readonly<Record<string, (value: unknown, root: JsonObject) => boolean>> = {
  'numeric "version"': (_, root) => typeof root.version === 'number',
  '"eval" object': (_, root) => isObject(root.eval),
  '"samples" (or "results")': (_, root) => Object.hasOwn(root, 'samples') || Object.hasOwn(root, 'results'),
}

/**
 * Detection (formats.md §2 item 5): an object with a numeric `version`, an `eval` object and
 * `samples` (or `results`). Otherwise names every key missing (`missingFields`), and only those.
 */
function detectInspectAI(root: unknown): true | string {
  if (!isObject(root)) return 'not a JSON object with version, eval and samples'
  const missing = missingFields(root, LOG_KEYS)
  return missing.length === 0 ? true : `no ${andList(missing)} at the top level`
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
    const out = inputRecord<unknown>()
    for (const [k, v] of Object.entries(value)) out[k] = resolveAttachments(v, attachments, missing)
    return out
  }
  return value
}

/**
 * One Inspect content item as a canonical part: `text` → text (a `refusal` counts as text);
 * `reasoning` → a reasoning thinking part (readable `reasoning` as text, `signature` kept; when
 * `redacted`, the reasoning string is the provider's encrypted payload); `image` → image (data
 * URL bytes from the base64 length); audio, video, document, data → opaque (a server `tool_use`
 * in an assistant message is split off first, see `assistantTurns`; elsewhere it stays opaque).
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

/** The result of a server-side tool use, as the tool message that follows its call. */
interface ServerResult {
  toolCallId: string
  name: string
  content: string
  isError: boolean
}

/** One assistant message of an Inspect assistant message split at its server tool uses. */
interface AssistantTurn {
  content: string | Part[] | null
  toolCalls: ToolCall[]
  results: ServerResult[]
}

/**
 * An assistant `content` split at its server-side tool uses (`ContentToolUse{type:"tool_use",
 * tool_type: "web_search"|"mcp_call"|"code_execution", id, name, context?, arguments: str,
 * result: str, error?}` — the provider ran the tool and the result came back in the model's own
 * output). Each run of tool uses ends a turn: its calls (hosted, `native` keeps the part for
 * export) go on the turn with the content before them, and their results (the `result` text, else
 * the `error`; `isError` when `error` is set) become tool messages right after it; content after
 * them opens the next turn. As the Anthropic importer does with server tools. Without tool uses:
 * one turn with `contentOf(content)`. Source: formats.md §4.9 (`_util/content.py`).
 */
function assistantTurns(content: unknown): AssistantTurn[] {
  if (!Array.isArray(content) || !content.some(isServerToolUse)) {
    return [{ content: contentOf(content), toolCalls: [], results: [] }]
  }
  const turns: AssistantTurn[] = []
  let parts: Part[] = []
  let calls: ToolCall[] = []
  let results: ServerResult[] = []
  const close = () => {
    turns.push({ content: normalizeParts(parts, ''), toolCalls: calls, results })
    parts = []
    calls = []
    results = []
  }
  for (const item of content) {
    if (isServerToolUse(item)) {
      const id = str(item.id) ?? ''
      const name = str(item.name) ?? ''
      const args = item.arguments
      calls.push({
        id,
        name,
        arguments: typeof args === 'string' ? args : JSON.stringify(args ?? {}),
        native: { kind: 'tool_use', raw: item, hosted: true },
      })
      const error = str(item.error)
      const result = str(item.result) ?? ''
      results.push({
        toolCallId: id,
        name,
        content: result !== '' ? result : (error ?? ''),
        isError: error !== undefined,
      })
      continue
    }
    if (results.length > 0) close()
    parts.push(contentItemToPart(item))
  }
  if (results.length > 0 || parts.length > 0 || turns.length === 0) close()
  return turns
}

/** A server-side tool use part (`ContentToolUse`, `type:"tool_use"`). */
function isServerToolUse(item: unknown): item is JsonObject {
  return isObject(item) && item.type === 'tool_use'
}

/**
 * The text a model was sent for a tool message with `error` (or the old `tool_error` string):
 * `Error: <message>`, which replaces the message's own content, as Inspect's OpenAI, Mistral,
 * Azure AI and chat-API providers send it (`f"Error: {message.error.message}" if message.error
 * else message.text`); undefined when there is no error. Source: `UKGovernmentBEIS/inspect_ai:
 * src/inspect_ai/model/_openai.py`, `_providers/mistral.py`, `_providers/util/chatapi.py`.
 */
function toolErrorText(m: JsonObject): string | undefined {
  if (isObject(m.error)) return `Error: ${str(m.error.message) ?? ''}`
  if (typeof m.tool_error === 'string' && m.tool_error !== '') return `Error: ${m.tool_error}`
  return undefined
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

/** Where a sample sits in its file, for warnings and errors. */
interface SamplePlace {
  /** The sample itself: `samples[3]` (JSON log) or `samples/3_epoch_1.json` (`.eval` entry). */
  field: string
  /** A path inside the sample: `samples[3].messages[2]` / `samples/3_epoch_1.json: messages[2]`. */
  at(path: string): string
}

/** One sample to import: where it is and how to get its parsed JSON (may throw ImportFailure). */
interface SampleSource {
  place: SamplePlace
  load(): unknown
}

/** How a sample is named in the conversation picker: `sample <id> (epoch <n>)`. */
function sampleLabel(sample: JsonObject): string {
  const id = sample.id
  const shown = typeof id === 'string' || typeof id === 'number' ? String(id) : '?'
  return typeof sample.epoch === 'number'
    ? `sample ${shown} (epoch ${sample.epoch})`
    : `sample ${shown}`
}

/**
 * One Inspect `EvalSample` as a transcript: its `messages` (the final conversation). Every
 * `attachment://<hash>` string is resolved through `sample.attachments` first (unknown hashes
 * warned, kept). Roles map one to one; content string or list (`text`, `reasoning`, `image`;
 * others opaque); old logs' top-level assistant `reasoning` becomes a leading reasoning part.
 * Assistant `tool_calls[].function` + `arguments` (dict → JSON text), on the message's last part
 * when server-side `tool_use` parts split it (`assistantTurns`: each becomes a hosted call plus a
 * tool message with its result); tool messages answer `tool_call_id`, are named by `function`,
 * and when `error` (or the old `tool_error`) is set are errors whose content is the
 * `Error: <message>` text the model was sent in their place (`toolErrorText`). Each `events[]` entry with `event:"compaction"` becomes a `RecordedCompaction`
 * (`tokens_before` / `tokens_after`, `type` as trigger, no summary text — Inspect records none):
 * its boundary sits after the last message any earlier event (model input/output, tool message)
 * refers to. Ids are the messages' own (`m<index>` when null). Throws an `ImportFailure` naming
 * the field when the sample is not an object, has no `messages` array or no importable message.
 * Never modifies `sample`. Source: formats.md §4.9.
 */
function importSample(
  sample: unknown,
  place: SamplePlace,
  keepRaw: boolean,
  title: string | undefined,
): Transcript {
  if (!isObject(sample)) importFailure(`${place.field} is not an object`, { field: place.field })
  if (!Array.isArray(sample.messages)) {
    const field = place.at('messages')
    importFailure(`${field} is not an array`, { field })
  }
  const attachments = isObject(sample.attachments) ? sample.attachments : {}
  const missing = new Set<string>()
  const warnings: string[] = []
  const drafts: DraftMessage[] = []
  const toolNames = new Map<string, string>()
  // Source message id → draft position, to place compaction boundaries.
  const positionOf = new Map<string, number>()

  sample.messages.forEach((original, i) => {
    const field = place.at(`messages[${i}]`)
    const m = resolveAttachments(original, attachments, missing)
    if (!isObject(m)) {
      warnings.push(`${field}: not an object, skipped`)
      return
    }
    const role = str(m.role)
    if (role === undefined || !ROLES.has(role)) {
      warnings.push(
        `${field}.role: ${quoteForMessage(m.role)} ` +
          'is not system/user/assistant/tool, skipped',
      )
      return
    }
    const source: SourceRef = { format, line: i + 1 }
    if (keepRaw) source.raw = original
    const id = str(m.id) ?? ''
    if (role === 'assistant') {
      const turns = assistantTurns(m.content)
      const reasoning = str(m.reasoning)
      const first = turns[0] as AssistantTurn
      if (reasoning !== undefined && reasoning !== '') {
        const rest = first.content
        const parts: Part[] =
          typeof rest === 'string'
            ? rest === ''
              ? []
              : [{ type: 'text', text: rest }]
            : (rest ?? [])
        first.content = [{ type: 'thinking', variant: 'reasoning', text: reasoning }, ...parts]
      }
      const calls = toolCallsOf(m.tool_calls)
      for (const item of calls) (turns[turns.length - 1] as AssistantTurn).toolCalls.push(item)
      turns.forEach((turn, k) => {
        const d: DraftMessage = {
          id: k === 0 ? id : '',
          role: 'assistant',
          content: turn.content,
          source: k === 0 ? source : { ...source },
        }
        for (const c of turn.toolCalls) toolNames.set(c.id, c.name)
        if (turn.toolCalls.length > 0) d.toolCalls = turn.toolCalls
        drafts.push(d)
        for (const r of turn.results) {
          const t: DraftMessage = {
            id: '',
            role: 'tool',
            content: r.content,
            toolCallId: r.toolCallId,
            toolName: r.name,
            source: { ...source },
          }
          if (r.isError) t.isError = true
          drafts.push(t)
        }
      })
    } else {
      const d: DraftMessage = { id, role: role as Role, content: contentOf(m.content), source }
      if (role === 'tool') {
        const callId = str(m.tool_call_id) ?? ''
        if (callId === '') warnings.push(`${field}.tool_call_id: missing`)
        d.toolCallId = callId
        const name = toolNames.get(callId) ?? str(m.function)
        if (name !== undefined) d.toolName = name
        const error = toolErrorText(m)
        if (error !== undefined) {
          d.content = error
          d.isError = true
        }
      }
      drafts.push(d)
    }
    // The boundary of a compaction after this message sits after every draft it became.
    if (id !== '') positionOf.set(id, drafts.length - 1)
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
      `${missing.size} attachment:// reference(s) not found in ${place.at('attachments')}, ` +
        'kept as is',
    )
  }
  if (drafts.length === 0) {
    const field = place.at('messages')
    importFailure(`${place.field} has no messages`, { field })
  }
  return finalizeTranscript(format, drafts, compactions, warnings, title ? { title } : {})
}

/**
 * The sample picker of both log formats (JSON and `.eval`), in the order given: every sample
 * becomes a conversation (`withConversations`: the first good one is opened, the others are
 * listed by `sample <id> (epoch <n>)`; the opened one's title is the task, with its sample named
 * when there are several). A sample that cannot be imported (not an object, no messages, invalid
 * JSON in its entry) is skipped with a warning naming it (at most 20, then a count); when none
 * can, the first one's error is thrown. Errors thrown while iterating `samples` (an unreadable
 * archive) are not caught.
 */
function importSamples(
  header: JsonObject,
  samples: Iterable<SampleSource>,
  keepRaw: boolean,
  leadWarnings: readonly string[] = [],
): Transcript {
  const task = isObject(header.eval) ? str(header.eval.task) : undefined
  const conversations: Transcript[] = []
  const skipped: string[] = []
  let firstError: unknown
  for (const source of samples) {
    try {
      const sample = source.load()
      const label = isObject(sample) ? sampleLabel(sample) : source.place.field
      conversations.push(importSample(sample, source.place, keepRaw, label))
    } catch (e) {
      if (!(e instanceof ImportFailure)) throw e
      firstError ??= e
      skipped.push(`${e.message}; sample skipped`)
    }
  }
  if (conversations.length === 0) throw firstError ?? new ImportFailure('the log has no samples')
  const [first, ...rest] = conversations as [Transcript, ...Transcript[]]
  // Alone, the sample is the log's conversation: the task names it.
  const title = rest.length === 0 ? task : task ? `${task}: ${first.title}` : first.title
  const main: Transcript = { ...first }
  if (title) main.title = title
  else delete main.title
  const opened = withConversations([main, ...rest], 'sample')
  const warnings = [...leadWarnings, ...capWarnings(skipped), ...opened.warnings]
  return { ...opened, warnings }
}

/** The place of `samples[k]` in a JSON log. */
function jsonPlace(k: number): SamplePlace {
  const field = `samples[${k}]`
  return { field, at: (path) => `${field}.${path}` }
}

/**
 * Imports an Inspect AI eval log in JSON (`{version, eval, samples}`, `inspect eval
 * --log-format json`): every sample of `samples` (`importSamples`: the first opened, the others
 * listed as further conversations; each as `importSample` describes). No samples is an error
 * naming `samples` (header-only logs keep them in the `.eval` archive). Never modifies `root`.
 * Source: formats.md §4.9.
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
  const list = root.samples
  const sources = list.map(
    (sample, k): SampleSource => ({ place: jsonPlace(k), load: () => sample }),
  )
  return importSamples(root, sources, keepRaw)
}

/** A sample entry of an `.eval` zip: `samples/<id>_epoch_<n>.json`. */
const SAMPLE_ENTRY = /^samples\/([^/]+)\.json$/
/** The `.eval2` layout: one folder of chunks per sample. */
const CHUNKED_SAMPLE_ENTRY = /^samples\/[^/]+\/sample\.json$/
/** Uncompressed bytes decompressed at once while reading an `.eval` log's samples. */
const EVAL_BATCH_BYTES = 32 * 1024 * 1024

/**
 * The order Inspect's reader gives samples (`sort_samples`: by epoch, then id, numeric ids
 * zero-padded to 20 digits), from the entry names `samples/<id>_epoch_<n>.json`; other names
 * after them, by name.
 */
function sampleOrder(name: string): [number, string] {
  const m = /^samples\/(.+)_epoch_(\d+)\.json$/.exec(name)
  if (!m) return [Number.MAX_SAFE_INTEGER, name]
  const id = m[1] as string
  return [Number(m[2]), /^\d+$/.test(id) ? id.padStart(20, '0') : id]
}

/** One entry of `archive`, decompressed alone; a damaged entry is an error naming it. */
function readAlone(archive: FileBundle, field: string): Uint8Array | undefined {
  try {
    return archive.read([field]).get(field)
  } catch (e) {
    // A refusal that already names the entry (too large, an unreadable method) says it all.
    if (e instanceof ImportFailure && e.field === field) throw e
    const why = e instanceof Error || e instanceof ImportFailure ? e.message : String(e)
    return importFailure(`${field}: the entry cannot be decompressed (${why})`, {
      field,
    })
  }
}

/** The samples of an `.eval` archive, decompressed in batches of about `EVAL_BATCH_BYTES`. */
function* evalSamples(archive: FileBundle, entries: readonly BundleEntry[]): Generator<SampleSource> {
  for (let i = 0; i < entries.length; ) {
    const batch: BundleEntry[] = []
    let size = 0
    for (; i < entries.length; i++) {
      const entry = entries[i] as BundleEntry
      if (batch.length > 0 && size + entry.bytes > EVAL_BATCH_BYTES) break
      batch.push(entry)
      size += entry.bytes
    }
    // One damaged entry fails the whole batch's read: then each entry is read on its own, so
    // only the damaged one fails (and is skipped with a warning naming it).
    let data: Map<string, Uint8Array> | null
    try {
      data = archive.read(batch.map((e) => e.name))
    } catch {
      data = null
    }
    for (const entry of batch) {
      const field = entry.name
      const bytes = data?.get(field)
      data?.delete(field)
      yield {
        place: { field, at: (path) => `${field}: ${path}` },
        load: () => {
          const read = bytes ?? (data === null ? readAlone(archive, field) : undefined)
          if (!read) importFailure(`${field}: the entry cannot be read`, { field })
          return archive.json(field, read)
        },
      }
    }
  }
}

/**
 * Imports an Inspect AI `.eval` log (Inspect's default log format: a zip of `header.json` —
 * `{version, status, eval, plan, results, stats, error}` —, one `samples/<id>_epoch_<n>.json`
 * per sample, `summaries.json`, `reductions.json` and the `_journal/` it was written from).
 * The header is `header.json`, else `_journal/start.json` (`{version, eval, plan}`: a log still
 * being written or interrupted, said in a warning). Samples are read in Inspect's own order
 * (epoch, then id) and picked as in JSON logs (`importSamples`), so a `.eval` and its
 * `inspect log convert --to json` copy import alike; they are decompressed a batch at a time, so
 * a large log never holds all its samples' JSON at once. Errors: no sample entries (the chunked
 * `.eval2` layout named as such), a header that is not an object, entries the archive cannot
 * decompress. `keepRaw` defaults to true. Source: formats.md §4.9;
 * `UKGovernmentBEIS/inspect_ai: src/inspect_ai/log/_recorders/eval.py`.
 */
function importInspectEval(archive: FileBundle, options: ImportOptions = {}): Transcript {
  const keepRaw = options.keepRaw ?? true
  const latest = new Map<string, BundleEntry>()
  // A name written twice (an appended archive) is read as its last copy, as zip readers do.
  for (const e of archive.entries) latest.set(e.name, e)
  const headerName = latest.has('header.json') ? 'header.json' : '_journal/start.json'
  const headerBytes = archive.read([headerName]).get(headerName)
  if (!headerBytes) importFailure(`${headerName} cannot be read`, { field: headerName })
  const header = archive.json(headerName, headerBytes)
  if (!isObject(header)) importFailure(`${headerName} is not a JSON object`, { field: headerName })
  const lead: string[] = []
  if (headerName !== 'header.json') {
    lead.push(
      'no header.json: the log is unfinished (still running or interrupted); ' +
        'the samples written so far are imported',
    )
  }
  const entries = [...latest.values()].filter((e) => SAMPLE_ENTRY.test(e.name))
  if (entries.length === 0) {
    if ([...latest.keys()].some((n) => CHUNKED_SAMPLE_ENTRY.test(n))) {
      importFailure(
        'the samples are stored in chunks (samples/<id>_epoch_<n>/, the .eval2 layout), ' +
          'which cannot be imported yet',
        { field: 'samples' },
      )
    }
    importFailure('the .eval log has no samples (no samples/<id>_epoch_<n>.json entry)', {
      field: 'samples',
    })
  }
  const keyed = entries.map((e) => ({ e, key: sampleOrder(e.name) }))
  keyed.sort((a, b) => {
    const [epochA, idA] = a.key
    const [epochB, idB] = b.key
    if (epochA !== epochB) return epochA - epochB
    return idA < idB ? -1 : idA > idB ? 1 : 0
  })
  const ordered = keyed.map((k) => k.e)
  return importSamples(header, evalSamples(archive, ordered), keepRaw, lead)
}

/** The Inspect AI importer for the format registry (formats.md §2 item 5, §4.9). */
export const inspectAIImporter: FormatImporter<typeof format> = {
  id: format,
  label: 'Inspect AI eval log',
  container: 'json',
  priority: 5,
  requestFormat: null,
  description:
    'Inspect AI eval log: .eval (zip) or JSON ({version, eval, samples}); every sample, one ' +
    'conversation each',
  extensions: ['.eval', '.json'],
  detect: detectInspectAI,
  closeness(input) {
    if (!isObject(input)) return 0
    const keys = ['version', 'eval', 'samples', 'plan', 'stats']
    return keys.filter((k) => k in input).length / keys.length
  },
  importParsed: importInspectAIRoot,
  bundle: {
    matches: (names) => names.includes('header.json') || names.includes('_journal/start.json'),
    lookedFor: 'header.json',
    importBundle: importInspectEval,
  },
}
