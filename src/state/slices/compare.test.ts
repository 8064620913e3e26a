import { beforeEach, describe, expect, it, vi } from 'vitest'
import type { PipelineConfig } from '../../engine/model'
import type { CompareOutcome, TranscriptInfo } from '../../worker/protocol'

const fake = vi.hoisted(() => ({ compareRun: vi.fn<(config: PipelineConfig) => Promise<CompareOutcome>>() }))
vi.mock('../../app/engine-client', () => ({ getEngine: () => fake, restartEngine: vi.fn() }))
vi.mock('comlink', () => ({ proxy: <T>(fn: T) => fn }))

const { useStore } = await import('../store')
const state = () => useStore.getState()

const config = (keepLast: number): PipelineConfig => ({
  encoding: 'o200k_base',
  summarizer: 'extractive',
  stages: [{ id: 'summarize', enabled: true, params: { keep_last: keepLast } }],
})
const figures = (tokensAfter: number): CompareOutcome => ({
  ok: true,
  figures: { tokensBefore: 1000, tokensAfter, peakTokens: 1000, passes: 1, neededLost: 0 },
})

/** compareRun answers when `release(i)` is called, in any order. */
function deferred() {
  const pending: ((o: CompareOutcome) => void)[] = []
  fake.compareRun.mockImplementation(() => new Promise((resolve) => pending.push(resolve)))
  return { release: (i: number, o: CompareOutcome) => pending[i]?.(o), calls: () => fake.compareRun.mock.calls.map((c) => c[0]) }
}

beforeEach(() => {
  useStore.setState(useStore.getInitialState(), true)
  useStore.setState({ info: { messageCount: 3 } as TranscriptInfo })
  fake.compareRun.mockReset()
})

describe('the side-by-side comparison', () => {
  it('runs both sides in the worker and fills each as its answer comes, in either order', async () => {
    const d = deferred()
    state().compareConfigs([
      { label: 'Current settings', config: config(20) },
      { label: 'Codex', presetId: 'codex-local', config: config(5) },
    ])
    expect(d.calls()).toEqual([config(20), config(5)])
    expect(state().comparison?.sides.map((s) => s.outcome)).toEqual([null, null])
    d.release(1, figures(300))
    await vi.waitFor(() => expect(state().comparison?.sides[1].outcome).toEqual(figures(300)))
    expect(state().comparison?.sides[0].outcome).toBeNull()
    d.release(0, figures(600))
    await vi.waitFor(() => expect(state().comparison?.sides[0].outcome).toEqual(figures(600)))
    expect(state().comparison?.sides.map((s) => s.label)).toEqual(['Current settings', 'Codex'])
  })

  it('drops the answers of a comparison closed or replaced meanwhile, and runs nothing without a transcript', async () => {
    const d = deferred()
    state().compareConfigs([
      { label: 'a', config: config(20) },
      { label: 'b', config: config(5) },
    ])
    state().closeComparison()
    d.release(0, figures(1))
    await Promise.resolve()
    expect(state().comparison).toBeNull()
    useStore.setState({ info: null })
    state().compareConfigs([
      { label: 'a', config: config(20) },
      { label: 'b', config: config(5) },
    ])
    expect(state().comparison).toBeNull()
    expect(d.calls()).toHaveLength(2)
  })
})
