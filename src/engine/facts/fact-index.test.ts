import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { createStringSetMatcher, factIndexIn, holdsFact, LONG_PATTERN } from './fact-index'

/** The definition the matcher must agree with. */
const naive = (patterns: readonly string[], text: string) =>
  patterns.flatMap((p, i) => (text.includes(p) ? [i] : []))

describe('createStringSetMatcher with substrings (Aho–Corasick, same answers as includes)', () => {
  it('finds overlapping, nested and suffix-sharing strings once each', () => {
    const patterns = ['he', 'she', 'his', 'hers', 'ORD-58213', '58213', 'ORD-5821']
    const m = createStringSetMatcher(patterns, { substrings: true })
    // "ushers": she, he, hers; "ORD-58213" holds ORD-5821 and 58213 inside it.
    expect(m.find('ushers')).toEqual([0, 1, 3])
    expect(m.find('order ORD-58213, again ORD-58213')).toEqual([4, 5, 6])
    expect(m.find('nothing here')).toEqual([0])
    expect(m.find('no match at all')).toEqual([])
    expect(m.size).toBe(7)
  })

  it('duplicates, the empty string, surrogate pairs and long strings', () => {
    const long = 'x'.repeat(LONG_PATTERN + 1)
    const patterns = ['a-1', 'a-1', '', '😀 ok', long]
    const m = createStringSetMatcher(patterns, { substrings: true })
    expect(m.find('see a-1 😀 ok')).toEqual([0, 1, 2, 3])
    expect(m.find(`${long}!`)).toEqual([2, 4])
  })

  it('a pattern extending an earlier one, and one branching off the middle of another', () => {
    // "abcd" is one chain of nodes; "abx" branches off its second node; "abcde" extends its leaf;
    // "bc" is reached through failure links only.
    const patterns = ['abcd', 'abx', 'abcde', 'bc', 'ab']
    const m = createStringSetMatcher(patterns, { substrings: true })
    expect(m.find('xabcdex')).toEqual([0, 2, 3, 4])
    expect(m.find('abxabc')).toEqual([1, 3, 4])
    expect(m.find('abcabx')).toEqual([1, 3, 4])
    expect(m.find('bcd')).toEqual([3])
  })

  it('agrees with includes on long patterns sharing prefixes (chains and branches)', () => {
    const word = fc.string({ unit: fc.constantFrom('a', 'b', 'c', '/', '.', 'é'), minLength: 1, maxLength: 40 })
    fc.assert(
      fc.property(fc.array(word, { maxLength: 40 }), fc.array(word, { maxLength: 6 }), (stems, texts) => {
        // Each stem and two of its extensions: many patterns continue a leaf or branch mid-chain.
        const patterns = stems.flatMap((s, i) => [s, `${s}${stems[(i + 1) % stems.length] ?? ''}`, s.slice(0, s.length >> 1)])
        const m = createStringSetMatcher(patterns, { substrings: true })
        for (const t of [...texts, patterns.join('-'), texts.join('')]) expect(m.find(t)).toEqual(naive(patterns, t))
      }),
    )
  })

  it('agrees with includes on random strings over a small alphabet', () => {
    const word = fc.string({ unit: fc.constantFrom('a', 'b', 'c', '-', '1'), maxLength: 6 })
    fc.assert(
      fc.property(fc.array(word, { maxLength: 30 }), fc.array(word, { maxLength: 8 }), (patterns, texts) => {
        const m = createStringSetMatcher(patterns, { substrings: true })
        // Several texts through one matcher: the per-call stamps must not leak between calls.
        for (const t of [...texts, texts.join('')]) expect(m.find(t)).toEqual(naive(patterns, t))
      }),
    )
  })
})

describe('whole values: a fact never occurs inside a longer word or number', () => {
  it('holdsFact and factIndexIn', () => {
    // A port inside a larger number, an order number inside a longer one: not there.
    expect(holdsFact('about 33000 requests per hour', '3000')).toBe(false)
    expect(holdsFact('ORD-582134 shipped', 'ORD-58213')).toBe(false)
    // Punctuation, paths and line ends around a value do not hide it.
    expect(holdsFact('admin port 3000, ticket OPS-3321.', '3000')).toBe(true)
    expect(holdsFact('see src/quote/rates.py:92', 'rates.py')).toBe(true)
    expect(holdsFact('README.md,', 'README.md')).toBe(true)
    // A fact that ends in punctuation may be followed by anything; letters of any script count.
    expect(holdsFact('$18.40x', '$18.40')).toBe(false)
    expect(holdsFact('Straße 10115ß', '10115')).toBe(false)
    expect(holdsFact('PLZ 10115 Berlin', '10115')).toBe(true)
    expect(factIndexIn('3000 33000 3000', '3000', 1)).toBe(11)
  })

  it('the matcher agrees with holdsFact on numbers inside numbers (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.stringMatching(/^[0-9a]{1,4}$/), { minLength: 1, maxLength: 6 }), fc.stringMatching(/^[0-9a ,.]{0,40}$/), (patterns, text) => {
        const m = createStringSetMatcher(patterns)
        expect(m.find(text)).toEqual(patterns.flatMap((p, i) => (holdsFact(text, p) ? [i] : [])))
      }),
    )
  })
})
