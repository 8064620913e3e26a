import type { FormatId, MessageFlags, Part, SourceRef } from '../model'
import { splitAssistantContent, splitUserContent, type RootImportOptions } from './anthropic'
import { parseJsonl, type JsonlParse } from './json'
import type { ImportResult } from './types'
import {
  capWarnings,
  finalizeTranscript,
  isObject,
  str,
  type DraftCompaction,
  type DraftMessage,
} from './util'

/** Record types that carry no model context and are skipped silently. Source: formats.md §4.4. */
const METADATA_TYPES = new Set([
  'file-history-snapshot',
  'queue-operation',
  'progress',
  'attachment',
  'custom-title',
  'ai-title',
  'mode',
])

/**
 * Tags Claude Code wraps around slash-command echoes and local command output (formats.md §1 item
 * 9).
 */
const COMMAND_TAGS = [
  '<command-name>',
  '<command-message>',
  '<command-args>',
  '<local-command-stdout>',
  '<local-command-stderr>',
  '<local-command-caveat>',
]

/** Texts Claude Code writes into the user role itself when the human interrupts a turn. */
const INTERRUPT_TEXTS = new Set([
  '[Request interrupted by user]',
  '[Request interrupted by user for tool use]',
])

/**
 * The first 300 code units of the content's first text, trimmed at the start (never the whole MBs).
 */
function headText(content: string | Part[] | null): string {
  if (typeof content === 'string') return content.slice(0, 300).trimStart()
  const first = content?.find((p) => p.type === 'text')
  return first && first.type === 'text' ? first.text.slice(0, 300).trimStart() : ''
}

/** Readable text of a compact summary record's content. */
function summaryTextOf(content: string | Part[] | null): string {
  if (typeof content === 'string') return content
  if (!content) return ''
  return content
    .map((p) => (p.type === 'text' ? p.text : ''))
    .filter((t) => t !== '')
    .join('\n')
}

/**
 * Flags of a user-role record: `isMeta`, a leading `<system-reminder>` and the interrupt notice →
 * injected; slash-command echoes and `<local-command-…>` output → command; `isCompactSummary` →
 * compactSummary. Source: formats.md §1 item 9, §4.4.
 */
function userFlags(record: Record<string, unknown>, content: string | Part[] | null): MessageFlags {
  const flags: MessageFlags = {}
  const head = headText(content)
  if (
    record.isMeta === true ||
    head.startsWith('<system-reminder>') ||
    INTERRUPT_TEXTS.has(head.trimEnd())
  ) {
    flags.injected = true
  }
  if (COMMAND_TAGS.some((tag) => head.startsWith(tag)) || head.includes('<command-name>'))
    flags.command = true
  if (record.isCompactSummary === true) flags.compactSummary = true
  return flags
}

/** An assistant message being assembled from the one-block-per-line records of one response. */
interface AssistantAcc {
  draft: DraftMessage
  blocks: unknown[]
  records: unknown[]
}

/**
 * Imports Claude Code session records (already split into lines by `parseJsonl`). In file order:
 * `user` records → tool messages (one per `tool_result`, name from the matching `tool_use`,
 * `is_error` → isError) then a user message with flags; `assistant` records are merged by
 * `message.id` into one assistant message (the first record's uuid is its id; a later record with
 * the same `message.id` appends its block even after interleaved tool results); `system`
 * `compact_boundary` + the following `isCompactSummary` record → `RecordedCompaction` (trigger,
 * `compactMetadata.preTokens` / `postTokens`), the summary kept as a user message with
 * `flags.compactSummary`; records before a boundary are kept. `summary` records give the title;
 * sidechains (`isSidechain:true`) and repeated uuids are skipped and counted in warnings; metadata
 * records are ignored. Message ids are record uuids; `source.line` is the 1-based line. Never
 * throws. Source: formats.md §4.4, §1 items 1, 2, 9, 10, 13, 15. Graph/fork resolution
 * (`parentUuid`) is not done here: the file order is kept.
 */
export function importClaudeCodeRecords(
  parsed: JsonlParse,
  options: RootImportOptions = {},
): ImportResult {
  const format: FormatId = 'claude-code'
  const keepRaw = options.keepRaw ?? true
  const drafts: DraftMessage[] = []
  const compactions: DraftCompaction[] = []
  const warnings: string[] = capWarnings(parsed.bad)
  const accs: AssistantAcc[] = []
  const byMessageId = new Map<string, AssistantAcc>()
  const toolNames = new Map<string, string>()
  const seenUuids = new Set<string>()
  const titles: { summary: string; leafUuid?: string }[] = []
  const unknownTypes = new Map<string, number>()
  let sidechains = 0
  let duplicates = 0
  let pendingBoundary: { record: Record<string, unknown>; line: number } | null = null

  const src = (line: number, raw: unknown): SourceRef => {
    const s: SourceRef = { format, line }
    if (keepRaw) s.raw = raw
    return s
  }
  const boundaryCompaction = (atIndex: number, summaryText: string | null): DraftCompaction => {
    const c: DraftCompaction = { atIndex, summaryText, source: format }
    const meta =
      pendingBoundary && isObject(pendingBoundary.record.compactMetadata)
        ? pendingBoundary.record.compactMetadata
        : {}
    if (typeof meta.trigger === 'string') c.trigger = meta.trigger
    if (typeof meta.preTokens === 'number') c.tokensBefore = meta.preTokens
    if (typeof meta.postTokens === 'number') c.tokensAfter = meta.postTokens
    return c
  }
  // A boundary not followed by a summary record still marks where the context was cut.
  const closeBoundaryWithoutSummary = () => {
    if (!pendingBoundary) return
    compactions.push(boundaryCompaction(drafts.length, null))
    warnings.push(
      `line ${pendingBoundary.line}: compact_boundary not followed by a compact summary record`,
    )
    pendingBoundary = null
  }

  for (const { line, value: record } of parsed.records) {
    const type = str(record.type) ?? ''
    if (type === 'summary') {
      if (typeof record.summary === 'string') {
        const t: { summary: string; leafUuid?: string } = { summary: record.summary }
        if (typeof record.leafUuid === 'string') t.leafUuid = record.leafUuid
        titles.push(t)
      }
      continue
    }
    if (type !== 'user' && type !== 'assistant' && type !== 'system') {
      if (!METADATA_TYPES.has(type))
        unknownTypes.set(type || '(none)', (unknownTypes.get(type || '(none)') ?? 0) + 1)
      continue
    }
    const uuid = str(record.uuid) ?? ''
    if (uuid !== '') {
      // Duplicate writes (stream-json input, resumed sessions) repeat whole records: keep the
      // first.
      if (seenUuids.has(uuid)) {
        duplicates++
        continue
      }
      seenUuids.add(uuid)
    }
    if (record.isSidechain === true) {
      sidechains++
      continue
    }
    if (type === 'system') {
      if (record.subtype === 'compact_boundary') {
        closeBoundaryWithoutSummary()
        pendingBoundary = { record, line }
      }
      // Other system records (turn_duration, api_error, local_command, …) are telemetry, not
      // context.
      continue
    }
    const message = record.message
    if (!isObject(message)) {
      warnings.push(`line ${line}: ${type} record without a message object, skipped`)
      continue
    }

    if (type === 'assistant') {
      const blocks = Array.isArray(message.content) ? message.content : [message.content]
      for (const b of blocks) {
        if (isObject(b) && b.type === 'tool_use' && typeof b.id === 'string')
          toolNames.set(b.id, str(b.name) ?? '')
      }
      const messageId = str(message.id)
      const existing = messageId !== undefined ? byMessageId.get(messageId) : undefined
      if (existing) {
        existing.blocks.push(...blocks)
        existing.records.push(record)
        continue
      }
      closeBoundaryWithoutSummary()
      const draft: DraftMessage = {
        id: uuid,
        role: 'assistant',
        content: null,
        source: { format, line },
      }
      if (record.isApiErrorMessage === true) draft.flags = { apiError: true }
      const acc: AssistantAcc = { draft, blocks: [...blocks], records: [record] }
      accs.push(acc)
      if (messageId !== undefined) byMessageId.set(messageId, acc)
      drafts.push(draft)
      continue
    }

    // type === 'user'
    const { results, user } = splitUserContent(message.content)
    const isSummary = record.isCompactSummary === true && user !== null
    if (!isSummary && (results.length > 0 || user !== null)) closeBoundaryWithoutSummary()
    for (const r of results) {
      const d: DraftMessage = {
        id: uuid,
        role: 'tool',
        content: r.content,
        toolCallId: r.toolCallId,
        source: src(line, record),
      }
      const name = toolNames.get(r.toolCallId)
      if (name !== undefined) d.toolName = name
      if (r.isError) d.isError = true
      drafts.push(d)
    }
    if (user !== null) {
      const d: DraftMessage = { id: uuid, role: 'user', content: user, source: src(line, record) }
      const flags = userFlags(record, user)
      if (Object.keys(flags).length > 0) d.flags = flags
      drafts.push(d)
      if (isSummary) {
        const c = boundaryCompaction(drafts.length - 1, summaryTextOf(user))
        c.summaryIndex = drafts.length - 1
        compactions.push(c)
        pendingBoundary = null
      }
    }
  }
  closeBoundaryWithoutSummary()

  for (const acc of accs) {
    const split = splitAssistantContent(acc.blocks)
    acc.draft.content = split.content
    if (split.toolCalls.length > 0) acc.draft.toolCalls = split.toolCalls
    if (keepRaw) acc.draft.source.raw = acc.records.length === 1 ? acc.records[0] : acc.records
  }
  if (sidechains > 0)
    warnings.push(
      `${sidechains} sidechain record(s) (isSidechain: true, subagent work) not imported`,
    )
  if (duplicates > 0)
    warnings.push(`${duplicates} duplicate record(s) (same uuid as an earlier line) skipped`)
  if (unknownTypes.size > 0) {
    const list = [...unknownTypes].map(([t, n]) => `${t} ×${n}`).join(', ')
    warnings.push(`records of unknown type ignored: ${list}`)
  }
  if (drafts.length === 0) {
    return {
      ok: false,
      error: {
        message:
          "no messages found in the file's user/assistant records " +
          `(${parsed.records.length} records read)`,
      },
    }
  }
  // The title of the conversation leaf that is in this file; any title otherwise.
  const title =
    titles.find((t) => t.leafUuid !== undefined && seenUuids.has(t.leafUuid)) ?? titles[0]
  return {
    ok: true,
    transcript: finalizeTranscript(
      format,
      drafts,
      compactions,
      warnings,
      title ? { title: title.summary } : {},
    ),
  }
}

/**
 * Imports a Claude Code session JSONL text (`~/.claude/projects/…/<sessionId>.jsonl`). Bad lines
 * (invalid JSON, half-written last line, non-objects) are skipped with a warning naming the 1-based
 * line and the reason. The caller strips a BOM; CRLF is accepted. Never throws. See
 * `importClaudeCodeRecords` for the mapping.
 */
export function importClaudeCode(text: string, options: RootImportOptions = {}): ImportResult {
  const parsed = parseJsonl(text)
  if (parsed.records.length === 0) {
    const first = parsed.bad[0]
    return {
      ok: false,
      error: {
        message:
          parsed.lines === 0
            ? 'the file is empty'
            : `none of the ${parsed.lines} lines could be read (${first ?? ''})`,
        line: 1,
      },
    }
  }
  return importClaudeCodeRecords(parsed, options)
}
