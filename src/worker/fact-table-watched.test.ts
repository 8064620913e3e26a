/**
 * The facts table with the user's watched facts ("watch this"): tracked like the facts found,
 * first, each with its verdict; the importance of every row crosses to the page; another
 * watched list is another table, never a relabelled one.
 */
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { createEngineApi } from './engine-api'
import type { FactTableView } from './protocol'

const read = (file: string) => readFileSync(`public/samples/${file}`, 'utf8')

describe('getFactTable with watched facts', () => {
  it('puts each watched fact first with a verdict, and re-makes the table when the list changes', async () => {
    const api = createEngineApi()
    const imported = api.importText(read('claude-code.jsonl'), 'claude-code.jsonl')
    if (!imported.ok) throw new Error(imported.error.message)
    const run = await api.run(api.getDefaults(), 1)
    if (!run.ok) throw new Error(run.error)
    const tableOf = (out: Awaited<ReturnType<typeof api.getFactTable>>): FactTableView => {
      if (!out.ok || !('table' in out)) throw new Error('expected a table')
      return out.table
    }
    const plain = tableOf(await api.getFactTable(1))
    // "94107" is in the sample's first user message (a bare number: no pattern takes it alone).
    const watched = tableOf((await api.getFactTable(1, plain.version, ['94107', 'NOT-IN-THE-SAMPLE'])))
    expect(watched.version).not.toBe(plain.version)
    expect(watched.rows.slice(0, 2).map((r) => [r.fact, r.kind, r.origin, r.importance, r.verdict])).toEqual([
      ['94107', 'watched', 'user', 'watched', 'survives'],
      ['NOT-IN-THE-SAMPLE', 'watched', 'user', 'watched', 'never-present'],
    ])
    expect(watched.rows.slice(2).map((r) => r.fact)).toEqual(plain.rows.map((r) => r.fact))
    // The same list again changes nothing; an empty list is the plain table's rows again.
    expect(await api.getFactTable(1, watched.version, ['94107', 'NOT-IN-THE-SAMPLE'])).toMatchObject({ ok: true, unchanged: true })
    expect(tableOf((await api.getFactTable(1, watched.version, []))).rows.map((r) => r.fact)).toEqual(plain.rows.map((r) => r.fact))
    // The totals count the at-risk rows; noise rows apart.
    const noise = plain.rows.filter((r) => r.importance === 'noise').length
    expect(noise).toBeGreaterThan(0)
    expect(plain.totals.noise).toBe(noise)
    expect(plain.totals.facts).toBe(plain.rows.length - noise)
    expect(watched.totals.facts).toBe(plain.totals.facts + 2)
  })
})
