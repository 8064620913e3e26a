import type { InsertThenCompressParams, StageId, SummarizeParams } from '../../engine/model'
import { formatCount } from '../../components/format'
import { normalizeInsertParams } from '../../engine/stages/insert-then-compress'
import { normalizeClearParams } from '../../engine/stages/prune-tool-results'
import { normalizeParams } from '../../engine/stages/summarize'

/** How one numeric stage param is edited. `max` may grow with the transcript. */
export interface ParamSpec {
  key: string
  label: string
  unit: 'messages' | 'tokens' | 'steps' | 'calls'
  min: number
  step: number
  /** Upper slider bound given the transcript's message count and tokens. */
  max: (scale: { messages: number; tokens: number }) => number
  help: string
}

const roundUp = (n: number, to: number) => Math.ceil(n / to) * to

const messagesMax = ({ messages }: { messages: number }) => Math.max(50, roundUp(messages + 10, 10))
const tokensMax = ({ tokens }: { tokens: number }) => Math.max(2000, roundUp(tokens * 1.2, 1000))

/** Every user-editable param per stage (SPEC §3). */
export const STAGE_PARAMS: Record<StageId, ParamSpec[]> = {
  dedupe: [],
  'prune-tool-results': [
    { key: 'target', label: 'target', unit: 'tokens', min: 0, step: 100, max: tokensMax, help: 'Stop pruning once the running total is ≤ target.' },
    { key: 'keep_steps', label: 'keep_steps', unit: 'steps', min: 0, step: 1, max: () => 10, help: 'Newest steps whose results are guarded (< 1 is an error).' },
    { key: 'min_tokens', label: 'min_tokens', unit: 'tokens', min: 0, step: 10, max: () => 2000, help: 'Results under this many tokens are never replaced.' },
    { key: 'keep_tool_uses', label: 'keep_tool_uses', unit: 'calls', min: 0, step: 1, max: () => 20, help: 'Results of the newest N tool calls are kept, on top of keep_steps (a parallel step holds several calls). 0: off.' },
    { key: 'clear_at_least', label: 'clear_at_least', unit: 'tokens', min: 0, step: 100, max: tokensMax, help: 'When pruning fires, clear at least this many tokens or change nothing: a small edit is not worth breaking the prompt cache. 0: off.' },
  ],
  summarize: [
    { key: 'keep_last', label: 'keep_last', unit: 'messages', min: 1, step: 1, max: messagesMax, help: 'Newest messages kept verbatim.' },
    { key: 'compact_after', label: 'compact_after', unit: 'messages', min: 1, step: 1, max: messagesMax, help: 'Compact once more than this many messages are unsummarized.' },
  ],
  'insert-then-compress': [
    { key: 'threshold_tokens', label: 'threshold_tokens', unit: 'tokens', min: 0, step: 100, max: tokensMax, help: 'Fire only when total tokens exceed this.' },
    { key: 'keep_recent', label: 'keep_recent', unit: 'messages', min: 1, step: 1, max: messagesMax, help: 'Messages kept verbatim at the end.' },
  ],
  // Stages being added to the engine (seed 004); their params get controls when they land.
  'pin-facts': [],
  slim: [],
}

/** Title and one-line description of each stage. */
/** Per stage: its title, a one-line description, and for stages without controls what they use. */
export const STAGE_INFO: Record<StageId, { title: string; description: string; fixed?: string }> = {
  dedupe: {
    title: 'dedupe',
    description: 'Byte-identical tool outputs (≥ 200 code points) become a one-line back-reference.',
    fixed: 'No parameters: exact SHA-256 matches, MIN_LENGTH 200 code points.',
  },
  'prune-tool-results': {
    title: 'prune-tool-results',
    description: 'Oldest tool results become placeholders until the total is under target.',
  },
  summarize: {
    title: 'summarize',
    description: 'Rolling compaction: older messages fold into one summary, pass by pass.',
  },
  'insert-then-compress': {
    title: 'insert-then-compress',
    description: 'Appends a compression instruction after the whole conversation; keeps the recent tail.',
  },
  'pin-facts': {
    title: 'pin-facts',
    description: 'Copies facts (IDs, paths, dates…) verbatim next to the summary so they survive.',
    fixed: 'Pins the goal, the latest request, IDs, paths, dates, amounts and rules; capped.',
  },
  slim: {
    title: 'slim',
    description: 'Shortens tool outputs: lists cut to a few items, repeated rows dropped.',
    fixed: 'JSON lists keep total, the first 5 items and the cursor; errors keep status + first line.',
  },
}

/**
 * What the engine makes of one typed param: the value it uses, whether the typed value should
 * be replaced by it when the input is committed (it falls back to a default or is truncated), and
 * a short note when they differ (`default 20`, `clamped to keep_last (20)`).
 */
export interface EffectiveParam {
  value: number
  replace: boolean
  note?: string
}

/**
 * The value the engine uses for `key` of `stage` given all that stage's params, read from the
 * engine's own normalizers (SPEC §3.2 summarize: non-positive or non-numeric `keep_last` /
 * `compact_after` → default 20 / 40, `compact_after < keep_last` clamped up to `keep_last`;
 * insert-then-compress: negative → default; prune keep_tool_uses / clear_at_least: negative or
 * non-numeric → 0, i.e. off). Params the engine takes as given pass through.
 */
export function effectiveParam(
  stage: StageId,
  key: string,
  params: Readonly<Record<string, unknown>>,
): EffectiveParam {
  const typed = params[key]
  const raw = typeof typed === 'number' ? typed : NaN
  const fellBack = (value: number): EffectiveParam => {
    if (value === raw) return { value, replace: false }
    const note =
      value === Math.trunc(raw)
        ? `engine uses ${formatCount(value)}`
        : `engine uses the default, ${formatCount(value)}`
    return { value, replace: true, note }
  }
  if (stage === 'summarize' && (key === 'keep_last' || key === 'compact_after')) {
    const n = normalizeParams(params as Partial<SummarizeParams>)
    if (key === 'keep_last') return fellBack(n.keep_last)
    // The typed compact_after alone (keep_last 1 never clamps it), then the clamp on top.
    const own = fellBack(normalizeParams({ keep_last: 1, compact_after: raw }).compact_after)
    if (n.compact_after === own.value) return own
    const note = `clamped to keep_last (${formatCount(n.keep_last)})`
    return { value: n.compact_after, replace: own.replace, note }
  }
  if (stage === 'prune-tool-results' && (key === 'keep_tool_uses' || key === 'clear_at_least')) {
    // Absent (older configs, links): off, as the engine reads it; nothing to explain.
    if (typed === undefined) return { value: 0, replace: false }
    return fellBack(normalizeClearParams(params)[key])
  }
  if (stage === 'insert-then-compress' && (key === 'threshold_tokens' || key === 'keep_recent')) {
    return fellBack(normalizeInsertParams(params as Partial<InsertThenCompressParams>)[key])
  }
  return { value: raw, replace: false }
}
