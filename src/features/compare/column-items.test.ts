import { describe, expect, it } from 'vitest'
import type { Fate, Origin } from '../../engine/model'
import type { PassMeta, RowMeta } from '../../worker/protocol'
import { buildAfterItems, buildBeforeItems, ColumnItems, linkAfters, passStops, rowLinks, stepRow, stepStop, stopOfPass } from './column-items'

function row(id: string, index: number, extra: { fate?: Fate; origin?: Origin } = {}): RowMeta {
  return { id, index, role: 'user', tokens: 1, preview: id, flags: {}, images: 0, thinking: 0, counterpartIds: [], ...extra }
}

const pass = (n: number, from: number, upto: number, stage: PassMeta['stage'] = 'summarize'): PassMeta => ({
  pass: n, stage, atMessage: upto, from, upto, summary: 's', summaryId: `s${n}`, tokensBefore: 0, tokensAfter: 0, promptLength: 0, summaryLength: 1,
})

const labels = (items: ColumnItems) =>
  items.slice().map((it) => (it.type === 'row' ? it.row.id : `|${it.label}|`))

describe('buildBeforeItems', () => {
  it('puts a labelled boundary before the first message of each pass slice (last index = upto - 1)', () => {
    const rows = [0, 1, 2, 3, 4, 5].map((i) => row(`m${i}`, i))
    const items = buildBeforeItems(rows, [pass(1, 0, 2), pass(2, 2, 4)], [])
    expect(labels(items)).toEqual([
      '|pass 1: messages 0–1 → summary|',
      'm0',
      'm1',
      '|pass 2: messages 2–3 → summary|',
      'm2',
      'm3',
      'm4',
      'm5',
    ])
  })

  it('names a non-summarize stage and marks compactions recorded in the source', () => {
    const rows = [0, 1, 2].map((i) => row(`m${i}`, i))
    const items = buildBeforeItems(rows, [pass(1, 0, 1, 'insert-then-compress')], [
      { atIndex: 2, trigger: 'manual', tokensBefore: 1200, tokensAfter: 300, summaryText: null, source: 'claude-code' },
    ])
    expect(labels(items)).toEqual([
      '|insert-then-compress: messages 0–0 → summary|',
      'm0',
      'm1',
      '|recorded compaction in source (manual, 1,200 → 300 tokens)|',
      'm2',
    ])
  })
})

describe('buildAfterItems', () => {
  it('puts the pass and covered range before each summary message', () => {
    const items = buildAfterItems([
      row('sys', 0),
      row('s2', 1, { origin: { kind: 'summary', stage: 'summarize', pass: 2, fromIndex: 0, toIndex: 57, coveredIds: [] } }),
      row('m58', 2, { origin: { kind: 'original', beforeId: 'm58', changed: false } }),
    ])
    expect(labels(items)).toEqual(['sys', '|pass 2: messages 0–57 → summary|', 's2', 'm58'])
    expect(items.indexOfRow('s2')).toBe(2)
    expect(items.indexOfRow('m58')).toBe(3)
    expect(items.indexOfRow('nope')).toBe(-1)
  })

  it('marks the summary the agent recorded with the recorded boundary', () => {
    const items = buildAfterItems([
      row('rs', 0, { origin: { kind: 'summary', stage: 'recorded', pass: 1, fromIndex: 0, toIndex: 40, coveredIds: [] } }),
      row('m41', 1, { origin: { kind: 'original', beforeId: 'm41', changed: false } }),
    ])
    expect(labels(items)).toEqual(["|recorded compaction 1: messages 0–40 → the agent's summary|", 'rs', 'm41'])
    expect(items.at(0)).toMatchObject({ type: 'boundary', kind: 'recorded' })
  })

  it('leaves out the range when the recorded compaction folded nothing', () => {
    const items = buildAfterItems([
      row('rs', 0, { origin: { kind: 'summary', stage: 'recorded', pass: 2, fromIndex: 5, toIndex: 4, coveredIds: [] } }),
    ])
    expect(labels(items)).toEqual(["|recorded compaction 2 → the agent's summary|", 'rs'])
  })
})

describe('ColumnItems', () => {
  const boundary = (key: string, before: number) => ({ before, item: { type: 'boundary' as const, key, kind: 'summary' as const, label: key } })
  // Items: 0 |a| 1 |b| 2 m0 3 m1 4 |c| 5 m2 6 |d|
  const items = new ColumnItems([row('m0', 0), row('m1', 1), row('m2', 2)], [boundary('a', 0), boundary('b', 0), boundary('c', 2), boundary('d', 3)])

  it('places each boundary before the row it names, in the order given, and after the last row', () => {
    expect(items.length).toBe(7)
    expect(labels(items)).toEqual(['|a|', '|b|', 'm0', 'm1', '|c|', 'm2', '|d|'])
    expect(items.boundaryPositions).toEqual([0, 1, 4, 6])
    expect(items.at(7)).toBeUndefined()
    expect(items.at(-1)).toBeUndefined()
  })

  it('reads a row or a boundary at a position, and finds a row by id past any boundaries', () => {
    expect(items.rowAt(3)?.id).toBe('m1')
    expect(items.rowAt(4)).toBeUndefined()
    expect(items.boundaryAt(4)?.key).toBe('c')
    expect(items.boundaryAt(3)).toBeUndefined()
    expect([0, 1, 2, 3, 4, 5, 6].map((i) => items.isBoundary(i))).toEqual([true, true, false, false, true, false, true])
    expect(['m0', 'm1', 'm2'].map((id) => items.indexOfRow(id))).toEqual([2, 3, 5])
    expect(items.at(5)).toEqual({ type: 'row', key: 'r-m2', row: row('m2', 2) })
  })

  it('keys sizes by row id, and boundaries by numbers that no row id can equal', () => {
    const keys = [0, 1, 2, 3, 4, 5, 6].map((i) => items.sizeKeyAt(i))
    expect(keys).toEqual([-1, -2, 'm0', 'm1', -3, 'm2', -4])
    // A row whose id reads like a boundary's key still has its own key.
    const tricky = new ColumnItems([row('-1', 0)], [boundary('x', 0)])
    expect(tricky.sizeKeyAt(0)).not.toEqual(tricky.sizeKeyAt(1))
  })

  it('slices items as objects, clamped to the column', () => {
    expect(items.slice(5, 99).map((it) => it.key)).toEqual(['r-m2', 'd'])
    expect(items.slice(-3, 1).map((it) => it.key)).toEqual(['a'])
  })
})

describe('rowLinks', () => {
  const rows = ['a', 'b', 'c'].map((id, i) => ({ ...row(id, i), counterpartIds: [`x${id}`] }))

  it('answers each row’s counterparts by id in any order of lookups, undefined for an unknown id', () => {
    const links = rowLinks(rows)
    expect(links.get('c')).toEqual(['xc'])
    expect(links.get('a')).toEqual(['xa'])
    expect(links.get('b')).toEqual(['xb'])
    expect(links.get('c')).toEqual(['xc'])
    expect(links.get('zz')).toBeUndefined()
    expect(rowLinks([]).get('a')).toBeUndefined()
  })
})

describe('linkAfters', () => {
  it('links rows of two Afters that carry the same Before messages', () => {
    // Recorded After: a summary of m0–m2, then m3 kept. Simulated After: m0 kept, summary of m1–m3.
    const recorded = [
      { ...row('rs', 0), counterpartIds: ['m0', 'm1', 'm2'] },
      { ...row('m3', 1), counterpartIds: ['m3'] },
    ]
    const simulatedBefore = [
      { ...row('m0', 0), counterpartIds: ['m0'] },
      { ...row('m1', 1), counterpartIds: ['s1'] },
      { ...row('m2', 2), counterpartIds: ['s1'] },
      { ...row('m3', 3), counterpartIds: ['s1'] },
    ]
    const links = linkAfters(recorded, simulatedBefore)
    expect(links.get('rs')).toEqual(['m0', 's1'])
    expect(links.get('m3')).toEqual(['s1'])
  })
})

describe('passStops, stepStop and stepRow (the [ ] and j k shortcuts)', () => {
  // Items: 0 |pass 1| 1 m0 2 m1 3 |pass 2| 4 |recorded| 5 m2 6 m3 7 m4
  const rows = [0, 1, 2, 3, 4].map((i) => row(`m${i}`, i))
  const items = buildBeforeItems(rows, [pass(1, 0, 2), pass(2, 2, 4)], [
    { atIndex: 2, trigger: 'auto', summaryText: null, source: 'claude-code' },
  ])

  it('makes one stop per run of boundaries, at the row after it, labels joined', () => {
    expect(passStops(items)).toEqual([
      { boundary: 0, row: 1, label: 'pass 1: messages 0–1 → summary' },
      { boundary: 3, row: 5, label: 'pass 2: messages 2–3 → summary; recorded compaction in source (auto)' },
    ])
  })

  it('finds the stop of a pass by its stage and number (the pass list’s jump), -1 for none', () => {
    const stops = passStops(items)
    expect(stopOfPass(items, stops, { stage: 'summarize', pass: 1 })).toBe(0)
    expect(stopOfPass(items, stops, { stage: 'summarize', pass: 2 })).toBe(1)
    expect(stopOfPass(items, stops, { stage: 'summarize', pass: 3 })).toBe(-1)
    expect(stopOfPass(items, stops, { stage: 'insert-then-compress', pass: 1 })).toBe(-1)
  })

  it('steps to the next stop after the position and the previous one before it', () => {
    const stops = passStops(items)
    expect(stepStop(stops, -1, 1)).toBe(0)
    expect(stepStop(stops, 1, 1)).toBe(1)
    expect(stepStop(stops, 5, 1)).toBe(-1)
    expect(stepStop(stops, 5, -1)).toBe(0)
    expect(stepStop(stops, 6, -1)).toBe(1)
    expect(stepStop(stops, 1, -1)).toBe(-1)
    expect(stepStop(stops, items.length, -1)).toBe(1)
    expect(stepStop([], -1, 1)).toBe(-1)
  })

  it('steps over boundaries to the next or previous row, -1 past either end', () => {
    expect(stepRow(items, -1, 1)).toBe(1)
    expect(stepRow(items, 2, 1)).toBe(5)
    expect(stepRow(items, 5, -1)).toBe(2)
    expect(stepRow(items, 7, 1)).toBe(-1)
    expect(stepRow(items, 1, -1)).toBe(-1)
    expect(stepRow(items, items.length, -1)).toBe(7)
  })

  it('a boundary with no row after it is no stop', () => {
    expect(passStops(new ColumnItems([], [{ before: 0, item: { type: 'boundary', key: 'b', kind: 'summary', label: 'x' } }]))).toEqual([])
    expect(passStops(new ColumnItems([row('m0', 0)], [{ before: 1, item: { type: 'boundary', key: 'b', kind: 'summary', label: 'x' } }]))).toEqual([])
  })
})
