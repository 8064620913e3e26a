import { describe, expect, it } from 'vitest'
import type { SweepCell, SweepProgress, SweepResult } from '../../worker/protocol'
import { withProgress } from './sweep'

/** A 2 × 2 grid (keep_last 5, 10 × compact_after 20, 40) with no cell done. */
function grid(): SweepResult {
  return {
    x: { param: 'keep_last', values: [5, 10] },
    y: { param: 'compact_after', values: [20, 40] },
    cells: [
      [null, null],
      [null, null],
    ],
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
