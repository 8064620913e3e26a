import { expect, test, type Page } from '@playwright/test'
import { openApp, watchErrors } from './helpers'

const firstLoad = { timeout: 90_000 }

/** Waits until the first-start sample has been run (after a goto with a link). */
async function waitForFirstRun(page: Page): Promise<void> {
  await expect(page.getByTestId('file-info')).toContainText('claude-code.jsonl', firstLoad)
  await expect(page.getByTestId('totals')).toBeVisible(firstLoad)
  await expect(page.getByTestId('loading')).toHaveCount(0, firstLoad)
}

const hash = (page: Page) => page.evaluate(() => window.location.hash)
/** `−1,234 tokens (…)` → 1234. */
const tokensIn = (text: string | null) => Number(/([\d,]+) tokens/.exec(text ?? '')?.[1]?.replace(/,/g, '') ?? NaN)

test('a slider change goes into the URL hash; the link restores it and the same After; undo and redo', async ({ page, context }) => {
  const errors = watchErrors(page)
  await openApp(page)
  await expect.poll(() => hash(page)).toContain('cfg=v1;')
  // Chromium counts the initial about:blank of a new page: compare with the length now, not 1.
  const historyLength = await page.evaluate(() => window.history.length)
  const keepLast = page.getByRole('spinbutton', { name: 'summarize keep_last value' })
  const tokensAfter = page.getByTestId('tokens-after')
  await expect(keepLast).toHaveValue('20')
  const defaultTokens = await tokensAfter.textContent()

  // One slider change, one run.
  await page.getByRole('slider', { name: 'summarize keep_last' }).fill('12')
  await expect(keepLast).toHaveValue('12')
  await expect.poll(() => hash(page)).toContain('keep_last=12')
  await expect(tokensAfter).not.toHaveText(defaultTokens ?? '')
  await expect(page.getByTestId('loading')).toHaveCount(0)
  const linkedTokens = await tokensAfter.textContent()
  // Replaced, not pushed: the settings never add history entries.
  expect(await page.evaluate(() => window.history.length)).toBe(historyLength)

  // The link in a fresh tab: same keep_last, same After totals, no notice.
  const url = page.url()
  const other = await context.newPage()
  const otherErrors = watchErrors(other)
  await other.goto(url)
  await waitForFirstRun(other)
  await expect(other.getByRole('spinbutton', { name: 'summarize keep_last value' })).toHaveValue('12')
  await expect(other.getByTestId('tokens-after')).toHaveText(linkedTokens ?? '')
  await expect(other.getByTestId('config-notice')).toHaveCount(0)
  expect(otherErrors).toEqual([])
  await other.close()

  // Undo / redo: buttons and keys, the hash follows.
  await page.getByRole('slider', { name: 'summarize keep_last' }).fill('30')
  await expect(keepLast).toHaveValue('30')
  await page.getByRole('button', { name: 'Undo' }).click()
  await expect(keepLast).toHaveValue('12')
  await expect(tokensAfter).toHaveText(linkedTokens ?? '')
  await expect.poll(() => hash(page)).toContain('keep_last=12')
  await page.keyboard.press('Control+Shift+Z')
  await expect(keepLast).toHaveValue('30')
  await expect.poll(() => hash(page)).toContain('keep_last=30')
  await page.keyboard.press('Control+z')
  await expect(keepLast).toHaveValue('12')
  await page.getByRole('button', { name: 'Undo' }).click()
  await expect(keepLast).toHaveValue('20')
  await expect(tokensAfter).toHaveText(defaultTokens ?? '')
  await expect(page.getByRole('button', { name: 'Undo' })).toBeDisabled()
  await page.keyboard.press('Control+y')
  await expect(keepLast).toHaveValue('12')

  // Typing in a number field keeps its own undo: Ctrl+Z there is not the settings'.
  await keepLast.fill('14')
  await expect.poll(() => hash(page)).toContain('keep_last=14')
  await keepLast.press('Control+z')
  await expect(page.getByRole('button', { name: 'Redo' })).toBeDisabled()
  expect(errors).toEqual([])
})

test('Copy link copies the address with the settings', async ({ page, context }) => {
  const errors = watchErrors(page)
  await context.grantPermissions(['clipboard-read', 'clipboard-write'])
  await openApp(page)
  await page.getByRole('switch', { name: 'Enable dedupe' }).click()
  await page.getByRole('button', { name: 'Copy link' }).click()
  await expect(page.getByRole('button', { name: 'Link copied' })).toBeVisible()
  const copied = await page.evaluate(() => navigator.clipboard.readText())
  expect(copied).toBe(page.url())
  expect(copied).toContain(';-dedupe;')
  expect(errors).toEqual([])
})

test('a link with unknown or invalid settings opens with the rest applied and a one-line notice', async ({ page }) => {
  const errors = watchErrors(page)
  await page.goto('/#cfg=v1;summarize:keep_last=abc,compact_after=35;bogus;-dedupe')
  await waitForFirstRun(page)
  await expect(page.getByTestId('config-notice')).toContainText('unknown stage "bogus"')
  await expect(page.getByTestId('config-notice')).toContainText('keep_last "abc" is not a number')
  await expect(page.getByRole('spinbutton', { name: 'summarize keep_last value' })).toHaveValue('20')
  await expect(page.getByRole('spinbutton', { name: 'summarize compact_after value' })).toHaveValue('35')
  await expect(page.getByRole('switch', { name: 'Enable dedupe' })).not.toBeChecked()
  // summarize was named first: it runs first now.
  await expect(page.locator('[data-stage]').first()).toHaveAttribute('data-stage', 'summarize')
  await page.getByTestId('config-notice').getByRole('button', { name: 'Dismiss' }).click()
  await expect(page.getByTestId('config-notice')).toHaveCount(0)
  expect(errors).toEqual([])
})

test('stage by stage: the After after dedupe saves less than the final After; back to the final', async ({ page }) => {
  const errors = watchErrors(page)
  await openApp(page)
  await page.getByRole('tab', { name: 'Stage by stage' }).click()
  const caption = page.getByTestId('stage-caption')
  await expect(caption).toContainText('final After')
  const finalSaved = tokensIn(await page.getByTestId('stage-savings').textContent())
  expect(finalSaved).toBeGreaterThan(0)

  await page.getByTestId('stage-step-dedupe').click()
  await expect(page.getByTestId('stage-step-dedupe')).toHaveAttribute('aria-pressed', 'true')
  await expect(caption).toContainText('after stage 1 of 3: dedupe')
  await expect(page.getByTestId('after-column')).toBeVisible()
  await expect(page.getByRole('heading', { name: 'After stage 1 · dedupe' })).toBeVisible()
  const dedupeSaved = tokensIn(await page.getByTestId('stage-savings').textContent())
  expect(dedupeSaved).toBeGreaterThan(0)
  expect(dedupeSaved).toBeLessThan(finalSaved)
  // After dedupe nothing is summarized yet: the After column has no summary boundary.
  await expect(page.getByTestId('after-column').locator('.boundary--summary')).toHaveCount(0)
  // The step's own saving is what the strip says the stage saved.
  await expect(page.getByTestId('stage-step-dedupe')).toContainText(`−${dedupeSaved.toLocaleString('en-US')} tokens`)

  await page.getByRole('button', { name: 'Back to the final After' }).click()
  await expect(caption).toContainText('final After')
  await expect(page.getByTestId('stage-step-final')).toHaveAttribute('aria-pressed', 'true')
  expect(errors).toEqual([])
})
