import type { Part, Role, SourceRef, ToolCall, Transcript } from '../model'
import { importFailure } from './failure'
import type { FormatImporter, ImportOptions } from './types'
import {
  finalizeTranscript,
  imageFromUrl,
  isObject,
  normalizeParts,
  str,
  type DraftMessage,
  notAnArray,
} from './util'
import { quoteForMessage } from '../util/text'

const format = 'swe-agent'

const ROLES: ReadonlySet<string> = new Set(['system', 'user', 'assistant', 'tool'])

/** SWE-agent's own keys on a history item (`HistoryItem.message_type` / `.agent`). */
const hasSweAgentKey = (x: Record<string, unknown>) =>
  typeof x.message_type === 'string' || typeof x.agent === 'string'

/**
 * Detection (formats.md §2 item 6): an object with `trajectory` and `history` arrays and an
 * `info` key (a run's `.traj`), or with only `history` — demonstrations and trajectories written
 * without steps, which SWE-agent reads the same way (`_add_demonstration_to_history` takes
 * `["history"]`) — whose items are history items: a string `role`, no Gemini `parts`, and
 * SWE-agent's `message_type` or `agent` on at least one of the first 50. Returns the first
 * mismatch otherwise.
 */
export function detectSweAgent(root: unknown): true | string {
  if (!isObject(root)) return 'not a JSON object with a SWE-agent "history"'
  if (!Array.isArray(root.history)) return notAnArray(root, 'history', ' at the top level')
  if (Array.isArray(root.trajectory) && 'info' in root) return true
  const items = root.history.slice(0, 50).filter(isObject)
  if (
    items.length > 0 &&
    items.every((x) => typeof x.role === 'string' && !Array.isArray(x.parts)) &&
    items.some(hasSweAgentKey)
  )
    return true
  const missing = Array.isArray(root.trajectory) ? 'no "info"' : 'no "trajectory" array'
  return (
    `${missing}, and the "history" items are not SWE-agent history items ` +
    '(role with message_type or agent)'
  )
}

/** One history content block: `text` → text, `image_url` → image, anything else opaque. */
function blockToPart(block: unknown): Part {
  if (typeof block === 'string') return { type: 'text', text: block }
  if (!isObject(block)) return { type: 'opaque', kind: 'unknown', raw: block }
  if (block.type === 'text') return { type: 'text', text: str(block.text) ?? '' }
  if (block.type === 'image_url') {
    const image = block.image_url
    const url = typeof image === 'string' ? image : isObject(image) ? str(image.url) : undefined
    return url !== undefined ? imageFromUrl(url) : { type: 'image' }
  }
  return { type: 'opaque', kind: str(block.type) ?? 'unknown', raw: block }
}

/** `content: str | list[dict]` in the canonical shape (text-only lists joined with "\n"). */
function contentOf(content: unknown): string | Part[] {
  if (typeof content === 'string') return content
  if (Array.isArray(content)) return normalizeParts(content.map(blockToPart), '') as string | Part[]
  return ''
}

/** `tool_calls[]` in the OpenAI shape (`function.arguments` a JSON string, kept raw). */
function toolCallsOf(list: unknown): ToolCall[] {
  if (!Array.isArray(list)) return []
  const calls: ToolCall[] = []
  for (const c of list) {
    if (!isObject(c)) continue
    const fn = isObject(c.function) ? c.function : {}
    const args = fn.arguments
    calls.push({
      id: str(c.id) ?? '',
      name: str(fn.name) ?? '',
      arguments: typeof args === 'string' ? args : JSON.stringify(args ?? {}),
    })
  }
  return calls
}

/** `thinking_blocks` (Anthropic `thinking` / `redacted_thinking`) as opaque thinking parts. */
function thinkingParts(list: unknown): Part[] {
  if (!Array.isArray(list)) return []
  const parts: Part[] = []
  for (const b of list) {
    if (!isObject(b)) continue
    if (b.type === 'redacted_thinking') {
      parts.push({ type: 'thinking', variant: 'redacted_thinking', encrypted: str(b.data) ?? '' })
    } else {
      const part: Part = { type: 'thinking', variant: 'thinking', text: str(b.thinking) ?? '' }
      if (typeof b.signature === 'string') part.signature = b.signature
      parts.push(part)
    }
  }
  return parts
}

/**
 * Imports a SWE-agent trajectory from its `history` — the message view. A run's `.traj`
 * (`{trajectory, history, info, replay_config, environment}`) and a history-only file
 * (demonstrations, `{history}` with or without `replay_config`) import the same way;
 * `trajectory[].query`, which repeats the whole prompt at every step (quadratic size; formats.md
 * §1 item 8), is ignored. Each history item keeps its `role`; `content` string or
 * `[{type:"text"}…]` (text-only lists joined with "\n"); assistant `tool_calls` (OpenAI shape,
 * arguments raw) and `thinking_blocks` (kept as opaque thinking parts before the text); tool items
 * answer `tool_call_ids[0]` (several ids: warned, the first used — SWE-agent makes one call per
 * step). Tool-call ids are kept as written: demonstrations reuse ids across steps, and each
 * result follows the call that made it, so the result's name is the latest call with its id.
 * Demonstrations put into a run's history (`is_demo:true`) are kept and flagged `injected`.
 * Unknown roles are skipped with a warning naming `history[i]`; an empty history is an error
 * naming `history`. Never modifies `root`. Source: formats.md §4.11; SWE-agent
 * `sweagent/agent/agents.py` (`_add_demonstration_to_history`, `get_trajectory_data`).
 */
export function importSweAgentRoot(root: unknown, options: ImportOptions = {}): Transcript {
  const keepRaw = options.keepRaw ?? true
  if (!isObject(root) || !Array.isArray(root.history))
    importFailure('expected a SWE-agent trajectory with a "history" array', { field: 'history' })
  const drafts: DraftMessage[] = []
  const warnings: string[] = []
  const toolNames = new Map<string, string>()

  root.history.forEach((h, i) => {
    const field = `history[${i}]`
    if (!isObject(h)) {
      warnings.push(`${field}: not an object, skipped`)
      return
    }
    const role = str(h.role)
    if (role === undefined || !ROLES.has(role)) {
      warnings.push(
        `${field}.role: ${quoteForMessage(h.role)} ` +
          'is not system/user/assistant/tool, skipped',
      )
      return
    }
    const source: SourceRef = { format, line: i + 1 }
    if (keepRaw) source.raw = h
    const d: DraftMessage = { id: '', role: role as Role, content: contentOf(h.content), source }
    if (role === 'assistant') {
      const thinking = thinkingParts(h.thinking_blocks)
      if (thinking.length > 0) {
        const rest = d.content
        const text: Part[] =
          typeof rest === 'string'
            ? rest === ''
              ? []
              : [{ type: 'text', text: rest }]
            : (rest ?? [])
        d.content = [...thinking, ...text]
      }
      const calls = toolCallsOf(h.tool_calls)
      for (const c of calls) toolNames.set(c.id, c.name)
      if (calls.length > 0) d.toolCalls = calls
    } else if (role === 'tool') {
      const ids = Array.isArray(h.tool_call_ids)
        ? h.tool_call_ids.filter((x) => typeof x === 'string')
        : []
      if (ids.length === 0) warnings.push(`${field}.tool_call_ids: missing`)
      if (ids.length > 1)
        warnings.push(`${field}.tool_call_ids: ${ids.length} ids, the first is used`)
      const callId = (ids[0] as string | undefined) ?? ''
      d.toolCallId = callId
      const name = toolNames.get(callId)
      if (name !== undefined) d.toolName = name
    }
    if (h.is_demo === true) d.flags = { injected: true }
    drafts.push(d)
  })
  if (drafts.length === 0)
    importFailure('the trajectory has no history messages', { field: 'history' })
  return finalizeTranscript(format, drafts, [], warnings)
}

/** The SWE-agent importer for the format registry (formats.md §2 item 6, §4.11). */
export const sweAgentImporter: FormatImporter<typeof format> = {
  id: format,
  label: 'SWE-agent trajectory',
  container: 'json',
  priority: 6,
  requestFormat: null,
  description: 'SWE-agent trajectory or demonstration (.traj); its history is imported',
  extensions: ['.traj', '.json'],
  detect: detectSweAgent,
  closeness(input) {
    if (!isObject(input)) return 0
    const keys = ['trajectory', 'history', 'info', 'replay_config', 'environment']
    return keys.filter((k) => k in input).length / keys.length
  },
  importParsed: importSweAgentRoot,
}
