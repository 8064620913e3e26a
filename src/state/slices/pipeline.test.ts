import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import type { PipelineConfig } from '../../engine/model'
import type { ImportOutcome, RunOutcome } from '../../worker/protocol'

const fake = vi.hoisted(() => ({
  run: vi.fn<(config: PipelineConfig, runId: number) => Promise<RunOutcome>>(),
  importText: vi.fn<(text: string, fileName: string) => Promise<ImportOutcome>>(),
  getDefaults: vi.fn<() => Promise<PipelineConfig>>(),
  runRecorded: vi.fn(),
}))
vi.mock('../../app/engine-client', () => ({ getEngine: () => fake, restartEngine: vi.fn() }))
vi.mock('comlink', () => ({ proxy: <T>(fn: T) => fn }))

const { useStore } = await import('../store')

const DEFAULTS: PipelineConfig = {
  encoding: 'o200k_base',
  summarizer: 'extractive',
  stages: [
    { id: 'dedupe', enabled: true, params: {} },
    { id: 'summarize', enabled: true, params: { keep_last: 20, compact_after: 40 } },
  ],
}

const keepLast = () => {
  const s = useStore.getState().config?.stages.find((x) => x.id === 'summarize')
  return s?.id === 'summarize' ? s.params.keep_last : undefined
}
const steps = () => useStore.getState().configHistory.past.length
const redos = () => useStore.getState().configHistory.future.length
const at = (ms: number) => vi.setSystemTime(new Date(Date.UTC(2026, 0, 1) + ms))
const state = () => useStore.getState()

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['Date'] })
  at(0)
  useStore.setState(useStore.getInitialState(), true)
  // The first config (the worker's defaults) is where history starts: not an undo step.
  useStore.setState({ config: structuredClone(DEFAULTS) })
  fake.run.mockReset()
  fake.run.mockImplementation(async () => ({ ok: false, error: 'cancelled', cancelled: true }))
})

afterEach(() => {
  vi.useRealTimers()
})

describe('pipeline slice: undo/redo of settings', () => {
  it('starts with nothing to undo or redo', () => {
    expect(steps()).toBe(0)
    expect(redos()).toBe(0)
    state().undoConfig()
    state().redoConfig()
    expect(keepLast()).toBe(20)
  })

  it('a slider drag (same param, < 500 ms apart) is one step; undo restores the start, redo the end', () => {
    for (const [ms, v] of [[0, 19], [100, 18], [350, 17], [800, 15]] as const) {
      at(ms)
      state().setStageParam('summarize', 'keep_last', v)
    }
    expect(steps()).toBe(1)
    state().undoConfig()
    expect(keepLast()).toBe(20)
    expect(redos()).toBe(1)
    state().redoConfig()
    expect(keepLast()).toBe(15)
    expect(steps()).toBe(1)
  })

  it('a pause over 500 ms or a pointerup starts a new step', () => {
    state().setStageParam('summarize', 'keep_last', 19)
    at(501)
    state().setStageParam('summarize', 'keep_last', 18)
    expect(steps()).toBe(2)
    at(600)
    state().endConfigEdit()
    state().setStageParam('summarize', 'keep_last', 17)
    expect(steps()).toBe(3)
    state().undoConfig()
    expect(keepLast()).toBe(18)
    state().undoConfig()
    expect(keepLast()).toBe(19)
  })

  it('another param, a toggle and a move are each their own step, undone in reverse order', () => {
    state().setStageParam('summarize', 'keep_last', 10)
    state().setStageParam('summarize', 'compact_after', 30)
    state().toggleStage('dedupe')
    state().moveStage('summarize', -1)
    expect(steps()).toBe(4)
    expect(state().config?.stages.map((s) => s.id)).toEqual(['summarize', 'dedupe'])
    state().undoConfig()
    expect(state().config?.stages.map((s) => s.id)).toEqual(['dedupe', 'summarize'])
    expect(state().config?.stages[0]?.enabled).toBe(false)
    state().undoConfig()
    expect(state().config?.stages[0]?.enabled).toBe(true)
    state().undoConfig()
    expect(state().config?.stages[1]?.params).toEqual({ keep_last: 10, compact_after: 40 })
    state().undoConfig()
    expect(state().config).toEqual(DEFAULTS)
    expect(redos()).toBe(4)
  })

  it('dragging back to where the drag started leaves no step', () => {
    state().setStageParam('summarize', 'keep_last', 21)
    state().setStageParam('summarize', 'keep_last', 20)
    expect(steps()).toBe(0)
  })

  it('a change after an undo drops the redo steps', () => {
    state().setStageParam('summarize', 'keep_last', 10)
    state().undoConfig()
    expect(redos()).toBe(1)
    state().setStageParam('summarize', 'compact_after', 50)
    expect(redos()).toBe(0)
    state().redoConfig()
    expect(keepLast()).toBe(20)
  })

  it('applyConfig (presets, sweep cells) is one step even right after a drag of a param it sets', () => {
    state().setStageParam('summarize', 'keep_last', 10)
    const preset = structuredClone(DEFAULTS)
    preset.stages[1] = { id: 'summarize', enabled: true, params: { keep_last: 5, compact_after: 40 } }
    state().applyConfig(preset)
    expect(steps()).toBe(2)
    state().undoConfig()
    expect(keepLast()).toBe(10)
  })

  it('restoreConfig (a link opened at start) is no step and sets the notice', () => {
    const linked = structuredClone(DEFAULTS)
    linked.encoding = 'cl100k_base'
    state().restoreConfig(linked, 'Some settings in the link were not used: unknown stage "x".')
    expect(steps()).toBe(0)
    expect(state().config?.encoding).toBe('cl100k_base')
    expect(state().configNotice).toContain('unknown stage')
    state().dismissConfigNotice()
    expect(state().configNotice).toBeNull()
  })

  it('records a config change made elsewhere (e.g. the summarizer settings) and keeps the form in step on undo', () => {
    const config = state().config
    if (!config) throw new Error('no config')
    useStore.setState({ config: { ...config, summarizer: 'recorded' }, draft: { ...state().draft, summarizer: 'recorded' } })
    expect(steps()).toBe(1)
    state().undoConfig()
    expect(state().config?.summarizer).toBe('extractive')
    expect(state().draft.summarizer).toBe('extractive')
    state().redoConfig()
    expect(state().draft.summarizer).toBe('recorded')
  })

  it('undo and redo re-run the pipeline with the restored config once a transcript is loaded', async () => {
    fake.getDefaults.mockResolvedValue(structuredClone(DEFAULTS))
    fake.importText.mockImplementation(async (_t, fileName) => ({
      ok: true,
      info: {
        fileName,
        format: 'openai-chat',
        messageCount: 1,
        recordedCompactions: [],
        warnings: [],
        notes: [],
        branches: [],
        branchCount: 0,
        sidechains: [],
        open: 'main',
        exportTargets: ['canonical'],
      },
    }))
    await state().loadText('{}', 'a.json')
    state().setStageParam('summarize', 'keep_last', 7)
    fake.run.mockClear()
    state().undoConfig()
    await vi.waitFor(() => expect(fake.run).toHaveBeenCalled())
    const config = fake.run.mock.lastCall?.[0]
    expect(config?.stages[1]).toEqual({ id: 'summarize', enabled: true, params: { keep_last: 20, compact_after: 40 } })
  })
})

describe('flags, choices, an absent param and the model window', () => {
  const summarize = () => state().config?.stages.find((x) => x.id === 'summarize')?.params as Record<string, unknown>

  it('setStageParam takes a flag or a choice, and undefined removes the param (the engine default)', () => {
    state().setStageParam('summarize', 'min_progress', true)
    state().setStageParam('summarize', 'check', 'request')
    state().setStageParam('summarize', 'trigger_tokens', 150_000)
    expect(summarize()).toEqual({ keep_last: 20, compact_after: 40, min_progress: true, check: 'request', trigger_tokens: 150_000 })
    state().setStageParam('summarize', 'trigger_tokens', undefined)
    expect(summarize()).not.toHaveProperty('trigger_tokens')
  })

  it('setWindow sets PipelineConfig.window as an undo step; undefined removes it', () => {
    state().setWindow(1_000_000)
    expect(state().config?.window).toBe(1_000_000)
    expect(steps()).toBe(1)
    state().setWindow(undefined)
    expect(state().config).not.toHaveProperty('window')
    state().undoConfig()
    expect(state().config?.window).toBe(1_000_000)
  })
})

describe('pipeline slice: token counts', () => {
  it('setCalibration changes the mode, keeps the hand-set numbers and the preset overhead, and is an undo step', () => {
    const agentOverhead = { tokens: 20_000, source: 'measured' }
    useStore.setState({ config: { ...structuredClone(DEFAULTS), calibration: { mode: 'auto', agentOverhead } } })
    const start = steps()
    at(1000)
    state().setCalibration({ mode: 'manual', overhead: 12_000, ratio: 1.25 })
    expect(state().config?.calibration).toEqual({ mode: 'manual', overhead: 12_000, ratio: 1.25, agentOverhead })
    at(2000)
    state().setCalibration({ mode: 'off' })
    expect(state().config?.calibration).toEqual({ mode: 'off', overhead: 12_000, ratio: 1.25, agentOverhead })
    expect(steps()).toBe(start + 2)
    state().undoConfig()
    expect(state().config?.calibration?.mode).toBe('manual')
  })

  it('auto with nothing else is the default: the setting is left out', () => {
    state().setCalibration({ mode: 'off' })
    expect(state().config?.calibration).toEqual({ mode: 'off' })
    state().setCalibration({ mode: 'auto' })
    expect(state().config).not.toHaveProperty('calibration')
  })
})
