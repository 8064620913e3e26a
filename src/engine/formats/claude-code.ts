import type {
  FormatId,
  MessageFlags,
  Part,
  SourceRef,
  Transcript,
  TranscriptBranch,
} from '../model'
import { collapseWhitespace, cutCodePoints } from '../text'
import { splitAssistantContent, splitUserContent, type RootImportOptions } from './anthropic'
import { parseJsonl, type JsonlParse, type JsonlRecord } from './json'
import { toJsonlParse, type JsonlStreamResult } from './jsonl-stream'
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
}

/**
 * Converts an ordered line of records into message drafts: `user` records → tool messages (one
 * per `tool_result`, name from the matching `tool_use`, `is_error` → isError) then a user message
 * with flags; `assistant` records merged by `message.id` into one assistant message (the first
 * record's uuid is its id; a later record with the same `message.id` appends its block even after
 * interleaved tool results — formats.md §1 item 1); `system` `compact_boundary` + the following
 * `isCompactSummary` record → a compaction (trigger, `compactMetadata.preTokens` / `postTokens`),
 * the summary kept as a user message with `flags.compactSummary`. Other records are skipped.
 */
function convertLine(
  nodes: readonly GraphNode[],
  keepRaw: boolean,
  toolNames: Map<string, string>,
): LineConversion {
  const format: FormatId = 'claude-code'
  const drafts: DraftMessage[] = []
  const compactions: DraftCompaction[] = []
  const warnings: string[] = []
  const messageIdOf = new Map<string, string>()
  const accs: AssistantAcc[] = []
  const byMessageId = new Map<string, AssistantAcc>()
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

  for (const { record, line, type, uuid } of nodes) {
    if (type === 'system') {
      if (record.subtype === 'compact_boundary') {
        closeBoundaryWithoutSummary()
        pendingBoundary = { record, line }
      }
      // Other system records (turn_duration, api_error, local_command, …) are telemetry.
      continue
    }
    if (type !== 'user' && type !== 'assistant') continue
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
      if (record.isApiErrorMessage === true) draft.flags = { apiError: true }
      const acc: AssistantAcc = { draft, blocks: [...blocks], records: [record] }
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

  for (const acc of accs) {
    const split = splitAssistantContent(acc.blocks)
    acc.draft.content = split.content
    if (split.toolCalls.length > 0) acc.draft.toolCalls = split.toolCalls
    if (keepRaw) acc.draft.source.raw = acc.records.length === 1 ? acc.records[0] : acc.records
  }
  return { drafts, compactions, warnings, messageIdOf }
}

/** Nodes from the root down to `leaf`, following effective parents (a cycle stops the walk). */
function pathTo(leaf: GraphNode): GraphNode[] {
  const path: GraphNode[] = []
  const seen = new Set<GraphNode>()
  for (let n: GraphNode | null = leaf; n && !seen.has(n); n = n.parent) {
    seen.add(n)
    path.push(n)
  }
  return path.reverse()
}

/** The first text of a line's drafts (a user message's first), cut to 120 code points. */
function firstTextOf(drafts: readonly DraftMessage[]): string {
  const pick = drafts.find((d) => d.role === 'user') ?? drafts[0]
  if (!pick) return ''
  const text = headText(pick.content)
  return collapseWhitespace(cutCodePoints(text, 120))
}

/** A resolved line of a graph scope: its nodes in order plus the forks off it. */
interface ResolvedScope {
  line: GraphNode[]
  /** Branch starts with the node they fork from (null: a second root). */
  forks: { start: GraphNode; from: GraphNode | null; path: GraphNode[] }[]
}

/**
 * Chooses the main line of one scope — the chain from its root to the last conversation record in
 * file order — and walks every other child of every chosen node as a branch (from that child to
 * the newest record below it), recursively; other roots start branches that fork at the root.
 * Every node is reached: effective parents always come earlier in file order (`linkScope`), so
 * there are no cycles. Source: formats.md §1 item 10.
 */
function resolveScope(nodes: readonly GraphNode[]): ResolvedScope {
  const children = new Map<GraphNode | null, GraphNode[]>()
  for (const n of nodes) {
    const list = children.get(n.parent)
    if (list) list.push(n)
    else children.set(n.parent, [n])
  }
  let leaf: GraphNode | undefined
  for (const n of nodes) if (CONVERSATION_TYPES.has(n.type)) leaf = n
  leaf ??= nodes[nodes.length - 1]
  if (!leaf) return { line: [], forks: [] }
  const line = pathTo(leaf)
  const covered = new Set<GraphNode>(line)
  const forks: ResolvedScope['forks'] = []

  const newestBelow = (start: GraphNode): GraphNode => {
    let best = start
    let bestConversation = CONVERSATION_TYPES.has(start.type) ? start : undefined
    const stack = [start]
    const seen = new Set<GraphNode>()
    while (stack.length > 0) {
      const n = stack.pop() as GraphNode
      if (seen.has(n)) continue
      seen.add(n)
      if (n.order > best.order) best = n
      if (CONVERSATION_TYPES.has(n.type) && n.order > (bestConversation?.order ?? -1))
        bestConversation = n
      for (const c of children.get(n) ?? []) stack.push(c)
    }
    return bestConversation ?? best
  }
  const queue: GraphNode[] = [...line]
  const branchFrom = (start: GraphNode, from: GraphNode | null) => {
    const full = pathTo(newestBelow(start))
    const path = full.slice(full.indexOf(start))
    for (const n of path) covered.add(n)
    forks.push({ start, from, path })
    queue.push(...path)
  }
  let next = 0
  const drain = () => {
    while (next < queue.length) {
      const n = queue[next++] as GraphNode
      for (const c of children.get(n) ?? []) if (!covered.has(c)) branchFrom(c, n)
    }
  }
  drain()
  for (const root of children.get(null) ?? []) {
    if (covered.has(root)) continue
    branchFrom(root, null)
    drain()
  }
  return { line, forks }
}

/** Builds the graph nodes of a scope: effective parents, splices and their warnings. */
function linkScope(
  nodes: readonly GraphNode[],
  byUuid: ReadonlyMap<string, GraphNode>,
  warnings: string[],
): void {
  // A file where no record names a parent (hand-written, flattened) is read in file order.
  const flat = nodes.length > 1 && nodes.every((n) => typeof n.record.parentUuid !== 'string')
  if (flat)
    warnings.push(`no record of ${nodes.length} has a parentUuid: records joined in file order`)
  let previous: GraphNode | null = null
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
          `line ${n.line}: parentUuid points at a later record (line ${p.line}); ` +
            'joined to the record before it',
        )
      } else if (p && n.scope !== 'main' && p.scope === 'main') {
        n.parent = null // a sidechain's root hangs off the main line: it starts its own transcript
      } else {
        n.parent = previous
        warnings.push(
          `line ${n.line}: parentUuid ${parentUuid} is not in this ` +
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
          `line ${n.line}: logicalParentUuid points into a ` +
            `${p.scope === 'main' ? 'main-line' : 'sidechain'} record (line ${p.line}); ` +
            'joined to the record before it',
        )
      } else {
        n.parent = previous
        warnings.push(
          `line ${n.line}: logicalParentUuid ${logical} is not in this file` +
            (previous
              ? '; joined to the record before it in file order'
              : ': the context before this compaction is in another file'),
        )
      }
    } else {
      n.parent = null
    }
    previous = n
  }
}

/**
 * Imports Claude Code session records (from `parseJsonl` or the incremental `createJsonlParser`
 * via `toJsonlParse`) as a graph. Every record with a `uuid` is a node; its parent is `parentUuid`.
 * The main line is the chain from the root to the last non-sidechain conversation record in file
 * order. Splices, so nothing before is dropped: a compaction's new root (`parentUuid:null`) hangs
 * from its `logicalParentUuid`; a `parentUuid` that is not in the file (a bad or missing line)
 * joins the record before it in file order (with a warning); a file where no record names a
 * parent is read in file order. A `parentUuid` naming a later record joins the record before it
 * too, so effective parents always come earlier and no record is lost to a cycle (orphans are
 * warned about and kept, never silently dropped). Forks (edits/retries: a record with several
 * children) keep the main line and list each other branch in `branches` (`id` = its first
 * record's uuid, `fromMessageId`, `messageCount`, `firstText`); a second root without
 * `logicalParentUuid` is a branch forking at the root. Sidechains (`isSidechain:true`) are
 * grouped by `agentId` (else by sidechain root) and returned as their own transcripts in
 * `sidechains`; a file made only of sidechain records (a sub-agent file) is its own main line.
 * `summary` records give the title (the one whose `leafUuid` is in the file, else the first);
 * repeated uuids are skipped and counted; metadata records carry no messages. Message
 * conversion: see `convertLine`. Message ids are record uuids; `source.line` is the 1-based line.
 * Never throws; never runs a regex over a whole record (lines of MBs). Source: formats.md §4.4,
 * §1 items 1, 2, 9, 10, 13, 15.
 */
export function importClaudeCodeRecords(
  parsed: JsonlParse,
  options: RootImportOptions = {},
): ImportResult {
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
      if (typeof record.summary === 'string') {
        const t: { summary: string; leafUuid?: string } = { summary: record.summary }
        if (typeof record.leafUuid === 'string') t.leafUuid = record.leafUuid
        titles.push(t)
      }
      continue
    }
    const known = CONVERSATION_TYPES.has(type) || METADATA_TYPES.has(type)
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
  linkScope(mainNodes, byUuid, linkWarnings)
  const main = resolveScope(mainNodes)
  const toolNames = new Map<string, string>()
  const converted = convertLine(main.line, keepRaw, toolNames)
  warnings.push(...converted.warnings)
  warnings.push(...capWarnings(linkWarnings))

  // Branches: each converted on its own to count its messages; fork points named by message id.
  const messageIdOf = new Map(converted.messageIdOf)
  const branches: TranscriptBranch[] = []
  const messageAtOrAbove = (from: GraphNode | null): string | null => {
    for (let n = from; n; n = n.parent) {
      const id = messageIdOf.get(n.uuid)
      if (id !== undefined) return id
    }
    return null
  }
  for (const fork of main.forks) {
    const c = convertLine(fork.path, false, new Map(toolNames))
    for (const [k, v] of c.messageIdOf) messageIdOf.set(k, v)
    if (c.drafts.length === 0) continue
    branches.push({
      id: fork.start.uuid,
      fromMessageId: messageAtOrAbove(fork.from),
      messageCount: c.drafts.length,
      firstText: firstTextOf(c.drafts),
    })
  }
  if (branches.length > 0) {
    warnings.push(
      `${branches.length} branch(es) (edits or retries) are not on the main line; ` +
        `${branches.reduce((n, b) => n + b.messageCount, 0)} message(s) there are listed as ` +
        'branches',
    )
  }
  // Sidechains: one transcript per agent / sidechain root.
  const sidechains: Transcript[] = []
  let sidechainRecords = 0
  for (const [scope, list] of scopes) {
    if (scope === 'main') continue
    sidechainRecords += list.length
    const scopeWarnings: string[] = []
    linkScope(list, byUuid, scopeWarnings)
    const resolved = resolveScope(list)
    // Without an agentId, each root of the sidechain scope is its own sub-agent conversation.
    const groups =
      scope === 'sidechain'
        ? [resolved.line, ...resolved.forks.filter((f) => f.from === null).map((f) => f.path)]
        : [resolved.line]
    for (const group of groups) {
      const c = convertLine(group, keepRaw, new Map(toolNames))
      if (c.drafts.length === 0) continue
      const agent = scope.startsWith('agent:') ? scope.slice(6) : undefined
      const first = firstTextOf(c.drafts)
      const title = `Sub-agent${agent !== undefined ? ` ${agent}` : ''}: ${first}`
      const w = [...scopeWarnings, ...c.warnings]
      const t = finalizeTranscript(format, c.drafts, c.compactions, w, { title })
      sidechains.push(t)
    }
  }
  if (sidechains.length > 0) {
    warnings.push(
      `${sidechainRecords} sidechain record(s) (isSidechain: true, sub-agent work) are in ` +
        `${sidechains.length} separate sub-agent transcript(s), not in the main line`,
    )
  }
  if (duplicates > 0)
    warnings.push(`${duplicates} duplicate record(s) (same uuid as an earlier line) skipped`)
  if (unknownTypes.size > 0) {
    const list = [...unknownTypes].map(([t, n]) => `${t} ×${n}`).join(', ')
    warnings.push(`records of unknown type ignored: ${list}`)
  }
  if (converted.drafts.length === 0) {
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
    titles.find((t) => t.leafUuid !== undefined && byUuid.has(t.leafUuid)) ?? titles[0]
  const transcript = finalizeTranscript(format, converted.drafts, converted.compactions, warnings, {
    ...(title ? { title: title.summary } : {}),
    model: lastModel(parsed.records),
  })
  if (branches.length > 0) transcript.branches = branches
  if (sidechains.length > 0) transcript.sidechains = sidechains
  return { ok: true, transcript }
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
  if (result.records.length === 0) {
    return {
      ok: false,
      error: {
        message:
          result.lines === 0
            ? 'the file is empty'
            : `none of the ${result.lines} lines could be read (${result.warnings[0] ?? ''})`,
        line: 1,
      },
    }
  }
  return importClaudeCodeRecords(toJsonlParse(result), options)
}
