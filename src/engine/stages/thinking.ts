/**
 * Signed thinking blocks after a compaction, by Anthropic's rules. The pipeline applies
 * `withThinkingRules` to every stage's output (the summarizing stages also to the context they
 * rebuild, and count it in their passes); the validity checker reports what it would drop
 * (`stale-thinking`). Pure functions over the canonical model.
 *
 * The rules (Anthropic docs, "Building with extended thinking" → "Preserving thinking blocks";
 * "Context windows" → extended thinking; "Preserved thinking" → prefix check; "Compaction and
 * preserved thinking"):
 * - the thinking blocks of the current assistant turn — the messages after the latest user
 *   message, i.e. the tool-use loop in progress — must be sent back complete and unmodified,
 *   signature included (an edited or reordered block is rejected; a missing one breaks the
 *   loop). They stay byte-identical (cases/31);
 * - thinking blocks of earlier turns (before the latest user message) may be omitted: the API
 *   strips them from the context of later turns anyway;
 * - on models with preserved thinking, a block is valid only while everything before it (system
 *   prompt, tools, earlier messages: its prefix) is unchanged since it was produced; a summary
 *   written by the client replaces earlier messages, so every kept block after it is invalid and
 *   the API rejects the request (400, the default) or drops the block. Only a summary the API
 *   wrote itself keeps kept-turn thinking valid.
 * So after a summary this engine wrote — or any other message a stage wrote, edited, moved or
 * removed (a placeholder, a back-reference, a slimmed output, the pinned block: each changes the
 * prefix of every block after it) — a signed block of an earlier turn is one the provider
 * requires gone: it is removed whole (never edited). A block of the current turn stays.
 * The pipeline applies these rules to every stage's output (`withThinkingRules` with the run's
 * Before), so no stage has to.
 * "Signed": a `thinking` block with a signature, or a `redacted_thinking` block (encrypted);
 * OpenAI-style `reasoning` parts are not covered by these rules and are left alone.
 */
import type { Message, Part, StageId } from '../model'
import { SUMMARY_ID_PREFIX } from './output'
import type { StageOutput } from './types'
import { inputRecord } from '../util/input-record'

/** A signed thinking block: `thinking` with a signature, or `redacted_thinking`. */
function isSignedThinking(part: Part): boolean {
  return part.type === 'thinking' && (part.variant === 'redacted_thinking' || (part.variant === 'thinking' && !!part.signature))
}

function hasSignedThinking(m: Message): boolean {
  return m.role === 'assistant' && Array.isArray(m.content) && m.content.some(isSignedThinking)
}

/**
 * The first position at which `messages` is no longer `before` message for message: a message
 * there was written, edited, moved or removed by a compaction (a message is the same when its id,
 * role, tool call id, content and tool calls are, by reference or by value). Every signed block
 * after it was signed with a prefix that is gone. Undefined when `messages` is `before` or a
 * prefix of it (nothing in front of any kept block changed). Pure; stops at the first difference.
 */
export function firstChangedPosition(messages: readonly Message[], before: readonly Message[]): number | undefined {
  const same = (a: unknown, b: unknown) => a === b || JSON.stringify(a) === JSON.stringify(b)
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i]!
    const b = before[i]
    if (m === b) continue
    if (!b || m.id !== b.id || m.role !== b.role || m.toolCallId !== b.toolCallId) return i
    if (!same(m.content, b.content) || !same(m.toolCalls, b.toolCalls)) return i
  }
  return undefined
}

/**
 * Positions of the assistant messages holding a signed thinking block that the provider requires
 * gone (see the module rules): from the first message a compaction changed — position `from`
 * (`firstChangedPosition` against the Before), or when it is not given the first summary a stage
 * wrote (`SUMMARY_ID_PREFIX` ids; an agent's recorded summary is not one — the turns after it
 * were produced with it in place) — and before the latest `user` message. [] when nothing
 * changed. Ascending.
 */
export function staleThinkingPositions(messages: readonly Message[], from?: number): number[] {
  const start = from ?? messages.findIndex((m) => m.id.startsWith(SUMMARY_ID_PREFIX))
  if (start === -1) return []
  let latestUser = messages.length - 1
  while (latestUser > start && messages[latestUser]!.role !== 'user') latestUser--
  const out: number[] = []
  for (let i = start; i < latestUser; i++) if (hasSignedThinking(messages[i]!)) out.push(i)
  return out
}

/** What `dropStaleThinking` did. */
interface StaleThinkingDrop {
  /** The context with the stale blocks removed (the input array itself when none were). */
  messages: Message[]
  /** Ids of messages that lost their blocks and stay (content changed, nothing else). */
  edited: string[]
  /** Ids of messages removed because nothing but those blocks was in them. */
  dropped: string[]
}

/**
 * `m` without its signed thinking blocks, removed whole: every other part in order (text-only
 * parts become a string joined with "\n", SPEC §1), its tool calls and id; undefined when
 * nothing else is left and it has no tool calls (an empty message is rejected too).
 */
function withoutSignedThinking(m: Message): Message | undefined {
  if (!Array.isArray(m.content)) return m
  const rest = m.content.filter((p) => !isSignedThinking(p))
  if (rest.length === 0 && !(m.toolCalls && m.toolCalls.length > 0)) return undefined
  const content = rest.length === 0 ? null : rest.every((p) => p.type === 'text') ? rest.map((p) => (p.type === 'text' ? p.text : '')).join('\n') : rest
  return { ...m, content }
}

/**
 * Removes the signed thinking blocks `staleThinkingPositions(messages, from)` finds, whole
 * (`withoutSignedThinking`); a message left with nothing is removed. Never mutates its input.
 */
function dropStaleThinking(messages: readonly Message[], from?: number): StaleThinkingDrop {
  const at = new Set(staleThinkingPositions(messages, from))
  if (at.size === 0) return { messages: messages as Message[], edited: [], dropped: [] }
  const edited: string[] = []
  const dropped: string[] = []
  const out: Message[] = []
  messages.forEach((m, i) => {
    if (!at.has(i)) {
      out.push(m)
      return
    }
    const kept = withoutSignedThinking(m)
    if (kept === undefined) dropped.push(m.id)
    else {
      edited.push(m.id)
      out.push(kept)
    }
  })
  return { messages: out, edited, dropped }
}

/**
 * Tokens the thinking rules take out of a replayed context made of a summary followed by
 * `conv[from..to)` verbatim (the summarize stage's context right after a pass): the signed blocks
 * of those messages before the latest user message among them, by `countMessage` of each message
 * with and without them (a message left with nothing counts whole). `tok[i]` is
 * `countMessage(conv[i])`. O(n) to build, then O(1) per call; `from ≤ to ≤ conv.length`.
 */
export function staleThinkingTokens(
  conv: readonly Message[],
  tok: readonly number[],
  countMessage: (m: Message) => number,
): (from: number, to: number) => number {
  // saved[i]: what the rules take from conv[i]; lastUser[j]: the last user position below j.
  const prefix = [0]
  const lastUser: number[] = [-1]
  conv.forEach((m, i) => {
    let saved = 0
    if (hasSignedThinking(m)) {
      const kept = withoutSignedThinking(m)
      saved = tok[i]! - (kept === undefined ? 0 : countMessage(kept))
    }
    prefix.push(prefix[i]! + saved)
    lastUser.push(m.role === 'user' ? i : lastUser[i]!)
  })
  return (from, to) => {
    const user = lastUser[to]!
    return user <= from ? 0 : prefix[user]! - prefix[from]!
  }
}

/** The reason given for a message removed by `withThinkingRules`. */
export const STALE_THINKING_REASON =
  'only a signed thinking block of an earlier turn: after a compaction changed what came before it, the provider requires it gone'

/**
 * `output` of a stage with `dropStaleThinking` applied to its context: edited messages get the
 * origin `original` (changed), removed ones the fate `dropped`, and one warning names them.
 * With `before` (the run's Before messages) the blocks after the first message the compaction
 * changed (`firstChangedPosition`) go, whatever the stage; without, those after the first summary
 * a stage wrote. `output` itself when there is nothing to drop or the stage changed nothing.
 */
export function withThinkingRules(output: StageOutput, stage: StageId | 'pipeline', before?: readonly Message[]): StageOutput {
  if (!output.changed) return output
  const from = before === undefined ? undefined : firstChangedPosition(output.messages, before)
  if (before !== undefined && from === undefined) return output
  const { messages, edited, dropped } = dropStaleThinking(output.messages, from)
  if (edited.length === 0 && dropped.length === 0) return output
  const origins = inputRecord(output.origins)
  for (const id of edited) origins[id] = { kind: 'original', beforeId: id, changed: true }
  const fates = inputRecord(output.fates)
  for (const id of dropped) fates[id] = { kind: 'dropped', stage, reason: STALE_THINKING_REASON }
  const warning = `signed thinking blocks of message(s) ${[...edited, ...dropped].join(', ')} were dropped whole: they precede the latest user message after a message the compaction changed (Anthropic keeps only the current turn's thinking; a summary, placeholder or other edit changes the prefix earlier blocks were signed with)`
  return { ...output, messages, origins, fates, warnings: [...output.warnings, warning] }
}
