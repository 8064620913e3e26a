import { spawnSync } from 'node:child_process'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { main } from './main'

const SAMPLES = join(__dirname, '../../public/samples')

async function runCli(args: string[]) {
  let stdout = ''
  let stderr = ''
  const code = await main(args, (s) => (stdout += s + '\n'), (s) => (stderr += s + '\n'))
  return { code, stdout, stderr }
}

describe('cli compact', () => {
  it('--stages dedupe --json: repeated catalog page becomes back-references, and fates/origins say so', async () => {
    const { code, stdout, stderr } = await runCli(['compact', join(SAMPLES, 'openai-chat.json'), '--stages', 'dedupe', '--json'])
    expect(stderr).toBe('')
    expect(code).toBe(0)
    const out = JSON.parse(stdout)
    expect(out.format).toBe('openai-chat')
    const backRefs = out.after.messages.filter(
      (m: { content: unknown }) => typeof m.content === 'string' && m.content.startsWith('[repeated tool output — byte-identical'),
    )
    // The sample repeats the catalog page three times (design/formats.md §5): two repeats.
    expect(backRefs.length).toBe(2)
    for (const m of backRefs) {
      expect(out.origins[m.id].kind).toBe('back-reference')
      expect(out.fates[m.id].kind).toBe('back-referenced')
      const first = out.fates[m.id].firstId
      expect(out.fates[first].kind).toBe('kept')
    }
    expect(out.after.tokens).toBeLessThan(out.before.tokens)
    expect(out.checks.after).toEqual([])
    expect(out.stages.map((s: { stage: string }) => s.stage)).toEqual(['dedupe'])
  })

  it('prints a human report without --json', async () => {
    const { code, stdout } = await runCli(['compact', join(SAMPLES, 'claude-code.jsonl')])
    expect(code).toBe(0)
    expect(stdout).toMatch(/^.*claude-code\.jsonl: claude-code/m)
    expect(stdout).toMatch(/^tokens +\d+ → \d+/m)
    expect(stdout).toMatch(/^validity /m)
  })

  it('exits 1 with one line naming the line for invalid JSON', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ci-cli-'))
    const file = join(dir, 'bad.json')
    writeFileSync(file, '{"messages": [\n  {"role": "user", "content": "hi"},\n  oops\n]}')
    const { code, stderr, stdout } = await runCli(['compact', file])
    expect(code).toBe(1)
    expect(stdout).toBe('')
    expect(stderr.trim().split('\n')).toHaveLength(1)
    expect(stderr).toMatch(/line 3/)
  })

  it('exits 1 for a missing file and for an empty file', async () => {
    expect((await runCli(['compact', '/nonexistent/x.json'])).code).toBe(1)
    const dir = mkdtempSync(join(tmpdir(), 'ci-cli-'))
    const file = join(dir, 'empty.json')
    writeFileSync(file, '')
    const r = await runCli(['compact', file])
    expect(r.code).toBe(1)
    expect(r.stderr).toMatch(/empty/)
  })

  it('exits 2 on bad usage', async () => {
    expect((await runCli([])).code).toBe(2)
    expect((await runCli(['frobnicate'])).code).toBe(2)
    expect((await runCli(['compact'])).code).toBe(2)
    expect((await runCli(['compact', 'x.json', '--keep-last', 'ten'])).code).toBe(2)
    expect((await runCli(['compact', 'x.json', '--stages', 'nope'])).code).toBe(2)
    expect((await runCli(['compact', 'x.json', '--summarizer', 'anthropic'])).code).toBe(2)
  })

  it('reads standard input with - (through npm run cli, as a user types it)', () => {
    const r = spawnSync('npx', ['tsx', 'src/cli/main.ts', 'compact', '-', '--json', '--stages', 'dedupe'], {
      cwd: join(__dirname, '../..'),
      input: JSON.stringify({ messages: [{ role: 'user', content: 'hello' }, { role: 'assistant', content: 'hi' }] }),
      encoding: 'utf8',
    })
    expect(r.status).toBe(0)
    const out = JSON.parse(r.stdout)
    expect(out.before.messages).toHaveLength(2)
    expect(out.after.messages).toHaveLength(2)
  })
})
