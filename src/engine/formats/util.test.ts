import { describe, expect, it } from 'vitest'
import { rejoinMissingParents } from './util'

const node = (id: string, parentId: string | null, line: number) => ({ id, parentId, line })

describe('rejoinMissingParents', () => {
  it('keeps parents that are in the file, so a real branch stays a branch', () => {
    const records = [node('a', null, 1), node('b', 'a', 2), node('c', 'a', 3)]
    const r = rejoinMissingParents(records, 'parentId', [1, 2, 3])
    expect(r.parents.map((p) => p?.id ?? null)).toEqual([null, 'a', 'a'])
    expect(r.warnings).toEqual([])
  })

  it('joins a record whose parent is lost to the record before it, naming the unread lines once', () => {
    // Lines 3 and 4 did not parse (x and y were on them); z and w both named x.
    const records = [node('a', null, 1), node('b', 'a', 2), node('z', 'x', 5), node('w', 'x', 6)]
    const r = rejoinMissingParents(records, 'parentUuid', [1, 2, 5, 6])
    // w is z's sibling: both were children of the lost x.
    expect(r.parents.map((p) => p?.id ?? null)).toEqual([null, 'a', 'b', 'b'])
    expect(r.warnings).toEqual([
      'line 5: parentUuid "x" is not in the file; the chain is rejoined across lines 3–4 (not read) ' +
        'to line 2, the record before it in file order',
    ])
  })

  it('says a parent was never written when no line is missing before the record', () => {
    const r = rejoinMissingParents([node('a', null, 1), node('b', 'gone', 2)], 'parentId', [1, 2])
    expect(r.parents.map((p) => p?.id ?? null)).toEqual([null, 'a'])
    expect(r.warnings).toEqual([
      'line 2: parentId "gone" is not in the file (a record never written); joined to line 1, the record before it in file order',
    ])
  })

  it('makes a root of a record whose parent is lost before any record', () => {
    const r = rejoinMissingParents([node('b', 'a', 3)], 'parentId', [1, 3])
    expect(r.parents).toEqual([null])
    expect(r.warnings).toEqual([
      'line 3: parentId "a" is not in the file; line 2 before it was not read and no record precedes it: it starts the chain',
    ])
  })
})
