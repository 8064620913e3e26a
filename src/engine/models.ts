/**
 * Context windows of common models, in tokens: the `window` a token trigger is a share of
 * (`PipelineConfig.window`). Figures are the vendors' published input windows as of December
 * 2026; where a model has a larger beta window both are listed. Pure data, no I/O.
 */

/** One model and its context window. */
export interface ModelWindow {
  /** Stable id (used in links and `--model`). */
  id: string
  /** Shown in the picker. */
  name: string
  /** Context window in tokens (input + output the provider accepts in one request). */
  window: number
}

/**
 * The window used when none is set: 200,000 tokens, Claude's standard window (Claude Code's
 * default; the Anthropic API's compaction defaults are sized for it).
 */
export const DEFAULT_WINDOW = 200_000

/** Common models, in picker order. Source: the vendors' model pages (Anthropic, OpenAI, Google). */
export const MODEL_WINDOWS: readonly ModelWindow[] = [
  { id: 'claude-200k', name: 'Claude (Sonnet / Opus), 200K', window: 200_000 },
  { id: 'claude-1m', name: 'Claude Sonnet, 1M context', window: 1_000_000 },
  { id: 'gpt-5-codex', name: 'GPT-5 / GPT-5-Codex (Codex CLI), 272K input', window: 272_000 },
  { id: 'gpt-4.1', name: 'GPT-4.1, 1M', window: 1_047_576 },
  { id: 'gpt-4o', name: 'GPT-4o, 128K', window: 128_000 },
  { id: 'o3', name: 'o3 / o4-mini, 200K', window: 200_000 },
  { id: 'gemini-2.5-pro', name: 'Gemini 2.5 Pro / Flash, 1M', window: 1_048_576 },
  { id: 'deepseek-v3', name: 'DeepSeek V3, 128K', window: 128_000 },
  { id: 'qwen3-coder', name: 'Qwen3 Coder, 256K', window: 262_144 },
]

/** The model with exactly this window, or undefined (the picker shows "custom"). */
export function modelWithWindow(window: number): ModelWindow | undefined {
  return MODEL_WINDOWS.find((m) => m.window === window)
}

/** `window` when it is a usable window (a whole number of tokens ≥ 1,000), else `DEFAULT_WINDOW`. */
export function windowOf(window: unknown): number {
  return typeof window === 'number' && Number.isInteger(window) && window >= 1000 ? window : DEFAULT_WINDOW
}
