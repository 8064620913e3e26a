import type {
  FormatId,
  ImagePart,
  Message,
  MessageFlags,
  Part,
  RecordedCompaction,
  RequestUsage,
  SourceRef,
  ToolCall,
  Transcript,
} from '../model'
import { quoteForMessage } from '../util/text'

/** A plain JSON object (not an array, not null). */
export type JsonObject = Record<string, unknown>

/** True for a plain JSON object (not an array, not null). */
export function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/** What a JSON value is, in words: `a string`, `an object`, `an array`, `null`, `a number`. */
function jsonTypeName(value: unknown): string {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'an array'
  if (typeof value === 'object') return 'an object'
  return `a ${typeof value}`
}

/**
 * Why `root[key]` is not the array a format looks for, naming the field and what it is instead:
 * `"messages" is a string, not an array` when the key is there, else
 * `no "messages" array` + `where` (e.g. ` at the top level`).
 */
export function notAnArray(root: JsonObject, key: string, where = ''): string {
  if (Object.prototype.hasOwnProperty.call(root, key))
    return `"${key}" is ${jsonTypeName(root[key])}, not an array`
  return `no "${key}" array${where}`
}

/**
 * The fields a record lacks, exactly: `fields` maps each field's name to the test its value must
 * pass; the names whose test fails, in the order of `fields` (empty when none is missing). Every
 * "lacks fields" message of an importer names these (`andList`), so it never names a field that
 * is there.
 */
export function missingFields(
  record: JsonObject,
  fields: Readonly<Record<string, (value: unknown, record: JsonObject) => boolean>>,
): string[] {
  return Object.keys(fields).filter((name) => !fields[name]?.(record[name], record))
}

/** Kinds `countList` names before it says how many more there are. */
const COUNT_LIST_LIMIT = 8

/**
 * Counts of what a file holds by kind (unknown record types, roles, block types) for a message,
 * in the order given: `"a" ×2, "b" ×1`, each kind quoted by `quoteForMessage` (so cut short and
 * on one line); past `limit` kinds, `, and 3 more`. The one wording of such lists.
 */
export function countList(counts: Iterable<readonly [string, number]>, limit = COUNT_LIST_LIMIT): string {
  const all = [...counts]
  const shown = all.slice(0, limit).map(([kind, n]) => `${quoteForMessage(kind)} ×${n}`)
  return all.length > limit ? `${shown.join(', ')}, and ${all.length - limit} more` : shown.join(', ')
}

/** Names joined for a message: `a`, `a and b`, `a, b and c`. */
export function andList(names: readonly string[]): string {
  if (names.length <= 1) return names.join('')
  return `${names.slice(0, -1).join(', ')} and ${names[names.length - 1]}`
}

/** `value` when it is a string, else undefined. */
export function str(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined
}

/**
 * Bytes encoded by a base64 string: length × 3/4 minus the `=` padding. Whitespace is not expected
 * (data URLs and API payloads carry none). Units: bytes.
 */
export function base64Bytes(base64: string): number {
  let padding = 0
  if (base64.endsWith('==')) padding = 2
  else if (base64.endsWith('=')) padding = 1
  return Math.max(0, Math.floor((base64.length * 3) / 4) - padding)
}

/**
 * An image part from a URL: for `data:<type>;base64,<payload>` URLs the media type and the payload
 * size in bytes are read from the URL; any other URL (https, file id) is kept as is. Only the URL's
 * head is inspected: data URLs can be megabytes long (formats.md §1 item 12).
 */
export function imageFromUrl(url: string, mediaType?: string): ImagePart {
  const part: ImagePart = { type: 'image', url }
  if (url.startsWith('data:')) {
    const comma = url.indexOf(',')
    const head = comma >= 0 ? url.slice(5, comma) : ''
    const type = head.split(';')[0]
    if (type) part.mediaType = type
    if (comma >= 0 && head.endsWith(';base64')) part.bytes = base64Bytes(url.slice(comma + 1))
  }
  if (mediaType && !part.mediaType) part.mediaType = mediaType
  return part
}

/**
 * Content in the canonical shape (SPEC §1): text-only parts become one string joined with "\n";
 * anything with a non-text part stays `Part[]`; no parts at all gives `empty`.
 */
export function normalizeParts(parts: Part[], empty: string | null = ''): string | Part[] | null {
  if (parts.length === 0) return empty
  if (parts.every((p) => p.type === 'text'))
    return parts.map((p) => (p as { text: string }).text).join('\n')
  return parts
}

/** A message before `finalizeTranscript` gives it its index and a unique id. */
export interface DraftMessage {
  /** Source id, or '' to get `m<index>`. */
  id: string
  role: Message['role']
  content: Message['content']
  toolCalls?: ToolCall[]
  toolCallId?: string
  toolName?: string
  isError?: boolean
  flags?: MessageFlags
  source: SourceRef
}

/**
 * A recorded compaction whose message references are draft positions; `finalizeTranscript` turns
 * them into message ids.
 */
export interface DraftCompaction extends Omit<
  RecordedCompaction,
  'atMessageId' | 'summaryMessageId'
> {
  /** Position of the summary message among the drafts, if the summary is a message. */
  summaryIndex?: number
}

/** Optional transcript fields an importer may fill. */
export interface TranscriptExtras {
  title?: string
  tools?: Transcript['tools']
  /** The model the source names; an empty string counts as none. */
  model?: string | undefined
  /** `Transcript.notes`; an empty list counts as none. */
  notes?: string[]
}

/**
 * Builds the transcript: `index` = position, ids unique (a repeated id gets `-2`, `-3`, …; an empty
 * id becomes `m<index>`), compaction references resolved to the final ids. Source: SPEC §1 (`id`
 * unique, `index` 0-based position).
 */
export function finalizeTranscript(
  format: FormatId,
  drafts: readonly DraftMessage[],
  compactions: readonly DraftCompaction[],
  warnings: string[],
  extras: TranscriptExtras = {},
): Transcript {
  const taken = new Set<string>()
  // Source ids win over suffixed ones: a suffix never takes an id a later message owns.
  const reserved = new Set(drafts.map((d) => d.id).filter((id) => id !== ''))
  let renamed = 0
  const messages: Message[] = drafts.map((d, index) => {
    let id = d.id === '' ? `m${index}` : d.id
    if (taken.has(id)) {
      renamed++
      let n = 2
      while (taken.has(`${id}-${n}`) || reserved.has(`${id}-${n}`)) n++
      id = `${id}-${n}`
    }
    taken.add(id)
    const m: Message = { id, index, role: d.role, content: d.content, source: d.source }
    if (d.toolCalls && d.toolCalls.length > 0) m.toolCalls = d.toolCalls
    if (d.toolCallId !== undefined) m.toolCallId = d.toolCallId
    if (d.toolName !== undefined) m.toolName = d.toolName
    if (d.isError) m.isError = true
    if (d.flags && Object.keys(d.flags).length > 0) m.flags = d.flags
    return m
  })
  if (renamed > 0)
    warnings.push(`${renamed} message id(s) occurred twice; later copies got a -2, -3 … suffix`)
  const recordedCompactions: RecordedCompaction[] = compactions.map((c) => {
    const { summaryIndex, ...rest } = c
    const out: RecordedCompaction = { ...rest }
    const at = messages[c.atIndex]
    if (at) out.atMessageId = at.id
    const summary = summaryIndex === undefined ? undefined : messages[summaryIndex]
    if (summary) out.summaryMessageId = summary.id
    return out
  })
  const transcript: Transcript = { format, messages, recordedCompactions, warnings }
  if (extras.title !== undefined) transcript.title = extras.title
  if (extras.tools !== undefined) transcript.tools = extras.tools
  if (extras.model) transcript.model = extras.model
  if (extras.notes && extras.notes.length > 0) transcript.notes = extras.notes
  return transcript
}

/**
 * Caps a list of per-item warnings: the first `limit` verbatim, then one line saying how many more
 * there were, so a file with 10,000 bad lines does not flood the page.
 */
export function capWarnings(items: readonly string[], limit = 20): string[] {
  if (items.length <= limit) return [...items]
  return [...items.slice(0, limit), `… and ${items.length - limit} more like these`]
}

/**
 * Pairs a legacy OpenAI `function` result (no id) with a pending `function_call` of the same
 * name (else the oldest pending one), setting `draft.toolCallId`/`toolName`. An orphan result
 * keeps a synthetic id `fc-<position>` of its own (the validity checker reports it) and a
 * warning naming `field`. Mutates `pending` (the call is consumed) and `draft` only.
 * Source: design/formats.md §1 item 6 ("Legacy OpenAI function_call has no id — pair by order").
 */
export function pairLegacyFunctionResult(
  pending: ToolCall[],
  name: string | undefined,
  draft: DraftMessage,
  position: number,
  field: string,
  warnings: string[],
): void {
  let k = pending.findIndex((c) => c.name === name)
  if (k < 0 && pending.length > 0) k = 0
  if (k >= 0) {
    const call = pending.splice(k, 1)[0] as ToolCall
    draft.toolCallId = call.id
    draft.toolName = call.name
  } else {
    draft.toolCallId = `fc-${position}`
    if (name !== undefined) draft.toolName = name
    warnings.push(`${field}: function result ${quoteForMessage(name ?? '')} follows no function_call`)
  }
}

/** The array at `root` itself, or at `root[key]` for the wrapped shape (`{messages:[…]}`). */
export function arrayOrWrapped(root: unknown, key: string): unknown[] | undefined {
  if (Array.isArray(root)) return root
  if (isObject(root) && Array.isArray(root[key])) return root[key] as unknown[]
  return undefined
}

/**
 * Several conversations of one file (the samples of an Inspect AI log, the instances of an
 * OpenHands evaluation output, …) as one transcript: the first is the one opened, the others are
 * its `sidechains` (`sidechainKind: 'conversation'`), which the page's conversation picker (`openConversation`) and the CLI's
 * report list by title. With more than one, the first one's notes start by saying so, naming
 * `noun` (plural: `noun` + "s"). Never modifies the transcripts it is given; `list` must not be
 * empty.
 */
export function withConversations(list: readonly Transcript[], noun: string): Transcript {
  const [first, ...rest] = list
  if (!first) throw new Error('withConversations: no conversation')
  if (rest.length === 0) return first
  const title = first.title ?? `${noun} 1`
  const others =
    rest.length === 1
      ? 'the other one is listed as a further conversation'
      : `the other ${rest.length} are listed as further conversations`
  const note = `${list.length} ${noun}s in this file: ${quoteForMessage(title)} is open; ${others}`
  return { ...first, notes: [note, ...(first.notes ?? [])], sidechains: rest, sidechainKind: 'conversation' }
}

/**
 * A `RequestUsage` whose message is a draft position (`atIndex`); `resolveUsage` names the
 * message once the transcript is built. Shared by the importers that read recorded usage.
 */
export type DraftUsage = Omit<RequestUsage, 'atMessageId'>

/**
 * The drafts' usage against the built transcript's messages (drafts and messages share positions):
 * each entry gets the id of the message at its `atIndex`; an entry past the last message (its
 * response left no message and none followed) is left out. Undefined when none is left.
 */
export function resolveUsage(
  messages: readonly Message[],
  drafts: readonly DraftUsage[],
): RequestUsage[] | undefined {
  const out: RequestUsage[] = []
  for (const d of drafts) {
    const m = messages[d.atIndex]
    if (m) out.push({ ...d, atMessageId: m.id })
  }
  return out.length > 0 ? out : undefined
}

/** A record of a parent-linked session file: its id, the id its parent field names, its line. */
export interface ParentLinked {
  id: string
  /** The id the record's parent field names; null for a root. */
  parentId: string | null
  /** 1-based line in the file. */
  line: number
}

/** Names lines `from`..`to` (1-based, inclusive): `line 5`, `lines 5–7`. */
const lineSpan = (from: number, to: number): string =>
  from === to ? `line ${from}` : `lines ${from}–${to}`

/**
 * Each record's effective parent in a parent-linked file, records in file order. A parent that is
 * in the file stays the parent (a real branch stays a branch). A parent id that names no record
 * (its line was skipped as unreadable, or never written) is read as lost: the record hangs off
 * the record before it in file order, so nothing before the lost line falls off the main line,
 * with one warning per lost id naming the lines between them that were not read (`readLines`:
 * every line that parsed, header and other non-tree lines included, ascending). Further records
 * naming the same lost id hang off the same record, as siblings. A lost parent before any record
 * makes a root. `field` names the parent field in the warning. Returns the parents (null for a
 * root) indexed like `records`, and the warnings. Source: formats.md §1 item 10 (a missing parent
 * joins the record before it in file order, as the Claude Code importer reads it).
 */
export function rejoinMissingParents<T extends ParentLinked>(
  records: readonly T[],
  field: string,
  readLines: readonly number[],
): { parents: (T | null)[]; warnings: string[] } {
  const byId = new Map<string, T>()
  for (const r of records) if (!byId.has(r.id)) byId.set(r.id, r)
  const read = new Set(readLines)
  const lost = new Map<string, T | null>()
  const warnings: string[] = []
  const parents = records.map((r, i): T | null => {
    if (r.parentId === null) return null
    const named = byId.get(r.parentId)
    if (named) return named
    const known = lost.get(r.parentId)
    if (known !== undefined) return known
    const before = records[i - 1] ?? null
    lost.set(r.parentId, before)
    // The lines just above this record that did not parse (up to the previous line that did).
    let from = r.line
    while (from > 1 && !read.has(from - 1)) from--
    const gap = from < r.line ? lineSpan(from, r.line - 1) : undefined
    const head = `line ${r.line}: ${field} ${quoteForMessage(r.parentId)} is not in the file`
    if (!before)
      warnings.push(
        gap
          ? `${head}; ${gap} before it ${from === r.line - 1 ? 'was' : 'were'} not read and no record precedes it: it starts the chain`
          : `${head} and no record precedes it: it starts the chain`,
      )
    else
      warnings.push(
        gap
          ? `${head}; the chain is rejoined across ${gap} (not read) to line ${before.line}, the record before it in file order`
          : `${head} (a record never written); joined to line ${before.line}, the record before it in file order`,
      )
    return before
  })
  return { parents, warnings }
}
