import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { expect, test } from '@playwright/test'
import { formatCountOf } from '../src/components/format'
import { importTranscript } from '../src/engine/formats'
import { generateLargeSession } from '../test/fixtures'
import { openApp, rows, watchErrors } from './helpers'

let dir = ''
let first = ''
let second = ''

test.beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'ci-supersede-'))
  first = join(dir, 'large-first.jsonl')
  second = join(dir, 'second-seed7.jsonl')
  generateLargeSession(50, first)
  // Another seed and size: its own messages and count, and still large enough to stream a head.
  generateLargeSession(3, second, ['--seed=7'])
})

test.afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true })
})

/** What the page named, frame by frame: each list holds a value each time it changed. */
interface Watched {
  names: string[]
  counts: string[]
  heads: string[]
  bars: string[]
  done: boolean
}

test('a file chosen while a 50 MB file is read supersedes it: the second file streams in and the first never shows', async ({ page }) => {
  test.setTimeout(300_000)
  const errors = watchErrors(page)
  await openApp(page)
  const parsed = importTranscript(readFileSync(second, 'utf8'), { fileName: 'second-seed7.jsonl' })
  if (!parsed.ok) throw new Error(parsed.error.message)
  const secondCount = formatCountOf(parsed.transcript.messages.length, 'message')
  const sampleCount = (await page.getByTestId('message-count').textContent()) ?? ''

  // Watched in the page every frame: the header's file name and message count, the file the
  // streamed head names, and the file the progress bar names.
  await page.evaluate((finalCount) => {
    const w: Watched = { names: [], counts: [], heads: [], bars: [], done: false }
    const note = (list: string[], value: string | null | undefined) => {
      if (value && value !== list.at(-1)) list.push(value)
    }
    const fullRows = '.compare:not(.compare--head) [data-testid="before-column"] [role="row"]'
    const tick = () => {
      note(w.names, document.querySelector('[data-testid="file-info"] .file-info__name')?.textContent)
      note(w.counts, document.querySelector('[data-testid="message-count"]')?.textContent)
      const head = document.querySelector('[data-testid="import-head"] [role="status"]')?.textContent ?? ''
      note(w.heads, /of (\S+\.jsonl) while/.exec(head)?.[1])
      note(w.bars, document.querySelector('[role="progressbar"]')?.getAttribute('aria-label'))
      w.done = w.counts.at(-1) === finalCount && !document.querySelector('[data-testid="loading"]') && !!document.querySelector(fullRows)
      if (!w.done) requestAnimationFrame(tick)
    }
    requestAnimationFrame(tick)
    Object.assign(window, { __watch: w })
  }, secondCount)

  const input = page.getByLabel('Open transcript')
  await input.setInputFiles(first)
  // The first file's head is on screen: it is still being read (50 MB) when the second is chosen.
  await expect(page.getByTestId('import-head')).toContainText('large-first.jsonl')
  await input.setInputFiles(second)

  const done = { timeout: 240_000 }
  await expect(page.getByTestId('file-info')).toContainText('second-seed7.jsonl', done)
  await expect(page.getByTestId('message-count')).toHaveText(secondCount, done)
  await expect(page.getByTestId('loading')).toHaveCount(0, done)
  await expect(rows(page, 'before').first()).toBeVisible()
  await expect(rows(page, 'after').first()).toBeVisible()
  await expect(page.getByTestId('import-error')).toHaveCount(0)
  const watched = await page.waitForFunction(() => {
    const w = (window as unknown as { __watch: Watched }).__watch
    return w.done && w
  }, undefined, done)
  // The first file is named while it is read, then only the second: the first is never applied
  // (no message count of it) and its head and progress bar never come back.
  const seen = (await watched.jsonValue()) as Watched
  expect({ names: seen.names, counts: seen.counts, done: seen.done }).toEqual({
    names: ['claude-code.jsonl', 'large-first.jsonl', 'second-seed7.jsonl'],
    counts: [sampleCount, secondCount],
    done: true,
  })
  // The second file (3 MB) may be read within a frame, its head and bar never painted; the
  // first's never come back after it.
  expect([['large-first.jsonl'], ['large-first.jsonl', 'second-seed7.jsonl']]).toContainEqual(seen.heads)
  expect([['Importing large-first.jsonl'], ['Importing large-first.jsonl', 'Importing second-seed7.jsonl']]).toContainEqual(seen.bars)
  expect(errors).toEqual([])
})
