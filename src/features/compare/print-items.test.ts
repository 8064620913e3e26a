import { describe, expect, it } from 'vitest'
import type { RowMeta } from '../../worker/protocol'
import { ColumnItems, type PlacedBoundary } from './column-items'
import { printedItems } from './print-items'

const rows = (...ids: string[]) => ids.map((id) => ({ id }) as RowMeta)
const boundary = (n: number, before: number): PlacedBoundary => ({
  before,
  item: { type: 'boundary', key: `pass-${n}`, label: `pass ${n}`, kind: 'summary' },
})

describe('printedItems', () => {
  it('prints every item of a column within the cap', () => {
    const items = new ColumnItems(rows('a', 'b'), [boundary(1, 1)])
    const { shown, moreMessages } = printedItems(items, 3)
    expect(shown.map((i) => i.key)).toEqual(['r-a', 'pass-1', 'r-b'])
    expect(moreMessages).toBe(0)
  })

  it('cuts at the cap and counts the messages left out, not the boundaries', () => {
    const items = new ColumnItems(rows('a', 'b', 'c', 'd'), [boundary(1, 2), boundary(2, 3)])
    const { shown, moreMessages } = printedItems(items, 2)
    expect(shown.map((i) => i.key)).toEqual(['r-a', 'r-b'])
    expect(moreMessages).toBe(2)
  })
})
