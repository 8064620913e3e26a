import { describe, expect, it } from 'vitest'
import type { RowMeta } from '../../worker/protocol'
import { fateKinds, tableOrder } from './table-order'

function row(index: number, role: RowMeta['role'], tokens: number, fate?: RowMeta['fate']): RowMeta {
  const r: RowMeta = { id: `m${index}`, index, role, tokens, preview: '', flags: {} as RowMeta['flags'], images: 0, thinking: 0, counterpartIds: [] }
  if (fate) r.fate = fate
  return r
}

const rows = [
  row(0, 'user', 30),
  row(1, 'assistant', 10, { kind: 'summarized', stage: 'summarize', pass: 1, summaryId: 's1' }),
  row(2, 'tool', 30, { kind: 'dropped', stage: 'prune-tool-results', reason: 'old' } as unknown as RowMeta['fate']),
  row(3, 'user', 5),
  row(4, 'tool', 50),
]

describe('tableOrder', () => {
  it('lists every row in file order without a filter or a sort (null: no positions made)', () => {
    expect(tableOrder(rows, { role: '', fate: '', sort: null })).toBeNull()
  })

  it('filters by role and by fate kind (no fate reads kept)', () => {
    expect([...tableOrder(rows, { role: 'tool', fate: '', sort: null })!]).toEqual([2, 4])
    expect([...tableOrder(rows, { role: '', fate: 'kept', sort: null })!]).toEqual([0, 3, 4])
    expect([...tableOrder(rows, { role: 'user', fate: 'summarized', sort: null })!]).toEqual([])
  })

  it('sorts by tokens either way, ties in file order', () => {
    expect([...tableOrder(rows, { role: '', fate: '', sort: { id: 'tokens', desc: true } })!]).toEqual([4, 0, 2, 1, 3])
    expect([...tableOrder(rows, { role: '', fate: '', sort: { id: 'tokens', desc: false } })!]).toEqual([3, 1, 0, 2, 4])
  })

  it('sorts by role name and by index, after the filter', () => {
    expect([...tableOrder(rows, { role: '', fate: '', sort: { id: 'role', desc: false } })!]).toEqual([1, 2, 4, 0, 3])
    expect([...tableOrder(rows, { role: '', fate: 'kept', sort: { id: 'index', desc: true } })!]).toEqual([4, 3, 0])
  })

  it('orders 1,000,000 rows by tokens', () => {
    const many = Array.from({ length: 1_000_000 }, (_, i) => row(i, i % 2 ? 'assistant' : 'user', (i * 7919) % 1000))
    const order = tableOrder(many, { role: '', fate: '', sort: { id: 'tokens', desc: true } })!
    expect(order).toHaveLength(1_000_000)
    expect(many[order[0]!]!.tokens).toBe(999)
    expect(many[order[999_999]!]!.tokens).toBe(0)
    // Ties in file order: the first two rows of 999 tokens are the two smallest positions holding it.
    const of999 = many.filter((r) => r.tokens === 999).map((r) => r.index)
    expect([order[0], order[1]]).toEqual(of999.slice(0, 2))
  })
})

describe('fateKinds', () => {
  it('lists the fate kinds present, sorted, kept for rows without a fate', () => {
    expect(fateKinds(rows)).toEqual(['dropped', 'kept', 'summarized'])
  })
})
