import { contentText } from '../content'
import type {
  ImagePart,
  Part,
  SourceRef,
  ToolCall,
  Transcript,
  TranscriptBranch,
} from '../model'
import { quoteForMessage, collapseWhitespace, cutCodePoints } from '../util/text'
import { dataExportCloseness, detectDataExport, importDataExport, type DataExportShape } from './data-export'
import { importFailure } from './failure'
import type { FormatImporter } from './types'
import {
  countList,
  finalizeTranscript,
  isObject,
  normalizeParts,
  str,
  type DraftMessage,
  type JsonObject,
} from './util'

const format = 'chatgpt-export'

/*
 * ChatGPT's data export (Settings → Data controls → Export data): `conversations.json`, an
 * array of conversations `{title, create_time, update_time, mapping: {nodeId: {id, message | null,
 * parent, children}}, current_node, conversation_id, default_model_slug, …}`. Messages are
 * `{id, author: {role, name}, content: {content_type, …}, recipient, status, metadata, …}`.
 * There is no official schema; field names below follow real exports as read by third-party
 * parsers (pionxzh/chatgpt-exporter `src/api.ts`, mohamed-chs/convoviz `docs/dev/chatgpt-spec.md`,
 * mitkury/chatgpt-export-parser `docs/chatgpt-data-export-format.md`). Source: docs/formats.md
 * §4.14.
 */

/** A mapping node as read: its message (or null), parent id and child ids (strings only). */
interface ExportNode {
  id: string
  message: JsonObject | null
  parent: string | null
  children: string[]
  /** `message.create_time` (epoch seconds) or -1, to find the newest leaf of a branch. */
  time: number
}

/** Content types that are UI labels, not model context ("Thought for 6s"): skipped, counted. */
const UI_CONTENT_TYPES = new Set(['reasoning_recap'])

/** Content types that carry custom instructions or memory: system-like context. */
const CONTEXT_CONTENT_TYPES = new Set(['user_editable_context', 'model_editable_context'])

/** Text of `parts` strings (objects skipped), joined with "\n". */
function partsText(content: JsonObject): string {
  const parts = Array.isArray(content.parts) ? content.parts : []
  return parts.filter((p): p is string => typeof p === 'string').join('\n')
}

/**
 * The text of custom instructions / memory, each piece once: the profile is
 * `content.user_profile`, else `metadata.user_context_message_data.about_user_message`; the
 * instructions are `content.user_instructions`, else `…about_model_message` (real exports carry
 * both copies of the same text, the content one wrapped in ChatGPT's preamble, which is what the
 * model was sent); then `content.model_set_context` (memory); else `text` / `parts`. Empty when
 * none holds text. Source: docs/formats.md §4.14.
 */
function contextText(content: JsonObject, metadata: JsonObject): string {
  const data = isObject(metadata.user_context_message_data)
    ? metadata.user_context_message_data
    : {}
  const filled = (...xs: unknown[]): string | undefined =>
    xs.find((x): x is string => typeof x === 'string' && x.trim() !== '')
  const pieces = [
    filled(content.user_profile, data.about_user_message),
    filled(content.user_instructions, data.about_model_message),
    filled(content.model_set_context),
  ].filter((s): s is string => s !== undefined)
  if (pieces.length > 0) return pieces.join('\n\n')
  return str(content.text) ?? partsText(content)
}

/**
 * A message's `content` as canonical parts:
 * - `text` → its string `parts`; `multimodal_text` → strings as text, `image_asset_pointer` →
 *   an image (url = the `file-service://` / `sediment://` pointer, `size_bytes`),
 *   `audio_transcription` → its text, other objects → opaque parts (kind = their content_type);
 * - `code`, `execution_output`, `system_error` → `text`; `tether_quote` and `sonic_webpage` →
 *   title, url and text on their own lines; `tether_browsing_display` → `result` (else
 *   `summary`);
 * - `thoughts` → one readable thinking part per thought (`summary` + `content`);
 * - any other type: `text` / string `parts` when it has them, else one opaque part.
 * `unknown` receives the content types that became opaque.
 */
function contentParts(content: JsonObject, unknown: Map<string, number>): Part[] {
  const type = str(content.content_type) ?? ''
  const text = (s: unknown): Part[] =>
    typeof s === 'string' && s !== '' ? [{ type: 'text', text: s }] : []
  const lines = (...xs: unknown[]): Part[] =>
    text(xs.filter((x): x is string => typeof x === 'string' && x !== '').join('\n'))
  switch (type) {
    case 'text':
      return text(partsText(content))
    case 'multimodal_text': {
      const out: Part[] = []
      for (const p of Array.isArray(content.parts) ? content.parts : []) {
        if (typeof p === 'string') for (const item of text(p)) out.push(item)
        else if (isObject(p) && p.content_type === 'image_asset_pointer') {
          const url = str(p.asset_pointer)
          const image: ImagePart = { type: 'image' }
          if (url !== undefined) image.url = url
          if (typeof p.size_bytes === 'number') image.bytes = p.size_bytes
          out.push(image)
        } else if (isObject(p) && typeof p.text === 'string') for (const item of text(p.text)) out.push(item)
        else if (isObject(p)) {
          const kind = str(p.content_type) ?? 'part'
          out.push({ type: 'opaque', kind, raw: p })
        }
      }
      return out
    }
    case 'code':
    case 'execution_output':
    case 'system_error':
      return text(content.text)
    case 'tether_quote':
    case 'sonic_webpage':
      return lines(content.title, content.url, content.text)
    case 'tether_browsing_display':
      return text(str(content.result) || str(content.summary))
    case 'thoughts': {
      const out: Part[] = []
      for (const t of Array.isArray(content.thoughts) ? content.thoughts : []) {
        if (!isObject(t)) continue
        const summary = str(t.summary) ?? ''
        const body = str(t.content) ?? ''
        const joined = summary && body ? `**${summary}**\n\n${body}` : summary || body
        if (joined !== '') out.push({ type: 'thinking', variant: 'reasoning', text: joined })
      }
      return out
    }
    default: {
      const plain = str(content.text) ?? partsText(content)
      if (plain !== '') return text(plain)
      unknown.set(type || '(none)', (unknown.get(type || '(none)') ?? 0) + 1)
      return [{ type: 'opaque', kind: type || 'content', raw: content }]
    }
  }
}

/** The raw text a tool call carries: `text` (code), string `parts`, else the content as JSON. */
function callArguments(content: JsonObject): string {
  if (typeof content.text === 'string') return content.text
  const parts = partsText(content)
  if (parts !== '') return parts
  const { content_type: _type, ...rest } = content
  return JSON.stringify(rest)
}

/**
 * True when a tool message reports a failure: `system_error` content, or a Code Interpreter
 * `metadata.aggregate_result` whose `status` is not `success` (error, cancelled, timeout) or that
 * records an `in_kernel_exception`.
 */
function toolFailed(content: JsonObject, metadata: JsonObject): boolean {
  if (content.content_type === 'system_error') return true
  const agg = metadata.aggregate_result
  if (!isObject(agg)) return false
  if (agg.in_kernel_exception != null) return true
  return typeof agg.status === 'string' && agg.status !== 'success'
}

/** Whether a tool reply (author name) answers a call addressed to `recipient`. */
function sameTool(recipient: string, author: string): boolean {
  if (recipient === author) return true
  const head = (s: string) => s.split('.')[0] ?? s
  return head(recipient) === head(author)
}

/** One path converted to drafts, with the draft id each node ended up in. */
interface ConvertedPath {
  drafts: DraftMessage[]
  warnings: string[]
  /** Node id → id of the draft holding its message. */
  messageIdOf: Map<string, string>
  model?: string
}

/** The assistant message consecutive assistant nodes are joining: its parts and source messages. */
interface OpenAssistant {
  draft: DraftMessage
  parts: Part[]
  raws: unknown[]
}

/**
 * Converts one branch (root → leaf, in order) to drafts:
 * - `user_editable_context` / `model_editable_context` (custom instructions, memory) and system
 *   messages with `is_user_system_message` → a system message (whatever the author role);
 *   other system messages → system; empty ones (the usual placeholder at the root) are dropped;
 * - user → user; assistant → assistant, where consecutive assistant nodes (thoughts, text, a
 *   call) form one message until it has made a call and a non-call node follows;
 * - an assistant message whose `recipient` is not `all` is a tool call to that tool (`name` =
 *   the recipient, `arguments` = its code or text as written, not necessarily JSON). The export
 *   has no call ids: the id is synthetic and stable, `call_<node id>`;
 * - a tool message (`author.role: "tool"`, `author.name` e.g. `python`, `browser`,
 *   `dalle.text2im`) answers the oldest open call to the same tool (else the oldest open call);
 *   a second reply of the same tool right after (no open call left) joins that result; a tool
 *   message that answers no call at all (ChatGPT ran the tool itself: `myfiles_browser` "All the
 *   files uploaded by the user have been fully loaded", memory, …) is context the system put in
 *   front of the model, not a result: a system message flagged `injected` (no call is invented,
 *   so call and result counts stay what the model did; no warning: nothing is lost);
 * - `metadata.is_visually_hidden_from_conversation` → `flags.injected`;
 * - `reasoning_recap` ("Thought for 6s", a UI label) is skipped and counted.
 * `model` is the newest assistant `metadata.model_slug`.
 */
function convertPath(path: readonly ExportNode[], keepRaw: boolean): ConvertedPath {
  const drafts: DraftMessage[] = []
  const warnings: string[] = []
  const messageIdOf = new Map<string, string>()
  const unknown = new Map<string, number>()
  const ui = new Map<string, number>()
  const pending: ToolCall[] = []
  let open: OpenAssistant | null = null
  let model: string | undefined

  const src = (raw: unknown): SourceRef => {
    const s: SourceRef = { format }
    if (keepRaw) s.raw = raw
    return s
  }
  const push = (d: DraftMessage, nodeId: string) => {
    drafts.push(d)
    messageIdOf.set(nodeId, d.id)
    open = null
  }

  for (const node of path) {
    const m = node.message
    if (!m) continue
    const author = isObject(m.author) ? m.author : {}
    const role = str(author.role) ?? ''
    const content = isObject(m.content) ? m.content : {}
    const metadata = isObject(m.metadata) ? m.metadata : {}
    const type = str(content.content_type) ?? ''
    const hidden = metadata.is_visually_hidden_from_conversation === true
    const flags = hidden ? { injected: true } : undefined

    if (UI_CONTENT_TYPES.has(type)) {
      ui.set(type, (ui.get(type) ?? 0) + 1)
      continue
    }
    if (
      CONTEXT_CONTENT_TYPES.has(type) ||
      (role === 'system' && metadata.is_user_system_message === true)
    ) {
      const text = contextText(content, metadata)
      if (text.trim() === '') continue
      const d: DraftMessage = { id: node.id, role: 'system', content: text, source: src(m) }
      d.flags = { injected: true }
      push(d, node.id)
      continue
    }
    if (role === 'system' || role === 'user') {
      const parts = contentParts(content, unknown)
      if (parts.length === 0) continue
      const d: DraftMessage = {
        id: node.id,
        role,
        content: normalizeParts(parts, ''),
        source: src(m),
      }
      if (flags) d.flags = flags
      push(d, node.id)
      continue
    }
    if (role === 'assistant') {
      model = str(metadata.model_slug) || model
      const recipient = str(m.recipient) ?? 'all'
      const isCall = recipient !== 'all' && recipient !== '' && type !== 'thoughts'
      const acc: OpenAssistant | null = open
      const hasCalls = (acc?.draft.toolCalls?.length ?? 0) > 0
      let target: OpenAssistant | null = acc
      if (target === null || (hasCalls && !isCall)) {
        const d: DraftMessage = { id: node.id, role: 'assistant', content: null, source: src(m) }
        if (flags) d.flags = flags
        drafts.push(d)
        target = { draft: d, parts: [], raws: [] }
        open = target
      }
      target.raws.push(m)
      messageIdOf.set(node.id, target.draft.id)
      if (keepRaw) {
        target.draft.source.raw = target.raws.length === 1 ? target.raws[0] : [...target.raws]
      }
      if (isCall) {
        const call: ToolCall = {
          id: `call_${node.id}`,
          name: recipient,
          arguments: callArguments(content),
        }
        target.draft.toolCalls = [...(target.draft.toolCalls ?? []), call]
        pending.push(call)
      } else {
        target.parts.push(...contentParts(content, unknown))
      }
      target.draft.content = normalizeParts(target.parts, null)
      continue
    }
    if (role === 'tool') {
      const name = str(author.name) ?? ''
      const parts = contentParts(content, unknown)
      const failed = toolFailed(content, metadata)
      let k = pending.findIndex((c) => sameTool(c.name, name))
      if (k < 0 && pending.length > 0) k = 0
      const last = drafts[drafts.length - 1]
      const sameReply = last?.role === 'tool' && last.toolName === name && name !== ''
      if (k < 0 && open === null && last && sameReply) {
        // A second reply of the same tool (a DALL·E image and its note, a quote after a page).
        const earlier: Part[] =
          typeof last.content === 'string'
            ? [{ type: 'text', text: last.content }]
            : (last.content ?? [])
        last.content = normalizeParts([...earlier, ...parts], '') ?? ''
        if (failed) last.isError = true
        if (keepRaw) {
          const raw = last.source.raw
          last.source.raw = Array.isArray(raw) ? [...raw, m] : [raw, m]
        }
        messageIdOf.set(node.id, last.id)
        continue
      }
      const d: DraftMessage = {
        id: node.id,
        role: 'tool',
        content: normalizeParts(parts, '') ?? '',
        source: src(m),
      }
      if (k < 0) {
        // The system ran the tool itself (no assistant call): injected context, not a result.
        d.role = 'system'
        d.flags = { injected: true }
        push(d, node.id)
        continue
      }
      const call = pending.splice(k, 1)[0] as ToolCall
      d.toolCallId = call.id
      d.toolName = call.name
      if (failed) d.isError = true
      if (flags) d.flags = flags
      push(d, node.id)
      continue
    }
    const kind = `role ${role || '(none)'}`
    unknown.set(kind, (unknown.get(kind) ?? 0) + 1)
  }
  // Assistant nodes that held nothing (an empty placeholder) leave no message.
  const isEmpty = (d: DraftMessage) => d.role === 'assistant' && d.content === null && !d.toolCalls
  const kept = drafts.filter((d) => !isEmpty(d))
  const dropped = new Set(drafts.filter(isEmpty).map((d) => d.id))
  for (const [nodeId, id] of messageIdOf) if (dropped.has(id)) messageIdOf.delete(nodeId)

  for (const [type, n] of ui)
    warnings.push(`${n} ${quoteForMessage(type)} message(s) skipped: UI labels, not model context`)
  if (unknown.size > 0)
    warnings.push(`content kept as opaque parts or skipped (unknown type): ${countList(unknown)}`)
  const out: ConvertedPath = { drafts: kept, warnings, messageIdOf }
  if (model !== undefined) out.model = model
  return out
}

/** The parent node of `n`, if it is in the mapping. */
const parentOf = (n: ExportNode, nodes: ReadonlyMap<string, ExportNode>) =>
  n.parent === null ? undefined : nodes.get(n.parent)

/**
 * Nodes from the root down to `leaf` (a cycle or a missing parent stops the walk). `loopsAt`: the
 * node whose parent chain came back to a node already on the path (a broken export), if any.
 */
function pathWithLoop(
  leaf: ExportNode,
  nodes: ReadonlyMap<string, ExportNode>,
): { path: ExportNode[]; loopsAt?: string } {
  const path: ExportNode[] = []
  const seen = new Set<string>()
  let n: ExportNode | undefined = leaf
  for (; n && !seen.has(n.id); n = parentOf(n, nodes)) {
    seen.add(n.id)
    path.push(n)
  }
  const loop = n ? path[path.length - 1]?.id : undefined
  return loop === undefined ? { path: path.reverse() } : { path: path.reverse(), loopsAt: loop }
}

/** Nodes from the root down to `leaf` (a cycle or a missing parent stops the walk). */
const pathTo = (leaf: ExportNode, nodes: ReadonlyMap<string, ExportNode>) => pathWithLoop(leaf, nodes).path

/** The newest node at or below `start` (largest `create_time`; ties: the later one visited). */
function newestBelow(start: ExportNode, nodes: ReadonlyMap<string, ExportNode>): ExportNode {
  let best = start
  const stack = [start]
  const seen = new Set<string>()
  while (stack.length > 0) {
    const n = stack.pop() as ExportNode
    if (seen.has(n.id)) continue
    seen.add(n.id)
    if (n.children.length === 0 && (best.children.length > 0 || n.time >= best.time)) best = n
    for (const c of n.children) {
      const child = nodes.get(c)
      if (child) stack.push(child)
    }
  }
  return best
}

/** The first text of a branch (its first user message's, else its first), ≤ 120 code points. */
function firstTextOf(drafts: readonly DraftMessage[]): string {
  const pick = drafts.find((d) => d.role === 'user') ?? drafts[0]
  return pick ? collapseWhitespace(cutCodePoints(contentText(pick.content), 120)) : ''
}

/** The nodes of a `mapping` object, by key; a non-string `parent` or child id is dropped. */
function readNodes(mapping: JsonObject): Map<string, ExportNode> {
  const nodes = new Map<string, ExportNode>()
  for (const [id, value] of Object.entries(mapping)) {
    if (!isObject(value)) continue
    const message = isObject(value.message) ? value.message : null
    const children = Array.isArray(value.children)
      ? value.children.filter((c): c is string => typeof c === 'string')
      : []
    const time = message && typeof message.create_time === 'number' ? message.create_time : -1
    nodes.set(id, { id, message, parent: str(value.parent) ?? null, children, time })
  }
  return nodes
}

/**
 * Imports one conversation: the current branch is the path from `current_node` up through
 * `parent` to the root, reversed (a missing `current_node` falls back to the newest leaf, with a
 * warning). Every other child of a node on a path starts a branch (an edited user message, a
 * regenerated answer), followed to its newest leaf and listed in `branches` with its message
 * count; branches of branches too. Messages: see `convertPath`. Message ids are node ids.
 * Throws an ImportFailure naming `field` when the conversation has no `mapping` or no message.
 */
function importConversation(conv: unknown, field: string, keepRaw: boolean): Transcript {
  if (!isObject(conv)) importFailure(`${field} is not an object`, { field })
  if (!isObject(conv.mapping)) {
    importFailure(`${field}.mapping is not an object`, { field: `${field}.mapping` })
  }
  const nodes = readNodes(conv.mapping)
  const warnings: string[] = []
  const current = str(conv.current_node)
  let leaf = current === undefined ? undefined : nodes.get(current)
  if (!leaf) {
    const leaves = [...nodes.values()].filter((n) => n.children.every((c) => !nodes.has(c)))
    leaf = leaves.reduce<ExportNode | undefined>(
      (a, b) => (a === undefined || b.time >= a.time ? b : a),
      undefined,
    )
    if (!leaf) importFailure(`${field}.mapping has no nodes`, { field: `${field}.mapping` })
    warnings.push(
      `${field}.current_node ` +
        `${current === undefined ? 'is missing' : `(${quoteForMessage(current)}) is not in mapping`}; ` +
        'the newest leaf is taken as the current branch',
    )
  }
  const { path: line, loopsAt } = pathWithLoop(leaf, nodes)
  if (loopsAt !== undefined)
    warnings.push(
      `${field}.mapping: the parent chain of the current branch loops (node ${quoteForMessage(loopsAt)} has an ` +
        'ancestor that is also its descendant); the current branch is read from the loop down',
    )
  const converted = convertPath(line, keepRaw)
  if (converted.drafts.length === 0) {
    importFailure(`${field} has no messages on its current branch`, { field })
  }
  for (const item of converted.warnings) warnings.push(item)

  // Forks: every child of a covered node that is not covered yet starts a branch.
  const messageIdOf = new Map(converted.messageIdOf)
  const covered = new Set(line.map((n) => n.id))
  const queue = [...line]
  const branches: TranscriptBranch[] = []
  const messageAtOrAbove = (from: ExportNode | undefined): string | null => {
    const seen = new Set<string>()
    for (let n = from; n && !seen.has(n.id); n = parentOf(n, nodes)) {
      seen.add(n.id)
      const id = messageIdOf.get(n.id)
      if (id !== undefined) return id
    }
    return null
  }
  const branchFrom = (start: ExportNode, from: ExportNode | undefined) => {
    const full = pathTo(newestBelow(start, nodes), nodes)
    // A loop in the parent chain can keep `start` off the path up from its newest leaf.
    const at = full.indexOf(start)
    const path = at >= 0 ? full.slice(at) : [start]
    for (const n of path) covered.add(n.id)
    for (const item of path) queue.push(item)
    const c = convertPath(path, false)
    for (const [k, v] of c.messageIdOf) messageIdOf.set(k, v)
    if (c.drafts.length === 0) return
    branches.push({
      id: start.id,
      fromMessageId: messageAtOrAbove(from),
      messageCount: c.drafts.length,
      firstText: firstTextOf(c.drafts),
    })
  }
  const drain = () => {
    for (let i = 0; i < queue.length; i++) {
      const n = queue[i] as ExportNode
      for (const id of n.children) {
        const child = nodes.get(id)
        if (child && !covered.has(id)) branchFrom(child, n)
      }
    }
    queue.length = 0
  }
  drain()
  // Other roots (a mapping with several parentless nodes) are branches from the start.
  for (const n of nodes.values()) {
    if (covered.has(n.id) || (n.parent !== null && nodes.has(n.parent))) continue
    branchFrom(n, undefined)
    drain()
  }
  if (branches.length > 0) {
    warnings.push(
      `${branches.length} branch(es) (edited messages or regenerated answers) are not on the ` +
        `current branch; ${branches.reduce((k, b) => k + b.messageCount, 0)} message(s) there ` +
        'are listed as branches',
    )
  }
  const title = str(conv.title)
  const model = converted.model ?? (str(conv.default_model_slug) || str(conv.model_slug))
  const transcript = finalizeTranscript(format, converted.drafts, [], warnings, {
    ...(title ? { title } : {}),
    model,
  })
  if (branches.length > 0) transcript.branches = branches
  const id = str(conv.conversation_id) ?? str(conv.id)
  if (id) transcript.conversationId = id
  return transcript
}

/** A ChatGPT export's conversations: a `mapping` tree with `current_node`, `title` or `conversation_id`. */
const SHAPE: DataExportShape = {
  service: 'ChatGPT',
  body: 'mapping',
  bodyOk: isObject,
  bodyLabel: '"mapping" object (the message tree)',
  conversationKeys: ['current_node', 'title', 'conversation_id'],
}

/**
 * Imports a ChatGPT data export (`conversations.json`): one transcript per conversation (see
 * `importConversation`). The first conversation of the file is the transcript; every other one is
 * in `sidechains`, titled by its `title`, for the conversation picker (`withConversations`; an
 * untitled one is `Untitled conversation <n>`). A conversation that cannot
 * be read (no mapping, no message) is skipped with a warning naming it; when none can be read,
 * the first one's error is thrown. No recorded compactions (ChatGPT records none). Never modifies
 * `root`. Source: docs/formats.md §4.14.
 */
function importChatGPTExport(root: unknown, keepRaw = true): Transcript {
  return importDataExport(root, SHAPE, (conv, field) => importConversation(conv, field, keepRaw))
}

/** The ChatGPT data-export importer (registry entry). */
export const chatgptExportImporter: FormatImporter<typeof format> = {
  id: format,
  label: 'ChatGPT data export (conversations.json)',
  container: 'json',
  priority: 5.5,
  requestFormat: null,
  description: 'ChatGPT data export, conversations.json (every conversation; the first opens)',
  extensions: ['.json'],
  detect: (root) => detectDataExport(root, SHAPE),
  closeness: (root) => dataExportCloseness(root, SHAPE),
  importParsed: (root, options) => importChatGPTExport(root, options.keepRaw),
}
