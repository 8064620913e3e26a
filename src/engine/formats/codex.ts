import type { FormatId, Message, MessageFlags, Transcript } from '../model'
import { importFailure } from './failure'
import type { JsonlRecord } from './json'
import { itemType, RESPONSES_ITEM_TYPES, ResponsesItemBuilder } from './openai-responses'
import type { FormatImporter } from './types'
import { parseJsonWithin } from '../util/nesting'
import { finalizeTranscript, isObject, resolveUsage, str, type DraftMessage, type DraftUsage, type JsonObject } from './util'
import { quoteForMessage } from '../util/text'

const format: FormatId = 'codex-rollout'

/**
 * Envelope `type`s of the rollout layout (formats.md §4.5 "Line envelope"; `RolloutItem` in
 * openai/codex codex-rs/protocol/src/protocol.rs), including `QUIET_ENVELOPE_TYPES`.
 */
const ENVELOPE_TYPES = new Set([
  'session_meta',
  'response_item',
  'event_msg',
  'turn_context',
  'compacted',
  'inter_agent_communication',
])

/**
 * Envelope types that carry no message (formats-more.md §11): `world_state` (0.144+, a snapshot of
 * the injected context: AGENTS.md, environments, permissions), `inter_agent_communication_metadata`
 * (0.146+, `trigger_turn` before a message from another agent), and the newer `token_usage_record`
 * (repeats `token_count`), `retained_context`, `security_risk_score`, `realtime_item`. Skipped
 * without a warning.
 */
const QUIET_ENVELOPE_TYPES = new Set([
  'world_state',
  'inter_agent_communication_metadata',
  'token_usage_record',
  'retained_context',
  'security_risk_score',
  'realtime_item',
])

/**
 * How every context message Codex injects as a role-`user` (or `developer`) message begins, one
 * list: the AGENTS.md instructions (`# AGENTS.md instructions for <cwd>` + `<INSTRUCTIONS>…`, and
 * the older heading without ` for <cwd>`), `<environment_context>`, a skill's `<skill>`, the
 * result of a command the user ran with `!` (`<user_shell_command>`), the note an interrupted turn
 * leaves (`<turn_aborted>`), a child agent's status (`<subagent_notification>`), and the older
 * builds' `<user_instructions>` and `<permissions instructions>`. Matched at the start of the
 * (left-trimmed) text, ignoring case, as codex-rs does. Source: formats.md §1 item 9, §4.5
 * "Pitfalls"; codex-rs `core/src/contextual_user_message.rs` (`CONTEXTUAL_USER_FRAGMENTS`).
 */
const INJECTED_PREFIXES = [
  '# agents.md instructions',
  '<environment_context>',
  '<skill>',
  '<user_shell_command>',
  '<turn_aborted>',
  '<subagent_notification>',
  '<user_instructions>',
  '<permissions instructions>',
]

/** Codex's summary prefix ("Another language model started to solve this problem…", §4.5). */
const SUMMARY_PREFIX = 'Another language model started to solve this problem'

function injectedFlags(_role: 'user' | 'system', text: string): MessageFlags | undefined {
  const head = text.trimStart().slice(0, 40).toLowerCase()
  return INJECTED_PREFIXES.some((t) => head.startsWith(t)) ? { injected: true } : undefined
}

/**
 * The text of a Codex tool output stored JSON-in-string, as older builds write shell and
 * apply_patch results:
 * `"{\"output\":\"…\",\"metadata\":{\"exit_code\":1,\"duration_seconds\":0.3}}"` becomes
 * the output text, with `[exit code N]` on a line of its own after it when N is not 0. The
 * duration is left out of the text, so two identical outputs stay byte-identical (dedupe); it
 * stays in the record (`source.raw`). Only an object of exactly `output` (a string) and
 * optionally `metadata` (an object) is unwrapped: any other JSON a tool printed stays as it is,
 * and so do newer builds' plain-text outputs (`Exit code: 0\nWall time: …\nOutput:\n…`).
 * Source: formats.md §1 item 4, §4.5.
 */
export function unwrapCodexOutput(output: unknown): string | undefined {
  if (typeof output !== 'string' || !/^\s*\{/.test(output)) return undefined
  const parsed = parseJsonWithin(output)?.value
  if (!isObject(parsed) || typeof parsed.output !== 'string') return undefined
  if (Object.keys(parsed).some((k) => k !== 'output' && k !== 'metadata')) return undefined
  const metadata = parsed.metadata
  if (metadata !== undefined && !isObject(metadata)) return undefined
  const text = parsed.output
  const code = metadata?.exit_code
  if (typeof code !== 'number' || code === 0) return text
  return `${text}${text === '' || text.endsWith('\n') ? '' : '\n'}[exit code ${code}]`
}

/** The Responses item builder's options for Codex: injected-context flags, unwrapped outputs. */
const builderOptions = (keepRaw: boolean) => ({
  format,
  keepRaw,
  flagsFor: injectedFlags,
  unwrapOutput: unwrapCodexOutput,
})

const isEnvelope = (r: JsonObject) =>
  typeof r.type === 'string' &&
  (ENVELOPE_TYPES.has(r.type) || QUIET_ENVELOPE_TYPES.has(r.type)) &&
  'payload' in r

/**
 * A message another agent sent this one (0.146+ `response_item` `agent_message{author, recipient,
 * content[input_text|encrypted_content]}`; older `inter_agent_communication{author, recipient,
 * content}`): model input written by an agent, so a user message flagged `injected`, never the
 * human.
 */
function addAgentMessage(
  b: ResponsesItemBuilder,
  payload: JsonObject,
  at: { line: number; field: string },
): void {
  b.add({ type: 'message', role: 'user', content: payload.content ?? '' }, at)
  const d = b.drafts[b.drafts.length - 1]
  if (d) {
    d.flags = { ...d.flags, injected: true }
    // The record as written, not the message item built from it.
    if (d.source.raw !== undefined) d.source.raw = payload
  }
}

/**
 * The model-visible history a `compacted` line records (`replacement_history`) as canonical
 * messages: ids are `<prefix>-<id>` so they never collide with the transcript's own, `index` is the
 * position in the list, and the user message holding the summary (it contains the `compacted`
 * message text or starts with Codex's summary prefix) is flagged `compactSummary`.
 */
function replacementMessages(
  items: unknown[],
  summary: string,
  line: number,
  keepRaw: boolean,
): Message[] {
  const b = new ResponsesItemBuilder(builderOptions(keepRaw))
  items.forEach((item, i) =>
    b.add(item, { line, field: `line ${line}: replacement_history[${i}]` }),
  )
  b.flush()
  const messages = finalizeTranscript(format, b.drafts, [], []).messages
  return messages.map((m) => {
    const out: Message = { ...m, id: `compacted-L${line}-${m.id}` }
    const text = typeof m.content === 'string' ? m.content : ''
    if (
      m.role === 'user' &&
      ((summary !== '' && text.includes(summary)) || text.startsWith(SUMMARY_PREFIX))
    ) {
      out.flags = { ...m.flags, compactSummary: true }
    }
    return out
  })
}

/** A count field of `last_token_usage`, undefined when absent or not a non-negative number. */
const count = (value: unknown): number | undefined =>
  typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : undefined

/**
 * Whether a draft is on the model's side of a response: an assistant message (reasoning, text,
 * calls), or the `tool` message of a hosted call (web search, …) the assistant message before it
 * made, which the model ran within the same response.
 */
function modelSide(drafts: readonly DraftMessage[], i: number): boolean {
  const d = drafts[i]
  if (!d) return false
  if (d.role === 'assistant') return true
  if (d.role !== 'tool') return false
  const call = drafts[i - 1]?.toolCalls?.find((c) => c.id === d.toolCallId)
  return call?.native?.hosted === true
}

/**
 * The usage a `token_count` event records for the response just completed, or undefined when it
 * records none (`info` null, no `last_token_usage.input_tokens`): `context` =
 * `last_token_usage.input_tokens` (cached tokens are a part of it), `output` =
 * `last_token_usage.output_tokens` (reasoning a part of it), `window` = `model_context_window`.
 * The response's first message: walking back from the newest draft over the model-side drafts
 * (`modelSide`) to the first of them; with none (the response left no message) the next message.
 * Source: formats.md §4.5, formats-more.md §11.
 */
function tokenCountUsage(info: JsonObject, drafts: readonly DraftMessage[]): DraftUsage | undefined {
  const last = isObject(info.last_token_usage) ? info.last_token_usage : undefined
  const context = count(last?.input_tokens)
  if (context === undefined) return undefined
  let at = drafts.length
  while (at > 0 && modelSide(drafts, at - 1)) at--
  const u: DraftUsage = { atIndex: at, context }
  const output = count(last?.output_tokens)
  if (output !== undefined) u.output = output
  const window = count(info.model_context_window)
  if (window !== undefined && window > 0) u.window = window
  return u
}

/**
 * Imports a Codex CLI rollout (`~/.codex/sessions/…/rollout-*.jsonl`), new envelope layout
 * `{timestamp, type, payload}` or the pre-envelope legacy layout (a first `{id, timestamp,
 * instructions}` line, `{"record_type":"state"}` markers and bare items). The message view is the
 * `response_item` stream (see `ResponsesItemBuilder`: reasoning + assistant text + calls of one
 * turn form one assistant message; outputs pair on `call_id`; JSON-in-string outputs are unwrapped
 * to their text, `unwrapCodexOutput`). The newest `turn_context` names `model`.
 * `event_msg` records duplicate it (`user_message`, `agent_message`, `agent_reasoning`) and are
 * never extra messages; only a file with no message items at all falls back to them. Context
 * Codex injects as user messages (`INJECTED_PREFIXES`: AGENTS.md, environment, …) gets
 * `flags.injected`. Session
 * `instructions` → a leading system message. A `compacted` line → a recorded compaction at the
 * next message with `summaryText` = its `message` and `replacementHistory` = its
 * `replacement_history` as messages. Each `event_msg` `token_count` with `info` is the usage of the
 * response just completed (`tokenCountUsage`; the assistant message open there ends there); one
 * whose `total_token_usage` equals the previous counted one's is a repeat, counted once.
 * `session_meta.cli_version` → `agentVersion`. Never modifies the records. Source: formats.md §4.5, §1
 * items 3, 4, 6, 8, 9, 14.
 */
function importCodexRecords(records: readonly JsonlRecord[], keepRaw = true): Transcript {
  const b = new ResponsesItemBuilder(builderOptions(keepRaw))
  const events: JsonlRecord[] = []
  const unknown = new Map<string, number>()
  let sawMeta = false
  let messageItems = 0
  let model: string | undefined
  let agentVersion: string | undefined
  const usage: DraftUsage[] = []
  let lastTotal: string | undefined

  const meta = (payload: JsonObject, line: number, raw: unknown) => {
    if (sawMeta) return
    sawMeta = true
    agentVersion = str(payload.cli_version) || undefined
    const base = payload.base_instructions
    const text =
      str(payload.instructions) ?? (isObject(base) ? str(base.text) : undefined) ?? undefined
    if (text) b.addText('system', text, { line, field: `line ${line}` }, raw)
  }

  for (const rec of records) {
    const r = rec.value
    const line = rec.line
    const at = { line, field: `line ${line}` }
    if (isEnvelope(r)) {
      const payload = isObject(r.payload) ? r.payload : {}
      switch (r.type) {
        case 'session_meta':
          meta(payload, line, r)
          break
        case 'response_item':
          if (itemType(payload) === 'agent_message') {
            addAgentMessage(b, payload, at)
            break
          }
          if (itemType(payload) === 'message') messageItems++
          b.add(payload, at)
          break
        case 'inter_agent_communication':
          addAgentMessage(b, payload, at)
          break
        case 'event_msg': {
          events.push(rec)
          const info = payload.type === 'token_count' ? payload.info : undefined
          if (!isObject(info)) break
          const total = JSON.stringify(info.total_token_usage ?? null)
          if (total !== 'null' && total === lastTotal) break
          lastTotal = total
          b.flush()
          const u = tokenCountUsage(info, b.drafts)
          if (u) usage.push(u)
          break
        }
        case 'compacted': {
          b.flush()
          const summary = str(payload.message) ?? ''
          const c: (typeof b.compactions)[number] = {
            atIndex: b.drafts.length,
            summaryText: summary === '' ? null : summary,
            source: format,
          }
          if (Array.isArray(payload.replacement_history)) {
            c.replacementHistory = replacementMessages(
              payload.replacement_history,
              summary,
              line,
              keepRaw,
            )
          }
          b.compactions.push(c)
          break
        }
        case 'turn_context':
          // Per-turn settings, no model context; the newest names the model in use.
          model = str(payload.model) ?? model
          break
        default:
          break
      }
      continue
    }
    // Legacy pre-envelope layout.
    if (r.record_type !== undefined) continue
    if (!sawMeta && typeof r.id === 'string' && !('type' in r) && !('role' in r)) {
      meta(r, line, r)
      continue
    }
    const type = itemType(r)
    if (RESPONSES_ITEM_TYPES.has(type) || type === 'message') {
      if (type === 'message') messageItems++
      b.add(r, at)
    } else {
      unknown.set(type, (unknown.get(type) ?? 0) + 1)
    }
  }
  b.flush()

  const warnings = [...b.warnings]
  for (const [type, n] of unknown) warnings.push(`${n} line(s) of unknown type ${quoteForMessage(type)} skipped`)
  if (messageItems === 0 && events.length > 0) return fromEvents(events, keepRaw, warnings, model)
  if (b.drafts.length === 0) importFailure('no response_item messages found in the rollout')
  const compactions = b.compactions.filter((c) => c.atIndex <= b.drafts.length)
  const t = finalizeTranscript(format, b.drafts, compactions, warnings, { model })
  const resolved = resolveUsage(t.messages, usage)
  if (resolved) t.usage = resolved
  if (agentVersion) t.agentVersion = agentVersion
  return t
}

/**
 * Fallback for rollouts whose messages exist only as events: `user_message` → user,
 * `agent_message` → assistant (a preceding `agent_reasoning` becomes its thinking part). No tool
 * calls are recoverable from events.
 */
function fromEvents(
  events: JsonlRecord[],
  keepRaw: boolean,
  warnings: string[],
  model: string | undefined,
): Transcript {
  const b = new ResponsesItemBuilder(builderOptions(keepRaw))
  for (const { value, line } of events) {
    const p = isObject(value.payload) ? value.payload : {}
    const at = { line, field: `line ${line}` }
    if (p.type === 'user_message' && typeof p.message === 'string')
      b.add({ role: 'user', content: p.message }, at)
    else if (p.type === 'agent_message' && typeof p.message === 'string')
      b.add({ type: 'message', role: 'assistant', content: p.message }, at)
    else if (p.type === 'agent_reasoning' && typeof p.text === 'string')
      b.add({ type: 'reasoning', summary: [{ type: 'summary_text', text: p.text }] }, at)
  }
  b.flush()
  if (b.drafts.length === 0) importFailure('no messages found in the rollout')
  warnings.push('no response_item messages: imported from event_msg records (no tool calls)')
  return finalizeTranscript(format, b.drafts, b.compactions, [...warnings, ...b.warnings], {
    model,
  })
}

/**
 * Detection (formats.md §2 item 2): a `session_meta` line with a `payload`, or every line an
 * envelope `{timestamp, type, payload}` of a rollout type; legacy: a first `{id, timestamp}` line
 * followed by `record_type` markers or bare Responses items.
 */
function detectCodex(input: unknown): true | string {
  const head = (input as JsonlRecord[]).slice(0, 50)
  const first = head[0]
  if (!first) return 'no readable lines'
  const values = head.map((r) => r.value)
  if (values.some((r) => r.type === 'session_meta' && 'payload' in r)) return true
  if (values.every((r) => 'timestamp' in r && isEnvelope(r))) return true
  const f = first.value
  if (typeof f.id === 'string' && 'timestamp' in f && !('type' in f)) {
    const rest = values.slice(1)
    if (
      rest.length > 0 &&
      rest.some((r) => r.record_type !== undefined || RESPONSES_ITEM_TYPES.has(itemType(r)))
    ) {
      return true
    }
  }
  return `line ${first.line}: no session_meta/response_item envelope ({timestamp, type, payload})`
}

/** The Codex CLI rollout importer (registry entry). */
export const codexRolloutImporter: FormatImporter<'codex-rollout'> = {
  id: 'codex-rollout',
  label: 'Codex CLI rollout (JSONL)',
  container: 'jsonl',
  priority: 2,
  requestFormat: 'openai-responses',
  description: 'Codex CLI rollout, ~/.codex/sessions/YYYY/MM/DD/rollout-<time>-<id>.jsonl',
  extensions: ['.jsonl'],
  detect: detectCodex,
  closeness: (input) => {
    const head = (input as JsonlRecord[]).slice(0, 50)
    if (head.length === 0) return 0
    return (0.9 * head.filter((r) => 'payload' in r.value).length) / head.length
  },
  importParsed: (input, options) => importCodexRecords(input as JsonlRecord[], options.keepRaw),
}
