/*
 * Cline / Roo Code / Kilo Code task histories (docs/formats.md §4.17): a task folder holds
 * `api_conversation_history.json` (the model's context: Anthropic-shaped messages with the
 * agent's own fields) and beside it `ui_messages.json` (the UI log: usage per request, Cline's
 * truncation range) and `task_metadata.json`. The history alone imports as one JSON file; a
 * folder or a zip of one or several task folders imports through the bundle reading.
 */
import type { Part, SourceRef, ToolCall, ToolSchema, Transcript } from '../model'
import { countMessageTokens } from '../tokens/count'
import { splitAssistantContent, splitUserContent } from './anthropic'
import { importFailure } from './failure'
import { parseJsonWithin } from '../util/nesting'
import type { FileBundle, FormatImporter, ImportOptions } from './types'
import {
  capWarnings,
  finalizeTranscript,
  isObject,
  resolveUsage,
  str,
  withConversations,
  type DraftCompaction,
  type DraftMessage,
  type DraftUsage,
  type JsonObject,
} from './util'
import { quoteForMessage } from '../util/text'
import { inputRecord } from '../util/input-record'

const format = 'cline' as const

/** The task's model history, the file every Cline / Roo Code / Kilo Code task folder holds. */
const HISTORY_FILE = 'api_conversation_history.json'
/** The task's UI log beside it (usage per request, Cline's truncation range). */
const UI_FILE = 'ui_messages.json'
/** The task's metadata beside it (`model_usage`, `files_in_context`). */
const METADATA_FILE = 'task_metadata.json'

/**
 * The header of a tool result the agent writes as user text: `[read_file for 'a.ts'] Result:`,
 * `[attempt_completion] Result:` (Cline `ToolResultUtils.pushToolResult`: `${toolDescription}
 * Result:`; Roo the same). Group 1 is the tool's name.
 */
const RESULT_LABEL = /^\[([A-Za-z0-9_.:-]+)(?:[ \t][^\n]*?)?\] Result:[ \t]*(?:\r?\n)?/

/** Cline's summary tools: automatic condensing and `/smol` (the manual one). */
const SUMMARY_TOOLS: Record<string, string> = { summarize_task: 'auto', condense: 'manual' }

/** Text blocks that wrap the human's own words: the text inside is the prompt. */
const HUMAN_WRAPPERS = ['task', 'user_message', 'feedback'] as const

/**
 * Heads of user text the agent writes itself (not the human): environment details, the resume
 * notice, the no-tool reminder, injected instructions, Cline's truncation notice. Source: Cline
 * `src/core/prompts/responses.ts` (`formatResponse.noToolsUsed`, `taskResumption`), Roo
 * `src/core/prompts/responses.ts`.
 */
const INJECTED_HEADS = [
  '<environment_details>',
  '[TASK RESUMPTION]',
  '[ERROR]',
  '<explicit_instructions',
  '[NOTE]',
]

/** Roo Code's condensing and truncation fields on a history message (`packages/types/src/message.ts`). */
const ROO_KEYS = ['isSummary', 'condenseId', 'condenseParent', 'truncationId', 'truncationParent', 'isTruncationMarker']

/** The text of a block or a string content, '' for anything else. */
function blockText(block: unknown): string {
  if (typeof block === 'string') return block
  return isObject(block) && block.type === 'text' ? (str(block.text) ?? '') : ''
}

/** A message's content as blocks: a string is one text block. */
function blocksOf(content: unknown): unknown[] {
  if (typeof content === 'string') return [{ type: 'text', text: content }]
  return Array.isArray(content) ? content : content == null ? [] : [content]
}

/** The text inside `<tag>…</tag>` at the start of `text` (trimmed), or undefined when it does not start so. */
function unwrap(text: string, tag: string): string | undefined {
  const t = text.trimStart()
  if (!t.startsWith(`<${tag}>`)) return undefined
  const end = t.lastIndexOf(`</${tag}>`)
  return (end < 0 ? t.slice(tag.length + 2) : t.slice(tag.length + 2, end)).trim()
}

/**
 * A user text block cut where the agent's own text quotes the human's words: the resume notice
 * ends with `New instructions for task continuation:\n<user_message>…</user_message>`, whose
 * inside is the human's. Gives the text before, the words inside and the text after (the outer
 * pieces trimmed, '' when absent), or undefined for a block of one kind.
 */
function quotedPrompt(text: string): [string, string, string] | undefined {
  const head = text.trimStart()
  if (!INJECTED_HEADS.some((h) => head.startsWith(h))) return undefined
  const open = text.indexOf('<user_message>')
  const close = text.indexOf('</user_message>', open)
  if (open < 0 || close < 0) return undefined
  return [text.slice(0, open).trimEnd(), text.slice(open + 14, close).trim(), text.slice(close + 15).trim()]
}

/** Who wrote a user text block: the human (with the words inside a wrapper) or the agent. */
function classify(text: string): { kind: 'human'; text: string } | { kind: 'injected' } {
  const head = text.trimStart()
  if (INJECTED_HEADS.some((h) => head.startsWith(h))) return { kind: 'injected' }
  for (const tag of HUMAN_WRAPPERS) {
    const inner = unwrap(head, tag)
    if (inner !== undefined) return { kind: 'human', text: inner }
  }
  return { kind: 'human', text }
}

/** Most `<param>` tags one XML-era call is searched for: a hostile text cannot make the search quadratic. */
const MAX_XML_PARAMS = 64

/**
 * The parameters of an XML-era tool call, `<read_file><path>a.ts</path></read_file>`: each
 * top-level `<param>value</param>` inside the call as a string (one leading and trailing newline
 * dropped); an unclosed tag is skipped. At most `MAX_XML_PARAMS` tags are tried.
 */
function xmlParams(body: string): Record<string, string> {
  const out = inputRecord<string>()
  const open = /<([A-Za-z_][A-Za-z0-9_-]*)>/g
  for (let tries = 0; tries < MAX_XML_PARAMS; tries++) {
    const m = open.exec(body)
    if (!m) break
    const name = m[1] as string
    const close = body.indexOf(`</${name}>`, open.lastIndex)
    if (close < 0) continue
    out[name] = body.slice(open.lastIndex, close).replace(/^\r?\n/, '').replace(/\r?\n$/, '')
    open.lastIndex = close + name.length + 3
  }
  return out
}

/** The first XML call `<name>…</name>` in `text` (to the end when unclosed): its body and the text without it. */
function cutXmlCall(text: string, name: string): { body: string; rest: string } | undefined {
  const start = text.indexOf(`<${name}>`)
  if (start < 0) return undefined
  const close = text.indexOf(`</${name}>`, start)
  const end = close < 0 ? text.length : close + name.length + 3
  const body = text.slice(start + name.length + 2, close < 0 ? text.length : close)
  const rest = (text.slice(0, start) + text.slice(end)).replace(/\n{3,}/g, '\n\n').trim()
  return { body, rest }
}

/**
 * Takes the first XML call `<name>…</name>` out of an assistant draft's text (a string content or
 * one of its text parts; a part left empty is dropped) and gives its body, or undefined when the
 * text holds none.
 */
function takeXmlCall(d: DraftMessage, name: string): string | undefined {
  if (typeof d.content === 'string') {
    const cut = cutXmlCall(d.content, name)
    if (!cut) return undefined
    d.content = cut.rest === '' ? null : cut.rest
    return cut.body
  }
  if (!Array.isArray(d.content)) return undefined
  for (const [k, p] of d.content.entries()) {
    if (p.type !== 'text') continue
    const cut = cutXmlCall(p.text, name)
    if (!cut) continue
    if (cut.rest === '') d.content.splice(k, 1)
    else d.content[k] = { type: 'text', text: cut.rest }
    return cut.body
  }
  return undefined
}

/** A `[name …] Result:` label stripped from a tool result's content (string or blocks). */
function stripLabel(content: unknown): unknown {
  if (typeof content === 'string') return content.replace(RESULT_LABEL, '')
  if (!Array.isArray(content)) return content
  const [first, ...rest] = content
  const text = blockText(first)
  if (!isObject(first) || !RESULT_LABEL.test(text)) return content
  const remainder = text.replace(RESULT_LABEL, '')
  return remainder === '' ? rest : [{ ...first, text: remainder }, ...rest]
}

/** A non-negative token count, 0 for anything else. */
const tokens = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) && v > 0 ? v : 0)

/**
 * The context one request sent, from an assistant message's `metrics.tokens{prompt, completion,
 * cached}`. Cline writes `prompt` = the provider's input tokens and `cached` = cache writes + cache
 * reads (`src/core/task/index.ts`); its type says `prompt` includes `cached`, which holds for
 * OpenAI-style providers, but Anthropic's `input_tokens` leaves the cache out. So when `cached`
 * exceeds `prompt` the prompt cannot include it and the context is `prompt + cached`; else `prompt`.
 */
function metricsContext(t: JsonObject): number {
  const prompt = tokens(t.prompt)
  const cached = tokens(t.cached)
  return cached > prompt ? prompt + cached : prompt
}

/** A request's recorded context and output, at the history index of the assistant message it produced. */
interface HistoryRequest {
  i: number
  context: number
  output: number
}

/**
 * Cline's next deleted range (`ContextManager.getNextTruncationRange`): messages 0 and 1 are always
 * kept; from the first message after the previous range (2 without one), `half` removes
 * ⌊rest / 4⌋ · 2 messages and `quarter` ⌊rest · 3/4 / 2⌋ · 2 (rest = `length` − that start), the
 * range ending on an assistant message (one earlier otherwise). The inclusive range `[2, end]`, or
 * undefined when it removes nothing. `roles` are the history's roles by index; `length` is the
 * history Cline had when it truncated (the messages before the request).
 */
function nextTruncationRange(
  roles: readonly unknown[],
  length: number,
  previous: [number, number] | undefined,
  keep: 'half' | 'quarter',
): [number, number] | undefined {
  const start = previous ? previous[1] + 1 : 2
  const rest = length - start
  const remove = keep === 'half' ? Math.floor(rest / 4) * 2 : Math.floor((rest * 3) / 4 / 2) * 2
  let end = start + remove - 1
  if (end >= 0 && end < roles.length && roles[end] !== 'assistant') end--
  return end >= start ? [2, end] : undefined
}

/** A recorded context falls "well below" the previous one: by more than this share… */
const TRUNCATION_FALL_SHARE = 0.2
/** …and by more than this many tokens. */
const TRUNCATION_FALL_TOKENS = 2000

/**
 * Cline's truncations read from the recorded usage when `ui_messages.json` (which holds the deleted
 * range) is not given. Cline truncates before a request when the previous request's total (context +
 * output) reached its limit (`ContextManager.getNewContextMessagesAndMetadata`), without rewriting the
 * history. Here: a request whose recorded context falls below the previous one's by more than
 * `TRUNCATION_FALL_SHARE` and `TRUNCATION_FALL_TOKENS` was truncated; the smallest previous total
 * among those is taken as the limit, and every request after a total at or above it whose context
 * falls at all was truncated too. For each, the range is Cline's `half` or `quarter`
 * (`nextTruncationRange`, accumulated from the previous one) whose removed messages best match what
 * the recorded figures say was removed: the previous context + the messages since − this context,
 * message sizes (`sizes`, characters by history index) turned into tokens by the ratio of the
 * recorded growth to the characters added between requests that were not truncated. Gives each
 * truncated request's history index and its range, in order.
 */
function inferTruncations(
  roles: readonly unknown[],
  sizes: readonly number[],
  requests: readonly HistoryRequest[],
): { i: number; range: [number, number] }[] {
  const reqs = requests.filter((r) => r.context > 0)
  const sizeOf = (from: number, to: number) => {
    let n = 0
    for (let h = Math.max(0, from); h < to && h < sizes.length; h++) n += sizes[h] as number
    return n
  }
  const falls = (k: number) => {
    const prev = reqs[k - 1] as HistoryRequest
    const cur = reqs[k] as HistoryRequest
    return cur.context < prev.context * (1 - TRUNCATION_FALL_SHARE) && prev.context - cur.context > TRUNCATION_FALL_TOKENS
  }
  let limit = Infinity
  for (let k = 1; k < reqs.length; k++) {
    const prev = reqs[k - 1] as HistoryRequest
    if (falls(k)) limit = Math.min(limit, prev.context + prev.output)
  }
  if (limit === Infinity) return []
  const truncated = new Set<number>()
  for (let k = 1; k < reqs.length; k++) {
    const prev = reqs[k - 1] as HistoryRequest
    const cur = reqs[k] as HistoryRequest
    if (falls(k) || (prev.context + prev.output >= limit && cur.context < prev.context)) truncated.add(k)
  }
  // Tokens per character: the recorded growth over what was added, between untruncated requests.
  let grown = 0
  let added = 0
  for (let k = 1; k < reqs.length; k++) {
    if (truncated.has(k)) continue
    const prev = reqs[k - 1] as HistoryRequest
    grown += (reqs[k] as HistoryRequest).context - prev.context
    added += sizeOf(prev.i, (reqs[k] as HistoryRequest).i)
  }
  const first = reqs[0] as HistoryRequest
  const ratio = grown > 0 && added > 0 ? grown / added : first.context / Math.max(1, sizeOf(0, first.i))
  const out: { i: number; range: [number, number] }[] = []
  let range: [number, number] | undefined
  for (const k of [...truncated].sort((a, b) => a - b)) {
    const prev = reqs[k - 1] as HistoryRequest
    const cur = reqs[k] as HistoryRequest
    const removed = prev.context + ratio * sizeOf(prev.i, cur.i) - cur.context
    let best: { miss: number; range: [number, number] } | undefined
    for (const keep of ['half', 'quarter'] as const) {
      const next = nextTruncationRange(roles, cur.i, range, keep)
      if (!next) continue
      const miss = Math.abs(ratio * sizeOf(range ? range[1] + 1 : 2, next[1] + 1) - removed)
      if (!best || miss < best.miss) best = { miss, range: next }
    }
    if (!best) continue
    range = best.range
    out.push({ i: cur.i, range })
  }
  return out
}

/** Usage one request recorded, from a UI log `api_req_started` entry. */
interface UiRequest {
  ts: number | undefined
  context: number
  output: number
}

/** What the UI log beside the history adds. */
interface UiLog {
  requests: UiRequest[]
  /**
   * Cline's `conversationHistoryDeletedRange` values, each distinct one once, in log order, with the
   * history index of the assistant message of the request it was first sent with when the entry
   * that first carries it has a `conversationHistoryIndex`.
   */
  deletedRanges: { range: [number, number]; request?: number }[]
  /** Roo `condense_context` entries' token figures, in log order. */
  condenses: { before?: number; after?: number }[]
  warnings: string[]
}

/**
 * Reads a task's `ui_messages.json` (`[{ts, type:"ask"|"say", say?, text?,
 * conversationHistoryDeletedRange?}]`): each `say:"api_req_started"` whose text is JSON
 * `{tokensIn, tokensOut, cacheWrites, cacheReads, cost}` → one request's usage (context =
 * tokensIn + cacheWrites + cacheReads, output = tokensOut; all-zero entries, a cancelled request,
 * skipped); each new `conversationHistoryDeletedRange` → a truncation; Roo's
 * `say:"condense_context"` `contextCondense{prevContextTokens, newContextTokens}` → a condensing's
 * figures. Source: Cline `src/shared/ExtensionMessage.ts` (`ClineApiReqInfo`), Roo
 * `packages/types/src/message.ts`.
 */
function readUiLog(root: unknown, name: string): UiLog {
  const log: UiLog = { requests: [], deletedRanges: [], condenses: [], warnings: [] }
  if (!Array.isArray(root)) {
    log.warnings.push(`${name}: not an array, usage and truncations not read`)
    return log
  }
  let last = ''
  let bad = 0
  for (const e of root) {
    if (!isObject(e)) continue
    const range = e.conversationHistoryDeletedRange
    if (Array.isArray(range) && range.length === 2 && range.every((n) => Number.isInteger(n))) {
      const key = `${range[0]},${range[1]}`
      if (key !== last) {
        const d: UiLog['deletedRanges'][number] = { range: [range[0] as number, range[1] as number] }
        const c = e.conversationHistoryIndex
        if (typeof c === 'number' && Number.isInteger(c)) d.request = c + (e.say === 'api_req_started' ? 2 : 1)
        log.deletedRanges.push(d)
      }
      last = key
    }
    if (e.say === 'api_req_started' && typeof e.text === 'string') {
      const parsed = parseJsonWithin(e.text)
      if (!parsed) {
        bad++
        continue
      }
      const info = parsed.value
      if (!isObject(info)) continue
      const context = tokens(info.tokensIn) + tokens(info.cacheWrites) + tokens(info.cacheReads)
      const output = tokens(info.tokensOut)
      if (context === 0 && output === 0) continue
      log.requests.push({ ts: typeof e.ts === 'number' ? e.ts : undefined, context, output })
    }
    if (e.say === 'condense_context' && isObject(e.contextCondense)) {
      const c = e.contextCondense
      const figures: { before?: number; after?: number } = {}
      if (typeof c.prevContextTokens === 'number') figures.before = c.prevContextTokens
      if (typeof c.newContextTokens === 'number') figures.after = c.newContextTokens
      log.condenses.push(figures)
    }
  }
  if (bad > 0) log.warnings.push(`${name}: ${bad} api_req_started entr${bad === 1 ? 'y has' : 'ies have'} no JSON usage, skipped`)
  return log
}

/** The model a task's `task_metadata.json` names last (`model_usage[].model_id`). */
function metadataModel(root: unknown): string | undefined {
  if (!isObject(root) || !Array.isArray(root.model_usage)) return undefined
  let model: string | undefined
  for (const u of root.model_usage) if (isObject(u) && typeof u.model_id === 'string') model = u.model_id
  return model
}

/** The history's messages: the array itself, or Cline ≥ 4's `{messages:[…]}` session file. */
function historyList(root: unknown): unknown[] | undefined {
  if (Array.isArray(root)) return root
  if (isObject(root) && Array.isArray(root.messages)) return root.messages
  return undefined
}

/** A Roo reasoning entry (`{type:"reasoning", …}` without a role) among the history's messages. */
const isReasoningEntry = (m: JsonObject) => m.role === undefined && m.type === 'reasoning'

/**
 * A history message that is a condensing's summary or a truncation's marker: Roo `isSummary` /
 * `isTruncationMarker`, Cline ≥ 4 `metadata.kind:"compaction_summary"`.
 */
function isSummaryMessage(m: JsonObject): boolean {
  return (
    m.isSummary === true ||
    m.isTruncationMarker === true ||
    (isObject(m.metadata) && m.metadata.kind === 'compaction_summary')
  )
}

/** The first signature of this agent in one history message, or undefined. */
function signature(m: JsonObject): string | undefined {
  if (isObject(m.modelInfo)) return 'modelInfo'
  if (ROO_KEYS.some((k) => k in m)) return 'Roo condensing fields'
  if (isObject(m.metadata) && m.metadata.kind === 'compaction_summary') return 'compaction_summary'
  for (const b of blocksOf(m.content)) {
    const text = blockText(b).trimStart()
    if (text.startsWith('<task>')) return '<task>'
    if (text.includes('<environment_details>')) return '<environment_details>'
    if (m.role === 'user' && RESULT_LABEL.test(text)) return '[tool for …] Result:'
  }
  return undefined
}

/** Whether a parsed root is Cline's UI log (`ui_messages.json`): `{ts, type:"say"|"ask"}` entries. */
function isUiLog(root: unknown): boolean {
  return (
    Array.isArray(root) &&
    root.length > 0 &&
    root.slice(0, 20).every((e) => isObject(e) && typeof e.ts === 'number' && (e.type === 'say' || e.type === 'ask'))
  )
}

/**
 * Detection: an array (or `{messages}`) of user/assistant messages (Roo's role-less
 * `type:"reasoning"` entries allowed) where one message carries this agent's signature —
 * `modelInfo`, Roo's condensing fields, a `<task>` or `<environment_details>` text, a
 * `[tool for '…'] Result:` user text — or every message has a numeric `ts`. Runs before
 * Anthropic Messages, which would read the same file and lose every text-block tool result.
 */
function detectCline(root: unknown): true | string {
  if (isUiLog(root)) {
    return `this is a Cline / Roo Code task's ${UI_FILE} (its UI log): open ${HISTORY_FILE} or the task folder`
  }
  const list = historyList(root)
  if (!list) return `no message array (${HISTORY_FILE} is an array of {role, content, ts})`
  if (list.length === 0) return 'the message array is empty'
  let found: string | undefined
  let allTs = true
  for (const [i, m] of list.entries()) {
    if (!isObject(m)) return `[${i}] is not an object`
    if (isReasoningEntry(m)) continue
    if (m.role !== 'user' && m.role !== 'assistant') return `[${i}].role is not user or assistant`
    if (typeof m.ts !== 'number') allTs = false
    found ??= signature(m)
  }
  if (found !== undefined || allTs) return true
  return 'no Cline / Roo Code signature (ts, modelInfo, <task>, <environment_details>, "[tool for …] Result:")'
}

/** What the core import is given besides the history. */
interface HistoryExtras {
  ui?: UiLog
  model?: string
  /** Prefix for warnings and fields (the entry name in a bundle). */
  where?: string
}

/** A tool result cut out of one user message, before its call is known. */
interface ResultSegment {
  name: string
  /** A native `tool_result`'s call id; undefined for a text-label result. */
  toolCallId?: string
  blocks: unknown[]
  isError: boolean
  raw: unknown
}

/**
 * Imports one task's history (a captured request body `{system, tools, model, messages}` also gives
 * a leading system message, the tool schemas and the model). Per message (field `[i]`):
 * - assistant: Anthropic blocks (`splitAssistantContent`: text, thinking, `tool_use` calls);
 *   Roo's role-less `type:"reasoning"` entries become an opaque part of the next assistant
 *   message; Roo's `isSummary` assistant message (05–11/2025) is flagged `compactSummary`.
 * - user: native `tool_result` → a tool message (a leading `[… ] Result:` label, which Cline
 *   keeps inside, dropped); a text block starting with `[name for '…'] Result:` opens a result
 *   whose output is the rest of that block and the blocks after it up to the next result or the
 *   agent's own text. Such a result answers the previous assistant message's unanswered
 *   `tool_use` of that name (else the oldest: Cline's fallback when it cannot map a native call),
 *   else the XML-era call `<name>…</name>` in that message's text, which becomes a tool call
 *   (id `cline-<i>-<n>`, its `<param>` children as string arguments) and leaves the text; a
 *   result with no call in the previous message still gets one there, with `{}` arguments.
 *   The other blocks: `<task>`, `<user_message>`, `<feedback>` → a user message holding the text
 *   inside (the human's words); `<environment_details>`, `[TASK RESUMPTION]`, `[ERROR] …`,
 *   `<explicit_instructions>`, `[NOTE]` → a user message flagged `injected`; anything else → the
 *   human's; Roo's summary (`isSummary`) and truncation marker (`isTruncationMarker`) → one
 *   user message flagged `compactSummary`.
 * Compactions (recorded, `source` cline): Cline's `summarize_task` (trigger auto) / `condense`
 * (manual) call → at its message, the call's message holding the summary (its `context`
 * argument, else the result), kept before it the first two history messages; each new
 * `conversationHistoryDeletedRange [s, e]` in the UI log → a truncation (trigger `truncation`,
 * no summary) at the assistant message of the request it was first sent with (from the entry's
 * `conversationHistoryIndex`; else history message e+1) keeping messages 0..s−1 and those after
 * the range before it, unless a summary call is there;
 * Roo's summary / truncation marker → at that message, kept before it the messages no existing
 * `condenseId` / `truncationId` hides (legacy summaries without an id: the first message), with
 * `condense_context` figures from the UI log in order. Without a UI log (and with no summary call
 * or Roo marker), Cline's truncations are inferred from the recorded usage (`inferTruncations`):
 * each at the truncated request's assistant message, keeping history messages 0–1 and those after
 * the range up to the request, with a note. Usage: `metrics.tokens` on an assistant message
 * (`metricsContext`), else the UI log's requests matched to the first assistant message at or
 * after the request's `ts` (by order without `ts`). Throws `ImportFailure` without a message array
 * or when no message is kept.
 */
function importHistory(root: unknown, keepRaw: boolean, extras: HistoryExtras = {}): Transcript {
  const where = extras.where ? `${extras.where}: ` : ''
  const list = historyList(root)
  if (!list) importFailure(`${where}expected an array of messages`, { field: extras.where ?? 'messages' })
  const drafts: DraftMessage[] = []
  const compactions: DraftCompaction[] = []
  const warnings: string[] = []
  const skipped: string[] = []
  const usage: DraftUsage[] = []
  /** History index → its first and past-last draft positions. */
  const spans: [number, number][] = []
  /** History index of each assistant message with a draft, and that draft's position. */
  const assistants: { i: number; at: number; ts: number | undefined }[] = []
  const toolNames = new Map<string, string>()
  let pendingReasoning: Part[] = []
  let model: string | undefined
  /** The previous assistant message: its draft and position, unanswered native calls, XML calls made. */
  let prev: { draft: DraftMessage; at: number; i: number; open: ToolCall[]; made: number } | undefined
  const summaryCalls: { at: number; i: number; trigger: string; summary: string | null; id: string }[] = []
  /** Notes a summary tool's call (Cline `summarize_task` / `condense`) of history message `i`. */
  const noteSummaryCall = (c: ToolCall, at: number, i: number) => {
    const trigger = Object.hasOwn(SUMMARY_TOOLS, c.name) ? SUMMARY_TOOLS[c.name] : undefined
    if (trigger === undefined) return
    let summary: string | null = null
    // Arguments that are not JSON (or nest too deep) leave the summary to the result.
    const args = parseJsonWithin(c.arguments)?.value
    if (isObject(args) && typeof args.context === 'string') summary = args.context
    summaryCalls.push({ at, i, trigger, summary, id: c.id })
  }
  const roo: { i: number; at: number; id?: string; kind: 'condense' | 'truncation' }[] = []
  /** The usage `metrics.tokens` recorded, by the history index of the assistant message it is on. */
  const recorded: HistoryRequest[] = []
  const notes: string[] = []

  const src = (i: number, raw: unknown): SourceRef => {
    const s: SourceRef = { format, line: i + 1 }
    if (keepRaw) s.raw = raw
    return s
  }

  /** The call a text-label or native result answers, made from the previous message's XML when needed. */
  const callFor = (seg: ResultSegment, i: number): string => {
    if (seg.toolCallId !== undefined) {
      if (prev) prev.open = prev.open.filter((c) => c.id !== seg.toolCallId)
      return seg.toolCallId
    }
    if (!prev) {
      warnings.push(`${where}[${i}]: result of ${quoteForMessage(seg.name)} follows no assistant message`)
      return `cline-orphan-${i}-${seg.name}`
    }
    let k = prev.open.findIndex((c) => c.name === seg.name)
    if (k < 0 && prev.open.length > 0) k = 0
    if (k >= 0) return (prev.open.splice(k, 1)[0] as ToolCall).id
    const body = takeXmlCall(prev.draft, seg.name)
    const call: ToolCall = {
      id: `cline-${prev.i}-${prev.made++}`,
      name: seg.name,
      arguments: JSON.stringify(body !== undefined ? xmlParams(body) : {}),
    }
    ;(prev.draft.toolCalls ??= []).push(call)
    toolNames.set(call.id, call.name)
    noteSummaryCall(call, prev.at, prev.i)
    return call.id
  }

  // A request body Cline sent, captured with its `system` prompt and `tools`: the prompt leads.
  const system = isObject(root) ? systemText(root.system) : ''
  if (system !== '') drafts.push({ id: '', role: 'system', content: system, source: { format } })
  list.forEach((m, i) => {
    const start = drafts.length
    const field = `${where}[${i}]`
    if (!isObject(m)) {
      skipped.push(`${field}: not an object, skipped`)
      spans.push([start, start])
      return
    }
    if (isReasoningEntry(m)) {
      pendingReasoning.push({ type: 'opaque', kind: 'reasoning', raw: m })
      spans.push([start, start])
      return
    }
    const ts = typeof m.ts === 'number' ? m.ts : undefined
    if (m.role === 'assistant') {
      if (isObject(m.modelInfo) && typeof m.modelInfo.modelId === 'string') model = m.modelInfo.modelId
      const split = splitAssistantContent(m.content)
      let content = split.content
      if (pendingReasoning.length > 0) {
        const rest: Part[] = content === null ? [] : typeof content === 'string' ? [{ type: 'text', text: content }] : content
        content = [...pendingReasoning, ...rest]
        pendingReasoning = []
      }
      const d: DraftMessage = { id: '', role: 'assistant', content, source: src(i, m) }
      if (split.toolCalls.length > 0) d.toolCalls = split.toolCalls
      if (isSummaryMessage(m)) d.flags = { compactSummary: true }
      for (const c of split.toolCalls) toolNames.set(c.id, c.name)
      drafts.push(d)
      assistants.push({ i, at: start, ts })
      prev = { draft: d, at: start, i, open: [...split.toolCalls], made: 0 }
      for (const c of split.toolCalls) noteSummaryCall(c, start, i)
      const metrics = isObject(m.metrics) && isObject(m.metrics.tokens) ? m.metrics.tokens : undefined
      if (metrics) {
        const context = metricsContext(metrics)
        const output = tokens(metrics.completion)
        if (context > 0 || output > 0) {
          usage.push({ atIndex: start, context, output })
          recorded.push({ i, context, output })
        }
      }
    } else if (m.role === 'user') {
      if (isSummaryMessage(m)) {
        const { user } = splitUserContent(m.content)
        drafts.push({ id: '', role: 'user', content: user ?? '', flags: { compactSummary: true }, source: src(i, m) })
      } else {
        importUser(m, i)
      }
      prev = undefined
    } else {
      skipped.push(`${field}.role: "${String(m.role)}" is not user or assistant, skipped`)
    }
    if (isSummaryMessage(m)) {
      const id = str(m.condenseId) ?? str(m.truncationId)
      roo.push({ i, at: start, ...(id !== undefined ? { id } : {}), kind: m.isTruncationMarker === true ? 'truncation' : 'condense' })
    }
    spans.push([start, drafts.length])
  })
  if (pendingReasoning.length > 0) {
    drafts.push({ id: '', role: 'assistant', content: pendingReasoning, source: { format } })
  }

  /** One user history message: its results, the human's words and the agent's own text, in order. */
  function importUser(m: JsonObject, i: number): void {
    const blocks = blocksOf(m.content)
    let seg: ResultSegment | undefined
    let run: { kind: 'human' | 'injected'; blocks: unknown[] } | undefined
    const flushRun = () => {
      if (!run) return
      const { user } = splitUserContent(run.blocks)
      const d: DraftMessage = { id: '', role: 'user', content: user ?? '', source: src(i, m) }
      if (run.kind === 'injected') d.flags = { injected: true }
      drafts.push(d)
      run = undefined
    }
    const flushSeg = () => {
      if (!seg) return
      const id = callFor(seg, i)
      const stripped = stripLabel(seg.blocks)
      const { user } = splitUserContent(stripped)
      const d: DraftMessage = { id: '', role: 'tool', content: user ?? '', toolCallId: id, source: src(i, seg.raw) }
      const name = toolNames.get(id) ?? seg.name
      if (name !== '') d.toolName = name
      if (seg.isError) d.isError = true
      drafts.push(d)
      seg = undefined
    }
    const pieces = blocks.flatMap((b) => {
      const quoted = quotedPrompt(blockText(b))
      if (!quoted || !isObject(b)) return [b]
      return quoted.filter((t, k) => t !== '' || k === 1).map((t) => ({ ...b, text: t }))
    })
    for (const b of pieces) {
      if (isObject(b) && b.type === 'tool_result') {
        flushSeg()
        flushRun()
        const content = stripLabel(b.content)
        const id = str(b.tool_use_id) ?? ''
        seg = {
          name: toolNames.get(id) ?? '',
          toolCallId: id,
          blocks: blocksOf(content),
          isError: b.is_error === true,
          raw: b,
        }
        flushSeg()
        continue
      }
      const text = blockText(b)
      const label = RESULT_LABEL.exec(text)
      if (label) {
        flushSeg()
        flushRun()
        seg = { name: label[1] as string, blocks: [b], isError: false, raw: m }
        continue
      }
      const who = text !== '' ? classify(text) : ({ kind: 'human', text: '' } as const)
      const prompt = unwrap(text, 'task') !== undefined || unwrap(text, 'user_message') !== undefined
      if (seg && who.kind === 'human' && !prompt) {
        // The output continues: more text, an image, the human's feedback on the result.
        seg.blocks.push(b)
        continue
      }
      flushSeg()
      const block = who.kind === 'human' && text !== '' && isObject(b) ? { ...b, text: who.text } : b
      if (run && run.kind !== who.kind) flushRun()
      run ??= { kind: who.kind, blocks: [] }
      run.blocks.push(block)
    }
    flushSeg()
    flushRun()
  }

  if (list.length > 0 && drafts.length === 0)
    importFailure(`${where}no user or assistant message found`, { field: extras.where ?? 'messages' })
  if (list.length === 0) importFailure(`${where}the message array is empty`, { field: extras.where ?? 'messages' })

  /** Draft positions of history messages `from`..`to`−1. */
  const draftsOf = (from: number, to: number): number[] => {
    const at: number[] = []
    for (let h = from; h < to && h < spans.length; h++) {
      const [a, b] = spans[h] as [number, number]
      for (let k = a; k < b; k++) at.push(k)
    }
    return at
  }
  const pending: { c: DraftCompaction; kept: number[] }[] = []
  // Cline: summary calls, then truncations not at a summary call.
  const summaryAt = new Set<number>()
  for (const s of summaryCalls) {
    summaryAt.add(s.i)
    let summary = s.summary
    if (summary === null) {
      const result = drafts.find((d) => d.role === 'tool' && d.toolCallId === s.id)?.content
      if (typeof result === 'string' && result !== '') summary = result
    }
    const c: DraftCompaction = { atIndex: s.at, summaryText: summary, summaryIndex: s.at, trigger: s.trigger, source: format }
    pending.push({ c, kept: draftsOf(0, Math.min(2, s.i)) })
  }
  /** A truncation of history messages `s..e` at history message `at`: kept are `0..s−1` and `e+1..at−1`. */
  const truncation = (s: number, e: number, at: number) => {
    const c: DraftCompaction = { atIndex: (spans[at] as [number, number])[0], summaryText: null, trigger: 'truncation', source: format }
    pending.push({ c, kept: [...draftsOf(0, Math.max(0, Math.min(s, e + 1))), ...draftsOf(e + 1, at)] })
  }
  for (const { range, request } of extras.ui?.deletedRanges ?? []) {
    const [s, e] = range
    const next = e + 1
    if (summaryAt.has(next) || summaryAt.has(e)) continue
    if (next >= spans.length) {
      warnings.push(`${where}${UI_FILE}: deleted range [${s}, ${e}] ends past the history's ${spans.length} messages`)
      continue
    }
    // At the request it was sent with when the log says which (an assistant message after the range).
    const sent = request !== undefined ? list[request] : undefined
    const at = request !== undefined && request > next && isObject(sent) && sent.role === 'assistant' ? request : next
    truncation(s, e, at)
  }
  // Cline without its UI log: truncations read from where the recorded context falls.
  if (!extras.ui && summaryCalls.length === 0 && roo.length === 0 && recorded.length > 1) {
    const sizes = spans.map(([a, b]) => {
      let n = 0
      for (let k = a; k < b; k++) n += countMessageTokens({ ...(drafts[k] as DraftMessage), index: k }, (text) => text.length)
      return n
    })
    const roles = list.map((m) => (isObject(m) ? m.role : undefined))
    const inferred = inferTruncations(roles, sizes, recorded)
    for (const { i, range } of inferred) truncation(range[0], range[1], i)
    if (inferred.length > 0) {
      const n = inferred.length
      notes.push(
        `${where}${n} truncation${n === 1 ? '' : 's'} inferred from the recorded usage (the context falls at history ` +
          `message${n === 1 ? '' : 's'} ${inferred.map((x) => x.i).join(', ')}): ${UI_FILE}, where Cline records the ` +
          'range it deleted, was not given',
      )
    }
  }
  // Roo: each summary / marker hides the messages tagged with its id.
  const ids = new Set(roo.flatMap((r) => (r.id !== undefined ? [r.id] : [])))
  const condenses = [...(extras.ui?.condenses ?? [])]
  for (const r of roo) {
    const c: DraftCompaction = { atIndex: r.at, summaryText: null, summaryIndex: r.at, source: format }
    if (r.kind === 'truncation') c.trigger = 'truncation'
    else {
      const figures = condenses.shift()
      if (figures?.before !== undefined) c.tokensBefore = figures.before
      if (figures?.after !== undefined) c.tokensAfter = figures.after
    }
    const text = drafts[r.at]?.content
    c.summaryText = typeof text === 'string' ? text : null
    let kept: number[]
    if (r.id === undefined) kept = draftsOf(0, Math.min(1, r.i))
    else {
      kept = []
      for (let h = 0; h < r.i; h++) {
        const hm = list[h]
        const hidden =
          isObject(hm) &&
          ((typeof hm.condenseParent === 'string' && ids.has(hm.condenseParent)) ||
            (typeof hm.truncationParent === 'string' && ids.has(hm.truncationParent)))
        if (!hidden) kept.push(...draftsOf(h, h + 1))
      }
    }
    pending.push({ c, kept })
  }
  pending.sort((a, b) => a.c.atIndex - b.c.atIndex)
  for (const p of pending) compactions.push(p.c)

  // Usage from the UI log when the history has no metrics.
  if (usage.length === 0 && extras.ui && extras.ui.requests.length > 0) {
    const withTs = extras.ui.requests.every((r) => r.ts !== undefined) && assistants.every((a) => a.ts !== undefined)
    let next = 0
    for (const r of extras.ui.requests) {
      let k = next
      if (withTs) while (k < assistants.length && (assistants[k]?.ts as number) < (r.ts as number)) k++
      const a = assistants[k]
      if (!a) break
      usage.push({ atIndex: a.at, context: r.context, output: r.output })
      next = k + 1
    }
    const left = extras.ui.requests.length - usage.length
    if (left > 0) warnings.push(`${where}${UI_FILE}: ${left} request(s) with usage match no assistant message, left out`)
  }

  warnings.push(...capWarnings(skipped), ...(extras.ui?.warnings ?? []))
  const tools = isObject(root) ? toolSchemas(root.tools) : undefined
  const transcript = finalizeTranscript(format, drafts, compactions, warnings, {
    model: model ?? extras.model ?? (isObject(root) ? str(root.model) : undefined),
    ...(tools ? { tools } : {}),
    notes,
  })
  // Kept messages were named by draft position: now they have ids.
  transcript.recordedCompactions.forEach((rc, k) => {
    const keptIds = (pending[k]?.kept ?? []).flatMap((at) => {
      const msg = transcript.messages[at]
      return msg ? [msg.id] : []
    })
    if (keptIds.length > 0) rc.keptMessageIds = keptIds
  })
  const resolved = resolveUsage(transcript.messages, usage)
  if (resolved) transcript.usage = resolved
  return transcript
}

/** A top-level `system` (string or text blocks) as one string, '' when absent. */
function systemText(system: unknown): string {
  if (typeof system === 'string') return system
  return Array.isArray(system) ? system.map(blockText).filter((x) => x !== '').join('\n') : ''
}

/** Anthropic-style `tools` (`{name, description, input_schema}`) as schemas; undefined when absent. */
function toolSchemas(tools: unknown): ToolSchema[] | undefined {
  if (!Array.isArray(tools)) return undefined
  const out: ToolSchema[] = []
  for (const t of tools) {
    if (!isObject(t) || typeof t.name !== 'string') continue
    const schema: ToolSchema = { name: t.name }
    if (typeof t.description === 'string') schema.description = t.description
    if (t.input_schema !== undefined) schema.parameters = t.input_schema
    out.push(schema)
  }
  return out.length > 0 ? out : undefined
}

/** The folder a bundle entry is in ('' at the top). */
const dirOf = (name: string): string => (name.includes('/') ? name.slice(0, name.lastIndexOf('/') + 1) : '')

/** Whether a bundle entry is a task's history file. */
const isHistoryEntry = (name: string): boolean => name === HISTORY_FILE || name.endsWith(`/${HISTORY_FILE}`)

/**
 * Imports a task folder, or a folder / zip of several (VS Code's `tasks/`): each
 * `api_conversation_history.json` with the `ui_messages.json` and `task_metadata.json` beside it
 * is one conversation (`importHistory`, warnings and fields named by entry), titled by its
 * folder (the task id); several → the first in name order is open and the others are its
 * conversations (`withConversations`). A missing or unreadable UI log is a warning.
 */
function importTaskBundle(bundle: FileBundle, options: ImportOptions): Transcript {
  const keepRaw = options.keepRaw ?? true
  const names = bundle.entries.map((e) => e.name)
  const histories = [...new Set(names.filter((n) => isHistoryEntry(n) && !n.startsWith('__MACOSX/')))].sort()
  if (histories.length === 0) importFailure(`no ${HISTORY_FILE} in the bundle`, { field: HISTORY_FILE })
  const tasks = histories.map((name) => {
    const dir = dirOf(name)
    const data = bundle.read([name, `${dir}${UI_FILE}`, `${dir}${METADATA_FILE}`])
    const bytes = data.get(name)
    if (!bytes) importFailure(`${name} cannot be read`, { field: name })
    const root = bundle.json(name, bytes)
    const extras: HistoryExtras = { where: name }
    const uiBytes = data.get(`${dir}${UI_FILE}`)
    const lead: string[] = []
    if (uiBytes) {
      try {
        extras.ui = readUiLog(bundle.json(`${dir}${UI_FILE}`, uiBytes), `${dir}${UI_FILE}`)
      } catch (e) {
        lead.push(`${dir}${UI_FILE}: ${e instanceof Error ? e.message : String(e)}; usage and truncations not read`)
      }
    } else {
      lead.push(
        `no ${UI_FILE} beside ${name}: Cline's deleted ranges are not known (usage and truncations come ` +
          'from the history\'s metrics.tokens when it has them)',
      )
    }
    const metaBytes = data.get(`${dir}${METADATA_FILE}`)
    if (metaBytes) {
      try {
        const model = metadataModel(bundle.json(`${dir}${METADATA_FILE}`, metaBytes))
        if (model !== undefined) extras.model = model
      } catch {
        lead.push(`${dir}${METADATA_FILE} is not JSON, not read`)
      }
    }
    const t = importHistory(root, keepRaw, extras)
    t.warnings.unshift(...lead)
    const title = dir.replace(/\/$/, '').split('/').pop()
    if (title) t.title = title
    // The task folder's name is Cline's task id.
    if (title) t.conversationId = title
    return t
  })
  return withConversations(tasks, 'task')
}

/** Cline / Roo Code / Kilo Code task history (`api_conversation_history.json`, docs/formats.md §4.17). */
export const clineImporter: FormatImporter<typeof format> = {
  id: format,
  label: 'Cline / Roo Code / Kilo Code task',
  container: 'json',
  priority: 4.6,
  requestFormat: 'anthropic',
  description:
    'Cline / Roo Code / Kilo Code task: api_conversation_history.json, or the task folder / zip ' +
    'with ui_messages.json beside it',
  extensions: ['.json', '.zip'],
  detect: detectCline,
  closeness(input) {
    if (isUiLog(input)) return 0.9
    const list = historyList(input)
    if (!list) return 0
    return list.some((m) => isObject(m) && signature(m) !== undefined) ? 0.8 : 0
  },
  importParsed: (input, options) => importHistory(input, options.keepRaw ?? true),
  bundle: {
    matches: (names) => names.some(isHistoryEntry),
    lookedFor: HISTORY_FILE,
    importBundle: importTaskBundle,
  },
}
