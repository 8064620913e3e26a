import type { Part, SourceRef, ToolCall, ToolSchema, Transcript } from '../model'
import { ImportFailure, importFailure } from './failure'
import type { JsonlRecord } from './json'
import {
  detectOpenHandsV1,
  importOpenHandsV1Bundle,
  importOpenHandsV1Events,
  isOpenHandsV1Bundle,
  keepUnforgotten,
  looksLikeOpenHandsV1,
  OPENHANDS_V1_BUNDLE_NAMES,
  type TrackedDraft,
} from './openhands-v1'
import type { FormatImporter, ImportOptions } from './types'
import {
  arrayOrWrapped,
  capWarnings,
  finalizeTranscript,
  imageFromUrl,
  isObject,
  normalizeParts,
  str,
  type DraftCompaction,
  type DraftMessage,
  type JsonObject,
  withConversations,
} from './util'
import { codePointLength, cutCodePoints, firstLine, oneLine, quoteForMessage } from '../util/text'

const format = 'openhands'

/**
 * Events that never reach the model's context as such: agent state bookkeeping, no-ops,
 * condensation requests, and the `recall` action (its observation is read apart:
 * `recallText`). Skipped silently. Source: formats.md §4.10 pitfalls.
 */
const NOISE = new Set([
  'agent_state_changed',
  'change_agent_state',
  'recall',
  'null',
  'condensation_request',
  'agent_condensation',
])

/** Action `args` that are OpenHands bookkeeping, not what the model asked for. */
const BOOKKEEPING_ARGS = new Set([
  'thought',
  'is_input',
  'blocking',
  'is_static',
  'cwd',
  'hidden',
  'confirmation_state',
  'security_risk',
  'impl_source',
])

/**
 * Keys of a serialized event that are the event's own, not its action's or observation's fields
 * (`openhands/events/serialization/event.py` `TOP_KEYS`).
 */
const TOP_KEYS = new Set([
  'id',
  'timestamp',
  'source',
  'message',
  'cause',
  'action',
  'observation',
  'tool_call_metadata',
  'llm_metrics',
])

/**
 * The fields of an action (`args`) or observation (`extras`). The resolver's `history` holds
 * `dataclasses.asdict(event)` instead: the fields sit on the event itself (no `args`/`extras`,
 * no id, source or cause), so then they are the event's keys other than `TOP_KEYS`.
 */
function eventFields(e: JsonObject, key: 'args' | 'extras'): JsonObject {
  const nested = e[key]
  if (isObject(nested)) return nested
  if (key in e) return {}
  const out: JsonObject = {}
  for (const [k, v] of Object.entries(e)) if (!TOP_KEYS.has(k)) out[k] = v
  return out
}

/** The event list of a root: a bare array, or the `{events:[…]}` wrapper. */
function eventList(root: unknown): unknown[] | undefined {
  return arrayOrWrapped(root, 'events')
}

/**
 * Detection (formats.md §2 item 7): an array whose first 50 objects all have `action` or
 * `observation` plus `source`, and at least one has a numeric `id` (V0 events); or V1 events
 * (`{kind, id, source}`, `detectOpenHandsV1`). Returns the first mismatch naming the item
 * otherwise.
 */
export function detectOpenHands(root: unknown): true | string {
  const list = eventList(root)
  if (!list) return 'not an array of OpenHands events'
  if (looksLikeOpenHandsV1(list)) return detectOpenHandsV1(list)
  const head = list.slice(0, 50)
  if (head.length === 0) return 'the event array is empty'
  for (let i = 0; i < head.length; i++) {
    const e = head[i]
    if (!isObject(e)) return `items[${i}] is not an object`
    if (!('action' in e) && !('observation' in e))
      return `items[${i}] has neither "action" nor "observation"`
    if (!('source' in e)) return `items[${i}] has no "source"`
  }
  if (!head.some((e) => isObject(e) && typeof e.id === 'number'))
    return 'no event has a numeric "id"'
  return true
}

/** The assistant message of a `tool_call_metadata.model_response` (`choices[0].message`). */
function responseMessage(meta: JsonObject): JsonObject | undefined {
  const response = isObject(meta.model_response) ? meta.model_response : undefined
  const choices = response && Array.isArray(response.choices) ? response.choices : []
  const first = choices[0]
  return isObject(first) && isObject(first.message) ? first.message : undefined
}

/** The response id that groups parallel calls (`model_response.id`), if any. */
function responseId(meta: JsonObject): string | undefined {
  return isObject(meta.model_response) ? str(meta.model_response.id) : undefined
}

/**
 * The call's arguments as JSON text: exactly what the model sent (the matching
 * `model_response` tool call's `function.arguments`), else the action's `args` without
 * OpenHands bookkeeping (`thought`, `hidden`, …).
 */
function callArguments(meta: JsonObject, callId: string, args: JsonObject): string {
  const message = responseMessage(meta)
  const calls = message && Array.isArray(message.tool_calls) ? message.tool_calls : []
  for (const c of calls) {
    if (isObject(c) && c.id === callId && isObject(c.function)) {
      const a = c.function.arguments
      if (typeof a === 'string') return a
      if (a !== undefined) return JSON.stringify(a)
    }
  }
  const rest: JsonObject = {}
  for (const [k, v] of Object.entries(args)) if (!BOOKKEEPING_ARGS.has(k)) rest[k] = v
  return JSON.stringify(rest)
}

/** Text of the model's reply for a tool-calling response: its own content, else the `thought`. */
function assistantText(meta: JsonObject, args: JsonObject): string {
  const message = responseMessage(meta)
  const content = message?.content
  if (typeof content === 'string' && content !== '') return content
  if (Array.isArray(content)) {
    const text = content
      .map((b) => (isObject(b) && typeof b.text === 'string' ? b.text : ''))
      .filter((t) => t !== '')
      .join('\n')
    if (text !== '') return text
  }
  return str(args.thought) ?? ''
}

/** A user/agent `message` action's content: text plus `image_urls` as image parts. */
function messageContent(args: JsonObject, fallback: string): string | Part[] {
  const text = str(args.content) ?? fallback
  const images = Array.isArray(args.image_urls)
    ? args.image_urls.filter((u) => typeof u === 'string')
    : []
  if (images.length === 0) return text
  const parts: Part[] = text === '' ? [] : [{ type: 'text', text }]
  for (const url of images) parts.push(imageFromUrl(url as string))
  return normalizeParts(parts, '') as string | Part[]
}

/** Tool schemas from the `system` action's `args.tools` (OpenAI function-tool shape). */
function systemTools(args: JsonObject): ToolSchema[] | undefined {
  if (!Array.isArray(args.tools)) return undefined
  const out: ToolSchema[] = []
  for (const t of args.tools) {
    const fn = isObject(t) && isObject(t.function) ? t.function : undefined
    if (!fn || typeof fn.name !== 'string') continue
    const schema: ToolSchema = { name: fn.name }
    if (typeof fn.description === 'string') schema.description = fn.description
    if (fn.parameters !== undefined) schema.parameters = fn.parameters
    out.push(schema)
  }
  return out
}

/** Event ids a `condensation` action forgets: the explicit list, else the inclusive range. */
function forgottenIds(args: JsonObject): Set<number> {
  const out = new Set<number>()
  const list = args.forgotten_event_ids ?? args.pruned_event_ids
  if (Array.isArray(list)) for (const id of list) if (typeof id === 'number') out.add(id)
  const start = args.forgotten_events_start_id ?? args.pruned_events_start_id
  const end = args.forgotten_events_end_id ?? args.pruned_events_end_id
  if (typeof start === 'number' && typeof end === 'number' && end - start < 1_000_000)
    for (let id = start; id <= end; id++) out.add(id)
  return out
}

/** Actions that are never tool calls: they make messages of their own, or none. */
const NOT_CALLS = new Set(['message', 'finish', 'system', 'condensation'])

/** Whether an event is an agent action without `tool_call_metadata` that could be a call. */
function toolLessAction(e: unknown): e is JsonObject & { action: string } {
  if (!isObject(e) || typeof e.action !== 'string') return false
  if (NOISE.has(e.action) || NOT_CALLS.has(e.action) || e.source === 'user') return false
  return !(isObject(e.tool_call_metadata) && typeof e.tool_call_metadata.tool_call_id === 'string')
}

/**
 * Whether an observation of this kind can answer an action of that kind: the same name
 * (`run`, `edit`, `read`, `run_ipython`, …; `browse` answers `browse_interactive` too), and an
 * `error` or `user_rejected` answers any action.
 */
function answersKind(observation: string, action: string): boolean {
  if (observation === action || observation === 'error' || observation === 'user_rejected')
    return true
  return observation === 'browse' && action === 'browse_interactive'
}

/**
 * Which tool-less agent action each observation answers (observation index → action index):
 * the action its numeric `cause` names; an observation with no `cause` and no metadata (the
 * resolver's dataclass-fields history) answers the earliest unanswered action before it whose
 * kind it answers (`answersKind`), as OpenHands runs one action at a time. Recall, `null` and
 * state-change observations answer nothing. Source: formats.md §4.10.
 */
function pairToolLessActions(list: readonly unknown[]): Map<number, number> {
  const pairs = new Map<number, number>()
  const byId = new Map<number, number>()
  const waiting: number[] = []
  list.forEach((e, i) => {
    if (toolLessAction(e)) {
      if (typeof e.id === 'number') byId.set(e.id, i)
      waiting.push(i)
      return
    }
    if (!isObject(e) || typeof e.observation !== 'string') return
    if (NOISE.has(e.observation) || e.observation === 'recall') return
    if (isObject(e.tool_call_metadata)) return
    let at: number | undefined
    if (typeof e.cause === 'number') at = byId.get(e.cause)
    else if (!('cause' in e)) {
      const kind = e.observation
      at = waiting.find((j) => answersKind(kind, (list[j] as { action: string }).action))
    }
    const w = at === undefined ? -1 : waiting.indexOf(at)
    if (at === undefined || w < 0) return
    waiting.splice(w, 1)
    pairs.set(i, at)
  })
  return pairs
}

/**
 * The text OpenHands adds to the model's context for a `recall` observation (its
 * `conversation_memory.py` makes it one user message): for `workspace_context` the repository
 * (`repo_name`, `repo_directory`), `repo_instructions`, and runtime information (`runtime_hosts`,
 * `additional_agent_instructions`, `conversation_instructions`, `custom_secrets_descriptions`,
 * `date`), then every `microagent_knowledge` entry `{name, trigger, content}` with content; for
 * `knowledge` the entries whose `name` no earlier recall observation had (`seen`, updated). The
 * sections carry the tags of OpenHands' prompt templates; the wording inside is ours (the log has
 * the fields, not the rendered text). Empty when there is nothing to add (OpenHands then adds no
 * message).
 */
function recallText(fields: JsonObject, seen: Set<string>): string {
  const sections: string[] = []
  const section = (tag: string, lines: string[]) => {
    if (lines.length > 0) sections.push(`<${tag}>\n${lines.join('\n')}\n</${tag}>`)
  }
  const text = (v: unknown) => (typeof v === 'string' ? v.trim() : '')
  const knowledge = Array.isArray(fields.microagent_knowledge)
    ? fields.microagent_knowledge.filter(isObject)
    : []
  const fresh =
    fields.recall_type === 'knowledge'
      ? knowledge.filter((k) => !(typeof k.name === 'string' && seen.has(k.name)))
      : knowledge
  for (const k of knowledge) if (typeof k.name === 'string') seen.add(k.name)
  if (fields.recall_type !== 'knowledge') {
    const repo = text(fields.repo_name)
    const dir = text(fields.repo_directory)
    if (repo !== '' || dir !== '') section('REPOSITORY_INFO', [`Repository ${repo} in ${dir}`])
    const instructions = text(fields.repo_instructions)
    if (instructions !== '') section('REPOSITORY_INSTRUCTIONS', [instructions])
    const runtime: string[] = []
    const hosts = isObject(fields.runtime_hosts) ? Object.entries(fields.runtime_hosts) : []
    if (hosts.length > 0)
      runtime.push(`Hosts: ${hosts.map(([h, p]) => `${h} (port ${String(p)})`).join(', ')}`)
    for (const key of ['additional_agent_instructions', 'conversation_instructions']) {
      const t = text(fields[key])
      if (t !== '') runtime.push(t)
    }
    const secrets = isObject(fields.custom_secrets_descriptions)
      ? Object.entries(fields.custom_secrets_descriptions)
      : []
    for (const [name, about] of secrets) runtime.push(`Secret $${name}: ${text(about)}`)
    const date = text(fields.date)
    if (date !== '') runtime.push(`Date: ${date}`)
    section('RUNTIME_INFORMATION', runtime)
  }
  for (const k of fresh) {
    const content = text(k.content)
    if (content === '') continue
    const name = text(k.name)
    const trigger = text(k.trigger)
    const head = trigger !== '' ? `Keyword "${trigger}"${name !== '' ? ` (${name})` : ''}` : name
    section('EXTRA_INFO', head === '' ? [content] : [head, '', content])
  }
  return sections.join('\n')
}

/**
 * The synthetic call id of a pre-function-calling action: `openhands-action-<event id>`, or
 * `openhands-action-item-<index in the list>` when the event has no id (resolver history).
 */
function legacyCallId(eventId: number | undefined, index: number): string {
  return eventId === undefined ? `openhands-action-item-${index}` : `openhands-action-${eventId}`
}

/** A draft plus the event ids it came from (for condensation's forgotten ids). */
type Tracked = TrackedDraft<number>

/**
 * Imports an OpenHands event stream (an array of events, or `{events:[…]}`). Mapping (formats.md
 * §3, §4.10):
 * - `system` action → system message (`args.content`); its `args.tools` become the tool schemas.
 * - `message` action → user (`source:"user"`) or assistant message; `image_urls` as images.
 *   Without `source` (the resolver's dataclass-fields history, where every field sits on the event
 *   itself: `eventFields`), the agent's messages are those with `wait_for_response: true`.
 * - agent actions with `tool_call_metadata` → one tool call each (`tool_call_id`, `function_name`,
 *   arguments as the model sent them in `model_response`, else `args` without bookkeeping); calls
 *   sharing one `model_response.id` are grouped into one assistant message whose text is the
 *   model's content (else the first action's `thought`), also when OpenHands interleaved their
 *   observations.
 * - `finish` without metadata → assistant text (`final_thought`, else `thought`, else `message`).
 * - other agent actions without metadata (OpenHands before function calling: the model wrote the
 *   action as text, and only `args` + the observation's `cause` record it) that an observation
 *   answers (`pairToolLessActions`: by `cause`, else the next observation of its kind) → an
 *   assistant message with `args.thought` as text and the action as one tool call: id
 *   `openhands-action-<event id>` or `openhands-action-item-<index>` (synthetic), name the
 *   `action` (`run`, `read`, `write`, …), arguments `args` without bookkeeping — so the
 *   observation is its tool result and pruning sees a call/result pair.
 * - observations answering a call (`tool_call_metadata.tool_call_id`, else the action paired
 *   above, else `cause` → the action's call) → tool messages, `isError` when `success:false` or
 *   `observation:"error"`; other observations with content (errors the runtime reports) → user
 *   messages flagged `injected`.
 * - `condensation` → a user message with the `summary` (flagged `compactSummary`, as OpenHands
 *   shows the model an `AgentCondensationObservation`) and a `RecordedCompaction` at it whose
 *   `keptMessageIds` are the earlier messages not among `forgotten_event_ids` / the
 *   `forgotten_events_start_id`…`end_id` range; without a summary, only the compaction.
 * - a `recall` observation → a user message flagged `injected` with what OpenHands adds to the
 *   model's context (`recallText`), none when that is empty.
 * - `agent_state_changed`, the `recall` action, `null`, `change_agent_state`, … are skipped;
 *   other actions without a tool call (no metadata and no observation answering them, or
 *   `source:"user"`) are skipped with one counted warning per kind.
 * Message ids are `event-<id>` (none when the event has no id). Never modifies `root`; throws
 * an ImportError-shaped object when there is no event list.
 */
export function importOpenHandsRoot(root: unknown, options: ImportOptions = {}): Transcript {
  const keepRaw = options.keepRaw ?? true
  const list = eventList(root)
  if (!list) importFailure('expected an array of OpenHands events', { field: 'items' })
  const tracked: Tracked[] = []
  const pendingCompactions: { draft: DraftCompaction; forgotten: Set<number> }[] = []
  const warnings: string[] = []
  const skipped = new Map<string, number>()
  const callOfAction = new Map<number, string>()
  const toolNames = new Map<string, string>()
  let tools: ToolSchema[] | undefined
  // The assistant message the next call of the same model response joins.
  let open: { responseId: string; item: Tracked } | null = null

  const source = (i: number, raw: unknown): SourceRef => {
    const s: SourceRef = { format, line: i + 1 }
    if (keepRaw) s.raw = raw
    return s
  }
  const push = (draft: DraftMessage, eventId: number | undefined): Tracked => {
    const item: Tracked = { draft, events: eventId === undefined ? [] : [eventId] }
    tracked.push(item)
    if (draft.role !== 'tool') open = null
    return item
  }
  const skip = (kind: string) => skipped.set(kind, (skipped.get(kind) ?? 0) + 1)
  const pairs = pairToolLessActions(list)
  const answered = new Set(pairs.values())
  const callOfIndex = new Map<number, string>()
  const seenMicroagents = new Set<string>()

  list.forEach((e, i) => {
    if (!isObject(e)) {
      warnings.push(`items[${i}]: not an object, skipped`)
      return
    }
    const eventId = typeof e.id === 'number' ? e.id : undefined
    const id = eventId === undefined ? '' : `event-${eventId}`
    const args = eventFields(e, 'args')
    const meta = isObject(e.tool_call_metadata) ? e.tool_call_metadata : undefined
    const message = str(e.message) ?? ''

    if (typeof e.action === 'string') {
      const action = e.action
      if (NOISE.has(action)) return
      if (action === 'system') {
        const content = str(args.content) ?? message
        push({ id, role: 'system', content, source: source(i, e) }, eventId)
        tools ??= systemTools(args)
        return
      }
      if (action === 'condensation') {
        const summary = str(args.summary) ?? null
        const draft: DraftCompaction = {
          atIndex: tracked.length,
          summaryText: summary,
          source: format,
        }
        if (summary !== null) {
          draft.summaryIndex = tracked.length
          push(
            {
              id,
              role: 'user',
              content: summary,
              flags: { compactSummary: true },
              source: source(i, e),
            },
            eventId,
          )
        }
        pendingCompactions.push({ draft, forgotten: forgottenIds(args) })
        return
      }
      if (meta && typeof meta.tool_call_id === 'string') {
        const callId = meta.tool_call_id
        const name = str(meta.function_name) ?? action
        const call: ToolCall = { id: callId, name, arguments: callArguments(meta, callId, args) }
        if (eventId !== undefined) callOfAction.set(eventId, callId)
        toolNames.set(callId, name)
        const rid = responseId(meta)
        const current: { responseId: string; item: Tracked } | null = open
        if (current && rid !== undefined && current.responseId === rid) {
          current.item.draft.toolCalls = [...(current.item.draft.toolCalls ?? []), call]
          if (eventId !== undefined) current.item.events.push(eventId)
          if (keepRaw) {
            const raw = current.item.draft.source.raw
            current.item.draft.source.raw = Array.isArray(raw)
              ? [...(raw as unknown[]), e]
              : [raw, e]
          }
          return
        }
        const item = push(
          {
            id,
            role: 'assistant',
            content: assistantText(meta, args),
            toolCalls: [call],
            source: source(i, e),
          },
          eventId,
        )
        if (rid !== undefined) open = { responseId: rid, item }
        return
      }
      if (action === 'message') {
        // Without `source` (resolver history), only the agent's messages wait for a response.
        const fromUser = 'source' in e ? e.source === 'user' : args.wait_for_response !== true
        const role = fromUser ? 'user' : 'assistant'
        push({ id, role, content: messageContent(args, message), source: source(i, e) }, eventId)
        return
      }
      if (action === 'finish') {
        const text = str(args.final_thought) || str(args.thought) || message
        push({ id, role: 'assistant', content: text, source: source(i, e) }, eventId)
        return
      }
      if (answered.has(i)) {
        // Before function calling the model wrote the action as text (and the resolver's history
        // drops the metadata); it is kept as a call under a synthetic id, answered by the
        // observation `pairToolLessActions` found for it.
        const callId = legacyCallId(eventId, i)
        callOfIndex.set(i, callId)
        const rest: JsonObject = {}
        for (const [k, v] of Object.entries(args)) if (!BOOKKEEPING_ARGS.has(k)) rest[k] = v
        const call: ToolCall = { id: callId, name: action, arguments: JSON.stringify(rest) }
        if (eventId !== undefined) callOfAction.set(eventId, callId)
        toolNames.set(callId, action)
        const content = str(args.thought) ?? ''
        push({ id, role: 'assistant', content, toolCalls: [call], source: source(i, e) }, eventId)
        return
      }
      skip(`action ${quoteForMessage(action)}`)
      return
    }

    if (typeof e.observation === 'string') {
      const observation = e.observation
      if (observation === 'recall') {
        // OpenHands gives the model what was recalled as a user message (conversation_memory.py).
        const text = recallText(eventFields(e, 'extras'), seenMicroagents)
        if (text !== '')
          push(
            { id, role: 'user', content: text, flags: { injected: true }, source: source(i, e) },
            eventId,
          )
        return
      }
      if (NOISE.has(observation)) return
      const cause = typeof e.cause === 'number' ? e.cause : undefined
      const paired = pairs.get(i)
      const callId =
        (meta ? str(meta.tool_call_id) : undefined) ??
        (paired !== undefined ? callOfIndex.get(paired) : undefined) ??
        (cause !== undefined ? callOfAction.get(cause) : undefined)
      const content = typeof e.content === 'string' ? e.content : message
      if (callId !== undefined) {
        const d: DraftMessage = {
          id,
          role: 'tool',
          content,
          toolCallId: callId,
          source: source(i, e),
        }
        const name = toolNames.get(callId) ?? (meta ? str(meta.function_name) : undefined)
        if (name !== undefined) d.toolName = name
        if (e.success === false || observation === 'error') d.isError = true
        if (!toolNames.has(callId))
          warnings.push(`items[${i}]: observation answers unknown call ${quoteForMessage(callId)}`)
        push(d, eventId)
        return
      }
      if (content === '') {
        skip(`observation ${quoteForMessage(observation)}`)
        return
      }
      push(
        { id, role: 'user', content, flags: { injected: true }, source: source(i, e) },
        eventId,
      )
      return
    }
    warnings.push(`items[${i}]: neither an action nor an observation, skipped`)
  })

  for (const [kind, n] of skipped)
    warnings.push(`${n} ${kind} event(s) without a tool call skipped`)
  if (tracked.length === 0)
    importFailure('no conversational OpenHands events found', { field: 'items' })
  const transcript = finalizeTranscript(
    format,
    tracked.map((t) => t.draft),
    pendingCompactions.map((c) => c.draft),
    warnings,
    tools ? { tools } : {},
  )
  keepUnforgotten(transcript, tracked, pendingCompactions)
  return transcript
}

/**
 * Imports an OpenHands event list of either generation: V1 events (`{kind, id, …}`) through
 * `importOpenHandsV1Events`, else V0 events through `importOpenHandsRoot`.
 */
function importOpenHandsEvents(root: unknown, options: ImportOptions = {}): Transcript {
  const list = eventList(root)
  if (list && looksLikeOpenHandsV1(list)) return importOpenHandsV1Events(list, options)
  return importOpenHandsRoot(root, options)
}

/**
 * The OpenHands importer for the format registry (formats.md §2 item 7, §4.10): V0 event
 * streams and V1 (software agent SDK) event lists as JSON, and V1 conversation folders
 * (`base_state.json` + `events/`) as a folder or zip.
 */
export const openHandsImporter: FormatImporter<typeof format> = {
  id: format,
  label: 'OpenHands event stream',
  container: 'json',
  priority: 7,
  requestFormat: null,
  description:
    'OpenHands event stream or trajectory export (V0 events with action/observation, V1 events ' +
    'with kind), or a V1 conversation folder/zip (base_state.json + events/)',
  extensions: ['.json', '.zip'],
  detect: detectOpenHands,
  closeness(input) {
    const list = eventList(input)
    if (!list || list.length === 0) return 0
    const head = list.slice(0, 50)
    const events = head.filter(
      (e) => isObject(e) && ('action' in e || 'observation' in e || typeof e.kind === 'string'),
    )
    return events.length / head.length
  },
  importParsed: importOpenHandsEvents,
  bundle: {
    matches: isOpenHandsV1Bundle,
    lookedFor: OPENHANDS_V1_BUNDLE_NAMES,
    importBundle: (bundle, options) =>
      importOpenHandsV1Bundle(bundle, options, (list) => withConversations(list, 'conversation')),
  },
}

/** The `instance_id` of an evaluation output line, as text (benchmarks use strings or numbers). */
function instanceId(value: JsonObject): string | undefined {
  const id = value.instance_id
  return typeof id === 'string' || typeof id === 'number' ? String(id) : undefined
}

/**
 * The issue a resolver output line worked on (`issue{owner, repo, number, title}`), as
 * `owner/repo#number`, else its `title`. Source: `OpenHands/OpenHands:
 * openhands/resolver/interfaces/issue.py` (`Issue`), `resolver_output.py` (`ResolverOutput`).
 */
function resolverIssue(value: JsonObject): string | undefined {
  const issue = value.issue
  if (!isObject(issue)) return undefined
  const { owner, repo, number } = issue
  if (typeof owner === 'string' && typeof repo === 'string' && typeof number === 'number')
    return `${owner}/${repo}#${number}`
  return str(issue.title)
}

/** What an output line is titled by: its `instance_id` (evaluation) or issue (resolver). */
function outputLineId(value: JsonObject): string | undefined {
  return instanceId(value) ?? resolverIssue(value)
}

/** Whether JSONL records are V1 events, one per line (the first line has a string `kind` and `id`). */
function isV1EventLines(records: readonly JsonlRecord[]): boolean {
  return looksLikeOpenHandsV1(records.slice(0, 1).map((r) => r.value))
}

/**
 * Detection of OpenHands JSONL: V1 events one per line (`detectOpenHandsV1`), or an evaluation
 * `output.jsonl` / resolver `output.jsonl`: every line of the first 50 has an `instance_id`
 * (string or number) or an `issue` object, and a `history` key or a `test_result` object, and
 * at least one has a `history` array. Returns the first mismatch naming the line otherwise.
 */
function detectOpenHandsEval(input: unknown): true | string {
  const records = input as JsonlRecord[]
  if (isV1EventLines(records))
    return detectOpenHandsV1(records.map((r) => r.value), 'lines')
  const head = records.slice(0, 50)
  const first = head[0]
  if (!first) return 'no readable lines'
  for (const r of head) {
    if (outputLineId(r.value) === undefined)
      return `line ${r.line}: no "instance_id" (evaluation) nor "issue" (resolver)`
    if (!('history' in r.value) && !isObject(r.value.test_result))
      return `line ${r.line}: neither "history" nor "test_result"`
  }
  if (!head.some((r) => Array.isArray(r.value.history)))
    return `line ${first.line}: no line has a "history" array`
  return true
}

/** The first line of an error text, on one line and at most 200 code points, for a warning. */
function shortError(text: string): string {
  const line = oneLine(firstLine(text))
  return codePointLength(line) > 200 ? `${cutCodePoints(line, 199)}…` : line
}

/**
 * Imports an OpenHands evaluation output (`output.jsonl` of `evaluation/benchmarks/*`
 * `run_infer.py`): one `EvalOutput` per line — `{instance_id, instruction?, history, metadata,
 * test_result, metrics?, error?, instance?}` — or a resolver output (`output/output.jsonl` of
 * `openhands.resolver`): one `ResolverOutput` per line — `{issue{owner, repo, number, title, …},
 * issue_type, instruction, base_commit, git_patch, history, metrics, success, error, …}`. Each
 * line's `history` (the serialized events, V0 or V1; older runs stored `[action, observation]`
 * pairs, which are flattened in order) is one conversation imported as `importOpenHandsEvents`
 * describes, titled by its `instance_id` or issue (`owner/repo#number`); the first is opened
 * and the others are listed as further conversations (`withConversations`).
 * A line without a usable history (null when the instance failed, only bookkeeping events) is
 * skipped with a warning naming the line and instance (at most 20, then a count); a run that
 * ended with `error` says so.
 * Each conversation's own warnings are prefixed with its line. Throws an ImportError-shaped
 * object when no line can be imported (the first line's reason). Never modifies the records.
 * Source: formats.md §4.10; `OpenHands/OpenHands: evaluation/utils/shared.py` (`EvalOutput`).
 */
function importOpenHandsEval(records: readonly JsonlRecord[], options: ImportOptions): Transcript {
  const conversations: Transcript[] = []
  const skipped: string[] = []
  let firstError: { message: string; line: number } | undefined
  const skip = (line: number, message: string) => {
    firstError ??= { message, line }
    skipped.push(`${message}, skipped`)
  }
  const resolver = records.every((r) => instanceId(r.value) === undefined)
  const noun = resolver ? 'issue' : 'instance'
  for (const { line, value } of records) {
    const id = outputLineId(value)
    const where = `line ${line} (${noun} ${id === undefined ? '?' : quoteForMessage(id)})`
    const error = typeof value.error === 'string' && value.error !== '' ? value.error : undefined
    if (!Array.isArray(value.history)) {
      const why = error ? `: ${shortError(error)}` : ''
      skip(line, `${where}: no history${why}`)
      continue
    }
    const events = value.history.flatMap((e) => (Array.isArray(e) ? e : [e]))
    let t: Transcript
    try {
      t = importOpenHandsEvents(events, options)
    } catch (e) {
      if (!(e instanceof ImportFailure)) throw e
      skip(line, `${where}: ${e.message}`)
      continue
    }
    const warnings = t.warnings.map((w) => `line ${line}: ${w}`)
    if (error) warnings.unshift(`${where}: the run ended with an error: ${shortError(error)}`)
    const title = id ?? `line ${line}`
    conversations.push({ ...t, title, warnings })
  }
  if (conversations.length === 0) {
    const e = firstError ?? { message: 'no instances found', line: records[0]?.line ?? 1 }
    importFailure(e.message, { line: e.line })
  }
  const opened = withConversations(conversations, noun)
  return { ...opened, warnings: [...capWarnings(skipped), ...opened.warnings] }
}

/**
 * Imports OpenHands JSONL: V1 events one per line (`importOpenHandsV1Events`), else evaluation
 * or resolver output (`importOpenHandsEval`).
 */
function importOpenHandsJsonl(records: readonly JsonlRecord[], options: ImportOptions): Transcript {
  if (isV1EventLines(records)) return importOpenHandsV1Events(records.map((r) => r.value), options)
  return importOpenHandsEval(records, options)
}

/**
 * The OpenHands JSONL importer for the format registry: evaluation and resolver output (one
 * instance or issue per line; formats.md §4.10) and V1 events one per line.
 */
export const openHandsEvalImporter: FormatImporter<typeof format> = {
  id: format,
  label: 'OpenHands evaluation or resolver output (JSONL)',
  container: 'jsonl',
  priority: 7,
  requestFormat: null,
  description:
    'OpenHands evaluation output.jsonl ({instance_id, history, test_result} per line) or ' +
    'resolver output.jsonl ({issue, history, git_patch} per line), one conversation per line; ' +
    'or V1 events one per line',
  extensions: ['.jsonl'],
  detect: detectOpenHandsEval,
  closeness(input) {
    const head = (input as JsonlRecord[]).slice(0, 50)
    if (head.length === 0) return 0
    const ours = head.filter(
      (r) => 'instance_id' in r.value || isObject(r.value.issue) || typeof r.value.kind === 'string',
    )
    return (0.9 * ours.length) / head.length
  },
  importParsed: (input, options) => importOpenHandsJsonl(input as JsonlRecord[], options),
}
