import { expect, test } from '@playwright/test'
import { base64Text } from '../test/hostile'
import { openApp, rows, watchErrors } from './helpers'

const cases = [
  { file: 'invalid.json', reason: /invalid\.json: .*line 2.*/i },
  { file: 'binary.png', reason: /binary\.png: .*binary/i },
  { file: 'empty.json', reason: /empty\.json: .*empty/i },
  { file: 'unknown-format.json', reason: /unknown-format\.json: .*unknown .*format/i },
]

for (const c of cases) {
  test(`${c.file} shows a one-line error and keeps the previous transcript`, async ({ page }) => {
    const errors = watchErrors(page)
    await openApp(page)
    const tokensBefore = await page.getByTestId('tokens-before').textContent()

    await page.getByLabel('Open transcript').setInputFiles(`e2e/fixtures/${c.file}`)
    const banner = page.getByTestId('import-error')
    await expect(banner).toBeVisible()
    await expect(banner).toHaveText(c.reason)
    await expect(banner).toContainText('still showing claude-code.jsonl')

    // The previous transcript and its run stay on screen and usable.
    await expect(page.getByTestId('file-info')).toContainText('claude-code.jsonl')
    await expect(page.getByTestId('tokens-before')).toHaveText(tokensBefore ?? '')
    await expect(rows(page, 'before').first()).toBeVisible()

    await banner.getByRole('button', { name: 'Dismiss error' }).click()
    await expect(banner).toHaveCount(0)
    expect(errors).toEqual([])
  })
}

test('a JSONL with a bad line imports the good lines and says what was skipped', async ({ page }) => {
  const errors = watchErrors(page)
  await openApp(page)
  await page.getByLabel('Open transcript').setInputFiles('e2e/fixtures/partly-bad.jsonl')
  await expect(page.getByTestId('file-info')).toContainText('partly-bad.jsonl')
  await expect(page.getByTestId('import-error')).toHaveCount(0)
  const warnings = page.getByText(/1 import warning/)
  await expect(warnings).toBeVisible()
  await warnings.click()
  await expect(page.getByText(/line 7: .*skipped/)).toBeVisible()
  expect(errors).toEqual([])
})

test("another tool's log is refused naming the tool, though Claude Code's importer would read it", async ({ page }) => {
  const errors = watchErrors(page)
  await openApp(page)
  await page.getByLabel('Open transcript').setInputFiles('test/fixtures/look-alikes/iflow-session.jsonl')
  const line = page.getByTestId('import-error').locator('.banner__text')
  await expect(line).toContainText(
    'iflow-session.jsonl: this looks like an iFlow CLI session: not supported yet — still showing claude-code.jsonl',
  )
  await expect(page.getByTestId('file-info')).toContainText('claude-code.jsonl')
  await page.screenshot({ path: test.info().outputPath('look-alike.png') })
  expect(errors).toEqual([])
})

test('an unknown format says why in one line and folds the supported formats into details', async ({ page }) => {
  const errors = watchErrors(page)
  await openApp(page)
  await page.getByLabel('Open transcript').setInputFiles('e2e/fixtures/unknown-format.json')
  const banner = page.getByTestId('import-error')
  await expect(banner).toBeVisible()
  // The one line names the closest match's first mismatch, not the whole list of formats tried.
  const line = banner.locator('.banner__text')
  await expect(line).toContainText('unknown-format.json: unknown transcript format: closest match')
  await expect(line).not.toContainText('tried')
  const box = await line.boundingBox()
  expect(box?.height).toBeLessThan(30)

  const details = page.getByTestId('import-error-formats')
  const list = details.getByRole('listitem')
  await expect(list.first()).toBeHidden()
  await details.getByText(/^Supported formats \(\d+\) and what was looked for$/).click()
  await expect(list.first()).toBeVisible()
  await expect(details.getByText('Claude Code session (JSONL)')).toBeVisible()
  await expect(details.getByText('closest match', { exact: true })).toHaveCount(1)
  expect(errors).toEqual([])
})

test('Cancel on a run slow to count keeps the transcript and runs again only when asked', async ({ page }) => {
  const errors = watchErrors(page)
  await openApp(page)
  // 8 MB of base64 in one message: byte-pair merging of its many distinct short pre-tokens
  // takes seconds to count (≈ 1.5 s per MB here), well past the point where Cancel is offered.
  const slow = JSON.stringify([{ role: 'user', content: base64Text(8_000_000) }, { role: 'assistant', content: 'ok' }])
  await page.getByLabel('Open transcript').setInputFiles({ name: 'slow.json', mimeType: 'application/json', buffer: Buffer.from(slow) })
  const loading = page.getByTestId('loading')
  await loading.getByRole('button', { name: 'Cancel' }).click()
  const banner = page.getByTestId('run-error')
  await expect(banner).toContainText('Run cancelled.')
  // The fresh worker gets the transcript back, and the cancelled run does not start again by itself.
  await expect(loading).toHaveCount(0)
  await expect(page.getByTestId('file-info')).toContainText('slow.json')
  await expect(rows(page, 'after')).toHaveCount(0)
  // Asked to, it runs again (and can be cancelled again).
  await banner.getByRole('button', { name: 'Run again' }).click()
  await expect(loading.getByRole('button', { name: 'Cancel' })).toBeVisible()
  await loading.getByRole('button', { name: 'Cancel' }).click()
  await expect(page.getByTestId('run-error')).toContainText('Run cancelled.')
  expect(errors).toEqual([])
})
