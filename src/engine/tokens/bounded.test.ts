import { readdirSync, readFileSync } from 'node:fs'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { base64Text, chatWithToolOutput, proseText } from '../../../test/hostile'
import { importTranscript } from '../formats/index'
import type { Encoding } from '../model'
import { DEFAULT_PIPELINE, runPipeline } from '../pipeline'
import {
  chunkedRunLength,
  isTokenEstimate,
  loadCounter,
  loadTextCounter,
  messageChunkedRun,
  scanLongRuns,
  textsToCount,
  tokenEstimateNote,
} from './count'

/**
 * The counter is bounded in time on any text: a run (letters/marks, punctuation/symbols or
 * whitespace) longer than 1,000 code units is counted in 512-code-unit chunks and flagged an
 * estimate; every other text counts exactly what gpt-tokenizer counts for it whole.
 */

const encodings: Encoding[] = ['o200k_base', 'cl100k_base']
const libraries = {
  o200k_base: () => import('gpt-tokenizer/encoding/o200k_base'),
  cl100k_base: () => import('gpt-tokenizer/encoding/cl100k_base'),
}
/** gpt-tokenizer itself, special tokens counted as text (as the app counts them). */
async function library(encoding: Encoding): Promise<(text: string) => number> {
  const mod = await libraries[encoding]()
  const options = { disallowedSpecial: new Set<string>() }
  return (text) => mod.countTokens(text, options)
}

const samplesDir = new URL('../../../public/samples/', import.meta.url)
const sampleFiles = readdirSync(samplesDir).filter((f) => f !== 'index.json' && !f.startsWith('.'))

/** `n` code units of unspaced CJK ideographs (U+4E00..), none repeated within 20,000. */
function cjk(n: number): string {
  let s = ''
  for (let i = 0; i < n; i++) s += String.fromCharCode(0x4e00 + ((i * 7919) % 20000))
  return s
}

/** Sum of `count` over the pieces of `text` cut at `cuts`. */
function sumOfPieces(count: (t: string) => number, text: string, cuts: number[]): number {
  let n = 0
  let from = 0
  for (const at of [...cuts, text.length]) {
    n += count(text.slice(from, at))
    from = at
  }
  return n
}

/** Every 512 code units from 512 up to (not at) `length`: where a run from 0 is cut. */
const everyChunk = (length: number) => Array.from({ length: Math.ceil(length / 512) - 1 }, (_, i) => (i + 1) * 512)

describe.each(encodings)('bounded counter (%s)', (encoding) => {
  it('counts every text of every bundled sample exactly, none flagged', async () => {
    const [count, raw] = await Promise.all([loadTextCounter(encoding), library(encoding)])
    expect(sampleFiles.length).toBeGreaterThan(0)
    for (const file of sampleFiles) {
      const r = importTranscript(readFileSync(new URL(file, samplesDir), 'utf8'), { fileName: file })
      if (!r.ok) throw new Error(`${file}: ${r.error.message}`)
      for (const text of textsToCount(r.transcript.messages, r.transcript.tools)) {
        expect({ file, estimate: isTokenEstimate(text) }).toEqual({ file, estimate: false })
        expect({ file, head: text.slice(0, 40), n: count(text) }).toEqual({ file, head: text.slice(0, 40), n: raw(text) })
      }
    }
  })

  it('counts 1 MB of prose and 100k of base64 exactly, neither flagged', async () => {
    const [count, raw] = await Promise.all([loadTextCounter(encoding), library(encoding)])
    const prose = proseText(1 << 20)
    // Digits, '+' and '/' break base64's letter runs every few characters.
    const b64 = base64Text(100_000)
    for (const text of [prose, b64]) {
      expect(isTokenEstimate(text)).toBe(false)
      expect(count(text)).toBe(raw(text))
    }
  })

  it('counts 1 MB of one letter in 512-unit chunks: 2,048 × the count of 512 letters, flagged', async () => {
    const [count, raw] = await Promise.all([loadTextCounter(encoding), library(encoding)])
    const text = 'A'.repeat(1 << 20)
    expect(chunkedRunLength(text)).toBe(1 << 20)
    expect(count(text)).toBe(2048 * raw('A'.repeat(512)))
  })

  it('counts 100k brackets, 100k spaces and 200k unspaced CJK chunk by chunk, flagged', async () => {
    const [count, raw] = await Promise.all([loadTextCounter(encoding), library(encoding)])
    for (const text of ['['.repeat(100_000), ' '.repeat(100_000), cjk(200_000)]) {
      expect(chunkedRunLength(text)).toBe(text.length)
      expect(count(text)).toBe(sumOfPieces(raw, text, everyChunk(text.length)))
    }
  })

  it('never cuts a surrogate pair in two', async () => {
    const [count, raw] = await Promise.all([loadTextCounter(encoding), library(encoding)])
    // 'a' then 1,000 astral ideographs: pairs start at odd offsets, so the cuts at 512, 1,024
    // and 1,536 fall inside pairs and move one unit on.
    const text = 'a' + '\u{20000}'.repeat(1000)
    expect(chunkedRunLength(text)).toBe(2001)
    expect(count(text)).toBe(sumOfPieces(raw, text, [513, 1025, 1537]))
  })

  it('counts texts whose runs all stay within 1,000 units exactly, not flagged (property)', async () => {
    const [count, raw] = await Promise.all([loadTextCounter(encoding), library(encoding)])
    // Runs of one class (≤ 200 units) joined by digits, which belong to no run class.
    const classChars = ['abcXYZ', 'éßλж', '中文字', '\u0301\u0300', '[]{}!?.,;:', ' \t\n', '😀🚀']
    const run = fc
      .tuple(fc.constantFrom(...classChars), fc.integer({ min: 1, max: 100 }), fc.nat())
      .map(([chars, len, seed]) => {
        const cps = [...chars]
        let s = ''
        for (let i = 0; i < len; i++) s += cps[(seed + i * 7) % cps.length]
        return s
      })
    fc.assert(
      fc.property(fc.array(fc.tuple(run, fc.constantFrom('0', '7', '42')), { minLength: 1, maxLength: 60 }), (parts) => {
        const text = parts.map(([r, d]) => r + d).join('')
        expect(isTokenEstimate(text)).toBe(false)
        expect(count(text)).toBe(raw(text))
      }),
      { numRuns: 60 },
    )
  })
})

describe('estimates in a run', () => {
  it('flag the message holding the long run and the totals that sum it, nothing else', async () => {
    const r = importTranscript(chatWithToolOutput('A'.repeat(1_000_000)), { fileName: 'x.json' })
    if (!r.ok) throw new Error(r.error.message)
    const counter = await loadCounter('o200k_base')
    const run = await runPipeline(r.transcript, DEFAULT_PIPELINE, { counter })
    const tool = r.transcript.messages.find((m) => m.role === 'tool')
    expect(tool).toBeDefined()
    expect(messageChunkedRun(tool!)).toBe(1_000_000)
    expect(run.before.estimateById).toEqual({ [tool!.id]: 1_000_000 })
    expect(run.before.totals.estimate).toBe(true)
    // The one tool step is the last, which prune-tool-results keeps (keep_steps 1), and 4 messages
    // are under summarize's compact_after 40: the After holds the same tool message.
    expect(run.after.estimateById).toEqual({ [tool!.id]: 1_000_000 })
  })

  it('leave an ordinary run unflagged', async () => {
    const r = importTranscript(chatWithToolOutput(proseText(20_000)), { fileName: 'x.json' })
    if (!r.ok) throw new Error(r.error.message)
    const run = await runPipeline(r.transcript, DEFAULT_PIPELINE, { counter: await loadCounter('o200k_base') })
    expect(run.before.estimateById).toBeUndefined()
    expect(run.before.totals.estimate).toBeUndefined()
    expect(run.after.totals.estimate).toBeUndefined()
  })

  it('have one wording, naming the run length', () => {
    expect(tokenEstimateNote(1_000_000)).toBe(
      '≈ estimate: this message holds a run of 1,000,000 characters counted in chunks',
    )
    expect(tokenEstimateNote()).toBe('≈ estimate: includes a run of over 1,000 characters counted in chunks')
  })
})

describe('scanLongRuns: only the code points at multiples of 1,000 are looked at', () => {
  /**
   * The definition: every maximal run of letters/marks, punctuation/symbols (marks included) or
   * whitespace, code point by code point, longer than 1,000 code units.
   */
  function everyRun(text: string): [number, number][] {
    const classes = [/[\p{L}\p{M}]/u, /[^\s\p{L}\p{N}]/u, /\s/u]
    const out: [number, number][] = []
    for (const re of classes) {
      let start = -1
      let i = 0
      for (const ch of text) {
        if (re.test(ch)) {
          if (start < 0) start = i
        } else if (start >= 0) {
          if (i - start > 1000) out.push([start, i])
          start = -1
        }
        i += ch.length
      }
      if (start >= 0 && text.length - start > 1000) out.push([start, text.length])
    }
    return out.sort((a, b) => a[0] - b[0] || a[1] - b[1])
  }

  const found = (text: string) => {
    const out: [number, number][] = []
    scanLongRuns(text, (start, end) => out.push([start, end]))
    return out.sort((a, b) => a[0] - b[0] || a[1] - b[1])
  }

  it('finds the same runs as a scan of every code point (property)', () => {
    // Runs of one kind of character with lengths around the bound, joined: letters, marks,
    // punctuation, spaces, digits, astral letters and unpaired surrogate halves.
    const unit = fc.constantFrom('a', 'é', '\u0301', '.', ';', ' ', '\n', '7', '\u{20000}', '\ud800', '\udc00', '😀')
    const run = fc.tuple(unit, fc.integer({ min: 1, max: 1100 })).map(([u, n]) => u.repeat(n))
    fc.assert(
      fc.property(fc.array(run, { maxLength: 8 }), (runs) => {
        const text = runs.join('')
        expect(found(text)).toEqual(everyRun(text))
      }),
      { numRuns: 300 },
    )
  })

  it('a run through several sampled offsets is reported once', () => {
    expect(found(`x ${'a'.repeat(5000)} y`)).toEqual([[2, 5002]])
    // A surrogate pair across a sampled offset: 'a' + 999 × 2-unit ideographs puts one at 999–1000.
    expect(found(`a${'\u{20000}'.repeat(999)}`)).toEqual([[0, 1999]])
  })
})
