import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { expect, test } from '@playwright/test'
import { generateLargeSession } from '../test/fixtures'
import { openApp, rows, watchErrors } from './helpers'

let dir = ''
let file = ''

test.beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'ci-large-'))
  file = join(dir, 'large-claude-code.jsonl')
  generateLargeSession(50, file)
})

test.afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true })
})

test('a 50 MB Claude Code file streams in with a moving progress bar, its first rows shown until the full rows replace them, while the page stays responsive', async ({ page }) => {
  test.setTimeout(300_000)
  const errors = watchErrors(page)
  await openApp(page)

  // Watched in the page every frame (a check from here can miss a state that lasts less than
  // its polling): the progress text with its record count, the streamed head, and any frame
  // after the head showed where the main area holds neither it nor the full rows.
  await page.evaluate(() => {
    const watch = { records: false, head: false, blankFrames: 0, full: false }
    const fullRows = '.compare:not(.compare--head) [data-testid="before-column"] [role="row"]'
    const tick = () => {
      const text = document.querySelector('[data-testid="import-progress-text"]')?.textContent ?? ''
      if (text.includes('records')) watch.records = true
      const head = !!document.querySelector('[data-testid="import-head"] [role="row"]')
      if (head) watch.head = true
      else if (watch.head && document.querySelector(fullRows)) watch.full = true
      else if (watch.head) watch.blankFrames++
      if (!watch.full) requestAnimationFrame(tick)
    }
    requestAnimationFrame(tick)
    Object.assign(window, { __watch: watch })
  })
  await page.getByLabel('Open transcript').setInputFiles(file)
  const bar = page.getByRole('progressbar', { name: 'Importing large-claude-code.jsonl' })
  await expect(bar).toBeVisible()

  // The bar advances: at least two different percentages while the worker parses.
  const seen = new Set<string>()
  for (let i = 0; i < 400 && seen.size < 2; i++) {
    const value = await bar.getAttribute('aria-valuenow', { timeout: 2_000 }).catch(() => null)
    if (value === null) break
    seen.add(value)
    await page.waitForTimeout(25)
  }
  expect(seen.size).toBeGreaterThanOrEqual(2)

  // The page answers clicks meanwhile: the Paste dialog opens and closes while the import runs.
  await page.getByRole('button', { name: 'Paste' }).click()
  const dialog = page.getByRole('dialog', { name: 'Paste a transcript' })
  await expect(dialog).toBeVisible()
  await dialog.getByRole('button', { name: 'Cancel' }).click()
  await expect(dialog).toHaveCount(0)
  await expect(page.getByTestId('loading')).toBeVisible()

  // Then the rows of the big transcript appear.
  const done = { timeout: 240_000 }
  await expect(page.getByTestId('file-info')).toContainText('large-claude-code.jsonl', done)
  await expect(page.getByTestId('file-format')).toHaveText('claude-code')
  await expect(page.getByTestId('recorded-compactions')).toHaveText(/\d+ recorded compactions in source/)
  await expect(page.getByTestId('loading')).toHaveCount(0, done)
  await expect(rows(page, 'before').first()).toBeVisible()
  await expect(rows(page, 'after').first()).toBeVisible()
  await expect(page.getByTestId('import-error')).toHaveCount(0)
  // The first rows were on screen early and stayed until the full rows replaced them.
  const watched = await page.waitForFunction(() => {
    const w = (window as unknown as { __watch: { full: boolean } }).__watch
    return w.full && w
  }, undefined, done)
  expect(await watched.jsonValue()).toEqual({ records: true, head: true, blankFrames: 0, full: true })
  expect(errors).toEqual([])
})
