import type { Message, Part, SourceRef, ToolCall, Transcript } from '../model'
import { importFailure } from './failure'
import type { JsonlRecord } from './json'
import type { FormatImporter } from './types'
import {
  countList,
  base64Bytes,
  finalizeTranscript,
  isObject,
  normalizeParts,
  rejoinMissingParents,
  resolveUsage,
  str,
  type DraftCompaction,
  type DraftMessage,
  type DraftUsage,
  type JsonObject,
} from './util'

const format = 'qwen-code'

/*
 * Qwen Code (QwenLM/qwen-code, a Gemini CLI fork) session recordings:
 * `~/.qwen/projects/<sanitized cwd>/chats/<sessionId>.jsonl`, append-only `ChatRecord`s
 * `{uuid, parentUuid, sessionId, timestamp, type: "user"|"assistant"|"tool_result"|"system",
 * subtype?, cwd, version, message?, usageMetadata?, model?, toolCallResult?, systemPayload?}` where
 * `message` is a Gemini `Content{role: "user"|"model", parts[]}`. Source: QwenLM/qwen-code
 * `packages/core/src/services/chatRecordingService.ts`; docs/formats.md (Qwen Code).
 */

/** User-record subtypes the agent writes itself (background notices, scheduled prompts): not the human. */
const NOT_HUMAN_SUBTYPES = new Set(['notification', 'cron', 'background_task_completed'])

/**
 * `system` subtypes that carry no model context (UI replay, session settings, snapshots): skipped
 * quietly. `chat_compression` is read; `custom_title` names the transcript.
 */
const QUIET_SYSTEM_SUBTYPES = new Set([
  'session_notes',
  'slash_command',
  'ui_telemetry',
  'at_command',
  'attribution_snapshot',
  'custom_title',
  'parent_session',
  'session_source',
  'session_execution_engine',
  'session_model',
  'session_approval_mode',
  'rewind',
  'agent_bootstrap',
  'agent_launch_prompt',
  'agent_retry',
  'agent_session_ready',
  'file_history_snapshot',
  'user_text_elements',
  'session_artifact_event',
  'session_artifact_snapshot',
  'session_sources_snapshot',
  'branch_checkpoint',
  'goal_state',
  'goal_runtime',
  'goal_turn_end',
  'turn_result',
  'omni_recall',
])

/** Record types that hold a message of the conversation. */
const MESSAGE_TYPES = new Set(['user', 'assistant', 'tool_result'])

/** A count field, undefined when absent or not a non-negative number. */
const count = (value: unknown): number | undefined =>
  typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : undefined

/**
 * An assistant record's `usageMetadata` as the usage of its request, at draft `atIndex`: context
 * = `promptTokenCount` (cached tokens are a part of it), output = `candidatesTokenCount` +
 * `thoughtsTokenCount`; the first builds' `{input, output, cached}` read the same way. Undefined
 * without a prompt count or when every count is 0.
 */
function recordUsage(meta: unknown, atIndex: number): DraftUsage | undefined {
  if (!isObject(meta)) return undefined
  const context = count(meta.promptTokenCount) ?? count(meta.input)
  if (context === undefined) return undefined
  const out = count(meta.candidatesTokenCount) ?? count(meta.output)
  const output = out === undefined ? undefined : out + (count(meta.thoughtsTokenCount) ?? 0)
  if (context === 0 && !output) return undefined
  const u: DraftUsage = { atIndex, context }
  if (output !== undefined) u.output = output
  return u
}

/** A Gemini part that is content (not a call or a response) as a canonical part, or null. */
function contentPart(p: unknown): Part | null {
  if (!isObject(p)) return typeof p === 'string' && p !== '' ? { type: 'text', text: p } : null
  if (typeof p.text === 'string') {
    if (p.text === '') return null
    return p.thought === true
      ? { type: 'thinking', variant: 'thinking', text: p.text }
      : { type: 'text', text: p.text }
  }
  if (isObject(p.functionCall) || isObject(p.functionResponse)) return null
  if (isObject(p.inlineData) && (str(p.inlineData.mimeType) ?? '').startsWith('image/')) {
    const mime = str(p.inlineData.mimeType) as string
    const data = str(p.inlineData.data) ?? ''
    return { type: 'image', mediaType: mime, url: `data:${mime};base64,${data}`, bytes: base64Bytes(data) }
  }
  const kind = Object.keys(p)[0] ?? 'part'
  return { type: 'opaque', kind, raw: p }
}

/** A `functionResponse.response` as text: `output`, else `error`, else the value as JSON. */
function responseText(response: unknown): { text: string; error: boolean } {
  if (typeof response === 'string') return { text: response, error: false }
  if (isObject(response) && typeof response.output === 'string')
    return { text: response.output, error: false }
  if (isObject(response) && typeof response.error === 'string')
    return { text: response.error, error: true }
  return { text: JSON.stringify(response ?? null), error: false }
}

/** Builds drafts from Gemini `Content`s, as records or as a compressed history. */
class ContentReader {
  drafts: DraftMessage[] = []
  usage: DraftUsage[] = []
  /** Tool names by call id, for results that name none. */
  private names = new Map<string, string>()
  private calls = 0

  constructor(private idPrefix = '') {}

  /**
   * One `Content` (`role` user or model) as messages: a model one → an assistant message (text,
   * thoughts as thinking, `functionCall`s as calls with `args` as JSON; a call without `id` gets
   * `<record id>-call<k>`); a user one → one tool message per `functionResponse` (paired on
   * `functionResponse.id`; other parts join the result before them) and a user message of the
   * other parts, flagged injected when `injected`. `isError` marks the tool messages.
   */
  add(
    content: JsonObject,
    id: string,
    source: SourceRef,
    opts: { injected?: boolean; isError?: boolean; usage?: unknown; window?: unknown } = {},
  ): void {
    const parts = Array.isArray(content.parts) ? content.parts : []
    if (content.role === 'model') {
      const out: Part[] = []
      const toolCalls: ToolCall[] = []
      for (const p of parts) {
        if (isObject(p) && isObject(p.functionCall)) {
          const fc = p.functionCall
          const call: ToolCall = {
            id: str(fc.id) || `${id}-call${++this.calls}`,
            name: str(fc.name) ?? '',
            arguments: typeof fc.args === 'string' ? fc.args : JSON.stringify(fc.args ?? {}),
          }
          this.names.set(call.id, call.name)
          toolCalls.push(call)
          continue
        }
        const part = contentPart(p)
        if (part) out.push(part)
      }
      const d: DraftMessage = {
        id: this.idPrefix + id,
        role: 'assistant',
        content: normalizeParts(out, null),
        source,
      }
      if (toolCalls.length > 0) d.toolCalls = toolCalls
      if (d.content === null && !d.toolCalls) return
      const u = recordUsage(opts.usage, this.drafts.length)
      const window = count(opts.window)
      if (u && window) u.window = window
      if (u) this.usage.push(u)
      this.drafts.push(d)
      return
    }
    const rest: Part[] = []
    let last: { draft: DraftMessage; parts: Part[] } | undefined
    let k = 0
    for (const p of parts) {
      if (isObject(p) && isObject(p.functionResponse)) {
        const fr = p.functionResponse
        const callId = str(fr.id) ?? ''
        const { text, error } = responseText(fr.response)
        const draft: DraftMessage = {
          id: `${this.idPrefix}${id}${k++ === 0 ? '' : `-${k}`}`,
          role: 'tool',
          content: text,
          toolCallId: callId,
          toolName: str(fr.name) ?? this.names.get(callId) ?? '',
          source,
        }
        if (error || opts.isError) draft.isError = true
        last = { draft, parts: text === '' ? [] : [{ type: 'text', text }] }
        this.drafts.push(draft)
        continue
      }
      const part = contentPart(p)
      if (!part) continue
      if (last) {
        last.parts.push(part)
        last.draft.content = normalizeParts(last.parts, '') ?? ''
      } else rest.push(part)
    }
    if (rest.length === 0) return
    const d: DraftMessage = {
      id: this.idPrefix + (k > 0 ? `${id}-text` : id),
      role: 'user',
      content: normalizeParts(rest, ''),
      source,
    }
    if (opts.injected) d.flags = { injected: true }
    this.drafts.push(d)
  }
}

/**
 * A `chat_compression` record's `compressedHistory` (the model's whole history right after the
 * compression: the `<state_snapshot>` summary as a user turn, the model's acknowledgement, the
 * kept tail) as canonical messages, ids `compressed-L<line>-…`; the first user message is flagged
 * `compactSummary`.
 */
function compressedMessages(history: unknown[], line: number, keepRaw: boolean): Message[] {
  const reader = new ContentReader(`compressed-L${line}-`)
  history.forEach((c, i) => {
    if (!isObject(c)) return
    const s: SourceRef = { format, line }
    if (keepRaw) s.raw = c
    reader.add(c, `${i}`, s)
  })
  const messages = finalizeTranscript(format, reader.drafts, [], []).messages
  const at = messages.findIndex((m) => m.role === 'user')
  return messages.map((m, i) => (i === at ? { ...m, flags: { ...m.flags, compactSummary: true } } : m))
}

/** The text of a compressed history's first user turn (its summary), or null. */
function summaryOf(history: unknown[]): string | null {
  const first = history.find((c) => isObject(c) && c.role === 'user')
  if (!isObject(first) || !Array.isArray(first.parts)) return null
  const text = first.parts
    .map((p) => (isObject(p) && typeof p.text === 'string' ? p.text : ''))
    .join('')
  return text === '' ? null : text
}

/**
 * Imports a Qwen Code session: the current branch is the chain of `parentUuid` links from the last
 * message record (user, assistant, tool_result) up to the root, a `parentUuid` that names no
 * record (an unreadable line) joining the record before it in file order; message records off it
 * (rewound or retried turns) are skipped and counted. `user` → user (subtypes `notification`,
 * `cron`, `background_task_completed` are the agent's notices: flagged injected), `assistant` →
 * assistant with its `usageMetadata` as the request's usage (`recordUsage`; `contextWindowSize`
 * its window) and `model` naming the model, `tool_result` → tool messages paired on `functionResponse.id` (an
 * `error` `toolCallResult.status` marks them failed); `system/chat_compression` → a recorded
 * compaction at the next message, `summaryText` = the compressed history's first user turn, tokens
 * from `info{originalTokenCount, newTokenCount}` and `replacementHistory` = `compressedHistory`
 * (after = it + later records). Subagent records (`isSidechain`) and unknown types/subtypes are
 * skipped with a warning. Source: docs/formats.md (Qwen Code).
 */
function importQwen(records: readonly JsonlRecord[], keepRaw = true): Transcript {
  // A parentUuid naming no record (an unreadable line in the middle) joins the record before it
  // in file order.
  const linked = records.flatMap((r) => {
    const id = str(r.value.uuid)
    return id === undefined ? [] : [{ id, parentId: str(r.value.parentUuid) ?? null, line: r.line, record: r }]
  })
  const rejoined = rejoinMissingParents(linked, 'parentUuid', records.map((r) => r.line))
  const parentOf = new Map<JsonlRecord, JsonlRecord | undefined>()
  linked.forEach((l, i) => parentOf.set(l.record, rejoined.parents[i]?.record))
  const onBranch = new Set<JsonlRecord>()
  // The leaf is the last message record: metadata records (titles, telemetry) may be re-appended
  // at the end without extending the conversation.
  const lastWithId = [...records]
    .reverse()
    .find(
      (r) =>
        str(r.value.uuid) !== undefined &&
        r.value.isSidechain !== true &&
        MESSAGE_TYPES.has(str(r.value.type) ?? ''),
    )
  for (let r = lastWithId; r && !onBranch.has(r); ) {
    onBranch.add(r)
    r = parentOf.get(r)
  }
  const reader = new ContentReader()
  const compactions: DraftCompaction[] = []
  const warnings: string[] = [...rejoined.warnings]
  const unknown = new Map<string, number>()
  let offBranch = 0
  let sidechain = 0
  let model: string | undefined
  let title: string | undefined
  let agentVersion: string | undefined
  for (const r of records) {
    const v = r.value
    const type = str(v.type) ?? ''
    const subtype = str(v.subtype)
    if (type === 'system') {
      const payload = isObject(v.systemPayload) ? v.systemPayload : {}
      if (subtype === 'chat_compression') {
        const history = Array.isArray(payload.compressedHistory) ? payload.compressedHistory : []
        const info = isObject(payload.info) ? payload.info : {}
        const c: DraftCompaction = {
          atIndex: reader.drafts.length,
          summaryText: summaryOf(history),
          source: format,
        }
        const before = count(info.originalTokenCount)
        const after = count(info.newTokenCount)
        if (before !== undefined) c.tokensBefore = before
        if (after !== undefined) c.tokensAfter = after
        if (history.length > 0) c.replacementHistory = compressedMessages(history, r.line, keepRaw)
        compactions.push(c)
      } else if (subtype === 'custom_title') {
        title = str(payload.customTitle) ?? title
      } else if (subtype === undefined || !QUIET_SYSTEM_SUBTYPES.has(subtype)) {
        const key = `system/${subtype ?? '(none)'}`
        unknown.set(key, (unknown.get(key) ?? 0) + 1)
      }
      continue
    }
    if (!MESSAGE_TYPES.has(type)) {
      const key = type || '(none)'
      unknown.set(key, (unknown.get(key) ?? 0) + 1)
      continue
    }
    if (v.isSidechain === true) {
      sidechain++
      continue
    }
    if (!onBranch.has(r)) {
      offBranch++
      continue
    }
    if (!isObject(v.message)) {
      warnings.push(`line ${r.line}: ${type} record without a "message" object, skipped`)
      continue
    }
    agentVersion = str(v.version) || agentVersion
    const source: SourceRef = { format, line: r.line }
    if (keepRaw) source.raw = v
    const id = str(v.uuid) ?? ''
    if (type === 'assistant') {
      model = str(v.model) || model
      reader.add({ ...v.message, role: 'model' }, id, source, {
        usage: v.usageMetadata,
        window: v.contextWindowSize,
      })
    } else if (type === 'tool_result') {
      const status = isObject(v.toolCallResult) ? v.toolCallResult.status : undefined
      reader.add({ ...v.message, role: 'user' }, id, source, { isError: status === 'error' })
    } else {
      reader.add({ ...v.message, role: 'user' }, id, source, {
        injected: subtype !== undefined && NOT_HUMAN_SUBTYPES.has(subtype),
      })
    }
  }
  if (reader.drafts.length === 0) importFailure('no messages found in the session')
  if (offBranch > 0)
    warnings.push(
      `${offBranch} record(s) are not on the current branch (the parentUuid chain from the last message): rewound or retried turns, skipped`,
    )
  if (sidechain > 0) warnings.push(`${sidechain} subagent record(s) (isSidechain) are not read`)
  if (unknown.size > 0) warnings.push(`unknown record type(s) skipped: ${countList(unknown)}`)
  const t = finalizeTranscript(format, reader.drafts, compactions, warnings, { title, model })
  const usage = resolveUsage(t.messages, reader.usage)
  if (usage) t.usage = usage
  if (agentVersion) t.agentVersion = agentVersion
  return t
}

/** A record in Qwen Code's shape: `uuid` + `sessionId` and a Gemini `message` or a Qwen-only type. */
function isQwenRecord(v: JsonObject): boolean {
  if (typeof v.uuid !== 'string' || typeof v.sessionId !== 'string' || !('parentUuid' in v)) return false
  if (v.type === 'tool_result' || (v.type === 'system' && v.subtype === 'chat_compression')) return true
  const m = v.message
  return isObject(m) && Array.isArray(m.parts) && (m.role === 'model' || m.role === 'user')
}

/**
 * Detection from the first 50 records: one at least is a Qwen Code record (`isQwenRecord`: a
 * Gemini `Content` with `parts` in `message`, or a `tool_result` record). Claude Code records hold
 * Anthropic messages (`content`, role `assistant`), so the two never both match; Qwen Code runs
 * first (lower priority number).
 */
function detectQwen(input: unknown): true | string {
  const records = input as JsonlRecord[]
  const first = records[0]
  if (!first) return 'no readable lines'
  if (records.slice(0, 50).some((r) => isQwenRecord(r.value))) return true
  return `line ${first.line}: no uuid/sessionId record with a Gemini message (role "model", "parts")`
}

/** The Qwen Code session importer (registry entry). */
export const qwenCodeImporter: FormatImporter<typeof format> = {
  id: format,
  label: 'Qwen Code session (JSONL)',
  container: 'jsonl',
  priority: 2.5,
  requestFormat: null,
  description: 'Qwen Code session, ~/.qwen/projects/<project>/chats/<sessionId>.jsonl',
  extensions: ['.jsonl'],
  detect: detectQwen,
  closeness: (input) => {
    const head = (input as JsonlRecord[]).slice(0, 50)
    if (head.length === 0) return 0
    return head.filter((r) => typeof r.value.uuid === 'string' && typeof r.value.sessionId === 'string').length / head.length / 2
  },
  importParsed: (input, options) => importQwen(input as JsonlRecord[], options.keepRaw),
}
