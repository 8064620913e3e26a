/**
 * `compact` on a transcript whose tool-call arguments and tool output are JSON nested 100,000
 * levels deep inside their strings: it completes (exit 0), and the After keeps those strings as
 * the text they were.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { runCli } from '../../test/cli'

const dir = mkdtempSync(join(tmpdir(), 'ci-nested-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe('cli compact: JSON nested deep inside strings', () => {
  it('completes, with slim and with a pass every turn; the deep strings stay the text they were', async () => {
    const deep = `${'['.repeat(100_000)}${']'.repeat(100_000)}`
    const turn = (n: number) => [
      { role: 'user', content: `question ${n}: what does the query return?` },
      { role: 'assistant', content: null, tool_calls: [{ id: `c${n}`, type: 'function', function: { name: 'query', arguments: deep } }] },
      { role: 'tool', tool_call_id: `c${n}`, content: deep },
      { role: 'assistant', content: `answer ${n}` },
    ]
    const file = join(dir, 'deep.json')
    writeFileSync(file, JSON.stringify({ messages: [1, 2, 3].flatMap(turn) }))
    // slim alone: every message stays, the deep strings exactly as written.
    const slimmed = await runCli(['compact', file, '--stages', 'slim', '--json'])
    expect(slimmed.stderr).toBe('')
    expect(slimmed.code).toBe(0)
    type Out = { after: { messages: { role: string; content: unknown; toolCalls?: { arguments: string }[] }[] } }
    const after = (JSON.parse(slimmed.stdout) as Out).after.messages
    expect(after.filter((m) => m.role === 'tool').map((m) => m.content)).toEqual([deep, deep, deep])
    expect(after.flatMap((m) => m.toolCalls ?? []).map((c) => c.arguments)).toEqual([deep, deep, deep])
    // Summary passes that fire every turn, then the re-work of what they compacted: the report completes.
    const summarized = await runCli(['compact', file, '--keep-last', '1', '--compact-after', '2'])
    expect(summarized.stderr).toBe('')
    expect(summarized.code).toBe(0)
    expect(summarized.stdout).toMatch(/^re-work /m)
  }, 60_000)
})
