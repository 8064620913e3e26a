/**
 * The one definition of every compaction stage: its id, title, one-line description, source and
 * each parameter with its type, default, bounds, unit and help. No run code (the page, presets,
 * the settings link, the sweep axes and the CLI flags and usage text all read this module without
 * loading a stage); the run functions are registered beside it in `registry.ts`.
 *
 * Adding a parameter to a stage is one entry in its `params` and its use in the stage's run code:
 * its type (`StageParams`), default, page control, link key, sweep axis and CLI flag follow from the
 * entry.
 */

/** How a parameter is written and checked. */
type ParamType =
  /** A number of messages, tokens, steps, calls, items or facts (whole unless `fraction`); a share (0–1, `fraction`). */
  | 'count'
  /** On or off. */
  | 'flag'
  /** Free text (a prompt). */
  | 'text'
  /** A list of non-empty names (tool names). */
  | 'names'
  /** One of `choices`. */
  | 'choice'

/** The unit a count parameter is measured in (tokens are tokens of the chosen encoding). */
export type ParamUnit = 'messages' | 'tokens' | 'steps' | 'tool calls' | 'items' | 'facts' | 'share'

/**
 * What the page offers for a count parameter as the upper end of its slider: a fixed number, or
 * one that grows with the transcript (`messages`: its message count + 10, at least 50; `tokens`:
 * 1.2 × its tokens, at least 2,000, at most the model's context window; `window`: the model's
 * context window). A token count never slides past the window: a context over it is one the agent
 * could not have sent.
 */
export type SliderMax = number | 'messages' | 'tokens' | 'window'

/**
 * How the default sweep range of a parameter is built (8 values): `from` is a number or `step`
 * (start at one step); `step` is a number, or a share of the transcript's messages (`round(messages
 * / per) × times`, at least 1) or tokens (`tokens / per × times`, rounded up to 100).
 */
export interface SweepRange {
  from: number | 'step'
  step: number | { of: 'messages' | 'tokens'; per: number; times?: number }
}

/** One parameter of a stage. */
export interface StageParamDef {
  /** The key in the stage's params (`keep_last`); also its name in links, sweeps and the page. */
  key: string
  type: ParamType
  /** For `choice`: the accepted values, the first being what the engine uses when absent. */
  choices?: readonly string[]
  /**
   * The value the engine uses when the param is absent or unusable (below `min`, not a number),
   * and the value of the default pipeline. Absent for params with no default (a prompt).
   */
  default?: number | boolean | string | readonly string[]
  /** Left out of the default pipeline's params (the engine reads it as absent, i.e. `default`). */
  optional?: boolean
  /**
   * Count params: the least value the engine takes as given. A value below it or not a finite
   * number is unusable: the engine uses `default`, or reports `unusable` as the stage's error.
   * Absent: any finite number is taken.
   */
  min?: number
  /** Count params: the stage error for an unusable value, word for word (instead of the default). */
  unusable?: string
  /** Count params: not truncated to a whole number (default: truncated). */
  fraction?: boolean
  /** Count params: the greatest value the engine takes as given (above it: unusable, as below `min`). */
  max?: number
  /**
   * Count params: the engine raises the value to at least this other param's value — only while
   * that param is in use (a replaced one, see `replacedBy`, raises nothing).
   */
  atLeast?: string
  /**
   * The params that replace this one: once one of them is set and itself in use, this one has no
   * effect at all (its value and its default alike), and the page and the CLI say it is not used
   * (params.ts `replacingParam`). In order of precedence.
   */
  replacedBy?: readonly string[]
  unit?: ParamUnit
  /** One line: what the param does (tooltips, CLI usage). */
  help: string
  /**
   * How the page edits it: `slider` (slider + number, count params), `toggle` (a checkbox, flag
   * params), `select` (a list, choice params), `custom` (a control of its own elsewhere: tool
   * names, the prompt), or `none` (links and the CLI only).
   */
  control: 'slider' | 'toggle' | 'select' | 'custom' | 'none'
  /** Slider: step and upper end (see `SliderMax`). */
  slider?: { step: number; max: SliderMax }
  /** A sweep may vary it: its default range, and a short alias accepted in axes (`threshold`). */
  sweep?: SweepRange & { alias?: string }
  /** Its CLI flag without the dashes (`keep-last`); absent: no flag. */
  cliFlag?: string
}

/** What a stage's changes look like in the after view (the legend's kinds). */
type ProducedKind = 'back-reference' | 'placeholder' | 'summary' | 'instruction' | 'dropped' | 'pinned' | 'slimmed'

/** One stage: what it is, where it comes from and its parameters. */
export interface StageDefinition {
  id: string
  /** Shown on its card and in reports. */
  title: string
  /** One line: what it does. */
  description: string
  /** Where its behaviour comes from (seed section, agent). */
  source: string
  /** For what it uses without a control: one line shown on its card. */
  fixed?: string
  /** On in the default pipeline. */
  enabledByDefault: boolean
  /** The kinds of change it can produce; the first is the one it is known by (its colour on the page). */
  produces: readonly ProducedKind[]
  params: readonly StageParamDef[]
}

/**
 * The token trigger of a rolling stage (one definition; `stages/triggers.ts` reads it). Set, it
 * replaces `compact_after`: a pass fires when the context's tokens reach `trigger_tokens`, or
 * `trigger_share` × the model's window − `trigger_reserve` (either of the two alone: share 1,
 * reserve 0). Source: agent-presets.md (Claude Code: window − 33,000; Codex 0.9 × window; Gemini
 * CLI 0.5 × window; Anthropic API 150,000 tokens).
 */
const TRIGGER_PARAMS = [
  {
    key: 'trigger_tokens', type: 'count', optional: true, min: 1, unit: 'tokens', control: 'slider',
    unusable: 'trigger_tokens must be a number of tokens, at least 1',
    slider: { step: 1000, max: 'window' }, sweep: { from: 'step', step: { of: 'tokens', per: 8 } },
    cliFlag: 'trigger-tokens',
    help: 'Fire when the context reaches this many tokens (replaces compact_after and the window share).',
  },
  {
    key: 'trigger_share', type: 'count', optional: true, min: 0.01, max: 1, fraction: true, unit: 'share',
    unusable: 'trigger_share must be a share of the window from 1% to 100% (0.01–1)', replacedBy: ['trigger_tokens'],
    control: 'slider', slider: { step: 0.01, max: 1 }, cliFlag: 'trigger-share',
    help: "Fire when the context reaches this share of the model's window, less trigger_reserve (replaces compact_after).",
  },
  {
    key: 'trigger_reserve', type: 'count', optional: true, min: 0, unit: 'tokens', control: 'slider',
    unusable: 'trigger_reserve must be a number of tokens, 0 or more', replacedBy: ['trigger_tokens'],
    slider: { step: 1000, max: 'window' }, sweep: { from: 0, step: 8000 }, cliFlag: 'trigger-reserve',
    help: "Tokens held back from the window: fire at share × window − reserve (Claude Code: 33,000; replaces compact_after).",
  },
] as const satisfies readonly StageParamDef[]

/**
 * The token budget of the kept tail (one definition; `stages/triggers.ts` reads it). Set, it
 * replaces `keep_last`: the newest messages are kept while their tokens fit, a tool call always
 * with its results. Source: agent-presets.md (Codex: user messages ≤ 20,000 tokens; Gemini CLI:
 * newest 30%; LangChain Deep Agents: 10% of the window; Claude Code and the Anthropic API: none).
 */
const TAIL_PARAMS = [
  {
    key: 'keep_tokens', type: 'count', optional: true, min: 0, unit: 'tokens', control: 'slider',
    unusable: 'keep_tokens must be a number of tokens, 0 or more', replacedBy: ['keep_share'],
    slider: { step: 500, max: 'tokens' }, sweep: { from: 0, step: { of: 'tokens', per: 16 } }, cliFlag: 'keep-tokens',
    help: 'Keep the newest messages up to this many tokens verbatim (replaces keep_last; 0 keeps none).',
  },
  {
    key: 'keep_share', type: 'count', optional: true, min: 0, max: 1, fraction: true, unit: 'share',
    unusable: 'keep_share must be a share of the context from 0% to 100% (0–1)', replacedBy: ['keep_user_only'],
    control: 'slider', slider: { step: 0.01, max: 1 }, cliFlag: 'keep-share',
    help: "Keep the newest messages up to this share of the context's tokens verbatim (replaces keep_last).",
  },
  {
    key: 'keep_user_only', type: 'flag', default: false, optional: true, control: 'toggle', cliFlag: 'keep-user-only',
    help: 'Keep only real user messages, newest first, within keep_tokens (20,000 when unset, as Codex); everything else is summarized (Codex).',
  },
  {
    key: 'tail_start', type: 'choice', choices: ['any', 'user', 'user_within'], optional: true, control: 'select', cliFlag: 'tail-start',
    help: "Where the kept tail may begin: at any message; at a user message, moving back to an older one (aider: the summarized part ends with the assistant's reply); or at the first user message within the budget, so the tail never outgrows it (Gemini CLI).",
  },
] as const satisfies readonly StageParamDef[]

/**
 * Every stage, in the default pipeline's order: `dedupe` → `slim` (off) → `prune-tool-results`
 * → `summarize` → `insert-then-compress` (off) → `pin-facts` (off). Why the defaults are what they
 * are: presets.ts `SEED_STAGES`.
 */
export const STAGE_DEFINITIONS = [
  {
    id: 'dedupe',
    title: 'dedupe',
    description: 'Byte-identical tool outputs (≥ 200 code points) become a one-line back-reference.',
    source: 'seed 000, SPEC §3.1',
    fixed: 'No parameters: exact matches of the whole content (what the seed’s SHA-256 identity means), MIN_LENGTH 200 code points.',
    enabledByDefault: true,
    produces: ['back-reference'],
    params: [],
  },
  {
    id: 'slim',
    title: 'slim',
    description: 'Shortens tool outputs: lists cut to a few items, repeated rows dropped.',
    source: 'seed 004 `slim(result, keep=5)`, SPEC §3.5',
    fixed: 'JSON lists keep total, the first keep items and the cursor; errors keep status + first line.',
    enabledByDefault: false,
    produces: ['slimmed'],
    params: [
      {
        key: 'keep', type: 'count', default: 5, min: 1, unit: 'items', control: 'slider',
        slider: { step: 1, max: 50 }, sweep: { from: 1, step: 1 }, cliFlag: 'slim-keep',
        help: 'Items a JSON list keeps, after repeated rows are dropped.',
      },
    ],
  },
  {
    id: 'prune-tool-results',
    title: 'prune-tool-results',
    description: 'Oldest tool results become placeholders until the total is under target.',
    source: 'seed 002, SPEC §3.3; Anthropic context editing `clear_tool_uses`',
    enabledByDefault: true,
    produces: ['placeholder'],
    params: [
      {
        key: 'target', type: 'count', default: 26000, fraction: true, unusable: 'target must be a finite number of tokens',
        unit: 'tokens', control: 'slider',
        slider: { step: 100, max: 'tokens' }, sweep: { from: 'step', step: { of: 'tokens', per: 8 } },
        cliFlag: 'target', help: 'Stop pruning once the running total is ≤ target.',
      },
      {
        key: 'trigger', type: 'count', optional: true, min: 1, unit: 'tokens', control: 'slider',
        unusable: 'trigger must be a number of tokens, at least 1',
        slider: { step: 1000, max: 'window' }, sweep: { from: 'step', step: { of: 'tokens', per: 8 } },
        cliFlag: 'prune-trigger',
        help: 'Prune only once the context reaches this many tokens (Anthropic clear_tool_uses trigger); then down to target. Absent: whenever over target.',
      },
      {
        key: 'keep_steps', type: 'count', default: 1, min: 1,
        unusable: 'keep_steps must be at least 1: the model has not acted on the newest results yet',
        unit: 'steps', control: 'slider', slider: { step: 1, max: 10 }, sweep: { from: 1, step: 1 },
        cliFlag: 'keep-steps', help: 'Newest steps whose results are guarded.',
      },
      {
        key: 'min_tokens', type: 'count', default: 200, fraction: true, unit: 'tokens', control: 'slider',
        slider: { step: 10, max: 2000 }, sweep: { from: 0, step: 100 }, cliFlag: 'min-tokens',
        help: 'Results under this many tokens are never replaced.',
      },
      {
        key: 'keep_tool_uses', type: 'count', default: 0, optional: true, min: 0, unit: 'tool calls',
        control: 'slider', slider: { step: 1, max: 20 }, sweep: { from: 0, step: 1 }, cliFlag: 'keep-tool-uses',
        help: 'Results of the newest N tool calls are kept, on top of keep_steps (a parallel step holds several calls). 0: off.',
      },
      {
        key: 'clear_at_least', type: 'count', default: 0, optional: true, min: 0, unit: 'tokens',
        control: 'slider', slider: { step: 100, max: 'tokens' },
        sweep: { from: 0, step: { of: 'tokens', per: 16 } }, cliFlag: 'clear-at-least',
        help: 'When pruning fires, clear at least this many tokens or change nothing: a small edit is not worth breaking the prompt cache. 0: off.',
      },
      {
        key: 'exclude_tools', type: 'names', default: [], optional: true, control: 'custom',
        cliFlag: 'exclude-tools', help: 'Tools whose results are never replaced.',
      },
    ],
  },
  {
    id: 'summarize',
    title: 'summarize',
    description: 'Rolling compaction: older messages fold into one summary, pass by pass.',
    source: 'seed 001, SPEC §3.2',
    enabledByDefault: true,
    produces: ['summary'],
    params: [
      {
        key: 'keep_last', type: 'count', default: 20, min: 1, unit: 'messages', control: 'slider',
        replacedBy: ['keep_user_only', 'keep_share', 'keep_tokens'],
        slider: { step: 1, max: 'messages' }, sweep: { from: 'step', step: { of: 'messages', per: 16 } },
        cliFlag: 'keep-last', help: 'Newest messages kept verbatim.',
      },
      {
        key: 'compact_after', type: 'count', default: 40, min: 1, atLeast: 'keep_last', unit: 'messages',
        replacedBy: ['trigger_tokens', 'trigger_share', 'trigger_reserve'],
        control: 'slider', slider: { step: 1, max: 'messages' },
        sweep: { from: 'step', step: { of: 'messages', per: 16, times: 2 } }, cliFlag: 'compact-after',
        help: 'Compact once more than this many messages are unsummarized.',
      },
      ...TRIGGER_PARAMS,
      ...TAIL_PARAMS,
      {
        key: 'check', type: 'choice', choices: ['turn', 'request'], optional: true, control: 'select',
        cliFlag: 'check',
        help: 'When the trigger is checked: after each turn (seed 001) or before every model request, tool steps included (Claude Code, Codex, Gemini CLI).',
      },
      {
        key: 'min_progress', type: 'flag', default: false, optional: true, control: 'toggle', cliFlag: 'min-progress',
        help: 'Guard: skip a pass that would replace one message with one summary (OpenHands condenser; cases/25). Off in seed 001.',
      },
      {
        key: 'refuse_larger', type: 'flag', default: false, optional: true, control: 'toggle', cliFlag: 'refuse-larger',
        help: 'Guard: refuse a summary that is not smaller than the messages it replaces (Gemini CLI; cases/21). Off in seed 001.',
      },
      {
        key: 'summary_role', type: 'choice', choices: ['user', 'system'], optional: true, control: 'none',
        help: 'Role of the inserted summary message.',
      },
      { key: 'prompt', type: 'text', optional: true, control: 'custom', help: 'Rules that replace the default summarizer rules.' },
      {
        key: 'context_window', type: 'count', optional: true, min: 1, unit: 'tokens', control: 'none',
        help: "The summarizer's context window: the prompt's slice is trimmed, oldest lines first, until it fits.",
      },
    ],
  },
  {
    id: 'insert-then-compress',
    title: 'insert-then-compress',
    description: 'Appends a compression instruction after the whole conversation; keeps the recent tail.',
    source: 'seed 003, SPEC §3.4',
    enabledByDefault: false,
    produces: ['instruction', 'summary', 'dropped'],
    params: [
      {
        key: 'threshold_tokens', type: 'count', default: 5000, min: 0, unit: 'tokens', control: 'slider',
        slider: { step: 100, max: 'tokens' },
        sweep: { from: 'step', step: { of: 'tokens', per: 8 }, alias: 'threshold' },
        cliFlag: 'threshold-tokens', help: 'Fire only when total tokens exceed this.',
      },
      {
        key: 'keep_recent', type: 'count', default: 10, min: 0, unit: 'messages', control: 'slider',
        slider: { step: 1, max: 'messages' }, sweep: { from: 'step', step: { of: 'messages', per: 16 } },
        cliFlag: 'keep-recent', help: 'Messages kept verbatim at the end.',
      },
      {
        key: 'summary_role', type: 'choice', choices: ['assistant', 'user'], optional: true, control: 'none',
        help: 'Role of the compressed summary message (user for Anthropic-shaped transcripts).',
      },
      {
        key: 'archive_anchor', type: 'flag', default: false, optional: true, control: 'none',
        help: 'Add the archived-chunk anchor to the summary.',
      },
    ],
  },
  {
    id: 'pin-facts',
    title: 'pin-facts',
    description: 'Copies facts (IDs, paths, dates…) verbatim next to the summary so they survive.',
    source: 'seed 004 (pinned facts), SPEC §3.5',
    fixed: 'Pins the goal, the latest request, IDs, paths, dates, amounts and rules; each section capped.',
    enabledByDefault: false,
    produces: ['pinned'],
    params: [
      {
        key: 'max_facts', type: 'count', default: 40, min: 1, unit: 'facts', control: 'slider',
        slider: { step: 1, max: 200 }, sweep: { from: 10, step: 10 }, cliFlag: 'max-facts',
        help: 'At most this many pattern facts (IDs, paths, dates…) in the pinned block.',
      },
    ],
  },
] as const satisfies readonly StageDefinition[]

/** Identifiers of the compaction stages, in the default pipeline's order. */
export type StageId = (typeof STAGE_DEFINITIONS)[number]['id']

/** The ids of every stage, in the default pipeline's order. */
export const STAGE_IDS: readonly StageId[] = STAGE_DEFINITIONS.map((d) => d.id)

const BY_ID = new Map<string, StageDefinition>(STAGE_DEFINITIONS.map((d) => [d.id, d]))

/** The definition of stage `id`. Throws for an id that is not a stage (a programming error). */
export function stageDefinition(id: StageId): StageDefinition {
  const def = BY_ID.get(id)
  if (!def) throw new Error(`unknown stage "${id}"`)
  return def
}

/** Whether `id` names a stage. */
export function isStageId(id: string): id is StageId {
  return BY_ID.has(id)
}

/** The definition of param `key` of stage `id`, or undefined when the stage has no such param. */
export function paramDefinition(id: StageId, key: string): StageParamDef | undefined {
  return stageDefinition(id).params.find((p) => p.key === key)
}

/** The default of a count param (what the engine uses when it is absent). Throws when it has none. */
export function countDefault(id: StageId, key: string): number {
  const value = paramDefinition(id, key)?.default
  if (typeof value !== 'number') throw new Error(`${id} ${key} has no numeric default`)
  return value
}

/** Every param of every stage, with its stage: the flat list sweeps and the CLI read. */
export const ALL_PARAMS: readonly { stage: StageId; param: StageParamDef }[] = STAGE_DEFINITIONS.flatMap((d) =>
  (d.params as readonly StageParamDef[]).map((param) => ({ stage: d.id as StageId, param })),
)

/** The value type of a param definition: count → number, flag → boolean, text → string, names → string[], choice → one of its choices. */
type ParamValue<P> = P extends { type: 'count' }
  ? number
  : P extends { type: 'flag' }
    ? boolean
    : P extends { type: 'text' }
      ? string
      : P extends { type: 'names' }
        ? string[]
        : P extends { type: 'choice'; choices: readonly (infer C)[] }
          ? C
          : never

/** The param definitions of stage `K`. */
type ParamDefsOf<K extends StageId> = Extract<(typeof STAGE_DEFINITIONS)[number], { id: K }>['params'][number]

/**
 * The params object of stage `K`, derived from its definition, each typed by `ParamValue`. Every
 * param may be absent: the engine reads an absent one as its default (stages/params.ts
 * `readCounts`), so a config written before a param existed stays valid. E.g.
 * `StageParams<'summarize'>` is `{ keep_last?: number; compact_after?: number; summary_role?:
 * 'user' | 'system'; prompt?: string; context_window?: number }`.
 */
export type StageParams<K extends StageId> = {
  -readonly [P in ParamDefsOf<K> as P['key']]?: ParamValue<P>
}
