import { expect, test, type Page } from '@playwright/test'
import { openApp, watchErrors } from './helpers'

/** Each rendered item of a column as [top, height] (px, on screen), in order. */
function boxes(page: Page, side: 'before' | 'after'): Promise<[number, number][]> {
  return page
    .getByTestId(`${side}-column`)
    .evaluate((col) => [...col.querySelectorAll<HTMLElement>('.column__item')].map((el) => {
      const b = el.getBoundingClientRect()
      return [b.top, b.height] as [number, number]
    }))
}

/** Pairs of neighbouring items where the next one starts inside the one before (px slack for rounding). */
const overlaps = (items: [number, number][]) => items.filter(([top], i) => i > 0 && top < items[i - 1]![0] + items[i - 1]![1] - 1.5)

test('rows of both columns stand one below the other at their measured heights, after a scroll and a re-plan', async ({ page }) => {
  const errors = watchErrors(page)
  await openApp(page)
  // Synced: the After follows the Before's scroll; rows are taller than the height estimated.
  await page.getByTestId('before-column').evaluate((el) => el.scrollTo(0, 1500))
  for (const side of ['before', 'after'] as const) {
    await expect.poll(async () => (await boxes(page, side)).length).toBeGreaterThan(3)
    await expect.poll(async () => overlaps(await boxes(page, side))).toEqual([])
  }
  // A re-plan: new rows for the same messages, some at other positions.
  const keep = page.getByRole('spinbutton', { name: 'target' }).first()
  await keep.fill('20000')
  await keep.press('Enter')
  for (const side of ['before', 'after'] as const) {
    await expect.poll(async () => overlaps(await boxes(page, side))).toEqual([])
  }
  expect(errors).toEqual([])
})
