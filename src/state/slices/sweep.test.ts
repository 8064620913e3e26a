import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import type { PipelineConfig } from '../../engine/model'
import type { RunOutcome, SweepAxis, SweepCell, SweepOutcome, SweepProgress, SweepResult, TranscriptInfo } from '../../worker/protocol'
import { withProgress } from './sweep'

const fake = vi.hoisted(() => ({
  sweep: vi.fn<(config: PipelineConfig, x: SweepAxis, y: SweepAxis, onProgress?: (p: SweepProgress) => void) => Promise<SweepOutcome>>(),
  cancelSweep: vi.fn(),
  run: vi.fn<() => Promise<RunOutcome>>(() => new Promise(() => {})),
}))
vi.mock('../../app/engine-client', () => ({ getEngine: () => fake, restartEngine: vi.fn() }))
vi.mock('comlink', () => ({ proxy: <T>(fn: T) => fn }))

const { useStore } = await import('../store')
const state = () => useStore.getState()

/** A 2 × 2 grid (keep_last 5, 10 × compact_after 20, 40) with no cell done. */
function grid(): SweepResult {
  return {
    x: { param: 'keep_last', values: [5, 10] },
    y: { param: 'compact_after', values: [20, 40] },
    cells: [
      [null, null],
      [null, null],
    ],
    window: 200_000,
    tokensBefore: 0,
    factsTotal: 0,
    enabledStages: [],
    complete: false,
    tokenizerCalls: 0,
  }
}

const invalid = (x: number, y: number): SweepCell => ({ ok: false, x, y, reason: 'summarize: test' })
const report = (xi: number, yi: number, done: number): SweepProgress => ({
  done,
  total: 4,
  xi,
  yi,
  cell: invalid([5, 10][xi] ?? 0, [20, 40][yi] ?? 0),
})

describe('withProgress', () => {
  it('puts every cell of a batch on the grid at once, with the progress of the last report', () => {
    const before = grid()
    const next = withProgress(before, [report(0, 0, 1), report(1, 0, 2), report(0, 1, 3)])
    expect(next?.progress).toEqual({ done: 3, total: 4 })
    expect(next?.grid.cells).toEqual([
      [invalid(5, 20), invalid(10, 20)],
      [invalid(5, 40), null],
    ])
    // The grid it was given is not changed (the store's state is replaced, never mutated).
    expect(before.cells).toEqual([
      [null, null],
      [null, null],
    ])
  })

  it('shares rows without a new cell and gives null for an empty batch', () => {
    const before = grid()
    const next = withProgress(before, [report(1, 1, 1)])
    expect(next?.grid.cells[0]).toBe(before.cells[0])
    expect(next?.grid.cells[1]).not.toBe(before.cells[1])
    expect(withProgress(before, [])).toBeNull()
  })
})

const CONFIG: PipelineConfig = {
  encoding: 'o200k_base',
  summarizer: 'extractive',
  stages: [
    { id: 'dedupe', enabled: true, params: {} },
    { id: 'summarize', enabled: true, params: { keep_last: 20, compact_after: 40 } },
  ],
}
const X: SweepAxis = { param: 'keep_last', values: [10, 20] }
const Y: SweepAxis = { param: 'compact_after', values: [30, 40] }

describe('a sweep in flight when the settings change', () => {
  /** The sweeps asked of the worker, each answered only when the test says. */
  let asked: { config: PipelineConfig; x: SweepAxis; y: SweepAxis; answer: (o: SweepOutcome) => void }[] = []
  beforeEach(() => {
    asked = []
    useStore.setState(useStore.getInitialState(), true)
    useStore.setState({ config: structuredClone(CONFIG), info: { messageCount: 90, recordedCompactions: [] } as unknown as TranscriptInfo })
    fake.sweep.mockReset()
    fake.sweep.mockImplementation((config, x, y) => new Promise((answer) => asked.push({ config, x, y, answer })))
  })
  afterEach(() => {
    for (const a of asked) a.answer({ ok: false, error: 'cancelled', cancelled: true })
  })

  /** A complete grid of `x` × `y` whose cells are invalid (enough to tell which sweep it is). */
  const done = (x: SweepAxis, y: SweepAxis): SweepOutcome => ({
    ok: true,
    result: { ...grid(), x, y, cells: y.values.map((yv) => x.values.map((xv) => invalid(xv, yv))), complete: true },
  })

  it('keeps running when only a swept param changed (keep_last): every cell sets it, so the grid is of the current settings', async () => {
    state().runSweep(X, Y)
    state().setStageParam('summarize', 'keep_last', 12)
    expect(asked).toHaveLength(1)
    expect(state().sweepStatus).toBe('running')
    expect(state().sweepRestarted).toBe(false)
    asked[0]!.answer(done(X, Y))
    await vi.waitFor(() => expect(state().sweepStatus).toBe('done'))
    expect(state().sweepResult?.x).toEqual(X)
  })

  it('starts again on the new settings, same axes, when another setting changed; the old answer is dropped', async () => {
    state().runSweep(X, Y)
    state().toggleStage('dedupe')
    expect(asked).toHaveLength(2)
    // The second sweep is of the config now set (dedupe off), over the axes of the first.
    expect(asked[1]!.config).toBe(state().config)
    expect(asked[1]!.config.stages[0]).toEqual({ id: 'dedupe', enabled: false, params: {} })
    expect([asked[1]!.x, asked[1]!.y]).toEqual([X, Y])
    expect(state().sweepOf?.config).toBe(state().config)
    expect(state().sweepRestarted).toBe(true)
    expect(state().sweepProgress).toEqual({ done: 0, total: 4 })

    // The first sweep's grid, had it finished, is never shown as if it were of these settings.
    const stale = done({ param: 'keep_last', values: [1, 2] }, Y)
    asked[0]!.answer(stale)
    await Promise.resolve()
    expect(state().sweepStatus).toBe('running')
    expect(state().sweepResult?.x).toEqual(X)
    asked[1]!.answer(done(X, Y))
    await vi.waitFor(() => expect(state().sweepStatus).toBe('done'))
    expect(state().sweepResult?.cells[0]?.[0]).toEqual(invalid(10, 30))
  })

  it('a finished sweep is not started again by a settings change (its notice says they changed)', async () => {
    state().runSweep(X, Y)
    asked[0]!.answer(done(X, Y))
    await vi.waitFor(() => expect(state().sweepStatus).toBe('done'))
    state().toggleStage('dedupe')
    expect(asked).toHaveLength(1)
    expect(state().sweepStatus).toBe('done')
  })
})
