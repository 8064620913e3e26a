import { expect, test, type Locator, type Page } from '@playwright/test'
import { fillSweepRanges, openApp, watchErrors } from './helpers'

// A grid on a 44-message transcript runs its pipelines in the worker: allow it time on a busy machine.
const gridDone = { timeout: 90_000 }

/**
 * Opens the Sweep tab and starts keep_last 1…50 × compact_after 2…100 (2,500 cells: long
 * enough to still be running when the settings change). Returns the view.
 */
async function startLongSweep(page: Page): Promise<Locator> {
  await openApp(page)
  await page.getByRole('tab', { name: 'Sweep' }).click()
  const view = page.getByTestId('sweep-view')
  await fillSweepRanges(view, [1, 1, 50], [2, 2, 100])
  await expect(view.getByTestId('sweep-run')).toHaveText('Run sweep (2500 cells)')
  await view.getByTestId('sweep-run').click()
  await expect(view.getByTestId('sweep-progress')).toHaveAttribute('data-status', 'running')
  return view
}

/** The form's six numbers, x then y: from, to, step. */
const formValues = (view: Locator) =>
  Promise.all(['x from', 'x to', 'x step', 'y from', 'y to', 'y step'].map((l) => view.getByLabel(l, { exact: true }).inputValue()))

test('keep_last changed while its sweep runs: the sweep goes on, the form keeps the axes of the grid, the new value is on it', async ({ page }) => {
  const errors = watchErrors(page)
  const view = await startLongSweep(page)
  await page.getByRole('spinbutton', { name: 'summarize keep_last value' }).fill('12')
  // Before any sweep the form follows keep_last (sweep-grid.spec.ts); the one running keeps its axes.
  expect(await formValues(view)).toEqual(['1', '50', '1', '2', '100', '2'])
  await expect(view.getByTestId('sweep-progress')).toHaveAttribute('data-status', 'running')
  await expect(view.getByText('started again')).toHaveCount(0)
  await view.getByTestId('sweep-cancel').click()
  await expect(view.getByTestId('sweep-progress')).toHaveAttribute('data-status', 'cancelled', gridDone)
  // The grid's columns are the form's: keep_last 1…50.
  const heads = view.getByTestId('sweep-grid').getByRole('columnheader')
  await expect(heads).toHaveCount(51)
  await expect(heads.nth(1)).toHaveText('1')
  await expect(heads.nth(50)).toHaveText('50')
  expect(await formValues(view)).toEqual(['1', '50', '1', '2', '100', '2'])
  await expect(view.getByText('Other settings changed since this sweep ran')).toHaveCount(0)
  // keep_last 12 with compact_after 40 is a cell of the grid.
  await expect(view.getByText('are not on the grid')).toHaveCount(0)
  expect(errors).toEqual([])
})

test('another setting changed while a sweep runs: it starts again on the new settings, and its grid is never shown as of the old ones', async ({ page }) => {
  const errors = watchErrors(page)
  const view = await startLongSweep(page)
  await page.getByRole('switch', { name: 'Enable dedupe' }).click()
  await expect(page.getByRole('switch', { name: 'Enable dedupe' })).not.toBeChecked()
  await expect(view.getByText('Other settings changed while the sweep ran: it started again on them.')).toBeVisible()
  await expect(view.getByTestId('sweep-progress')).toHaveAttribute('data-status', 'running')
  expect(await formValues(view)).toEqual(['1', '50', '1', '2', '100', '2'])
  await view.getByTestId('sweep-cancel').click()
  await expect(view.getByTestId('sweep-progress')).toHaveAttribute('data-status', 'cancelled', gridDone)
  // What the grid holds is of the settings now set: no "the cells show the settings of then".
  await expect(view.getByText('Other settings changed since this sweep ran')).toHaveCount(0)
  await expect(view.getByText('started again')).toHaveCount(0)

  // A finished (here: cancelled) grid is kept when a setting changes after it, and says so.
  await page.getByRole('switch', { name: 'Enable dedupe' }).click()
  await expect(view.getByText('Other settings changed since this sweep ran: the cells show the settings of then.')).toBeVisible()
  await expect(view.getByTestId('sweep-progress')).toHaveAttribute('data-status', 'cancelled')
  expect(errors).toEqual([])
})
