import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { runCli } from '../../test/cli'

const FIXTURE = join(__dirname, '../../test/fixtures/report/hostile-chat.json')
const dir = mkdtempSync(join(tmpdir(), 'ci-report-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe('cli report', () => {
  it('--out writes the HTML file; --redact and --redact-string say on stderr what they replaced', async () => {
    const out = join(dir, 'r.html')
    const { code, stdout, stderr } = await runCli([
      'report', FIXTURE, '--out', out, '--redact', '--redact-string', 'Widget shop', '--compact-after', '4', '--keep-last', '2',
    ])
    expect(code).toBe(0)
    expect(stdout).toBe('')
    // The fixture holds one key, one e-mail address, one home directory and the shop's name once.
    expect(stderr).toBe('redacted: 1 key, 1 e-mail address, 1 home path, 1 chosen string\n')
    const html = readFileSync(out, 'utf8')
    expect(html.startsWith('<!doctype html>')).toBe(true)
    expect(html).not.toContain('sk-proj-AbCdEfGhIjKlMnOpQrStUv12')
    expect(html).not.toContain('ana.silva@example.org')
    expect(html).not.toContain('Widget shop')
    expect(html).toContain('<code>compact_after</code> 4 messages')
    expect(html).toContain('<svg class="timeline"')
  })

  it('without --out prints the report to standard output and redacts nothing', async () => {
    const { code, stdout, stderr } = await runCli(['report', FIXTURE])
    expect(code).toBe(0)
    expect(stderr).toBe('')
    expect(stdout.startsWith('<!doctype html>')).toBe(true)
    expect(stdout.endsWith('</html>\n')).toBe(true)
    expect(stdout).toContain('ana.silva@example.org')
  })

  it('an empty --redact-string is a usage error', async () => {
    const { code, stderr } = await runCli(['report', FIXTURE, '--redact-string', ' '])
    expect(code).toBe(2)
    expect(stderr).toContain('--redact-string takes a text to replace, got an empty one')
  })
})
