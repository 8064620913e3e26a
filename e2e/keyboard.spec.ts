import { expect, test } from '@playwright/test'
import { openApp, watchErrors } from './helpers'

test('the skip link is the first Tab stop and moves focus to the Before | After', async ({ page }) => {
  const errors = watchErrors(page)
  await openApp(page)
  const skip = page.getByRole('link', { name: 'Skip to the conversation' })
  await page.keyboard.press('Tab')
  await expect(skip).toBeFocused()
  await expect(skip).toBeInViewport()
  await page.keyboard.press('Enter')
  const panel = page.getByRole('tabpanel', { name: 'Before | After' })
  await expect(panel).toBeFocused()
  await expect(panel.getByTestId('before-column')).toBeVisible()
  // The fragment is not written: the hash holds the pipeline settings.
  expect(new URL(page.url()).hash).not.toContain('view-panel')
  expect(errors).toEqual([])
})

test('the tab bar moves with the arrow keys, Home and End, and only the selected tab is a Tab stop', async ({
  page,
}) => {
  const errors = watchErrors(page)
  await openApp(page)
  const tabs = page.getByRole('tablist', { name: 'View' })
  const compare = tabs.getByRole('tab', { name: 'Before | After' })
  const table = tabs.getByRole('tab', { name: 'Table' })
  const sweep = tabs.getByRole('tab', { name: 'Sweep' })
  await expect(compare).toHaveAttribute('tabindex', '0')
  await expect(table).toHaveAttribute('tabindex', '-1')

  await compare.focus()
  await page.keyboard.press('ArrowRight')
  await expect(table).toBeFocused()
  await expect(table).toHaveAttribute('aria-selected', 'true')
  await expect(table).toHaveAttribute('tabindex', '0')
  await expect(compare).toHaveAttribute('tabindex', '-1')
  await expect(page.getByRole('tabpanel', { name: 'Table' })).toBeVisible()
  await expect(page.getByTestId('before-column')).toHaveCount(0)

  await page.keyboard.press('End')
  await expect(sweep).toBeFocused()
  await expect(sweep).toHaveAttribute('aria-selected', 'true')
  // ArrowRight on the last tab wraps around to the first.
  await page.keyboard.press('ArrowRight')
  await expect(compare).toBeFocused()
  await expect(page.getByRole('tabpanel', { name: 'Before | After' })).toBeVisible()
  await page.keyboard.press('ArrowLeft')
  await expect(sweep).toBeFocused()
  await page.keyboard.press('Home')
  await expect(compare).toBeFocused()
  expect(errors).toEqual([])
})

test('/ focuses the fact finder, from another tab too, and is typed as text inside it', async ({ page }) => {
  const errors = watchErrors(page)
  await openApp(page)
  const input = page.getByTestId('fact-finder').getByRole('searchbox', { name: 'Fact to find' })
  await page.getByRole('tab', { name: 'Table' }).click()
  await expect(input).toHaveCount(0)
  await page.keyboard.press('/')
  await expect(input).toBeFocused()
  await expect(page.getByRole('tab', { name: 'Before | After' })).toHaveAttribute('aria-selected', 'true')
  // The shortcut's own key is not typed into the finder; a / typed there afterwards is text.
  await expect(input).toHaveValue('')
  await page.keyboard.type('src/')
  await expect(input).toHaveValue('src/')
  expect(errors).toEqual([])
})

test('? lists the shortcuts and Escape closes the list', async ({ page }) => {
  const errors = watchErrors(page)
  await openApp(page)
  await page.keyboard.press('?')
  const dialog = page.getByRole('dialog', { name: 'Keyboard shortcuts' })
  await expect(dialog).toBeVisible()
  await expect(dialog.getByRole('rowheader')).toHaveText(['/', '?', 'Esc', '← / →', 'Home / End', 'Tab (first stop)'])
  await page.keyboard.press('Escape')
  await expect(dialog).toHaveCount(0)
  // Typed into a field, ? is text, not the shortcut.
  const input = page.getByTestId('fact-finder').getByRole('searchbox', { name: 'Fact to find' })
  await input.fill('')
  await input.press('?')
  await expect(input).toHaveValue('?')
  await expect(dialog).toHaveCount(0)
  expect(errors).toEqual([])
})
