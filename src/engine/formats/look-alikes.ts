import type { FormatId } from '../model'
import { isObject, str, type JsonObject } from './util'

/**
 * Another tool's log that this version does not read, told by its signature (design
 * formats-more.md §0). `misreadAs` lists the formats whose detectors accept such a file although
 * it is not theirs (an iFlow session has Claude Code's fields); a file accepted by any other
 * format is left to it, so a tool that gains an importer is never refused here.
 */
export interface LookAlike {
  /** The tool and kind of file, as a refusal names it, e.g. `iFlow CLI session`. */
  tool: string
  /** How the file is read before the signature is tested: one JSON document or JSONL records. */
  container: 'json' | 'jsonl'
  /** True when the input carries the tool's signature. */
  matches(input: unknown): boolean
  /** Our formats that would read such a file wrongly. */
  misreadAs: readonly FormatId[]
  /** What to open instead, when the tool keeps a readable file elsewhere. */
  hint?: string
}

/** Records a JSONL signature looks at: enough for a header and a first turn, bounded for big logs. */
const SIGNATURE_RECORDS = 200

/** The first `SIGNATURE_RECORDS` record values of a JSONL input (`JsonlRecord[]`; empty for any other input). */
function headRecords(input: unknown): JsonObject[] {
  if (!Array.isArray(input)) return []
  const values: JsonObject[] = []
  for (const r of input.slice(0, SIGNATURE_RECORDS) as unknown[]) {
    if (isObject(r) && isObject(r.value)) values.push(r.value)
  }
  return values
}

/**
 * iFlow CLI (`~/.iflow/projects/<cwd>/session-<uuid>.jsonl`; formats-more.md §7, seen in real
 * files): Claude Code's record fields, but `sessionId` is `session-<uuid>` and either an
 * assistant `message.id` is `response-<ms>…` or a tool result's content is an object with `callId`.
 */
function isIflow(input: unknown): boolean {
  const records = headRecords(input)
  if (!records.some((r) => str(r.sessionId)?.startsWith('session-'))) return false
  return records.some((r) => {
    const message = r.message
    if (!isObject(message)) return false
    if (str(message.id)?.startsWith('response-')) return true
    const content = message.content
    const blocks = Array.isArray(content) ? (content as unknown[]) : [content]
    return blocks.some(
      (b) => isObject(b) && (isObject(b.content) ? 'callId' in b.content : 'callId' in b),
    )
  })
}

/** The UI event types of Kimi CLI's `wire.jsonl` (`message.type`; MoonshotAI/kimi-cli src/kimi_cli/wire). */
const KIMI_WIRE_EVENTS = new Set(['TurnBegin', 'StepBegin', 'ContentPart', 'ToolCall', 'ToolResult', 'StatusUpdate'])

/**
 * Kimi CLI's `wire.jsonl` (formats-more.md §5): UI events `{timestamp, message{type, payload}}`
 * such as `TurnBegin`; its conversation is in `context.jsonl` beside it.
 */
function isKimiWire(input: unknown): boolean {
  return headRecords(input).some((r) => isObject(r.message) && KIMI_WIRE_EVENTS.has(str(r.message.type) ?? ''))
}

/**
 * Kimi Code's `wire.jsonl` (MoonshotAI/kimi-code packages/agent-core/src/agent/records/types.ts;
 * formats-more.md §5): line 1 `{type:"metadata", protocol_version}`, then dotted record types
 * such as `turn.prompt` and `context.append_loop_event`.
 */
function isKimiCode(input: unknown): boolean {
  const records = headRecords(input)
  const first = records[0]
  if (!first || first.type !== 'metadata' || !('protocol_version' in first)) return false
  return records.slice(1).every((r) => /^[a-z_]+\.[a-z_.]+$/.test(str(r.type) ?? ''))
}

/** The content block types only Goose writes (block/goose crates/goose/src/conversation/message.rs `MessageContent`, camelCase tags). */
const GOOSE_BLOCKS = new Set(['toolRequest', 'toolResponse', 'frontendToolRequest', 'toolConfirmationRequest'])

/**
 * Goose's session JSONL (`~/.local/share/goose/sessions/<id>.jsonl`; block/goose
 * crates/goose/src/session/storage.rs `SessionMetadata`, read by legacy.rs today): line 1 the
 * session metadata (`working_dir`, `description`, `message_count`, token counts), then one `Message` a line, `{id, role, created, content[], metadata}`,
 * whose tool calls and results are content blocks of type `toolRequest` / `toolResponse`.
 */
function isGoose(input: unknown): boolean {
  const records = headRecords(input)
  const first = records[0]
  if (first && typeof first.description === 'string' && typeof first.message_count === 'number' && !('role' in first))
    return true
  return records.some(
    (r) =>
      typeof r.role === 'string' &&
      Array.isArray(r.content) &&
      (r.content as unknown[]).some((b) => isObject(b) && GOOSE_BLOCKS.has(str(b.type) ?? '')),
  )
}

/**
 * Continue's session file (`~/.continue/sessions/<sessionId>.json`; continuedev/continue
 * core/index.d.ts `Session`, core/util/paths.ts): `{sessionId, title, workspaceDirectory,
 * history[]}` whose items are `ChatHistoryItem`s `{message{role, content}, contextItems[]}`.
 */
function isContinue(input: unknown): boolean {
  if (!isObject(input) || typeof input.sessionId !== 'string' || typeof input.workspaceDirectory !== 'string')
    return false
  const history = input.history
  return (
    Array.isArray(history) &&
    (history as unknown[]).every((h) => isObject(h) && isObject(h.message) && Array.isArray(h.contextItems))
  )
}

/** The keys gptme writes for a message (gptme/gptme gptme/message.py `Message.to_dict`). */
const GPTME_KEYS = new Set(['role', 'content', 'timestamp', 'files', 'file_hashes', 'pinned', 'hide', 'ephemeral_ttl', 'call_id', 'metadata'])

/**
 * gptme's `conversation.jsonl` (`~/.local/share/gptme/logs/<name>/`; gptme/gptme
 * gptme/logmanager/manager.py `write_jsonl`, gptme/message.py `Message.to_dict`): one message a
 * line, only `Message.to_dict`'s keys, `role` ∈ system/user/assistant (tool output is a `system`
 * message), string `content` and an ISO `timestamp` on every line.
 */
function isGptme(input: unknown): boolean {
  const records = headRecords(input)
  if (records.length === 0 || !Array.isArray(input) || records.length !== Math.min(input.length, SIGNATURE_RECORDS))
    return false
  return records.every(
    (r) =>
      ['system', 'user', 'assistant'].includes(str(r.role) ?? '') &&
      typeof r.content === 'string' &&
      /^\d{4}-\d\d-\d\dT\d\d:\d\d/.test(str(r.timestamp) ?? '') &&
      Object.keys(r).every((k) => GPTME_KEYS.has(k)),
  )
}

/**
 * Amazon Q Developer CLI's saved conversation (`/save <path>`: aws/amazon-q-developer-cli
 * crates/chat-cli/src/cli/chat/cli/persist.rs writes `ConversationState` from
 * crates/chat-cli/src/cli/chat/conversation.rs): `{conversation_id, history[{user, assistant}],
 * valid_history_range, transcript[], tools, …}`.
 */
function isAmazonQ(input: unknown): boolean {
  return (
    isObject(input) &&
    typeof input.conversation_id === 'string' &&
    Array.isArray(input.history) &&
    Array.isArray(input.valid_history_range) &&
    Array.isArray(input.transcript)
  )
}

/**
 * Open Interpreter's conversation file (`<storage>/conversations/<name>.json`;
 * OpenInterpreter/open-interpreter interpreter/core/core.py dumps `self.messages`): a list of LMC
 * messages `{role, type, format?, content}`, where code runs are `type:"code"` and their output
 * `{role:"computer", type:"console"}` (interpreter/core/respond.py) — never OpenAI Chat's shape.
 */
function isOpenInterpreter(input: unknown): boolean {
  if (!Array.isArray(input) || input.length === 0) return false
  const items = input as unknown[]
  if (!items.every((m) => isObject(m) && typeof m.role === 'string' && typeof m.type === 'string')) return false
  return (items as JsonObject[]).some((m) => m.role === 'computer' || m.type === 'code' || m.type === 'console')
}

/**
 * The signatures of tools this version does not read, most specific first. Tools with an importer
 * of their own are not listed: their importer's detection decides.
 */
const LOOK_ALIKES: readonly LookAlike[] = [
  { tool: 'iFlow CLI session', container: 'jsonl', matches: isIflow, misreadAs: ['claude-code'] },
  {
    tool: 'Kimi CLI wire log',
    container: 'jsonl',
    matches: isKimiWire,
    misreadAs: [],
    hint: 'its conversation is in context.jsonl in the same folder',
  },
  { tool: 'Kimi Code session', container: 'jsonl', matches: isKimiCode, misreadAs: [] },
  { tool: 'Goose session', container: 'jsonl', matches: isGoose, misreadAs: [] },
  { tool: 'Continue session', container: 'json', matches: isContinue, misreadAs: [] },
  { tool: 'gptme conversation', container: 'jsonl', matches: isGptme, misreadAs: [] },
  { tool: 'Amazon Q Developer CLI conversation', container: 'json', matches: isAmazonQ, misreadAs: [] },
  // A code run would be read as OpenAI Chat text: the code as the assistant's words, no tool call.
  { tool: 'Open Interpreter conversation', container: 'json', matches: isOpenInterpreter, misreadAs: ['openai-chat'] },
]

/**
 * The first look-alike whose signature `input` carries, given how it was read and which format (if
 * any) accepted it: a file accepted by a format not in the look-alike's `misreadAs` is not one.
 */
export function lookAlikeOf(
  container: LookAlike['container'],
  input: unknown,
  acceptedBy: FormatId | undefined,
): LookAlike | undefined {
  for (const l of LOOK_ALIKES) {
    if (l.container !== container) continue
    if (acceptedBy !== undefined && !l.misreadAs.includes(acceptedBy)) continue
    try {
      if (l.matches(input)) return l
    } catch {
      // A signature test must never break detection.
    }
  }
  return undefined
}

/**
 * The refusal line for a look-alike, e.g. `this looks like an iFlow CLI session: not supported
 * yet`, with its hint after a semicolon.
 */
export function lookAlikeMessage(l: LookAlike): string {
  const article = /^[aeiou]/i.test(l.tool) ? 'an' : 'a'
  const line = `this looks like ${article} ${l.tool}: not supported yet`
  return l.hint ? `${line}; ${l.hint}` : line
}

/** The 16 bytes every SQLite 3 database file opens with ("SQLite format 3" and a NUL; sqlite.org/fileformat.html §1.3). */
const SQLITE_HEADER = 'SQLite format 3\u0000'

/**
 * The refusal of a binary text (`looksBinary`) told by its header: an SQLite database, where
 * Cursor, OpenCode ≥2026, Zed and Crush keep their sessions; undefined for any other binary file.
 * `text` is the decoded file (the header is ASCII, so it survives UTF-8 decoding).
 */
export function binaryLookAlikeMessage(text: string): string | undefined {
  if (text.startsWith(SQLITE_HEADER))
    return 'this looks like an SQLite database (Cursor, OpenCode ≥2026, Zed and Crush keep sessions in one): not supported yet'
  return undefined
}
