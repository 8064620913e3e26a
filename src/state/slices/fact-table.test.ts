import { describe, expect, it, vi } from 'vitest'
import type { FactTableOutcome, FactTableView, RunView, TranscriptInfo } from '../../worker/protocol'

/** A fake engine answering each facts-table request with a table of its own version. */
const fake = vi.hoisted(() => {
  let version = 0
  return {
    getFactTable: vi.fn(
      (runId: number, _known?: number, _watched?: readonly string[]): Promise<FactTableOutcome> =>
        Promise.resolve({ ok: true, table: { runId, version: ++version, passes: [], rows: [] } as unknown as FactTableView }),
    ),
  }
})

vi.mock('../../app/engine-client', () => ({ getEngine: () => fake, restartEngine: vi.fn() }))

const { useStore } = await import('../store')

/** Lets the store's awaits run. */
const settle = () => new Promise((r) => setTimeout(r, 0))

describe('fact-table slice: watched facts', () => {
  it('watching asks for the table with the list; the held version is not reused for another list', async () => {
    useStore.setState({ run: { runId: 1 } as RunView, info: {} as TranscriptInfo })
    useStore.getState().requestFactTable()
    await settle()
    expect(fake.getFactTable).toHaveBeenLastCalledWith(1, undefined, [], 'after')
    const first = useStore.getState().factTable?.version
    // Trimmed, an empty text and a repeat ignored.
    useStore.getState().watchFact('  ORD-1 ')
    useStore.getState().watchFact('')
    useStore.getState().watchFact('ORD-1')
    await settle()
    expect(useStore.getState().watchedFacts).toEqual(['ORD-1'])
    expect(fake.getFactTable).toHaveBeenCalledTimes(2)
    expect(fake.getFactTable).toHaveBeenLastCalledWith(1, undefined, ['ORD-1'], 'after')
    expect(useStore.getState().factTableWatched).toEqual(['ORD-1'])
    // The same run and list again: nothing asked.
    useStore.getState().requestFactTable()
    expect(fake.getFactTable).toHaveBeenCalledTimes(2)
    useStore.getState().unwatchFact('ORD-1')
    await settle()
    expect(useStore.getState().watchedFacts).toEqual([])
    expect(fake.getFactTable).toHaveBeenLastCalledWith(1, undefined, [], 'after')
    expect(useStore.getState().factTable?.version).not.toBe(first)
    // A link's list replaces the current one, cleaned.
    useStore.getState().setWatchedFacts(['a', ' a', '', 'b'])
    expect(useStore.getState().watchedFacts).toEqual(['a', 'b'])
  })
})
