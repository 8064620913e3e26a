/**
 * Signed thinking blocks after a compaction, by Anthropic's rules. The summarizing stages apply
 * `dropStaleThinking` to the context they rebuild; the validity checker reports what it would
 * drop (`stale-thinking`). Pure functions over the canonical model.
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
 * So after a summary this engine wrote, a signed block of an earlier turn is one the provider
 * requires gone: it is removed whole (never edited). A block of the current turn stays.
 * "Signed": a `thinking` block with a signature, or a `redacted_thinking` block (encrypted);
 * OpenAI-style `reasoning` parts are not covered by these rules and are left alone.
 */
import type { Message, Part, StageId } from '../model'
import { SUMMARY_ID_PREFIX } from './output'
import type { StageOutput } from './types'

/** A signed thinking block: `thinking` with a signature, or `redacted_thinking`. */
function isSignedThinking(part: Part): boolean {
  return part.type === 'thinking' && (part.variant === 'redacted_thinking' || (part.variant === 'thinking' && !!part.signature))
}

function hasSignedThinking(m: Message): boolean {
  return m.role === 'assistant' && Array.isArray(m.content) && m.content.some(isSignedThinking)
}

/**
 * Positions of the assistant messages holding a signed thinking block that the provider requires
 * gone (see the module rules): after the first summary a stage wrote (`SUMMARY_ID_PREFIX` ids;
 * an agent's recorded summary is not one — the turns after it were produced with it in place)
 * and before the latest `user` message. [] when there is no such summary. Ascending.
 */
export function staleThinkingPositions(messages: readonly Message[]): number[] {
  const summary = messages.findIndex((m) => m.id.startsWith(SUMMARY_ID_PREFIX))
  if (summary === -1) return []
  let latestUser = messages.length - 1
  while (latestUser > summary && messages[latestUser]!.role !== 'user') latestUser--
  const out: number[] = []
  for (let i = summary + 1; i < latestUser; i++) if (hasSignedThinking(messages[i]!)) out.push(i)
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
 * Removes the signed thinking blocks `staleThinkingPositions` finds, whole: the message keeps
 * every other part in order (text-only parts become a string joined with "\n", SPEC §1), its
 * tool calls and ids; a message left with no content and no tool calls is removed (an empty
 * message is rejected too). Never mutates its input.
 */
function dropStaleThinking(messages: readonly Message[]): StaleThinkingDrop {
  const at = new Set(staleThinkingPositions(messages))
  if (at.size === 0) return { messages: messages as Message[], edited: [], dropped: [] }
  const edited: string[] = []
  const dropped: string[] = []
  const out: Message[] = []
  messages.forEach((m, i) => {
    if (!at.has(i) || !Array.isArray(m.content)) {
      out.push(m)
      return
    }
    const rest = m.content.filter((p) => !isSignedThinking(p))
    if (rest.length === 0 && !(m.toolCalls && m.toolCalls.length > 0)) {
      dropped.push(m.id)
      return
    }
    const content = rest.length === 0 ? null : rest.every((p) => p.type === 'text') ? rest.map((p) => (p.type === 'text' ? p.text : '')).join('\n') : rest
    edited.push(m.id)
    out.push({ ...m, content })
  })
  return { messages: out, edited, dropped }
}

/** The reason given for a message removed by `withThinkingRules`. */
export const STALE_THINKING_REASON =
  'only a signed thinking block of an earlier turn: after a summary the provider requires it gone'

/**
 * `output` of a summarizing stage with `dropStaleThinking` applied to its context: edited
 * messages get the origin `original` (changed), removed ones the fate `dropped`, and one warning
 * names them. `output` itself when there is nothing to drop or the stage changed nothing.
 */
export function withThinkingRules(output: StageOutput, stage: StageId): StageOutput {
  if (!output.changed) return output
  const { messages, edited, dropped } = dropStaleThinking(output.messages)
  if (edited.length === 0 && dropped.length === 0) return output
  const origins = { ...output.origins }
  for (const id of edited) origins[id] = { kind: 'original', beforeId: id, changed: true }
  const fates = { ...output.fates }
  for (const id of dropped) fates[id] = { kind: 'dropped', stage, reason: STALE_THINKING_REASON }
  const warning = `signed thinking blocks of message(s) ${[...edited, ...dropped].join(', ')} were dropped whole: they precede the latest user message after a summary (Anthropic keeps only the current turn's thinking; a summary changes the prefix earlier blocks were signed with)`
  return { ...output, messages, origins, fates, warnings: [...output.warnings, warning] }
}
