import type { Encoding, PipelineConfig, StageId, SummarizerId } from '../../engine/model'
import type { SliceCreator } from './types'

/** The pipeline configuration the user edits; every change re-runs (coalesced) in the worker. */
export interface PipelineSlice {
  /** Null until the worker has sent its defaults. */
  config: PipelineConfig | null
  /** Sets one numeric param of one stage. */
  setStageParam: (stage: StageId, param: string, value: number) => void
  toggleStage: (stage: StageId) => void
  /** Moves a stage up (-1) or down (+1) in the run order. */
  moveStage: (stage: StageId, delta: -1 | 1) => void
  setEncoding: (encoding: Encoding) => void
  setSummarizer: (summarizer: SummarizerId) => void
}

export const createPipelineSlice: SliceCreator<PipelineSlice> = (set, get) => {
  const update = (change: (config: PipelineConfig) => PipelineConfig) => {
    const config = get().config
    if (!config) return
    set({ config: change(config) })
    if (get().info) get().requestRun()
  }
  return {
    config: null,
    setStageParam: (stage, param, value) =>
      update((config) => ({
        ...config,
        stages: config.stages.map((s) =>
          s.id === stage ? ({ ...s, params: { ...s.params, [param]: value } } as typeof s) : s,
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
    setSummarizer: (summarizer) => update((config) => ({ ...config, summarizer })),
  }
}
