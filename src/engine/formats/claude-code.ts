import type {
  ClearedToolResults,
  FormatId,
  MessageFlags,
  Part,
  SourceRef,
  ToolCall,
  Transcript,
  TranscriptBranch,
} from '../model'
import { quoteForMessage, collapseWhitespace, cutCodePoints } from '../util/text'
import {
  splitAssistantTurns,
  splitUserContent,
  type AnthropicToolResult,
  type AssistantTurn,
  type RootImportOptions,
} from './anthropic'
import { importFailure, importResult } from './failure'
import { parseJsonl, type JsonlParse, type JsonlRecord } from './json'
import { toJsonlParse, type JsonlStreamResult } from './jsonl-stream'
import type { FormatImporter, ImportOptions, ImportResult } from './types'
import {
  countList,
  capWarnings,
  finalizeTranscript,
  isObject,
  missingFields,
  andList,
  resolveUsage,
  str,
  type DraftCompaction,
  type DraftMessage,
  type DraftUsage,
  notAnArray,
} from './util'

/** The label of both Claude Code importers (session JSONL, web export JSON). */
const LABEL = 'Claude Code session (JSONL)'

/**
 * Record types known to carry no model context, skipped silently. Claude Code keeps adding such
 * types; any record without a `message` is treated the same way (`carriesMessage`). Source:
 * formats.md §4.4.
 */
const METADATA_TYPES = new Set([
  'file-history-snapshot',
  'queue-operation',
  'progress',
  'attachment',
  'custom-title',
  'ai-title',
  'mode',
  'permission-mode',
  'last-prompt',
])

/**
 * Whether a record carries conversation content: a `message` field that is not null. Records of
 * an unknown type are only worth a warning when they do; the others are metadata (titles, modes,
 * the last prompt, snapshots). Source: formats.md §4.4 (every message record holds `message`).
 */
function carriesMessage(record: Record<string, unknown>): boolean {
  return record.message !== undefined && record.message !== null
}

/**
 * Tags Claude Code wraps around slash-command echoes, local command output and `!` shell input
 * and output (formats.md §1 item 9, formats-more.md §10 item 2).
 */
const COMMAND_TAGS = [
  '<command-name>',
  '<command-message>',
  '<command-args>',
  '<local-command-stdout>',
  '<local-command-stderr>',
  '<local-command-caveat>',
  '<bash-input>',
  '<bash-stdout>',
  '<bash-stderr>',
]

/**
 * A user record Claude Code wrote itself, not the human: a background-task notice
 * (`origin.kind: "task-notification"`, its text a `<task-notification>`, from 2.1.234 inside a
 * `<system-reminder>`) or any prompt with `promptSource: "system"` (the human's are `"typed"` or
 * `"queued"`). Source: formats-more.md §10 items 2–3.
 */
function isTaskNotification(record: Record<string, unknown>, head: string): boolean {
  return (
    (isObject(record.origin) && record.origin.kind === 'task-notification') ||
    record.promptSource === 'system' ||
    head.startsWith('<task-notification>')
  )
}

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
 * Flags of a user-role record: `isMeta`, a leading `<system-reminder>`, the interrupt notice and
 * background-task notices (`isTaskNotification`) → injected; slash-command echoes,
 * `<local-command-…>` output and `<bash-…>` shell input/output → command; `isCompactSummary` →
 * compactSummary. Source: formats.md §1 item 9, §4.4; formats-more.md §10 items 2–3.
 */
function userFlags(record: Record<string, unknown>, content: string | Part[] | null): MessageFlags {
  const flags: MessageFlags = {}
  const head = headText(content)
  if (
    record.isMeta === true ||
    head.startsWith('<system-reminder>') ||
    INTERRUPT_TEXTS.has(head.trimEnd()) ||
    isTaskNotification(record, head)
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
  /** Position of `draft` among the line's drafts. */
  at: number
  blocks: unknown[]
  /** The record each of `blocks` came from (same positions). */
  blockRecords: GraphNode[]
  records: unknown[]
}

/** A non-negative token count field, 0 when absent or not a number. */
const tokens = (value: unknown): number =>
  typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : 0

/**
 * The usage one response's records recorded (`message.usage`, the same object repeated on each
 * record, never summed): `context` = `input_tokens + cache_creation_input_tokens +
 * cache_read_input_tokens` of the record with the most `output_tokens` (the last of equals),
 * `output` = that maximum (some builds grow it along the response). Records Claude Code wrote
 * itself (`model: "<synthetic>"`) and all-zero usage are skipped; undefined when none is left.
 * Source: formats-more.md §10 item 6, formats.md §1 item 1.
 */
function responseUsage(records: readonly unknown[]): { context: number; output: number } | undefined {
  let best: { context: number; output: number } | undefined
  for (const r of records) {
    if (!isObject(r) || !isObject(r.message) || r.message.model === '<synthetic>') continue
    const u = r.message.usage
    if (!isObject(u)) continue
    const context =
      tokens(u.input_tokens) +
      tokens(u.cache_creation_input_tokens) +
      tokens(u.cache_read_input_tokens)
    const output = tokens(u.output_tokens)
    if (context === 0 && output === 0) continue
    if (!best || output >= best.output) best = { context, output }
  }
  return best
}

/** Record types that are conversation records (the main line ends at the last of them). */
const CONVERSATION_TYPES = new Set(['user', 'assistant', 'system'])

/** One record of the `parentUuid` graph (every record with a uuid, messages or not). */
interface GraphNode {
  uuid: string
  /** 1-based JSONL line. */
  line: number
  /** Position in file order among graph nodes. */
  order: number
  type: string
  record: Record<string, unknown>
  /** `main`, or the sidechain group key (`agent:<agentId>`, else `sidechain`). */
  scope: string
  /** Effective parent after splicing (compaction roots, missing parents); null for a root. */
  parent: GraphNode | null
}

/** What converting one line of records into messages gives. */
interface LineConversion {
  drafts: DraftMessage[]
  compactions: DraftCompaction[]
  warnings: string[]
  /** Record uuid → id of the message it contributed to (merged assistant records share one). */
  messageIdOf: Map<string, string>
  /** `isApiErrorMessage` assistant records left out (Claude Code's own notices, not model output). */
  apiErrors: number
  /** One entry per response that recorded usage (`responseUsage`), at its message, in line order. */
  usage: DraftUsage[]
  /** `microcompact_boundary` records, at the draft position after them (`atIndex`), in line order. */
  cleared: ClearedToolResults[]
}

/** What Claude Code's microcompact puts in place of a cleared tool result. Source: agent-presets.md. */
const MICROCOMPACT_PLACEHOLDER = '[Old tool result content cleared]'

/**
 * Puts on `t` what one line of records recorded besides its messages: the usage of its responses
 * (`resolveUsage`), the tool results cleared in place (positions shared with the messages) and
 * the agent's version.
 */
function attachRecorded(t: Transcript, c: Pick<LineConversion, 'usage' | 'cleared'>, version: string | undefined): void {
  const usage = resolveUsage(t.messages, c.usage)
  if (usage) t.usage = usage
  const cleared = c.cleared.filter((x) => x.atIndex <= t.messages.length)
  if (cleared.length > 0) t.clearedToolResults = cleared
  if (version !== undefined) t.agentVersion = version
}

/**
 * Converts an ordered line of records into message drafts: `user` records → tool messages (one
 * per `tool_result`, name from the matching `tool_use`, `is_error` → isError) then a user message
 * with flags; `assistant` records merged by `message.id` into one assistant message (the first
 * record's uuid is its id; a later record with the same `message.id` appends its block even after
 * interleaved tool results — formats.md §1 item 1), cut into several when it holds server-tool
 * blocks (`responseDrafts`: each `server_tool_use` a call, each `*_tool_result` a tool message
 * after it, positions of compactions, usage and cleared results moved along); a compact summary
 * without a boundary (Claude Code ≤1.0.8x) is a compaction of its own; `system`
 * `compact_boundary` + the following
 * `isCompactSummary` record → a compaction (trigger, `compactMetadata.preTokens` / `postTokens`),
 * the summary kept as a user message with `flags.compactSummary`. An `isApiErrorMessage`
 * assistant record ("API Error: 529 …", model `<synthetic>`) is written by Claude Code in place of
 * a response, never sent by the model nor to it: left out and counted (`apiErrors`). Other records
 * are skipped. Source: formats.md §4.4 (pitfalls: `isApiErrorMessage` records are synthetic).
 */
function convertLine(
  nodes: readonly GraphNode[],
  keepRaw: boolean,
  toolNames: ToolNames,
  where: Where,
): LineConversion {
  const format: FormatId = 'claude-code'
  const drafts: DraftMessage[] = []
  const compactions: DraftCompaction[] = []
  const warnings: string[] = []
  const messageIdOf = new Map<string, string>()
  const accs: AssistantAcc[] = []
  const byMessageId = new Map<string, AssistantAcc>()
  let pendingBoundary: { record: Record<string, unknown>; line: number } | null = null
  let apiErrors = 0
  const cleared: ClearedToolResults[] = []

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
      `${where(pendingBoundary.line)}: compact_boundary not followed by a compact summary record`,
    )
    pendingBoundary = null
  }

  for (const node of nodes) {
    const { record, line, type, uuid } = node
    if (type === 'system') {
      if (record.subtype === 'compact_boundary') {
        closeBoundaryWithoutSummary()
        pendingBoundary = { record, line }
      } else if (record.subtype === 'microcompact_boundary' && isObject(record.microcompactMetadata)) {
        const meta = record.microcompactMetadata
        const ids = Array.isArray(meta.compactedToolIds) ? meta.compactedToolIds.filter((x): x is string => typeof x === 'string') : []
        if (ids.length > 0) {
          const c: ClearedToolResults = { atIndex: drafts.length, toolCallIds: ids, placeholder: MICROCOMPACT_PLACEHOLDER }
          if (typeof meta.trigger === 'string') c.trigger = meta.trigger
          if (typeof meta.preTokens === 'number') c.tokensBefore = meta.preTokens
          if (typeof meta.tokensSaved === 'number') c.tokensSaved = meta.tokensSaved
          cleared.push(c)
        }
      }
      // Other system records (turn_duration, api_error, local_command, …) are telemetry.
      continue
    }
    if (type !== 'user' && type !== 'assistant') continue
    const message = record.message
    if (!isObject(message)) {
      warnings.push(`${where(line)}: ${type} record without a message object, skipped`)
      continue
    }

    if (type === 'assistant' && record.isApiErrorMessage === true) {
      apiErrors++
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
        for (const item of blocks) {
          existing.blocks.push(item)
          existing.blockRecords.push(node)
        }
        existing.records.push(record)
        messageIdOf.set(uuid, existing.draft.id)
        continue
      }
      closeBoundaryWithoutSummary()
      const draft: DraftMessage = {
        id: uuid,
        role: 'assistant',
        content: null,
        source: { format, line },
      }
      const acc: AssistantAcc = {
        draft,
        at: drafts.length,
        blocks: [...blocks],
        blockRecords: blocks.map(() => node),
        records: [record],
      }
      accs.push(acc)
      if (messageId !== undefined) byMessageId.set(messageId, acc)
      drafts.push(draft)
      messageIdOf.set(uuid, uuid)
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
    if (results.length > 0 || user !== null) messageIdOf.set(uuid, uuid)
  }
  closeBoundaryWithoutSummary()

  const usage: DraftUsage[] = []
  // A response using server tools becomes several messages: drafts to put in place of its one.
  const expanded = new Map<number, DraftMessage[]>()
  const hosted = new Map<string, ToolCall>()
  for (const acc of accs) {
    const turns = splitAssistantTurns(acc.blocks, hosted)
    const u = responseUsage(acc.records)
    if (u) usage.push({ atIndex: acc.at, context: u.context, output: u.output })
    const only = turns.length === 1 ? turns[0] : undefined
    if (only && only.results.length === 0) {
      acc.draft.content = only.content
      if (only.toolCalls.length > 0) acc.draft.toolCalls = only.toolCalls
      if (keepRaw) acc.draft.source.raw = acc.records.length === 1 ? acc.records[0] : acc.records
      continue
    }
    expanded.set(acc.at, responseDrafts(acc, turns, hosted, keepRaw, messageIdOf))
  }
  if (expanded.size === 0)
    return { drafts, compactions, warnings, messageIdOf, apiErrors, usage, cleared }
  // Positions move by the messages put in before them; an index may be drafts.length (the end).
  const newIndex: number[] = []
  const out: DraftMessage[] = []
  drafts.forEach((d, i) => {
    newIndex[i] = out.length
    for (const item of expanded.get(i) ?? [d]) out.push(item)
  })
  newIndex[drafts.length] = out.length
  const at = (i: number) => newIndex[i] ?? out.length
  for (const c of compactions) {
    c.atIndex = at(c.atIndex)
    if (c.summaryIndex !== undefined) c.summaryIndex = at(c.summaryIndex)
  }
  for (const c of cleared) c.atIndex = at(c.atIndex)
  for (const item of usage) item.atIndex = at(item.atIndex)
  return { drafts: out, compactions, warnings, messageIdOf, apiErrors, usage, cleared }
}

/**
 * The messages of one response whose content holds server-tool blocks (`server_tool_use` and
 * any `*_tool_result`, e.g. the advisor's `advisor_tool_result`), as `splitAssistantTurns` cuts
 * it: an assistant message per turn (the first keeps the response's id, a later one the uuid of
 * the record holding its first block), each followed by a `tool` message per server result (the
 * result record's uuid, the call's name). `messageIdOf` then maps each record to the message its
 * first block went to. Source: formats-more.md §10 item 4, formats.md §4.3 "Blocks".
 */
function responseDrafts(
  acc: AssistantAcc,
  turns: readonly AssistantTurn[],
  hosted: ReadonlyMap<string, ToolCall>,
  keepRaw: boolean,
  messageIdOf: Map<string, string>,
): DraftMessage[] {
  const out: DraftMessage[] = []
  const recordOf = (i: number): GraphNode => (acc.blockRecords[i] ?? acc.blockRecords[0]) as GraphNode
  // Message id per block position, for the records' mapping.
  const idAt: string[] = []
  turns.forEach((turn, k) => {
    const end = turns[k + 1]?.start ?? acc.blocks.length
    const first = recordOf(turn.start)
    const keep = turn.content !== null || turn.toolCalls.length > 0 || turn.results.length === 0
    let turnId = first.uuid
    if (keep) {
      const d: DraftMessage =
        k === 0
          ? acc.draft
          : {
              id: first.uuid,
              role: 'assistant',
              content: null,
              source: { format: 'claude-code', line: first.line },
            }
      d.content = turn.content
      if (turn.toolCalls.length > 0) d.toolCalls = turn.toolCalls
      if (keepRaw) {
        const held = [...new Set(acc.blockRecords.slice(turn.start, end).map((n) => n.record))]
        d.source.raw = held.length === 1 ? held[0] : held
      }
      turnId = d.id
      out.push(d)
    }
    for (let i = turn.start; i < end; i++) idAt[i] = turnId
    for (const r of turn.results) out.push(serverResultDraft(r, acc, hosted, keepRaw, idAt))
  })
  const mapped = new Set<string>()
  for (const [i, n] of acc.blockRecords.entries()) {
    const id = idAt[i]
    if (id === undefined || mapped.has(n.uuid)) continue
    mapped.add(n.uuid)
    messageIdOf.set(n.uuid, id)
  }
  return out
}

/** The `tool` message of a server-tool result block of a response; marks its block's message id. */
function serverResultDraft(
  r: AnthropicToolResult,
  acc: AssistantAcc,
  hosted: ReadonlyMap<string, ToolCall>,
  keepRaw: boolean,
  idAt: string[],
): DraftMessage {
  const at = acc.blocks.indexOf(r.block)
  const holder = (acc.blockRecords[at] ?? acc.blockRecords[0]) as GraphNode
  const d: DraftMessage = {
    id: holder.uuid,
    role: 'tool',
    content: r.content,
    toolCallId: r.toolCallId,
    source: { format: 'claude-code', line: holder.line },
  }
  if (keepRaw) d.source.raw = holder.record
  const name = hosted.get(r.toolCallId)?.name
  if (name !== undefined) d.toolName = name
  if (r.isError) d.isError = true
  if (at >= 0) idAt[at] = holder.uuid
  return d
}

/** The first text of a line's drafts (a user message's first), cut to 120 code points. */
function firstTextOf(drafts: readonly DraftMessage[]): string {
  const pick = drafts.find((d) => d.role === 'user') ?? drafts[0]
  if (!pick) return ''
  const text = headText(pick.content)
  return collapseWhitespace(cutCodePoints(text, 120))
}

/**
 * One step of a scope's conversation: the records of one API response, or one other record. A
 * response is every `assistant` record with its `message.id` (Claude Code writes each content
 * block as its own record, and since 2.1 each parallel `tool_use` record hangs off the one
 * before it, not off a common parent) plus every `user` record made only of `tool_result`
 * blocks answering its calls (each hangs off its own call's record, in any order). Whatever
 * hangs off any record of a response hangs off the response. Source: formats.md §1 items 1, 2, 10.
 */
interface Unit {
  /** Records in file order; `nodes[0]` (the head) is the earliest, its parent is the unit's. */
  nodes: GraphNode[]
  /** The head's position in file order: a unit's parent always has a smaller one. */
  order: number
  parent: Unit | null
  /** Whether a `user` or `assistant` record with a message object is in it. */
  speaks: boolean
  /** Whether a conversation record (`user`, `assistant`, `system`) is in it. */
  conversation: boolean
  /** Messages it gives: one per response or user record, plus one per attached result record. */
  messages: number
}

/**
 * The `tool_use_id`s of a `user` record whose content is only `tool_result` blocks (at least
 * one); undefined for any other record.
 */
function resultOnlyIds(record: Record<string, unknown>): string[] | undefined {
  const content = isObject(record.message) ? record.message.content : undefined
  if (!Array.isArray(content) || content.length === 0) return undefined
  const ids: string[] = []
  for (const b of content) {
    if (!isObject(b) || b.type !== 'tool_result' || typeof b.tool_use_id !== 'string')
      return undefined
    ids.push(b.tool_use_id)
  }
  return ids
}

/** Ancestor steps looked through to find the response a record belongs to. */
const ANCESTOR_STEPS = 64

/**
 * Groups a scope's nodes (in file order, parents linked) into units: the records of each
 * response with the result records answering its calls, every other record on its own. An
 * `assistant` record joins the response of its `message.id` that it hangs off — its parent (or
 * the nearest conversation record above metadata such as `progress`) is in that response, or it
 * shares the response's first record's parent; the same `message.id` elsewhere (a resumed
 * session's copy of its history) is another unit. A result-only `user` record joins the response
 * holding its calls: the one found above it (within `ANCESTOR_STEPS` records), else the latest
 * earlier one with those calls unanswered; all its `tool_use_id`s must be calls of that response
 * not answered yet, otherwise (a second answer, calls of two responses, no call) it stays a unit
 * of its own. Units come in file order of their heads, so a unit's parent always comes before
 * it. Source: formats.md §1 items 1, 2, 10, 15.
 */
function buildUnits(nodes: readonly GraphNode[]): Unit[] {
  const units: Unit[] = []
  const unitOf = new Map<GraphNode, Unit>()
  const responses = new Map<string, Unit[]>()
  const owners = new Map<string, Unit[]>()
  const answered = new Map<Unit, Set<string>>()
  const add = (n: GraphNode, into: Unit | undefined): Unit => {
    const speaks = (n.type === 'user' || n.type === 'assistant') && isObject(n.record.message)
    const u: Unit = into ?? {
      nodes: [],
      order: n.order,
      parent: null,
      speaks: false,
      conversation: false,
      messages: 0,
    }
    if (!into) units.push(u)
    u.nodes.push(n)
    if (speaks && (!into || n.type === 'user')) u.messages++
    u.speaks ||= speaks
    u.conversation ||= CONVERSATION_TYPES.has(n.type)
    unitOf.set(n, u)
    return u
  }
  /** The nearest conversation record above `n` (metadata records looked through). */
  const anchorOf = (n: GraphNode): GraphNode | null => {
    let p = n.parent
    for (let i = 0; p && i < ANCESTOR_STEPS && !CONVERSATION_TYPES.has(p.type); i++) p = p.parent
    return p
  }
  /** The unit of `candidates` that `n` hangs off (parent, anchor, or the head's sibling). */
  const hungOff = (n: GraphNode, candidates: readonly Unit[]): Unit | undefined => {
    const parentUnit = n.parent ? unitOf.get(n.parent) : undefined
    const anchor = anchorOf(n)
    const anchorUnit = anchor ? unitOf.get(anchor) : undefined
    for (let i = candidates.length - 1; i >= 0; i--) {
      const u = candidates[i] as Unit
      if (u === parentUnit || u === anchorUnit) return u
      if (n.parent !== null && u.nodes[0]?.parent === n.parent) return u
    }
    return undefined
  }
  /** The response holding call `id` that a result record `n` answers, if any. */
  const ownerFor = (n: GraphNode, id: string): Unit | undefined => {
    const list = owners.get(id)
    if (!list) return undefined
    let p = n.parent
    for (let i = 0; p && i < ANCESTOR_STEPS; i++, p = p.parent) {
      const u = unitOf.get(p)
      if (u && list.includes(u)) return u
    }
    for (let i = list.length - 1; i >= 0; i--) {
      const u = list[i] as Unit
      if (!answered.get(u)?.has(id)) return u
    }
    return undefined
  }
  for (const n of nodes) {
    const message = n.record.message
    if (n.type === 'assistant' && isObject(message) && typeof message.id === 'string') {
      const same = responses.get(message.id)
      const joined = same ? hungOff(n, same) : undefined
      const u = add(n, joined)
      if (!joined) {
        if (same) same.push(u)
        else responses.set(message.id, [u])
      }
      if (Array.isArray(message.content)) {
        for (const b of message.content) {
          if (!isObject(b) || b.type !== 'tool_use' || typeof b.id !== 'string') continue
          const list = owners.get(b.id)
          if (!list) owners.set(b.id, [u])
          else if (!list.includes(u)) list.push(u)
        }
      }
      continue
    }
    const ids = n.type === 'user' ? resultOnlyIds(n.record) : undefined
    const owner = ids ? ownerFor(n, ids[0] as string) : undefined
    const done = owner ? (answered.get(owner) ?? new Set<string>()) : undefined
    if (
      ids &&
      owner &&
      done &&
      ids.every((id) => owners.get(id)?.includes(owner) === true && !done.has(id))
    ) {
      for (const id of ids) done.add(id)
      answered.set(owner, done)
      add(n, owner)
      continue
    }
    add(n, undefined)
  }
  for (const u of units) {
    const p = u.nodes[0]?.parent
    u.parent = p ? (unitOf.get(p) ?? null) : null
  }
  return units
}

/**
 * Units from the root (or from `top`, an ancestor of `leaf`) down to `leaf`, following parents:
 * a fork's path costs its own length, not its depth in the graph.
 */
function pathTo(leaf: Unit, top?: Unit): Unit[] {
  const path: Unit[] = []
  for (let u: Unit | null = leaf; u; u = u.parent) {
    path.push(u)
    if (u === top) break
  }
  return path.reverse()
}

/** Tool names by call id, as `convertLine` reads and records them. */
interface ToolNames {
  get(id: string): string | undefined
  set(id: string, name: string): void
}

/**
 * A view of `base` whose `set`s stay its own: a fork's calls never leak into the line it hangs
 * off, and no copy of `base` is made per fork (that was forks × tools).
 */
function overlay(base: ReadonlyMap<string, string>): ToolNames {
  const local = new Map<string, string>()
  return {
    get: (id) => local.get(id) ?? base.get(id),
    set: (id, name) => {
      local.set(id, name)
    },
  }
}

/** The records of a path of units, unit by unit (each unit's records in file order). */
const recordsOf = (path: readonly Unit[]): GraphNode[] => path.flatMap((u) => u.nodes)

/** A fork off a resolved line: its first record, the record it hangs off, and its records. */
interface Fork {
  start: GraphNode
  /** The record the fork hangs off; null for a second root. */
  from: GraphNode | null
  path: GraphNode[]
}

/** A resolved line of a graph scope: its records in order plus the forks off it. */
interface ResolvedScope {
  line: GraphNode[]
  forks: Fork[]
}

/**
 * The unit the main line ends at. The last unit in file order that gives messages, so a system
 * or metadata record hanging off an earlier point never cuts the conversation short; when the
 * records name several `sessionId`s (a file holding more than one session), the last such unit of
 * the session whose line from the root has the most messages (ties: the later one). Then down to
 * the newest conversation record below it (a trailing `compact_boundary`, `turn_duration`).
 * Without any message, the last conversation record, else the last record.
 */
function mainLeaf(units: readonly Unit[], children: ReadonlyMap<Unit, Unit[]>): Unit | undefined {
  const onPath = new Map<Unit, number>()
  const lastOfSession = new Map<string, Unit>()
  let lastConversation: Unit | undefined
  for (const u of units) {
    onPath.set(u, u.messages + (u.parent ? (onPath.get(u.parent) ?? 0) : 0))
    if (u.conversation) lastConversation = u
    if (u.speaks) lastOfSession.set(str(u.nodes[0]?.record.sessionId) ?? '', u)
  }
  let pick: Unit | undefined
  for (const u of lastOfSession.values()) {
    const score = onPath.get(u) ?? 0
    const best = pick ? (onPath.get(pick) ?? 0) : -1
    if (!pick || score > best || (score === best && u.order > pick.order)) pick = u
  }
  if (!pick) return lastConversation ?? units[units.length - 1]
  return newestBelow(pick, children)
}

/** The newest conversation unit in the subtree of `start` (file order), else `start`. */
function newestBelow(start: Unit, children: ReadonlyMap<Unit, Unit[]>): Unit {
  let best = start
  let bestConversation = start.conversation ? start : undefined
  const stack = [start]
  while (stack.length > 0) {
    const u = stack.pop() as Unit
    if (u.order > best.order) best = u
    if (u.conversation && u.order > (bestConversation?.order ?? -1)) bestConversation = u
    for (const c of children.get(u) ?? []) stack.push(c)
  }
  return bestConversation ?? best
}

/**
 * `newestBelow` of every unit at once, in one pass from the last unit to the first (a unit's
 * parent always comes earlier), so resolving many forks costs the graph's size once, not once
 * per fork.
 */
function newestBelowAll(units: readonly Unit[]): Map<Unit, Unit> {
  const newest = new Map<Unit, Unit>()
  const conversation = new Map<Unit, Unit>()
  for (let i = units.length - 1; i >= 0; i--) {
    const u = units[i] as Unit
    const best = newest.get(u) ?? u
    const bestConversation = conversation.get(u) ?? (u.conversation ? u : undefined)
    newest.set(u, best)
    if (bestConversation) conversation.set(u, bestConversation)
    const p = u.parent
    if (!p) continue
    if (best.order > (newest.get(p) ?? p).order) newest.set(p, best)
    const pc = conversation.get(p) ?? (p.conversation ? p : undefined)
    if (bestConversation && bestConversation.order > (pc?.order ?? -1)) conversation.set(p, bestConversation)
  }
  const out = new Map<Unit, Unit>()
  for (const u of units) out.set(u, conversation.get(u) ?? (newest.get(u) as Unit))
  return out
}

/**
 * Resolves one scope: groups its records into units (`buildUnits`), so the parts of a response
 * and the results of its parallel calls stay together wherever their records hang; the main
 * line is the chain of units from the root to `mainLeaf`; every other child of a unit on it is a
 * fork, walked from that child to the newest record below it, recursively; other roots start
 * forks hanging off nothing. Every record is reached, and no record is on two paths: unit parents
 * always come earlier in file order, so there are no cycles. Source: formats.md §1 item 10.
 */
function resolveScope(nodes: readonly GraphNode[]): ResolvedScope {
  const units = buildUnits(nodes)
  const children = new Map<Unit | null, Unit[]>()
  for (const u of units) {
    const list = children.get(u.parent)
    if (list) list.push(u)
    else children.set(u.parent, [u])
  }
  const kids = children as ReadonlyMap<Unit, Unit[]>
  const leaf = mainLeaf(units, kids)
  if (!leaf) return { line: [], forks: [] }
  const line = pathTo(leaf)
  const covered = new Set<Unit>(line)
  const forks: Fork[] = []
  const queue: Unit[] = [...line]
  const newest = newestBelowAll(units)
  const branchFrom = (start: Unit) => {
    const path = pathTo(newest.get(start) ?? start, start)
    for (const u of path) covered.add(u)
    const head = start.nodes[0] as GraphNode
    forks.push({ start: head, from: head.parent, path: recordsOf(path) })
    for (const item of path) queue.push(item)
  }
  let next = 0
  const drain = () => {
    while (next < queue.length) {
      const u = queue[next++] as Unit
      for (const c of children.get(u) ?? []) if (!covered.has(c)) branchFrom(c)
    }
  }
  drain()
  for (const root of children.get(null) ?? []) {
    if (covered.has(root)) continue
    branchFrom(root)
    drain()
  }
  return { line: recordsOf(line), forks }
}

/**
 * Builds the graph nodes of a scope: effective parents, splices and their warnings. A root that
 * is a compact summary (`isCompactSummary`, no `logicalParentUuid`: Claude Code ≤1.0.8x wrote no
 * `compact_boundary`) hangs off the scope's previous conversation record in file order, so the
 * line runs through every compaction. Source: formats-more.md §10 item 1.
 */
function linkScope(
  nodes: readonly GraphNode[],
  byUuid: ReadonlyMap<string, GraphNode>,
  warnings: string[],
  where: Where,
): void {
  // A file where no record names a parent (hand-written, flattened) is read in file order.
  const flat = nodes.length > 1 && nodes.every((n) => typeof n.record.parentUuid !== 'string')
  // Records without any uuid (the web sessions API's `{type, message, timestamp}`) are a list in
  // order by their shape: nothing to warn about.
  if (flat && nodes.some((n) => typeof n.record.uuid === 'string'))
    warnings.push(`no record of ${nodes.length} has a parentUuid: records joined in file order`)
  let previous: GraphNode | null = null
  let previousTalk: GraphNode | null = null
  for (const n of nodes) {
    const parentUuid = n.record.parentUuid
    const logical = n.record.logicalParentUuid
    if (flat) {
      n.parent = previous
    } else if (typeof parentUuid === 'string') {
      const p = byUuid.get(parentUuid)
      if (p && p.scope === n.scope && p.order < n.order) n.parent = p
      else if (p && p.scope === n.scope) {
        n.parent = previous
        warnings.push(
          `${where(n.line)}: parentUuid points at a later record (${where(p.line)}); ` +
            'joined to the record before it',
        )
      } else if (p && n.scope !== 'main' && p.scope === 'main') {
        n.parent = null // a sidechain's root hangs off the main line: it starts its own transcript
      } else {
        n.parent = previous
        warnings.push(
          `${where(n.line)}: parentUuid ${quoteForMessage(parentUuid)} is not in this ` +
            `${n.scope === 'main' ? 'file' : 'sidechain'} ` +
            '(a skipped or missing record); joined to the record before it in file order',
        )
      }
    } else if (typeof logical === 'string') {
      // A compaction's new root: splice it to what came before, never drop that.
      const p = byUuid.get(logical)
      if (p && p.scope === n.scope && p.order < n.order) n.parent = p
      else if (p && p.scope !== n.scope) {
        n.parent = previous
        warnings.push(
          `${where(n.line)}: logicalParentUuid points into a ` +
            `${p.scope === 'main' ? 'main-line' : 'sidechain'} record (${where(p.line)}); ` +
            'joined to the record before it',
        )
      } else {
        n.parent = previous
        warnings.push(
          `${where(n.line)}: logicalParentUuid ${quoteForMessage(logical)} is not in this file` +
            (previous
              ? '; joined to the record before it in file order'
              : ': the context before this compaction is in another file'),
        )
      }
    } else if (n.type === 'user' && n.record.isCompactSummary === true && previousTalk) {
      // Claude Code ≤1.0.8x: a compaction's summary starts a new root with no link back; the
      // context before it ends at the conversation record written before it.
      n.parent = previousTalk
    } else {
      n.parent = null
    }
    previous = n
    if (CONVERSATION_TYPES.has(n.type)) previousTalk = n
  }
}

/** Names a record's place for warnings: `line 7` (JSONL), `loglines[6]` (web export). */
type Where = (line: number) => string

const atLine: Where = (line) => `line ${line}`

/** What the forks off the main line held, counted for the import warnings. */
interface OffLine {
  /** Forks listed in `branches` (edits or retries) and their messages. */
  branches: number
  branchMessages: number
  /** Records of forks starting in another session than the main line's, by `sessionId`. */
  otherSessions: Map<string, GraphNode[]>
  /** Tool results off the main line that answer no call waiting there (answered, or not on it). */
  strayResults: number
  /** Messages of forks made only of slash-command leftovers (`isCommandNote`). */
  commandNotes: number
}

/** A slash command as typed (`/compact keep the tests`): a `/`, a command word, then a space or the end. */
const TYPED_COMMAND = /^\/[A-Za-z][\w:.-]*(?:\s|$)/

/**
 * A message that is a slash-command leftover, a note of the terminal and never an edit or a
 * retry: a user message flagged `command` (the `<local-command-caveat>`, the `<command-name>`
 * echo, `<local-command-stdout>`, `<bash-input>` / `<bash-stdout>`), or the raw `/command …` text
 * Claude Code 2.1.2xx writes as a childless user record before a compaction. A fork made only of
 * these (the echo + output left a dead end when a resume hangs off the caveat, the raw
 * `/compact` input) is not listed as a branch. Source: formats-more.md §10 item 2.
 */
function isCommandNote(d: DraftMessage): boolean {
  return d.role === 'user' && (d.flags?.command === true || TYPED_COMMAND.test(headText(d.content)))
}

/** The note on slash-command leftovers left off the main line (none → none). */
function commandNoteNotes(count: number): string[] {
  if (count === 0) return []
  return [
    `${count} slash-command record(s) off the main line (command echoes, their output, a typed ` +
      '/command) are left out: notes of the terminal, not edits or retries',
  ]
}

/**
 * The import warnings about what is not on the main line, each naming what it is and why it is
 * not there: edits or retries (listed as branches), tool results answering no waiting call
 * (skipped). Other sessions are no problem: `otherSessionsNote`. The one place these are worded.
 */
function offLineWarnings(off: OffLine): string[] {
  const out: string[] = []
  if (off.branches > 0) {
    out.push(
      `${off.branches} branch(es) (edits or retries) are not on the main line; ` +
        `${off.branchMessages} message(s) there are listed as branches`,
    )
  }
  if (off.strayResults > 0) {
    out.push(
      `${off.strayResults} tool result(s) off the main line answer no call waiting there ` +
        '(answered already, or made elsewhere): skipped',
    )
  }
  return out
}

/** A further conversation of the file: another session, with its message count. */
interface OtherSession {
  id: string
  transcript: Transcript
}

/** Other sessions `otherSessionsNote` names before it says how many more there are. */
const NAMED_SESSIONS = 8

/**
 * The note on the file's other sessions: how many, their ids (quoted, the first `NAMED_SESSIONS`)
 * and message counts, that they are listed as further conversations, and which session is open
 * (the one with the most messages).
 */
function otherSessionsNote(others: readonly OtherSession[], mainSession: string | undefined): string {
  const named = others.slice(0, NAMED_SESSIONS).map((o) => `${quoteForMessage(o.id)}: ${o.transcript.messages.length} message(s)`)
  const more = others.length > NAMED_SESSIONS ? `, and ${others.length - NAMED_SESSIONS} more` : ''
  const open = mainSession === undefined ? '(none)' : quoteForMessage(mainSession)
  return (
    `${others.length} other session(s) in this file (sessionId ${named.join(', ')}${more}) are listed as further ` +
    `conversations; the open one is session ${open}, the one with the most messages`
  )
}

/** The note on `isApiErrorMessage` records left out of a conversation (none → none). */
function apiErrorNotes(count: number): string[] {
  if (count === 0) return []
  return [
    `${count} API error notice(s) Claude Code wrote in place of a response ` +
      '(isApiErrorMessage: true; not model output, never sent to the model) are left out of the messages',
  ]
}

/** The leaf-named `summary` title of the first of `nodes` it names, if any. */
function titleWithin(
  titles: readonly { summary: string; leafUuid?: string }[],
  uuids: ReadonlySet<string>,
): string | undefined {
  return titles.find((t) => t.leafUuid !== undefined && uuids.has(t.leafUuid))?.summary
}

/**
 * One other session of the file as its own conversation: its records (forks off the main line
 * that start in that session) resolved like the main line, its own forks listed as `branches`.
 * Titled by its `summary` title, else `Session <sessionId>: <first prompt>`. Undefined when it
 * gives no message.
 */
function otherSessionTranscript(
  id: string,
  nodes: GraphNode[],
  keepRaw: boolean,
  toolNames: ReadonlyMap<string, string>,
  titles: readonly { summary: string; leafUuid?: string }[],
  where: Where,
): OtherSession | undefined {
  nodes.sort((a, b) => a.order - b.order)
  const resolved = resolveScope(nodes)
  const c = convertLine(resolved.line, keepRaw, overlay(toolNames), where)
  if (c.drafts.length === 0) return undefined
  const branches: TranscriptBranch[] = []
  const ids = new Map(c.messageIdOf)
  let commandNotes = 0
  for (const fork of resolved.forks) {
    const f = convertLine(fork.path, false, overlay(toolNames), where)
    for (const [k, v] of f.messageIdOf) ids.set(k, v)
    if (f.drafts.length === 0) continue
    if (f.drafts.every(isCommandNote)) {
      commandNotes += f.drafts.length
      continue
    }
    let from: string | null = null
    for (let n = fork.from; n && from === null; n = n.parent) from = ids.get(n.uuid) ?? null
    branches.push({
      id: fork.start.uuid,
      fromMessageId: from,
      messageCount: f.drafts.length,
      firstText: firstTextOf(f.drafts),
    })
  }
  const title =
    titleWithin(titles, new Set(nodes.map((n) => n.uuid))) ??
    `Session ${id}: ${firstTextOf(c.drafts)}`
  const t = finalizeTranscript('claude-code', c.drafts, c.compactions, c.warnings, {
    title,
    model: lastModel(nodes.map((n) => ({ line: n.line, value: n.record }))),
  })
  const notes = [...apiErrorNotes(c.apiErrors), ...commandNoteNotes(commandNotes)]
  if (notes.length > 0) t.notes = notes
  if (branches.length > 0) t.branches = branches
  attachRecorded(t, c, agentVersionOf(resolved.line))
  return { id, transcript: t }
}

/**
 * Imports Claude Code session records (from `parseJsonl` or the incremental `createJsonlParser`
 * via `toJsonlParse`) as a graph. Every record with a `uuid` is a node; its parent is `parentUuid`.
 * Splices, so nothing before is dropped: a compaction's new root (`parentUuid:null`) hangs from
 * its `logicalParentUuid`; a `parentUuid` that is not in the file (a bad or missing line) joins
 * the record before it in file order (with a warning); a file where no record names a parent is
 * read in file order. A `parentUuid` naming a later record joins the record before it too, so
 * effective parents always come earlier and no record is lost to a cycle (orphans are warned
 * about and kept, never silently dropped). The records of one API response (same `message.id`)
 * and the result records of its calls are one step wherever each hangs (Claude Code 2.1 chains
 * parallel `tool_use` records one off the other and hangs each result off its own call; the next
 * turn continues from whichever result came last): see `buildUnits`. The main line runs from the
 * root to the newest step that gives messages — of the session with the most messages on its
 * line when the file holds several `sessionId`s (`mainLeaf`). Forks off it, each converted on its
 * own: an edit or retry (a re-sent user message, a regenerated response) is listed in `branches`
 * (`id` = its first record's uuid, `fromMessageId`, `messageCount`, `firstText`; a second root
 * of the same session is a branch forking at the root, except a compact summary's root, spliced
 * by `linkScope`); tool results answering no call waiting on the main line are not imported (one
 * warning each kind, `offLineWarnings`); forks made only of slash-command leftovers
 * (`isCommandNote`) are no branches, counted in a note. Each other
 * session of the file is a further conversation in `sidechains`, listed first
 * (`otherSessionTranscript`), with a note (`notes`) naming them. Sidechains (`isSidechain:true`)
 * are grouped by `agentId` (else by sidechain root) and returned after them as their own
 * transcripts in `sidechains`; a file made only of
 * sidechain records (a sub-agent file) is its own main line. `summary` records give the title
 * (the one whose `leafUuid` is in the file, else the first); one naming no leaf is no title and is
 * warned about with its text (a compaction's summary kept in no message); repeated uuids are skipped and
 * counted; metadata records (`progress`, `attachment`, …, and any record without a `message`)
 * carry no messages; only an unknown type carrying a `message` is warned about. API error notices
 * are left out with a note. Each transcript (main line, other session, sidechain) carries the
 * usage of its responses (`usage`, `responseUsage`, at the response's first message) and the
 * newest `version` of its records (`agentVersion`). Message conversion: see `convertLine`.
 * Message ids are record uuids; `source.line` is the record's 1-based line
 * (`where` names it in warnings). Throws `ImportFailure` when no user/assistant record gives a
 * message; never runs a regex over a whole record (lines of MBs). Source: formats.md §4.4, §1
 * items 1, 2, 9, 10, 13, 15.
 */
function importClaudeCodeRecords(
  parsed: JsonlParse,
  options: RootImportOptions = {},
  where: Where = atLine,
): Transcript {
  const format: FormatId = 'claude-code'
  const keepRaw = options.keepRaw ?? true
  const warnings: string[] = capWarnings(parsed.bad)
  const linkWarnings: string[] = []
  const titles: { summary: string; leafUuid?: string }[] = []
  const unknownTypes = new Map<string, number>()
  const byUuid = new Map<string, GraphNode>()
  const nodes: GraphNode[] = []
  let duplicates = 0

  for (const { line, value: record } of parsed.records) {
    const type = str(record.type) ?? ''
    if (type === 'summary') {
      if (typeof record.summary === 'string' && typeof record.leafUuid === 'string') {
        titles.push({ summary: record.summary, leafUuid: record.leafUuid })
      } else if (typeof record.summary === 'string' && record.summary.trim() !== '') {
        // A title names its leaf; without one the text is a compaction's, kept in no message.
        const quoted = collapseWhitespace(cutCodePoints(record.summary, 120))
        warnings.push(
          `${where(line)}: summary record naming no leaf (no leafUuid): not a title; ` +
            `its text "${quoted}" is in no message`,
        )
      }
      continue
    }
    const known =
      CONVERSATION_TYPES.has(type) || METADATA_TYPES.has(type) || !carriesMessage(record)
    if (!known) unknownTypes.set(type || '(none)', (unknownTypes.get(type || '(none)') ?? 0) + 1)
    let uuid = str(record.uuid) ?? ''
    if (uuid === '') {
      // Records without a uuid are not in the graph; conversation ones still get a place.
      if (!CONVERSATION_TYPES.has(type)) continue
      uuid = `line-${line}`
    }
    // Duplicate writes (stream-json input, resumed sessions) repeat whole records: keep the first.
    if (byUuid.has(uuid)) {
      duplicates++
      continue
    }
    const agentId = str(record.agentId)
    const sideScope = agentId !== undefined ? `agent:${agentId}` : 'sidechain'
    const scope = record.isSidechain === true ? sideScope : 'main'
    const node: GraphNode = { uuid, line, order: nodes.length, type, record, scope, parent: null }
    byUuid.set(uuid, node)
    nodes.push(node)
  }

  // A sub-agent file opened on its own: all its records are sidechain records.
  const mainConversation = nodes.some((n) => n.scope === 'main' && CONVERSATION_TYPES.has(n.type))
  if (!mainConversation && nodes.some((n) => CONVERSATION_TYPES.has(n.type))) {
    for (const n of nodes) n.scope = 'main'
    warnings.push('every record is a sidechain (a sub-agent file): imported as the transcript')
  }

  const scopes = new Map<string, GraphNode[]>()
  for (const n of nodes) {
    const list = scopes.get(n.scope)
    if (list) list.push(n)
    else scopes.set(n.scope, [n])
  }
  const mainNodes = scopes.get('main') ?? []
  linkScope(mainNodes, byUuid, linkWarnings, where)
  const main = resolveScope(mainNodes)
  const toolNames = new Map<string, string>()
  const converted = convertLine(main.line, keepRaw, toolNames, where)
  for (const item of converted.warnings) warnings.push(item)
  for (const item of capWarnings(linkWarnings)) warnings.push(item)

  // The sessions the main line speaks in (a resumed session's line may cross into a new one).
  const mainSessions = new Set<string>()
  let mainSession: string | undefined
  for (const n of main.line) {
    const id = n.type === 'user' || n.type === 'assistant' ? str(n.record.sessionId) : undefined
    if (id === undefined) continue
    mainSession = id
    mainSessions.add(id)
  }
  // Forks: each converted on its own to count its messages; fork points named by message id.
  const messageIdOf = new Map(converted.messageIdOf)
  const branches: TranscriptBranch[] = []
  const off: OffLine = {
    branches: 0,
    branchMessages: 0,
    otherSessions: new Map(),
    strayResults: 0,
    commandNotes: 0,
  }
  const messageAtOrAbove = (from: GraphNode | null): string | null => {
    for (let n = from; n; n = n.parent) {
      const id = messageIdOf.get(n.uuid)
      if (id !== undefined) return id
    }
    return null
  }
  for (const fork of main.forks) {
    const c = convertLine(fork.path, false, overlay(toolNames), where)
    for (const [k, v] of c.messageIdOf) messageIdOf.set(k, v)
    if (c.drafts.length === 0) continue // progress, hooks, telemetry: no messages
    const session = str(fork.start.record.sessionId)
    if (session !== undefined && mainSessions.size > 0 && !mainSessions.has(session)) {
      const list = off.otherSessions.get(session)
      if (list) for (const item of fork.path) list.push(item)
      else off.otherSessions.set(session, [...fork.path])
      continue
    }
    if (c.drafts.every((d) => d.role === 'tool')) {
      off.strayResults += c.drafts.length
      continue
    }
    if (c.drafts.every(isCommandNote)) {
      off.commandNotes += c.drafts.length
      continue
    }
    branches.push({
      id: fork.start.uuid,
      fromMessageId: messageAtOrAbove(fork.from),
      messageCount: c.drafts.length,
      firstText: firstTextOf(c.drafts),
    })
    off.branches++
    off.branchMessages += c.drafts.length
  }
  for (const item of offLineWarnings(off)) warnings.push(item)
  // Other sessions: further conversations, listed first.
  const others: OtherSession[] = []
  for (const [id, list] of off.otherSessions) {
    const o = otherSessionTranscript(id, list, keepRaw, toolNames, titles, where)
    if (o) o.transcript.conversationId = id
    if (o) others.push(o)
  }
  const notes = [...apiErrorNotes(converted.apiErrors), ...commandNoteNotes(off.commandNotes)]
  if (others.length > 0) notes.push(otherSessionsNote(others, mainSession))
  // Sidechains: one transcript per agent / sidechain root.
  const sidechains: Transcript[] = others.map((o) => o.transcript)
  let subAgents = 0
  let sidechainRecords = 0
  for (const [scope, list] of scopes) {
    if (scope === 'main') continue
    sidechainRecords += list.length
    const scopeWarnings: string[] = []
    linkScope(list, byUuid, scopeWarnings, where)
    const resolved = resolveScope(list)
    // Without an agentId, each root of the sidechain scope is its own sub-agent conversation.
    const groups =
      scope === 'sidechain'
        ? [resolved.line, ...resolved.forks.filter((f) => f.from === null).map((f) => f.path)]
        : [resolved.line]
    for (const group of groups) {
      const c = convertLine(group, keepRaw, overlay(toolNames), where)
      if (c.drafts.length === 0) continue
      const agent = scope.startsWith('agent:') ? scope.slice(6) : undefined
      const first = firstTextOf(c.drafts)
      const title = `Sub-agent${agent !== undefined ? ` ${agent}` : ''}: ${first}`
      const w = [...scopeWarnings, ...c.warnings]
      const t = finalizeTranscript(format, c.drafts, c.compactions, w, { title })
      if (agent !== undefined) t.conversationId = agent
      const scopeNotes = apiErrorNotes(c.apiErrors)
      if (scopeNotes.length > 0) t.notes = scopeNotes
      attachRecorded(t, c, agentVersionOf(group))
      sidechains.push(t)
      subAgents++
    }
  }
  if (subAgents > 0) {
    warnings.push(
      `${sidechainRecords} sidechain record(s) (isSidechain: true, sub-agent work) are in ` +
        `${subAgents} separate sub-agent transcript(s), not in the main line`,
    )
  }
  if (duplicates > 0)
    warnings.push(`${duplicates} duplicate record(s) (same uuid as an earlier line) skipped`)
  if (unknownTypes.size > 0) warnings.push(`records of unknown type ignored: ${countList(unknownTypes)}`)
  if (converted.drafts.length === 0) {
    importFailure(
      "no messages found in the file's user/assistant records " +
        `(${parsed.records.length} records read)`,
    )
  }
  // The title of a leaf on the main line, else of a leaf in this file (not another session's),
  // else the first title.
  const onOthers = new Set(others.length > 0 ? [...off.otherSessions.values()].flat() : [])
  const title =
    titleWithin(titles, new Set(main.line.map((n) => n.uuid))) ??
    titles.find(
      (t) =>
        t.leafUuid !== undefined &&
        byUuid.has(t.leafUuid) &&
        !onOthers.has(byUuid.get(t.leafUuid) as GraphNode),
    )?.summary ??
    (others.length > 0 ? undefined : titles[0]?.summary)
  const transcript = finalizeTranscript(format, converted.drafts, converted.compactions, warnings, {
    ...(title !== undefined ? { title } : {}),
    model: lastModel(parsed.records),
  })
  if (notes.length > 0) transcript.notes = notes
  attachRecorded(transcript, converted, agentVersionOf(main.line))
  if (branches.length > 0) transcript.branches = branches
  if (sidechains.length > 0) transcript.sidechains = sidechains
  if (mainSession !== undefined) transcript.conversationId = mainSession
  return transcript
}

/**
 * The Claude Code version that wrote a line's newest record (the `version` field every message
 * record carries; it changes when a session is resumed by a newer build). Source: formats.md §4.4
 * "Common fields".
 */
function agentVersionOf(line: readonly GraphNode[]): string | undefined {
  for (let i = line.length - 1; i >= 0; i--) {
    const v = str(line[i]?.record.version)
    if (v) return v
  }
  return undefined
}

/**
 * The model of the newest main-line assistant record (`message.model`), skipping Claude Code's
 * `<synthetic>` marker on records it wrote itself (API errors, interruptions).
 */
function lastModel(records: readonly JsonlRecord[]): string | undefined {
  for (let i = records.length - 1; i >= 0; i--) {
    const r = records[i]?.value
    if (!r || r.type !== 'assistant' || r.isSidechain === true || !isObject(r.message)) continue
    const model = str(r.message.model)
    if (model && model !== '<synthetic>') return model
  }
  return undefined
}

/**
 * Imports a Claude Code session JSONL text (`~/.claude/projects/…/<sessionId>.jsonl`). Bad lines
 * (invalid JSON, half-written last line, non-objects) are skipped with a warning naming the 1-based
 * line and the reason. The caller strips a BOM; CRLF is accepted. Never throws. See
 * `importClaudeCodeRecords` for the mapping.
 */
export function importClaudeCode(text: string, options: RootImportOptions = {}): ImportResult {
  const parsed = parseJsonl(text)
  return importResult(() => {
    if (parsed.records.length === 0) {
      const first = parsed.bad[0]
      importFailure(
        parsed.lines === 0
          ? 'the file is empty'
          : `none of the ${parsed.lines} lines could be read (${first ?? ''})`,
        { line: 1 },
      )
    }
    return importClaudeCodeRecords(parsed, options)
  }, LABEL)
}

/**
 * Imports a Claude Code session the worker parsed incrementally (`createJsonlParser().end()`):
 * the same mapping as `importClaudeCodeRecords`, with the parser's skipped lines as warnings.
 * Pass `keepRaw: false` for large inputs (the worker knows the byte count:
 * `result.bytes`). Fails like `importClaudeCode` when no line could be read. Never throws.
 */
export function importClaudeCodeStream(
  result: JsonlStreamResult,
  options: RootImportOptions = {},
): ImportResult {
  return importResult(() => {
    if (result.records.length === 0) {
      importFailure(
        result.lines === 0
          ? 'the file is empty'
          : `none of the ${result.lines} lines could be read (${result.warnings[0] ?? ''})`,
        { line: 1 },
      )
    }
    return importClaudeCodeRecords(toJsonlParse(result), options)
  }, LABEL)
}

/**
 * Imports a Claude Code web session export: one JSON object whose `loglines` array holds the
 * same records as the session JSONL (`{"loglines": [{type, uuid, parentUuid, sessionId,
 * message, …}, …]}`, or as the web sessions API returns them, `{type, message, timestamp}` without
 * `uuid` / `sessionId` / `parentUuid`: read in order), mapped exactly as
 * `importClaudeCodeRecords` maps the JSONL; `source.line`
 * is the record's 1-based position in `loglines`, and warnings name it `loglines[i]` (0-based).
 * Items that are not objects are skipped with a warning. Throws `ImportFailure` (field `loglines`)
 * without the array or when no item is an object. Source: formats.md §4.4 (the records);
 * the `loglines` wrapper as the Claude Code web sessions API returns it (read by
 * simonw/claude-code-transcripts).
 */
function importClaudeCodeWeb(root: unknown, options: RootImportOptions = {}): Transcript {
  const list = isObject(root) ? root.loglines : undefined
  if (!Array.isArray(list)) {
    importFailure(
      isObject(root)
        ? notAnArray(root, 'loglines', ' at the top level')
        : 'no "loglines" array at the top level',
      { field: 'loglines' },
    )
  }
  const records: JsonlRecord[] = []
  const bad: string[] = []
  list.forEach((value, i) => {
    if (isObject(value)) records.push({ line: i + 1, value })
    else bad.push(`loglines[${i}]: not a JSON object, skipped`)
  })
  if (records.length === 0) {
    const message =
      list.length === 0
        ? 'the "loglines" array is empty'
        : `none of the ${list.length} loglines is a JSON object`
    importFailure(message, { field: 'loglines' })
  }
  const where: Where = (line) => `loglines[${line - 1}]`
  return importClaudeCodeRecords({ records, bad, lines: list.length }, options, where)
}

/** The keys of a Claude Code on-disk record: `sessionId` and `uuid` strings, a `parentUuid` key (possibly null). */
const RECORD_KEYS = {
  sessionId: (v: unknown) => typeof v === 'string',
  uuid: (v: unknown) => typeof v === 'string',
  parentUuid: (_: unknown, r: Record<string, unknown>) => 'parentUuid' in r,
}

/** A Claude Code on-disk record: `sessionId` + `uuid` + a `parentUuid` key (possibly null). */
function isClaudeCodeRecord(r: Record<string, unknown>): boolean {
  return missingFields(r, RECORD_KEYS).length === 0
}

/**
 * Why no record of `head` is a Claude Code session record, said of the closest one (fewest keys of
 * `RECORD_KEYS` missing, the first of equals): `line 3: no sessionId key, not a Claude Code record`
 * naming exactly the keys it lacks, or, when it has them all, that its `type` is none a session
 * writes.
 */
function recordMismatch(head: readonly JsonlRecord[]): string {
  let closest: { record: JsonlRecord; missing: string[] } | undefined
  for (const record of head) {
    const missing = missingFields(record.value, RECORD_KEYS)
    if (!closest || missing.length < closest.missing.length) closest = { record, missing }
  }
  if (!closest) return 'no readable lines'
  const { record, missing } = closest
  if (missing.length > 0)
    return `line ${record.line}: no ${andList(missing)} key${missing.length === 1 ? '' : 's'}, not a Claude Code record`
  return `line ${record.line}: type ${quoteForMessage(record.value.type)} is not a Claude Code session record type`
}

/** Record types whose on-disk records identify a Claude Code session (with `isClaudeCodeRecord`). */
const SESSION_RECORD_TYPES = new Set([
  'user',
  'assistant',
  'system',
  'summary',
  'file-history-snapshot',
  'queue-operation',
  'progress',
  'attachment',
  'custom-title',
])

/**
 * Detection of session JSONL from the first 50 records (formats.md §2 item 3): a
 * user/assistant/system/… record with `sessionId` + `uuid` + `parentUuid`, or a `summary` (with
 * `leafUuid`) / `file-history-snapshot` head. Claude Code's `--output-format stream-json` output
 * (`session_id`, `parent_tool_use_id`) is named as such in the mismatch.
 */
function detectClaudeCode(input: unknown): true | string {
  const records = input as JsonlRecord[]
  const first = records[0]
  if (!first) return 'no readable lines'
  const head = records.slice(0, 50).map((r) => r.value)
  if (
    head.some(
      (r) =>
        typeof r.type === 'string' && SESSION_RECORD_TYPES.has(r.type) && isClaudeCodeRecord(r),
    ) ||
    head.some((r) => (r.type === 'summary' && 'leafUuid' in r) || r.type === 'file-history-snapshot')
  ) {
    return true
  }
  if (
    head.some(
      (r) => typeof r.session_id === 'string' && ('parent_tool_use_id' in r || r.type === 'result'),
    )
  ) {
    return (
      `line ${first.line}: Claude Code stream-json output ` +
      '(session_id, parent_tool_use_id), not a session file'
    )
  }
  return recordMismatch(records.slice(0, 50))
}

/**
 * A web sessions API logline: `{type: "user"|"assistant", message: {role, …}}` as the API returns
 * it, without `uuid` / `sessionId` / `parentUuid`. Source: formats.md §4.4 "Web export".
 */
function isWebLogline(r: Record<string, unknown>): boolean {
  return (
    (r.type === 'user' || r.type === 'assistant') &&
    isObject(r.message) &&
    r.message.role === r.type
  )
}

/**
 * Detection of a web session export: a `loglines` array that is empty or holds a Claude Code
 * record, or a web sessions API logline (`isWebLogline`), among its first 50 items (formats.md
 * §4.4).
 */
function detectClaudeCodeWeb(root: unknown): true | string {
  if (!isObject(root) || !Array.isArray(root.loglines)) return 'no "loglines" array'
  const head = root.loglines.slice(0, 50)
  if (
    head.length === 0 ||
    head.some((r) => isObject(r) && (isClaudeCodeRecord(r) || isWebLogline(r)))
  )
    return true
  return 'no Claude Code record (sessionId, uuid, parentUuid) nor {type, message} logline in "loglines"'
}

const keepRawOf = (options: ImportOptions): RootImportOptions =>
  options.keepRaw === undefined ? {} : { keepRaw: options.keepRaw }

/** Claude Code sessions (formats.md §4.4). Bad lines are reported by the registry. */
export const claudeCodeImporter: FormatImporter<'claude-code'> = {
  id: 'claude-code',
  label: LABEL,
  container: 'jsonl',
  priority: 3,
  requestFormat: 'anthropic',
  description: 'Claude Code session log, ~/.claude/projects/<project>/<sessionId>.jsonl',
  extensions: ['.jsonl'],
  detect: detectClaudeCode,
  closeness(input) {
    const records = (input as JsonlRecord[]).slice(0, 50)
    const keyed = records.filter((r) => 'sessionId' in r.value || 'parentUuid' in r.value)
    // 0.1 baseline: the generic JSONL fallback whose mismatch is quoted when nothing is closer.
    return records.length === 0 ? 0.1 : 0.1 + (0.8 * keyed.length) / records.length
  },
  importParsed(input, options) {
    const records = input as JsonlRecord[]
    return importClaudeCodeRecords({ records, bad: [], lines: records.length }, keepRawOf(options))
  },
}

/** The Claude Code web session export importer (`{"loglines": […]}`, JSON container). */
export const claudeCodeWebImporter: FormatImporter<'claude-code'> = {
  id: 'claude-code',
  label: LABEL,
  container: 'json',
  priority: 3,
  requestFormat: 'anthropic',
  description: 'Claude Code web session export {"loglines": [session records]}',
  extensions: ['.json'],
  detect: detectClaudeCodeWeb,
  importParsed: (root, options) => importClaudeCodeWeb(root, keepRawOf(options)),
}
