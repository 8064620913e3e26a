import fc from 'fast-check'
import { Tiktoken } from 'js-tiktoken/lite'
import cl100k_base from 'js-tiktoken/ranks/cl100k_base'
import o200k_base from 'js-tiktoken/ranks/o200k_base'
import { describe, expect, it } from 'vitest'
import type { Encoding } from '../model'
import { cacheCounter, loadTextCounter, segmentEnds } from './count'

/**
 * Counting a long text by segments (`segmentEnds`) must give the tokenizer's count of the whole
 * text, exactly: checked against js-tiktoken (the reference, SPEC §2) on texts built from the
 * characters the o200k and cl100k split patterns treat apart at a cut — semicolons, line feeds,
 * carriage returns, spaces, tabs, no-break spaces, slashes, apostrophes and contractions, digits,
 * combining marks, CJK, emoji — and on runs long enough for the bounded counter's cuts.
 */

const reference: Record<Encoding, Tiktoken> = {
  o200k_base: new Tiktoken(o200k_base),
  cl100k_base: new Tiktoken(cl100k_base),
}
const referenceCount = (encoding: Encoding, text: string) => reference[encoding].encode(text, [], []).length

const pieces = [
  'a', 'Z', 'x', '7', '42', ';', ';;', '\n', '\n\n', '\r\n', '\r', ' ', '  ', '\t', '\u00a0', '/', '//', '.', ',',
  ')', "'", "'s", "'LL", 'é', 'e\u0301', '\u0301', '字', '😀', '𝐀', '_', '-', 'word', 'Path', '<|endoftext|>',
]
const text = fc.array(fc.constantFrom(...pieces), { maxLength: 80 }).map((p) => p.join(''))

describe.each(['o200k_base', 'cl100k_base'] as const)('counting by segments (%s)', (encoding) => {
  it('the segments of any text add up to its count', async () => {
    const raw = await loadTextCounter(encoding)
    fc.assert(
      fc.property(text, (t) => {
        let from = 0
        let sum = 0
        for (const end of [...segmentEnds(t), t.length]) {
          sum += raw(t.slice(from, end))
          from = end
        }
        expect(sum).toBe(referenceCount(encoding, t))
      }),
      { numRuns: 400 },
    )
  })

  it('a long text counted by countComposed equals the reference, its segments cached apart', async () => {
    const counter = cacheCounter(encoding, await loadTextCounter(encoding))
    const facts = Array.from({ length: 60 }, (_, i) => `/home/dev/src/app/module_${i}/file_${i * 7}.ts`)
    const first = `Summary\nFacts: ${facts.slice(0, 50).join('; ')}\nGoal: ship it`
    const second = `Summary\nFacts: ${facts.join('; ')}\nGoal: ship it`
    expect(first.length).toBeGreaterThanOrEqual(1024)
    expect(counter.countComposed?.(first)).toBe(referenceCount(encoding, first))
    const calls = counter.tokenizerCalls
    expect(counter.countComposed?.(second)).toBe(referenceCount(encoding, second))
    // The second summary repeats 50 facts and two lines: only the segments of the ten new facts
    // and the new end of the Facts line are tokenized.
    expect(counter.tokenizerCalls - calls).toBe(11)
  })

  it('long runs: the bounded counter cuts them at the same places whole or by segments', async () => {
    const raw = await loadTextCounter(encoding)
    const counter = cacheCounter(encoding, raw)
    const t = `${'a'.repeat(1500)};${'-'.repeat(1200)}\n${'b'.repeat(3000)}; ${' '.repeat(1100)}x\ny`
    expect(segmentEnds(t)).toEqual([1500, 2702, 5702, 6806])
    expect(counter.countComposed?.(t)).toBe(raw(t))
  })
})

describe('segmentEnds', () => {
  it('cuts before a semicolon after a letter or number, and after a line feed before a non-space', () => {
    expect(segmentEnds('a;b')).toEqual([1])
    expect(segmentEnds('7; x')).toEqual([1])
    // After punctuation, a space, a mark or at the start: no cut (`);` is one pre-token).
    expect(segmentEnds(');x')).toEqual([])
    expect(segmentEnds(' ;x')).toEqual([])
    expect(segmentEnds('e\u0301;x')).toEqual([])
    expect(segmentEnds(';x')).toEqual([])
    // An astral letter before the semicolon.
    expect(segmentEnds('𝐀;')).toEqual([2])
    expect(segmentEnds('a\nb')).toEqual([2])
    // A line feed before whitespace, a slash, another line feed, or at the end: no cut.
    expect(segmentEnds('a\n b')).toEqual([])
    expect(segmentEnds('a\n/b')).toEqual([])
    expect(segmentEnds('a\n\nb')).toEqual([3])
    expect(segmentEnds('a\n')).toEqual([])
    // A semicolon at the start of a line: the line feed's cut only.
    expect(segmentEnds('a\n;b')).toEqual([2])
  })
})
