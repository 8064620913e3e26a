import { expect, test } from '@playwright/test'
import { openApp, watchErrors } from './helpers'

test('Facts tab: totals, filter, sort, and a lost fact leads to its message in Before | After', async ({ page }) => {
  const errors = watchErrors(page)
  await openApp(page)
  await page.getByRole('tab', { name: 'Facts' }).click()

  const totals = page.getByTestId('facts-totals')
  await expect(totals).toContainText(/\d+ of \d+ facts survive/)
  const table = page.getByTestId('facts-table')
  const factRows = table.locator('[role="row"][data-fact]')
  await expect(factRows.first()).toBeVisible()

  // Text filter: only facts holding the postal code remain (the sample's scenario).
  const filter = page.getByRole('searchbox', { name: 'Filter facts by text' })
  await filter.fill('94107')
  await expect(factRows.first()).toBeVisible()
  const filtered = await factRows.evaluateAll((rows) => rows.map((r) => r.getAttribute('data-fact') ?? ''))
  expect(filtered.length).toBeGreaterThan(0)
  for (const fact of filtered) expect(fact).toContain('94107')
  await filter.fill('')

  // Kind filter: paths only.
  await page.getByRole('combobox', { name: 'Filter by kind' }).selectOption('path')
  const kinds = await factRows.evaluateAll((rows) => rows.map((r) => r.querySelectorAll('[role="cell"]')[1]?.textContent))
  expect(kinds.length).toBeGreaterThan(0)
  expect(new Set(kinds)).toEqual(new Set(['path']))
  await page.getByRole('combobox', { name: 'Filter by kind' }).selectOption('')

  // Sort by the final fate, ascending: lost facts come first.
  await table.getByRole('button', { name: /^Final/ }).click()
  await expect(table.getByRole('columnheader', { name: /Final/ })).toHaveAttribute('aria-sort', 'ascending')
  await expect(factRows.first()).toHaveClass(/facts__row--lost/)

  // Only lost: every row left is lost.
  await page.getByRole('checkbox', { name: 'Only lost' }).check()
  const finals = await factRows.evaluateAll((rows) => rows.map((r) => r.className))
  expect(finals.length).toBeGreaterThan(0)
  for (const c of finals) expect(c).toContain('facts__row--lost')

  // Its first-seen link selects and reveals that message in Before | After.
  const link = factRows.first().getByTestId('fact-first-seen')
  const title = (await link.getAttribute('title')) ?? ''
  const id = /^Show message (.+) in Before \| After$/.exec(title)?.[1]
  expect(id).toBeTruthy()
  await link.click()
  await expect(page.getByRole('tab', { name: 'Before | After' })).toHaveAttribute('aria-selected', 'true')
  const row = page.getByTestId('before-column').locator(`[role="row"][data-id="${id}"]`)
  await expect(row).toHaveAttribute('aria-selected', 'true')
  await expect(row).toBeInViewport()
  expect(errors).toEqual([])
})
