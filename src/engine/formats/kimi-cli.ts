import type { Part, SourceRef, ToolCall, Transcript } from '../model'
import { importFailure } from './failure'
import type { JsonlRecord } from './json'
import type { FormatImporter } from './types'
import {
  countList,
  finalizeTranscript,
  imageFromUrl,
  isObject,
  normalizeParts,
  resolveUsage,
  str,
  type DraftCompaction,
  type DraftMessage,
  type DraftUsage,
} from './util'
import { quoteForMessage } from '../util/text'

const format = 'kimi-cli'

/*
 * Kimi CLI (MoonshotAI/kimi-cli, Python) session context: `~/.kimi/sessions/<md5(work dir)>/
 * <session uuid>/context.jsonl`, one JSON object a line: `{role:"_system_prompt", content}`,
 * `{role:"_checkpoint", id}`, `{role:"_usage", token_count}` and kosong `Message`s `{role, content
 * (string or parts: {type:"text", text} | {type:"think", think} | {type:"image_url", …}),
 * tool_calls?[{type:"function", id, function{name, arguments}}], tool_call_id?}`. Sources:
 * MoonshotAI/kimi-cli `src/kimi_cli/soul/{context,compaction,message,kimisoul}.py`;
 * docs/formats.md (Kimi CLI).
 */

/** The text compaction puts first in the user message holding its summary (compaction.py). */
const COMPACTION_PREFIX = '<system>Previous context has been compacted. Here is the compaction output:</system>'
/** The user message a checkpoint may add (`<system>CHECKPOINT <n></system>`, context.py). */
const CHECKPOINT_TEXT = /^<system>CHECKPOINT \d+<\/system>$/
/** The part kimi puts first in a failed tool's result (message.py `system("ERROR")`). */
const ERROR_MARK = '<system>ERROR</system>'

/** Roles of Kimi's own bookkeeping lines. */
const META_ROLES = new Set(['_system_prompt', '_checkpoint', '_usage'])
/** Message roles (kosong `Message.role`). */
const MESSAGE_ROLES = new Set(['system', 'user', 'assistant', 'tool'])

/** A message's `content` (a string or kosong parts) as canonical parts; unknown parts opaque. */
function contentParts(content: unknown, unknown: Map<string, number>): Part[] {
  if (typeof content === 'string') return content === '' ? [] : [{ type: 'text', text: content }]
  const out: Part[] = []
  for (const p of Array.isArray(content) ? content : []) {
    if (!isObject(p)) continue
    if (p.type === 'text' && typeof p.text === 'string') {
      if (p.text !== '') out.push({ type: 'text', text: p.text })
    } else if (p.type === 'think') {
      const text = str(p.think) ?? ''
      const encrypted = str(p.encrypted)
      if (text !== '' || encrypted)
        out.push({ type: 'thinking', variant: 'thinking', text, ...(encrypted ? { encrypted } : {}) })
    } else if (p.type === 'image_url' && isObject(p.image_url) && typeof p.image_url.url === 'string') {
      out.push(imageFromUrl(p.image_url.url))
    } else {
      const kind = str(p.type) ?? 'part'
      unknown.set(kind, (unknown.get(kind) ?? 0) + 1)
      out.push({ type: 'opaque', kind, raw: p })
    }
  }
  return out
}

/** The plain text of parts (text parts only, joined without separator). */
const textOf = (parts: readonly Part[]) =>
  parts.map((p) => (p.type === 'text' ? p.text : '')).join('')

/**
 * Imports a Kimi CLI `context.jsonl`: `_system_prompt` → a leading system message; `_checkpoint`
 * lines are skipped (their optional `<system>CHECKPOINT n</system>` user message is flagged
 * injected); `_usage.token_count` is the input tokens of the model step that follows (kimisoul
 * writes it before appending that step's messages), the usage of the next assistant message.
 * Messages: `think` parts → thinking, `tool_calls` → calls, `tool` messages pair on `tool_call_id`
 * (a result starting `<system>ERROR</system>` failed). The user message starting with the
 * compaction prefix holds the summary: a recorded compaction there (`summaryText` = the text after
 * the prefix, the message flagged `compactSummary`); the file holds only the context after it
 * (Kimi renames the older file to `context_<n>.jsonl`). Unknown roles are skipped with a warning.
 */
function importKimi(records: readonly JsonlRecord[], keepRaw = true): Transcript {
  const drafts: DraftMessage[] = []
  const usage: DraftUsage[] = []
  const compactions: DraftCompaction[] = []
  const warnings: string[] = []
  const unknownRoles = new Map<string, number>()
  const unknownParts = new Map<string, number>()
  const names = new Map<string, string>()
  let pendingUsage: number | undefined
  for (const { value: v, line } of records) {
    const role = str(v.role) ?? ''
    const src = (): SourceRef => (keepRaw ? { format, line, raw: v } : { format, line })
    if (role === '_system_prompt') {
      const text = str(v.content) ?? ''
      if (text !== '') drafts.push({ id: `L${line}`, role: 'system', content: text, source: src() })
      continue
    }
    if (role === '_checkpoint') continue
    if (role === '_usage') {
      const n = v.token_count
      if (typeof n === 'number' && Number.isFinite(n) && n > 0) pendingUsage = n
      continue
    }
    if (!MESSAGE_ROLES.has(role)) {
      const key = role || '(none)'
      unknownRoles.set(key, (unknownRoles.get(key) ?? 0) + 1)
      continue
    }
    const parts = contentParts(v.content, unknownParts)
    const id = `L${line}`
    if (role === 'assistant') {
      const calls: ToolCall[] = []
      for (const c of Array.isArray(v.tool_calls) ? v.tool_calls : []) {
        if (!isObject(c)) continue
        const fn = isObject(c.function) ? c.function : {}
        const call: ToolCall = {
          id: str(c.id) ?? `${id}-call${calls.length + 1}`,
          name: str(fn.name) ?? '',
          arguments: typeof fn.arguments === 'string' ? fn.arguments : JSON.stringify(fn.arguments ?? {}),
        }
        names.set(call.id, call.name)
        calls.push(call)
      }
      const d: DraftMessage = { id, role, content: normalizeParts(parts, null), source: src() }
      if (calls.length > 0) d.toolCalls = calls
      if (pendingUsage !== undefined) {
        usage.push({ atIndex: drafts.length, context: pendingUsage })
        pendingUsage = undefined
      }
      drafts.push(d)
      continue
    }
    if (role === 'tool') {
      const callId = str(v.tool_call_id) ?? ''
      const d: DraftMessage = {
        id,
        role,
        content: normalizeParts(parts, '') ?? '',
        toolCallId: callId,
        toolName: str(v.name) ?? names.get(callId) ?? '',
        source: src(),
      }
      if (parts[0]?.type === 'text' && parts[0].text === ERROR_MARK) d.isError = true
      drafts.push(d)
      continue
    }
    const d: DraftMessage = { id, role: role as 'user' | 'system', content: normalizeParts(parts, ''), source: src() }
    const text = textOf(parts)
    if (role === 'user' && text.startsWith(COMPACTION_PREFIX)) {
      d.flags = { compactSummary: true }
      const summary = text.slice(COMPACTION_PREFIX.length).trim()
      compactions.push({
        atIndex: drafts.length,
        summaryText: summary === '' ? null : summary,
        summaryIndex: drafts.length,
        source: format,
      })
    } else if (role === 'user' && CHECKPOINT_TEXT.test(text.trim())) d.flags = { injected: true }
    drafts.push(d)
  }
  if (drafts.length === 0) importFailure('no messages found in the context file')
  if (unknownRoles.size > 0) warnings.push(`line(s) with an unknown role skipped: ${countList(unknownRoles)}`)
  if (unknownParts.size > 0)
    warnings.push(`content kept as opaque parts (unknown part type): ${countList(unknownParts)}`)
  const t = finalizeTranscript(format, drafts, compactions, warnings)
  const resolved = resolveUsage(t.messages, usage)
  if (resolved) t.usage = resolved
  return t
}

/**
 * Detection from the first 50 records: one at least has a Kimi bookkeeping role (`_system_prompt`,
 * `_checkpoint`, `_usage`), and every record has a message role or a `_`-prefixed bookkeeping role
 * (one a later build may add). A plain OpenAI chat JSONL has none of these roles.
 */
function detectKimi(input: unknown): true | string {
  const records = input as JsonlRecord[]
  const first = records[0]
  if (!first) return 'no readable lines'
  const head = records.slice(0, 50)
  const odd = head.find((r) => {
    const role = str(r.value.role) ?? ''
    return !role.startsWith('_') && !MESSAGE_ROLES.has(role)
  })
  if (odd) return `line ${odd.line}: role ${quoteForMessage(odd.value.role)} is not a Kimi CLI context role`
  if (!head.some((r) => META_ROLES.has(str(r.value.role) ?? '')))
    return `line ${first.line}: no "_system_prompt" / "_checkpoint" / "_usage" line`
  return true
}

/** The Kimi CLI context importer (registry entry). */
export const kimiCliImporter: FormatImporter<typeof format> = {
  id: format,
  label: 'Kimi CLI context (JSONL)',
  container: 'jsonl',
  priority: 4.4,
  requestFormat: 'openai-chat',
  description: 'Kimi CLI session context, ~/.kimi/sessions/<work dir hash>/<session>/context.jsonl',
  extensions: ['.jsonl'],
  detect: detectKimi,
  closeness: (input) => {
    const head = (input as JsonlRecord[]).slice(0, 50)
    if (head.length === 0) return 0
    return head.filter((r) => META_ROLES.has(str(r.value.role) ?? '')).length > 0 ? 0.8 : 0
  },
  importParsed: (input, options) => importKimi(input as JsonlRecord[], options.keepRaw),
}
