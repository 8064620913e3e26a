import { expect, test } from '@playwright/test'
import { openApp, watchErrors } from './helpers'

// A grid on a 44-message transcript runs 64 pipelines in the worker: allow it time on a busy machine.
const gridDone = { timeout: 90_000 }

test('the default sweep grid is centred on the current keep_last and compact_after, and its cell is marked', async ({ page }) => {
  const errors = watchErrors(page)
  await openApp(page)
  await page.getByRole('tab', { name: 'Sweep' }).click()
  const view = page.getByTestId('sweep-view')
  // The seed's keep_last 20 / compact_after 40: steps of 20 / 4 = 5 and 40 / 4 = 10, three below, four above.
  await expect(view.getByLabel('x parameter')).toHaveValue('keep_last')
  await expect(view.getByLabel('x from')).toHaveValue('5')
  await expect(view.getByLabel('x to')).toHaveValue('40')
  await expect(view.getByLabel('x step')).toHaveValue('5')
  await expect(view.getByLabel('y parameter')).toHaveValue('compact_after')
  await expect(view.getByLabel('y from')).toHaveValue('10')
  await expect(view.getByLabel('y to')).toHaveValue('80')
  await expect(view.getByLabel('y step')).toHaveValue('10')

  // Another setting moves the grid with it: keep_last 12 → steps of 12 / 4 = 3, rounded to 2: 6…20.
  await page.getByRole('spinbutton', { name: 'summarize keep_last value' }).fill('12')
  await expect(view.getByLabel('x from')).toHaveValue('6')
  await expect(view.getByLabel('x to')).toHaveValue('20')
  await expect(view.getByLabel('x step')).toHaveValue('2')

  await view.getByTestId('sweep-run').click()
  await expect(view.getByTestId('sweep-progress')).toHaveAttribute('data-status', 'done', gridDone)
  await expect(view.getByTestId('sweep-cell')).toHaveCount(64)
  // The cell of the current settings exists and is the one marked current.
  const current = view.locator('[data-testid="sweep-cell"][data-current]')
  await expect(current).toHaveCount(1)
  await expect(current).toHaveAttribute('data-x', '12')
  await expect(current).toHaveAttribute('data-y', '40')
  await expect(view.getByText('are not on the grid')).toHaveCount(0)
  expect(errors).toEqual([])
})
