import { contentText } from '../content'
import type { Part, SourceRef, ToolCall, Transcript, TranscriptBranch } from '../model'
import { quoteForMessage, collapseWhitespace, cutCodePoints } from '../util/text'
import { importFailure } from './failure'
import type { JsonlRecord } from './json'
import type { FormatImporter, ImportOptions } from './types'
import {
  finalizeTranscript,
  imageFromUrl,
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

const format = 'pi-coding-agent'

/*
 * pi-coding-agent (badlogic/pi-mono) and its fork Oh My Pi (can1357/oh-my-pi) session files:
 * `~/.pi/agent/sessions/--<cwd>--/<timestamp>_<uuid>.jsonl` (omp: `~/.omp/agent/sessions/`). Line
 * 1 is the header `{type:"session", version, id, timestamp, cwd, parentSession?}` (omp may write a
 * fixed-width `{type:"title", title, pad}` slot before it); every other line is an entry
 * `{type, id (8 hex), parentId, timestamp}` of a tree. Sources: badlogic/pi-mono
 * `packages/coding-agent/docs/session.md`, `src/core/session-manager.ts` (`buildSessionContext`),
 * `src/core/messages.ts` (`convertToLlm`), `packages/ai/src/providers/transform-messages.ts`;
 * can1357/oh-my-pi `packages/coding-agent/src/session/session-entries.ts`. docs/formats.md.
 */

/** What pi sends in place of a compaction entry (messages.ts `COMPACTION_SUMMARY_PREFIX/SUFFIX`). */
const COMPACTION_PREFIX =
  'The conversation history before this point was compacted into the following summary:\n\n<summary>\n'
const COMPACTION_SUFFIX = '\n</summary>'
/** What pi sends in place of a branch summary (messages.ts `BRANCH_SUMMARY_PREFIX/SUFFIX`). */
const BRANCH_PREFIX =
  'The following is a summary of a branch that this conversation came back from:\n\n<summary>\n'
const BRANCH_SUFFIX = '</summary>'

/**
 * Entry types that are not part of the model's context (settings, extension state, labels,
 * names; omp: side-call usage, sub-agent init, mode and tier changes, rule injections, account
 * pins, archive marks, title changes): skipped without a warning.
 */
const CONTEXT_FREE_TYPES = new Set([
  'model_change',
  'thinking_level_change',
  'custom',
  'label',
  'session_info',
  'title_change',
  'model_usage',
  'session_init',
  'mode_change',
  'service_tier_change',
  'ttsr_injection',
  'credential_pin',
  'archive',
])

/** One tree entry: its record and where it is. */
interface Entry {
  id: string
  parentId: string | null
  line: number
  type: string
  value: JsonObject
}

/**
 * The session's entries with ids and parents. Version 1 files (no `id`/`parentId`: a linear
 * sequence) get `line<N>` ids, each the child of the one before, as pi's migration links them.
 * An entry whose `parentId` is not in the file (an unreadable line in the middle) joins the
 * entry before it in file order, with a warning (`rejoinMissingParents`).
 */
function entriesOf(records: readonly JsonlRecord[], warnings: string[]): Entry[] {
  const out: Entry[] = []
  let previous: string | null = null
  for (const { line, value } of records) {
    const type = str(value.type) ?? ''
    if (type === 'session' || type === 'title') continue
    const own = str(value.id)
    const id = own ?? `line${line}`
    const parentId = own === undefined ? previous : (str(value.parentId) ?? null)
    out.push({ id, parentId, line, type, value })
    previous = id
  }
  const linked = rejoinMissingParents(out, 'parentId', records.map((r) => r.line))
  warnings.push(...linked.warnings)
  return out.map((e, i) => ({ ...e, parentId: linked.parents[i]?.id ?? null }))
}

/** The path from `leaf` to the root, root first; a parent cycle stops the walk. */
function pathTo(leaf: Entry, byId: ReadonlyMap<string, Entry>): Entry[] {
  const path: Entry[] = []
  const seen = new Set<string>()
  for (let e: Entry | undefined = leaf; e && !seen.has(e.id); ) {
    seen.add(e.id)
    path.unshift(e)
    e = e.parentId === null ? undefined : byId.get(e.parentId)
  }
  return path
}

/** `content: string | (TextContent | ImageContent)[]` as canonical content. */
function userContent(content: unknown): string | Part[] | null {
  if (typeof content === 'string') return content
  if (!Array.isArray(content)) return ''
  const parts: Part[] = []
  for (const b of content) {
    if (!isObject(b)) continue
    if (b.type === 'text') parts.push({ type: 'text', text: str(b.text) ?? '' })
    else if (b.type === 'image') {
      const mime = str(b.mimeType) ?? 'image/png'
      parts.push(imageFromUrl(`data:${mime};base64,${str(b.data) ?? ''}`))
    } else parts.push({ type: 'opaque', kind: str(b.type) ?? 'unknown', raw: b })
  }
  return normalizeParts(parts, '')
}

/**
 * A `bashExecution` message (the user's `!command`) as the text pi sends (messages.ts
 * `bashExecutionToText`): "Ran `cmd`", the output fenced or "(no output)", then cancelled /
 * non-zero exit code / truncation notes.
 */
function bashText(m: JsonObject): string {
  const output = str(m.output) ?? ''
  let text = `Ran \`${str(m.command) ?? ''}\`\n`
  text += output !== '' ? `\`\`\`\n${output}\n\`\`\`` : '(no output)'
  if (m.cancelled === true) text += '\n\n(command cancelled)'
  else if (typeof m.exitCode === 'number' && m.exitCode !== 0)
    text += `\n\nCommand exited with code ${m.exitCode}`
  const full = str(m.fullOutputPath)
  if (m.truncated === true && full !== undefined) text += `\n\n[Output truncated. Full output: ${full}]`
  return text
}

/** A non-negative token count, 0 when absent. */
const tokens = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) && v > 0 ? v : 0)

/** What converting the path gives. */
interface Converted {
  drafts: DraftMessage[]
  compactions: DraftCompaction[]
  usage: DraftUsage[]
  warnings: string[]
  notes: string[]
  model: string | undefined
  title: string | undefined
}

/**
 * The entries on the conversation's path as drafts, as `buildSessionContext` + `convertToLlm`
 * build the model's context: `message` entries by role (`user`; `assistant` content `text`,
 * `thinking`, `toolCall{id, name, arguments}` → tool calls, `usage{input, output, cacheRead,
 * cacheWrite}` → recorded usage with context = input + cacheRead + cacheWrite, errored or aborted
 * ones left out as pi-ai's transform-messages drops them; `toolResult` → tool message;
 * `bashExecution` → the user text "Ran `…`" flagged `command`, those run with `!!`
 * (`excludeFromContext`) left out; `custom` and omp `developer`), `custom_message` → injected user
 * text, `branch_summary` → injected user text with pi's branch-summary wording, `compaction` → the
 * summary as pi sends it (a user message flagged `compactSummary`) and a recorded compaction
 * whose boundary is the first message from `firstKeptEntryId` on (so the kept messages follow the
 * summary, as pi sends them). An omp `reset_boundary` (`/clear`) restarts the context: what came
 * before it is left out, with a note.
 */
function convertPath(path: readonly Entry[], keepRaw: boolean): Converted {
  let drafts: DraftMessage[] = []
  let compactions: DraftCompaction[] = []
  let usage: DraftUsage[] = []
  const warnings: string[] = []
  const notes: string[] = []
  const unknown = new Map<string, number>()
  const toolNames = new Map<string, string>()
  // Entry id → position of the first draft at or after it (for `firstKeptEntryId`).
  let startOf = new Map<string, number>()
  let model: string | undefined
  let title: string | undefined
  let excluded = 0
  let failed = 0
  let resets = 0

  const src = (e: Entry): SourceRef => {
    const s: SourceRef = { format, line: e.line }
    if (keepRaw) s.raw = e.value
    return s
  }
  const push = (e: Entry, d: Omit<DraftMessage, 'source'>) => {
    drafts.push({ ...d, source: src(e) })
  }

  for (const e of path) {
    startOf.set(e.id, drafts.length)
    const v = e.value
    switch (e.type) {
      case 'message': {
        const m = v.message
        if (!isObject(m)) {
          warnings.push(`line ${e.line}: message entry without a message object, skipped`)
          break
        }
        const role = str(m.role)
        if (role === 'user') push(e, { id: e.id, role: 'user', content: userContent(m.content) })
        else if (role === 'developer') push(e, { id: e.id, role: 'system', content: userContent(m.content) })
        else if (role === 'custom') push(e, { id: e.id, role: 'user', content: userContent(m.content), flags: { injected: true } })
        else if (role === 'bashExecution') {
          if (m.excludeFromContext === true) excluded++
          else push(e, { id: e.id, role: 'user', content: bashText(m), flags: { command: true } })
        } else if (role === 'assistant') {
          if (m.stopReason === 'error' || m.stopReason === 'aborted') {
            failed++
            break
          }
          const parts: Part[] = []
          const calls: ToolCall[] = []
          for (const b of Array.isArray(m.content) ? m.content : []) {
            if (!isObject(b)) continue
            if (b.type === 'text') parts.push({ type: 'text', text: str(b.text) ?? '' })
            else if (b.type === 'thinking') {
              const redacted = b.redacted === true
              parts.push(
                redacted
                  ? { type: 'thinking', variant: 'redacted_thinking', encrypted: str(b.thinkingSignature) ?? '' }
                  : { type: 'thinking', variant: 'thinking', text: str(b.thinking) ?? '', ...(typeof b.thinkingSignature === 'string' ? { signature: b.thinkingSignature } : {}) },
              )
            } else if (b.type === 'toolCall') {
              const call: ToolCall = {
                id: str(b.id) ?? '',
                name: str(b.name) ?? '',
                arguments: typeof b.arguments === 'string' ? b.arguments : JSON.stringify(b.arguments ?? {}),
              }
              toolNames.set(call.id, call.name)
              calls.push(call)
            } else parts.push({ type: 'opaque', kind: str(b.type) ?? 'unknown', raw: b })
          }
          const d: Omit<DraftMessage, 'source'> = { id: e.id, role: 'assistant', content: normalizeParts(parts, calls.length > 0 ? null : '') }
          if (calls.length > 0) d.toolCalls = calls
          const u = m.usage
          if (isObject(u)) {
            const context = tokens(u.input) + tokens(u.cacheRead) + tokens(u.cacheWrite)
            const output = tokens(u.output)
            if (context > 0 || output > 0) usage.push({ atIndex: drafts.length, context, output })
          }
          model = str(m.model) ?? model
          push(e, d)
        } else if (role === 'toolResult') {
          const callId = str(m.toolCallId) ?? ''
          const d: Omit<DraftMessage, 'source'> = { id: e.id, role: 'tool', content: userContent(m.content), toolCallId: callId }
          const name = toolNames.get(callId) ?? str(m.toolName)
          if (name !== undefined) d.toolName = name
          if (m.isError === true) d.isError = true
          push(e, d)
        } else warnings.push(`line ${e.line}: message role ${quoteForMessage(m.role)} is not one pi writes, skipped`)
        break
      }
      case 'custom_message':
        push(e, { id: e.id, role: 'user', content: userContent(v.content), flags: { injected: true } })
        break
      case 'branch_summary': {
        const summary = str(v.summary) ?? ''
        if (summary !== '') push(e, { id: e.id, role: 'user', content: BRANCH_PREFIX + summary + BRANCH_SUFFIX, flags: { injected: true } })
        break
      }
      case 'compaction': {
        const summary = str(v.summary) ?? ''
        const summaryIndex = drafts.length
        push(e, { id: e.id, role: 'user', content: COMPACTION_PREFIX + summary + COMPACTION_SUFFIX, flags: { compactSummary: true } })
        const kept = str(v.firstKeptEntryId)
        let atIndex = kept === undefined ? undefined : startOf.get(kept)
        if (atIndex === undefined) {
          warnings.push(`line ${e.line}: compaction firstKeptEntryId ${quoteForMessage(kept)} is not on the conversation before it; nothing before it counts as kept`)
          atIndex = summaryIndex
        }
        const c: DraftCompaction = { atIndex, summaryIndex, summaryText: summary, source: format }
        if (typeof v.tokensBefore === 'number') c.tokensBefore = v.tokensBefore
        if (typeof v.tokensAfter === 'number') c.tokensAfter = v.tokensAfter
        compactions.push(c)
        break
      }
      case 'reset_boundary':
        resets += drafts.length
        drafts = []
        compactions = []
        usage = []
        startOf = new Map()
        break
      case 'session_info':
        title = str(v.name) ?? title
        break
      default:
        if (!CONTEXT_FREE_TYPES.has(e.type)) unknown.set(e.type, (unknown.get(e.type) ?? 0) + 1)
    }
  }
  for (const [type, n] of unknown) warnings.push(`${n} entr${n === 1 ? 'y' : 'ies'} of unknown type ${quoteForMessage(type)} skipped`)
  if (excluded > 0) notes.push(`${excluded} shell command(s) run with !! were not sent to the model: left out`)
  if (failed > 0) notes.push(`${failed} errored or aborted assistant response(s) are left out, as pi leaves them out of the context`)
  if (resets > 0) notes.push(`the context was cleared (/clear) on the way: the ${resets} message(s) before it are left out`)
  return { drafts, compactions, usage, warnings, notes, model, title }
}

/** The messages an off-path subtree holds along its newest leaf, and its first text. */
function branchOf(root: Entry, children: ReadonlyMap<string, Entry[]>): { count: number; firstText: string } {
  let count = 0
  let firstText: string | undefined
  const seen = new Set<string>()
  for (let e: Entry | undefined = root; e && !seen.has(e.id); ) {
    seen.add(e.id)
    const m = e.value.message
    if (e.type === 'message' && isObject(m)) {
      count++
      if (firstText === undefined && m.role === 'user') firstText = contentText(userContent(m.content))
    } else if (e.type === 'branch_summary' || e.type === 'custom_message' || e.type === 'compaction') count++
    const kids: Entry[] = children.get(e.id) ?? []
    e = kids[kids.length - 1]
  }
  return { count, firstText: collapseWhitespace(cutCodePoints(firstText ?? '', 120)) }
}

/**
 * Imports a pi / Oh My Pi session: the conversation is the path from the file's last entry to the
 * root (`buildSessionContext` with no leaf set), converted by `convertPath`; every subtree that
 * forks off that path (a `/tree` branch) is listed in `branches`, from its first entry along its
 * newest leaf. Title: the last `session_info.name` on the path, else the header's or omp title
 * slot's `title`. Unknown entry types are skipped, counted in a warning. Throws when there is no
 * header or no message on the path. Never modifies the records.
 */
function importPiRecords(records: readonly JsonlRecord[], options: ImportOptions = {}): Transcript {
  const keepRaw = options.keepRaw ?? true
  const header = records.find((r) => r.value.type === 'session')
  if (!header) importFailure('no {type:"session"} header line: not a pi session', { line: 1 })
  const slot = records.find((r) => r.value.type === 'title')
  const linkWarnings: string[] = []
  const entries = entriesOf(records, linkWarnings)
  const byId = new Map<string, Entry>()
  const children = new Map<string, Entry[]>()
  for (const e of entries) {
    byId.set(e.id, e)
    const key = e.parentId ?? ''
    const list = children.get(key)
    if (list) list.push(e)
    else children.set(key, [e])
  }
  const leaf = entries[entries.length - 1]
  if (!leaf) importFailure('the session has a header but no entries', { line: header.line })
  const path = pathTo(leaf, byId)
  const c = convertPath(path, keepRaw)
  if (c.drafts.length === 0) importFailure(`no messages on the session's conversation (${entries.length} entries read)`)
  const title = c.title ?? str(header.value.title) ?? (slot ? str(slot.value.title) : undefined)
  const t = finalizeTranscript(format, c.drafts, c.compactions, [...linkWarnings, ...c.warnings], {
    ...(title ? { title } : {}),
    model: c.model,
    notes: c.notes,
  })
  const usage = resolveUsage(t.messages, c.usage)
  if (usage) t.usage = usage
  const onPath = new Set(path.map((e) => e.id))
  const messageIds = new Set(t.messages.map((m) => m.id))
  const branches: TranscriptBranch[] = []
  const forkPoints: (Entry | null)[] = [null, ...path]
  for (const point of forkPoints) {
    for (const kid of children.get(point?.id ?? '') ?? []) {
      if (onPath.has(kid.id)) continue
      const { count, firstText } = branchOf(kid, children)
      if (count === 0) continue
      const upTo = point ? path.indexOf(point) : -1
      const from = path.slice(0, upTo + 1).reverse().find((p) => messageIds.has(p.id))
      branches.push({ id: kid.id, fromMessageId: from?.id ?? null, messageCount: count, firstText })
    }
  }
  if (branches.length > 0) t.branches = branches
  return t
}

/**
 * Detection: the first line is the header `{type:"session", id, cwd}` (with a `version` from 2 on),
 * or omp's `{type:"title"}` slot followed by it.
 */
function detectPi(input: unknown): true | string {
  const records = input as JsonlRecord[]
  const first = records[0]
  if (!first) return 'no readable lines'
  const head = first.value.type === 'title' ? records[1] : first
  if (!head || head.value.type !== 'session')
    return `line ${head?.line ?? first.line}: not a pi session header {type:"session", id, cwd}`
  if (typeof head.value.id !== 'string' || typeof head.value.cwd !== 'string')
    return `line ${head.line}: the session header has no "id" and "cwd"`
  return true
}

/** The pi-coding-agent / Oh My Pi session importer (registry entry). */
export const piCodingAgentImporter: FormatImporter<typeof format> = {
  id: format,
  label: 'pi-coding-agent session (JSONL)',
  container: 'jsonl',
  priority: 4.3,
  requestFormat: null,
  description:
    'pi-coding-agent or Oh My Pi session, ~/.pi/agent/sessions/--<cwd>--/<time>_<uuid>.jsonl ' +
    '(header {type:"session", version, id, cwd}, then id/parentId entries)',
  extensions: ['.jsonl'],
  detect: detectPi,
  closeness: (input) => {
    const head = (input as JsonlRecord[]).slice(0, 50)
    if (head.length === 0) return 0
    const keyed = head.filter((r) => typeof r.value.type === 'string' && 'parentId' in r.value && !('data' in r.value))
    return (0.9 * keyed.length) / head.length
  },
  importParsed: (input, options) => importPiRecords(input as JsonlRecord[], options),
}
