import { expect, test, type Page } from '@playwright/test'
import { axeFailures as failures, openApp, rows, watchErrors } from './helpers'

// A grid on the sample runs 64 pipelines in the worker: allow it time on a busy machine.
const slow = { timeout: 90_000 }

/** Waits until the selected tab's panel is shown and nothing in it is still loading. */
async function showTab(page: Page, name: string): Promise<void> {
  await page.getByRole('tablist', { name: 'View' }).getByRole('tab', { name, exact: true }).click()
  await expect(page.getByRole('tabpanel', { name, exact: true })).toBeVisible()
  await expect(page.getByTestId('loading')).toHaveCount(0, slow)
}

/** Opens the app with the OS asking for the other scheme, then picks `theme` in the page's own picker. */
async function openIn(page: Page, theme: 'Light' | 'Dark'): Promise<void> {
  await page.emulateMedia({ colorScheme: theme === 'Light' ? 'dark' : 'light' })
  await openApp(page)
  await page.getByRole('combobox', { name: 'Theme' }).selectOption(theme)
  await expect(page.locator('html')).toHaveAttribute('data-theme', theme.toLowerCase())
}

for (const theme of ['Light', 'Dark'] as const) {
  test.describe(`${theme} theme`, () => {
    // Each axe run walks the whole page on a shared 2-core machine.
    test.slow()

    test('axe finds no critical or serious violation on any tab', async ({ page }) => {
      const errors = watchErrors(page)
      await openIn(page, theme)
      const found: string[] = []
      // Every tab of the tab bar, read from the page so a new view is covered without an edit here.
      const names = await page.getByRole('tablist', { name: 'View' }).getByRole('tab').allInnerTexts()
      expect(names.length).toBeGreaterThan(0)
      for (const name of names) {
        await showTab(page, name)
        found.push(...(await failures(page, name)))
      }
      expect(found, found.join('\n')).toEqual([])
      expect(errors).toEqual([])
    })

    test('axe finds no critical or serious violation on the heat map, coloured by each metric', async ({ page }) => {
      const errors = watchErrors(page)
      await openIn(page, theme)
      await showTab(page, 'Sweep')
      const sweep = page.getByTestId('sweep-view')
      await sweep.getByTestId('sweep-run').click()
      await expect(sweep.getByTestId('sweep-progress')).toHaveAttribute('data-status', 'done', slow)
      const found: string[] = []
      // The cells' colours are data: their text must stay readable under every metric's scale.
      const metrics = sweep.getByRole('radiogroup', { name: 'Colour by' }).getByRole('radio')
      for (const metric of await metrics.allInnerTexts()) {
        await metrics.filter({ hasText: metric }).click()
        await expect(metrics.filter({ hasText: metric })).toHaveAttribute('aria-checked', 'true')
        found.push(...(await failures(page, `heat map: ${metric}`, '.heatmap')))
      }
      expect(found, found.join('\n')).toEqual([])
      expect(errors).toEqual([])
    })

    test('axe finds no critical or serious violation with a row expanded, the shortcuts open, the Export menu open and in presentation mode', async ({ page }) => {
      const errors = watchErrors(page)
      await openIn(page, theme)
      const found: string[] = []
      await rows(page, 'before').getByRole('button', { name: 'Show full message' }).first().click()
      await expect(rows(page, 'before').getByRole('button', { name: 'Collapse message' })).toHaveCount(1)
      found.push(...(await failures(page, 'expanded row')))

      await page.getByRole('tabpanel', { name: 'Before | After' }).focus()
      await page.keyboard.press('?')
      await expect(page.getByRole('dialog')).toBeVisible()
      found.push(...(await failures(page, 'shortcuts dialog')))
      await page.keyboard.press('Escape')
      await expect(page.getByRole('dialog')).toHaveCount(0)

      await page.getByText('Export ▾').click()
      await expect(page.getByRole('button', { name: 'Report…' })).toBeVisible()
      found.push(...(await failures(page, 'Export menu')))
      await page.getByText('Export ▾').click()

      await page.getByRole('button', { name: 'Present' }).click()
      await expect(page.getByRole('button', { name: /Leave presentation/ })).toBeVisible()
      found.push(...(await failures(page, 'presentation mode')))
      expect(found, found.join('\n')).toEqual([])
      expect(errors).toEqual([])
    })
  })
}
