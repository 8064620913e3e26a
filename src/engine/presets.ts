/**
 * Pipeline presets: whole stage lists (order, on/off, every param) named after the strategy they
 * imitate, each with its source and what our stages cannot reproduce. Pure data plus two pure
 * helpers; no I/O. Source: agent-presets.md.
 */
import type { PipelineConfig, StageConfig } from './model'
import { STAGE_DEFINITIONS, type StageParamDef } from './stages/definitions'

/** Ids of the bundled presets. */
type PresetId = 'seed-defaults' | 'clear-tool-uses' | 'codex-insert-then-compress' | 'openhands-keep-first'

/** One preset: its stage list and where it comes from. */
export interface PipelinePreset {
  id: PresetId
  /** Named after what it imitates. */
  name: string
  /** Where the behaviour and the numbers come from (shown as the tooltip). */
  source: string
  /** What our stages do differently from the original (shown after the source). */
  differs: string
  /** Every stage, in run order, with all its params: applying the preset replaces the list. */
  stages: readonly StageConfig[]
}

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
 * - `prune-tool-results`: seed 002's `keep_steps` 1 / `min_tokens` 200; `target` 12,000 tokens
 *   (the seed has no default). The bundled samples are ≈2k–20k tokens (o200k_base) and tool
 *   results are what makes the big ones big. On the Claude Code sample (the first-start one,
 *   ≈17k after dedupe) 12,000 replaces the oldest bulky results and stops before the original
 *   of its last back-reference, so the first view shows all three kinds of change
 *   (back-reference, placeholder, summary); a lower target (8,000) would prune that original
 *   too and turn its back-reference into a placeholder. The OpenAI and Anthropic samples
 *   (≈8k after dedupe) are under it: their back-references stay and "no change" shows.
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

/**
 * OpenHands `LLMSummarizingCondenser` defaults: `max_size` 120 events, `keep_first` 4. It
 * condenses when the view holds more than `max_size` events, keeping the first `keep_first`,
 * one summary and the newest `max_size / 2 − keep_first − 1` = 55 events.
 */
const OPENHANDS_MAX_SIZE = 120
const OPENHANDS_KEEP_FIRST = 4
const OPENHANDS_TAIL = OPENHANDS_MAX_SIZE / 2 - OPENHANDS_KEEP_FIRST - 1

/**
 * The bundled presets, in picker order:
 * - **Seed defaults**: `DEFAULT_PIPELINE`'s stages (seeds 000–002: keep_last 20 / compact_after
 *   40, keep_steps 1 / min_tokens 200).
 * - **Clear tool uses (Anthropic context editing style)**: prune only; keep the 3 newest tool
 *   uses, fire above a token count, skip excluded tools, clear at least 2,000 tokens.
 * - **Codex-style insert-then-compress**: insert-then-compress only.
 * - **OpenHands-style keep first + half window**: summarize with keep_last 55 / compact_after
 *   115 (max_size 120, keep_first 4), pin-facts keeping the first user message verbatim.
 */
export const PRESETS: readonly PipelinePreset[] = [
  {
    id: 'seed-defaults',
    name: 'Seed defaults',
    source:
      'The seeds’ own defaults: dedupe (seed 000, Insika ToolOutputCompressor), prune-tool-results ' +
      'keep_steps 1 / min_tokens 200 (seed 002, Brute ToolResults), summarize keep_last 20 / ' +
      'compact_after 40 (seed 001, Insika Compaction).',
    differs:
      'Seed 002 has no default token target: 12,000 is ours (see DEFAULT_PIPELINE). slim, ' +
      'insert-then-compress and pin-facts are off.',
    stages: cloneJson(SEED_STAGES),
  },
  {
    id: 'clear-tool-uses',
    name: 'Clear tool uses (Anthropic context editing style)',
    source:
      'Anthropic context editing, clear_tool_uses_20250919: above a trigger in input tokens the ' +
      'oldest tool results become a placeholder; keep 3 tool uses (its default), exclude_tools, ' +
      'clear_at_least so the prompt cache is not broken for a small gain.',
    differs:
      'Our trigger is prune’s target (10,000 tokens here so it fires on the bundled samples; ' +
      'Anthropic’s default trigger is 100,000), and pruning stops once the context is under it ' +
      '(after clear_at_least 2,000), where Anthropic clears every older result. keep_steps 1 ' +
      'always guards the newest step as well. Tool inputs are never cleared. web_search is ' +
      'excluded as in Anthropic’s example.',
    stages: [
      off('dedupe'),
      off('slim'),
      {
        id: 'prune-tool-results',
        enabled: true,
        params: {
          target: 10000,
          keep_steps: 1,
          min_tokens: 0,
          keep_tool_uses: 3,
          clear_at_least: 2000,
          exclude_tools: ['web_search'],
        },
      },
      off('summarize'),
      off('insert-then-compress'),
      off('pin-facts'),
    ],
  },
  {
    id: 'codex-insert-then-compress',
    name: 'Codex-style insert-then-compress',
    source:
      'Codex CLI auto-compaction: past a token limit the summarization prompt is appended to the ' +
      'same conversation (the cached prefix is reused) and the answer replaces the history.',
    differs:
      'Codex keeps the recent user messages (up to 20,000 tokens) around its summary; our ' +
      'insert-then-compress keeps the last messages of any role (keep_recent 4, extended over tool ' +
      'pairs). Codex’s limit is per model (a share of its context window); 5,000 tokens here so it ' +
      'fires on the bundled samples. No other stage runs.',
    stages: [
      off('dedupe'),
      off('slim'),
      off('prune-tool-results'),
      off('summarize'),
      {
        id: 'insert-then-compress',
        enabled: true,
        params: { threshold_tokens: 5000, keep_recent: 4 },
      },
      off('pin-facts'),
    ],
  },
  {
    id: 'openhands-keep-first',
    name: 'OpenHands-style keep first + half window',
    source:
      `OpenHands LLMSummarizingCondenser defaults: max_size ${OPENHANDS_MAX_SIZE} events, ` +
      `keep_first ${OPENHANDS_KEEP_FIRST}. Above max_size it keeps the first events, one summary ` +
      `and the newest ${OPENHANDS_TAIL} (half the window).`,
    differs:
      `Mapped onto summarize: keep_last ${OPENHANDS_TAIL}, compact_after ` +
      `${OPENHANDS_MAX_SIZE - OPENHANDS_KEEP_FIRST - 1} (the tail may grow to what max_size ` +
      'leaves). Counts are messages, not events. Our summarize keeps only the leading system ' +
      'messages on top, so "keep first" is pin-facts keeping the first user message (the goal) ' +
      'verbatim. Fires only on transcripts longer than about 115 messages.',
    stages: [
      off('dedupe'),
      off('slim'),
      off('prune-tool-results'),
      {
        id: 'summarize',
        enabled: true,
        params: { keep_last: OPENHANDS_TAIL, compact_after: OPENHANDS_MAX_SIZE - OPENHANDS_KEEP_FIRST - 1 },
      },
      off('insert-then-compress'),
      { ...off('pin-facts'), enabled: true },
    ],
  },
]

/** The preset with `id`, or undefined. */
export function presetById(id: string): PipelinePreset | undefined {
  return PRESETS.find((p) => p.id === id)
}

/**
 * `config` with the preset's stages (order, on/off, params — a deep copy); the encoding and the
 * summarizer settings stay the user's: they describe the environment, not the strategy. Pure.
 */
export function applyPreset(preset: PipelinePreset, config: PipelineConfig): PipelineConfig {
  return { ...config, stages: cloneJson(preset.stages) as StageConfig[] }
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

/** The preset whose stage list `config` has exactly (order, on/off, params), or undefined. */
export function matchPreset(config: Pick<PipelineConfig, 'stages'>): PipelinePreset | undefined {
  const key = stableJson(config.stages)
  return PRESETS.find((p) => stableJson(p.stages) === key)
}
