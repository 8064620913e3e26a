import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import type { PipelineConfig } from '../../engine/model'
import type { RunOptions, RunOutcome, RunView, TranscriptInfo } from '../../worker/protocol'
import { PLAYBACK_STEP_MS } from './playback'

const fake = vi.hoisted(() => ({
  run: vi.fn<(config: PipelineConfig, runId: number, options?: RunOptions) => Promise<RunOutcome>>(),
  runRecorded: vi.fn(),
}))
vi.mock('../../app/engine-client', () => ({ getEngine: () => fake, restartEngine: vi.fn() }))
vi.mock('comlink', () => ({ proxy: <T>(fn: T) => fn }))

const { useStore } = await import('../store')
const state = () => useStore.getState()

const CONFIG: PipelineConfig = {
  encoding: 'o200k_base',
  summarizer: 'extractive',
  stages: [{ id: 'summarize', enabled: true, params: { keep_last: 2, compact_after: 3 } }],
}
/** The fake transcript has four turns. */
const TURNS = 4

/** A run view as the worker answers it: as of the (clamped) turn asked, or the full run. */
function view(runId: number, asOfTurn: number | undefined): RunView {
  const totals = { messages: 0, tokens: 0 } as unknown as RunView['before']['totals']
  const v = { runId, encoding: 'o200k_base', before: { rows: [], totals }, after: { rows: [], totals }, passes: [], stages: [], checks: { before: [], after: [] }, warnings: [] } as unknown as RunView
  if (asOfTurn !== undefined) {
    const turn = Math.min(Math.max(1, asOfTurn), TURNS)
    v.asOf = { turn, turns: TURNS, endIndex: turn * 2 }
  }
  return v
}

/** Answers of the runs in flight (the run slice keeps one in flight across tests: drained after each). */
let pending: (() => void)[] = []

/** Runs answer only when released, in order; `asked` lists the turn of each run asked for (null: full). */
function deferredRuns() {
  const asked: (number | null)[] = []
  fake.run.mockImplementation(
    (_config, runId, options) =>
      new Promise((resolve) => {
        asked.push(options?.asOfTurn ?? null)
        pending.push(() => resolve({ ok: true, view: view(runId, options?.asOfTurn) }))
      }),
  )
  const releaseNext = async () => {
    pending.shift()?.()
    await vi.advanceTimersByTimeAsync(0)
  }
  return { asked, releaseNext, pending: () => pending.length }
}

beforeEach(() => {
  vi.useFakeTimers()
  useStore.setState(useStore.getInitialState(), true)
  useStore.setState({ config: structuredClone(CONFIG), info: { messageCount: 9, recordedCompactions: [] } as unknown as TranscriptInfo })
  fake.run.mockReset()
})

afterEach(async () => {
  state().exitPlayback()
  fake.run.mockImplementation(async (_config, runId) => ({ ok: true, view: view(runId, undefined) }))
  while (pending.length > 0) {
    pending.shift()?.()
    await vi.advanceTimersByTimeAsync(0)
  }
  await vi.advanceTimersByTimeAsync(0)
  pending = []
  vi.useRealTimers()
})

describe('playback slice', () => {
  it('asks for each next turn only after the current turn’s run arrived and stayed one step', async () => {
    const runs = deferredRuns()
    state().startPlayback()
    expect(runs.asked).toEqual([1])
    // Turn 1 is still computing: however long it takes, nothing else is asked for.
    await vi.advanceTimersByTimeAsync(PLAYBACK_STEP_MS * 5)
    expect(runs.asked).toEqual([1])
    await runs.releaseNext()
    expect(state().run?.asOf?.turn).toBe(1)
    await vi.advanceTimersByTimeAsync(PLAYBACK_STEP_MS - 1)
    expect(runs.asked).toEqual([1])
    await vi.advanceTimersByTimeAsync(1)
    expect(runs.asked).toEqual([1, 2])
    expect(state().playbackTurn).toBe(2)
    for (const turn of [3, 4]) {
      await runs.releaseNext()
      await vi.advanceTimersByTimeAsync(PLAYBACK_STEP_MS)
      expect(runs.asked.at(-1)).toBe(turn)
    }
    await runs.releaseNext()
    await vi.advanceTimersByTimeAsync(PLAYBACK_STEP_MS)
    // At the last turn it stops there, playing no more.
    expect(state().playing).toBe(false)
    expect(state().playbackTurn).toBe(TURNS)
    expect(runs.asked).toEqual([1, 2, 3, 4])
  })

  it('waits half as long at 2× and twice as long at 0.5×', async () => {
    const runs = deferredRuns()
    state().setPlaybackSpeed(2)
    state().startPlayback()
    await runs.releaseNext()
    await vi.advanceTimersByTimeAsync(PLAYBACK_STEP_MS / 2)
    expect(runs.asked).toEqual([1, 2])
    state().setPlaybackSpeed(0.5)
    await runs.releaseNext()
    await vi.advanceTimersByTimeAsync(PLAYBACK_STEP_MS * 2 - 1)
    expect(runs.asked).toEqual([1, 2])
    await vi.advanceTimersByTimeAsync(1)
    expect(runs.asked).toEqual([1, 2, 3])
  })

  it('steps, seeks and pauses; a setting changed re-runs the current turn; exit runs the whole transcript', async () => {
    const runs = deferredRuns()
    state().startPlayback(3, false)
    await runs.releaseNext()
    await vi.advanceTimersByTimeAsync(PLAYBACK_STEP_MS * 3)
    expect(runs.asked).toEqual([3])
    state().stepPlayback(1)
    expect(state().playbackTurn).toBe(4)
    await runs.releaseNext()
    state().stepPlayback(1)
    expect(state().playbackTurn).toBe(4)
    expect(runs.asked).toEqual([3, 4])
    state().stepPlayback(-1)
    state().seekPlayback(0)
    expect(state().playbackTurn).toBe(1)
    state().setStageParam('summarize', 'keep_last', 3)
    // Coalesced: the run in flight (turn 3), then one more with the latest turn and settings.
    await runs.releaseNext()
    await runs.releaseNext()
    expect(runs.asked).toEqual([3, 4, 3, 1])
    expect(fake.run.mock.calls.at(-1)?.[0].stages[0]).toMatchObject({ params: { keep_last: 3 } })
    state().exitPlayback()
    expect(state().playbackTurn).toBeNull()
    await runs.releaseNext()
    expect(runs.asked.at(-1)).toBeNull()
    expect(state().run?.asOf).toBeUndefined()
  })

  it('follows the worker’s clamp of a turn past the end, and play from the last turn starts again at 1', async () => {
    const runs = deferredRuns()
    state().startPlayback(99, false)
    await runs.releaseNext()
    expect(state().playbackTurn).toBe(TURNS)
    state().togglePlaying()
    expect(state().playing).toBe(true)
    expect(runs.asked).toEqual([99, 1])
  })

  it('stops playing when a run fails, staying on its turn', async () => {
    fake.run.mockResolvedValue({ ok: false, error: 'summarize: boom' })
    state().startPlayback()
    await vi.advanceTimersByTimeAsync(0)
    expect(state().runStatus).toBe('error')
    expect(state().playing).toBe(false)
    expect(state().playbackTurn).toBe(1)
  })
})
