import { describe, expect, it } from 'vitest'
import type { RowMeta } from '../../worker/protocol'
import type { ColumnItem } from './column-items'
import { printedItems } from './print-items'

const row = (id: string): ColumnItem => ({ type: 'row', key: `r-${id}`, row: { id } as RowMeta })
const boundary = (n: number): ColumnItem => ({ type: 'boundary', key: `pass-${n}`, label: `pass ${n}`, kind: 'summary' })

describe('printedItems', () => {
  it('prints every item of a column within the cap', () => {
    const items = [row('a'), boundary(1), row('b')]
    const { shown, moreMessages } = printedItems(items, 3)
    expect(shown.map((i) => i.key)).toEqual(['r-a', 'pass-1', 'r-b'])
    expect(moreMessages).toBe(0)
  })

  it('cuts at the cap and counts the messages left out, not the boundaries', () => {
    const items = [row('a'), row('b'), boundary(1), row('c'), boundary(2), row('d')]
    const { shown, moreMessages } = printedItems(items, 2)
    expect(shown.map((i) => i.key)).toEqual(['r-a', 'r-b'])
    expect(moreMessages).toBe(2)
  })
})
