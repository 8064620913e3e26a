import type { ClearedToolResults, Part, SourceRef, ToolCall, Transcript } from '../model'
import { ImportFailure, importFailure } from './failure'
import type { FileBundle, FormatImporter, ImportOptions } from './types'
import {
  capWarnings,
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
  withConversations,
} from './util'
import { quoteForMessage } from '../util/text'

const format = 'opencode'

/*
 * OpenCode (anomalyco/opencode, formerly sst/opencode) sessions: `opencode export <session>` writes
 * `{info: Session.Info, messages: [{info: MessageV2.Info, parts: MessageV2.Part[]}]}`; before the
 * 2026 SQLite store, `~/.local/share/opencode/storage/` held `session/<projectID>/<sesID>.json`,
 * `message/<sesID>/<msgID>.json` and `part/<msgID>/<prtID>.json` (the earliest builds
 * `session/info/<sesID>.json`, `session/message/<sesID>/<msgID>.json`,
 * `session/part/<sesID>/<msgID>/<prtID>.json`). Message and part ids (`msg_…`, `prt_…`) ascend
 * with time; session ids (`ses_…`) descend. Sources: `packages/opencode/src/session/message-v2.ts`
 * (shapes, `toModelMessages`: what the model is sent, `filterCompacted`), `compaction.ts`
 * (summary messages, pruning), `session/index.ts` (`revert`); docs/formats.md.
 */

/** What OpenCode sends for a user message's `compaction` part (message-v2.ts `toModelMessages`). */
const COMPACTION_QUESTION = 'What did we do so far?'
/** What OpenCode sends for a user message's `subtask` part. */
const SUBTASK_TEXT = 'The following tool was executed by the user'
/** What OpenCode sends as the result of a tool call left pending or running. */
const INTERRUPTED = '[Tool execution was interrupted]'
/** What OpenCode sends in place of a pruned tool output (`state.time.compacted` set). */
const CLEARED = '[Old tool result content cleared]'
/** The error `name` of a response the user stopped (`MessageAbortedError`): its parts are still sent. */
const ABORTED = 'MessageAbortedError'

/** Part types that are not sent to the model (step bookkeeping, file snapshots, retries, agent mentions). */
const CONTEXT_FREE_PARTS = new Set(['step-start', 'step-finish', 'snapshot', 'patch', 'retry', 'agent'])

/** One message with its parts and where it came from. */
interface SourceMessage {
  info: JsonObject
  parts: JsonObject[]
  /** `messages[3]` (export) or the message's storage entry name. */
  place: string
  /** 1-based position among the session's messages (export) — `source.line`. */
  line: number
  raw: unknown
}

/** One session to import: its info and its messages in order. */
interface SourceSession {
  info: JsonObject
  messages: SourceMessage[]
}

/** A non-negative token count, 0 when absent. */
const tokens = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) && v > 0 ? v : 0)

/**
 * Recorded usage from a `tokens{input, output, reasoning, cache{read, write}}` object: context =
 * `input + cache.read + cache.write` (OpenCode's `input` excludes cached tokens), output =
 * `output + reasoning`; undefined when all are zero (a response that never ran).
 */
function usageOf(t: unknown): { context: number; output: number } | undefined {
  if (!isObject(t)) return undefined
  const cache = isObject(t.cache) ? t.cache : {}
  const context = tokens(t.input) + tokens(cache.read) + tokens(cache.write)
  const output = tokens(t.output) + tokens(t.reasoning)
  return context > 0 || output > 0 ? { context, output } : undefined
}

/** A recorded compaction and the draft positions of the messages it kept (request, tail). */
interface SummaryCompaction {
  draft: DraftCompaction
  kept: number[]
}

/** What converting one session gives. */
interface Converted {
  drafts: DraftMessage[]
  compactions: SummaryCompaction[]
  usage: DraftUsage[]
  /** Pruned tool outputs: the call and when it was pruned (ms). */
  cleared: { callId: string; at: number }[]
  /** Creation time (ms) of each draft's message, for placing pruned results. */
  created: number[]
  warnings: string[]
  notes: string[]
  model: string | undefined
}

/**
 * A session's messages as drafts, as `toModelMessages` sends them. User parts: `text` (unless
 * `ignored`; only `synthetic` texts → flagged injected), `file` (images as images; text and
 * directory files are already text parts and left out; others opaque), `compaction` → "What did
 * we do so far?", `subtask` → its fixed text. Assistant messages with an `error` are left out
 * unless the user aborted them after some output; the others are split into one assistant draft
 * per LLM step (`step-start`): `text` → text, `reasoning` → thinking, `tool{callID, tool, state}`
 * → a call (`state.input`) and right after the step a tool message: `completed` → `output` (pruned
 * ones, `state.time.compacted`, are listed as cleared), `error` → `error` as an error (an
 * interrupted one with `metadata.output` → that output), `pending`/`running` → "[Tool execution
 * was interrupted]" as an error. Usage: each `step-finish.tokens` at its step, else the message's
 * `tokens` at its first step. A summary (`summary:true`, answering a user message with a
 * `compaction` part, without error) is flagged `compactSummary` and recorded as a compaction whose
 * kept messages are the compaction request and, with `tail_start_id`, the messages from there on.
 */
function convertSession(session: SourceSession, keepRaw: boolean): Converted {
  const drafts: DraftMessage[] = []
  const compactions: SummaryCompaction[] = []
  const usage: DraftUsage[] = []
  const cleared: Converted['cleared'] = []
  const created: number[] = []
  const warnings: string[] = []
  const notes: string[] = []
  const unknownParts = new Map<string, number>()
  let model: string | undefined
  let failed = 0
  // Message id → its drafts' positions (compaction requests and tails are named by message id).
  const draftsOf = new Map<string, number[]>()
  const order = session.messages.map((m) => str(m.info.id) ?? '')

  for (const m of session.messages) {
    const id = str(m.info.id) ?? ''
    const role = str(m.info.role)
    const time = isObject(m.info.time) ? tokens(m.info.time.created) : 0
    const src = (): SourceRef => ({ format, line: m.line, ...(keepRaw ? { raw: m.raw } : {}) })
    const start = drafts.length
    const add = (d: DraftMessage) => {
      drafts.push(d)
      created.push(time)
    }
    if (m.parts.length === 0) continue
    if (role === 'user') {
      const parts: Part[] = []
      let typed = false
      for (const p of m.parts) {
        if (p.type === 'text') {
          if (p.ignored === true) continue
          parts.push({ type: 'text', text: str(p.text) ?? '' })
          if (p.synthetic !== true) typed = true
        } else if (p.type === 'file') {
          const mime = str(p.mime) ?? ''
          if (mime === 'text/plain' || mime === 'application/x-directory') continue
          typed = true
          const url = str(p.url) ?? ''
          parts.push(mime.startsWith('image/') ? imageFromUrl(url, mime) : { type: 'opaque', kind: 'file', raw: p })
        } else if (p.type === 'compaction') parts.push({ type: 'text', text: COMPACTION_QUESTION })
        else if (p.type === 'subtask') {
          typed = true
          parts.push({ type: 'text', text: SUBTASK_TEXT })
        } else if (!CONTEXT_FREE_PARTS.has(str(p.type) ?? '')) unknownParts.set(str(p.type) ?? '?', (unknownParts.get(str(p.type) ?? '?') ?? 0) + 1)
      }
      if (parts.length === 0) continue
      const d: DraftMessage = { id, role: 'user', content: normalizeParts(parts, ''), source: src() }
      const isRequest = m.parts.some((p) => p.type === 'compaction')
      if (!typed && !isRequest) d.flags = { injected: true }
      add(d)
    } else if (role === 'assistant') {
      const error = isObject(m.info.error) ? m.info.error : undefined
      const spoke = m.parts.some((p) => p.type !== 'step-start' && p.type !== 'reasoning')
      if (error && !(error.name === ABORTED && spoke)) {
        failed++
        continue
      }
      model = str(m.info.modelID) ?? model
      const isSummary = m.info.summary === true
      // One LLM step: its content, calls and results.
      let parts: Part[] = []
      let calls: ToolCall[] = []
      let results: DraftMessage[] = []
      let stepUsage: { context: number; output: number } | undefined
      let sawStepUsage = false
      let step = 0
      const close = () => {
        if (parts.length === 0 && calls.length === 0) return
        const d: DraftMessage = {
          id: step === 0 ? id : `${id}-step${step + 1}`,
          role: 'assistant',
          content: normalizeParts(parts, calls.length > 0 ? null : ''),
          source: src(),
        }
        if (calls.length > 0) d.toolCalls = calls
        if (isSummary) d.flags = { compactSummary: true }
        if (stepUsage) usage.push({ atIndex: drafts.length, ...stepUsage })
        add(d)
        for (const r of results) add(r)
        step++
        parts = []
        calls = []
        results = []
        stepUsage = undefined
      }
      for (const p of m.parts) {
        const type = str(p.type) ?? '?'
        if (type === 'step-start') {
          if (calls.length > 0) close()
        } else if (type === 'step-finish') {
          const u = usageOf(p.tokens)
          sawStepUsage = true
          if (u) stepUsage = u
        } else if (type === 'text') parts.push({ type: 'text', text: str(p.text) ?? '' })
        else if (type === 'reasoning') parts.push({ type: 'thinking', variant: 'reasoning', text: str(p.text) ?? '' })
        else if (type === 'tool') {
          const callId = str(p.callID) ?? ''
          const name = str(p.tool) ?? ''
          const state = isObject(p.state) ? p.state : {}
          calls.push({ id: callId, name, arguments: JSON.stringify(state.input ?? {}) })
          const r: DraftMessage = { id: str(p.id) ?? '', role: 'tool', content: '', toolCallId: callId, toolName: name, source: src() }
          const meta = isObject(state.metadata) ? state.metadata : {}
          if (state.status === 'completed') {
            r.content = str(state.output) ?? ''
            const t = isObject(state.time) ? state.time : {}
            if (typeof t.compacted === 'number') cleared.push({ callId, at: t.compacted })
          } else if (state.status === 'error') {
            const output = meta.interrupted === true ? str(meta.output) : undefined
            if (output !== undefined) r.content = output
            else {
              r.content = str(state.error) ?? ''
              r.isError = true
            }
          } else {
            r.content = INTERRUPTED
            r.isError = true
          }
          results.push(r)
        } else if (type === 'file') parts.push({ type: 'opaque', kind: 'file', raw: p })
        else if (!CONTEXT_FREE_PARTS.has(type)) unknownParts.set(type, (unknownParts.get(type) ?? 0) + 1)
      }
      close()
      if (!sawStepUsage && drafts.length > start) {
        const u = usageOf(m.info.tokens)
        if (u) usage.push({ atIndex: start, ...u })
      }
      if (isSummary && drafts.length > start && !error) {
        const request = str(m.info.parentID) ?? ''
        const requestAt = draftsOf.get(request)
        const requestMessage = session.messages.find((x) => str(x.info.id) === request)
        const compactionPart = requestMessage?.parts.find((p) => p.type === 'compaction')
        if (requestAt && compactionPart) {
          const kept = [...requestAt]
          const tail = str(compactionPart.tail_start_id)
          if (tail !== undefined) {
            const from = order.indexOf(tail)
            const to = order.indexOf(request)
            if (from >= 0 && to >= 0)
              for (const x of order.slice(from, to)) kept.unshift(...(draftsOf.get(x) ?? []))
            kept.sort((a, b) => a - b)
          }
          const text = drafts
            .slice(start)
            .filter((d) => d.role === 'assistant')
            .map((d) => (typeof d.content === 'string' ? d.content : ''))
            .join('\n')
          const draft: DraftCompaction = { atIndex: start, summaryIndex: start, summaryText: text, source: format }
          draft.trigger = compactionPart.auto === true ? 'auto' : 'manual'
          compactions.push({ draft, kept })
        } else {
          warnings.push(`${m.place}: a summary message answers no user message with a compaction part; kept as a message`)
        }
      }
    } else {
      warnings.push(`${m.place}.info.role: ${quoteForMessage(m.info.role)} is not user or assistant, skipped`)
    }
    if (drafts.length > start) draftsOf.set(id, Array.from({ length: drafts.length - start }, (_, k) => start + k))
  }
  for (const [type, n] of unknownParts) warnings.push(`${n} part(s) of unknown type ${quoteForMessage(type)} skipped`)
  if (failed > 0) notes.push(`${failed} assistant response(s) that failed with an error are left out, as OpenCode leaves them out of the context`)
  return { drafts, compactions, usage, cleared, created, warnings, notes, model }
}

/**
 * The session's messages from its `revert` on hidden (OpenCode's undo: `revert.messageID` and
 * every later message are not sent; with `revert.partID`, that message keeps the parts before
 * it). Returns the visible messages and how many were hidden.
 */
function applyRevert(session: SourceSession): { messages: SourceMessage[]; hidden: number } {
  const revert = isObject(session.info.revert) ? session.info.revert : undefined
  const at = revert ? str(revert.messageID) : undefined
  if (at === undefined) return { messages: session.messages, hidden: 0 }
  const k = session.messages.findIndex((m) => m.info.id === at)
  if (k < 0) return { messages: session.messages, hidden: 0 }
  const kept = session.messages.slice(0, k)
  const partId = revert ? str(revert.partID) : undefined
  const target = session.messages[k] as SourceMessage
  if (partId !== undefined) {
    const cut = target.parts.findIndex((p) => p.id === partId)
    if (cut > 0) kept.push({ ...target, parts: target.parts.slice(0, cut) })
  }
  return { messages: kept, hidden: session.messages.length - kept.length }
}

/**
 * One session as a transcript (`convertSession` after `applyRevert`): title from `info.title`,
 * the model from the last assistant's `modelID`, the agent version from `info.version`; pruned
 * tool outputs become `clearedToolResults`, each from the first message created after its
 * `state.time.compacted`. Throws when no message is left.
 */
function sessionTranscript(session: SourceSession, keepRaw: boolean, where: string): Transcript {
  const { messages, hidden } = applyRevert(session)
  const c = convertSession({ ...session, messages }, keepRaw)
  if (hidden > 0) c.notes.push(`the session was reverted: its last ${hidden} message(s) are undone and left out`)
  if (c.drafts.length === 0) importFailure(`${where} has no messages`, { field: where })
  const title = str(session.info.title)
  const t = finalizeTranscript(format, c.drafts, c.compactions.map((x) => x.draft), c.warnings, {
    ...(title ? { title } : {}),
    model: c.model,
    notes: c.notes,
  })
  const id = str(session.info.id)
  if (id) t.conversationId = id
  c.compactions.forEach(({ kept }, k) => {
    const rc = t.recordedCompactions[k]
    if (rc) rc.keptMessageIds = kept.flatMap((i) => (t.messages[i] ? [t.messages[i].id] : []))
  })
  const usage = resolveUsage(t.messages, c.usage)
  if (usage) t.usage = usage
  const groups = new Map<number, string[]>()
  for (const x of c.cleared) {
    let at = c.created.findIndex((time) => time > x.at)
    if (at < 0) at = t.messages.length
    const list = groups.get(at)
    if (list) list.push(x.callId)
    else groups.set(at, [x.callId])
  }
  const cleared: ClearedToolResults[] = [...groups]
    .sort((a, b) => a[0] - b[0])
    .map(([atIndex, toolCallIds]) => ({ atIndex, toolCallIds, trigger: 'prune', placeholder: CLEARED }))
  if (cleared.length > 0) t.clearedToolResults = cleared
  const version = str(session.info.version)
  if (version !== undefined) t.agentVersion = version
  return t
}

/** `{info, parts}` pairs of an export's `messages`, checked; bad ones warned and skipped. */
function exportMessages(list: unknown[], warnings: string[]): SourceMessage[] {
  const out: SourceMessage[] = []
  list.forEach((m, i) => {
    const place = `messages[${i}]`
    if (!isObject(m) || !isObject(m.info)) {
      warnings.push(`${place}: not an {info, parts} object, skipped`)
      return
    }
    const parts = Array.isArray(m.parts) ? m.parts.filter(isObject) : []
    out.push({ info: m.info, parts, place, line: i + 1, raw: m })
  })
  return out
}

/**
 * Detection: an object whose `info.id` is a session id (`ses_…`) with a `messages` array, empty
 * or with an `{info, parts}` item among its first 20 — the `opencode export` shape.
 */
function detectOpenCode(root: unknown): true | string {
  if (!isObject(root) || !isObject(root.info)) return 'not an object with an "info" session object'
  const id = str(root.info.id)
  if (id === undefined || !id.startsWith('ses_')) return '"info.id" is not an OpenCode session id (ses_…)'
  if (!Array.isArray(root.messages)) return 'no "messages" array at the top level'
  const head = root.messages.slice(0, 20)
  if (head.length > 0 && !head.some((m) => isObject(m) && isObject(m.info) && Array.isArray(m.parts)))
    return 'messages[0] is not an {info, parts} object'
  return true
}

/**
 * Imports an `opencode export` file (`{info, messages:[{info, parts}]}`): one session, see
 * `sessionTranscript`. Invalid messages are skipped with a warning naming them.
 */
function importOpenCodeExport(root: unknown, options: ImportOptions = {}): Transcript {
  const keepRaw = options.keepRaw ?? true
  if (!isObject(root) || !isObject(root.info)) importFailure('expected an OpenCode export {info, messages}', { field: 'info' })
  if (!Array.isArray(root.messages)) importFailure('"messages" is not an array', { field: 'messages' })
  const warnings: string[] = []
  const messages = exportMessages(root.messages, warnings)
  const t = sessionTranscript({ info: root.info, messages }, keepRaw, 'messages')
  return { ...t, warnings: [...capWarnings(warnings), ...t.warnings] }
}

/** Storage entries: a session's info, a message, a part (the names OpenCode's storage uses). */
const SESSION_ENTRY = /(?:^|\/)session\/(?:info|[^/]+)\/(ses_[^/]+)\.json$/
const MESSAGE_ENTRY = /(?:^|\/)message\/(ses_[^/]+)\/(msg_[^/]+)\.json$/
const PART_ENTRY = /(?:^|\/)part\/(?:ses_[^/]+\/)?(msg_[^/]+)\/(prt_[^/]+)\.json$/

/** Bytes decompressed at once while reading the storage. */
const BATCH_BYTES = 32 * 1024 * 1024

/** Reads the named entries as JSON objects a batch at a time; a bad entry is a warning. */
function readObjects(bundle: FileBundle, names: readonly string[], warnings: string[]): Map<string, JsonObject> {
  const sizes = new Map(bundle.entries.map((e) => [e.name, e.bytes]))
  const out = new Map<string, JsonObject>()
  for (let i = 0; i < names.length; ) {
    const batch: string[] = []
    let size = 0
    for (; i < names.length; i++) {
      const n = names[i] as string
      if (batch.length > 0 && size + (sizes.get(n) ?? 0) > BATCH_BYTES) break
      batch.push(n)
      size += sizes.get(n) ?? 0
    }
    let data: Map<string, Uint8Array>
    try {
      data = bundle.read(batch)
    } catch {
      data = new Map()
      for (const n of batch) {
        try {
          const one = bundle.read([n]).get(n)
          if (one) data.set(n, one)
        } catch (e) {
          warnings.push(`${n}: ${e instanceof Error || e instanceof ImportFailure ? e.message : String(e)}, skipped`)
        }
      }
    }
    for (const n of batch) {
      const bytes = data.get(n)
      if (!bytes) continue
      try {
        const v = bundle.json(n, bytes)
        if (isObject(v)) out.set(n, v)
        else warnings.push(`${n}: not a JSON object, skipped`)
      } catch (e) {
        if (!(e instanceof ImportFailure)) throw e
        warnings.push(`${e.message}, skipped`)
      }
    }
  }
  return out
}

/** Name order that is id order (ids of one kind have the same length and alphabet). */
const byName = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0)

/**
 * Imports OpenCode's file storage (a folder or a zip of it): sessions from their message files
 * (info from `session/…/<sesID>.json` when present), parts by message, both in id order. The
 * session opened is the one without `parentID` (not a sub-agent's) updated last; the others,
 * sub-agent sessions included, are further conversations (`sidechains`), titled by their
 * `title`. Sessions that cannot be imported are skipped with a warning; none left is an error.
 */
function importOpenCodeStorage(bundle: FileBundle, options: ImportOptions = {}): Transcript {
  const keepRaw = options.keepRaw ?? true
  const warnings: string[] = []
  const names = bundle.entries.map((e) => e.name)
  const sessionFiles = new Map<string, string>()
  const messageFiles = new Map<string, string[]>()
  const partFiles = new Map<string, string[]>()
  for (const n of names) {
    let m = MESSAGE_ENTRY.exec(n)
    if (m) {
      const list = messageFiles.get(m[1] as string)
      if (list) list.push(n)
      else messageFiles.set(m[1] as string, [n])
      continue
    }
    m = PART_ENTRY.exec(n)
    if (m) {
      const list = partFiles.get(m[1] as string)
      if (list) list.push(n)
      else partFiles.set(m[1] as string, [n])
      continue
    }
    m = SESSION_ENTRY.exec(n)
    if (m) sessionFiles.set(m[1] as string, n)
  }
  if (messageFiles.size === 0) importFailure('no message/<sesID>/<msgID>.json entries: not OpenCode storage', { field: 'message' })
  const infos = readObjects(bundle, [...sessionFiles.values()], warnings)
  const sessions: { id: string; info: JsonObject; updated: number }[] = []
  for (const id of [...messageFiles.keys()].sort(byName)) {
    const file = sessionFiles.get(id)
    const info = (file ? infos.get(file) : undefined) ?? { id }
    const time = isObject(info.time) ? info.time : {}
    sessions.push({ id, info, updated: tokens(time.updated) || tokens(time.created) })
  }
  // The main conversation first: not a sub-agent's, most recently updated.
  sessions.sort((a, b) => Number(a.info.parentID !== undefined) - Number(b.info.parentID !== undefined) || b.updated - a.updated || byName(a.id, b.id))
  const conversations: Transcript[] = []
  for (const s of sessions) {
    const files = (messageFiles.get(s.id) ?? []).sort(byName)
    const messageObjects = readObjects(bundle, files, warnings)
    const messages: SourceMessage[] = []
    files.forEach((f, k) => {
      const info = messageObjects.get(f)
      if (!info) return
      const msgId = str(info.id) ?? (MESSAGE_ENTRY.exec(f)?.[2] as string)
      const partNames = (partFiles.get(msgId) ?? []).sort(byName)
      const parts = [...readObjects(bundle, partNames, warnings).values()]
      messages.push({ info, parts, place: f, line: k + 1, raw: { info, parts } })
    })
    try {
      const t = sessionTranscript({ info: s.info, messages }, keepRaw, `message/${s.id}`)
      if (t.title === undefined) t.title = s.id
      conversations.push(t)
    } catch (e) {
      if (!(e instanceof ImportFailure)) throw e
      warnings.push(`${e.message}; session skipped`)
    }
  }
  if (conversations.length === 0) importFailure(warnings[0] ?? 'the storage holds no session with messages')
  const opened = withConversations(conversations, 'session')
  return { ...opened, warnings: [...capWarnings(warnings), ...opened.warnings] }
}

/** The OpenCode importer (registry entry): `opencode export` JSON, and its storage as a folder or zip. */
export const openCodeImporter: FormatImporter<typeof format> = {
  id: format,
  label: 'OpenCode session',
  container: 'json',
  priority: 5.2,
  requestFormat: null,
  description:
    'OpenCode session: `opencode export` JSON ({info:{id:"ses_…"}, messages:[{info, parts}]}), or its ' +
    'storage folder / zip (session/, message/<sesID>/, part/<msgID>/)',
  extensions: ['.json', '.zip'],
  detect: detectOpenCode,
  closeness(input) {
    if (!isObject(input)) return 0
    let n = 0
    if (isObject(input.info)) n++
    if (Array.isArray(input.messages)) n++
    if (isObject(input.info) && str(input.info.id)?.startsWith('ses_')) n++
    const first: unknown = Array.isArray(input.messages) ? input.messages[0] : undefined
    if (isObject(first) && isObject(first.info) && Array.isArray(first.parts)) n++
    return n / 4
  },
  importParsed: importOpenCodeExport,
  bundle: {
    matches: (names) => names.some((n) => MESSAGE_ENTRY.test(n)),
    lookedFor: 'message/<sesID>/<msgID>.json',
    importBundle: importOpenCodeStorage,
  },
}
