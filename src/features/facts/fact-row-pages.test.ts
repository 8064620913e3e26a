import { describe, expect, it } from 'vitest'
import { listedRows, pagesToAsk, withPage, type FactRowPages } from './fact-row-pages'

const answer = (from: number, matching: number, rows: string[]) => ({ from, matching, rows })

describe('facts table pages', () => {
  it('asks the pages over the range, clipped to the rows the query lists once known', () => {
    // Nothing held: the count is not known, the whole range is asked.
    expect(pagesToAsk(null, 1, 'a', [0, 200], 100)).toEqual([0, 1])
    expect(pagesToAsk(null, 1, 'a', [250, 420], 100)).toEqual([2, 3, 4])
    const held = withPage(null, 1, 'a', answer(0, 130, ['r0']))
    expect(pagesToAsk(held, 1, 'a', [0, 200], 100)).toEqual([0, 1])
    expect(pagesToAsk(withPage(null, 1, 'a', answer(0, 40, ['r0'])), 1, 'a', [0, 200], 100)).toEqual([0])
    expect(pagesToAsk(withPage(null, 1, 'a', answer(0, 0, [])), 1, 'a', [0, 200], 100)).toEqual([0])
  })

  it('asks only the first page of a new query, the range again for a new version of the same query', () => {
    const held = withPage(null, 1, 'a', answer(3000, 5000, ['x']))
    expect(pagesToAsk(held, 1, 'b', [3000, 3040], 100)).toEqual([0])
    expect(pagesToAsk(held, 2, 'b', [3000, 3040], 100)).toEqual([0])
    // The version changed (a fact watched): the rows in view, the count not known for it yet.
    expect(pagesToAsk(held, 2, 'a', [3000, 3140], 100)).toEqual([30, 31])
  })

  it('merges pages of one query and version, and starts again for another', () => {
    let held: FactRowPages<string> | null = withPage(null, 1, 'a', answer(0, 250, ['a0', 'a1']))
    held = withPage(held, 1, 'a', answer(200, 250, ['a200']))
    expect([...held.rows]).toEqual([
      [0, 'a0'],
      [1, 'a1'],
      [200, 'a200'],
    ])
    const before = held
    held = withPage(held, 1, 'b', answer(0, 7, ['b0']))
    expect(held).toEqual({ version: 1, key: 'b', matching: 7, rows: new Map([[0, 'b0']]) })
    // The pages held before are not changed.
    expect(before.rows.size).toBe(3)
    expect(withPage(held, 2, 'b', answer(100, 150, ['n100'])).rows).toEqual(new Map([[100, 'n100']]))
  })

  it('marks the pages of another query or version stale: the previous list, not this one', () => {
    const held = withPage(null, 4, 'a', answer(0, 12, ['a0']))
    expect(listedRows(null, 4, 'a')).toBeNull()
    expect(listedRows(held, 4, 'a')).toEqual({ matching: 12, rows: new Map([[0, 'a0']]), stale: false })
    expect(listedRows(held, 4, 'b')?.stale).toBe(true)
    expect(listedRows(held, 5, 'a')?.stale).toBe(true)
  })
})
