import { contentText } from '../content'
import type {
  Part,
  SourceRef,
  ThinkingPart,
  ToolCall,
  Transcript,
  TranscriptBranch,
} from '../model'
import { collapseWhitespace, cutCodePoints } from '../util/text'
import { importFailure } from './failure'
import type { JsonlRecord } from './json'
import type { FormatImporter } from './types'
import {
  countList,
  base64Bytes,
  finalizeTranscript,
  isObject,
  normalizeParts,
  str,
  type DraftCompaction,
  type DraftMessage,
  type JsonObject,
} from './util'

const format = 'copilot-cli'

/*
 * GitHub Copilot CLI session logs: `~/.copilot/session-state/<sessionId>/events.jsonl` (older
 * builds: `~/.copilot/session-state/<sessionId>.jsonl`), one event per line
 * `{type, data, id, timestamp, parentId, agentId?, ephemeral?}`. Source: github/copilot-sdk
 * `nodejs/src/generated/session-events.ts` (generated from `session-events.schema.json`), the
 * event types and data fields named below; docs/formats.md §4.13.
 */

/** Event types that open the log or carry the conversation: what detection looks for. */
const CONVERSATION_TYPES = new Set([
  'session.start',
  'session.resume',
  'user.message',
  'assistant.message',
  'tool.execution_start',
  'tool.execution_complete',
])

/**
 * Event types that carry no model context (session bookkeeping, UI notes, streaming deltas,
 * telemetry, permission prompts, hooks, sub-agent lifecycle): skipped without a warning.
 * Anything neither here nor handled is counted in one warning naming its type.
 */
const CONTEXT_FREE_TYPES = new Set([
  'session.info',
  'session.warning',
  'session.error',
  'session.idle',
  'session.mode_changed',
  'session.plan_changed',
  'session.todos_changed',
  'session.workspace_file_changed',
  'session.handoff',
  'session.shutdown',
  'session.usage_info',
  'session.usage_checkpoint',
  'session.context_changed',
  'session.task_complete',
  'session.permissions_changed',
  'session.remote_steerable_changed',
  'session.limits_changed',
  'session.schedule_created',
  'session.schedule_cancelled',
  'session.schedule_rearmed',
  'session.autopilot_objective_changed',
  'session.mode_notice_delivered',
  'session.binary_asset',
  'pending_messages.modified',
  'assistant.turn_start',
  'assistant.turn_end',
  'assistant.intent',
  'assistant.idle',
  'assistant.usage',
  'assistant.message_start',
  'assistant.message_delta',
  'assistant.reasoning_delta',
  'assistant.streaming_delta',
  'assistant.tool_call_delta',
  'assistant.server_tool_progress',
  'model.call_failure',
  'model.call_finished',
  'abort',
  'tool.user_requested',
  'tool.execution_partial_result',
  'tool.execution_progress',
  'tool.search_activated',
  'skill.invoked',
  'skills.loaded',
  'subagent.started',
  'subagent.configured',
  'subagent.completed',
  'subagent.failed',
  'subagent.selected',
  'subagent.deselected',
  'hook.start',
  'hook.end',
  'hook.progress',
  'system.notification',
  'permission.requested',
  'permission.completed',
  'user_input.requested',
  'user_input.completed',
  'elicitation.requested',
  'elicitation.completed',
])

/** The conversation an event belongs to: `main`, or a sub-agent's key. */
const MAIN = 'main'

/**
 * The sub-agent an event comes from: the envelope's `agentId` (newer builds), else the
 * deprecated `data.parentToolCallId` (the tool call that spawned it); `MAIN` for the root agent.
 */
function scopeOf(r: JsonObject, data: JsonObject): string {
  const agent = str(r.agentId)
  if (agent !== undefined && agent !== '') return `agent:${agent}`
  const parent = str(data.parentToolCallId)
  if (parent !== undefined && parent !== '') return `call:${parent}`
  return MAIN
}

/** `data` of an event as an object ({} when absent or not an object). */
const dataOf = (r: JsonObject): JsonObject => (isObject(r.data) ? r.data : {})

/** A number field, or undefined. */
const num = (v: unknown): number | undefined =>
  typeof v === 'number' && Number.isFinite(v) ? v : undefined

/**
 * `user.message` attachments as parts: a `blob` with an image MIME type → image (data URL built
 * from the base64 `data`, size in bytes); a `selection` → its text; anything else (files,
 * directories, GitHub references: the CLI inlines their content itself) → an opaque part of kind
 * `attachment:<type>`, kept for "show original" and never tokenized.
 */
function attachmentParts(list: unknown): Part[] {
  if (!Array.isArray(list)) return []
  const parts: Part[] = []
  for (const a of list) {
    if (!isObject(a)) continue
    const type = str(a.type) ?? 'unknown'
    const mime = str(a.mimeType) ?? ''
    if (type === 'blob' && mime.startsWith('image/') && typeof a.data === 'string') {
      parts.push({
        type: 'image',
        mediaType: mime,
        url: `data:${mime};base64,${a.data}`,
        bytes: base64Bytes(a.data),
      })
    } else if (type === 'selection' && typeof a.text === 'string') {
      parts.push({ type: 'text', text: a.text })
    } else {
      parts.push({ type: 'opaque', kind: `attachment:${type}`, raw: a })
    }
  }
  return parts
}

/**
 * A `tool.execution_complete` as tool-message content: `result.content` (the text the model
 * was sent), else on failure `error.message`, else a note naming the missing result; plus images
 * from `result.binaryResultsForLlm` with inline base64 `data`.
 */
function toolResultContent(data: JsonObject): string | Part[] {
  const result = isObject(data.result) ? data.result : undefined
  const error = isObject(data.error) ? data.error : undefined
  const parts: Part[] = []
  const text = str(result?.content)
  const failure = str(error?.message)
  if (text !== undefined && text !== '') parts.push({ type: 'text', text })
  else if (failure !== undefined) parts.push({ type: 'text', text: failure })
  else if (text !== undefined) parts.push({ type: 'text', text: '' })
  const binaries = Array.isArray(result?.binaryResultsForLlm) ? result.binaryResultsForLlm : []
  for (const b of binaries) {
    if (!isObject(b) || typeof b.data !== 'string') continue
    const mime = str(b.mimeType) ?? 'application/octet-stream'
    if (b.type === 'image' || mime.startsWith('image/')) {
      parts.push({
        type: 'image',
        mediaType: mime,
        url: `data:${mime};base64,${b.data}`,
        bytes: base64Bytes(b.data),
      })
    } else {
      parts.push({ type: 'opaque', kind: 'binary', raw: b })
    }
  }
  if (parts.length === 0) {
    const status = data.success === false ? 'failed' : 'finished'
    return `(no result recorded; the tool ${status})`
  }
  return normalizeParts(parts, '') ?? ''
}

/**
 * The thinking of an `assistant.message`: `reasoningText` (readable; `reasoningOpaque`, the
 * Anthropic signature, kept with it), else `reasoningOpaque` alone (opaque), and
 * `encryptedContent` (OpenAI encrypted reasoning) as a `reasoning` part.
 */
function thinkingParts(data: JsonObject): ThinkingPart[] {
  const parts: ThinkingPart[] = []
  const text = str(data.reasoningText)
  const opaque = str(data.reasoningOpaque)
  if (text !== undefined && text !== '') {
    const t: ThinkingPart = { type: 'thinking', variant: 'thinking', text }
    if (opaque) t.signature = opaque
    parts.push(t)
  } else if (opaque) {
    parts.push({ type: 'thinking', variant: 'redacted_thinking', encrypted: opaque })
  }
  const encrypted = str(data.encryptedContent)
  if (encrypted) parts.push({ type: 'thinking', variant: 'reasoning', encrypted })
  return parts
}

/** A truncation whose dropped messages are resolved to ids after `finalizeTranscript`. */
interface PendingTruncation {
  /** Position in the conversation's compactions. */
  compaction: number
  /** `messagesRemovedDuringTruncation`: how many of the oldest non-system messages went. */
  removed: number
}

/** One conversation (the main agent or a sub-agent) converted to drafts. */
interface Converted {
  drafts: DraftMessage[]
  compactions: DraftCompaction[]
  truncations: PendingTruncation[]
  warnings: string[]
  model?: string
  /** The newest `session.start` / `session.resume` `copilotVersion` (the CLI's version). */
  agentVersion?: string
  title?: string
}

/**
 * Converts one conversation's events (file order) to drafts:
 * - `system.message` → system (role `developer` too); `user.message` → user: its text is
 *   `transformedContent` when present (what the model was sent: the typed text wrapped or with
 *   context such as `<current_datetime>` added — the typed text stays visible inside it), else
 *   `content` (the text as typed); attachments as parts; `isAutopilotContinuation` →
 *   `flags.injected`;
 * - `assistant.message` → assistant: thinking (`reasoningText`, else the `assistant.reasoning`
 *   events just before it), `content`, `toolRequests` → tool calls (`arguments` object as JSON
 *   text); consecutive messages of one API call (`apiCallId`) with nothing between are one message;
 * - `tool.execution_start` of a call no `toolRequests` asked for (a tool the person ran, its
 *   result `isUserRequested`) → an assistant message holding that call (`toolName`,
 *   `arguments`), flagged `injected`: the CLI made it, not the model;
 * - `tool.execution_complete` → tool message answering `toolCallId` (`success:false` →
 *   `isError`), named after the request (or its `tool.execution_start`);
 * - `session.compaction_complete` with `success` → a recorded compaction placed where its
 *   `session.compaction_start` was (messages after the start were not summarized), with
 *   `summaryContent`, `preCompactionTokens` / `postCompactionTokens` (else the start's token
 *   counts summed); a failed one is a warning;
 * - `session.truncation` → a recorded compaction (`trigger: 'truncation'`, no summary,
 *   pre/post tokens) that dropped the `messagesRemovedDuringTruncation` oldest messages;
 * - `session.context_cleared` → a warning (the model's context restarted there);
 * - `session.start` / `session.resume` `selectedModel`, `session.model_change` `newModel` and
 *   `assistant.message` `model` name the model (newest wins); `session.title_changed` the title;
 *   `session.start` / `session.resume` `copilotVersion` the CLI's version (newest wins).
 */
function convertEvents(events: readonly JsonlRecord[], keepRaw: boolean): Converted {
  const drafts: DraftMessage[] = []
  const compactions: DraftCompaction[] = []
  const truncations: PendingTruncation[] = []
  const warnings: string[] = []
  const unknown = new Map<string, number>()
  const callNames = new Map<string, string>()
  const startNames = new Map<string, string>()
  let reasoning: ThinkingPart[] = []
  let open: { draft: DraftMessage; apiCallId: string; parts: Part[] } | null = null
  let compactionStart: { atIndex: number; tokens?: number; trigger?: string; line: number } | null =
    null
  let orphanResults = 0
  let emptyAssistant = 0
  let model: string | undefined
  let agentVersion: string | undefined
  let title: string | undefined

  const src = (line: number, raw: unknown): SourceRef => {
    const s: SourceRef = { format, line }
    if (keepRaw) s.raw = raw
    return s
  }
  const push = (d: DraftMessage) => {
    drafts.push(d)
    open = null
  }

  for (const rec of events) {
    const r = rec.value
    const type = str(r.type) ?? ''
    const data = dataOf(r)
    const id = str(r.id) ?? ''
    switch (type) {
      case 'session.start':
      case 'session.resume':
        model = str(data.selectedModel) || model
        agentVersion = str(data.copilotVersion) || agentVersion
        break
      case 'session.model_change':
        model = str(data.newModel) || model
        break
      case 'session.title_changed':
        title = str(data.title) || title
        break
      case 'system.message': {
        const text = str(data.content) ?? ''
        if (text !== '') push({ id, role: 'system', content: text, source: src(rec.line, r) })
        break
      }
      case 'user.message': {
        const parts: Part[] = []
        // The model got `transformedContent`; `content` is only what the person typed.
        const text = str(data.transformedContent) || (str(data.content) ?? '')
        if (text !== '') parts.push({ type: 'text', text })
        for (const item of attachmentParts(data.attachments)) parts.push(item)
        const d: DraftMessage = {
          id,
          role: 'user',
          content: normalizeParts(parts, ''),
          source: src(rec.line, r),
        }
        if (data.isAutopilotContinuation === true) d.flags = { injected: true }
        reasoning = []
        push(d)
        break
      }
      case 'assistant.reasoning': {
        const text = str(data.content) ?? ''
        if (text !== '') reasoning.push({ type: 'thinking', variant: 'thinking', text })
        break
      }
      case 'assistant.message': {
        model = str(data.model) || model
        const thinking = thinkingParts(data)
        const parts: Part[] = thinking.length > 0 ? thinking : reasoning
        reasoning = []
        const text = str(data.content) ?? ''
        const all: Part[] = text !== '' ? [...parts, { type: 'text', text }] : [...parts]
        const requests = Array.isArray(data.toolRequests) ? data.toolRequests.filter(isObject) : []
        const calls: ToolCall[] = requests.map((q, k) => {
          const callId = str(q.toolCallId) || `${id || `L${rec.line}`}-call${k + 1}`
          const name = str(q.name) ?? ''
          callNames.set(callId, name)
          const args = q.arguments
          return {
            id: callId,
            name,
            arguments: typeof args === 'string' ? args : JSON.stringify(args ?? {}),
          }
        })
        const apiCallId = str(data.apiCallId) ?? ''
        const last = drafts[drafts.length - 1]
        const sameCall = open !== null && apiCallId !== '' && open.apiCallId === apiCallId
        if (open !== null && sameCall && open.draft === last) {
          // One API response written as several events: one message.
          const acc: { draft: DraftMessage; apiCallId: string; parts: Part[] } = open
          for (const item of all) acc.parts.push(item)
          acc.draft.content = normalizeParts(acc.parts, null)
          if (calls.length > 0) acc.draft.toolCalls = [...(acc.draft.toolCalls ?? []), ...calls]
          if (keepRaw) {
            const raw = acc.draft.source.raw
            acc.draft.source.raw = Array.isArray(raw) ? [...raw, r] : [raw, r]
          }
          break
        }
        if (all.length === 0 && calls.length === 0) {
          emptyAssistant++
          break
        }
        const d: DraftMessage = {
          id,
          role: 'assistant',
          content: normalizeParts(all, null),
          source: src(rec.line, r),
        }
        if (calls.length > 0) d.toolCalls = calls
        push(d)
        open = { draft: d, apiCallId, parts: all }
        break
      }
      case 'tool.execution_start': {
        const callId = str(data.toolCallId)
        const name = str(data.toolName)
        if (callId && name) startNames.set(callId, name)
        if (!callId || !name || callNames.has(callId)) break
        // No toolRequest asked for it (a tool the person ran): the start is the call.
        callNames.set(callId, name)
        const args = data.arguments
        push({
          id,
          role: 'assistant',
          content: null,
          toolCalls: [
            { id: callId, name, arguments: typeof args === 'string' ? args : JSON.stringify(args ?? {}) },
          ],
          flags: { injected: true },
          source: src(rec.line, r),
        })
        break
      }
      case 'tool.execution_complete': {
        const callId = str(data.toolCallId) ?? ''
        if (!callNames.has(callId)) orphanResults++
        const d: DraftMessage = {
          id,
          role: 'tool',
          content: toolResultContent(data),
          toolCallId: callId,
          source: src(rec.line, r),
        }
        const name = callNames.get(callId) ?? startNames.get(callId)
        if (name !== undefined) d.toolName = name
        if (data.success === false) d.isError = true
        push(d)
        break
      }
      case 'session.compaction_start': {
        const parts = [data.conversationTokens, data.systemTokens, data.toolDefinitionsTokens]
          .map(num)
          .filter((n): n is number => n !== undefined)
        compactionStart = { atIndex: drafts.length, line: rec.line }
        if (parts.length > 0) compactionStart.tokens = parts.reduce((a, b) => a + b, 0)
        const trigger = str(data.trigger)
        if (trigger) compactionStart.trigger = trigger
        break
      }
      case 'session.compaction_complete': {
        const start: typeof compactionStart = compactionStart
        compactionStart = null
        if (data.success !== true) {
          const why = str(data.error)
          warnings.push(
            `line ${rec.line}: a compaction failed${why ? ` (${why})` : ''}; ` +
              'the context was not changed there',
          )
          break
        }
        const summary = str(data.summaryContent) ?? ''
        const c: DraftCompaction = {
          atIndex: start?.atIndex ?? drafts.length,
          summaryText: summary === '' ? null : summary,
          source: format,
        }
        const before = num(data.preCompactionTokens) ?? start?.tokens
        const after = num(data.postCompactionTokens)
        if (before !== undefined) c.tokensBefore = before
        if (after !== undefined) c.tokensAfter = after
        const trigger =
          str(data.trigger) ??
          start?.trigger ??
          (typeof data.customInstructions === 'string' ? 'manual' : undefined)
        if (trigger) c.trigger = trigger
        compactions.push(c)
        break
      }
      case 'session.truncation': {
        const c: DraftCompaction = {
          atIndex: drafts.length,
          summaryText: null,
          trigger: 'truncation',
          source: format,
        }
        const before = num(data.preTruncationTokensInMessages)
        const after = num(data.postTruncationTokensInMessages)
        if (before !== undefined) c.tokensBefore = before
        if (after !== undefined) c.tokensAfter = after
        truncations.push({
          compaction: compactions.length,
          removed: num(data.messagesRemovedDuringTruncation) ?? 0,
        })
        compactions.push(c)
        break
      }
      case 'session.context_cleared':
        warnings.push(
          `line ${rec.line}: the context was cleared (${num(data.messagesCleared) ?? '?'} ` +
            'message(s)); the messages before it are no longer in the model context',
        )
        open = null
        break
      case 'session.snapshot_rewind':
        break // applied before conversion (`applyRewinds`)
      default:
        if (!CONTEXT_FREE_TYPES.has(type)) unknown.set(type, (unknown.get(type) ?? 0) + 1)
        break
    }
  }

  const pendingStart: typeof compactionStart = compactionStart
  if (pendingStart) {
    warnings.push(
      `line ${pendingStart.line}: a compaction started but the log records no ` +
        'session.compaction_complete for it',
    )
  }
  if (orphanResults > 0) {
    warnings.push(
      `${orphanResults} tool result(s) answer no toolRequest of an assistant message ` +
        '(user-requested tools or a lost line)',
    )
  }
  if (emptyAssistant > 0)
    warnings.push(
      `${emptyAssistant} assistant.message event(s) with no content or tool requests skipped`,
    )
  if (unknown.size > 0) warnings.push(`events of unknown type skipped: ${countList(unknown)}`)
  const out: Converted = { drafts, compactions, truncations, warnings }
  if (model !== undefined) out.model = model
  if (agentVersion !== undefined) out.agentVersion = agentVersion
  if (title !== undefined) out.title = title
  return out
}

/** The events one `session.snapshot_rewind` removed, to list them as a branch. */
interface Rewound {
  /** `upToEventId`: the first removed event. */
  target: string
  /** 1-based line of the rewind event. */
  line: number
  /** The removed events, file order. */
  records: JsonlRecord[]
  /** Ids of the events still kept before the removed ones, newest last. */
  before: string[]
}

/**
 * Applies `session.snapshot_rewind` events: each removes the event named by `upToEventId` and
 * every event after it (up to the rewind itself); the removed events are returned in `rewound`
 * (listed as branches by the caller). A rewind naming an unknown event is a warning.
 * Source: docs/formats.md §4.13 (`session.snapshot_rewind {upToEventId, eventsRemoved}`).
 */
function applyRewinds(
  records: readonly JsonlRecord[],
  warnings: string[],
): { kept: JsonlRecord[]; rewound: Rewound[] } {
  const kept: JsonlRecord[] = []
  const rewound: Rewound[] = []
  for (const rec of records) {
    const r = rec.value
    if (r.type !== 'session.snapshot_rewind') {
      kept.push(rec)
      continue
    }
    const target = str(dataOf(r).upToEventId)
    const at = target === undefined ? -1 : kept.findIndex((k) => k.value.id === target)
    if (target !== undefined && at >= 0) {
      const before = kept.slice(0, at).map((k) => str(k.value.id) ?? '')
      rewound.push({ target, line: rec.line, records: kept.splice(at), before })
    } else warnings.push(`line ${rec.line}: session.snapshot_rewind names an event not in the log`)
  }
  return { kept, rewound }
}

/**
 * The rewound parts of the main conversation as branches (`TranscriptBranch`: id = the first
 * removed event, forking from the newest main-line message before it, its message count and first
 * user text), plus one warning per rewind naming its line and what it removed. Sub-agent events
 * among the removed ones are counted, not converted.
 */
function rewindBranches(
  rewound: readonly Rewound[],
  t: Transcript,
  warnings: string[],
): TranscriptBranch[] {
  const ids = new Set(t.messages.map((m) => m.id))
  const branches: TranscriptBranch[] = []
  for (const rw of rewound) {
    const main = rw.records.filter((rec) => scopeOf(rec.value, dataOf(rec.value)) === MAIN)
    const c = convertEvents(main, false)
    const from = [...rw.before].reverse().find((id) => ids.has(id)) ?? null
    const n = c.drafts.length
    warnings.push(
      `line ${rw.line}: session.snapshot_rewind removed ${rw.records.length} event(s) from ` +
        `${rw.target} on (${n} message(s)); ` +
        (n > 0 ? 'they are listed as a branch' : 'none was a message'),
    )
    if (n === 0) continue
    const pick = c.drafts.find((d) => d.role === 'user') ?? c.drafts[0]
    branches.push({
      id: rw.target,
      fromMessageId: from,
      messageCount: n,
      firstText: pick ? collapseWhitespace(cutCodePoints(contentText(pick.content), 120)) : '',
    })
  }
  return branches
}

/** Finalizes one converted conversation and resolves what its truncations dropped to ids. */
function toTranscript(c: Converted, extraWarnings: string[]): Transcript {
  const t = finalizeTranscript(format, c.drafts, c.compactions, [...extraWarnings, ...c.warnings], {
    ...(c.title !== undefined ? { title: c.title } : {}),
    model: c.model,
  })
  for (const { compaction, removed } of c.truncations) {
    const rc = t.recordedCompactions[compaction]
    if (!rc) continue
    const before = t.messages.slice(0, rc.atIndex)
    let lead = 0
    while (lead < before.length && before[lead]?.role === 'system') lead++
    // The leading system messages always stay; the oldest `removed` messages after them went.
    rc.keptMessageIds = before.slice(lead + removed).map((m) => m.id)
  }
  return t
}

/**
 * Imports a GitHub Copilot CLI session log (see `convertEvents` for the message mapping).
 * `session.snapshot_rewind` events drop the events they rewound first; the rewound messages of
 * the main conversation are listed in `branches` (`rewindBranches`), with a warning. Events of sub-agents
 * (envelope `agentId`, or the deprecated `data.parentToolCallId`) are not in the main line: each
 * sub-agent becomes its own transcript in `sidechains`, titled by the `agentDisplayName` of the
 * `subagent.started` for its tool call (`toolCallId` = its `parentToolCallId`, or an `agentId`
 * on that event), else by its key. Unknown event types are skipped and named in one
 * warning. Message ids are the event `id`s; `source.line` is the 1-based line. Throws an
 * ImportError-shaped failure when the main conversation has no messages. Never modifies the
 * records. Source: github/copilot-sdk `session-events.ts`; docs/formats.md §4.13.
 */
function importCopilotRecords(records: readonly JsonlRecord[], keepRaw = true): Transcript {
  const warnings: string[] = []
  const { kept: events, rewound } = applyRewinds(records, warnings)
  const scopes = new Map<string, JsonlRecord[]>()
  const names = new Map<string, string>()
  // An event carrying both an agentId and the deprecated parentToolCallId links the two keys.
  const callOfAgent = new Map<string, string>()
  for (const rec of events) {
    const r = rec.value
    const data = dataOf(r)
    const agentId = str(r.agentId)
    const parentCall = str(data.parentToolCallId)
    if (agentId && parentCall) callOfAgent.set(`agent:${agentId}`, `call:${parentCall}`)
    if (r.type === 'subagent.started') {
      const name = str(data.agentDisplayName) || str(data.agentName)
      const call = str(data.toolCallId)
      if (name && call) names.set(`call:${call}`, name)
      const agent = str(r.agentId)
      if (name && agent) names.set(`agent:${agent}`, name)
    }
    const scope = r.type === 'subagent.started' ? MAIN : scopeOf(r, data)
    const list = scopes.get(scope)
    if (list) list.push(rec)
    else scopes.set(scope, [rec])
  }
  const main = convertEvents(scopes.get(MAIN) ?? [], keepRaw)
  if (main.drafts.length === 0) {
    importFailure(
      `no user or assistant messages found in the Copilot CLI log (${records.length} events read)`,
    )
  }
  const sidechains: Transcript[] = []
  let subEvents = 0
  for (const [scope, list] of scopes) {
    if (scope === MAIN) continue
    subEvents += list.length
    const c = convertEvents(list, keepRaw)
    if (c.drafts.length === 0) continue
    const key = scope.slice(scope.indexOf(':') + 1)
    const linked = callOfAgent.get(scope)
    const name = names.get(scope) ?? (linked === undefined ? undefined : names.get(linked))
    c.title = `Sub-agent ${name ?? key}`
    sidechains.push(toTranscript(c, []))
  }
  if (sidechains.length > 0) {
    warnings.push(
      `${subEvents} sub-agent event(s) are in ${sidechains.length} separate sub-agent ` +
        'transcript(s), not in the main line',
    )
  }
  const transcript = toTranscript(main, warnings)
  if (main.agentVersion !== undefined) transcript.agentVersion = main.agentVersion
  const branches = rewindBranches(rewound, transcript, transcript.warnings)
  if (branches.length > 0) transcript.branches = branches
  if (sidechains.length > 0) transcript.sidechains = sidechains
  return transcript
}

/**
 * A Copilot CLI event envelope: `type` (string), `data` (object), `id` (string) and a `parentId`
 * key (null on the first event). Source: session-events.ts, every event interface.
 */
const isEnvelope = (r: JsonObject) =>
  typeof r.type === 'string' && isObject(r.data) && typeof r.id === 'string' && 'parentId' in r

/**
 * Detection (first 50 records): every record is an event envelope (`isEnvelope`) and one of them
 * is a conversation event (`session.start`, `user.message`, `assistant.message`, tool
 * execution…). Claude Code records use `parentUuid`/`uuid`, Codex lines `payload`, so neither
 * matches.
 */
function detectCopilot(input: unknown): true | string {
  const head = (input as JsonlRecord[]).slice(0, 50)
  const first = head[0]
  if (!first) return 'no readable lines'
  const bad = head.find((r) => !isEnvelope(r.value))
  if (bad) return `line ${bad.line}: not a Copilot CLI event {type, data, id, parentId}`
  if (!head.some((r) => CONVERSATION_TYPES.has(r.value.type as string)))
    return `line ${first.line}: no session.start, user.message or assistant.message event`
  return true
}

/** The GitHub Copilot CLI session-log importer (registry entry). */
export const copilotCliImporter: FormatImporter<typeof format> = {
  id: format,
  label: 'GitHub Copilot CLI session (JSONL)',
  container: 'jsonl',
  priority: 4.2,
  requestFormat: null,
  description: 'GitHub Copilot CLI session log, ~/.copilot/session-state/<session>/events.jsonl',
  extensions: ['.jsonl'],
  detect: detectCopilot,
  closeness: (input) => {
    const head = (input as JsonlRecord[]).slice(0, 50)
    if (head.length === 0) return 0
    const keyed = head.filter((r) => 'parentId' in r.value && 'data' in r.value)
    return (0.9 * keyed.length) / head.length
  },
  importParsed: (input, options) => importCopilotRecords(input as JsonlRecord[], options.keepRaw),
}
