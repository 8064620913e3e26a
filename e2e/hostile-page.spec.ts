import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { expect, test, type Page } from '@playwright/test'
import { chatWithToolOutput, claudeCodeForks, longChat, orphanToolResults } from '../test/hostile'
import { openApp, rows, watchErrors } from './helpers'

let dir = ''
const files = { forks: '', oneToken: '', million: '', orphans: '' }

test.beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'ci-hostile-'))
  files.forks = join(dir, 'sixty-thousand-forks.jsonl')
  writeFileSync(files.forks, claudeCodeForks(60_000))
  files.oneToken = join(dir, 'one-megabyte-token.json')
  writeFileSync(files.oneToken, chatWithToolOutput('A'.repeat(1_000_000)))
  files.million = join(dir, 'million-messages.json')
  writeFileSync(files.million, longChat(1_000_000))
  files.orphans = join(dir, 'orphan-results.json')
  writeFileSync(files.orphans, orphanToolResults(200_000))
})

test.afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true })
})

/**
 * Measures, in the page, how late each click's handlers run after the input event (event
 * `timeStamp` to handler start) and the longest main-thread task (Long Tasks API).
 */
async function watchResponsiveness(page: Page): Promise<void> {
  await page.evaluate(() => {
    const w = window as unknown as { __clickDelays: number[]; __longest: number }
    w.__clickDelays = []
    w.__longest = 0
    document.addEventListener('click', (e) => w.__clickDelays.push(performance.now() - e.timeStamp), true)
    new PerformanceObserver((list) => {
      for (const t of list.getEntries()) w.__longest = Math.max(w.__longest, t.duration)
    }).observe({ type: 'longtask' })
  })
}

/** Reports (never asserts) the slowest click and the longest task seen since `watchResponsiveness`. */
async function reportResponsiveness(page: Page, what: string): Promise<void> {
  const { delays, longest } = await page.evaluate(() => {
    const w = window as unknown as { __clickDelays: number[]; __longest: number }
    return { delays: w.__clickDelays, longest: w.__longest }
  })
  const slowest = delays.reduce((a, b) => Math.max(a, b), 0)
  const description = `${what}: ${delays.length} clicks, slowest handled ${Math.round(slowest)} ms after the click; longest main-thread task ${Math.round(longest)} ms`
  test.info().annotations.push({ type: 'responsiveness', description })
  console.log(`responsiveness: ${description}`)
}

/** Clicks the Before | After and Facts tabs in turn until `done` resolves, counting the clicks. */
async function clickThroughout(page: Page, done: Promise<unknown>): Promise<number> {
  let finished = false
  void done.finally(() => {
    finished = true
  })
  let clicks = 0
  const tabs = ['Facts', 'Before | After']
  while (!finished) {
    await page.getByRole('tab', { name: tabs[clicks % 2] }).click()
    clicks++
    await page.waitForTimeout(150)
  }
  return clicks
}

for (const [name, key, expectFormat] of [
  ['60,000 Claude Code forks', 'forks', 'claude-code'],
  ['one 1 MB token', 'oneToken', 'openai-chat'],
] as const) {
  test(`the page loads a file with ${name} and answers clicks throughout`, async ({ page }) => {
    test.setTimeout(300_000)
    const errors = watchErrors(page)
    await openApp(page)
    await watchResponsiveness(page)
    const file = files[key]
    const fileName = file.split('/').pop() ?? ''
    await page.getByLabel('Open transcript').setInputFiles(file)
    const loaded = (async () => {
      await expect(page.getByTestId('file-info')).toContainText(fileName, { timeout: 240_000 })
      await expect(page.getByTestId('loading')).toHaveCount(0, { timeout: 240_000 })
    })()
    const clicks = await clickThroughout(page, loaded)
    await loaded
    expect(clicks).toBeGreaterThan(0)
    await expect(page.getByTestId('file-format')).toHaveText(expectFormat)
    await page.getByRole('tab', { name: 'Before | After' }).click()
    await expect(rows(page, 'before').first()).toBeVisible()
    await expect(page.getByTestId('import-error')).toHaveCount(0)
    await reportResponsiveness(page, name)
    expect(errors).toEqual([])
  })
}

test('Cancel during an import returns to the transcript that was open', async ({ page }) => {
  test.setTimeout(300_000)
  const errors = watchErrors(page)
  await openApp(page)
  const firstRow = await rows(page, 'before').first().getAttribute('data-id')
  await page.getByLabel('Open transcript').setInputFiles(files.million)
  const loading = page.getByTestId('loading')
  await loading.getByRole('button', { name: 'Cancel' }).click({ timeout: 60_000 })
  await expect(page.getByTestId('loading')).toHaveCount(0, { timeout: 60_000 })
  await expect(page.getByTestId('import-error')).toContainText(
    'Import cancelled. million-messages.json: stopped before it finished — still showing claude-code.jsonl.',
  )
  await expect(page.getByTestId('file-info')).toContainText('claude-code.jsonl')
  await expect(rows(page, 'before').first()).toHaveAttribute('data-id', firstRow ?? '')
  await expect(rows(page, 'after').first()).toBeVisible()
  expect(errors).toEqual([])
})

test('a file chosen while a large JSON import is read opens instead of it; the large one never comes back', async ({ page }) => {
  test.setTimeout(300_000)
  const errors = watchErrors(page)
  await openApp(page)
  await page.getByLabel('Open transcript').setInputFiles(files.million)
  await expect(page.getByTestId('loading')).toContainText('million-messages.json')
  // Chosen while the big one still reads: it supersedes it (the big one is abandoned, not queued).
  const small = JSON.stringify({ messages: [{ role: 'user', content: 'Ship order 5521.' }, { role: 'assistant', content: 'Shipped.' }] })
  await page.getByLabel('Open transcript').setInputFiles({ name: 'chosen-next.json', mimeType: 'application/json', buffer: Buffer.from(small) })
  await expect(page.getByTestId('file-info')).toContainText('chosen-next.json', { timeout: 60_000 })
  await expect(page.getByTestId('loading')).toHaveCount(0, { timeout: 60_000 })
  await expect(page.getByTestId('message-count')).toHaveText('2 messages')
  // The worker finished (or dropped) the big read before it answered the small one: nothing of it is applied.
  await expect(page.getByTestId('file-info')).not.toContainText('million-messages.json')
  await expect(page.getByTestId('import-error')).toHaveCount(0)
  expect(errors).toEqual([])
})

test('a file of 200,000 tool results that answer no call opens, and each main tab opens on it', async ({ page }) => {
  test.setTimeout(600_000)
  const errors = watchErrors(page)
  await openApp(page)
  await page.getByLabel('Open transcript').setInputFiles(files.orphans)
  const loaded = { timeout: 400_000 }
  await expect(page.getByTestId('file-info')).toContainText('orphan-results.json', loaded)
  await expect(page.getByTestId('loading')).toHaveCount(0, loaded)
  await expect(page.getByTestId('message-count')).toHaveText('200,001 messages')
  // Every result is an orphan: the validity line counts all of them, the list names the first ones.
  await expect(page.getByTestId('problems-before')).toHaveText('⚠ 200000 problems')
  await expect(rows(page, 'before').first()).toBeVisible()
  const opened = { timeout: 120_000 }
  await page.getByRole('tab', { name: 'Table' }).click()
  await expect(page.getByTestId('message-table').locator('[role="row"][data-id]').first()).toBeVisible(opened)
  await expect(page.locator('.table-view__toolbar')).toContainText('200,001 of 200,001 messages')
  await page.getByLabel('Filter by role').selectOption('user')
  await expect(page.locator('.table-view__toolbar')).toContainText('1 of 200,001 messages')
  for (const [tab, ready] of [
    ['Facts', page.locator('.facts')],
    ['Stage by stage', page.getByRole('tabpanel')],
    ['Timeline', page.getByRole('tabpanel')],
    ['Turn N', page.getByRole('tabpanel')],
    ['Sweep', page.getByRole('tabpanel')],
  ] as const) {
    await page.getByRole('tab', { name: tab }).click()
    await expect(page.getByRole('tab', { name: tab })).toHaveAttribute('aria-selected', 'true')
    await expect(ready.first()).toBeVisible(opened)
  }
  await page.getByRole('tab', { name: 'Before | After' }).click()
  await expect(rows(page, 'before').first()).toBeVisible(opened)
  await expect(rows(page, 'after').first()).toBeVisible(opened)
  await expect(page.getByTestId('import-error')).toHaveCount(0)
  expect(errors).toEqual([])
})
