import { expect, test, type Page } from '@playwright/test'
import { openApp, watchErrors } from './helpers'

const firstLoad = { timeout: 90_000 }

/** The kind cell (second column) of every fact row rendered. */
const kindsShown = (page: Page) =>
  page
    .getByTestId('facts-table')
    .locator('[role="row"][data-fact]')
    .evaluateAll((rows) => rows.map((r) => r.querySelectorAll('[role="cell"]')[1]?.textContent ?? ''))

test('Facts tab: noise hidden by default and shown on request; a watched fact has a verdict and survives a reload', async ({
  page,
}) => {
  const errors = watchErrors(page)
  await openApp(page)
  await page.getByRole('tab', { name: 'Facts' }).click()
  const totals = page.getByTestId('facts-totals')
  await expect(totals).toContainText(/\d+ of \d+ facts survive/)
  // The sample's pytest runs and ls listing: counted apart, hidden.
  await expect(totals).toContainText(/noise facts hidden/)
  const table = page.getByTestId('facts-table')
  const factRows = table.locator('[role="row"][data-fact]')
  await expect(factRows.first()).toBeVisible()

  // By default: no duration, no percentage, and the goal and the user's facts lead.
  const kinds = await kindsShown(page)
  expect(kinds).not.toContain('duration')
  expect(kinds).not.toContain('percentage')
  await expect(factRows.first().getByTestId('fact-importance')).toHaveText('goal')
  await expect(table.locator('[role="row"][data-fact="ORD-58213"]').getByTestId('fact-importance')).toHaveText(
    'stated by the user',
  )
  await expect(table.locator('[role="row"][data-fact="Jun 24"]')).toHaveCount(0)

  // Show noise: the percentages of the pytest progress lines appear, the totals say so.
  await page.getByRole('checkbox', { name: /Show noise/ }).check()
  await expect(totals).toContainText(/noise facts shown/)
  await page.getByRole('searchbox', { name: 'Filter facts by text' }).fill('%')
  await expect(factRows.first()).toBeVisible()
  expect(new Set(await kindsShown(page))).toEqual(new Set(['percentage']))
  await page.getByRole('searchbox', { name: 'Filter facts by text' }).fill('')
  await page.getByRole('checkbox', { name: /Show noise/ }).uncheck()

  // The kind filter shows a noise kind on request.
  await page.getByRole('combobox', { name: 'Filter by kind' }).selectOption('duration')
  await expect(factRows.first()).toBeVisible()
  expect(new Set(await kindsShown(page))).toEqual(new Set(['duration']))
  await page.getByRole('combobox', { name: 'Filter by kind' }).selectOption('')

  // Watch this: "94107" becomes a row with a verdict, first; the user's stated postal code of the
  // same text stays a row of its own after it.
  await page.getByRole('textbox', { name: 'A fact to watch' }).fill('94107')
  await page.getByRole('button', { name: 'Watch' }).click()
  const watched = table.locator('[role="row"][data-fact="94107"]').first()
  await expect(watched).toBeVisible()
  await expect(factRows.first()).toHaveAttribute('data-fact', '94107')
  await expect(watched.getByTestId('fact-importance')).toHaveText('watched by you')
  await expect(watched.locator('.chip').last()).toHaveText(/kept verbatim|only in a summary|lost/)
  await expect.poll(() => page.evaluate(() => window.location.hash)).toContain('watch=94107')

  // The link keeps it: after a reload the row is back, first.
  await page.reload()
  await expect(page.getByTestId('file-info')).toContainText('claude-code.jsonl', firstLoad)
  await page.getByRole('tab', { name: 'Facts' }).click()
  await expect(factRows.first()).toHaveAttribute('data-fact', '94107', firstLoad)
  await expect(factRows.first().getByTestId('fact-importance')).toHaveText('watched by you')

  // Stop watching: the row goes, and so does the link's entry.
  await page.getByRole('button', { name: 'Stop watching 94107' }).click()
  const postal = table.locator('[role="row"][data-fact="94107"]')
  await expect(postal).toHaveCount(1)
  await expect(postal.getByTestId('fact-importance')).toHaveText('stated by the user')
  await expect.poll(() => page.evaluate(() => window.location.hash)).not.toContain('watch=')
  expect(errors).toEqual([])
})
