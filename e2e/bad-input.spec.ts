import { expect, test } from '@playwright/test'
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
