import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import {
  ELIDE_MARKER_RESERVE,
  codePointLength,
  collapseWhitespace,
  cutCodePoints,
  elideMiddle,
  firstLine,
  lastCodePoints,
  nounFor,
  oneLine,
  quoteForMessage,
  QUOTE_LIMIT,
} from './text'

function isWellFormed(s: string): boolean {
  return (s as unknown as { isWellFormed(): boolean }).isWellFormed()
}

/** Well-formed strings mixing ASCII, BMP and astral code points (emoji, CJK ext. B). */
const mixedText = fc
  .array(fc.constantFrom('a', 'Z', ' ', '\n', 'é', '—', '😀', '🔥', '𠀋', 'ß'), { maxLength: 80 })
  .map((chars) => chars.join(''))
const anyText = fc.oneof(mixedText, fc.string({ unit: 'binary', maxLength: 80 }))

describe('codePointLength', () => {
  it('counts code points, not UTF-16 units', () => {
    expect(codePointLength('')).toBe(0)
    expect(codePointLength('abc')).toBe(3)
    expect('😀'.length).toBe(2)
    expect(codePointLength('😀')).toBe(1)
    expect(codePointLength('a😀b🔥')).toBe(4)
  })

  it('counts code points, not graphemes: e + combining acute is 2, precomposed é is 1', () => {
    expect(codePointLength('e\u0301')).toBe(2)
    expect(codePointLength('\u00e9')).toBe(1)
  })

  it('counts each lone surrogate as one code point', () => {
    expect(codePointLength('\ud83d')).toBe(1)
    expect(codePointLength('\ude00')).toBe(1)
    expect(codePointLength('\ud83da')).toBe(2)
    expect(codePointLength('\ud83d\ud83d')).toBe(2)
    expect(codePointLength('\ude00\ud83d')).toBe(2)
  })

  it('agrees with the string iterator on any text, lone surrogates included', () => {
    fc.assert(
      fc.property(anyText, (text) => {
        expect(codePointLength(text)).toBe([...text].length)
      }),
    )
  })

  it('agrees with the string iterator for every string', () => {
    fc.assert(fc.property(anyText, (s) => codePointLength(s) === [...s].length))
  })
})

describe('cutCodePoints', () => {
  it('keeps the first limit code points', () => {
    expect(cutCodePoints('abc', 2)).toBe('ab')
    expect(cutCodePoints('😀😀😀', 2)).toBe('😀😀')
    expect(cutCodePoints('a😀b', 2)).toBe('a😀')
  })

  it('returns the text itself when it is not longer than limit', () => {
    const s = 'ab😀'
    expect(cutCodePoints(s, 3)).toBe(s)
    expect(cutCodePoints(s, 99)).toBe(s)
  })

  it('returns "" for a limit of 0 or less', () => {
    expect(cutCodePoints('abc', 0)).toBe('')
    expect(cutCodePoints('abc', -3)).toBe('')
  })

  it('never splits a surrogate pair (cases/36: the pair at UTF-16 units 159–160)', () => {
    const line = 'x'.repeat(159) + '🔥 build failed'
    expect(cutCodePoints(line, 160)).toBe('x'.repeat(159) + '🔥')
    expect(cutCodePoints(line, 159)).toBe('x'.repeat(159))
    expect(isWellFormed(cutCodePoints(line, 160))).toBe(true)
  })

  it('floors a fractional limit', () => {
    expect(cutCodePoints('abc', 1.5)).toBe('a')
  })

  it('passes lone surrogates through as one code point each', () => {
    expect(cutCodePoints('\ud83dab', 2)).toBe('\ud83da')
  })

  it('property: a well-formed prefix of min(limit, length) code points', () => {
    fc.assert(
      fc.property(mixedText, fc.integer({ min: -2, max: 90 }), (s, limit) => {
        const cut = cutCodePoints(s, limit)
        return (
          s.startsWith(cut) &&
          isWellFormed(cut) &&
          codePointLength(cut) === Math.max(0, Math.min(limit, codePointLength(s)))
        )
      }),
    )
  })
})

describe('lastCodePoints', () => {
  it('keeps the last limit code points, never starting inside a pair', () => {
    expect(lastCodePoints('abc', 2)).toBe('bc')
    expect(lastCodePoints('😀🔥😀', 1)).toBe('😀')
    expect(lastCodePoints('a🔥', 1)).toBe('🔥')
    expect(lastCodePoints('abc', 0)).toBe('')
    expect(lastCodePoints('abc', 5)).toBe('abc')
  })

  it('property: a well-formed suffix of min(limit, length) code points', () => {
    fc.assert(
      fc.property(mixedText, fc.integer({ min: 0, max: 90 }), (s, limit) => {
        const tail = lastCodePoints(s, limit)
        return (
          s.endsWith(tail) &&
          isWellFormed(tail) &&
          codePointLength(tail) === Math.min(limit, codePointLength(s))
        )
      }),
    )
  })
})

describe('firstLine', () => {
  it('is the first line, trimmed', () => {
    expect(firstLine('first\nsecond')).toBe('first')
    expect(firstLine('  padded \t\nsecond')).toBe('padded')
    expect(firstLine('one line only')).toBe('one line only')
  })

  it('splits on \\r\\n, \\n and \\r', () => {
    expect(firstLine('a\r\nb')).toBe('a')
    expect(firstLine('a\rb')).toBe('a')
  })

  it('falls back to the first non-empty line when the first is blank', () => {
    expect(firstLine('\n   \n  third  \nfourth')).toBe('third')
    expect(firstLine('\r\n\r\nx')).toBe('x')
  })

  it('is "" when there is no non-blank line', () => {
    expect(firstLine('')).toBe('')
    expect(firstLine('  \n\t\n ')).toBe('')
  })
})

describe('collapseWhitespace', () => {
  it('trims and collapses every whitespace run to one space', () => {
    expect(collapseWhitespace('  a \n\t b  \r\n c ')).toBe('a b c')
    expect(collapseWhitespace('')).toBe('')
    expect(collapseWhitespace(' \n ')).toBe('')
    expect(collapseWhitespace('already tidy')).toBe('already tidy')
  })
})

describe('elideMiddle', () => {
  it('returns the text itself when it is not longer than limit', () => {
    const s = 'x'.repeat(60)
    expect(elideMiddle(s, 60)).toBe(s)
    expect(elideMiddle(s, 100)).toBe(s)
  })

  it('keeps head and tail around an explicit marker (cases/46)', () => {
    // limit 60 → 60 − 40 = 20 kept: 10 head, 10 tail; 100 − 20 = 80 omitted.
    const s = 'H'.repeat(50) + 'T'.repeat(50)
    expect(elideMiddle(s, 60)).toBe(`${'H'.repeat(10)}\n[... 80 chars omitted ...]\n${'T'.repeat(10)}`)
    // An odd kept count gives the extra code point to the head: 21 → 11 + 10.
    expect(elideMiddle(s, 61)).toBe(`${'H'.repeat(11)}\n[... 79 chars omitted ...]\n${'T'.repeat(10)}`)
  })

  it('counts omitted code points, not UTF-16 units, and never splits a pair', () => {
    const s = '😀'.repeat(100)
    const out = elideMiddle(s, 50)
    expect(out).toBe(`${'😀'.repeat(5)}\n[... 90 chars omitted ...]\n${'😀'.repeat(5)}`)
    expect(isWellFormed(out)).toBe(true)
  })

  it('below the marker reserve there is no room for the marker: a plain cut', () => {
    expect(ELIDE_MARKER_RESERVE).toBe(40)
    expect(elideMiddle('a'.repeat(100), 10)).toBe('a'.repeat(10))
    expect(elideMiddle('a'.repeat(100), 0)).toBe('')
  })

  it('property: unchanged when it fits; otherwise ≤ limit code points, shorter, well-formed', () => {
    const longText = fc
      .array(fc.constantFrom('a', ' ', '\n', 'é', '😀', '𠀋'), { maxLength: 300 })
      .map((chars) => chars.join(''))
    fc.assert(
      fc.property(longText, fc.integer({ min: 0, max: 200 }), (s, limit) => {
        const out = elideMiddle(s, limit)
        const n = codePointLength(s)
        if (n <= limit) return out === s
        return codePointLength(out) <= limit && codePointLength(out) < n && isWellFormed(out)
      }),
    )
  })
})

describe('nounFor', () => {
  it('is singular for a count that rounds to 1 and plural otherwise, the plural given or singular + s', () => {
    expect(nounFor(1, 'step')).toBe('step')
    expect(nounFor(1.4, 'step')).toBe('step')
    expect(nounFor(0, 'step')).toBe('steps')
    expect(nounFor(2, 'step')).toBe('steps')
    expect(nounFor(1, 'compaction pass', 'compaction passes')).toBe('compaction pass')
    expect(nounFor(3, 'compaction pass', 'compaction passes')).toBe('compaction passes')
  })
})

describe('quoteForMessage', () => {
  it('quotes a short string as JSON writes it, line breaks escaped', () => {
    expect(quoteForMessage('user')).toBe('"user"')
    expect(quoteForMessage('')).toBe('""')
    expect(quoteForMessage('a\nb\r"c"')).toBe('"a\\nb\\r\\"c\\""')
  })

  it('escapes the line breaks JSON leaves as they are (NEL, U+2028, U+2029)', () => {
    expect(quoteForMessage('a\u0085b\u2028c\u2029d')).toBe('"a\\u0085b\\u2028c\\u2029d"')
  })

  it('writes any other value as its JSON text, undefined as null', () => {
    expect(quoteForMessage(undefined)).toBe('null')
    expect(quoteForMessage(null)).toBe('null')
    expect(quoteForMessage(3)).toBe('3')
    expect(quoteForMessage({ a: [1, 'x'] })).toBe('{"a":[1,"x"]}')
  })

  it('names a value JSON cannot write by its type', () => {
    expect(quoteForMessage(10n)).toBe('a bigint')
    const cycle: Record<string, unknown> = {}
    cycle.self = cycle
    expect(quoteForMessage(cycle)).toBe('an object')
    expect(quoteForMessage(() => 1)).toBe('a function')
  })

  it('cuts a long string at the limit, with an ellipsis and the whole length in code points', () => {
    const long = 'x'.repeat(900_000)
    expect(quoteForMessage(long)).toBe(`"${'x'.repeat(QUOTE_LIMIT)}…" (900,000 code points)`)
    expect(quoteForMessage('😀'.repeat(QUOTE_LIMIT))).toBe(`"${'😀'.repeat(QUOTE_LIMIT)}"`)
    expect(quoteForMessage('😀'.repeat(QUOTE_LIMIT + 1))).toBe(`"${'😀'.repeat(QUOTE_LIMIT)}…" (${QUOTE_LIMIT + 1} code points)`)
    expect(quoteForMessage('abcdef', 3)).toBe('"abc…" (6 code points)')
  })

  it('cuts a long value\'s JSON text the same way', () => {
    expect(quoteForMessage({ text: 'y'.repeat(20) }, 10)).toBe('{"text":"y… (31 code points of JSON)')
  })

  it('is always one line, and short: at most 6 units per code point kept and the length', () => {
    fc.assert(
      fc.property(fc.oneof(anyText, fc.jsonValue()), fc.integer({ min: 0, max: 120 }), (value, limit) => {
        const q = quoteForMessage(value, limit)
        expect(q).not.toMatch(/[\r\n\u0085\u2028\u2029]/)
        expect(q.length).toBeLessThanOrEqual(6 * limit + 40)
      }),
    )
  })
})

describe('oneLine', () => {
  it('turns each run of line breaks of any kind into one space', () => {
    expect(oneLine('a\nb\r\nc\rd\u0085e\u2028f\u2029g')).toBe('a b c d e f g')
    expect(oneLine('a\n\n\r\nb')).toBe('a b')
  })

  it('leaves a line alone', () => {
    expect(oneLine('  a\tb  ')).toBe('  a\tb  ')
  })

  it('never leaves a line break and never grows', () => {
    fc.assert(
      fc.property(anyText, (text) => {
        const line = oneLine(text)
        expect(line).not.toMatch(/[\r\n\u0085\u2028\u2029]/)
        expect(line.length).toBeLessThanOrEqual(text.length)
      }),
    )
  })
})
