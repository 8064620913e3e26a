import { readFileSync } from 'node:fs'
import { expect, test, type Locator, type Page } from '@playwright/test'
import { openApp, rows, watchErrors } from './helpers'

/** Messages of the bundled sample (public/samples/claude-code.jsonl): the Before's row count. */
const SAMPLE_MESSAGES = 44

/** A4's width less 12 mm margins each side (print.css @page), in CSS pixels: the printed layout's width. */
const PAPER = { width: Math.round(((210 - 24) / 25.4) * 96), height: 1000 }

/** The PNG signature and the width/height of its IHDR chunk (bytes 16–23, big-endian). */
function pngSize(bytes: Buffer): { width: number; height: number } {
  expect([...bytes.subarray(0, 8)]).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])
  expect(bytes.subarray(12, 16).toString('latin1')).toBe('IHDR')
  return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) }
}

/** Clicks a Save as PNG button; checks the file's name and that it is about 2× `captured`'s CSS size. */
async function savesPng(page: Page, subject: string, captured: Locator, name: string, keepAt: string): Promise<void> {
  const box = await captured.boundingBox()
  expect(box).not.toBeNull()
  const [file] = await Promise.all([page.waitForEvent('download'), page.getByTestId(`save-png-${subject}`).click()])
  expect(file.suggestedFilename()).toBe(name)
  // Kept with the test's results, to look at.
  await file.saveAs(keepAt)
  const { width, height } = pngSize(readFileSync(await file.path()))
  expect(width).toBeGreaterThan(0)
  expect(height).toBeGreaterThan(0)
  // html-to-image draws the element's layout size (whole CSS pixels) at pixel ratio 2.
  expect(Math.abs(width - 2 * (box?.width ?? 0))).toBeLessThanOrEqual(4)
  expect(Math.abs(height - 2 * (box?.height ?? 0))).toBeLessThanOrEqual(4)
}

test('the totals card, the timeline and the heat map each save as a PNG at twice their size', async ({
  page,
}, testInfo) => {
  const errors = watchErrors(page)
  await openApp(page)

  await savesPng(page, 'totals', page.getByTestId('totals'), 'claude-code-totals.png', testInfo.outputPath('claude-code-totals.png'))

  await page.getByRole('tab', { name: 'Timeline' }).click()
  await expect(page.getByTestId('timeline-chart').locator('canvas').first()).toBeVisible()
  await expect(page.getByTestId('timeline-caption')).toHaveAttribute('data-done', 'true')
  await savesPng(page, 'timeline', page.getByTestId('timeline-view'), 'claude-code-timeline.png', testInfo.outputPath('claude-code-timeline.png'))

  await page.getByRole('tab', { name: 'Sweep' }).click()
  const sweep = page.getByTestId('sweep-view')
  await sweep.getByTestId('sweep-run').click()
  await expect(sweep.getByTestId('sweep-progress')).toHaveAttribute('data-status', 'done', { timeout: 120_000 })
  await savesPng(page, 'heatmap', sweep.locator('.heatmap'), 'claude-code-heatmap.png', testInfo.outputPath('claude-code-heatmap.png'))

  expect(errors).toEqual([])
})

test('printing Before | After shows every row, wrapped, without the sidebar or controls, and makes a PDF', async ({
  page,
}, testInfo) => {
  const errors = watchErrors(page)
  await openApp(page)
  await page.setViewportSize(PAPER)
  await page.emulateMedia({ media: 'print' })
  await page.evaluate(() => window.dispatchEvent(new Event('beforeprint')))

  for (const hidden of ['.panel--pipeline', '.app-header', '.tabs-row', '.compare__toolbar', '.split']) {
    await expect(page.locator(hidden).first()).toBeHidden()
  }
  await expect(page.getByTestId('print-heading')).toBeVisible()
  await expect(page.getByTestId('print-heading')).toContainText('claude-code.jsonl')
  await expect(page.getByTestId('print-heading')).toContainText('Settings: o200k_base')
  await expect(page.getByTestId('totals')).toBeVisible()

  // Every Before row is in the DOM (the column is not virtualised while printing).
  await expect(rows(page, 'before')).toHaveCount(SAMPLE_MESSAGES)
  // The previews are not clamped: no row's preview hides text below its box.
  const clamped = await page
    .getByTestId('before-column')
    .locator('.msg__preview')
    .evaluateAll((els) => els.filter((el) => el.scrollHeight > el.clientHeight + 1).length)
  expect(clamped).toBe(0)
  const lineClamp = await page
    .getByTestId('before-column')
    .locator('.msg__preview')
    .first()
    .evaluate((el) => getComputedStyle(el).webkitLineClamp)
  expect(lineClamp).toBe('none')
  // No row is split across pages.
  const splittable = await page
    .locator('.column__item--printed')
    .evaluateAll((els) => els.filter((el) => getComputedStyle(el).breakInside !== 'avoid').length)
  expect(splittable).toBe(0)
  // The two columns stand side by side.
  const before = await page.getByTestId('before-column').boundingBox()
  const after = await page.getByTestId('after-column').boundingBox()
  expect(before && after && after.x > before.x + before.width - 1).toBe(true)

  await page.screenshot({ path: testInfo.outputPath('print.png'), fullPage: true })
  const pdf = await page.pdf({ format: 'A4', printBackground: true })
  expect(pdf.subarray(0, 5).toString('latin1')).toBe('%PDF-')
  await testInfo.attach('print.pdf', { body: pdf, contentType: 'application/pdf' })

  // After printing the column is virtualised again: only a window of rows.
  await page.evaluate(() => window.dispatchEvent(new Event('afterprint')))
  await page.emulateMedia({ media: 'screen' })
  await expect(page.getByTestId('before-column').locator('.column__item--printed')).toHaveCount(0)
  expect(errors).toEqual([])
})

test('the Export menu offers Print, which calls window.print()', async ({ page }) => {
  await openApp(page)
  await page.evaluate(() => {
    ;(window as unknown as { __printed: number }).__printed = 0
    window.print = () => {
      ;(window as unknown as { __printed: number }).__printed++
    }
  })
  await page.getByTestId('export-menu').locator('summary').click()
  await page.getByTestId('print').click()
  expect(await page.evaluate(() => (window as unknown as { __printed: number }).__printed)).toBe(1)
})

test('the Facts tab prints its table without its inner scroll box, at the page width', async ({ page }, testInfo) => {
  const errors = watchErrors(page)
  await openApp(page)
  await page.getByRole('tab', { name: 'Facts' }).click()
  await expect(page.getByTestId('facts-table')).toBeVisible()
  await page.setViewportSize(PAPER)
  await page.emulateMedia({ media: 'print' })
  await page.evaluate(() => window.dispatchEvent(new Event('beforeprint')))
  await expect(page.locator('.panel--pipeline')).toBeHidden()
  await expect(page.locator('.tabs-row')).toBeHidden()
  // The table's scroll box (its test id) lets its columns out onto the page.
  const overflow = await page.getByTestId('facts-table').evaluate((el) => getComputedStyle(el).overflowX)
  expect(overflow).toBe('visible')
  await page.screenshot({ path: testInfo.outputPath('print-facts.png'), fullPage: true })
  expect(errors).toEqual([])
})
