import { afterEach, describe, expect, it, vi } from 'vitest'
import type { FactSearch, FactSearchOutcome, RunView } from '../../worker/protocol'

/** A fake engine whose searches wait until the test answers them. */
const fake = vi.hoisted(() => {
  const pending: { query: string; regex: boolean; resolve: (o: FactSearchOutcome) => void }[] = []
  return {
    pending,
    searchFact: vi.fn(
      (query: string, regex: boolean) =>
        new Promise<FactSearchOutcome>((resolve) => pending.push({ query, regex, resolve })),
    ),
  }
})

vi.mock('../../app/engine-client', () => ({ getEngine: () => fake, restartEngine: vi.fn() }))

const { useStore } = await import('../store')
const { factWalk, FACT_SEARCH_DEBOUNCE_MS } = await import('./facts')

function searchOf(query: string, before: string[], after: string[]): FactSearch {
  const side = (ids: string[]) => ({
    rows: ids.map((rowId) => ({ rowId, count: 1 })),
    messages: ids.length,
    occurrences: ids.length,
  })
  return {
    query,
    regex: false,
    runId: 1,
    against: 'after',
    before: side(before),
    after: side(after),
    verdict: { query, verdict: 'survives', where: [], copiesLost: 0, explanation: '' },
  }
}

/** Lets the store's awaits run. */
const settle = () => new Promise((r) => setTimeout(r, 0))

afterEach(() => {
  fake.pending.length = 0
  fake.searchFact.mockClear()
  vi.useRealTimers()
  useStore.setState({ factQuery: '', factRegex: false, factSearch: null, factError: null, factCursor: -1, selection: null })
})

describe('facts slice', () => {
  useStore.setState({ run: { runId: 1 } as RunView })

  it('walks the Before rows, then the After rows', () => {
    expect(factWalk(searchOf('x', ['m1', 'm5'], ['m5']))).toEqual([
      { side: 'before', rowId: 'm1', count: 1 },
      { side: 'before', rowId: 'm5', count: 1 },
      { side: 'after', rowId: 'm5', count: 1 },
    ])
  })

  it('searches once after typing stops, then lands on the first match', async () => {
    vi.useFakeTimers()
    const { setFactQuery } = useStore.getState()
    setFactQuery('O')
    setFactQuery('OR')
    setFactQuery('ORD')
    vi.advanceTimersByTime(FACT_SEARCH_DEBOUNCE_MS - 1)
    expect(fake.searchFact).not.toHaveBeenCalled()
    vi.advanceTimersByTime(1)
    expect(fake.searchFact).toHaveBeenCalledTimes(1)
    expect(fake.searchFact).toHaveBeenCalledWith('ORD', false, 'after')
    fake.pending[0]?.resolve({ ok: true, search: searchOf('ORD', ['m1', 'm5'], ['m5']) })
    vi.useRealTimers()
    await settle()
    expect(useStore.getState().factCursor).toBe(0)
    expect(useStore.getState().selection).toEqual({ side: 'before', id: 'm1', reveal: true })
  })

  it('steps to the next and previous match, wrapping, and selects its row', async () => {
    useStore.getState().setFactQuery('ORD', { immediate: true })
    fake.pending[0]?.resolve({ ok: true, search: searchOf('ORD', ['m1', 'm5'], ['m5']) })
    await settle()
    const { stepFactMatch } = useStore.getState()
    stepFactMatch(1)
    expect(useStore.getState().factCursor).toBe(1)
    stepFactMatch(1)
    expect(useStore.getState().selection).toEqual({ side: 'after', id: 'm5', reveal: true })
    stepFactMatch(1)
    expect(useStore.getState().factCursor).toBe(0)
    stepFactMatch(-1)
    expect(useStore.getState().factCursor).toBe(2)
  })

  it('drops an answer to an older query', async () => {
    const { setFactQuery } = useStore.getState()
    setFactQuery('A', { immediate: true })
    setFactQuery('B', { immediate: true })
    fake.pending[1]?.resolve({ ok: true, search: searchOf('B', ['m2'], []) })
    await settle()
    fake.pending[0]?.resolve({ ok: true, search: searchOf('A', ['m1'], []) })
    await settle()
    expect(useStore.getState().factSearch?.query).toBe('B')
  })

  it('keeps an error (invalid regex) and no matches', async () => {
    useStore.getState().setFactQuery('(', { immediate: true, regex: true })
    expect(fake.searchFact).toHaveBeenCalledWith('(', true, 'after')
    fake.pending[0]?.resolve({ ok: false, error: 'Not a valid regular expression: Unterminated group' })
    await settle()
    expect(useStore.getState().factError).toMatch(/Unterminated group/)
    expect(useStore.getState().factSearch).toBeNull()
  })

  it('after a new run, stays on the same row without moving the selection', async () => {
    useStore.getState().setFactQuery('ORD', { immediate: true })
    fake.pending[0]?.resolve({ ok: true, search: searchOf('ORD', ['m1', 'm5'], ['m5']) })
    await settle()
    useStore.getState().stepFactMatch(1) // on before m5
    useStore.getState().selectRow({ side: 'after', id: 'm9' })
    useStore.getState().refreshFactSearch()
    // The new run folded m1 away: m5 is now the first match.
    fake.pending[1]?.resolve({ ok: true, search: searchOf('ORD', ['m5'], []) })
    await settle()
    expect(useStore.getState().factCursor).toBe(0)
    expect(useStore.getState().selection).toEqual({ side: 'after', id: 'm9' })
  })
})
