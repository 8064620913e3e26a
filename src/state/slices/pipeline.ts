import type { CalibrationSetting, Encoding, PipelineConfig, StageId, SummarizerId } from '../../engine/model'
import {
  closeGroup,
  EMPTY_HISTORY,
  recordChange,
  redoStep,
  undoStep,
  type ConfigHistory,
} from '../config-history'
import type { SliceCreator, StoreState } from './types'

/**
 * The pipeline configuration the user edits; every change re-runs (coalesced) in the worker.
 *
 * Undo/redo: every change of `config` after the first one — from these actions,
 * `applyConfig`, the summarizer settings or anything else that sets it — is recorded as an undo
 * step (a store subscription sees them all), except `restoreConfig` and undo/redo themselves.
 * Changes of the same param within 500 ms coalesce (config-history.ts).
 */
export interface PipelineSlice {
  /** Null until the worker has sent its defaults. */
  config: PipelineConfig | null
  /**
   * Sets one param of one stage (a number, a flag or a choice); `undefined` removes it, and the
   * engine then reads it as its default (an optional token trigger: off).
   */
  setStageParam: (stage: StageId, param: string, value: number | boolean | string | undefined) => void
  toggleStage: (stage: StageId) => void
  /** Moves a stage up (-1) or down (+1) in the run order. */
  moveStage: (stage: StageId, delta: -1 | 1) => void
  setEncoding: (encoding: Encoding) => void
  /** Sets the model's context window in tokens (`PipelineConfig.window`); `undefined`: `DEFAULT_WINDOW`. */
  setWindow: (window: number | undefined) => void
  setSummarizer: (summarizer: SummarizerId) => void
  /**
   * Sets how token counts are made the agent's (`PipelineConfig.calibration`): its mode and, for
   * `manual`, the overhead and ratio given; the other fields (hand-set numbers, the preset's
   * `agentOverhead`) stay. `auto` with nothing else leaves the setting out (the default).
   */
  setCalibration: (change: Partial<Pick<CalibrationSetting, 'mode' | 'overhead' | 'ratio'>>) => void
  /**
   * Replaces the whole config as one undo step and re-runs: for presets, a sweep cell, a pasted
   * settings link. Never put an HTTP summarizer here that the person has not allowed (send step).
   */
  applyConfig: (config: PipelineConfig) => void
  /**
   * Replaces the config without an undo step (settings from the link the page was opened with),
   * with an optional one-line notice about what was not used; re-runs when a transcript is loaded.
   */
  restoreConfig: (config: PipelineConfig, notice?: string | null) => void
  /** One line about settings that could not be used (from a link), or null. */
  configNotice: string | null
  dismissConfigNotice: () => void
  /** Undo/redo stacks of `config` (read `past.length` / `future.length` for the buttons). */
  configHistory: ConfigHistory
  undoConfig: () => void
  redoConfig: () => void
  /** Ends the current coalescing group (pointerup after a slider drag): the next change is a new step. */
  endConfigEdit: () => void
}

/** The summarizer draft that shows `config`'s summarizer (undo/redo keep the settings form in step). */
function draftFor(state: StoreState, config: PipelineConfig): StoreState['draft'] {
  const options = config.summarizerOptions
  return {
    ...state.draft,
    summarizer: config.summarizer,
    ...(options ? { baseUrl: options.baseUrl, model: options.model, stream: options.stream ?? true } : {}),
  }
}

/** `params` with `key` set to `value`, or without `key` when `value` is undefined. */
function withParam(params: object, key: string, value: unknown): Record<string, unknown> {
  const next: Record<string, unknown> = { ...params }
  if (value === undefined) delete next[key]
  else next[key] = value
  return next
}

export const createPipelineSlice: SliceCreator<PipelineSlice> = (set, get, api) => {
  // Set while the slice itself replaces the config without recording it (undo, redo, restore).
  let unrecorded = false

  api.subscribe((state, prev) => {
    if (unrecorded || state.config === prev.config || !prev.config || !state.config) return
    const history = recordChange(get().configHistory, prev.config, state.config, Date.now())
    set({ configHistory: history })
  })

  const update = (change: (config: PipelineConfig) => PipelineConfig) => {
    const config = get().config
    if (!config) return
    set({ config: change(config) })
    if (get().info) get().requestRun()
  }

  /** Shows `config` without recording it; keeps the summarizer form in step when that changed. */
  const replace = (config: PipelineConfig, patch: Partial<StoreState>) => {
    const current = get().config
    const summarizerChanged =
      current?.summarizer !== config.summarizer ||
      JSON.stringify(current.summarizerOptions) !== JSON.stringify(config.summarizerOptions)
    unrecorded = true
    try {
      set({ ...patch, config, ...(summarizerChanged ? { draft: draftFor(get(), config) } : {}) })
    } finally {
      unrecorded = false
    }
    if (get().info) get().requestRun()
  }

  return {
    config: null,
    configNotice: null,
    configHistory: EMPTY_HISTORY,
    setStageParam: (stage, param, value) =>
      update((config) => ({
        ...config,
        stages: config.stages.map((s) =>
          s.id === stage ? ({ ...s, params: withParam(s.params, param, value) } as typeof s) : s,
        ),
      })),
    toggleStage: (stage) =>
      update((config) => ({
        ...config,
        stages: config.stages.map((s) => (s.id === stage ? { ...s, enabled: !s.enabled } : s)),
      })),
    moveStage: (stage, delta) =>
      update((config) => {
        const from = config.stages.findIndex((s) => s.id === stage)
        const to = from + delta
        if (from < 0 || to < 0 || to >= config.stages.length) return config
        const stages = [...config.stages]
        const [moved] = stages.splice(from, 1)
        if (moved) stages.splice(to, 0, moved)
        return { ...config, stages }
      }),
    setEncoding: (encoding) => update((config) => ({ ...config, encoding })),
    setWindow: (window) =>
      update((config) => {
        const { window: _old, ...rest } = config
        return window === undefined ? rest : { ...rest, window }
      }),
    setSummarizer: (summarizer) => update((config) => ({ ...config, summarizer })),
    setCalibration: (change) =>
      update((config) => {
        const { calibration: _old, ...rest } = config
        const next: CalibrationSetting = { ...(config.calibration ?? { mode: 'auto' }), ...change }
        return next.mode === 'auto' && Object.keys(next).length === 1 ? rest : { ...rest, calibration: next }
      }),
    applyConfig: (config) => {
      if (!get().config) return
      // Its own step, even right after a drag of a param it also sets.
      set({ configHistory: closeGroup(get().configHistory) })
      update(() => config)
    },
    restoreConfig: (config, notice = null) => replace(config, { configNotice: notice }),
    dismissConfigNotice: () => set({ configNotice: null }),
    undoConfig: () => {
      const current = get().config
      const step = current && undoStep(get().configHistory, current)
      if (step) replace(step.config, { configHistory: step.history })
    },
    redoConfig: () => {
      const current = get().config
      const step = current && redoStep(get().configHistory, current)
      if (step) replace(step.config, { configHistory: step.history })
    },
    endConfigEdit: () => {
      const history = get().configHistory
      if (history.group) set({ configHistory: closeGroup(history) })
    },
  }
}
