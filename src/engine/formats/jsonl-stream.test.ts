import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { parseJsonl } from './json'
import { createJsonlParser, toJsonlParse, utf8Length } from './jsonl-stream'

/** Feeds `text` in chunks of `size` UTF-16 units (so pairs and lines are split anywhere). */
function parseInChunks(text: string, size: number) {
  const p = createJsonlParser()
  for (let i = 0; i < text.length; i += size) p.push(text.slice(i, i + size))
  return p.end()
}

const SAMPLE = readFileSync(
  new URL('../../../public/samples/claude-code.jsonl', import.meta.url),
  'utf8',
)

describe('createJsonlParser', () => {
  it('gives the same records as parseJsonl for every chunk size, split mid-line', () => {
    const whole = parseJsonl(SAMPLE)
    for (const size of [1, 7, 64, 4096, SAMPLE.length]) {
      const r = parseInChunks(SAMPLE, size)
      expect(toJsonlParse(r)).toEqual(whole)
      expect(r.bytes).toBe(Buffer.byteLength(SAMPLE, 'utf8'))
    }
  })

  it('rejoins a surrogate pair split between two string chunks', () => {
    const text = '{"t":"a😀b"}\n'
    const cut = text.indexOf('😀') + 1 // between the high and the low surrogate
    const p = createJsonlParser()
    p.push(text.slice(0, cut))
    p.push(text.slice(cut))
    const r = p.end()
    expect(r.records).toEqual([{ line: 1, value: { t: 'a😀b' } }])
    // a (1) + emoji (4) + b (1) + the JSON around them ({"t":""} = 8) + newline (1)
    expect(r.bytes).toBe(15)
  })

  it('decodes bytes split in the middle of a UTF-8 sequence', () => {
    const bytes = new TextEncoder().encode('{"t":"Größe 日本"}\n{"n":2}\n')
    const p = createJsonlParser()
    for (let i = 0; i < bytes.length; i++) p.push(bytes.subarray(i, i + 1))
    const r = p.end()
    expect(r.records.map((x) => x.value)).toEqual([{ t: 'Größe 日本' }, { n: 2 }])
    expect(r.bytes).toBe(bytes.length)
    expect(r.warnings).toEqual([])
  })

  it('reports byte progress at line ends from the bytes themselves', () => {
    const first = new TextEncoder().encode('{"t":"日本"}\n') // {"t":""} (8) + 日本 (2 × 3) + newline (1) = 15 bytes
    const p = createJsonlParser()
    p.push(first.subarray(0, 7)) // ends inside 日
    expect(p.progress()).toEqual({ bytes: 0, records: 0 })
    p.push(first.subarray(7))
    expect(p.progress()).toEqual({ bytes: 15, records: 1 })
    p.push(new TextEncoder().encode('{"n":1}'))
    expect(p.progress()).toEqual({ bytes: 15, records: 1 })
    expect(p.end()).toMatchObject({ bytes: 22, lines: 2 })
  })

  it('skips a BOM given as text or as bytes', () => {
    expect(parseInChunks('\ufeff{"a":1}\n', 3).records).toEqual([{ line: 1, value: { a: 1 } }])
    const p = createJsonlParser()
    p.push(new Uint8Array([0xef, 0xbb]))
    p.push(new Uint8Array([0xbf, 0x7b, 0x7d, 0x0a])) // rest of the BOM, then {}\n
    const r = p.end()
    expect(r.records).toEqual([{ line: 1, value: {} }])
    expect(r.bytes).toBe(3)
  })

  it('accepts CRLF line ends and keeps blank lines out of the count', () => {
    const r = parseInChunks('{"a":1}\r\n\r\n{"a":2}\r\n', 5)
    expect(r.records).toEqual([
      { line: 1, value: { a: 1 } },
      { line: 3, value: { a: 2 } },
    ])
    expect(r.lines).toBe(2)
  })

  it('keeps raw U+2028 and U+2029 inside a line (they are not line ends)', () => {
    const r = parseInChunks('{"t":"a\u2028b\u2029c"}\n{"t":"d"}\n', 4)
    expect(r.records.map((x) => x.value.t)).toEqual(['a\u2028b\u2029c', 'd'])
    expect(r.records.map((x) => x.line)).toEqual([1, 2])
  })

  it('parses lone surrogate escapes as the lone code unit', () => {
    const r = parseInChunks('{"t":"cut \\ud83d"}\n', 2)
    expect(r.records[0]?.value.t).toBe('cut \ud83d')
    expect(r.warnings).toEqual([])
  })

  it('warns about a half-written last line without failing, and about bad lines by number', () => {
    const r = parseInChunks('{"a":1}\n{"a": oops}\n[1]\n{"a":2}\n{"parentUuid":null,"ty', 6)
    expect(r.records.map((x) => x.value)).toEqual([{ a: 1 }, { a: 2 }])
    expect(r.warnings).toHaveLength(3)
    expect(r.warnings[0]).toMatch(/^line 2: invalid JSON \(.+\), skipped$/)
    expect(r.warnings[1]).toBe('line 3: not a JSON object, skipped')
    expect(r.warnings[2]).toMatch(/^line 5: half-written last line \(.+\), skipped$/)
  })

  it('accepts a complete last line without a final newline', () => {
    const r = parseInChunks('{"a":1}\n{"a":2}', 3)
    expect(r.records.map((x) => x.value)).toEqual([{ a: 1 }, { a: 2 }])
    expect(r.warnings).toEqual([])
  })

  it('parses a line of several megabytes pushed in small chunks, reporting progress per line', () => {
    const data = 'A'.repeat(3 * 1024 * 1024)
    const big = JSON.stringify({ type: 'user', image: { data } })
    const text = `{"n":1}\n${big}\n{"n":3}\n`
    const p = createJsonlParser()
    const seen: { bytes: number; records: number }[] = []
    for (let i = 0; i < text.length; i += 65536) {
      p.push(text.slice(i, i + 65536))
      seen.push(p.progress())
    }
    const r = p.end()
    expect(r.records).toHaveLength(3)
    expect((r.records[1]?.value.image as { data: string }).data.length).toBe(data.length)
    // Progress only moves at line ends: first the 8 bytes of line 1, then all of it.
    expect(seen[0]).toEqual({ bytes: 8, records: 1 })
    expect(seen[seen.length - 1]).toEqual({ bytes: text.length, records: 3 })
    for (let i = 1; i < seen.length; i++)
      expect(seen[i]!.bytes).toBeGreaterThanOrEqual(seen[i - 1]!.bytes)
  })

  it('deletes dropKeys from each record as its line is parsed: own top-level keys only', () => {
    const p = createJsonlParser({ dropKeys: ['toolUseResult', 'toString'] })
    p.push('{"a":1,"toolUseResult":{"stdout":"big"},"b":{"toolUseResult":2}}\n{"c":')
    // Already gone while the rest of the file still streams in, not only at end().
    expect(p.recordsSoFar().map((r) => r.value)).toEqual([{ a: 1, b: { toolUseResult: 2 } }])
    p.push('3}\n')
    const r = p.end()
    expect(r.records).toEqual([
      { line: 1, value: { a: 1, b: { toolUseResult: 2 } } },
      { line: 2, value: { c: 3 } },
    ])
    expect(r.warnings).toEqual([])
  })

  it('counts UTF-8 bytes: pairs 4, lone surrogates 3 (as U+FFFD)', () => {
    expect(utf8Length('aé日😀')).toBe(1 + 2 + 3 + 4)
    expect(utf8Length('\ud83d')).toBe(3)
    expect(utf8Length('\udc00x')).toBe(4)
  })
})
