/**
 * `--watch X` on compact and find: the user's own facts tracked like the facts found — first in
 * the facts table (kind watched) with their verdict, and after the other facts in find.
 */
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { runCli } from '../../test/cli'

const SAMPLE = join(__dirname, '../../public/samples/claude-code.jsonl')

describe('--watch', () => {
  it('compact --json: watched facts lead the facts table, one never in the Before says so', async () => {
    const { code, stdout } = await runCli(['compact', SAMPLE, '--watch', '94107', '--watch', 'NOPE-1', '--watch', '94107', '--json'])
    expect(code).toBe(0)
    const rows = JSON.parse(stdout).facts.rows as { fact: string; kind: string; importance: string; verdict: { verdict: string } }[]
    expect(rows.slice(0, 2).map((r) => [r.fact, r.kind, r.importance, r.verdict.verdict])).toEqual([
      ['94107', 'watched', 'watched', 'survives'],
      ['NOPE-1', 'watched', 'watched', 'never-present'],
    ])
    expect(rows.filter((r) => r.kind === 'watched')).toHaveLength(2)
  })

  it('compact: one line per watched fact, its verdict as find words it', async () => {
    const { code, stdout } = await runCli(['compact', SAMPLE, '--watch', 'NOPE-1'])
    expect(code).toBe(0)
    expect(stdout.trimEnd().split('\n').at(-1)).toBe('watched NOPE-1: never present in the Before')
  })

  it('find: watched facts need no <fact>; --json lists them apart', async () => {
    const text = await runCli(['find', SAMPLE, '--watch', 'NOPE-1'])
    expect(text.code).toBe(0)
    expect(text.stdout.trimEnd().split('\n')).toEqual([`${SAMPLE}: claude-code`, 'watched NOPE-1: never present in the Before'])
    const json = await runCli(['find', SAMPLE, 'ORD-58213', '--watch', '94107', '--json'])
    const out = JSON.parse(json.stdout)
    expect(out.facts.map((v: { query: string }) => v.query)).toEqual(['ORD-58213'])
    expect(out.watched.map((v: { query: string; verdict: string }) => [v.query, v.verdict])).toEqual([['94107', 'survives']])
  })

  it('an empty --watch is a usage error', async () => {
    const { code, stderr } = await runCli(['find', SAMPLE, '--watch', ' '])
    expect(code).toBe(2)
    expect(stderr.split('\n')[0]).toBe('error: --watch takes a text to track, got an empty one')
  })
})
