/**
 * `summarize`: rolling, multi-pass compaction. When the uncompacted part of the conversation
 * grows past `compact_after` messages, everything but the last `keep_last` is folded into one
 * summary (together with the previous summary); the tail stays verbatim.
 * Source: seed 001 (Insika `Compaction`: `plan`, `prompt`, `transcript`, `text_of`), SPEC §3.2,
 * and the fault cases named on each guard.
 */
import type { Fate, Message, Origin, Pass, SummarizeParams, TriggerDecision } from '../model'
import { perMessage } from '../util/memo'
import { codePointLength, collapseWhitespace, cutCodePoints, elideMiddle } from '../util/text'
import { pairToolResults } from '../tool-pairs'
import { contentText, isTurnEnd } from '../content'
import { isSummaryMessage } from '../facts/classify'
import { SUMMARY_ID_PREFIX, unchangedOutput } from './output'
import { countDefault } from './definitions'
import { readCounts } from './params'
import { summarizeTail, summarizeTrigger, triggerReached, type TailStart } from './triggers'
import { staleThinkingTokens, withThinkingRules } from './thinking'
import type { StageContext, StageOutput } from './types'
import { inputRecord } from '../util/input-record'

/** Messages kept verbatim at the end. Source: seed 001 `DEFAULT_KEEP_LAST` (definitions.ts). */
export const DEFAULT_KEEP_LAST = countDefault('summarize', 'keep_last')

/**
 * Uncompacted messages that trigger a pass (strictly more than this). Source: seed 001
 * `DEFAULT_COMPACT_AFTER`.
 */
export const DEFAULT_COMPACT_AFTER = countDefault('summarize', 'compact_after')

/**
 * A summary longer than this many code points is cut: compaction must never grow the context
 * it exists to shrink. Source: seed 001 `MAX_SUMMARY_CHARS`.
 */
export const MAX_SUMMARY_CHARS = 6000

/**
 * Cap, in code points, of one message's text in the summarizer prompt: the head of a long
 * result carries the identity of what happened. Source: seed 001 `MESSAGE_CHAR_CAP`.
 */
export const MESSAGE_CHAR_CAP = 1000

/**
 * The default summarizer rules (our own wording of seed 001 `DEFAULT_PROMPT`'s preserve-list:
 * stated facts, commitments, open questions, decisions; no invention; the conversation's own
 * language). `SummarizeParams.prompt`, when not blank, replaces them wholesale.
 */
export const DEFAULT_RULES = `You are compacting the older part of an ongoing conversation into a single summary.
The assistant will read your summary in place of those messages; the recent messages stay
word for word. Whatever your summary leaves out is lost for good.

Keep, word for word where it is short:
- every fact the user stated (names, sizes, budgets, addresses, postal codes, order numbers,
  IDs, product choices, dates, quantities);
- every commitment the assistant made (promises, quoted prices, delivery windows, agreed
  next steps);
- every question that was asked and is still unanswered (the missing information);
- every decision already taken, so nothing is asked or argued again.

Do not invent anything, do not comment, do not give advice. Reply with the summary text
only: plain text, compact, in the language the conversation itself uses.`

/** Heading of the previous-summary section of the prompt. Source: seed 001 `prompt`. */
export const PREVIOUS_SUMMARY_HEADING = '## Summary so far (fold it in — its facts must survive)'

/** Heading of the slice section of the prompt. Source: seed 001 `prompt`. */
export const SLICE_HEADING = '## Messages to compact'

/** `SummarizeParams` after defaults and clamping (see `normalizeParams`). */
export interface NormalizedSummarizeParams {
  keep_last: number
  compact_after: number
  summary_role: 'user' | 'system'
  /** The rules: the user's prompt when not blank, else `DEFAULT_RULES`. */
  rules: string
  /** Tokens; undefined when not set or not a positive number. */
  context_window?: number
}

/**
 * Defaults and clamping of `summarize` params: a non-positive or non-numeric `keep_last` /
 * `compact_after` falls back to its default (20 / 40); `compact_after < keep_last` is clamped
 * up to `keep_last`, so a plan always moves the boundary forward. `summary_role` defaults to
 * `user`. Pure. Source: seed 001 `plan` + `positive`, SPEC §3.2.
 */
export function normalizeParams(
  params: Partial<SummarizeParams> | undefined,
): NormalizedSummarizeParams {
  const { values } = readCounts('summarize', params)
  const keep_last = values.keep_last!
  const compact_after = values.compact_after!
  const prompt = typeof params?.prompt === 'string' ? params.prompt : ''
  const out: NormalizedSummarizeParams = {
    keep_last,
    compact_after,
    summary_role: params?.summary_role === 'system' ? 'system' : 'user',
    rules: prompt.trim() ? prompt : DEFAULT_RULES,
  }
  const window = values.context_window
  if (window !== undefined && Number.isFinite(window)) out.context_window = window
  return out
}

/**
 * The persisted compaction state: where the last pass ended and what it wrote. Source: seed 001
 * `state`.
 */
export interface CompactionState {
  /** Position (in the planned messages) of the first message not yet summarized. */
  upto: number
  summary?: string
}

/**
 * A decision to compact messages `from`..`upto-1` (positions in the planned messages). Source: seed
 * 001 `Plan`.
 */
export interface CompactionPlan {
  from: number
  upto: number
  count: number
}

/**
 * For each position, the furthest position a tool call made there reaches: the index of the
 * last result answering one of its calls, or `Infinity` when a call has no result (pending).
 * -1 for messages without tool calls. Results pair with calls by position
 * (`pairToolResults`), so a result recorded before its call never answers it, and an id reused
 * after its call was answered reaches the result of the new call, not the old one.
 */
function callReach(messages: readonly Message[]): number[] {
  const { resultOf } = pairToolResults(messages)
  return messages.map((_, i) => {
    const results = resultOf[i]
    if (!results) return -1
    let reach = i
    for (const r of results) {
      reach = r < 0 ? Infinity : Math.max(reach, r)
      if (reach === Infinity) break
    }
    return reach
  })
}

/**
 * `callReach` of the prefix `messages[0..length-1]`, from the reach of the whole list: a result
 * at or after `length` is not in the prefix, so a call reaching it is pending there (Infinity).
 * Pairing by position looks only backwards, so the prefix pairs its results as the whole list
 * does.
 */
function prefixReachAt(full: readonly number[], length: number, i: number): number {
  const r = full[i] ?? -1
  return r >= length ? Infinity : r
}

/**
 * Decides whether, and what, to compact. `messages` are the planned messages (the
 * conversation without its leading system messages), `state` the previous pass or null.
 *
 * Exactly seed 001 `plan`: `from = state?.upto ?? 0`; nothing unless
 * `messages.length - from > compact_after`; `upto = messages.length - keep_last`; while
 * `upto > from` and `messages[upto]` is a `tool` message, `upto -= 1`; nothing unless
 * `upto > from`.
 *
 * One more retreat for the same kind of fault (a tool-call cycle split by the boundary):
 * `upto` also retreats while a tool call in `messages[from..upto-1]` has a result at or after
 * `upto`, or no result at all (a pending call stays verbatim in the tail, and the summarizer
 * never sees a call without its result). Source: cases/01, 02, 03, 06, 10, 41. On a transcript
 * whose tool results follow their calls (the shape the seed assumes) it never moves the
 * boundary; where it does, the pass says so (`Pass.note`).
 * Params are normalized first (`normalizeParams`). Pure; returns null when nothing fires.
 */
export function planCompaction(
  messages: readonly Message[],
  state: CompactionState | null | undefined,
  params: Partial<SummarizeParams> | undefined,
): CompactionPlan | null {
  const { keep_last, compact_after } = normalizeParams(params)
  const from = Math.max(0, Math.trunc(state?.upto ?? 0))
  if (!(messages.length - from > compact_after)) return null
  const reach = callReach(messages)
  const plan = planBoundary(messages, messages.length, from, messages.length - keep_last, (i) => reach[i] ?? -1, 'any')
  return plan && { from: plan.from, upto: plan.upto, count: plan.count }
}

/** A boundary: messages `from`..`upto-1` are summarized; `plainUpto` is where the plain rule put it. */
interface Boundary extends CompactionPlan {
  /** The boundary before the tool-pair retreat (equal to `upto` when it did not move). */
  plainUpto: number
}

/**
 * The boundary of a pass over the prefix `messages[0..length)`, from `start` (the first kept
 * message by the tail rule): seed 001's retreat over `tool` messages, the tail rule's start
 * (`tailStart: 'user'`: the tail begins at a user message), then the tool-pair retreat (see
 * `planCompaction`), with the call reach of the prefix as a lookup (`reachAt(i)`, see
 * `callReach`), `tailStart` as in triggers.ts `TailStart`: the rolling replay computes it once for the whole conversation and narrows it to
 * each prefix (`prefixReachAt`) instead of rescanning every prefix. `start === length` summarizes
 * the whole prefix (no tail). Null when the boundary cannot move past `from`. Only
 * `messages[0..length]` is read: the boundary never lands on a `tool` message, not even on one
 * just after the prefix (a stray result arriving after a turn end), so no summary is ever
 * followed by a tool message.
 */
function planBoundary(
  messages: readonly Message[],
  length: number,
  from: number,
  start: number,
  reachAt: (i: number) => number,
  tailStart: TailStart,
): Boundary | null {
  const at = (i: number) => (i < length ? messages[i] : undefined)
  // The message right after the prefix is read too: a stray tool result that follows a turn end
  // (answering no call, or a call already answered) would otherwise open the tail after the summary.
  const badStart = (i: number) =>
    messages[i]?.role === 'tool' || (tailStart !== 'any' && i < length && at(i)?.role !== 'user')
  let upto = Math.min(length, start)
  if (tailStart === 'user_within') {
    // Forward to the first user message inside the budget; with none, everything when the prefix
    // ends with a reply (nothing pending), else back to the last user message (Gemini CLI).
    let next = upto
    while (next < length && badStart(next)) next += 1
    const last = at(length - 1)
    if (next < length) upto = next
    else if (last?.role === 'assistant' && !(last.toolCalls && last.toolCalls.length > 0)) upto = length
  }
  while (upto > from && badStart(upto)) upto -= 1
  const plainUpto = upto

  // Furthest reach of any call in [from, b) for every b: a boundary b is safe when that reach < b.
  const maxReach: number[] = []
  let running = -1
  for (let i = from; i < upto; i++) {
    running = Math.max(running, reachAt(i))
    maxReach[i - from] = running
  }
  while (upto > from && ((maxReach[upto - 1 - from] ?? -1) >= upto || badStart(upto))) upto -= 1
  if (!(upto > from)) return null
  return { from, upto, count: upto - from, plainUpto }
}

/**
 * The text of one message for the prompt: content text with whitespace collapsed; a
 * tool-calling assistant message with no text → `(tool calls: a, b)`; no content at all →
 * `(empty)`; images and opaque blocks are marked (`[image]`, `[document]`); thinking blocks
 * are left out (the model's private reasoning, signed; never paraphrased). A text longer than
 * `MESSAGE_CHAR_CAP` code points keeps its head and tail around a
 * `[... N chars omitted ...]` marker (cases/46) and is never longer than the cap.
 * Source: seed 001 `text_of`.
 */
export const messageLineText: (message: Message) => string = perMessage(lineTextOf)

function lineTextOf(message: Message): string {
  const content = message.content
  let raw = ''
  if (typeof content === 'string') raw = content
  else if (content) {
    const bits: string[] = []
    for (const part of content) {
      if (part.type === 'text') bits.push(part.text)
      else if (part.type === 'image') bits.push('[image]')
      else if (part.type === 'opaque') bits.push(`[${part.kind}]`)
    }
    raw = bits.join('\n')
  }
  let text = collapseWhitespace(raw)
  if (text === '') {
    const names = (message.toolCalls ?? []).map((c) => c.name)
    text = names.length > 0 ? `(tool calls: ${names.join(', ')})` : '(empty)'
  }
  if (codePointLength(text) > MESSAGE_CHAR_CAP) {
    // The marker's own line breaks become spaces: the prompt has one line per message.
    text = cutCodePoints(elideMiddle(text, MESSAGE_CHAR_CAP).replace(/\n/g, ' '), MESSAGE_CHAR_CAP)
  }
  return text
}

/**
 * One prompt line: `[<index>] <role>: <text>` (index = `message.index`). Source: seed 001
 * `transcript`.
 */
export function messageLine(message: Message): string {
  return `[${message.index}] ${message.role}: ${messageLineText(message)}`
}

/**
 * The full summarizer prompt: the rules (trailing whitespace trimmed), then, when `previous`
 * is not blank, the previous summary under `PREVIOUS_SUMMARY_HEADING`, then the slice lines
 * under `SLICE_HEADING`; sections separated by one blank line. Pure.
 * Source: seed 001 `prompt`.
 */
export function buildPrompt(
  lines: readonly string[],
  previous: string | undefined,
  rules: string,
): string {
  const parts = [rules.trimEnd()]
  if (previous && previous.trim()) parts.push(`${PREVIOUS_SUMMARY_HEADING}\n\n${previous}`)
  parts.push(`${SLICE_HEADING}\n\n${lines.join('\n')}`)
  return parts.join('\n\n')
}

/** The readable label at the top of a summary message. `fromIndex`/`toIndex` inclusive. */
export function summaryHeader(fromIndex: number, toIndex: number, pass: number): string {
  return `[Summary of messages ${fromIndex}–${toIndex} (pass ${pass})]`
}

/** Id of the summary message written by pass `pass` of `summarize`. Deterministic. */
function summaryMessageId(pass: number): string {
  return `${SUMMARY_ID_PREFIX}summarize:${pass}`
}

/**
 * Groups the slice into units that are dropped together when the prompt must shrink: an
 * assistant message with tool calls plus the tool results right after it; anything else alone.
 */
function sliceUnits(slice: readonly Message[]): Message[][] {
  const units: Message[][] = []
  for (const m of slice) {
    const last = units[units.length - 1]
    if (m.role === 'tool' && last && (last[0]?.toolCalls?.length ?? 0) > 0) last.push(m)
    else units.push([m])
  }
  return units
}

/**
 * A prompt fitted to the window. `prompt` is rendered each time it is read, never kept: a long
 * replay makes a pass every few turns, and keeping each pass's prompt (the slice's lines and the
 * previous summary, ~15 KB) held most of a million-message run's memory.
 */
interface FittedPrompt {
  readonly prompt: string
  slice: Message[]
  omitted: number
}

/**
 * The prompt for `slice`; with a `window` (tokens), the oldest units are left out until the
 * prompt fits (at least one unit always stays). Source: cases/49 (Codex drops the oldest item
 * and retries).
 */
function fitPrompt(
  slice: readonly Message[],
  previous: string | undefined,
  rules: string,
  window: number | undefined,
  countText: (text: string) => number,
): FittedPrompt {
  let units = sliceUnits(slice)
  const render = (us: Message[][]) => buildPrompt(us.flat().map(messageLine), previous, rules)
  let omitted = 0
  if (window !== undefined) {
    while (units.length > 1 && countText(render(units)) > window) {
      omitted += units[0]?.length ?? 0
      units = units.slice(1)
    }
  }
  const fitted = units
  return {
    get prompt() {
      return render(fitted)
    },
    slice: units.flat(),
    omitted,
  }
}

function hasThinking(message: Message): boolean {
  return Array.isArray(message.content) && message.content.some((p) => p.type === 'thinking')
}

/**
 * Where the replay checks its trigger, as positions in `conv`: `turn` — every turn end (an
 * assistant message with no tool calls) and the last message (seed 001: the Executor compacts
 * post-turn); `request` — every point where the model is called next: a user message or the
 * last result of a tool step, followed by an assistant message or ending the transcript (Claude
 * Code, Codex and Gemini CLI check before each request, tool steps included), and the end of a
 * turn that holds no such point. A transcript cut after an assistant message has no request
 * pending, so a prefix that ends at a turn end checks exactly the points the whole transcript
 * checks up to there (the context at turn N agrees with the whole run).
 */
function checkPoints(conv: readonly Message[], check: 'turn' | 'request'): number[] {
  const out: number[] = []
  let pointInTurn = false
  conv.forEach((m, k) => {
    const last = k === conv.length - 1
    if (check === 'turn') {
      if (isTurnEnd(m) || last) out.push(k)
    } else if ((m.role === 'user' || m.role === 'tool') && (last || conv[k + 1]?.role === 'assistant')) {
      out.push(k)
      pointInTurn = true
    } else if ((isTurnEnd(m) || last) && !pointInTurn) {
      // A turn with no request in it (a reply straight after a reply) is checked at its end, so
      // the decision log explains every turn.
      out.push(k)
    }
    if (isTurnEnd(m)) pointInTurn = false
  })
  return out
}

/** The replay's state after a pass: seed 001 `state` plus the messages kept inside the summarized span. */
interface ReplayState extends CompactionState {
  /** Positions (< `upto`) kept verbatim in front of the summary (`keep_user_only`), ascending. */
  kept: number[]
}

/**
 * Runs `summarize` as a rolling replay over `messages`.
 *
 * - Leading `system` messages are outside the plan and stay on top; a later system message is
 *   an ordinary message (cases/38, 40).
 * - The replay walks the conversation as it grew and checks its trigger at every check point
 *   (`check`: each turn end, seed 001; or before each model request, `checkPoints`). The
 *   trigger (stages/triggers.ts `summarizeTrigger`) is seed 001's — more than `compact_after`
 *   unsummarized messages — or a token level (`trigger_tokens`; `trigger_share` × `ctx.window` −
 *   `trigger_reserve`) compared with the context's tokens at that point (system + kept +
 *   summary + unsummarized messages + `ctx.fixedTokens`). When it is reached, the boundary is
 *   planned by the tail rule (`summarizeTail`: the newest `keep_last` messages, or the newest
 *   messages within `keep_tokens` / `keep_share` of the context, or only user messages within
 *   the budget with `keep_user_only`), never splitting a tool call from its results
 *   (`planBoundary`); the slice (with the previous summary folded in) is summarized, the summary
 *   cut to `MAX_SUMMARY_CHARS` code points, and a `Pass` recorded.
 * - Every check point is logged in `decisions` (model.ts `TriggerDecision`): what the trigger
 *   saw, whether it was reached, and the pass it made or why it made none.
 * - Result: system messages, the kept user messages (`keep_user_only`), one summary message
 *   (role `summary_role`, default `user`, content `summaryHeader(…)` + "\n" + summary), then the
 *   verbatim tail.
 *
 * With none of the token params, `check` or guards set this is exactly seed 001: every pass its
 * `plan` makes at each turn end is made. Guards that depart from the seed are params, named in
 * the decision that they held: `min_progress` (skip a pass that would replace one message with
 * one summary, OpenHands; cases/25) and `refuse_larger` (refuse a summary that is not smaller
 * than what it replaces, Gemini CLI; cases/21). Always:
 * - nothing eligible → no summarizer call, `changed: false`, note `nothing to compact` (cases/24);
 * - an empty summary or a failing summarizer → `error`, input passed on unchanged, no empty
 *   message (cases/35); so does a token trigger at 0 tokens (a reserve not below the window);
 * - tool-call cycles and pending calls are never split (`planBoundary`);
 * - thinking blocks are never modified; summarizing a message that holds one is reported in
 *   `warnings` (cases/31); after a pass, signed blocks of kept messages before the latest user
 *   message are removed whole, as Anthropic requires (thinking.ts `withThinkingRules`), and the
 *   pass's `tokensAfter` (and a later check's tokens) count the context without them.
 *
 * Provenance: every summarized input message gets `{kind:'summarized', pass, summaryId}` (the
 * pass that first folded it; `summaryId` = the final summary message); the summary message's
 * origin lists every covered input id and the covered `index` range. `Pass.from/upto/atMessage`
 * are `Message.index` values (before-transcript positions when run by the pipeline).
 * Never mutates its input; deterministic for a deterministic summarizer.
 */
export async function summarize(
  messages: readonly Message[],
  params: Partial<SummarizeParams> | undefined,
  ctx: StageContext,
): Promise<StageOutput> {
  const p = normalizeParams(params)
  // A token param set to an unusable value is an error: falling back to compact_after would
  // replay another strategy than the one asked for.
  const unusable = readCounts('summarize', params).error
  if (unusable !== undefined) return unchangedOutput(messages, unusable, { error: unusable })
  const trigger = summarizeTrigger(params, ctx.window)
  if (trigger.measure === 'tokens' && trigger.threshold <= 0) {
    const error = `the token trigger is at 0 tokens (${trigger.source}): every check would compact; use a larger window or a smaller reserve`
    return unchangedOutput(messages, error, { error })
  }
  const tailRule = summarizeTail(params)
  const minProgress = params?.min_progress === true
  const refuseLarger = params?.refuse_larger === true
  let lead = 0
  while (lead < messages.length && messages[lead]?.role === 'system') lead++
  const system = messages.slice(0, lead)
  const conv = messages.slice(lead)

  const unchanged = (note: string, extra: Partial<StageOutput> = {}): StageOutput =>
    unchangedOutput(messages, note, extra)

  const points = checkPoints(conv, params?.check === 'request' ? 'request' : 'turn')
  // Turn of every position (1-based): turns end at assistant messages with no tool calls.
  const turnAt: number[] = []
  let turnNo = 1
  conv.forEach((m, k) => {
    turnAt[k] = turnNo
    if (isTurnEnd(m)) turnNo++
  })
  // Token prefix sums: the context's tokens at a check are O(1).
  const tok = conv.map((m) => ctx.countMessage(m))
  const prefix: number[] = [0]
  for (let i = 0; i < tok.length; i++) prefix.push(prefix[i]! + tok[i]!)
  const span = (a: number, b: number) => prefix[b]! - prefix[a]!
  const keptTokens = (kept: readonly number[]) => kept.reduce((t, i) => t + tok[i]!, 0)
  // Once a summary opens the context, the thinking rules take blocks out of it (thinking.ts).
  const staleTokens = staleThinkingTokens(conv, tok, ctx.countMessage)

  let state: ReplayState | null = null
  let fullReach: number[] | undefined
  const passes: Pass[] = []
  const decisions: TriggerDecision[] = []
  const passOf: number[] = [] // per conv position: the pass that first summarized it
  const warnings: string[] = []
  let noProgress = 0
  let refused = 0
  let planned = false

  const makeSummaryMessage = (pass: number, upto: number, summary: string): Message => ({
    id: summaryMessageId(pass),
    index: lead,
    role: p.summary_role,
    content: `${summaryHeader(conv[0]?.index ?? 0, conv[upto - 1]?.index ?? upto - 1, pass)}\n${summary}`,
    source: { format: conv[0]?.source.format ?? 'canonical' },
  })
  const systemTokens = system.reduce((n, m) => n + ctx.countMessage(m), 0)
  // Pass figures are context totals, comparable with the pipeline's (cases/28).
  const fixed = ctx.fixedTokens ?? 0
  let previousTokens = 0 // tokens of the current summary message

  for (const k of points) {
    if (ctx.signal?.aborted) return unchanged('cancelled', { error: 'cancelled' })
    const from = state?.upto ?? 0
    const kept = state?.kept ?? []
    const contextTokens = systemTokens + keptTokens(kept) + previousTokens + span(from, k + 1) - (state ? staleTokens(from, k + 1) : 0) + fixed
    const decision: TriggerDecision = {
      stage: 'summarize',
      turn: turnAt[k] ?? 1,
      atMessage: conv[k]?.index ?? k,
      tokens: contextTokens,
      unsummarized: k + 1 - from,
      measure: trigger.measure,
      threshold: trigger.threshold,
      op: trigger.op,
      thresholdSource: trigger.source,
      reached: triggerReached(trigger, trigger.measure === 'tokens' ? contextTokens : k + 1 - from),
      fired: false,
    }
    decisions.push(decision)
    if (!decision.reached) continue

    // The first kept message by the tail rule (the plan may move it back over tool cycles).
    let start: number
    if (tailRule.kind === 'messages') start = k + 1 - tailRule.keepLast
    else if (tailRule.userOnly) start = k + 1
    else {
      const budget = tailRule.share !== undefined ? tailRule.share * contextTokens : tailRule.budget
      start = k + 1
      let acc = 0
      while (start > from && acc + tok[start - 1]! <= budget) acc += tok[--start]!
    }
    const plan = planBoundary(conv, k + 1, from, start, (i) => prefixReachAt((fullReach ??= callReach(conv)), k + 1, i), tailRule.tailStart)
    if (!plan) {
      const since = state ? 'the last pass' : 'the start'
      decision.held =
        start <= from
          ? `everything since ${since} fits the kept tail`
          : `the kept tail cannot begin after #${conv[from]?.index ?? from} (${
              tailRule.tailStart === 'any' ? 'a tool call stays with its results' : 'it begins at a user message, and a tool call stays with its results'
            }), so nothing since ${since} is left to summarize`
      continue
    }
    planned = true

    // Kept user messages (Codex): newest first within the budget, from the previous kept ones and the span.
    let newKept: number[] = []
    if (tailRule.kind === 'tokens' && tailRule.userOnly) {
      const candidates = [...kept]
      for (let i = plan.from; i < plan.upto; i++) if (conv[i]!.role === 'user') candidates.push(i)
      let acc = 0
      for (let c = candidates.length - 1; c >= 0; c--) {
        const i = candidates[c]!
        if (acc + tok[i]! > tailRule.budget) break
        acc += tok[i]!
        newKept.push(i)
      }
      newKept = newKept.reverse()
    }
    const keepSet = new Set(newKept)
    // What this pass folds: previously kept messages it no longer keeps, then the span.
    const sliceAt = [...kept.filter((i) => !keepSet.has(i))]
    for (let i = plan.from; i < plan.upto; i++) if (!keepSet.has(i)) sliceAt.push(i)
    const slice = sliceAt.map((i) => conv[i]!)
    const previous = state?.summary
    const pass = passes.length + 1

    if (minProgress && slice.length + (previous !== undefined ? 1 : 0) < 2) {
      noProgress++
      decision.held = 'min_progress guard: the pass would replace one message with one summary'
      continue
    }
    if (slice.length === 0) {
      decision.held = 'every message since the last pass is kept'
      continue
    }

    const replaced = previousTokens + sliceAt.reduce((t, i) => t + tok[i]!, 0)
    // An earlier summary inside the slice (a recorded one, or an earlier stage's) is folded like the
    // previous summary: under the fold heading, whole, never one more line cut to MESSAGE_CHAR_CAP.
    const earlier = slice.filter(isSummaryMessage)
    const folded = [previous, ...earlier.map((m) => contentText(m.content))].filter((t) => !!t?.trim())
    const fitted = fitPrompt(
      earlier.length > 0 ? slice.filter((m) => !isSummaryMessage(m)) : slice,
      folded.length > 0 ? folded.join('\n\n') : undefined,
      p.rules,
      p.context_window,
      ctx.countText,
    )
    if (fitted.omitted > 0) {
      warnings.push(
        `pass ${pass}: the ${fitted.omitted} oldest message(s) of the slice were left out of the prompt to fit context_window ${p.context_window} tokens`,
      )
    }

    let answer: string
    try {
      const request = {
        stage: 'summarize' as const,
        get prompt() {
          return fitted.prompt
        },
        slice: earlier.length > 0 ? [...earlier, ...fitted.slice] : fitted.slice,
        ...(previous !== undefined ? { previous } : {}),
      }
      answer = await ctx.summarize(request)
    } catch (e) {
      return unchanged('summarizer failed', {
        error: `summarizer failed at pass ${pass}: ${e instanceof Error ? e.message : String(e)}`,
      })
    }
    const summary = cutCodePoints(String(answer ?? '').trim(), MAX_SUMMARY_CHARS)
    if (summary === '') {
      return unchanged('empty summary', {
        error: `the summarizer returned an empty summary at pass ${pass} (messages ${slice[0]?.index}–${slice[slice.length - 1]?.index}); history kept unchanged`,
      })
    }

    const summaryMessage = makeSummaryMessage(pass, plan.upto, summary)
    const summaryTokens = ctx.countMessage(summaryMessage)
    if (refuseLarger && summaryTokens >= replaced) {
      refused++
      decision.held = `refuse_larger guard: the summary (${summaryTokens} tokens) is not smaller than the ${replaced} tokens it would replace`
      continue
    }

    const tokensAfter = systemTokens + keptTokens(newKept) + summaryTokens + span(plan.upto, k + 1) - staleTokens(plan.upto, k + 1) + fixed
    for (const i of sliceAt) passOf[i] ??= pass
    const thinking = slice.filter(hasThinking).map((m) => m.index)
    if (thinking.length > 0) {
      warnings.push(
        `pass ${pass}: thinking blocks of message(s) ${thinking.join(', ')} were summarized away with their messages (never edited)`,
      )
    }
    // Seed 001 makes every pass its plan makes: one that grows the context (a summary longer than
    // what it folds) is made and says so; `refuse_larger` is the guard that refuses it.
    // What the pass took out: what it folded, and the signed blocks the thinking rules drop after it.
    const dropped = contextTokens - tokensAfter + summaryTokens - replaced
    const grew =
      tokensAfter > contextTokens
        ? `the summary (${summaryTokens} tokens) is larger than the ${replaced + dropped} tokens it replaced${dropped > 0 ? ` (${dropped} of them signed thinking blocks the provider's rules drop)` : ''}; seed 001 makes every pass its plan makes (refuse_larger refuses such a pass)`
        : undefined
    const record: Pass = {
      pass,
      stage: 'summarize',
      atMessage: conv[k]?.index ?? k,
      from: conv[plan.from]?.index ?? plan.from,
      upto: (conv[plan.upto - 1]?.index ?? plan.upto - 1) + 1,
      // Rendered when read (the CLI's JSON, the page's pass view), never kept: see `FittedPrompt`.
      get prompt() {
        return fitted.prompt
      },
      summary,
      summaryId: summaryMessage.id,
      tokensBefore: contextTokens,
      tokensAfter,
    }
    const keptInSpan = newKept.filter((i) => i >= plan.from).map((i) => conv[i]?.index ?? i)
    if (keptInSpan.length > 0) record.kept = keptInSpan
    if (plan.upto < plan.plainUpto) {
      record.note = `boundary held at #${conv[plan.upto]?.index ?? plan.upto} instead of #${conv[plan.plainUpto]?.index ?? plan.plainUpto}: a tool call stays with its results`
    }
    if (grew !== undefined) record.grew = decision.grew = grew
    passes.push(record)
    decision.fired = true
    decision.pass = pass
    decision.tokensAfter = tokensAfter
    state = { upto: plan.upto, summary, kept: newKept }
    previousTokens = summaryTokens
  }

  const notes: string[] = []
  if (noProgress > 0)
    notes.push('no progress possible: a pass would replace one message with one summary')
  if (refused > 0)
    notes.push(
      `refused ${refused} pass(es): the summary was not smaller than the messages it would replace`,
    )
  if (!planned) return unchanged('nothing to compact', { decisions })
  if (!state || passes.length === 0) return unchanged(notes.join('; '), { decisions })

  const last = passes[passes.length - 1] as Pass
  const finalSummary = makeSummaryMessage(last.pass, state.upto, state.summary ?? '')
  const keptFinal = new Set(state.kept)
  const covered = conv.slice(0, state.upto).filter((_, i) => !keptFinal.has(i))
  const fates = inputRecord<Fate>()
  conv.slice(0, state.upto).forEach((m, i) => {
    if (keptFinal.has(i)) return
    fates[m.id] = {
      kind: 'summarized',
      stage: 'summarize',
      pass: passOf[i] ?? last.pass,
      summaryId: finalSummary.id,
    }
  })
  const origins: Record<string, Origin> = {
    [finalSummary.id]: {
      kind: 'summary',
      stage: 'summarize',
      pass: last.pass,
      fromIndex: covered[0]?.index ?? 0,
      toIndex: covered[covered.length - 1]?.index ?? 0,
      coveredIds: covered.map((m) => m.id),
    },
  }
  const out: StageOutput = {
    messages: [...system, ...state.kept.map((i) => conv[i]!), finalSummary, ...conv.slice(state.upto)],
    changed: true,
    fates,
    origins,
    passes,
    decisions,
    warnings,
  }
  if (notes.length > 0) out.note = notes.join('; ')
  return withThinkingRules(out, 'summarize')
}
