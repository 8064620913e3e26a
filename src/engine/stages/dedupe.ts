/**
 * `dedupe`: byte-identical repeated tool results become a short back-reference to the first
 * occurrence. Mechanical (no model call), deterministic, never mutates its input.
 * Source: seed 000 (Insika `ToolOutputCompressor.compress_transcript`), SPEC §3.1.
 */
import type { DedupeParams, Fate, Message, Origin } from '../model'
import { codePointLength, cutCodePoints, firstLine } from '../util/text'
import type { StageContext, StageOutput } from './types'
import { inputRecord } from '../util/input-record'

/**
 * Tool results shorter than this many code points are never candidates: below it a
 * back-reference can never be shorter than the body. An early bail only; the real gate is
 * the per-repeat "strictly shorter" check. Source: seed 000 `MIN_LENGTH`.
 */
export const MIN_LENGTH = 200

/** Cap of the one-line summary, in code points (≈ 40 tokens). Source: seed 000 `SUMMARY_LIMIT`. */
export const SUMMARY_LIMIT = 160

/**
 * The back-reference text before the summary (100 code points). It carries no positional
 * pointer ("see above"): the original may be evicted first, and the summary must stand
 * alone. Source: seed 000 `BOILERPLATE`.
 */
export const BACK_REFERENCE_PREFIX =
  '[repeated tool output — byte-identical to an earlier result in this conversation; One-line summary: '

/** The back-reference text after the summary. Source: seed 000 (the closing bracket). */
const BACK_REFERENCE_SUFFIX = ']'

/**
 * The one-line summary of a tool result: its first line, trimmed (if empty, the first
 * non-empty line), cut to `SUMMARY_LIMIT` code points without splitting a surrogate pair.
 * '' when the content has no non-blank line. Source: SPEC §3.1, cases/36.
 */
export function summarizeToolOutput(content: string): string {
  return cutCodePoints(firstLine(content), SUMMARY_LIMIT)
}

/** The back-reference that replaces a repeat whose first occurrence has `summary`. Source: seed 000. */
export function backReferenceFor(summary: string): string {
  return `${BACK_REFERENCE_PREFIX}${summary}${BACK_REFERENCE_SUFFIX}`
}

/**
 * True when `content` has the exact shape of a back-reference this stage writes (prefix,
 * anything, closing bracket). A text-shape test only: a stage that knows the provenance
 * (dedupe's origins) should prefer it.
 */
export function isBackReferenceText(content: unknown): content is string {
  return (
    typeof content === 'string' &&
    content.startsWith(BACK_REFERENCE_PREFIX) &&
    content.endsWith(BACK_REFERENCE_SUFFIX)
  )
}

/** The summary inside a back-reference written by `backReferenceFor`; undefined for other text. */
export function backReferenceSummary(content: unknown): string | undefined {
  if (!isBackReferenceText(content)) return undefined
  return content.slice(BACK_REFERENCE_PREFIX.length, content.length - BACK_REFERENCE_SUFFIX.length)
}

/**
 * Per message object (messages are immutable, and a re-plan passes the same Before objects
 * again): whether the content is a candidate (≥ `MIN_LENGTH` code points), its length in code
 * points once needed, and, once needed, its one-line summary. Keyed by the message, checked
 * against its content string.
 */
interface Identity {
  content: string
  candidate: boolean
  length?: number
  summary?: string
}

const identities = new WeakMap<Message, Identity>()

function identityOf(message: Message, content: string): Identity {
  const known = identities.get(message)
  if (known && known.content === content) return known
  // A code point is 1 or 2 UTF-16 units: only the band between needs counting.
  const units = content.length
  const candidate = units >= 2 * MIN_LENGTH || (units >= MIN_LENGTH && codePointsOf({ content }) >= MIN_LENGTH)
  const entry: Identity = { content, candidate }
  identities.set(message, entry)
  return entry
}

/** Length of a candidate's content in code points, counted on first need. */
function codePointsOf(identity: { content: string; length?: number }): number {
  return (identity.length ??= codePointLength(identity.content))
}

function summaryOf(identity: { content: string; summary?: string }): string {
  return (identity.summary ??= summarizeToolOutput(identity.content))
}

/**
 * Runs `dedupe` over `messages` (oldest first).
 *
 * - Candidates: `tool` messages whose content is a string of ≥ `MIN_LENGTH` code points;
 *   everything else (other roles, `Part[]` or null content, short results) passes through
 *   by reference, even when byte-identical.
 * - Identity: the content, exact matches only (the seed compares SHA-256 digests of the UTF-8
 *   bytes, equal exactly when the contents are).
 * - The first occurrence stays whole; a repeat becomes `backReferenceFor(summary of the first)`
 *   only when that is strictly shorter in code points (not so in the 200–261 band).
 * - A replaced message keeps `id`, `role`, `toolCallId`, `toolName` and every other field.
 *
 * Provenance: `fates[repeatId] = {kind:'back-referenced', stage:'dedupe', firstId}` and
 * `origins[repeatId] = {kind:'back-reference', beforeId: repeatId, firstId, stage:'dedupe'}`.
 * Our addition (the seed is silent, it counts characters only): when `ctx` is given, a repeat
 * is also kept if its back-reference would be more tokens (`ctx.countText`) than the content,
 * which happens only for highly repetitive text near the band (e.g. 262 × "a"); so the stage
 * never grows the context in tokens either. Without `ctx` only the code-point rule applies.
 *
 * No replacement → `changed: false`, `messages` is the input array, with a `note`.
 * Pure, synchronous, deterministic; never mutates its input. `params` is unused (the
 * constants are the seed's). Source: seed 000 `compress_transcript`, SPEC §3.1.
 */
export function dedupe(
  messages: readonly Message[],
  _params: DedupeParams = {},
  ctx?: Pick<StageContext, 'countText'>,
): StageOutput {
  // First occurrences by content: equal contents are what the seed's equal SHA-256 digests of
  // their UTF-8 bytes stand for, and a Map compares the strings natively (hashing 20 MB of tool
  // output through SHA-256 in JavaScript took 0.17 s of a 50 MB session's first run).
  const seen = new Map<string, { id: string; identity: Identity }>()
  const fates = inputRecord<Fate>()
  const origins = inputRecord<Origin>()
  let out: Message[] | undefined

  messages.forEach((message, index) => {
    const content = message.content
    if (message.role !== 'tool' || typeof content !== 'string') return
    const identity = identityOf(message, content)
    if (!identity.candidate) return

    const first = seen.get(content)
    if (!first) {
      seen.set(content, { id: message.id, identity })
      return
    }
    const replacement = backReferenceFor(summaryOf(first.identity))
    // Replacing in the 200–261 band would grow the transcript (seed 000, C3).
    if (codePointLength(replacement) >= codePointsOf(identity)) return
    // Highly repetitive text can be fewer tokens than its back-reference: never grow tokens.
    if (ctx && ctx.countText(replacement) > ctx.countText(content)) return

    out ??= messages.slice()
    out[index] = { ...message, content: replacement }
    fates[message.id] = { kind: 'back-referenced', stage: 'dedupe', firstId: first.id }
    origins[message.id] = {
      kind: 'back-reference',
      beforeId: message.id,
      firstId: first.id,
      stage: 'dedupe',
    }
  })

  if (!out) {
    return {
      messages: messages as Message[],
      changed: false,
      fates: {},
      origins: {},
      passes: [],
      note: 'no repeated tool output long enough to shorten',
      warnings: [],
    }
  }
  return { messages: out, changed: true, fates, origins, passes: [], warnings: [] }
}
