import { expect, test } from '@playwright/test'
import { openApp, watchErrors } from './helpers'

/**
 * The fixture (test/postal-code-needed.ts): the assistant reads the postal code 01310-100 from the
 * account at message 6; with summarize keep_last 2 / compact_after 4, pass 2 (at the turn end 10)
 * leaves it out of its summary (the 41st fact, behind pass 1's 40 lamp ids), and message 11 says
 * "Ship it to the postal code from earlier."
 */
test('a fact needed after compaction removed it leads the Facts tab and is counted in the totals', async ({ page }) => {
  const errors = watchErrors(page)
  await openApp(page)
  await page.getByLabel('Open transcript').setInputFiles('test/fixtures/facts/postal-code-needed.json')
  await expect(page.getByTestId('file-info')).toContainText('postal-code-needed.json')
  await expect(page.getByTestId('loading')).toHaveCount(0)

  // The defaults (keep 20, compact after 40) never fire on 13 messages: nothing is needed yet.
  await expect(page.getByTestId('totals-needed')).toHaveCount(0)
  await page.getByRole('spinbutton', { name: 'summarize keep_last value' }).fill('2')
  await page.getByRole('spinbutton', { name: 'summarize compact_after value' }).fill('4')
  await expect(page.getByTestId('passes')).toHaveText('2')
  await expect(page.getByTestId('totals-needed')).toHaveText('⚠ 1 fact was needed after compaction removed it: 01310-100')

  await page.getByRole('tab', { name: 'Facts' }).click()
  await expect(page.getByTestId('facts-needed')).toContainText('1 fact was needed after compaction removed it: 01310-100')
  const first = page.getByTestId('facts-table').locator('[role="row"][data-fact]').first()
  await expect(first).toHaveAttribute('data-fact', '01310-100')
  await expect(first).toHaveClass(/facts__row--lost/)
  const needed = first.getByTestId('fact-needed')
  await expect(needed).toHaveText('needed at #11')
  await expect(needed).toHaveAttribute('title', /^pass 2 \(at #10\) removed it; #11 \(user\) refers back to it: "Ship it to the postal code from earlier\."/)

  // The mark leads to the message that needed it.
  await needed.click()
  await expect(page.getByRole('tab', { name: 'Before | After' })).toHaveAttribute('aria-selected', 'true')
  await expect(page.getByTestId('before-column').locator('[role="row"][data-id="m11"]')).toHaveAttribute('aria-selected', 'true')
  expect(errors).toEqual([])
})
