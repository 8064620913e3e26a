/**
 * Triggers and kept-tail budgets of the rolling stages, and the one wording of a trigger
 * decision. A stage reads its trigger here (`summarizeTrigger`, `pruneTrigger`) instead of
 * comparing numbers itself, and every view (timeline hover, Turn N, pass list, CLI) words a
 * decision with `describeDecision`. Pure, no run code. Source: seed 001 `plan` (the message
 * trigger, `compact_after`), agent-presets.md (token triggers: a share of the model's window, the
 * window minus a reserve, or a fixed count; token budgets of the kept tail).
 */
import type { Message, StageId, TriggerDecision } from '../model'
import { isTurnEnd } from '../content'
import { formatTokenDelta } from '../delta'
import { DEFAULT_WINDOW } from '../models'
import { readCounts, replacingParam } from './params'

const n = (x: number) => Math.round(x).toLocaleString('en-US')
const pct = (share: number) => `${Math.round(share * 1000) / 10}%`

/**
 * A stage's trigger: what it measures, the level, how the level was derived (worded) and how it
 * compares: `≥` (tokens reach the level: the agents' token triggers) or `>` (seed 001's
 * `messages − from > compact_after`; prune's "over target").
 */
export interface TriggerRule {
  measure: 'tokens' | 'messages'
  threshold: number
  source: string
  op: '≥' | '>'
}

/** True when `value` reaches `rule`'s level. */
export function triggerReached(rule: Pick<TriggerRule, 'threshold' | 'op'>, value: number): boolean {
  return rule.op === '≥' ? value >= rule.threshold : value > rule.threshold
}

/**
 * The token level of a window-relative trigger, `share × window − reserve` (tokens, rounded
 * down), and its wording; undefined when neither `trigger_share` nor `trigger_reserve` is set.
 * Either alone: share 1, reserve 0. E.g. reserve 33,000 on a 200,000 window → 167,000,
 * `200,000 window − 33,000 reserve` (Claude Code); share 0.9 on 272,000 → 244,800,
 * `90% of 272,000 window` (Codex).
 */
function windowLevel(values: Readonly<Record<string, number>>, window: number): { threshold: number; source: string } | undefined {
  const share = values.trigger_share
  const reserve = values.trigger_reserve
  const hasShare = share !== undefined && Number.isFinite(share)
  const hasReserve = reserve !== undefined && Number.isFinite(reserve)
  if (!hasShare && !hasReserve) return undefined
  const s = hasShare ? share : 1
  const r = hasReserve ? reserve : 0
  const base = s === 1 ? `${n(window)} window` : `${pct(s)} of ${n(window)} window`
  return { threshold: Math.max(0, Math.floor(s * window - r)), source: r > 0 ? `${base} − ${n(r)} reserve` : base }
}

/**
 * `summarize`'s trigger from its params (definitions.ts `TRIGGER_PARAMS`): `trigger_tokens` when
 * set; else the window level (`trigger_share`, `trigger_reserve` of `window` tokens); else seed
 * 001's message trigger, more than `compact_after` unsummarized messages. Pure.
 */
export function summarizeTrigger(params: object | undefined, window = DEFAULT_WINDOW): TriggerRule {
  const { values } = readCounts('summarize', params)
  const tokens = values.trigger_tokens
  if (tokens !== undefined && Number.isFinite(tokens)) {
    return { measure: 'tokens', threshold: tokens, source: `trigger_tokens ${n(tokens)}`, op: '≥' }
  }
  const level = windowLevel(values, window)
  if (level) return { measure: 'tokens', ...level, op: '≥' }
  return { measure: 'messages', threshold: values.compact_after!, source: `compact_after ${n(values.compact_after!)}`, op: '>' }
}

/**
 * `prune-tool-results`' trigger: its `trigger` (tokens) when set (Anthropic `clear_tool_uses`:
 * prune once the input reaches it), else "over `target`" (seed 002: prune whenever the total is
 * above the target). Pure.
 */
export function pruneTrigger(params: object | undefined): TriggerRule {
  const { values } = readCounts('prune-tool-results', params)
  const tokens = values.trigger
  if (tokens !== undefined && Number.isFinite(tokens)) {
    return { measure: 'tokens', threshold: tokens, source: `trigger ${n(tokens)}`, op: '≥' }
  }
  return { measure: 'tokens', threshold: values.target!, source: `target ${n(values.target!)}`, op: '>' }
}

/** Codex's budget of kept user messages when `keep_user_only` is on and `keep_tokens` unset (tokens). */
const CODEX_USER_BUDGET = 20_000

/**
 * What `summarize` keeps verbatim after a pass:
 * - `messages`: the newest `keepLast` messages (seed 001 `keep_last`);
 * - `tokens`: the newest messages whose tokens fit `budget` (`keep_tokens`), or, with `share`,
 *   `share` × the context's tokens at the check (`keep_share`);
 * - `userOnly`: only real user messages, newest first, within the budget; every other message
 *   since the last boundary is summarized (Codex local compaction).
 * `tailStart` (`TailStart`): where the kept tail may begin. A tool call
 * is never separated from its results whatever the rule (summarize.ts `planBoundary`).
 */
export type TailRule =
  | { kind: 'messages'; keepLast: number; tailStart: TailStart }
  | { kind: 'tokens'; budget: number; share?: number; userOnly: boolean; tailStart: TailStart }

/**
 * Where the kept tail may begin (`tail_start`): `any` message; `user` — a user message, the
 * boundary moving back over older messages (aider `summarize_real`: the head ends with an
 * assistant message); `user_within` — the first user message inside the budget, the boundary
 * moving forward so the tail never outgrows it (Gemini CLI `findCompressSplitPoint`).
 */
export type TailStart = 'any' | 'user' | 'user_within'

/** `summarize`'s kept-tail rule from its params (definitions.ts `TAIL_PARAMS`). Pure. */
export function summarizeTail(params: object | undefined): TailRule {
  const raw = (params ?? {}) as Readonly<Record<string, unknown>>
  const { values } = readCounts('summarize', params)
  const tailStart = raw.tail_start === 'user' || raw.tail_start === 'user_within' ? raw.tail_start : 'any'
  const userOnly = raw.keep_user_only === true
  const share = values.keep_share
  if (share !== undefined && Number.isFinite(share) && !userOnly) {
    return { kind: 'tokens', budget: NaN, share, userOnly: false, tailStart }
  }
  const tokens = values.keep_tokens
  if (tokens !== undefined && Number.isFinite(tokens)) return { kind: 'tokens', budget: tokens, userOnly, tailStart }
  if (userOnly) return { kind: 'tokens', budget: CODEX_USER_BUDGET, userOnly, tailStart }
  return { kind: 'messages', keepLast: values.keep_last!, tailStart }
}

/** What the decision still lacked: the gap to the level, in the measure's unit. */
function shortBy(d: Pick<TriggerDecision, 'measure' | 'threshold' | 'op'>, value: number): string {
  const gap = d.op === '≥' ? d.threshold - value : d.threshold - value + 1
  return d.measure === 'tokens' ? `${n(gap)} tokens short` : `${n(gap)} more message${gap === 1 ? '' : 's'} needed`
}

/** The stages that fire "passes" (a summary each) rather than one edit of the context. */
const PASS_STAGES: readonly StageId[] = ['summarize', 'insert-then-compress']

/**
 * One decision in words, the wording every view shares. With `withTurn` (default) it starts
 * with `turn N (#i): `, `#i` the before position of the last message the check saw. E.g.
 * `turn 37 (#812): 171,204 tokens ≥ 167,000 (200,000 window − 33,000 reserve) → pass 2 fired
 * (171,204 → 12,410 tokens)`; a pass that grew the context adds the growth and why (`(3 → 9
 * tokens, +6: the summary (8 tokens) is larger than …)`); `turn 36 (#790): 165,880 tokens < 167,000 (…): 1,120 tokens short,
 * no compaction`; `turn 11 (#40): 38 unsummarized messages ≤ 40 (compact_after 40): 3 more
 * messages needed, no compaction`; a reached trigger that made no pass ends `but no pass: <held>`.
 */
export function describeDecision(d: TriggerDecision, withTurn = true): string {
  const op = d.op
  const value = d.measure === 'tokens' ? d.tokens : d.unsummarized
  const what = d.measure === 'tokens' ? `${n(value)} tokens` : `${n(value)} unsummarized message${value === 1 ? '' : 's'}`
  const level = `${n(d.threshold)} (${d.thresholdSource})`
  const head = withTurn ? `turn ${d.turn} (#${d.atMessage}): ` : ''
  if (!d.reached) {
    const not = op === '≥' ? '<' : '≤'
    return `${head}${what} ${not} ${level}: ${shortBy(d, value)}, no compaction`
  }
  if (!d.fired) return `${head}${what} ${op} ${level}, but no ${PASS_STAGES.includes(d.stage) ? 'pass' : 'change'}: ${d.held ?? 'nothing to compact'}`
  const grew = d.grew !== undefined && d.tokensAfter !== undefined ? `, ${formatTokenDelta(d.tokens, d.tokensAfter)}: ${d.grew}` : ''
  const after = d.tokensAfter !== undefined ? ` (${n(d.tokens)} → ${n(d.tokensAfter)} tokens${grew})` : ''
  const did = d.pass !== undefined ? `pass ${d.pass} fired` : d.stage === 'prune-tool-results' ? 'tool results pruned' : 'fired'
  return `${head}${what} ${op} ${level} → ${did}${after}`
}

/**
 * The decision log of a stage that edits the context once, over the whole input, whenever its
 * trigger is reached (prune-tool-results; insert-then-compress): one decision per turn end of
 * `messages` (and its last message), each from the tokens of the prefix up to it plus `fixed`.
 * Such an edit is stateless — Anthropic's context editing applies to each request that reaches
 * the trigger — so at an earlier turn `fired` is `reached`; at the last message it is what the
 * stage did (`firedAtEnd`, with `heldAtEnd` as the reason when it was reached and did nothing).
 * `tokensOf(i)` is the tokens of `messages[i]`; `heldAt(k)`, when given, says why the stage could
 * change nothing in the prefix up to `k` (undefined: it could), so an earlier reached turn is not
 * claimed as fired when nothing there was eligible. Pure.
 */
export function statelessDecisions(
  stage: StageId,
  messages: readonly Pick<Message, 'role' | 'index' | 'toolCalls'>[],
  tokensOf: (i: number) => number,
  fixed: number,
  rule: TriggerRule,
  firedAtEnd: boolean,
  heldAtEnd?: string,
  heldAt?: (k: number) => string | undefined,
): TriggerDecision[] {
  const out: TriggerDecision[] = []
  let tokens = fixed
  let turn = 1
  messages.forEach((m, k) => {
    tokens += tokensOf(k)
    const turnEnd = isTurnEnd(m)
    const last = k === messages.length - 1
    if (turnEnd || last) {
      const reached = triggerReached(rule, tokens)
      const d: TriggerDecision = {
        stage,
        turn,
        atMessage: m.index,
        tokens,
        unsummarized: k + 1,
        measure: 'tokens',
        threshold: rule.threshold,
        op: rule.op,
        thresholdSource: rule.source,
        reached,
        fired: false,
      }
      const held = last ? (firedAtEnd ? undefined : heldAtEnd) : reached ? heldAt?.(k) : undefined
      d.fired = reached && (last ? firedAtEnd : held === undefined)
      if (reached && !d.fired && held) d.held = held
      out.push(d)
    }
    if (turnEnd) turn++
  })
  return out
}

/**
 * Why param `key` of `stage` has no effect given the stage's other `params`, or undefined when
 * it is in use: the param that replaces it (definitions.ts `replacedBy`, params.ts
 * `replacingParam`, the same rule the engine reads), worded by what it replaces. E.g. summarize
 * `compact_after` with `trigger_reserve` set → `not used: the token trigger (trigger_reserve)
 * replaces it`. The page greys such a control; the CLI warns. Pure.
 */
export function unusedParam(stage: StageId, key: string, params: object | undefined): string | undefined {
  const by = replacingParam(stage, key, params)
  if (by === undefined) return undefined
  if (key === 'compact_after') return `not used: the token trigger (${by}) replaces it`
  if (key === 'keep_last' || key === 'keep_tokens') return `not used: ${by} sets the kept tail`
  if (key === 'keep_share' && by === 'keep_user_only') return 'not used: keep_user_only keeps user messages within keep_tokens'
  return `not used: ${by} is set`
}
