/*
 * OpenHands V1 (the software agent SDK, `OpenHands/software-agent-sdk`): a conversation is a list
 * of typed events `{kind, id, timestamp, source, …}` — one JSON file per event under `events/`
 * beside `base_state.json` on disk, a JSON array or JSONL when exported. The event kinds, their
 * fields and how they become the model's messages are the SDK's own
 * (`openhands-sdk/openhands/sdk/event/**`); docs/formats.md "OpenHands V1" lists them.
 */
import type { Part, SourceRef, ToolCall, ToolSchema, Transcript } from '../model'
import { importFailure } from './failure'
import type { FileBundle, ImportOptions } from './types'
import {
  finalizeTranscript,
  imageFromUrl,
  isObject,
  normalizeParts,
  resolveUsage,
  str,
  type DraftCompaction,
  type DraftMessage,
  type DraftUsage,
  type JsonObject,
} from './util'
import { quoteForMessage } from '../util/text'

const format = 'openhands' as const

/**
 * Event kinds that become the model's messages, and `Condensation` (a recorded compaction).
 * Source: `event/llm_convertible/*.py`, `event/condenser.py`.
 */
const V1_MESSAGE_KINDS = new Set([
  'SystemPromptEvent',
  'MessageEvent',
  'ActionEvent',
  'ObservationEvent',
  'UserRejectObservation',
  'AgentErrorEvent',
  'Condensation',
])

/**
 * Event kinds that never reach the model: state updates, pauses, streaming deltas, completion
 * logs, hook runs, condensation requests. Skipped silently. Source: the `Event` subclasses of
 * `event/*.py` that are not `LLMConvertibleEvent`.
 */
const V1_NOISE_KINDS = new Set([
  'ConversationStateUpdateEvent',
  'PauseEvent',
  'InterruptEvent',
  'CondensationRequest',
  'TokenEvent',
  'StreamingDeltaEvent',
  'LLMCompletionLogEvent',
  'HookExecutionEvent',
  'ConversationErrorEvent',
  'ACPToolCallEvent',
])

/** Whether a value is one V1 event: an object with a string `kind` and a string `id`. */
function isV1Event(e: unknown): e is JsonObject {
  return isObject(e) && typeof e.kind === 'string' && typeof e.id === 'string'
}

/**
 * Detection of a V1 event list: the first 50 items are objects with a string `kind`, a string
 * `id` and a `source`, and at least one kind makes a message (`MessageEvent`, `ActionEvent`, …).
 * `field` names the list in the mismatch (`items`, `line 3`). Source: `event/base.py` (`Event`).
 */
export function detectOpenHandsV1(list: readonly unknown[], field = 'items'): true | string {
  const head = list.slice(0, 50)
  if (head.length === 0) return 'the event list is empty'
  for (let i = 0; i < head.length; i++) {
    const e = head[i]
    if (!isObject(e)) return `${field}[${i}] is not an object`
    if (typeof e.kind !== 'string') return `${field}[${i}] has no string "kind"`
    if (typeof e.id !== 'string') return `${field}[${i}] has no string "id"`
    if (!('source' in e)) return `${field}[${i}] has no "source"`
  }
  if (!head.some((e) => isObject(e) && V1_MESSAGE_KINDS.has(e.kind as string)))
    return `no ${[...V1_MESSAGE_KINDS].slice(0, 4).join('/')} event`
  return true
}

/** Whether a list holds V1 events (its first object item has a string `kind` and `id`). */
export function looksLikeOpenHandsV1(list: readonly unknown[]): boolean {
  const first = list.find(isObject)
  return first !== undefined && isV1Event(first)
}

/**
 * SDK content items (`TextContent{type:"text", text}`, `ImageContent{type:"image",
 * image_urls[]}`) as canonical parts; other items opaque. Source: `llm/message.py`.
 */
function contentParts(list: unknown): Part[] {
  const out: Part[] = []
  for (const c of Array.isArray(list) ? list : []) {
    if (!isObject(c)) continue
    if (c.type === 'text') out.push({ type: 'text', text: str(c.text) ?? '' })
    else if (c.type === 'image' && Array.isArray(c.image_urls)) {
      for (const u of c.image_urls) if (typeof u === 'string') out.push(imageFromUrl(u))
    } else out.push({ type: 'opaque', kind: str(c.type) ?? 'unknown', raw: c })
  }
  return out
}

/**
 * Thinking the model returned with a message or action: `reasoning_content` (a reasoning part)
 * and Anthropic `thinking_blocks` (`thinking` with `signature`, `redacted_thinking` with `data`).
 */
function thinkingParts(o: JsonObject): Part[] {
  const out: Part[] = []
  const reasoning = str(o.reasoning_content)
  if (reasoning) out.push({ type: 'thinking', variant: 'reasoning', text: reasoning })
  for (const b of Array.isArray(o.thinking_blocks) ? o.thinking_blocks : []) {
    if (!isObject(b)) continue
    if (b.type === 'thinking') {
      const p: Part = { type: 'thinking', variant: 'thinking', text: str(b.thinking) ?? '' }
      const sig = str(b.signature)
      if (sig) p.signature = sig
      out.push(p)
    } else if (b.type === 'redacted_thinking')
      out.push({ type: 'thinking', variant: 'redacted_thinking', encrypted: str(b.data) ?? '' })
  }
  return out
}

/** An SDK `MessageToolCall{id, name, arguments(string)}` as a canonical call. */
function toolCall(c: unknown, fallbackId: string, fallbackName: string): ToolCall {
  const o = isObject(c) ? c : {}
  const args = o.arguments
  return {
    id: str(o.id) ?? fallbackId,
    name: str(o.name) ?? fallbackName,
    arguments: typeof args === 'string' ? args : args === undefined ? '' : JSON.stringify(args),
  }
}

/**
 * Tool schemas of a `SystemPromptEvent`'s `tools` (serialized `ToolDefinition`s: `title` is the
 * tool's name, `description`; the parameters are only named by `action_type`, so none are kept).
 * Source: `tool/tool.py` (`ToolDefinition`, `title` computed from the name).
 */
function systemTools(list: unknown): ToolSchema[] | undefined {
  if (!Array.isArray(list)) return undefined
  const out: ToolSchema[] = []
  for (const t of list) {
    if (!isObject(t)) continue
    const fn = isObject(t.function) ? t.function : t
    const name = str(fn.name) ?? str(fn.title) ?? str(t.kind)
    if (!name) continue
    const schema: ToolSchema = { name }
    if (typeof fn.description === 'string') schema.description = fn.description
    if (fn.parameters !== undefined) schema.parameters = fn.parameters
    out.push(schema)
  }
  return out
}

/**
 * One draft and the event ids it came from (a `Condensation` forgets events by id). Shared with
 * the V0 importer, whose event ids are numbers.
 */
export interface TrackedDraft<Id> {
  draft: DraftMessage
  events: Id[]
}

/**
 * Fills each recorded compaction's `keptMessageIds` (the transcript's `recordedCompactions[k]`
 * is `pending[k]`): the messages before it that are not its summary and whose events are not all
 * forgotten by it or an earlier condensation (what was forgotten stays forgotten). Kept ids are
 * final ids, known only after `finalizeTranscript`. Source: formats.md §4.10 and
 * `event/condenser.py` (`Condensation.apply`: the view is the events minus the forgotten ones).
 */
export function keepUnforgotten<Id>(
  transcript: Transcript,
  tracked: readonly TrackedDraft<Id>[],
  pending: readonly { draft: DraftCompaction; forgotten: ReadonlySet<Id> }[],
): void {
  const forgotten = new Set<Id>()
  pending.forEach((p, k) => {
    for (const ev of p.forgotten) forgotten.add(ev)
    const compaction = transcript.recordedCompactions[k]
    if (!compaction) return
    const kept: string[] = []
    for (let j = 0; j < p.draft.atIndex; j++) {
      const item = tracked[j]
      const m = transcript.messages[j]
      if (!item || !m || m.flags?.compactSummary) continue
      const gone = item.events.length > 0 && item.events.every((ev) => forgotten.has(ev))
      if (!gone) kept.push(m.id)
    }
    compaction.keptMessageIds = kept
  })
}

/** One LLM response's recorded usage (`TokenUsage` of `base_state.json`), by response id. */
export interface V1TokenUsage {
  /** `prompt_tokens`: the request's input tokens, cached ones included (litellm's count). */
  context: number
  /** `completion_tokens`. */
  output?: number
  /** `context_window`, when above 0. */
  window?: number
}

/**
 * The recorded usage of `base_state.json` by response id: every
 * `stats.usage_to_metrics.<usage id>.token_usages[{prompt_tokens, completion_tokens,
 * context_window, response_id}]` (the first entry of a response id wins). Source:
 * `conversation/conversation_stats.py`, `llm/utils/metrics.py` (`TokenUsage`),
 * `llm/utils/telemetry.py` (`_record_usage`: `prompt_tokens` as the provider reports it).
 */
export function v1UsageByResponse(baseState: unknown): Map<string, V1TokenUsage> {
  const out = new Map<string, V1TokenUsage>()
  const stats = isObject(baseState) && isObject(baseState.stats) ? baseState.stats : undefined
  const byUsage = stats && isObject(stats.usage_to_metrics) ? stats.usage_to_metrics : {}
  for (const metrics of Object.values(byUsage)) {
    if (!isObject(metrics) || !Array.isArray(metrics.token_usages)) continue
    for (const u of metrics.token_usages) {
      if (!isObject(u) || typeof u.response_id !== 'string' || u.response_id === '') continue
      if (out.has(u.response_id) || typeof u.prompt_tokens !== 'number') continue
      const entry: V1TokenUsage = { context: u.prompt_tokens }
      if (typeof u.completion_tokens === 'number') entry.output = u.completion_tokens
      if (typeof u.context_window === 'number' && u.context_window > 0)
        entry.window = u.context_window
      out.set(u.response_id, entry)
    }
  }
  return out
}

/** The `parent_id` the SDK writes for an explicit root. Source: `event/types.py` (`ROOT_PARENT_ID`). */
const ROOT_PARENT_ID = '__root__'

/**
 * Each event's parent as the SDK resolves it (`conversation/event_store.py`
 * `_effective_parent_id`): its `parent_id`, none for `__root__` or the first event, else the event
 * before it (events written before the tree). Indexed like `events`; non-events get none.
 */
function v1EffectiveParents(events: readonly unknown[]): (string | null)[] {
  return events.map((e, i) => {
    if (!isObject(e)) return null
    const parent = e.parent_id
    if (parent === ROOT_PARENT_ID) return null
    if (typeof parent === 'string') return parent
    const before = events[i - 1]
    return i > 0 && isObject(before) && typeof before.id === 'string' ? before.id : null
  })
}

/** The main line of a branched event list and the forks left off it. */
interface V1Branching {
  /** The events on the active branch, root first (all events when nothing forks). */
  events: unknown[]
  /** Each of those events' position in the whole list (its 0-based line). */
  positions: number[]
  /** Each fork off the main line: its first event and the main-line event it hangs from. */
  forks: { first: JsonObject; parentId: string | null; events: JsonObject[] }[]
}

/**
 * The active branch of a V1 event list (`event_store.py` `path_to_root` from the leaf): when any
 * event has a `parent_id`, the chain from `leafEventId` (`base_state.json`), else from the last
 * event, back to the root by `v1EffectiveParents`; the other events are grouped into forks by
 * the first event off the chain. A missing parent or a cycle keeps the file order (no forks).
 */
function activeBranch(events: readonly unknown[], leafEventId?: string): V1Branching {
  const all = { events: [...events], positions: events.map((_, i) => i), forks: [] }
  if (!events.some((e) => isObject(e) && typeof e.parent_id === 'string')) return all
  const parents = v1EffectiveParents(events)
  const index = new Map<string, number>()
  events.forEach((e, i) => {
    if (isV1Event(e)) index.set(e.id as string, i)
  })
  let cur: number | undefined =
    leafEventId !== undefined && index.has(leafEventId) ? index.get(leafEventId) : events.length - 1
  const onPath = new Set<number>()
  while (cur !== undefined) {
    if (onPath.has(cur)) return all
    onPath.add(cur)
    const parent = parents[cur]
    if (parent === null || parent === undefined) break
    cur = index.get(parent)
    if (cur === undefined) return all
  }
  const forkOf = new Map<number, number>()
  const forks: V1Branching['forks'] = []
  events.forEach((e, i) => {
    if (onPath.has(i) || !isV1Event(e)) return
    const parent = parents[i] ?? null
    const p = parent === null ? undefined : index.get(parent)
    const inFork = p === undefined ? undefined : forkOf.get(p)
    if (inFork !== undefined) {
      forkOf.set(i, inFork)
      forks[inFork]?.events.push(e)
      return
    }
    forkOf.set(i, forks.length)
    forks.push({ first: e, parentId: parent, events: [e] })
  })
  const positions = events.flatMap((_, i) => (onPath.has(i) ? [i] : []))
  return { events: positions.map((i) => events[i]), positions, forks }
}

/** First text a fork's events carry (a message's text, else an action's thought), for a picker. */
function forkText(events: readonly JsonObject[]): string {
  for (const e of events) {
    const m = isObject(e.llm_message) ? e.llm_message : undefined
    const parts = [...contentParts(m?.content), ...contentParts(e.thought)]
    const text = parts.find((p) => p.type === 'text' && p.text !== '')
    if (text && text.type === 'text') return [...text.text].slice(0, 120).join('')
  }
  return ''
}

/** What an import of V1 events may know from beside them (`base_state.json`). */
export interface V1Context {
  /** Recorded usage by response id (`v1UsageByResponse`). */
  usage?: ReadonlyMap<string, V1TokenUsage>
  /** `leaf_event_id`: the newest event of the active branch. */
  leafEventId?: string
}

/**
 * Imports a list of V1 events (file order = stream order). Mapping (`event/base.py`
 * `events_to_messages`, each event's `to_llm_message`):
 * - `SystemPromptEvent` → system message (`system_prompt.text`, then `dynamic_context.text`); its
 *   `tools` the tool schemas.
 * - `MessageEvent` → a message of `llm_message.role` (`content` text/image items plus
 *   `extended_content`; `reasoning_content` / `thinking_blocks` as thinking; `tool_calls` kept).
 * - `ActionEvent` → one tool call (`tool_call{id, name, arguments}`, else `tool_call_id` /
 *   `tool_name`); consecutive actions sharing one `llm_response_id` (parallel calls) are one
 *   assistant message whose text is the first action's `thought` and thinking its
 *   `reasoning_content` / `thinking_blocks`.
 * - `ObservationEvent` → tool message (`observation.content` plus `extended_content`,
 *   `observation.is_error` → error); `UserRejectObservation` → tool message "Action rejected:
 *   <rejection_reason>" (error); `AgentErrorEvent` → tool message with its `error` (error). All
 *   pair on `tool_call_id`.
 * - `Condensation` → a user message with `summary` (flagged `compactSummary`, as the SDK inserts
 *   it into the view) and a `RecordedCompaction` whose kept messages are the earlier ones not in
 *   `forgotten_event_ids`; without a summary, only the compaction.
 * - state updates, pauses, streaming deltas, … are skipped; an unknown kind or an item that is
 *   not an event is skipped with one counted warning per kind.
 * Message ids are the event ids. `context.usage` (by `llm_response_id`, `v1UsageByResponse`)
 * becomes the transcript's recorded usage at the first message of each response. When events
 * carry `parent_id` (the SDK's conversation tree), only the active branch is imported
 * (`activeBranch`, from `context.leafEventId`) and each fork off it is listed in `branches`
 * with a warning. Throws `ImportFailure` when no event makes a message. Never modifies the events.
 */
export function importOpenHandsV1Events(
  allEvents: readonly unknown[],
  options: ImportOptions = {},
  context: V1Context = {},
): Transcript {
  const keepRaw = options.keepRaw ?? true
  const usage = context.usage ?? new Map<string, V1TokenUsage>()
  const branching = activeBranch(allEvents, context.leafEventId)
  const events = branching.events
  const tracked: TrackedDraft<string>[] = []
  const pending: { draft: DraftCompaction; forgotten: Set<string> }[] = []
  const warnings: string[] = []
  const skipped = new Map<string, number>()
  const toolNames = new Map<string, string>()
  const drafts: DraftUsage[] = []
  const usedResponses = new Set<string>()
  let tools: ToolSchema[] | undefined
  // The assistant message the next action of the same response joins.
  let open: { responseId: string; item: TrackedDraft<string> } | null = null

  const source = (i: number, raw: unknown): SourceRef => {
    const s: SourceRef = { format, line: (branching.positions[i] ?? i) + 1 }
    if (keepRaw) s.raw = raw
    return s
  }
  const push = (draft: DraftMessage, eventId: string, responseId?: string) => {
    const item: TrackedDraft<string> = { draft, events: [eventId] }
    tracked.push(item)
    open = null
    if (responseId !== undefined && !usedResponses.has(responseId)) {
      usedResponses.add(responseId)
      const u = usage.get(responseId)
      if (u) drafts.push({ atIndex: tracked.length - 1, ...u })
    }
    return item
  }
  const skip = (kind: string) => skipped.set(kind, (skipped.get(kind) ?? 0) + 1)
  const toolResult = (i: number, e: JsonObject, content: string | Part[], isError: boolean) => {
    const callId = str(e.tool_call_id) ?? ''
    const d: DraftMessage = { id: str(e.id) ?? '', role: 'tool', content, toolCallId: callId, source: source(i, e) }
    const name = toolNames.get(callId) ?? str(e.tool_name)
    if (name !== undefined) d.toolName = name
    if (isError) d.isError = true
    if (!toolNames.has(callId))
      warnings.push(`items[${i}]: ${String(e.kind)} answers unknown call ${quoteForMessage(callId)}`)
    push(d, str(e.id) ?? '')
  }

  events.forEach((e, i) => {
    if (!isV1Event(e)) {
      skip('item that is not an event (no string kind and id)')
      return
    }
    const kind = e.kind as string
    const id = e.id as string
    if (V1_NOISE_KINDS.has(kind)) return
    switch (kind) {
      case 'SystemPromptEvent': {
        const parts = [e.system_prompt, e.dynamic_context]
          .map((c) => (isObject(c) ? str(c.text) : undefined))
          .filter((t): t is string => t !== undefined && t !== '')
        push({ id, role: 'system', content: parts.join('\n\n'), source: source(i, e) }, id)
        tools ??= systemTools(e.tools)
        return
      }
      case 'MessageEvent': {
        const m = isObject(e.llm_message) ? e.llm_message : {}
        const role = m.role === 'assistant' || m.role === 'system' || m.role === 'tool' ? m.role : 'user'
        const parts = [...thinkingParts(m), ...contentParts(m.content), ...contentParts(e.extended_content)]
        const d: DraftMessage = { id, role, content: normalizeParts(parts, ''), source: source(i, e) }
        if (role === 'tool') {
          d.toolCallId = str(m.tool_call_id) ?? ''
          const name = toolNames.get(d.toolCallId) ?? str(m.name)
          if (name !== undefined) d.toolName = name
        }
        const calls = Array.isArray(m.tool_calls) ? m.tool_calls.map((c, k) => toolCall(c, `${id}-${k}`, '')) : []
        for (const c of calls) toolNames.set(c.id, c.name)
        if (calls.length > 0) d.toolCalls = calls
        push(d, id, role === 'assistant' ? str(e.llm_response_id) : undefined)
        return
      }
      case 'ActionEvent': {
        const call = toolCall(e.tool_call, str(e.tool_call_id) ?? id, str(e.tool_name) ?? '')
        toolNames.set(call.id, call.name)
        const rid = str(e.llm_response_id)
        const current: { responseId: string; item: TrackedDraft<string> } | null = open
        if (current && rid !== undefined && current.responseId === rid) {
          current.item.draft.toolCalls = [...(current.item.draft.toolCalls ?? []), call]
          current.item.events.push(id)
          if (keepRaw) {
            const raw = current.item.draft.source.raw
            current.item.draft.source.raw = Array.isArray(raw) ? [...(raw as unknown[]), e] : [raw, e]
          }
          return
        }
        const parts = [...thinkingParts(e), ...contentParts(e.thought)]
        const item = push(
          { id, role: 'assistant', content: normalizeParts(parts, ''), toolCalls: [call], source: source(i, e) },
          id,
          rid,
        )
        if (rid !== undefined) open = { responseId: rid, item }
        return
      }
      case 'ObservationEvent': {
        const obs = isObject(e.observation) ? e.observation : {}
        const parts = [...contentParts(obs.content), ...contentParts(e.extended_content)]
        toolResult(i, e, normalizeParts(parts, '') ?? '', obs.is_error === true)
        return
      }
      case 'UserRejectObservation':
        toolResult(i, e, `Action rejected: ${str(e.rejection_reason) ?? 'User rejected the action'}`, true)
        return
      case 'AgentErrorEvent':
        toolResult(i, e, str(e.error) ?? '', true)
        return
      case 'Condensation': {
        const summary = str(e.summary) ?? null
        const draft: DraftCompaction = { atIndex: tracked.length, summaryText: summary, source: format }
        if (summary !== null) {
          draft.summaryIndex = tracked.length
          push(
            { id, role: 'user', content: summary, flags: { compactSummary: true }, source: source(i, e) },
            id,
          )
        }
        const forgotten = new Set<string>()
        for (const f of Array.isArray(e.forgotten_event_ids) ? e.forgotten_event_ids : [])
          if (typeof f === 'string') forgotten.add(f)
        pending.push({ draft, forgotten })
        return
      }
      default:
        skip(`${quoteForMessage(kind)} event`)
    }
  })

  for (const [kind, n] of skipped) warnings.push(`${n} ${kind}(s) skipped`)
  if (tracked.length === 0) importFailure('no conversational OpenHands events found', { field: 'items' })
  const transcript = finalizeTranscript(
    format,
    tracked.map((t) => t.draft),
    pending.map((p) => p.draft),
    warnings,
    tools ? { tools } : {},
  )
  keepUnforgotten(transcript, tracked, pending)
  const recorded = resolveUsage(transcript.messages, drafts)
  if (recorded) transcript.usage = recorded
  if (branching.forks.length > 0) {
    const messageIds = new Set(transcript.messages.map((m) => m.id))
    transcript.branches = branching.forks.map((f) => ({
      id: f.first.id as string,
      fromMessageId: f.parentId !== null && messageIds.has(f.parentId) ? f.parentId : null,
      messageCount: f.events.filter((e) => V1_MESSAGE_KINDS.has(e.kind as string)).length,
      firstText: forkText(f.events),
    }))
    const off = branching.forks.reduce((n, f) => n + f.events.length, 0)
    transcript.warnings.push(
      `${branching.forks.length} branch(es) off the active one (${off} events) are not on the main line`,
    )
  }
  return transcript
}

/** An event file of a V1 conversation folder: `events/event-<index>-<event id>.json`. */
const EVENT_FILE = /(^|\/)events\/event-(\d{5,})-[0-9a-fA-F-]{8,}\.json$/

/** The V1 conversation state file beside `events/`. Source: `conversation/persistence_const.py`. */
const BASE_STATE = 'base_state.json'

/** Whether a bundle holds V1 conversation event files (`events/event-<n>-<id>.json`). */
export function isOpenHandsV1Bundle(names: readonly string[]): boolean {
  return names.some((n) => EVENT_FILE.test(n))
}

/** What a V1 conversation bundle is looked for by, for the error about a bundle no format reads. */
export const OPENHANDS_V1_BUNDLE_NAMES = `${BASE_STATE} + events/event-<n>-<id>.json`

/**
 * Imports V1 conversation folders (a folder or zip holding `base_state.json` and
 * `events/event-<index>-<event id>.json` per event, possibly under a folder per conversation):
 * each conversation's events in index order through `importOpenHandsV1Events`, with the usage
 * of its `base_state.json` (`v1UsageByResponse`) and its folder (or `base_state.json` `id`) as
 * title. Several conversations come back as a list (the first open, `conversations`); an empty
 * or unreadable event file is skipped with a warning naming it. Source:
 * `conversation/persistence_const.py` (`EVENT_NAME_RE`, `BASE_STATE`), `conversation/event_store.py`.
 */
export function importOpenHandsV1Bundle(
  bundle: FileBundle,
  options: ImportOptions,
  conversations: (list: Transcript[]) => Transcript,
): Transcript {
  const byFolder = new Map<string, { index: number; name: string }[]>()
  for (const e of bundle.entries) {
    const m = EVENT_FILE.exec(e.name)
    if (!m) continue
    const folder = e.name.slice(0, e.name.length - m[0].length + (m[1] ?? '').length)
    const list = byFolder.get(folder) ?? []
    list.push({ index: Number(m[2]), name: e.name })
    byFolder.set(folder, list)
  }
  const out: Transcript[] = []
  let firstError: string | undefined
  for (const [folder, files] of byFolder) {
    files.sort((a, b) => a.index - b.index)
    const stateName = `${folder}${BASE_STATE}`
    const data = bundle.read([stateName, ...files.map((f) => f.name)])
    const stateBytes = data.get(stateName)
    const state = stateBytes ? bundle.json(stateName, stateBytes) : undefined
    const warnings: string[] = []
    const events: unknown[] = []
    for (const f of files) {
      const bytes = data.get(f.name)
      if (!bytes || bytes.length === 0) {
        warnings.push(`${f.name}: empty, skipped`)
        continue
      }
      events.push(bundle.json(f.name, bytes))
    }
    let t: Transcript
    try {
      const leaf = isObject(state) ? str(state.leaf_event_id) : undefined
      t = importOpenHandsV1Events(events, options, {
        usage: v1UsageByResponse(state),
        ...(leaf ? { leafEventId: leaf } : {}),
      })
    } catch (e) {
      firstError ??= `${folder || 'events/'}: ${e instanceof Error ? e.message : String(e)}`
      continue
    }
    const name = folder.replace(/\/$/, '').split('/').pop()
    const title = name || (isObject(state) ? str(state.id) : undefined)
    if (!stateBytes) warnings.push(`${stateName}: not in the bundle, so no recorded usage`)
    out.push({ ...t, ...(title ? { title } : {}), warnings: [...warnings, ...t.warnings] })
  }
  if (out.length === 0) importFailure(firstError ?? 'no OpenHands event files found', { field: 'events/' })
  return out.length === 1 ? (out[0] as Transcript) : conversations(out)
}
