import type { FormatId } from '../model'
import type { JsonlRecord } from './json'
import { OPENAI_CHAT_ROLES } from './openai-chat'
import { isObject, notAnArray, type JsonObject } from './util'

/*
 * Structural recognizers of formats.md §2 for JSON roots and JSONL records. They name every format
 * they recognize, registered or not: the registry's detectors for OpenAI chat, Anthropic and Claude
 * Code use them, and an input no registered importer accepts is reported as "looks like X, which
 * cannot be imported yet" when they recognize it.
 */

/** Verdict on a parsed JSON root or a set of JSONL records. */
export type Verdict = { format: FormatId } | { mismatch: string }

const ANTHROPIC_BLOCKS = new Set([
  'tool_use',
  'tool_result',
  'thinking',
  'redacted_thinking',
  'compaction',
  // Server tools (formats.md §4.3 "Blocks").
  'server_tool_use',
  'mcp_tool_use',
  'mcp_tool_result',
  'web_search_tool_result',
  'web_fetch_tool_result',
  'code_execution_tool_result',
])
const OPENAI_PARTS = new Set(['image_url', 'input_audio', 'file', 'refusal'])
const LANGCHAIN_TYPES = new Set(['human', 'ai', 'tool', 'system', 'chat', 'function'])
const RESPONSES_ITEMS = new Set([
  'message',
  'function_call',
  'function_call_output',
  'reasoning',
  'compaction',
  'custom_tool_call',
  'custom_tool_call_output',
])

/** A Vercel AI SDK ModelMessage with `tool-call` / `tool-result` parts (formats.md §2 item 9). */
function hasVercelToolParts(m: JsonObject): boolean {
  return (
    Array.isArray(m.content) &&
    m.content.some((p) => isObject(p) && (p.type === 'tool-call' || p.type === 'tool-result'))
  )
}

/** An OpenAI Responses item other than a plain message (`function_call`, `reasoning`, …). */
function isResponsesItem(x: JsonObject): boolean {
  return typeof x.type === 'string' && RESPONSES_ITEMS.has(x.type) && x.type !== 'message'
}

/** A Claude Code on-disk record: `sessionId` + `uuid` + a `parentUuid` key (possibly null). */
function isClaudeCodeRecord(r: JsonObject): boolean {
  return typeof r.sessionId === 'string' && typeof r.uuid === 'string' && 'parentUuid' in r
}

/**
 * Classifies a messages list as Anthropic or OpenAI chat. Anthropic: roles only user/assistant (a
 * stray `system` tolerated) and a block only Anthropic has (`tool_use`, `tool_result`, thinking,
 * `compaction`, `image` with `source`), or a top-level `system` / `input_schema` tools with
 * user/assistant roles. Otherwise OpenAI chat when every role is a chat role (the fallback for
 * "OpenAI-compatible"). Source: formats.md §2 items 11–12.
 */
function classifyMessages(
  list: readonly unknown[],
  root: JsonObject | null,
  field: string,
): Verdict {
  let anthropicBlocks = false
  let openaiSignals = false
  let onlyUserAssistant = true
  let firstBadRole: string | undefined
  for (let i = 0; i < list.length; i++) {
    const m = list[i]
    if (!isObject(m)) return { mismatch: `${field}[${i}] is not an object` }
    const role = m.role
    if (typeof role !== 'string' || !(role in OPENAI_CHAT_ROLES)) {
      const allowed = Object.keys(OPENAI_CHAT_ROLES).join('/')
      firstBadRole ??= `${field}[${i}].role is ${JSON.stringify(role ?? null)}, not one of ${allowed}`
      continue
    }
    if (role !== 'user' && role !== 'assistant') onlyUserAssistant = false
    if (role === 'tool' || role === 'function' || role === 'developer') openaiSignals = true
    if ('tool_calls' in m || 'function_call' in m || 'tool_call_id' in m) openaiSignals = true
    if (Array.isArray(m.content)) {
      for (const b of m.content) {
        if (!isObject(b) || typeof b.type !== 'string') continue
        if (ANTHROPIC_BLOCKS.has(b.type) || (b.type === 'image' && 'source' in b))
          anthropicBlocks = true
        if (OPENAI_PARTS.has(b.type)) openaiSignals = true
      }
    }
  }
  if (firstBadRole) return { mismatch: firstBadRole }
  const rootHints =
    root !== null &&
    (root.system !== undefined ||
      (Array.isArray(root.tools) && root.tools.some((t) => isObject(t) && 'input_schema' in t)))
  if (anthropicBlocks && !openaiSignals) return { format: 'anthropic-messages' }
  if (rootHints && onlyUserAssistant && !openaiSignals) return { format: 'anthropic-messages' }
  return { format: 'openai-chat' }
}

/**
 * Detects the format of a parsed JSON document. Recognizes (formats.md §2) a Claude Code web
 * session export (`{loglines: [records]}`, formats.md §4.4), Gemini CLI, Inspect AI,
 * SWE-agent, OpenHands, LangChain, Vercel, OpenAI Responses — reported as not importable yet — and
 * Anthropic Messages / OpenAI Chat Completions (`{messages}`, a bare array, or one Anthropic
 * response message). Pure.
 */
export function detectJsonRoot(root: unknown): Verdict {
  if (Array.isArray(root)) {
    const items = root.slice(0, 50).filter(isObject)
    if (items.length > 0) {
      if (items.every((x) => ('action' in x || 'observation' in x) && 'source' in x))
        return { format: 'openhands' }
      if (
        items.every(
          (x) => typeof x.type === 'string' && LANGCHAIN_TYPES.has(x.type) && isObject(x.data),
        )
      ) {
        return { format: 'langchain' }
      }
      if (items.every((x) => x.lc === 1 && x.type === 'constructor')) return { format: 'langchain' }
      if (items.every((x) => typeof x.role === 'string' && Array.isArray(x.parts))) {
        return { format: items.every((x) => 'id' in x) ? 'vercel-ui' : 'gemini-cli' }
      }
      if (items.some(isResponsesItem)) return { format: 'openai-responses' }
      if (items.some(hasVercelToolParts)) return { format: 'vercel-model' }
    }
    return classifyMessages(root, null, 'items')
  }
  if (!isObject(root)) {
    const kind = root === null ? 'null' : typeof root
    return {
      mismatch: `the JSON is ${kind === 'null' ? 'null' : `a ${kind}`}, not an object or array`,
    }
  }
  if (typeof root.sessionId === 'string' && typeof root.projectHash === 'string')
    return { format: 'gemini-cli' }
  // Claude Code web session export: the session's JSONL records in one `loglines` array.
  if (Array.isArray(root.loglines)) {
    const head = root.loglines.slice(0, 50)
    if (head.length === 0 || head.some((r) => isObject(r) && isClaudeCodeRecord(r)))
      return { format: 'claude-code' }
  }
  if (
    typeof root.version === 'number' &&
    'eval' in root &&
    ('samples' in root || 'results' in root)
  ) {
    return { format: 'inspect-ai' }
  }
  if (Array.isArray(root.trajectory) && Array.isArray(root.history)) return { format: 'swe-agent' }
  if (
    root.object === 'response' ||
    root.object === 'response.compaction' ||
    Array.isArray(root.input) ||
    (typeof root.input === 'string' && 'model' in root) ||
    (Array.isArray(root.output) && !('messages' in root))
  ) {
    return { format: 'openai-responses' }
  }
  if (
    Array.isArray(root.history) &&
    root.history.some((x) => isObject(x) && Array.isArray(x.parts))
  ) {
    return { format: 'gemini-cli' }
  }
  if (Array.isArray(root.messages)) {
    const msgs = root.messages.slice(0, 50).filter(isObject)
    if (
      msgs.length > 0 &&
      msgs.every((x) => typeof x.role === 'string' && Array.isArray(x.parts))
    ) {
      return { format: 'vercel-ui' }
    }
    if (msgs.some(hasVercelToolParts)) return { format: 'vercel-model' }
    if (msgs.some(isResponsesItem)) return { format: 'openai-responses' }
    return classifyMessages(root.messages, root, 'messages')
  }
  if (
    root.type === 'message' &&
    (root.role === 'assistant' || root.role === 'user') &&
    Array.isArray(root.content)
  ) {
    return { format: 'anthropic-messages' }
  }
  // One Chat Completions response (`{object:"chat.completion", choices:[{message}]}`, §4.1).
  if (Array.isArray(root.choices) && root.choices.some((c) => isObject(c) && isObject(c.message)))
    return { format: 'openai-chat' }
  if (Object.prototype.hasOwnProperty.call(root, 'messages'))
    return { mismatch: notAnArray(root, 'messages') }
  const keys = Object.keys(root).slice(0, 8).join(', ')
  return { mismatch: `no "messages" array at the top level (keys: ${keys || 'none'})` }
}

const CLAUDE_CODE_TYPES = new Set([
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
const CODEX_TYPES = new Set([
  'session_meta',
  'response_item',
  'event_msg',
  'turn_context',
  'compacted',
])

/**
 * Detects the format of JSONL records from the first 50 (formats.md §2 items 2–4): Codex rollout,
 * Claude Code stream-json and Gemini CLI JSONL are recognized (not importable yet); Claude Code
 * sessions by `sessionId` + `uuid` + `parentUuid` on a user/assistant/system record, or `summary` /
 * `file-history-snapshot` heads.
 */
export function detectJsonlRecords(records: readonly JsonlRecord[]): Verdict {
  const head = records.slice(0, 50).map((r) => r.value)
  const first = records[0]
  if (!first) return { mismatch: 'no readable lines' }
  if (
    head.some((r) => r.type === 'session_meta' && 'payload' in r) ||
    head.every(
      (r) =>
        'timestamp' in r && 'payload' in r && typeof r.type === 'string' && CODEX_TYPES.has(r.type),
    )
  ) {
    return { format: 'codex-rollout' }
  }
  if (
    head.some(
      (r) => typeof r.type === 'string' && CLAUDE_CODE_TYPES.has(r.type) && isClaudeCodeRecord(r),
    )
  ) {
    return { format: 'claude-code' }
  }
  if (
    head.some(
      (r) => (r.type === 'summary' && 'leafUuid' in r) || r.type === 'file-history-snapshot',
    )
  ) {
    return { format: 'claude-code' }
  }
  if (typeof first.value.sessionId === 'string' && typeof first.value.projectHash === 'string') {
    return { format: 'gemini-cli' }
  }
  if (
    head.some(
      (r) => typeof r.session_id === 'string' && ('parent_tool_use_id' in r || r.type === 'result'),
    )
  ) {
    return {
      mismatch:
        `line ${first.line}: Claude Code stream-json output ` +
        '(session_id, parent_tool_use_id), not a session file',
    }
  }
  return {
    mismatch: `line ${first.line}: no sessionId/uuid/parentUuid keys, not a Claude Code record`,
  }
}
