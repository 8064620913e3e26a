import { expect, test } from '@playwright/test'
import { openApp, rows, scrollUntil, watchErrors } from './helpers'

test('first start opens the Claude Code sample with summary boundaries and back-references', async ({ page }) => {
  const errors = watchErrors(page)
  await openApp(page)

  await expect(page.getByTestId('file-format')).toHaveText('claude-code')
  await expect(page.getByTestId('recorded-compactions')).toHaveText(/1 recorded compaction in source/)
  await expect(page.getByTestId('tokens-saved')).toHaveText(/^−\d+(\.\d)?% tokens$/)

  // A summary boundary, labelled with its pass and range, on both sides.
  const boundary = /^pass 1: messages 0–\d+ → summary$/
  await expect(page.getByTestId('after-column').getByRole('separator', { name: boundary })).toBeVisible()
  await expect(page.getByTestId('before-column').getByRole('separator', { name: boundary })).toBeVisible()
  await expect(page.getByTestId('after-column').locator('[data-kind="summary"]').first()).toBeVisible()

  // A back-reference left by dedupe, somewhere in the After column.
  const backref = page.getByTestId('after-column').locator('[role="row"][data-kind="back-reference"]')
  const row = await scrollUntil(page, 'after', backref)
  await expect(row.getByText('back-reference', { exact: true })).toBeVisible()
  await expect(row).toContainText('[repeated tool output — byte-identical to an earlier result')

  // Virtualized: only a window of the 44 messages is in the DOM.
  await page.getByTestId('before-column').evaluate((el) => el.scrollTo(0, 0))
  const rendered = await rows(page, 'before').count()
  expect(rendered).toBeGreaterThan(3)
  expect(rendered).toBeLessThan(44)

  // The legend shows the kinds this pipeline can produce; the details explain every kind.
  const legend = page.getByLabel('Legend')
  for (const name of ['Back-reference', 'Placeholder', 'Summary']) {
    await expect(legend.getByText(name, { exact: true }).first()).toBeVisible()
  }
  await expect(legend.getByText('Pinned facts', { exact: true })).not.toBeVisible()
  await legend.getByText('What do these mean?').click()
  const pinned = legend.locator('.legend__off', { hasText: 'Pinned facts' })
  await expect(pinned).toBeVisible()
  await expect(pinned).toContainText(/appears with later stages|its stage is off/)
  expect(errors).toEqual([])
})

test('each pass shows its exact prompt (fetched from the worker) and its summary', async ({ page }) => {
  const errors = watchErrors(page)
  await openApp(page)
  const passes = page.getByTestId('pass-list')
  await passes.getByText(/compaction pass/).click()
  await passes.getByRole('button', { name: /^Prompt/ }).first().click()
  // The slice is one line per message, `[<index>] <role>: <text>` (SPEC §3.2).
  await expect(passes.locator('pre')).toContainText('[0] user: Customers shipping to postal code 94107')
  await passes.getByRole('button', { name: 'Summary' }).first().click()
  await expect(passes.locator('pre')).toContainText('ORD-58213')
  expect(errors).toEqual([])
})
