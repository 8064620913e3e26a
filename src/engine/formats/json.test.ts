import { describe, expect, it } from 'vitest'
import { lineColumnAt, locateJsonError, looksLikeJsonl, parseJson, parseJsonl } from './json'

describe('parseJson', () => {
  it('places an error JSON.parse gives no position for (an unexpected token) by scanning', () => {
    // `x` is the 15th character of `{"messages": [x]}` on line 2.
    const r = parseJson('\n{"messages": [x]}')
    expect(r).toMatchObject({ ok: false, line: 2, column: 15 })
  })

  it('places a truncated document at its end', () => {
    expect(parseJson('{"a": [1,\n2')).toMatchObject({ ok: false, line: 2, column: 2 })
  })

  it('drops the input snippet newer engines quote from the reason', () => {
    const r = parseJson('{"secret": nope}')
    expect(r.ok).toBe(false)
    if (!r.ok) expect(r.reason).not.toContain('secret')
    // V8 shortens long snippets with a leading "...": that form is dropped too.
    const long = parseJson(
      `{"messages": [\n  {"role": "user", "content": "${'x'.repeat(50)}"},\n  oops\n]}`,
    )
    expect(long.ok).toBe(false)
    if (!long.ok) {
      expect(long.reason).not.toContain('\n')
      expect(long.reason).not.toContain('oops')
      expect(long).toMatchObject({ line: 3, column: 3 })
    }
  })
})

describe('locateJsonError', () => {
  it.each([
    ['{"a": x}', 6],
    ['{"a":1,}', 7],
    ['[1,2', 4],
    ['{"a" 1}', 5],
    ['"abc', 4],
    ['[01]', 2],
    ['{"a":1} x', 8],
    ['[1,,2]', 3],
    ['{"a":"\u0001"}', 6],
    ['  ', 2],
  ])('%j fails at offset %i', (text, offset) => {
    expect(locateJsonError(text)).toBe(offset)
  })

  it('finds nothing wrong in valid JSON', () => {
    expect(
      locateJsonError('[1e5, -0.5E-3, true, null, {"x": [ ], "\\u00e9\\n": "\u2028"}]'),
    ).toBeUndefined()
  })
})

describe('lineColumnAt', () => {
  it('counts CRLF lines like LF lines', () => {
    expect(lineColumnAt('ab\r\ncd', 4)).toEqual({ line: 2, column: 1 })
    expect(lineColumnAt('ab\ncd', 3)).toEqual({ line: 2, column: 1 })
  })
})

describe('parseJsonl', () => {
  it('numbers lines from 1 counting blank lines, and skips blanks silently', () => {
    const r = parseJsonl('{"a":1}\n\n  \n{"b":2}\n')
    expect(r.records.map((x) => x.line)).toEqual([1, 4])
    expect(r.lines).toBe(2)
    expect(r.bad).toEqual([])
  })
})

describe('looksLikeJsonl', () => {
  it('tells JSONL from pretty-printed or single-line JSON', () => {
    expect(looksLikeJsonl('{"a":1}\n{"b":')).toBe(true)
    expect(looksLikeJsonl('{\n  "a": [\n    {},\n  ]\n}')).toBe(false)
    expect(looksLikeJsonl('{"a": 1,}')).toBe(false)
  })
})
