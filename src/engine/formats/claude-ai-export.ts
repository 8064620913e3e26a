import { contentText } from '../content'
import type { Part, SourceRef, ToolCall, Transcript, TranscriptBranch } from '../model'
import { quoteForMessage, collapseWhitespace, cutCodePoints } from '../util/text'
import { dataExportCloseness, detectDataExport, importDataExport, type DataExportShape } from './data-export'
import { importFailure } from './failure'
import type { FormatImporter } from './types'
import {
  countList,
  finalizeTranscript,
  isObject,
  normalizeParts,
  str,
  type DraftMessage,
  type JsonObject,
} from './util'

const format = 'claude-ai-export'

/*
 * claude.ai's data export (Settings → Privacy → Export data): a zip holding `conversations.json`,
 * `users.json` and (sometimes) `projects.json`. `conversations.json` is an array of
 * `{uuid, name, summary, created_at, updated_at, account, chat_messages[]}`; a message is
 * `{uuid, text, content[], sender: "human"|"assistant", created_at, attachments[{file_name,
 * extracted_content}], files[], parent_message_uuid?}`. No published schema: the shape is read from
 * real exports and kenn-io/agentsview `internal/parser/claude_ai.go`. Source: docs/formats.md
 * (claude.ai data export).
 */

/** Content blocks with nothing for the model (claude.ai's budget marker): skipped quietly. */
const QUIET_BLOCKS = new Set(['token_budget'])

/** One message of the export as read: its object, uuid, parent uuid and time (ms, or -1). */
interface ExportMessage {
  id: string
  raw: JsonObject
  parent: string | null
  time: number
  /** Position in `chat_messages`, the tie-break between equal times. */
  order: number
}

/** `created_at` (ISO 8601) as epoch ms, or -1. */
function timeOf(m: JsonObject): number {
  const t = typeof m.created_at === 'string' ? Date.parse(m.created_at) : NaN
  return Number.isFinite(t) ? t : -1
}

/** A tool result block's `content` (a string, or `[{type:"text", text}]` blocks) as parts. */
function resultParts(content: unknown): Part[] {
  if (typeof content === 'string') return content === '' ? [] : [{ type: 'text', text: content }]
  const out: Part[] = []
  for (const b of Array.isArray(content) ? content : []) {
    if (isObject(b) && typeof b.text === 'string') out.push({ type: 'text', text: b.text })
    else if (isObject(b)) out.push({ type: 'opaque', kind: str(b.type) ?? 'content', raw: b })
  }
  return out
}

/** Counts of what a conversation's conversion skipped or kept opaque, for its warnings. */
interface Skips {
  unknownBlocks: Map<string, number>
  files: number
  orphans: string[]
  senders: Map<string, number>
}

/**
 * One export message as drafts:
 * - `human` → one user message: its `content` text blocks (else `text`), then each attachment's
 *   `extracted_content` (the file's text was part of the prompt); `files[]` (uploads whose content
 *   the export leaves out) are counted;
 * - `assistant` → the blocks in order: `text` → text, `thinking` → thinking, `tool_use` → a call
 *   (the export has no call ids: `<message uuid>-call<k>`), `tool_result` → the end of the current
 *   assistant message and a tool message answering the nearest earlier unpaired `tool_use` of the
 *   same `name`; blocks after a result start a continuation assistant message
 *   (`<uuid>-cont<k>`), results are `<uuid>-result<k>`; `token_budget` is skipped; other blocks
 *   are opaque parts, counted. A result no call answers stays a tool message with its own id and
 *   a warning.
 * `content` missing or empty falls back to `text` (which replaces non-text blocks by a
 * placeholder, so it is only the fallback).
 */
function convertMessage(
  m: ExportMessage,
  field: string,
  keepRaw: boolean,
  skips: Skips,
): DraftMessage[] {
  const raw = m.raw
  const src = (): SourceRef => (keepRaw ? { format, raw } : { format })
  const sender = str(raw.sender) ?? ''
  const blocks = Array.isArray(raw.content) && raw.content.length > 0 ? raw.content : null
  const fallback = str(raw.text) ?? ''
  if (sender === 'human') {
    const parts: Part[] = []
    if (blocks) {
      for (const b of blocks) {
        if (isObject(b) && b.type === 'text' && typeof b.text === 'string') {
          if (b.text !== '') parts.push({ type: 'text', text: b.text })
        } else if (isObject(b)) {
          const kind = str(b.type) ?? 'block'
          skips.unknownBlocks.set(kind, (skips.unknownBlocks.get(kind) ?? 0) + 1)
          parts.push({ type: 'opaque', kind, raw: b })
        }
      }
    } else if (fallback !== '') parts.push({ type: 'text', text: fallback })
    for (const a of Array.isArray(raw.attachments) ? raw.attachments : []) {
      const text = isObject(a) ? str(a.extracted_content) : undefined
      if (text) parts.push({ type: 'text', text })
    }
    if (Array.isArray(raw.files)) skips.files += raw.files.length
    if (parts.length === 0) return []
    return [{ id: m.id, role: 'user', content: normalizeParts(parts, ''), source: src() }]
  }
  if (sender !== 'assistant') {
    const key = sender || '(none)'
    skips.senders.set(key, (skips.senders.get(key) ?? 0) + 1)
    return []
  }
  const out: DraftMessage[] = []
  let current: DraftMessage | null = null
  let parts: Part[] = []
  let calls = 0
  let results = 0
  let continuations = 0
  const pending: ToolCall[] = []
  const open = (): DraftMessage => {
    if (current) return current
    const id = out.length === 0 ? m.id : `${m.id}-cont${++continuations}`
    current = { id, role: 'assistant', content: null, source: src() }
    parts = []
    out.push(current)
    return current
  }
  const close = () => {
    if (current) current.content = normalizeParts(parts, null)
    current = null
  }
  const list = blocks ?? (fallback === '' ? [] : [{ type: 'text', text: fallback }])
  list.forEach((b, k) => {
    if (!isObject(b)) return
    const type = str(b.type) ?? ''
    if (type === 'text') {
      if (typeof b.text === 'string' && b.text !== '') {
        open()
        parts.push({ type: 'text', text: b.text })
      }
    } else if (type === 'thinking') {
      const text = str(b.thinking) ?? str(b.text) ?? ''
      if (text !== '') {
        open()
        parts.push({ type: 'thinking', variant: 'thinking', text })
      }
    } else if (type === 'tool_use') {
      const d = open()
      const call: ToolCall = {
        id: `${m.id}-call${++calls}`,
        name: str(b.name) ?? '',
        arguments: JSON.stringify(b.input ?? {}),
      }
      d.toolCalls = [...(d.toolCalls ?? []), call]
      pending.push(call)
    } else if (type === 'tool_result') {
      close()
      const name = str(b.name) ?? ''
      let at = -1
      for (let i = pending.length - 1; i >= 0; i--) {
        if (pending[i]?.name === name) {
          at = i
          break
        }
      }
      const id = `${m.id}-result${++results}`
      const d: DraftMessage = {
        id,
        role: 'tool',
        content: normalizeParts(resultParts(b.content), '') ?? '',
        toolName: name,
        source: src(),
      }
      if (at >= 0) d.toolCallId = (pending.splice(at, 1)[0] as ToolCall).id
      else {
        d.toolCallId = id
        skips.orphans.push(`${field}.content[${k}]: tool_result ${quoteForMessage(name)} follows no tool_use of that name`)
      }
      if (b.is_error === true) d.isError = true
      out.push(d)
    } else if (!QUIET_BLOCKS.has(type)) {
      open()
      const kind = type || 'block'
      skips.unknownBlocks.set(kind, (skips.unknownBlocks.get(kind) ?? 0) + 1)
      parts.push({ type: 'opaque', kind, raw: b })
    }
  })
  close()
  return out.filter((d) => d.role !== 'assistant' || d.content !== null || d.toolCalls)
}

/** The newest message at or below `start` among `children` (latest `created_at`, then file order). */
function newestLeaf(
  start: ExportMessage,
  children: ReadonlyMap<string, ExportMessage[]>,
): ExportMessage {
  let best: ExportMessage | undefined
  const stack = [start]
  const seen = new Set<string>()
  while (stack.length > 0) {
    const n = stack.pop() as ExportMessage
    if (seen.has(n.id)) continue
    seen.add(n.id)
    const kids = children.get(n.id) ?? []
    if (
      kids.length === 0 &&
      (!best || n.time > best.time || (n.time === best.time && n.order > best.order))
    )
      best = n
    for (const c of kids) stack.push(c)
  }
  return best ?? start
}

/** Messages from the first one without a known parent down to `leaf` (a loop stops the walk). */
function pathTo(leaf: ExportMessage, byId: ReadonlyMap<string, ExportMessage>): ExportMessage[] {
  const path: ExportMessage[] = []
  const seen = new Set<string>()
  for (
    let n: ExportMessage | undefined = leaf;
    n && !seen.has(n.id);
    n = n.parent === null ? undefined : byId.get(n.parent)
  ) {
    seen.add(n.id)
    path.push(n)
  }
  return path.reverse()
}

/**
 * Imports one conversation. Without `parent_message_uuid` the messages are read in array order.
 * With it, the array holds every edit and retry: the main line is the newest leaf (latest
 * `created_at`, then the later in the array) walked up to the root; every other message starts a
 * branch where its parent is covered (followed to its newest leaf, listed in `branches`).
 * Throws an ImportFailure naming `field` when the conversation has no message.
 */
function importConversation(conv: unknown, field: string, keepRaw: boolean): Transcript {
  if (!isObject(conv)) importFailure(`${field} is not an object`, { field })
  if (!Array.isArray(conv.chat_messages))
    importFailure(`${field}.chat_messages is not an array`, { field: `${field}.chat_messages` })
  const all: ExportMessage[] = []
  const badItems: number[] = []
  conv.chat_messages.forEach((raw, i) => {
    if (!isObject(raw)) {
      badItems.push(i)
      return
    }
    const id = str(raw.uuid) || `${field}-m${i}`
    all.push({ id, raw, parent: str(raw.parent_message_uuid) ?? null, time: timeOf(raw), order: i })
  })
  if (all.length === 0) importFailure(`${field} has no messages`, { field: `${field}.chat_messages` })
  const byId = new Map(all.map((m) => [m.id, m]))
  const children = new Map<string, ExportMessage[]>()
  const rooted = (m: ExportMessage) => m.parent === null || !byId.has(m.parent)
  for (const m of all) {
    if (rooted(m)) continue
    const list = children.get(m.parent as string) ?? []
    list.push(m)
    children.set(m.parent as string, list)
  }
  const tree = all.some((m) => m.parent !== null)
  let line: ExportMessage[]
  if (tree) {
    const leaves = all.filter((m) => (children.get(m.id) ?? []).length === 0)
    const leaf = leaves.reduce((a, b) => (b.time > a.time || (b.time === a.time && b.order > a.order) ? b : a))
    line = pathTo(leaf, byId)
  } else line = all

  const warnings: string[] = []
  const skips: Skips = { unknownBlocks: new Map(), files: 0, orphans: [], senders: new Map() }
  const convert = (path: readonly ExportMessage[], s: Skips) =>
    path.flatMap((m) => convertMessage(m, `${field}.chat_messages[${m.order}]`, keepRaw, s))
  const drafts = convert(line, skips)
  if (drafts.length === 0) importFailure(`${field} has no messages with content`, { field })

  const branches: TranscriptBranch[] = []
  if (tree) {
    const covered = new Set(line.map((m) => m.id))
    const quiet: Skips = { unknownBlocks: new Map(), files: 0, orphans: [], senders: new Map() }
    for (let grew = true; grew; ) {
      grew = false
      for (const m of all) {
        if (covered.has(m.id) || (!rooted(m) && !covered.has(m.parent as string))) continue
        const path = pathTo(newestLeaf(m, children), byId)
        const at = path.indexOf(m)
        const own = at >= 0 ? path.slice(at) : [m]
        for (const n of own) covered.add(n.id)
        grew = true
        const c = convert(own, quiet)
        if (c.length === 0) continue
        const pick = c.find((d) => d.role === 'user') ?? c[0]
        branches.push({
          id: m.id,
          fromMessageId: rooted(m) ? null : m.parent,
          messageCount: c.length,
          firstText: pick ? collapseWhitespace(cutCodePoints(contentText(pick.content), 120)) : '',
        })
      }
    }
    if (branches.length > 0)
      warnings.push(
        `${branches.length} branch(es) (edited messages or retried answers) are not on the newest ` +
          `branch; ${branches.reduce((k, b) => k + b.messageCount, 0)} message(s) there are listed as branches`,
      )
  }
  for (const i of badItems) warnings.push(`${field}.chat_messages[${i}] is not an object, skipped`)
  for (const o of skips.orphans) warnings.push(o)
  for (const [s, n] of skips.senders)
    warnings.push(`${n} message(s) with sender ${quoteForMessage(s)} skipped: not human or assistant`)
  if (skips.unknownBlocks.size > 0)
    warnings.push(`content kept as opaque parts (unknown block type): ${countList(skips.unknownBlocks)}`)
  if (skips.files > 0)
    warnings.push(`${skips.files} uploaded file(s) are named without their content in the export`)
  const title = str(conv.name)
  const t = finalizeTranscript(format, drafts, [], warnings, title ? { title } : {})
  const id = str(conv.uuid)
  if (id) t.conversationId = id
  if (branches.length > 0) t.branches = branches
  return t
}

/** A claude.ai export's conversations: a `chat_messages` array with `uuid` or `name`. */
const SHAPE: DataExportShape = {
  service: 'claude.ai',
  body: 'chat_messages',
  bodyOk: Array.isArray,
  bodyLabel: '"chat_messages" array',
  conversationKeys: ['uuid', 'name'],
}

/**
 * Imports a claude.ai data export: one transcript per conversation (`importConversation`); the
 * first conversation with messages is the transcript, every other one is in `sidechains` (titled
 * by its `name`, else `Untitled conversation <n>`) for the conversation picker. Conversations
 * without messages (claude.ai keeps empty chats) are skipped and counted in one note; a broken one
 * is skipped with a warning. No compaction and no usage are recorded. Never modifies `root`.
 */
function importClaudeAiExport(root: unknown, keepRaw = true): Transcript {
  const isEmpty = (conv: unknown) => isObject(conv) && Array.isArray(conv.chat_messages) && conv.chat_messages.length === 0
  return importDataExport(root, SHAPE, (conv, field) => importConversation(conv, field, keepRaw), isEmpty)
}

/** The claude.ai data-export importer (registry entry). */
export const claudeAiExportImporter: FormatImporter<typeof format> = {
  id: format,
  label: 'claude.ai data export (conversations.json)',
  container: 'json',
  priority: 5.4,
  requestFormat: 'anthropic',
  description: 'claude.ai data export, conversations.json with chat_messages (every conversation; the first opens)',
  extensions: ['.json'],
  detect: (root) => detectDataExport(root, SHAPE),
  closeness: (root) => dataExportCloseness(root, SHAPE),
  importParsed: (root, options) => importClaudeAiExport(root, options.keepRaw),
}
