import { describe, expect, it } from 'vitest'
import { defaultFactOrder, queryFactRows, type QueryableFactRow } from './fact-query'

const row = (key: number, fact: string, over: Partial<QueryableFactRow> = {}): QueryableFactRow => ({
  key,
  fact,
  kind: 'id',
  importance: 'other',
  firstSeen: { index: key },
  final: 'verbatim',
  ...over,
})

describe('facts table query', () => {
  it('lists needed-after-loss facts first, then by importance, then by first appearance', () => {
    const rows = [row(0, 'a', { importance: 'noise' }), row(1, 'b', { importance: 'goal' }), row(2, 'c'), row(3, 'd', { neededAfterLoss: {} })]
    expect(defaultFactOrder(rows).map((r) => r.key)).toEqual([3, 1, 2, 0])
  })

  it('filters by text (any case), kind, noise and only lost, and sorts stably', () => {
    const rows = defaultFactOrder([
      row(0, 'ORD-10', { final: 'lost' }),
      row(1, 'ord-9'),
      row(2, '94107', { kind: 'postal-code' }),
      row(3, '12%', { kind: 'percentage', importance: 'noise', final: 'lost' }),
    ])
    const q = { text: '', kind: '' as const, showNoise: false, onlyLost: false, sorting: [] }
    expect(queryFactRows(rows, q).map((r) => r.key)).toEqual([0, 1, 2])
    expect(queryFactRows(rows, { ...q, showNoise: true }).map((r) => r.key)).toEqual([0, 1, 2, 3])
    expect(queryFactRows(rows, { ...q, kind: 'percentage' }).map((r) => r.key)).toEqual([3])
    expect(queryFactRows(rows, { ...q, text: 'ord' }).map((r) => r.key)).toEqual([0, 1])
    expect(queryFactRows(rows, { ...q, onlyLost: true }).map((r) => r.key)).toEqual([0])
    expect(queryFactRows(rows, { ...q, sorting: [{ id: 'fact', desc: false }] }).map((r) => r.fact)).toEqual(['ord-9', 'ORD-10', '94107'])
    expect(queryFactRows(rows, { ...q, sorting: [{ id: 'finalRank', desc: false }] }).map((r) => r.key)).toEqual([0, 1, 2])
    expect(queryFactRows(rows, { ...q, sorting: [{ id: 'finalRank', desc: true }] }).map((r) => r.key)).toEqual([1, 2, 0])
  })
})
