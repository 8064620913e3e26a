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
