/**
 * Pipeline presets: whole stage lists (order, on/off, every param) named after the strategy they
 * imitate, each with its source and what our stages cannot reproduce. Pure data plus two pure
 * helpers; no I/O. Source: agent-presets.md.
 */
import type { CalibrationSetting, FormatId, PipelineConfig, StageConfig, Transcript } from './model'
import { countDefault, STAGE_DEFINITIONS, type StageParamDef } from './stages/definitions'
import { windowOf } from './models'
import { summarizeTrigger } from './stages/triggers'

/** Ids of the bundled presets. */
type PresetId =
  | 'seed-defaults'
  | 'claude-code-200k'
  | 'claude-code-1m'
  | 'codex-local'
  | 'gemini-cli'
  | 'anthropic-compaction'
  | 'anthropic-clear-tool-uses'
  | 'openhands-condenser'
  | 'openhands-masking'
  | 'aider'
  | 'deep-agents'

/** One preset: its stage list and where it comes from. */
export interface PipelinePreset {
  id: PresetId
  /** Named after what it imitates. */
  name: string
  /** Where the behaviour and the numbers come from, with the date they were read (shown as the tooltip). */
  source: string
  /** What our stages do differently from the original (shown after the source). */
  differs: string
  /** Every stage, in run order, with all its params: applying the preset replaces the list. */
  stages: readonly StageConfig[]
  /** The model context window (tokens) the preset is for; applying it sets the window. Absent: the user's. */
  window?: number
  /**
   * Where the agent's behaviour moved between its versions: `stages` holds for the newest
   * versions (`versions.current` says which), each variant for the versions below its `below`.
   * Absent: one behaviour for every version.
   */
  versions?: PresetVersions
  /**
   * What every request of the agent carries beyond the file's messages (system prompt, tool
   * schemas, memory files), in tokens, with where the figure comes from: applying the preset sets
   * it as `CalibrationSetting.agentOverhead`, which `auto` calibration uses when the file records
   * no usage. Absent: no measured figure.
   */
  overhead?: { tokens: number; source: string }
}

/** The versions of one agent a preset's stage lists hold for (see `PipelinePreset.versions`). */
interface PresetVersions {
  /** The format whose sessions record this agent's version (`Transcript.format`). */
  format: FormatId
  /** The agent as the page names it before a version: `Claude Code` (→ "Claude Code 2.1.7"). */
  agent: string
  /** Which versions the preset's own `stages` hold for, in words: `2.1.21 and later`. */
  current: string
  /** Older behaviours, ascending by `below`: the first whose `below` is above the version applies. */
  older: readonly PresetVariant[]
}

/** The stage list of an agent's older versions: those below `below` (`compareVersions`). */
interface PresetVariant {
  /** The first version that no longer behaves so (`2.1.21`). */
  below: string
  /** Which versions, in words: `versions before 2.1.21`. */
  label: string
  stages: readonly StageConfig[]
}

/** What applying a preset reads of the open session: its format and the agent version it records. */
export type PresetSession = Pick<Transcript, 'format' | 'agentVersion'>

/** A deep copy of plain JSON data (configs hold only JSON values; the engine has no DOM `structuredClone`). */
function cloneJson<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T
}

/**
 * The seeds' stage list, built from the stage definitions (stages/definitions.ts: their order,
 * `enabledByDefault` and each non-optional param's `default`); `DEFAULT_PIPELINE` in pipeline.ts
 * is built from it, and with no run code here the page holds the presets without the engine's
 * pipeline: `dedupe` → `prune-tool-results` → `summarize`, with `slim`, `insert-then-compress`
 * and `pin-facts` present but off. Why the numbers are what they are:
 *
 * - `summarize`: seed 001's `keep_last` 20 / `compact_after` 40.
 * - `prune-tool-results`: seed 002's `keep_steps` 1 / `min_tokens` 200; `target` 26,000 tokens
 *   (the seed has no default). Counts include what every request carries, calibrated to a file's
 *   recorded usage: the Claude Code sample (the first-start one) carries a fitted overhead of
 *   16,179 tokens, so a target below it could never be reached and every result would be pruned.
 *   On that sample's calibrated count (31,811 tokens before, ≈29.7k after dedupe) 26,000 replaces
 *   the oldest bulky results and stops before the original of its last back-reference, so the
 *   first view shows all three kinds of change (back-reference, placeholder, summary); a lower
 *   target (24,000) would prune that original too and turn its back-reference into a placeholder.
 *   It plays the part 12,000 played on the raw count: on the raw count (19,526 before, ≈16.9k
 *   after dedupe) 26,000 is not reached. The other bundled samples (≈2k–22k tokens, calibrated
 *   where they record usage) are under it: their back-references stay and "no change" shows.
 * - `insert-then-compress`: `threshold_tokens` 5,000. It runs last, on what the other stages
 *   left: the Claude Code sample (≈6k after summarize) and the two API samples (≈8k after
 *   dedupe) are over it, so switching it on visibly fires; the small legacy sample (≈2k) stays
 *   under it. `keep_recent` 10 (half of `keep_last`: its summary sees the whole conversation).
 */
export const SEED_STAGES: readonly StageConfig[] = STAGE_DEFINITIONS.map(
  (d) =>
    ({
      id: d.id,
      enabled: d.enabledByDefault,
      params: Object.fromEntries(
        (d.params as readonly StageParamDef[])
          .filter((p) => !p.optional && p.default !== undefined)
          .map((p) => [p.key, cloneJson(p.default)]),
      ),
    }) as StageConfig,
)

/** Stage `id` of the seeds' list, off, with its default params: the base of the other presets. */
function off(id: StageConfig['id']): StageConfig {
  const stage = SEED_STAGES.find((s) => s.id === id) as StageConfig
  return { ...cloneJson(stage), enabled: false }
}

/** The date the agents' sources below were read (agent-presets.md). */
const READ = 'read December 2026'

/** Every stage off except `on`, which gets exactly `params` (a preset's stage list). */
function only(on: Partial<Record<StageConfig['id'], Record<string, unknown>>>): StageConfig[] {
  return SEED_STAGES.map((s) => {
    const params = on[s.id]
    return params ? ({ id: s.id, enabled: true, params: cloneJson(params) } as StageConfig) : off(s.id)
  })
}

/**
 * Claude Code's auto-compact: effective window = window − 20,000 (summary output reserved),
 * trigger = that − 13,000, i.e. window − 33,000 (167,000 on 200K, 967,000 on 1M). The whole
 * conversation becomes the summary; nothing is kept verbatim. Since 2.1.21 (CHANGELOG: "Fixed
 * auto-compact triggering too early on models with large output token limits"; 2.1.37's
 * `/context` shows a 33K buffer). Source: agent-settings.md, Claude Code "Versions".
 */
const CLAUDE_CODE_RESERVE = 33_000

/**
 * Claude Code before 2.1.21 reserved the model's full 32,000 output tokens instead of 20,000:
 * window − 32,000 − 13,000 = window − 45,000 (≈155,000 on 200K, as 2.1.7 sessions compacted).
 */
const CLAUDE_CODE_OLD_RESERVE = 45_000

/** The first Claude Code version with the 33,000 reserve. */
const CLAUDE_CODE_RESERVE_SINCE = '2.1.21'

/** OpenHands `LLMSummarizingCondenser` (V0 `llm`): max_size 100 events, keep_first 1, tail 100/2 − 1 − 1 = 48. */
const OPENHANDS_MAX_SIZE = 100
const OPENHANDS_KEEP_FIRST = 1
const OPENHANDS_TAIL = OPENHANDS_MAX_SIZE / 2 - OPENHANDS_KEEP_FIRST - 1

const APPROX_SUMMARY =
  'The summary is our offline extractive one (or the LLM you configure), not the agent’s own prompt.'

/** Claude Code's stage list with `reserve` held back from the window. */
const claudeCodeStages = (reserve: number) =>
  only({ summarize: { trigger_reserve: reserve, keep_tokens: 0, check: 'request' } })

/**
 * Claude Code's per-request overhead, measured on public real sessions: the first request's
 * recorded context less our count of its messages.
 */
const CLAUDE_CODE_OVERHEAD = {
  tokens: 20_000,
  source:
    'measured: the first request of nine public Claude Code 2.1.19–2.1.146 sessions carried 15,814–37,437 tokens ' +
    'beyond its messages, median 20,667: system prompt, tool schemas, memory files, MCP tools',
}

const claudeCode = (id: 'claude-code-200k' | 'claude-code-1m', window: number, label: string): PipelinePreset => {
  const at = (reserve: number) => (window - reserve).toLocaleString('en-US')
  return {
    id,
    name: `Claude Code (${label})`,
    window,
    source:
      `Claude Code auto-compact (code.claude.com context-window docs, CHANGELOG and public write-ups, ${READ}): ` +
      `before each request, once the context reaches the window − 20,000 (reserved for the summary) ` +
      `− 13,000 = ${at(CLAUDE_CODE_RESERVE)} tokens on ${label} (versions ${CLAUDE_CODE_RESERVE_SINCE} and later), the whole ` +
      'conversation is replaced by a 9-section summary in a user message (compact_boundary). Versions ' +
      `before ${CLAUDE_CODE_RESERVE_SINCE} reserved the full 32,000 output tokens: window − 45,000 = ${at(CLAUDE_CODE_OLD_RESERVE)} ` +
      `(2.1.21 “Fixed auto-compact triggering too early”). A session that records its version gets its version’s trigger.`,
    differs:
      'Claude Code is closed source: the trigger is its published arithmetic. After compacting it ' +
      're-reads up to 5 recent files (≤ 5,000 tokens each) and re-injects CLAUDE.md; those are not ' +
      'modelled, so the context after a pass is smaller here. Microcompact (clearing old tool results) ' +
      `is not modelled. ${APPROX_SUMMARY}`,
    stages: claudeCodeStages(CLAUDE_CODE_RESERVE),
    overhead: CLAUDE_CODE_OVERHEAD,
    versions: {
      format: 'claude-code',
      agent: 'Claude Code',
      current: `versions ${CLAUDE_CODE_RESERVE_SINCE} and later`,
      older: [
        {
          below: CLAUDE_CODE_RESERVE_SINCE,
          label: `versions before ${CLAUDE_CODE_RESERVE_SINCE}`,
          stages: claudeCodeStages(CLAUDE_CODE_OLD_RESERVE),
        },
      ],
    },
  }
}

/**
 * The bundled presets, in picker order: the seeds' defaults, then one per agent, each built from
 * the stage params alone (no agent-specific code), with its source, the date it was read and
 * where the imitation is approximate. Numbers: agent-presets.md.
 */
export const PRESETS: readonly PipelinePreset[] = [
  {
    id: 'seed-defaults',
    name: 'Seed defaults',
    source:
      'The seeds’ own defaults: dedupe (seed 000, Insika ToolOutputCompressor), prune-tool-results ' +
      'keep_steps 1 / min_tokens 200 (seed 002, Brute ToolResults), summarize keep_last 20 / ' +
      `compact_after 40 checked after each turn (seed 001, Insika Compaction); seeds ${READ}.`,
    differs:
      'Seed 002 has no default token target: 12,000 is ours (see DEFAULT_PIPELINE). slim, ' +
      'insert-then-compress and pin-facts are off. No guard beyond the seeds’ own: every pass ' +
      'seed 001’s plan makes is made.',
    stages: cloneJson(SEED_STAGES),
  },
  claudeCode('claude-code-200k', 200_000, '200K'),
  claudeCode('claude-code-1m', 1_000_000, '1M'),
  {
    id: 'codex-local',
    name: 'Codex CLI (local compaction)',
    window: 272_000,
    source:
      `openai/codex codex-rs compact.rs (${READ}): auto_compact_token_limit = 90% of the model’s ` +
      'window (GPT-5-Codex 272,000 → 244,800), checked before each request; the history is ' +
      'replaced by the real user messages, newest first, up to 20,000 tokens, then the summary ' +
      '(SUMMARY_PREFIX) as a user message; every tool call and output is dropped.',
    differs:
      'A user message that overflows the 20,000 budget is cut by Codex and left out here. Codex ' +
      'appends its prompt to the same conversation (the cached prefix is reused); the cost of that ' +
      `call is in the Costs tab, not here. The remote (v2) compaction is opaque. ${APPROX_SUMMARY}`,
    stages: only({ summarize: { trigger_share: 0.9, keep_user_only: true, keep_tokens: 20_000, check: 'request' } }),
    overhead: {
      tokens: 2_800,
      source: 'measured: three public Codex CLI 0.57–0.77 rollouts: 2,677–3,233 tokens beyond the first request’s messages, median 2,798',
    },
  },
  {
    id: 'gemini-cli',
    name: 'Gemini CLI',
    window: 1_048_576,
    source:
      `google-gemini/gemini-cli chatCompressionService.ts (${READ}): when the last prompt reaches ` +
      '50% of the model’s limit, everything but the newest 30% of the history is compressed into ' +
      'a <state_snapshot>; the kept part starts at a user message; a compression that grows the ' +
      'context is rejected.',
    differs:
      'Gemini measures the kept 30% in JSON characters, we in tokens (the tail starts at the first ' +
      'user message inside it, as Gemini splits). Its truncation of old tool ' +
      'outputs (beyond a 50,000-token budget, to their last 30 lines) and its verification pass ' +
      `are not modelled. ${APPROX_SUMMARY}`,
    stages: only({
      summarize: { trigger_share: 0.5, keep_share: 0.3, tail_start: 'user_within', refuse_larger: true, check: 'request' },
    }),
    overhead: {
      tokens: 17_000,
      source: 'measured: two public Gemini CLI sessions carried 17,084 and 35,759 tokens beyond the first request’s messages; the smaller',
    },
  },
  {
    id: 'anthropic-compaction',
    name: 'Anthropic API compaction (compact_20260112)',
    source:
      `Anthropic platform docs, compaction (${READ}): when a request’s input reaches the trigger ` +
      '(150,000 input tokens by default, at least 50,000), the server summarizes everything into a ' +
      'compaction block; nothing before the block is sent again.',
    differs:
      'The server’s summary is opaque: only its trigger and budget are reproduced. The block is an ' +
      `assistant content block there and a user message here. ${APPROX_SUMMARY}`,
    stages: only({ summarize: { trigger_tokens: 150_000, keep_tokens: 0, check: 'request' } }),
  },
  {
    id: 'anthropic-clear-tool-uses',
    name: 'Anthropic context editing (clear_tool_uses)',
    source:
      `Anthropic platform docs, context editing clear_tool_uses_20250919 (${READ}): once a ` +
      'request’s input reaches 100,000 tokens, every tool result but those of the newest 3 tool ' +
      'uses is replaced by a placeholder; exclude_tools and clear_at_least are optional. The edit ' +
      'is made on the server: the client keeps sending the full history, so the trigger compares ' +
      'the uncleared input and, once reached, every later request is cleared.',
    differs:
      'Our placeholder text is seed 002’s. keep_steps 1 also guards the newest step. Tool inputs ' +
      'are never cleared (clear_tool_inputs false, the default).',
    stages: only({
      'prune-tool-results': { trigger: 100_000, target: 0, keep_steps: 1, min_tokens: 0, keep_tool_uses: 3 },
    }),
  },
  {
    id: 'openhands-condenser',
    name: 'OpenHands LLM condenser',
    source:
      `All-Hands-AI/OpenHands condenser_config.py, LLMSummarizingCondenser (${READ}): when the view ` +
      `holds more than max_size ${OPENHANDS_MAX_SIZE} events, keep the first ${OPENHANDS_KEEP_FIRST}, ` +
      `one summary and the newest ${OPENHANDS_TAIL} (max_size / 2 − keep_first − 1), checked each step; ` +
      'a condensation that forgets nothing is not made (the minimum-progress fix for OpenHands#10873).',
    differs:
      `Counts are messages, not events. compact_after ${OPENHANDS_MAX_SIZE - OPENHANDS_KEEP_FIRST - 1} ` +
      '(max_size less the kept first event and the summary). Our summarize keeps only leading ' +
      'system messages on top, so "keep first" is pin-facts keeping the first user message (the ' +
      `goal) verbatim. ${APPROX_SUMMARY}`,
    stages: only({
      summarize: {
        keep_last: OPENHANDS_TAIL,
        compact_after: OPENHANDS_MAX_SIZE - OPENHANDS_KEEP_FIRST - 1,
        min_progress: true,
        check: 'request',
      },
      'pin-facts': { max_facts: countDefault('pin-facts', 'max_facts') },
    }),
  },
  {
    id: 'openhands-masking',
    name: 'OpenHands observation masking',
    source:
      `All-Hands-AI/OpenHands condenser_config.py, ObservationMaskingCondenser (${READ}): ` +
      'observations outside the newest 100 events are replaced by <MASKED>.',
    differs:
      '100 events are taken as the newest 50 tool steps (an action and its observation each). ' +
      'The placeholder is seed 002’s text, not <MASKED>.',
    stages: only({ 'prune-tool-results': { target: 0, keep_steps: 50, min_tokens: 0 } }),
  },
  {
    id: 'aider',
    name: 'aider',
    source:
      `Aider-AI/aider history.py (${READ}): after each reply, when the chat history exceeds ` +
      'min(max(window / 16, 1,024), 8,192) tokens (8,192 for windows of 128K and more), the older ' +
      'part is summarized by the weak model; the newest part under half that budget is kept, the ' +
      'summarized part ending with an assistant message.',
    differs:
      '"More than 8,192" is trigger_tokens 8,193 and "under 4,096" keep_tokens 4,095. aider counts ' +
      'the chat history only (not the system prompt, repo map or files); we count the whole context, ' +
      'so it fires a little earlier here. When the split would leave 4 messages or fewer aider ' +
      'summarizes everything; here the tail stays. Its recursive summary (depth 3) is one pass here. ' +
      APPROX_SUMMARY,
    stages: only({ summarize: { trigger_tokens: 8193, keep_tokens: 4095, tail_start: 'user' } }),
  },
  {
    id: 'deep-agents',
    name: 'LangChain Deep Agents',
    window: 200_000,
    source:
      `langchain-ai/deepagents summarization middleware (${READ}): at 85% of the model’s max_input ` +
      'the older messages are summarized (INTENT / SUMMARY / ARTIFACTS / NEXT STEPS) and the newest ' +
      '10% of max_input is kept.',
    differs:
      'The kept 10% is 20,000 tokens, fixed for a 200K window: change keep_tokens with the window. ' +
      `The evicted messages it offloads to a file are simply summarized here. ${APPROX_SUMMARY}`,
    stages: only({ summarize: { trigger_share: 0.85, keep_tokens: 20_000, check: 'request' } }),
  },
]

/** The preset with `id`, or undefined. */
export function presetById(id: string): PipelinePreset | undefined {
  return PRESETS.find((p) => p.id === id)
}

/**
 * The numeric parts of a version (`2.1.37` → [2, 1, 37]; a leading `v` and a suffix after the
 * numbers, as in `2.1.7-beta` or `2.1.7 (Claude Code)`, are ignored), or undefined when it does
 * not start with a number. Pure.
 */
function versionParts(version: string): number[] | undefined {
  const m = /^\s*v?(\d+(?:\.\d+)*)/i.exec(version)
  return m ? (m[1] as string).split('.').map(Number) : undefined
}

/**
 * Orders two versions part by part as numbers (`2.1.7` < `2.1.21` < `2.2`; a missing part is 0:
 * `2.1` = `2.1.0`): negative, 0 or positive, or undefined when either is not a version
 * (`versionParts`). Pure.
 */
export function compareVersions(a: string, b: string): number | undefined {
  const x = versionParts(a)
  const y = versionParts(b)
  if (!x || !y) return undefined
  for (let i = 0; i < Math.max(x.length, y.length); i++) {
    const d = (x[i] ?? 0) - (y[i] ?? 0)
    if (d !== 0) return d
  }
  return 0
}

/** The stage list a preset holds for some versions, with which versions in words. */
export interface PresetStages {
  stages: readonly StageConfig[]
  /** `versions before 2.1.21`; absent for a preset without versions. */
  versions?: string
}

/**
 * The stage list of `preset` for `session`: the older variant its agent version falls under when
 * the session is the preset's agent's (`versions.format`) and records a readable version; else
 * (no versions, another format, no or garbage version, a version at or after every `below`) the
 * preset's own `stages`. Pure.
 */
export function presetStagesFor(preset: PipelinePreset, session?: PresetSession | null): PresetStages {
  const v = preset.versions
  if (!v) return { stages: preset.stages }
  const version = session?.format === v.format ? session.agentVersion : undefined
  if (version !== undefined) {
    const older = v.older.find((o) => (compareVersions(version, o.below) ?? 0) < 0)
    if (older) return { stages: older.stages, versions: older.label }
  }
  return { stages: preset.stages, versions: v.current }
}

/**
 * `config` with the preset's stages (order, on/off, params — a deep copy; for `session`'s agent
 * version when the preset has versions, `presetStagesFor`), its window when it has one, and its
 * agent's documented overhead as `calibration.agentOverhead` (cleared by a preset without one);
 * the encoding, the summarizer settings and the calibration's mode and hand-set numbers stay the
 * user's: they describe the environment, not the strategy. Pure.
 */
export function applyPreset(preset: PipelinePreset, config: PipelineConfig, session?: PresetSession | null): PipelineConfig {
  const stages = presetStagesFor(preset, session).stages
  const next: PipelineConfig = { ...config, stages: cloneJson(stages) as StageConfig[] }
  if (preset.window !== undefined) next.window = preset.window
  const { agentOverhead: _old, ...rest }: CalibrationSetting = config.calibration ?? { mode: 'auto' }
  const calibration: CalibrationSetting = preset.overhead ? { ...rest, agentOverhead: { ...preset.overhead } } : rest
  // `auto` with nothing else is the default: left out, as a config that never had one.
  if (calibration.mode === 'auto' && Object.keys(calibration).length === 1) delete next.calibration
  else next.calibration = calibration
  return next
}

/** Stable JSON of a value: object keys sorted, so key order never makes two stage lists differ. */
function stableJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableJson).join(',')}]`
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${stableJson(v)}`).join(',')}}`
  }
  return JSON.stringify(value)
}

/** Every stage list of a preset: its own, then each older version's. */
function allStages(p: PipelinePreset): PresetStages[] {
  const v = p.versions
  if (!v) return [{ stages: p.stages }]
  return [{ stages: p.stages, versions: v.current }, ...v.older.map((o) => ({ stages: o.stages, versions: o.label }))]
}

/**
 * The preset one of whose stage lists (its own or an older version's) `config` has exactly
 * (order, on/off, params) and, for a preset with a window, whose window it has (absent:
 * `DEFAULT_WINDOW`), or undefined.
 */
export function matchPreset(config: Pick<PipelineConfig, 'stages' | 'window'>): PipelinePreset | undefined {
  return matchPresetStages(config)?.preset
}

/** `matchPreset`'s preset with the stage list `config` matched (which versions it holds for). */
function matchPresetStages(config: Pick<PipelineConfig, 'stages' | 'window'>): { preset: PipelinePreset; matched: PresetStages } | undefined {
  const key = stableJson(config.stages)
  const window = windowOf(config.window)
  for (const p of PRESETS) {
    if (p.window !== undefined && p.window !== window) continue
    const matched = allStages(p).find((s) => stableJson(s.stages) === key)
    if (matched) return { preset: p, matched }
  }
  return undefined
}

/**
 * For settings that match a preset with versions, which versions their trigger holds for, as the
 * page says it: with the session's version and the stages of that version, `Claude Code 2.1.7:
 * trigger at 155,000 (versions before 2.1.21)`; with a version whose stages are the other ones,
 * `Claude Code 2.1.37 triggers at 167,000 (versions 2.1.21 and later); these settings trigger at
 * 155,000 (versions before 2.1.21)`; without a version of that agent, `trigger at 167,000
 * (versions 2.1.21 and later); the file records no Claude Code version`. Undefined for other
 * settings. The trigger is `summarizeTrigger`'s threshold on the preset's window. Pure.
 */
export function presetVersionNote(config: Pick<PipelineConfig, 'stages' | 'window'>, session?: PresetSession | null): string | undefined {
  const found = matchPresetStages(config)
  const v = found?.preset.versions
  if (!found || !v) return undefined
  const window = windowOf(config.window)
  const trigger = (s: PresetStages) =>
    `${summarizeTrigger(s.stages.find((st) => st.id === 'summarize')?.params, window).threshold.toLocaleString('en-US')} (${s.versions ?? ''})`
  const version = session?.format === v.format ? session.agentVersion : undefined
  if (version === undefined || versionParts(version) === undefined) {
    return `Trigger at ${trigger(found.matched)}; the file records no ${v.agent} version`
  }
  const own = presetStagesFor(found.preset, session)
  if (stableJson(own.stages) === stableJson(found.matched.stages)) return `${v.agent} ${version}: trigger at ${trigger(own)}`
  return `${v.agent} ${version} triggers at ${trigger(own)}; these settings trigger at ${trigger(found.matched)}`
}
