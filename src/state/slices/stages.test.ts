import { beforeEach, describe, expect, it, vi } from 'vitest'
import type { PipelineConfig, StageId } from '../../engine/model'
import type { RunOptions, RunOutcome, RunView } from '../../worker/protocol'

const fake = vi.hoisted(() => ({
  runUpTo: vi.fn<(config: PipelineConfig, stage: StageId, runId: number, options?: RunOptions) => Promise<RunOutcome>>(),
}))
vi.mock('../../app/engine-client', () => ({ getEngine: () => fake, restartEngine: vi.fn() }))

const { useStore } = await import('../store')
const { ROW_PAGE } = await import('./run')
const state = () => useStore.getState()

const CONFIG: PipelineConfig = {
  encoding: 'o200k_base',
  summarizer: 'extractive',
  stages: [
    { id: 'prune-tool-results', enabled: true, params: {} },
    { id: 'summarize', enabled: true, params: { keep_last: 2, compact_after: 3 } },
  ],
}

/** A run view of the page's store: the full run (no `asOf`) or one as of `turn` of 5. */
function view(runId: number, turn?: number): RunView {
  const totals = { messages: 0, tokens: 0 } as unknown as RunView['before']['totals']
  const v = { runId, transcriptKey: 'k1', encoding: 'o200k_base', before: { rows: [], totals }, after: { rows: [], totals }, passes: [], stages: [], checks: { before: [], after: [] }, warnings: [] } as unknown as RunView
  if (turn !== undefined) v.asOf = { turn, turns: 5, endIndex: turn * 2 }
  return v
}

beforeEach(() => {
  useStore.setState(useStore.getInitialState(), true)
  fake.runUpTo.mockReset()
  fake.runUpTo.mockImplementation(async (_config, _stage, runId) => ({ ok: true, view: view(runId) }))
})

describe('stages slice', () => {
  it('asks the stage view of the whole transcript for a full run', () => {
    useStore.setState({ config: structuredClone(CONFIG), run: view(7) })
    state().showStage('prune-tool-results')
    expect(fake.runUpTo).toHaveBeenCalledTimes(1)
    const [, stage, runId, options] = fake.runUpTo.mock.calls[0] ?? []
    expect([stage, runId]).toEqual(['prune-tool-results', 7])
    // Rows in pages, as a run's.
    expect(options).toEqual({ previewsOf: 'k1', rowPage: ROW_PAGE })
  })

  it('asks the stage view as of the turn of a run as of a turn, and again for the next turn', () => {
    useStore.setState({ config: structuredClone(CONFIG), run: view(8, 2) })
    state().showStage('prune-tool-results')
    expect(fake.runUpTo.mock.calls[0]?.[3]).toEqual({ previewsOf: 'k1', asOfTurn: 2, rowPage: ROW_PAGE })
    // Playback steps on: the run of turn 3 arrives and the view follows it.
    useStore.setState({ run: view(9, 3) })
    state().syncStageView()
    expect(fake.runUpTo).toHaveBeenCalledTimes(2)
    expect(fake.runUpTo.mock.calls[1]?.slice(1)).toEqual(['prune-tool-results', 9, { previewsOf: 'k1', asOfTurn: 3, rowPage: ROW_PAGE }])
  })
})
