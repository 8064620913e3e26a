import { expect, test } from '@playwright/test'
import { openApp, rows, watchErrors } from './helpers'

test('selecting a summarized message reveals the summary that carries it', async ({ page }) => {
  const errors = watchErrors(page)
  await openApp(page)
  const before = page.getByTestId('before-column')
  const after = page.getByTestId('after-column')

  // Before any selection the toolbar says how to select, with the keys.
  await expect(page.locator('.compare__status')).toHaveText(
    'Click a message (or j / k) to reveal its counterpart · Enter expands · [ ] step passes',
  )
  const summarized = before.locator('[role="row"][data-kind="summary"]').first()
  await summarized.click()
  await expect(summarized).toHaveAttribute('aria-selected', 'true')
  const counterpart = after.locator('[role="row"][data-counterpart="true"]')
  await expect(counterpart).toHaveCount(1)
  await expect(counterpart).toBeInViewport()
  await expect(counterpart).toHaveAttribute('data-kind', 'summary')
  expect(errors).toEqual([])
})

test('selecting an After row scrolls the Before column to its original', async ({ page }) => {
  const errors = watchErrors(page)
  await openApp(page)
  const after = page.getByTestId('after-column')
  await page.getByRole('checkbox', { name: 'Sync scroll' }).uncheck()

  // The last After message is a kept original near the end of the Before column.
  await after.evaluate((el) => el.scrollTo(0, el.scrollHeight))
  const lastRow = rows(page, 'after').last()
  await expect(lastRow).toBeInViewport()
  const id = await lastRow.getAttribute('data-id')
  await lastRow.click()

  const original = page.getByTestId('before-column').locator(`[role="row"][data-id="${id}"]`)
  await expect(original).toBeInViewport()
  await expect(original).toHaveAttribute('data-counterpart', 'true')
  expect(errors).toEqual([])
})

test('expanding a row fetches its full text from the worker', async ({ page }) => {
  const errors = watchErrors(page)
  await openApp(page)
  const row = rows(page, 'before').first()
  await row.getByRole('button', { name: 'Show full message' }).click()
  await expect(row.getByRole('button', { name: 'Collapse message' })).toBeVisible()
  // The first message is the user's request, in full (its preview is cut at 200 code points).
  await expect(row).toContainText('Do not change the public signature of quote_for() in src/quote/api.py.')
  expect(errors).toEqual([])
})

test('clicking a pass in the pass list goes to its boundary in Before | After, the way ] does', async ({ page }) => {
  const errors = watchErrors(page)
  await openApp(page)
  // From another view: the click switches to Before | After.
  await page.getByRole('tab', { name: 'Timeline' }).click()
  const list = page.getByTestId('pass-list')
  await list.locator('summary').click()
  const first = list.locator('.passes__line').first()
  const range = /messages (\d+)–(\d+) → summary/.exec((await first.textContent()) ?? '')
  expect(range).not.toBeNull()
  const [, from, to] = range ?? []
  await first.getByRole('button', { name: 'pass 1', exact: true }).click()

  await expect(page.getByRole('tab', { name: 'Before | After' })).toHaveAttribute('aria-selected', 'true')
  const before = page.getByTestId('before-column')
  const label = `pass 1: messages ${from}–${to} → summary`
  await expect(page.getByTestId('pass-announcement')).toHaveText(new RegExp(`^Pass 1 of \\d+: ${label}$`))
  const selected = before.locator('[role="row"][aria-selected="true"]')
  await expect(selected.locator('.msg__index')).toHaveText(`#${from}`)
  await expect(selected).toBeFocused()
  await expect(before.getByRole('separator', { name: label })).toBeInViewport()
  expect(errors).toEqual([])
})
