import { execFileSync } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { mainThreadChunks } from '../../bench/bundle'

/**
 * BENCH.md B7, a budget that is not a timing: the JavaScript the page's main thread can load
 * (index.html's entry and everything it imports, statically or lazily) is at most 300 KB gzip;
 * the tokenizer rank tables load in workers only. One production build into a temporary folder.
 */

const root = new URL('../../', import.meta.url).pathname
let dir = ''

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'bundle-size-'))
  execFileSync('npx', ['vite', 'build', '--outDir', dir, '--emptyOutDir', '--logLevel', 'error'], {
    cwd: root,
    stdio: ['ignore', 'ignore', 'inherit'],
  })
}, 600_000)

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true })
})

describe('main-thread bundle (B7)', () => {
  it('is at most 300 KB gzip, without worker chunks or rank tables', () => {
    const chunks = mainThreadChunks(dir)
    expect(chunks.length).toBeGreaterThan(0)
    for (const c of chunks) expect(c.file).not.toMatch(/o200k|cl100k|\.worker-/)
    const gzip = chunks.reduce((n, c) => n + c.gzipBytes, 0)
    expect(gzip).toBeLessThanOrEqual(300 * 1024)
  })
})
