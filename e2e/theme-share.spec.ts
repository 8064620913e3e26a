import { expect, test, type Page } from '@playwright/test'
import { openApp, watchErrors } from './helpers'

// The palette's --bg and --surface (src/styles/app.css), as computed colours.
const DARK_BG = 'rgb(14, 17, 23)' // #0e1117
const DARK_SURFACE = 'rgb(22, 27, 34)' // #161b22
const LIGHT_BG = 'rgb(246, 247, 249)' // #f6f7f9
const LIGHT_SURFACE = 'rgb(255, 255, 255)' // #ffffff

/** The page's background (on <html>) and the header's, as computed. */
async function backgrounds(page: Page): Promise<{ page: string; header: string }> {
  return {
    page: await page.evaluate(() => getComputedStyle(document.documentElement).backgroundColor),
    header: await page.locator('header.app-header').evaluate((el) => getComputedStyle(el).backgroundColor),
  }
}

test('Dark forces the dark palette on a light OS and survives a reload; System follows the OS again', async ({ page }) => {
  const errors = watchErrors(page)
  await page.emulateMedia({ colorScheme: 'light' })
  await openApp(page)
  const theme = page.getByRole('combobox', { name: 'Theme' })
  await expect(theme).toHaveValue('system')
  expect(await backgrounds(page)).toEqual({ page: LIGHT_BG, header: LIGHT_SURFACE })

  await theme.selectOption('Dark')
  await expect(page.locator('html')).toHaveAttribute('data-theme', 'dark')
  expect(await backgrounds(page)).toEqual({ page: DARK_BG, header: DARK_SURFACE })

  await page.reload()
  await expect(page.locator('html')).toHaveAttribute('data-theme', 'dark')
  await expect(page.getByRole('combobox', { name: 'Theme' })).toHaveValue('dark')
  expect(await backgrounds(page)).toEqual({ page: DARK_BG, header: DARK_SURFACE })

  await page.getByRole('combobox', { name: 'Theme' }).selectOption('System')
  await expect(page.locator('html')).not.toHaveAttribute('data-theme', /.*/)
  expect(await backgrounds(page)).toEqual({ page: LIGHT_BG, header: LIGHT_SURFACE })
  expect(await page.evaluate(() => localStorage.getItem('compaction-inspector:theme'))).toBeNull()
  expect(errors).toEqual([])
})

test('Light stays light on a dark OS; System then follows the dark OS', async ({ page }) => {
  const errors = watchErrors(page)
  await page.emulateMedia({ colorScheme: 'dark' })
  await openApp(page)
  expect(await backgrounds(page)).toEqual({ page: DARK_BG, header: DARK_SURFACE })

  const theme = page.getByRole('combobox', { name: 'Theme' })
  await theme.selectOption('Light')
  await expect(page.locator('html')).toHaveAttribute('data-theme', 'light')
  expect(await backgrounds(page)).toEqual({ page: LIGHT_BG, header: LIGHT_SURFACE })
  expect(await page.evaluate(() => localStorage.getItem('compaction-inspector:theme'))).toBe('light')

  await page.reload()
  await expect(page.locator('html')).toHaveAttribute('data-theme', 'light')
  expect(await backgrounds(page)).toEqual({ page: LIGHT_BG, header: LIGHT_SURFACE })
  expect(errors).toEqual([])
})

test('Copy link says it carries the settings only, before and after copying', async ({ page, context }) => {
  const errors = watchErrors(page)
  await context.grantPermissions(['clipboard-read', 'clipboard-write'])
  await openApp(page)
  const copy = page.getByRole('button', { name: 'Copy link' })
  await expect(copy).toHaveAccessibleDescription(/^Settings only — the other person opens their own copy of the transcript\./)
  await expect(copy).toHaveAttribute('title', /never the transcript or an API key/)

  await copy.click()
  await expect(page.getByRole('button', { name: 'Link copied' })).toBeVisible()
  await expect(page.getByTestId('link-copied')).toHaveText(
    'Settings only — the other person opens their own copy of the transcript.',
  )
  const status = page.getByTestId('copy-status')
  await expect(status).toHaveRole('status')
  await expect(status).toHaveText('Link copied. Settings only — the other person opens their own copy of the transcript.')
  expect(errors).toEqual([])
})

test('the Copy link confirmation stays until the settings change or the next click', async ({ page, context }) => {
  const errors = watchErrors(page)
  await context.grantPermissions(['clipboard-read', 'clipboard-write'])
  await page.clock.install()
  await openApp(page)
  const confirmation = page.getByTestId('link-copied')

  await page.getByRole('button', { name: 'Copy link' }).click()
  await expect(confirmation).toBeVisible()
  // A minute later, nothing else done: still there.
  await page.clock.fastForward('01:00')
  await expect(confirmation).toBeVisible()
  await expect(page.getByRole('button', { name: 'Link copied' })).toBeVisible()
  // A settings change (typed, no click) makes the copied link stale: the confirmation goes.
  await page.getByRole('spinbutton', { name: 'summarize keep_last value' }).fill('9')
  await expect(confirmation).toHaveCount(0)
  await expect(page.getByRole('button', { name: 'Copy link' })).toBeVisible()

  await page.getByRole('button', { name: 'Copy link' }).click()
  await expect(confirmation).toBeVisible()
  await page.getByRole('heading', { level: 1 }).click()
  await expect(confirmation).toHaveCount(0)
  await expect(page.getByTestId('copy-status')).toHaveText('')
  expect(errors).toEqual([])
})
