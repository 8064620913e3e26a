import { describe, expect, it } from 'vitest'
import { checkValidity } from '../analysis/checks'
import type { Message } from '../model'
import { DEFAULT_SLIM_KEEP, SLIM_ERROR_NOTE, dropRepeatedRows, slim, slimError, slimJsonList } from './slim'
import { assistant, countCodePoints, deepFreeze, indexed, makeContext, toolResult, user } from './test-helpers'

const ctx = makeContext(countCodePoints)
const items = (n: number) => Array.from({ length: n }, (_, i) => ({ id: i + 1 }))

describe('slim (seed 004)', () => {
  it('a bare JSON list keeps total and the first keep items', () => {
    expect(DEFAULT_SLIM_KEEP).toBe(5)
    expect(slimJsonList(JSON.stringify(items(8)), 5)).toBe(
      '{"total":8,"items":[{"id":1},{"id":2},{"id":3},{"id":4},{"id":5}]}',
    )
  })

  it('an object list keeps its total, first items under the same key and the cursor; other fields go', () => {
    const page = { results: items(7), total: 120, next_cursor: 'c2', debug: 'x'.repeat(50) }
    expect(slimJsonList(JSON.stringify(page), 2)).toBe(
      '{"total":120,"results":[{"id":1},{"id":2}],"next_cursor":"c2"}',
    )
  })

  it('repeated items are dropped before the first keep are taken; short lists are left alone', () => {
    const list = [{ id: 1 }, { id: 1 }, { id: 2 }]
    expect(slimJsonList(JSON.stringify(list), 5)).toBe('{"total":3,"items":[{"id":1},{"id":2}]}')
    expect(slimJsonList(JSON.stringify(items(3)), 5)).toBeUndefined()
    expect(slimJsonList('not json', 5)).toBeUndefined()
  })

  it('an error keeps its status and first line', () => {
    const trace = 'Traceback (most recent call last):\n  File "a.py", line 3\nValueError: bad\nexit code 1'
    expect(slimError(trace, false)).toBe(
      `exit code 1 — Traceback (most recent call last):\n${SLIM_ERROR_NOTE}`,
    )
    expect(slimError('HTTP 404 Not Found\n<html>…</html>', true)).toBe(
      `HTTP 404 Not Found\n${SLIM_ERROR_NOTE}`,
    )
    expect(slimError('all good\nsecond line', false)).toBeUndefined()
  })

  it('repeated rows are dropped and counted; short lines (braces, blanks) never count', () => {
    const row = 'carrier,ups,ground,94107'
    expect(dropRepeatedRows(`${row}\n}\n}\n${row}\n${row}`)).toBe(
      `${row}\n}\n}\n[slim: 2 repeated row(s) dropped]`,
    )
    expect(dropRepeatedRows('a\nb')).toBeUndefined()
  })

  it('rewrites tool results only, keeps pairs, ids and flags; never mutates; fate slimmed', () => {
    const input = deepFreeze(
      indexed([
        user('u', 'list orders'),
        assistant('a', null, [{ id: 'c1', name: 'list', arguments: '{}' }]),
        toolResult('t', 'c1', JSON.stringify({ items: items(9), next: 'p2' }), 'list'),
        assistant('b', 'There are 9 orders.'),
      ]),
    )
    const out = slim(input, {}, ctx)
    expect(out.changed).toBe(true)
    expect(out.messages.map((m) => m.id)).toEqual(['u', 'a', 't', 'b'])
    const t = out.messages[2] as Message
    expect(t.toolCallId).toBe('c1')
    expect(t.content).toBe(
      '{"total":9,"items":[{"id":1},{"id":2},{"id":3},{"id":4},{"id":5}],"next":"p2"}',
    )
    expect(out.messages[0]).toBe(input[0])
    expect(out.fates).toEqual({ t: { kind: 'slimmed', stage: 'slim' } })
    expect(out.origins).toEqual({ t: { kind: 'original', beforeId: 't', changed: true } })
    expect(checkValidity(out.messages)).toEqual([])
  })

  it('never grows a message: a rewrite that is not smaller is not applied', () => {
    // Two items, one repeated: the slimmed form (with "total") is longer than the compact input.
    const input = indexed([
      assistant('a', null, [{ id: 'c1', name: 'list', arguments: '{}' }]),
      toolResult('t', 'c1', '[1,1]', 'list'),
    ])
    const out = slim(input, {}, ctx)
    expect(out.changed).toBe(false)
    expect(out.messages).toBe(input)
  })
})
