/**
 * `compact --json` at scale: the text is written in chunks equal to the one-string output, a
 * loss replaced by a summary names it by `summaryId` (its text lives once, in `passes`), and the
 * output grows in proportion to the input.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { factDenseChat } from '../../test/hostile'
import { jsonPieces, MappedArray, writeJson } from './json-stream'
import { main } from './main'

const dir = mkdtempSync(join(tmpdir(), 'ci-json-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

/** `compact --json` of `text` with `flags`: stdout as written (chunks joined as given) and the exit code. */
async function compactJsonOf(text: string, flags: string[] = []) {
  const file = join(dir, `chat-${text.length}.json`)
  writeFileSync(file, text)
  const chunks: string[] = []
  const code = await main(['compact', file, '--json', ...flags], (s) => chunks.push(s), () => {})
  return { code, chunks, stdout: chunks.join('') }
}

/** How many times `needle` occurs in `hay` (non-overlapping). */
function occurrences(hay: string, needle: string): number {
  let n = 0
  for (let at = hay.indexOf(needle); at >= 0; at = hay.indexOf(needle, at + needle.length)) n++
  return n
}

describe('jsonPieces and writeJson', () => {
  const values: unknown[] = [
    null,
    0,
    'a "quoted"\nline',
    [],
    {},
    [1, undefined, () => 1, 'x'],
    { a: undefined, b: [], c: {}, d: [{ e: [[1, [2, [3, [4, { f: 'deep' }]]]]] }], g: new Date(0), h: { toJSON: () => 'j' } },
    { rows: Array.from({ length: 50 }, (_, i) => ({ i, s: `row ${i}`, nested: { list: [i, i + 1] } })) },
  ]

  it('the pieces concatenate to JSON.stringify(value, null, 2), character for character', () => {
    for (const v of values) expect([...jsonPieces(v)].join('')).toBe(JSON.stringify(v, null, 2))
  })

  it('a MappedArray is written as the array of its mapped elements, each made once and only when written', () => {
    const source = [{ n: 1 }, { n: 2 }, { n: 3 }]
    const made: number[] = []
    const value = { before: 'x', rows: new MappedArray(source, (r) => (made.push(r.n), { ...r, twice: r.n * 2 })), empty: new MappedArray([], (r) => r) }
    const pieces = jsonPieces(value)
    // Nothing is mapped until the writer reaches the rows.
    expect(pieces.next().value).toBe('{\n  "before": ')
    expect(made).toEqual([])
    const text = [...pieces].join('')
    expect(made).toEqual([1, 2, 3])
    const expected = { before: 'x', rows: [{ n: 1, twice: 2 }, { n: 2, twice: 4 }, { n: 3, twice: 6 }], empty: [] }
    expect('{\n  "before": ' + text).toBe(JSON.stringify(expected, null, 2))
    // JSON.stringify of it (below the walked depth) is the same array.
    expect(JSON.stringify([[[[value]]]])).toBe(JSON.stringify([[[[expected]]]]))
  })

  it('writeJson waits for the output to drain after a write it refused, and writes nothing meanwhile', async () => {
    const big = { rows: Array.from({ length: 40_000 }, (_, i) => ({ id: `m${i}`, text: 'x'.repeat(40) })) }
    const chunks: string[] = []
    let waiting = false
    let waits = 0
    await writeJson(
      big,
      (s) => {
        expect(waiting).toBe(false)
        chunks.push(s)
        // A full buffer after every write.
        return false
      },
      async () => {
        waiting = true
        waits++
        await new Promise((r) => setTimeout(r, 1))
        waiting = false
      },
    )
    expect(chunks.length).toBeGreaterThan(1)
    // One wait after each chunk but the last.
    expect(waits).toBe(chunks.length - 1)
    expect(chunks.join('')).toBe(JSON.stringify(big, null, 2))
  })

  it('writeJson writes chunks that end at a line feed (all but the last) and join to the same text', async () => {
    const big = { rows: Array.from({ length: 40_000 }, (_, i) => ({ id: `m${i}`, text: 'x'.repeat(40) })) }
    const chunks: string[] = []
    await writeJson(big, (s) => {
      chunks.push(s)
    })
    expect(chunks.length).toBeGreaterThan(1)
    for (const c of chunks.slice(0, -1)) expect(c.endsWith('\n')).toBe(true)
    expect(chunks.join('')).toBe(JSON.stringify(big, null, 2))
  })
})

describe('compact --json on a fact-dense chat', () => {
  // keep_last 2, compact_after 3: a pass every turn, so almost every fact is lost to a summary.
  const flags = ['--keep-last', '2', '--compact-after', '3']

  it('a loss replaced by a summary names it by summaryId, whose pass holds the text', async () => {
    const { code, stdout } = await compactJsonOf(factDenseChat(200), flags)
    expect(code).toBe(0)
    const out = JSON.parse(stdout)
    const summaries = new Map<string, string>(out.passes.map((p: { summaryId: string; summary: string }) => [p.summaryId, p.summary]))
    let losses = 0
    for (const row of out.facts.rows) {
      for (const e of [...(row.verdict.events ?? []), ...(row.verdict.lost ? [row.verdict.lost] : [])]) {
        if (e.replacedBy.kind !== 'summary') continue
        losses++
        expect(e.replacedBy).not.toHaveProperty('text')
        expect(summaries.has(e.replacedBy.summaryId)).toBe(true)
      }
    }
    expect(losses).toBeGreaterThan(0)
  })

  it("each pass's summary text is written at most twice: as its pass's summary and in the next pass's prompt (or the After)", async () => {
    const { stdout } = await compactJsonOf(factDenseChat(120), flags)
    const out = JSON.parse(stdout)
    expect(out.passes.length).toBeGreaterThan(10)
    for (const p of out.passes as { summary: string }[]) {
      // As JSON writes it (escaped), so the count is of the text in the output file.
      const written = JSON.stringify(p.summary).slice(1, -1)
      expect(occurrences(stdout, written)).toBeLessThanOrEqual(2)
    }
  })

  it('doubling the input at most doubles the output, plus 10%', async () => {
    const small = factDenseChat(300)
    const large = factDenseChat(600)
    const a = (await compactJsonOf(small, flags)).stdout.length
    const b = (await compactJsonOf(large, flags)).stdout.length
    expect(b / a).toBeLessThanOrEqual(1.1 * (large.length / small.length))
  })
})
