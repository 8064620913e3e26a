/**
 * Tool calls and tool results counted straight from a transcript file, by each format's own
 * documentation (docs/formats.md §4), without the importers: the check that an importer neither
 * drops nor invents a call or a result. Node only (tests).
 *
 * Each counter reads the part of the file the importer opens (the main session, the first sample
 * or conversation) and counts the format's call and result blocks; a result is anything that
 * carries a tool's output back to the model.
 */

import { strFromU8, unzipSync } from 'fflate'
import { parse as parseYaml } from 'yaml'

/** Calls and results counted in a file. */
export interface RawToolCounts {
  calls: number
  results: number
}

type Json = unknown
type Obj = Record<string, unknown>

const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v)
const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : [])
const jsonl = (text: string): Obj[] =>
  text
    .split(/\r?\n/)
    .filter((l) => l.trim() !== '')
    .flatMap((l) => {
      try {
        const v = JSON.parse(l) as Json
        return isObj(v) ? [v] : []
      } catch {
        return [] // a cut-off or garbage line: the importer skips it too
      }
    })

/** Anthropic content blocks that are a tool call (client, server and MCP tools). */
const ANTHROPIC_CALLS = new Set(['tool_use', 'server_tool_use', 'mcp_tool_use'])
/** Anthropic content blocks that carry a tool's output: `tool_result`, `mcp_tool_result`, `*_tool_result`. */
const isAnthropicResult = (type: unknown) =>
  typeof type === 'string' && (type === 'tool_result' || type.endsWith('_tool_result'))

function countAnthropicBlocks(messages: unknown[]): RawToolCounts {
  let calls = 0
  let results = 0
  for (const m of messages) {
    if (!isObj(m)) continue
    for (const b of arr(m.content)) {
      if (!isObj(b)) continue
      if (ANTHROPIC_CALLS.has(b.type as string)) calls++
      else if (isAnthropicResult(b.type)) results++
    }
  }
  return { calls, results }
}

/** Responses / Codex items that are a call, and those that are a call's output. */
const RESPONSES_CALLS = new Set(['function_call', 'custom_tool_call', 'local_shell_call', 'computer_call'])
const RESPONSES_RESULTS = new Set([
  'function_call_output',
  'custom_tool_call_output',
  'local_shell_call_output',
  'computer_call_output',
])
/** Hosted tools: one item holds the call and what it returned. */
const RESPONSES_HOSTED = new Set([
  'mcp_call',
  'web_search_call',
  'file_search_call',
  'code_interpreter_call',
  'image_generation_call',
])

function countResponsesItems(items: unknown[]): RawToolCounts {
  let calls = 0
  let results = 0
  for (const it of items) {
    if (!isObj(it)) continue
    if (RESPONSES_CALLS.has(it.type as string)) calls++
    else if (RESPONSES_RESULTS.has(it.type as string)) results++
    else if (RESPONSES_HOSTED.has(it.type as string)) {
      calls++
      results++
    }
  }
  return { calls, results }
}

/** OpenAI chat-shaped messages (OpenAI, Inspect): `tool_calls[]`, legacy `function_call`; role tool/function. */
function countChatMessages(messages: unknown[]): RawToolCounts {
  let calls = 0
  let results = 0
  for (const m of messages) {
    if (!isObj(m)) continue
    calls += arr(m.tool_calls).length + (isObj(m.function_call) ? 1 : 0)
    if (m.role === 'tool' || m.role === 'function') results++
  }
  return { calls, results }
}

/**
 * Claude Code: unique `tool_use` ids and unique `tool_result` targets of the main session's records
 * (the session with the most records), leaving out the subtrees of `branchRoots` (the uuids of the
 * forks the importer lists as branches: an edit or retry is not on the main line).
 */
function countClaudeCode(records: Obj[], branchRoots: readonly string[]): RawToolCounts {
  const children = new Map<string, string[]>()
  for (const r of records) {
    if (typeof r.uuid !== 'string' || typeof r.parentUuid !== 'string') continue
    children.set(r.parentUuid, [...(children.get(r.parentUuid) ?? []), r.uuid])
  }
  const offLine = new Set<string>()
  const stack = [...branchRoots]
  while (stack.length > 0) {
    const id = stack.pop() as string
    if (offLine.has(id)) continue
    offLine.add(id)
    stack.push(...(children.get(id) ?? []))
  }
  const sessions = new Map<string, number>()
  for (const r of records) if (typeof r.sessionId === 'string') sessions.set(r.sessionId, (sessions.get(r.sessionId) ?? 0) + 1)
  const main = [...sessions].sort((a, b) => b[1] - a[1])[0]?.[0]
  const calls = new Set<string>()
  const results = new Set<string>()
  for (const r of records) {
    if (r.isSidechain === true || (main !== undefined && r.sessionId !== main)) continue
    if (typeof r.uuid === 'string' && offLine.has(r.uuid)) continue
    const message = r.message
    if (!isObj(message)) continue
    for (const b of arr(message.content)) {
      if (!isObj(b)) continue
      if (ANTHROPIC_CALLS.has(b.type as string) && typeof b.id === 'string') calls.add(b.id)
      else if (isAnthropicResult(b.type) && typeof b.tool_use_id === 'string') results.add(b.tool_use_id)
    }
  }
  return { calls: calls.size, results: results.size }
}

/** What a counter may need besides the file: the branch roots the importer listed (Claude Code). */
export interface RawCountContext {
  branchRoots: readonly string[]
}

/** The file's text; a zip archive (Inspect `.eval`) is not text. */
const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes)

/**
 * Inspect `.eval` (a zip, docs/formats.md §4.9): the sample entries `samples/<id>_epoch_<n>.json`,
 * the first in Inspect's order (epoch, then id) — the one the importer opens.
 */
function firstEvalSample(bytes: Uint8Array): Obj | undefined {
  const entries = unzipSync(bytes)
  const samples = Object.keys(entries)
    .map((name) => ({ name, m: /^samples\/(.+)_epoch_(\d+)\.json$/.exec(name) }))
    .filter((e) => e.m !== null)
    .map((e) => ({ name: e.name, id: e.m?.[1] ?? '', epoch: Number(e.m?.[2]) }))
    .sort((a, b) => a.epoch - b.epoch || a.id.localeCompare(b.id, undefined, { numeric: true }))
  const first = samples[0]
  return first ? (JSON.parse(strFromU8(entries[first.name] as Uint8Array)) as Obj) : undefined
}

const isZip = (b: Uint8Array) => b[0] === 0x50 && b[1] === 0x4b && (b[2] === 0x03 || b[2] === 0x05)

/** A JSON root's messages: a list, `{messages}`, or a single response object (one message). */
function rootMessages(root: Json, single: (o: Obj) => unknown[] | undefined): unknown[] {
  if (Array.isArray(root)) return root
  if (!isObj(root)) return []
  if (Array.isArray(root.messages)) return root.messages
  return single(root) ?? []
}

/** Counters by format id (the importers' ids), over the file's bytes. */
export const RAW_TOOL_COUNTERS: Record<string, (bytes: Uint8Array, context: RawCountContext) => RawToolCounts> = {
  'openai-chat': (bytes) => {
    // A chat completion response: its first choice's message (the importer opens the first).
    const firstChoice = (o: Obj) => {
      const choice = arr(o.choices)[0]
      return isObj(choice) ? [choice.message] : undefined
    }
    const root = JSON.parse(text(bytes)) as Json
    // A request + response log (OpenHands completion log, litellm StandardLoggingPayload,
    // {request, response}): the request's messages — OpenHands' `raw_messages` when logged —
    // then the response's message (formats-more.md §9).
    if (isObj(root) && isObj(root.response) && (Array.isArray(root.messages) || isObj(root.request))) {
      const request = isObj(root.request) ? root.request : root
      const messages = arr(Array.isArray(request.raw_messages) ? request.raw_messages : request.messages)
      return countChatMessages([...messages, ...(firstChoice(root.response) ?? [])])
    }
    return countChatMessages(rootMessages(root, firstChoice))
  },
  'anthropic-messages': (bytes) => {
    const root = JSON.parse(text(bytes)) as Json
    // A request + response pair: the request's messages, then the response message.
    if (isObj(root) && isObj(root.request) && isObj(root.response))
      return countAnthropicBlocks([...arr(root.request.messages), root.response])
    return countAnthropicBlocks(rootMessages(root, (o) => (o.type === 'message' ? [o] : undefined)))
  },
  'openai-responses': (bytes) => {
    const root = JSON.parse(text(bytes)) as Json
    if (Array.isArray(root)) return countResponsesItems(root)
    if (!isObj(root)) return { calls: 0, results: 0 }
    // A request + response log (OpenHands' Responses-API completion log): the response's output too.
    const logged = isObj(root.response) && root.input !== undefined ? arr(root.response.output) : []
    return countResponsesItems([...arr(root.input), ...arr(root.output), ...logged])
  },
  'codex-rollout': (bytes) =>
    countResponsesItems(
      jsonl(text(bytes))
        .filter((r) => r.type === 'response_item')
        .map((r) => r.payload),
    ),
  'claude-code': (bytes, { branchRoots }) => {
    const t = text(bytes)
    // The web export wraps the same records in one JSON object: {"loglines": [...]}.
    let root: Json
    try {
      root = JSON.parse(t)
    } catch {
      root = undefined // several lines: JSONL
    }
    const records = isObj(root) && Array.isArray(root.loglines) ? root.loglines.filter(isObj) : jsonl(t)
    return countClaudeCode(records, branchRoots)
  },
  'gemini-cli': (bytes) => {
    const root = JSON.parse(text(bytes)) as Json
    const messages = isObj(root) ? arr(root.messages) : []
    let calls = 0
    let results = 0
    for (const m of messages) {
      if (!isObj(m)) continue
      for (const c of arr(m.toolCalls)) {
        calls++
        if (isObj(c) && c.result !== undefined) results++
      }
    }
    return { calls, results }
  },
  'vercel-ui': (bytes) => {
    const root = JSON.parse(text(bytes)) as Json
    let calls = 0
    let results = 0
    for (const m of rootMessages(root, () => undefined)) {
      if (!isObj(m)) continue
      for (const p of arr(m.parts)) {
        if (!isObj(p) || typeof p.type !== 'string') continue
        if (!p.type.startsWith('tool-') && p.type !== 'dynamic-tool') continue
        calls++
        if (p.state === 'output-available' || p.state === 'output-error') results++
      }
    }
    return { calls, results }
  },
  'vercel-model': (bytes) => {
    const root = JSON.parse(text(bytes)) as Json
    let calls = 0
    let results = 0
    for (const m of rootMessages(root, () => undefined)) {
      if (!isObj(m)) continue
      for (const p of arr(m.content)) {
        if (!isObj(p)) continue
        if (p.type === 'tool-call') calls++
        else if (p.type === 'tool-result') results++
      }
    }
    return { calls, results }
  },
  langchain: (bytes) => {
    const root = JSON.parse(text(bytes)) as Json
    let calls = 0
    let results = 0
    for (const m of rootMessages(root, () => undefined)) {
      if (!isObj(m)) continue
      const data = isObj(m.data) ? m.data : m
      calls += arr(data.tool_calls).length
      if (m.type === 'tool' || data.type === 'tool') results++
    }
    return { calls, results }
  },
  'inspect-ai': (bytes) => {
    const sample = isZip(bytes)
      ? firstEvalSample(bytes)
      : ((root: Json) => (isObj(root) ? arr(root.samples)[0] : undefined))(JSON.parse(text(bytes)))
    const messages = isObj(sample) ? arr(sample.messages) : []
    const counts = countChatMessages(messages)
    // A server-side tool use (`ContentToolUse`, a content part `type:"tool_use"`, formats.md §4.9)
    // carries its own `result`: one call and one result.
    for (const m of messages) {
      if (!isObj(m)) continue
      for (const p of arr(m.content)) {
        if (isObj(p) && p.type === 'tool_use') {
          counts.calls++
          counts.results++
        }
      }
    }
    return counts
  },
  openhands: (bytes, { branchRoots }) => {
    // V1 (software agent SDK, docs/formats.md "OpenHands V1"): every `ActionEvent` is a call;
    // `ObservationEvent`, `UserRejectObservation` and `AgentErrorEvent` answer one. A conversation
    // folder (zipped) holds one event per `events/event-<n>-<id>.json`. Events under a branch the
    // importer lists (its first event's id) are left out: a parent is `parent_id`, else the event
    // before (`__root__` = none).
    const countV1 = (list: unknown[]): RawToolCounts => {
      const results = new Set(['ObservationEvent', 'UserRejectObservation', 'AgentErrorEvent'])
      const off = new Set<unknown>(branchRoots)
      const kept = list.filter(isObj).filter((e, i, all) => {
        const before = all[i - 1]
        const parent = typeof e.parent_id === 'string' ? e.parent_id : before?.id
        if (off.has(e.id) || (parent !== '__root__' && off.has(parent))) {
          off.add(e.id)
          return false
        }
        return true
      })
      const kinds = kept.map((e) => e.kind)
      return {
        calls: kinds.filter((k) => k === 'ActionEvent').length,
        results: kinds.filter((k) => results.has(k as string)).length,
      }
    }
    if (bytes[0] === 0x50 && bytes[1] === 0x4b) {
      const files = unzipSync(bytes)
      const names = Object.keys(files).filter((n) => /events\/event-\d+-[^/]+\.json$/.test(n))
      return countV1(names.map((n) => JSON.parse(strFromU8(files[n] as Uint8Array)) as Json))
    }
    const t = text(bytes)
    const lines = jsonl(t)
    if (lines.length > 1 && typeof lines[0]?.kind === 'string') return countV1(lines)
    let events: unknown[]
    if (t.trimStart().startsWith('[')) {
      events = JSON.parse(t) as unknown[]
      if (isObj(events[0]) && typeof events[0].kind === 'string') return countV1(events)
    } else {
      // Evaluation or resolver output (output.jsonl): the first line with a history; older
      // histories hold [action, observation] pairs.
      const line = jsonl(t).find((r) => Array.isArray(r.history) && r.history.length > 0)
      events = arr(line?.history).flatMap((e) => (Array.isArray(e) ? e : [e]))
    }
    // Function-calling runs: an action or observation with `tool_call_metadata` is a call or its
    // result. Before function calling (no metadata) an agent action other than `message`, `finish`,
    // `system` or `condensation` is a call when an observation names it by `cause`, and that
    // observation is its result; `null` and state-change observations answer nothing
    // (formats.md §4.10: observations link to actions by `cause`).
    const bookkeeping = new Set(['null', 'agent_state_changed', 'recall', 'change_agent_state'])
    const causes = new Set<unknown>()
    for (const e of events) {
      if (isObj(e) && typeof e.observation === 'string' && !bookkeeping.has(e.observation)) causes.add(e.cause)
    }
    const legacyCalls = new Set<unknown>()
    for (const e of events) {
      if (!isObj(e) || isObj(e.tool_call_metadata) || typeof e.action !== 'string') continue
      if (e.source === 'user' || typeof e.id !== 'number') continue
      if (['message', 'finish', 'system', 'condensation'].includes(e.action)) continue
      if (causes.has(e.id)) legacyCalls.add(e.id)
    }
    let calls = legacyCalls.size
    let results = 0
    // The resolver's history holds the events' dataclass fields only (no id, source or cause): an
    // agent action other than those above (and `recall`) is a call when a later observation of
    // the same name (`error` / `user_rejected`: any) comes while it is the earliest one waiting;
    // that observation is its result (docs/formats.md, OpenHands resolver output).
    const waiting: string[] = []
    for (const e of events) {
      if (!isObj(e)) continue
      if (isObj(e.tool_call_metadata)) {
        if (typeof e.action === 'string') calls++
        else if (typeof e.observation === 'string') results++
      } else if (typeof e.observation === 'string' && legacyCalls.has(e.cause)) results++
      else if (!('id' in e) && !('source' in e) && typeof e.action === 'string') {
        if (!['message', 'finish', 'system', 'condensation', 'recall'].includes(e.action)) waiting.push(e.action)
        if (e.action === 'browse_interactive') waiting[waiting.length - 1] = 'browse'
      } else if (!('cause' in e) && typeof e.observation === 'string' && !bookkeeping.has(e.observation)) {
        const o = e.observation
        const at = waiting.findIndex((a) => a === o || o === 'error' || o === 'user_rejected')
        if (at >= 0) {
          waiting.splice(at, 1)
          calls++
          results++
        }
      }
    }
    return { calls, results }
  },
  'swe-agent': (bytes) => {
    // The message view SWE-agent itself replays (docs/formats.md §4.11): `history` — of a JSON
    // .traj, or of a demonstration in YAML.
    const t = text(bytes)
    const root = (/^\s*[[{]/.test(t) ? JSON.parse(t) : parseYaml(t)) as Json
    return countChatMessages(isObj(root) ? arr(root.history) : [])
  },
  aider: () => ({ calls: 0, results: 0 }),
  // Copilot CLI (formats.md §4.13): the main agent's events (no agentId, no data.parentToolCallId);
  // a tool.execution_start no earlier toolRequest asked for (a tool the person ran) is a call too.
  'copilot-cli': (bytes) => {
    let calls = 0
    let results = 0
    const requested = new Set<unknown>()
    for (const e of jsonl(text(bytes))) {
      const data = isObj(e.data) ? e.data : {}
      if (e.agentId !== undefined || data.parentToolCallId !== undefined) continue
      if (e.type === 'assistant.message') {
        for (const q of arr(data.toolRequests)) {
          calls++
          if (isObj(q)) requested.add(q.toolCallId)
        }
      } else if (e.type === 'tool.execution_start' && !requested.has(data.toolCallId)) {
        calls++
        requested.add(data.toolCallId)
      } else if (e.type === 'tool.execution_complete') results++
    }
    return { calls, results }
  },
  // ChatGPT export (formats.md §4.14): the first conversation's current branch; an assistant
  // message addressed to a tool is a call, a run of replies from one tool is one result; a tool
  // reply while no call is open answers no call ("some tool messages answer no call",
  // myfiles_browser "files loaded") and is no result.
  'chatgpt-export': (bytes) => {
    const root = JSON.parse(text(bytes)) as Json
    const list = Array.isArray(root) ? root : isObj(root) ? arr(root.conversations ?? [root]) : []
    const conv = list[0]
    if (!isObj(conv) || !isObj(conv.mapping)) return { calls: 0, results: 0 }
    const mapping = conv.mapping
    const branch: Obj[] = []
    for (let id = conv.current_node; typeof id === 'string' && isObj(mapping[id]); ) {
      const node = mapping[id] as Obj
      if (isObj(node.message)) branch.unshift(node.message)
      id = node.parent
    }
    let calls = 0
    let results = 0
    let lastTool: unknown
    for (const m of branch) {
      const author = isObj(m.author) ? m.author : {}
      const type = isObj(m.content) ? m.content.content_type : undefined
      const tool = author.role === 'tool' ? author.name : undefined
      const addressed = m.recipient !== 'all' && m.recipient != null
      if (author.role === 'assistant' && addressed && type !== 'thoughts') calls++
      if (tool !== undefined && tool !== lastTool && results < calls) results++
      lastTool = tool
    }
    return { calls, results }
  },
  // pi-coding-agent / Oh My Pi (formats.md §4.15): the path from the file's last entry to the root
  // (parentId links; version 1 files without ids are linear), from the last omp reset_boundary
  // (/clear) on; a toolCall block of an assistant message is a call unless the response errored or
  // was aborted (pi leaves those out of the context), a toolResult message is a result.
  'pi-coding-agent': (bytes) => {
    const entries = jsonl(text(bytes)).filter((e) => e.type !== 'session' && e.type !== 'title')
    const byId = new Map<unknown, Obj>()
    let previous: unknown = null
    const parentOf = new Map<Obj, unknown>()
    entries.forEach((e, i) => {
      const id = e.id ?? `#${i}`
      byId.set(id, e)
      parentOf.set(e, e.id === undefined ? previous : e.parentId)
      previous = id
    })
    const path: Obj[] = []
    const seen = new Set<Obj>()
    for (let e = entries[entries.length - 1]; e && !seen.has(e); e = byId.get(parentOf.get(e))) {
      seen.add(e)
      path.unshift(e)
    }
    const reset = path.map((e) => e.type).lastIndexOf('reset_boundary')
    let calls = 0
    let results = 0
    for (const e of path.slice(reset + 1)) {
      const m = isObj(e.message) ? e.message : undefined
      if (e.type !== 'message' || !m) continue
      if (m.role === 'assistant' && m.stopReason !== 'error' && m.stopReason !== 'aborted')
        calls += arr(m.content).filter((b) => isObj(b) && b.type === 'toolCall').length
      else if (m.role === 'toolResult') results++
    }
    return { calls, results }
  },
  // Cline / Roo Code / Kilo Code (formats.md §4.17): the first task's
  // api_conversation_history.json. A call is a `tool_use` block, or, where the results of a user
  // message outnumber the unanswered `tool_use` calls of the assistant message before it, an
  // XML-era call in that message's text; a result is a `tool_result` block or a user text block
  // headed `[tool_name …] Result:`.
  cline: (bytes) => {
    let root: Json
    if (isZip(bytes)) {
      const files = unzipSync(bytes)
      const name = Object.keys(files)
        .filter((n) => n === 'api_conversation_history.json' || n.endsWith('/api_conversation_history.json'))
        .sort()[0]
      root = name ? (JSON.parse(strFromU8(files[name] as Uint8Array)) as Json) : []
    } else root = JSON.parse(text(bytes)) as Json
    const list = Array.isArray(root) ? root : isObj(root) ? arr(root.messages) : []
    const label = /^\[[A-Za-z0-9_.:-]+(?:[ \t][^\n]*?)?\] Result:/
    let calls = 0
    let results = 0
    let open = 0
    for (const m of list) {
      if (!isObj(m)) continue
      const blocks = typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : arr(m.content)
      if (m.role === 'assistant') {
        open = blocks.filter((b) => isObj(b) && b.type === 'tool_use').length
        calls += open
        continue
      }
      if (m.role !== 'user') continue
      const native = blocks.filter((b) => isObj(b) && b.type === 'tool_result').length
      const labelled = blocks.filter((b) => isObj(b) && b.type === 'text' && typeof b.text === 'string' && label.test(b.text)).length
      results += native + labelled
      calls += Math.max(0, labelled - Math.max(0, open - native))
      open = 0
    }
    return { calls, results }
  },
  // OpenCode export (formats.md §4.16): the session's messages up to its revert point
  // (`info.revert.messageID`); an assistant message with an `error` is not sent unless the user
  // aborted it after some output; each `tool` part is one call and one result (a pending or
  // running one is sent as interrupted).
  opencode: (bytes) => {
    const root = JSON.parse(text(bytes)) as Json
    if (!isObj(root)) return { calls: 0, results: 0 }
    const revert = isObj(root.info) && isObj(root.info.revert) ? root.info.revert.messageID : undefined
    let calls = 0
    for (const m of arr(root.messages)) {
      if (!isObj(m) || !isObj(m.info)) continue
      if (revert !== undefined && m.info.id === revert) break
      const parts = arr(m.parts).filter(isObj)
      const error = isObj(m.info.error) ? m.info.error : undefined
      const spoke = parts.some((p) => p.type !== 'step-start' && p.type !== 'reasoning')
      if (m.info.role !== 'assistant' || (error && !(error.name === 'MessageAbortedError' && spoke))) continue
      calls += parts.filter((p) => p.type === 'tool').length
    }
    return { calls, results: calls }
  },
  // claude.ai export (docs/formats.md, claude.ai data export): the first conversation with
  // messages; with parent_message_uuid links, the path from the newest leaf (latest created_at,
  // then the later in the array) to the root. Every `tool_use` block of an assistant message is a
  // call, every `tool_result` block (in the same message) a result.
  'claude-ai-export': (bytes) => {
    const root = JSON.parse(text(bytes)) as Json
    const list = Array.isArray(root) ? root : isObj(root) ? arr(root.conversations ?? [root]) : []
    const conv = list.find((c) => isObj(c) && arr(c.chat_messages).length > 0)
    if (!isObj(conv)) return { calls: 0, results: 0 }
    const all = arr(conv.chat_messages).filter(isObj)
    let line = all
    if (all.some((m) => typeof m.parent_message_uuid === 'string')) {
      const byId = new Map(all.map((m) => [m.uuid, m]))
      const parents = new Set(all.map((m) => m.parent_message_uuid))
      const time = (m: Obj) => (typeof m.created_at === 'string' ? Date.parse(m.created_at) : -1)
      let leaf: Obj | undefined
      all.forEach((m) => {
        if (!parents.has(m.uuid) && (!leaf || time(m) >= time(leaf))) leaf = m
      })
      line = []
      for (let m = leaf; m && !line.includes(m); m = byId.get(m.parent_message_uuid)) line.unshift(m)
    }
    let calls = 0
    let results = 0
    for (const m of line) {
      if (m.sender !== 'assistant') continue
      for (const b of arr(m.content)) {
        if (isObj(b) && b.type === 'tool_use') calls++
        else if (isObj(b) && b.type === 'tool_result') results++
      }
    }
    return { calls, results }
  },
  // Qwen Code (docs/formats.md, Qwen Code): the parentUuid chain from the last non-subagent
  // message record (user, assistant, tool_result) to the root; a `functionCall` part of an assistant record's message is a call, a
  // `functionResponse` part of a tool_result (or user) record's message a result.
  'qwen-code': (bytes) => {
    const records = jsonl(text(bytes))
    const byId = new Map(records.map((r) => [r.uuid, r]))
    const chain: Obj[] = []
    const messages = new Set(['user', 'assistant', 'tool_result'])
    const last = [...records]
      .reverse()
      .find((r) => typeof r.uuid === 'string' && r.isSidechain !== true && messages.has(r.type as string))
    for (let r = last; r && !chain.includes(r); r = byId.get(r.parentUuid)) chain.push(r)
    let calls = 0
    let results = 0
    for (const r of chain) {
      const parts = isObj(r.message) ? arr(r.message.parts) : []
      if (r.type === 'assistant') calls += parts.filter((p) => isObj(p) && isObj(p.functionCall)).length
      else if (r.type === 'tool_result' || r.type === 'user')
        results += parts.filter((p) => isObj(p) && isObj(p.functionResponse)).length
    }
    return { calls, results }
  },
  // Kimi CLI context.jsonl (docs/formats.md, Kimi CLI): OpenAI-style lines; `tool_calls` of an
  // assistant line are calls, a `tool` line is a result; `_`-prefixed bookkeeping lines hold none.
  'kimi-cli': (bytes) => countChatMessages(jsonl(text(bytes)).filter((l) => l.role === 'assistant' || l.role === 'tool')),
}
