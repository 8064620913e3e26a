/**
 * `prune-tool-results`: the oldest tool results are rewritten in place into a short
 * placeholder until the context is under a token target. Every call keeps the result that
 * answers it (only the content changes), so the tool-call pairing stays valid.
 * Source: seed 002 (Brute `Compaction::Middleware::ToolResults#rewrite`), SPEC §3.3.
 */
import type { Fate, Message, Origin, PruneParams } from '../model'
import { codePointLength } from '../util/text'
import { pairToolResults } from '../tool-pairs'
import { MIN_LENGTH, backReferenceSummary, summarizeToolOutput } from './dedupe'
import { unchangedOutput } from './output'
import { countDefault, paramDefinition } from './definitions'
import { readCounts } from './params'
import type { StageContext, StageOutput } from './types'
import { pruneTrigger, statelessDecisions } from './triggers'
import { inputRecord } from '../util/input-record'

/** The placeholder text; `%s` is the tool name. Source: seed 002 `PLACEHOLDER`. */
export const PLACEHOLDER_TEMPLATE = 'Result dropped to free context. Call %s again if you still need it.'

/** Default of `keep_steps` (newest steps whose results are guarded). Source: seed 002 `initialize`. */
export const DEFAULT_KEEP_STEPS = countDefault('prune-tool-results', 'keep_steps')

/** Default of `min_tokens`: results under this many tokens are kept. Source: seed 002 `initialize`. */
export const DEFAULT_MIN_TOKENS = countDefault('prune-tool-results', 'min_tokens')

/** The error for `keep_steps < 1`, word for word. Source: seed 002 `initialize` (ArgumentError). */
export const KEEP_STEPS_ERROR = paramDefinition('prune-tool-results', 'keep_steps')!.unusable!

/** Tool name used in a placeholder when the answered call cannot be found (an orphan result). */
const UNKNOWN_TOOL_NAME = 'the tool'

const [PLACEHOLDER_HEAD, PLACEHOLDER_TAIL] = PLACEHOLDER_TEMPLATE.split('%s') as [string, string]

/** The placeholder for a result of `toolName`. Source: seed 002 `PLACEHOLDER % name`. */
export function placeholderFor(toolName: string): string {
  return `${PLACEHOLDER_HEAD}${toolName}${PLACEHOLDER_TAIL}`
}

/** True when `content` is a placeholder this stage writes (for any tool name). */
export function isPlaceholderText(content: unknown): content is string {
  return (
    typeof content === 'string' &&
    content.length > PLACEHOLDER_HEAD.length + PLACEHOLDER_TAIL.length &&
    content.startsWith(PLACEHOLDER_HEAD) &&
    content.endsWith(PLACEHOLDER_TAIL)
  )
}

/**
 * Params of `pruneToolResults`. `target` is required (tokens); `keep_steps` (default 1),
 * `min_tokens` (default 200, tokens), `exclude_tools` (default none), `clear_at_least` (default 0,
 * tokens) and `keep_tool_uses` (default 0, calls) are optional, so a `PruneParams` fits as is.
 *
 * `backReferences` (optional): back-reference message id → id of the first occurrence it
 * stands for, as `dedupe` reported it (see `backReferencesFromOrigins`). It is a param, not
 * part of `StageContext`, because it describes this input (the output of an earlier stage),
 * not a service. When it is given it is the only source of truth. When it is absent,
 * back-references are recognised by their text (`BACK_REFERENCE_PREFIX` … `]`) and each one
 * is tied, conservatively, to **every** earlier long tool result with the same one-line
 * summary (two different outputs can share a first line; the text alone cannot tell which
 * one was the original).
 */
export type PruneToolResultsParams = Pick<PruneParams, 'target'> &
  Partial<Omit<PruneParams, 'target'>> & {
    backReferences?: Readonly<Record<string, string>>
  }

/**
 * Back-reference id → first-occurrence id, from a stage's `origins` (entries of kind
 * `back-reference`). Use it to hand `dedupe`'s provenance to `pruneToolResults`.
 */
export function backReferencesFromOrigins(
  origins: Readonly<Record<string, Origin>>,
): Record<string, string> {
  const refs = inputRecord<string>()
  for (const [id, origin] of Object.entries(origins)) {
    if (origin.kind === 'back-reference') refs[id] = origin.firstId
  }
  return refs
}

/**
 * The clear-tool-uses params after defaults: `exclude_tools` keeps the non-empty trimmed strings
 * of an array (anything else → none); `clear_at_least` and `keep_tool_uses` take a finite
 * value ≥ 0, truncated, else their default 0. Pure. Source: Anthropic context editing
 * `clear_tool_uses_20250919` (`exclude_tools`, `clear_at_least`, `keep` tool uses).
 */
export function normalizeClearParams(params: Partial<PruneParams> | undefined): {
  exclude_tools: string[]
  clear_at_least: number
  keep_tool_uses: number
} {
  const { values } = readCounts('prune-tool-results', params)
  const tools = Array.isArray(params?.exclude_tools) ? params.exclude_tools : []
  return {
    exclude_tools: [
      ...new Set(
        tools.filter((t): t is string => typeof t === 'string').map((t) => t.trim()).filter(Boolean),
      ),
    ],
    clear_at_least: values.clear_at_least!,
    keep_tool_uses: values.keep_tool_uses!,
  }
}

function unchanged(messages: readonly Message[], note: string, error?: string): StageOutput {
  return unchangedOutput(messages, note, error === undefined ? {} : { error })
}

/**
 * Index of each tool message → index of the assistant message holding the call it answers
 * (paired by position, `pairToolResults`: a reused id answers its newest unanswered call), and
 * the tool name for its placeholder.
 */
function resolveCalls(messages: readonly Message[]) {
  const pairs = pairToolResults(messages)
  const answered = new Map<number, number>()
  const names = new Map<number, string>()
  /** Tool message index → position of the call it answers among all calls (0 = oldest). */
  const callOrdinal = new Map<number, number>()
  messages.forEach((m, i) => {
    if (m.role !== 'tool') return
    const ref = pairs.callOf[i]
    const call = ref ? messages[ref.message]!.toolCalls![ref.call] : undefined
    if (ref) {
      answered.set(i, ref.message)
      callOrdinal.set(i, ref.ordinal)
    }
    names.set(i, call?.name || m.toolName || UNKNOWN_TOOL_NAME)
  })
  return { answered, names, callOrdinal, calls: pairs.calls }
}

/**
 * For every first occurrence that a back-reference in `messages` stands for: the indices of
 * those back-references. Also returns the set of back-reference indices.
 */
function resolveBackReferences(
  messages: readonly Message[],
  explicit: Readonly<Record<string, string>> | undefined,
) {
  const dependents = new Map<number, number[]>()
  const backRefs = new Set<number>()
  const link = (original: number, backRef: number) => {
    const list = dependents.get(original)
    if (list) list.push(backRef)
    else dependents.set(original, [backRef])
  }

  if (explicit) {
    const indexOf = new Map<string, number>()
    messages.forEach((m, i) => indexOf.set(m.id, i))
    messages.forEach((m, i) => {
      const firstId = explicit[m.id]
      if (m.role !== 'tool' || firstId === undefined) return
      backRefs.add(i)
      const first = indexOf.get(firstId)
      if (first !== undefined && first < i) link(first, i)
    })
    return { dependents, backRefs }
  }

  // Text fallback: summaries of the long, non-back-reference tool results seen so far.
  const summaries: { index: number; summary: string }[] = []
  messages.forEach((m, i) => {
    if (m.role !== 'tool' || typeof m.content !== 'string') return
    const summary = backReferenceSummary(m.content)
    if (summary !== undefined) {
      backRefs.add(i)
      for (const s of summaries) if (s.summary === summary) link(s.index, i)
    } else if (codePointLength(m.content) >= MIN_LENGTH) {
      summaries.push({ index: i, summary: summarizeToolOutput(m.content) })
    }
  })
  return { dependents, backRefs }
}

/**
 * Runs `prune-tool-results`: walks `messages` oldest first with a running total of
 * `ctx.countMessage` (tokens) over all messages, and stops as soon as it is ≤ `target`.
 * A `tool` message is replaced by `placeholderFor(<name of the call it answers>)` unless:
 * - it is guarded: it answers a call of the newest `keep_steps` steps (a step = an assistant
 *   message with tool calls plus its results);
 * - it answers one of the newest `keep_tool_uses` tool calls (counted over every call, parallel
 *   calls one by one: a step of three parallel calls is three tool uses; Anthropic `keep`);
 * - its tool (the name of the call it answers, else its `toolName`) is in `exclude_tools`;
 * - it is under `min_tokens` tokens;
 * - it was already replaced: its content is a placeholder, or it is a back-reference;
 * - the placeholder would not be fewer tokens than what it replaces (never grow the context:
 *   our choice, the seed is silent; it only matters for a tiny `min_tokens`).
 * Each replacement does `running -= tokens(old) - tokens(new)`.
 *
 * `trigger` (tokens, Anthropic `clear_tool_uses` `trigger.input_tokens`): while the total is under it
 * nothing changes; once it is reached the walk runs down to `target` (0: every eligible result).
 * Every turn end is logged in `decisions` (triggers.ts `statelessDecisions`).
 *
 * `clear_at_least` (tokens, Anthropic context editing): once the walk fires it goes on past
 * `target` until it has replaced at least that many tokens; if the whole walk replaces fewer,
 * nothing changes (`changed: false`, a note saying how many it could clear) — a small edit of
 * old messages would break the prompt cache of everything after it for a tiny gain.
 * Only `tool` messages are
 * touched: assistant messages (with their thinking blocks, cases/32) pass through by reference.
 * A replaced message keeps `id`, `role`, `toolCallId`, `toolName` and every other field.
 *
 * Back-references (cases/47): when the walk replaces a first occurrence that later
 * back-references stand for, those back-references are rewritten into the placeholder of
 * their own call in the same step (counted in the running total), even under `min_tokens`.
 * Chosen over "skip the original" because the original is usually the biggest result, the
 * oldest-first order is the seed's contract, and a back-reference whose original is gone
 * would tell the model about content it can no longer see; the placeholder says the true
 * thing ("dropped, call again") and is shorter. Re-inlining is wrong: it grows the context.
 * One exception: if such a back-reference is itself guarded (newest steps or tool uses) or
 * excluded, the original is skipped instead, since the model has not acted on that result yet
 * (or its tool's results must stay) and needs its content.
 * See `PruneToolResultsParams.backReferences` for how back-references are recognised.
 *
 * Provenance: `fates[id] = {kind:'pruned', stage:'prune-tool-results', placeholder}`,
 * `origins[id] = {kind:'placeholder', beforeId: id, stage:'prune-tool-results'}`.
 * Nothing replaced → `changed: false`, `messages` is the input array, with a `note`.
 * Errors (returned in `error`, input passed on unchanged, never thrown): `keep_steps < 1`
 * (`KEEP_STEPS_ERROR`, seed 002), a non-finite `target`. Pure, synchronous, deterministic.
 * Source: seed 002 `rewrite`, SPEC §3.3.
 */
export function pruneToolResults(
  messages: readonly Message[],
  params: PruneToolResultsParams,
  ctx: Pick<StageContext, 'countMessage' | 'fixedTokens'>,
): StageOutput {
  // keep_steps is checked first: its error is the seed's (ArgumentError in `initialize`).
  const { values: counts, error: unusable } = readCounts('prune-tool-results', params)
  const keepSteps = counts.keep_steps!
  if (!Number.isFinite(keepSteps)) return unchanged(messages, KEEP_STEPS_ERROR, KEEP_STEPS_ERROR)
  const target = counts.target!
  if (!Number.isFinite(target)) {
    const reason = paramDefinition('prune-tool-results', 'target')!.unusable!
    return unchanged(messages, reason, reason)
  }
  if (unusable !== undefined) return unchanged(messages, unusable, unusable)

  const tokens = messages.map((m) => ctx.countMessage(m))
  // The same total the user sees: messages plus what every request carries (cases/28).
  const total = tokens.reduce((a, b) => a + b, 0) + (ctx.fixedTokens ?? 0)
  const clear = normalizeClearParams(params)
  const excluded = new Set(clear.exclude_tools)
  const calls = resolveCalls(messages)
  const read: PruneInput = {
    counts,
    clear,
    tokens,
    calls,
    refs: resolveBackReferences(messages, params.backReferences),
    isExcluded: (i) => excluded.size > 0 && excluded.has(calls.names.get(i) ?? UNKNOWN_TOOL_NAME),
  }
  const output = pruneWalk(messages, read, total, ctx)
  const prunable = prunableAt(messages, read)
  const decisions = statelessDecisions(
    'prune-tool-results', messages, (i) => tokens[i]!, ctx.fixedTokens ?? 0, pruneTrigger(params), output.changed, output.note,
    (k) => (prunable(k) ? undefined : `every tool result in context up to #${messages[k]?.index ?? k} is guarded, excluded, under min_tokens or already replaced`),
  )
  return { ...output, decisions }
}

/** What `pruneToolResults` reads once and both the walk and the decision log use. */
interface PruneInput {
  /** The count params as the engine uses them (`readCounts`). */
  counts: Record<string, number>
  clear: ReturnType<typeof normalizeClearParams>
  /** Tokens of each message. */
  tokens: readonly number[]
  calls: ReturnType<typeof resolveCalls>
  refs: ReturnType<typeof resolveBackReferences>
  /** Whether the result at `i` belongs to an excluded tool (`exclude_tools`). */
  isExcluded: (i: number) => boolean
}

/**
 * Whether the prefix `messages[0..k]` holds a tool result the walk could replace, for the
 * decision log's earlier turns: the oldest result that is not excluded, not under `min_tokens`
 * and not already replaced, unless the prefix's newest `keep_steps` steps or `keep_tool_uses`
 * calls guard it (a later result is guarded whenever the oldest one is). Counts per prefix are
 * prefix sums, so the whole log is O(n). Returns a lookup by position.
 */
function prunableAt(messages: readonly Message[], read: PruneInput): (k: number) => boolean {
  const { answered, callOrdinal } = read.calls
  const keepSteps = Math.floor(read.counts.keep_steps!)
  const stepsUpTo: number[] = []
  const callsUpTo: number[] = []
  const stepOrdinal = new Map<number, number>()
  let steps = 0
  let calls = 0
  messages.forEach((m, i) => {
    if (m.role === 'assistant' && m.toolCalls && m.toolCalls.length > 0) {
      stepOrdinal.set(i, steps++)
      calls += m.toolCalls.length
    }
    stepsUpTo[i] = steps
    callsUpTo[i] = calls
  })
  const oldest = messages.findIndex(
    (m, i) =>
      m.role === 'tool' &&
      !read.isExcluded(i) &&
      !read.refs.backRefs.has(i) &&
      !isPlaceholderText(m.content) &&
      read.tokens[i]! >= read.counts.min_tokens!,
  )
  const step = oldest < 0 ? undefined : answered.get(oldest)
  const ordinal = oldest < 0 ? undefined : callOrdinal.get(oldest)
  return (k) => {
    if (oldest < 0 || oldest > k) return false
    if (step !== undefined && stepOrdinal.get(step)! >= stepsUpTo[k]! - keepSteps) return false
    return ordinal === undefined || ordinal < callsUpTo[k]! - read.clear.keep_tool_uses
  }
}

/** The walk of `pruneToolResults` once the params are read (see there). */
function pruneWalk(
  messages: readonly Message[],
  read: PruneInput,
  total: number,
  ctx: Pick<StageContext, 'countMessage' | 'fixedTokens'>,
): StageOutput {
  const { counts, clear, tokens } = read
  const target = counts.target!
  const keepSteps = counts.keep_steps!
  const trigger = counts.trigger
  if (trigger !== undefined && Number.isFinite(trigger) && total < trigger) {
    return unchanged(messages, `under trigger: ${total} < ${trigger} tokens`)
  }
  if (total <= target) return unchanged(messages, `under target: ${total} ≤ ${target} tokens`)
  const minTokens = counts.min_tokens!

  const { answered, names, callOrdinal, calls } = read.calls
  const stepStarts: number[] = []
  messages.forEach((m, i) => {
    if (m.role === 'assistant' && m.toolCalls && m.toolCalls.length > 0) stepStarts.push(i)
  })
  const guardedSteps = new Set(stepStarts.slice(-Math.floor(keepSteps)))
  const firstKeptCall = calls - clear.keep_tool_uses
  const isGuarded = (i: number) => {
    const step = answered.get(i)
    if (step !== undefined && guardedSteps.has(step)) return true
    const ordinal = callOrdinal.get(i)
    return ordinal !== undefined && ordinal >= firstKeptCall
  }
  const { isExcluded } = read
  const { dependents, backRefs } = read.refs

  let out: Message[] | undefined
  const fates = inputRecord<Fate>()
  const origins = inputRecord<Origin>()
  let running = total
  let cleared = 0

  for (let i = 0; i < messages.length; i++) {
    if (running <= target && cleared >= clear.clear_at_least) break
    const message = messages[i]!
    if (message.role !== 'tool' || isGuarded(i) || isExcluded(i)) continue
    if (backRefs.has(i) || isPlaceholderText(message.content)) continue
    if (tokens[i]! < minTokens) continue

    // A back-reference already rewritten (the text fallback may tie it to several originals)
    // needs nothing more.
    const refs = (dependents.get(i) ?? []).filter((r) => !out || out[r] === messages[r])
    if (refs.some((r) => isGuarded(r) || isExcluded(r))) continue

    const unit = [i, ...refs].map((j) => {
      const before = messages[j]!
      const after: Message = { ...before, content: placeholderFor(names.get(j) ?? UNKNOWN_TOOL_NAME) }
      return { j, before, after, saved: tokens[j]! - ctx.countMessage(after) }
    })
    const saved = unit.reduce((a, u) => a + u.saved, 0)
    if (saved <= 0) continue

    out ??= messages.slice()
    for (const { j, before, after } of unit) {
      out[j] = after
      fates[before.id] = {
        kind: 'pruned',
        stage: 'prune-tool-results',
        placeholder: after.content as string,
      }
      origins[after.id] = { kind: 'placeholder', beforeId: before.id, stage: 'prune-tool-results' }
    }
    running -= saved
    cleared += saved
  }

  // Says "excluded" only when exclude_tools is in use, so the seed-only wording stays as it was.
  const kept = `guarded, ${clear.exclude_tools.length > 0 ? 'excluded, ' : ''}under min_tokens or already replaced`
  if (!out) {
    return unchanged(messages, `nothing to prune: ${total} > ${target} tokens, but every tool result is ${kept}`)
  }
  if (cleared < clear.clear_at_least) {
    return unchanged(
      messages,
      `no change: pruning could clear only ${cleared} of the ${clear.clear_at_least} tokens clear_at_least asks for; a smaller edit is not worth breaking the prompt cache`,
    )
  }
  // Target 0 asks for every eligible result (Anthropic clear_tool_uses, masking): not a shortfall.
  const warnings =
    running > target && target > 0
      ? [
          `still over target after pruning: ${running} > ${target} tokens; the rest is ${kept}`,
        ]
      : []
  return { messages: out, changed: true, fates, origins, passes: [], warnings }
}
