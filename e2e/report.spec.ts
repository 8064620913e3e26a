import { copyFileSync, readFileSync } from 'node:fs'
import { pathToFileURL } from 'node:url'
import { expect, test, type Browser, type Page, type TestInfo } from '@playwright/test'
import { axeFailures, openApp, watchErrors } from './helpers'

/** Section ids and headings of the report (src/report/build.ts `REPORT_SECTIONS`). */
const SECTIONS: [string, string][] = [
  ['transcript', 'Transcript'],
  ['settings', 'Settings'],
  ['totals', 'Totals'],
  ['passes', 'Passes'],
  ['compare', 'Before | After'],
  ['legend', 'Legend'],
  ['facts', 'Facts'],
  ['timeline', 'Token timeline'],
]

/**
 * Opens the Report dialog from the Export menu, sets the Redact checkbox, waits for the
 * redaction line to read `expected`, saves, and copies the download to an .html file of the test's.
 */
async function saveReport(page: Page, testInfo: TestInfo, redact: boolean, expected: string | RegExp, name: string) {
  const menu = page.getByTestId('export-menu')
  if (!(await menu.evaluate((el) => (el as HTMLDetailsElement).open))) await menu.locator('summary').click()
  await page.getByRole('button', { name: 'Report…' }).click()
  const dialog = page.getByRole('dialog', { name: 'Save a report' })
  await expect(dialog).toBeVisible()
  await dialog.getByRole('checkbox').setChecked(redact)
  await expect(dialog.getByTestId('report-redactions')).toHaveText(expected)
  const [file] = await Promise.all([page.waitForEvent('download'), dialog.getByRole('button', { name: 'Save report' }).click()])
  await expect(dialog).toHaveCount(0)
  const path = testInfo.outputPath(name)
  copyFileSync(await file.path(), path)
  return { suggested: file.suggestedFilename(), path, html: readFileSync(path, 'utf8') }
}

/**
 * Opens a saved report from disk in a fresh context where every request but the file itself is
 * aborted and counted; returns the page and the list of requests that were tried.
 */
async function openOffline(browser: Browser, path: string) {
  const context = await browser.newContext()
  const url = pathToFileURL(path).href
  const requests: string[] = []
  await context.route('**/*', (route) => {
    if (route.request().url() === url) return route.continue()
    requests.push(route.request().url())
    return route.abort()
  })
  const page = await context.newPage()
  page.on('request', (r) => {
    if (r.url() !== url && !requests.includes(r.url())) requests.push(r.url())
  })
  await page.goto(url)
  return { page, requests, close: () => context.close() }
}

test('the report of the bundled sample opens offline with every section and makes no request', async ({ page, browser }, testInfo) => {
  const errors = watchErrors(page)
  await openApp(page)
  const saved = await saveReport(page, testInfo, false, 'Nothing is redacted: the report holds the transcript’s text as it is.', 'sample.report.html')
  expect(saved.suggested).toBe('claude-code.report.html')
  expect(saved.html).not.toMatch(/<script/i)

  const offline = await openOffline(browser, saved.path)
  for (const [id, heading] of SECTIONS) {
    await expect(offline.page.locator(`section#${id} > h2`)).toHaveText(heading)
  }
  await expect(offline.page.locator('#transcript')).toContainText('claude-code')
  await expect(offline.page.locator('#settings')).toContainText('The After is simulated')
  await expect(offline.page.locator('#compare .chip').first()).toBeVisible()
  await expect(offline.page.locator('#timeline svg')).toBeVisible()
  // Messages are named by the page's numbers (#23), never by the transcript's ids (UUIDs here).
  const uuid = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/
  await expect(offline.page.locator('#facts table').first()).toBeVisible()
  expect(await offline.page.locator('#facts').textContent()).not.toMatch(uuid)
  expect(await offline.page.locator('#compare .why').allTextContents()).not.toContainEqual(expect.stringMatching(uuid))
  expect(await offline.page.locator('#compare .why').allTextContents()).toContainEqual(expect.stringMatching(/^Message #\d+, unchanged\.$/))
  expect(await offline.page.evaluate(() => document.scripts.length)).toBe(0)
  // Readable by everyone in either scheme: axe finds no critical or serious violation.
  for (const colorScheme of ['light', 'dark'] as const) {
    await offline.page.emulateMedia({ colorScheme })
    expect(await axeFailures(offline.page, `report, ${colorScheme}`)).toEqual([])
  }
  expect(offline.requests).toEqual([])
  await offline.close()
  expect(errors).toEqual([])
})

test('planted markup arrives as text and never runs; with Redact the key and the e-mail address are gone', async ({ page, browser }, testInfo) => {
  const errors = watchErrors(page)
  await openApp(page)
  await page.getByLabel('Open transcript').setInputFiles('e2e/fixtures/report-hostile.json')
  await expect(page.getByTestId('file-format')).toHaveText('openai-chat')
  await expect(page.getByTestId('loading')).toHaveCount(0)
  await expect(page.getByTestId('totals')).toBeVisible()

  const plain = await saveReport(page, testInfo, false, /^Nothing is redacted/, 'plain.report.html')
  expect(plain.suggested).toBe('report-hostile.report.html')
  const offline = await openOffline(browser, plain.path)
  await expect(offline.page.locator('#compare')).toContainText('<script>window.__pwned=1</script>')
  await expect(offline.page.locator('#compare')).toContainText('<img src=x onerror="window.__pwned=2">')
  expect(await offline.page.evaluate(() => (window as { __pwned?: number }).__pwned)).toBeUndefined()
  expect(await offline.page.locator('#compare img').count()).toBe(0)
  expect(offline.requests).toEqual([])
  await offline.close()

  // The fixture holds one key (twice), one e-mail address (three times) and one home directory.
  const redacted = await saveReport(page, testInfo, true, 'Will replace: 1 key, 1 e-mail address, 1 home path.', 'redacted.report.html')
  expect(redacted.html).not.toContain('sk-proj-AbCdEfGhIjKlMnOpQrStUv12')
  expect(redacted.html).not.toContain('ana.silva@example.org')
  expect(redacted.html).toContain('[key-1]')
  expect(redacted.html).toContain('[email-1]')
  expect(redacted.html).toContain('/home/[user-1]/shop/footer.html')
  expect(errors).toEqual([])
})
