import { describe, expect, it } from 'vitest'
import { lineColumnAt, locateJsonError, looksLikeJsonl, parseJson, parseJsonl } from './json'

describe('parseJson', () => {
  it('places an error JSON.parse gives no position for (an unexpected token) by scanning', () => {
    // `x` is the 15th character of `{"messages": [x]}` on line 2.
    const r = parseJson('\n{"messages": [x]}')
    expect(r).toMatchObject({ ok: false, line: 2, column: 15 })
  })

  it('places a truncated document just after its last character, marked truncated', () => {
    expect(parseJson('{"a": [1,\n2')).toMatchObject({ ok: false, line: 2, column: 2, truncated: true })
    // Trailing whitespace and newlines do not move it past the last real line.
    expect(parseJson('{"a": [1,\n2\n\n  ')).toMatchObject({ line: 2, column: 2, truncated: true })
    // V8 gives no position for these: the end of the text is still the place.
    expect(parseJson('[1, 2,\n')).toMatchObject({ line: 1, column: 7, truncated: true })
    expect(parseJson('{"a": tru')).toMatchObject({ line: 1, column: 10, truncated: true })
  })

  it('does not call an error before the end truncated', () => {
    const r = parseJson('{"a": 1} x\n')
    expect(r).toMatchObject({ ok: false, line: 1, column: 10 })
    expect(r).not.toHaveProperty('truncated')
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
    ['[tru', 4],
    ['[nul]', 1],
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

describe('parseJsonl bad lines', () => {
  it('skips a half-written last line (no final newline) with a warning naming it', () => {
    expect(parseJsonl('{"a":1}\n{"b": "hal').bad).toEqual([
      'line 2: half-written last line (it ends unexpectedly; the session may still be being written), skipped',
    ])
  })

  it('says after which column a line cut short in the middle ends', () => {
    // `{"a": [1` is 8 characters long.
    expect(parseJsonl('{"a":1}\n{"a": [1\n{"b":2}\n').bad).toEqual([
      'line 2: invalid JSON (the line ends unexpectedly after column 8), skipped',
    ])
  })

  it('keeps the exact column of any other error, also on the last line', () => {
    const bad = parseJsonl('{"a":1}\n{"a": x}').bad
    expect(bad).toHaveLength(1)
    // `x` is the 7th character.
    expect(bad[0]).toMatch(/^line 2: invalid JSON \(.+ at column 7\), skipped$/)
  })
})

describe('looksLikeJsonl', () => {
  it('tells JSONL from pretty-printed or single-line JSON', () => {
    expect(looksLikeJsonl('{"a":1}\n{"b":')).toBe(true)
    expect(looksLikeJsonl('{\n  "a": [\n    {},\n  ]\n}')).toBe(false)
    expect(looksLikeJsonl('{"a": 1,}')).toBe(false)
  })
})
