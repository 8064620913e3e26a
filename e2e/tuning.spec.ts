import { expect, test } from '@playwright/test'
import { openApp, watchErrors } from './helpers'

test('moving keep_last re-runs in the worker and changes the After column and the totals', async ({ page }) => {
  const errors = watchErrors(page)
  await openApp(page)
  const tokensAfter = page.getByTestId('tokens-after')
  const messagesAfter = page.getByTestId('messages-after')
  const initialTokens = await tokensAfter.textContent()
  const initialMessages = await messagesAfter.textContent()
  const afterRows = page.getByTestId('after-column').getByRole('row')
  const firstAfterRows = await afterRows.evaluateAll((els) => els.map((e) => e.getAttribute('data-id')).join(','))

  // Drag by keyboard: ten steps down, each an input event (runs coalesce in the store).
  const slider = page.getByRole('slider', { name: 'summarize keep_last' })
  await slider.focus()
  for (let i = 0; i < 10; i++) await slider.press('ArrowLeft')
  await expect(page.getByRole('spinbutton', { name: 'summarize keep_last value' })).toHaveValue('10')

  await expect(tokensAfter).not.toHaveText(initialTokens ?? '')
  await expect(messagesAfter).not.toHaveText(initialMessages ?? '')
  await expect(page.getByTestId('loading')).toHaveCount(0)
  await expect
    .poll(() => afterRows.evaluateAll((els) => els.map((e) => e.getAttribute('data-id')).join(',')))
    .not.toBe(firstAfterRows)
  expect(errors).toEqual([])
})

test('compact_after above the message count turns summarize off and explains why', async ({ page }) => {
  const errors = watchErrors(page)
  await openApp(page)
  // Only summarize: switch the others off so "nothing fired" is about its threshold.
  await page.getByRole('switch', { name: 'Enable dedupe' }).click()
  await page.getByRole('switch', { name: 'Enable prune-tool-results' }).click()
  await page.getByRole('spinbutton', { name: 'summarize compact_after value' }).fill('100')

  await expect(page.getByTestId('nothing-fired')).toBeVisible()
  await expect(page.getByTestId('nothing-fired')).toContainText('compact_after 100')
  await expect(page.getByTestId('tokens-saved')).toHaveText('0% tokens')
  await expect(page.getByTestId('tokens-after')).toHaveText((await page.getByTestId('tokens-before').textContent()) ?? '')

  // Back down: summarize fires again.
  await page.getByRole('spinbutton', { name: 'summarize compact_after value' }).fill('30')
  await expect(page.getByTestId('nothing-fired')).toHaveCount(0)
  await expect(page.getByTestId('tokens-saved')).toHaveText(/^−\d+(\.\d)?% tokens$/)
  expect(errors).toEqual([])
})

test('reordering and toggling stages re-runs; the table view sorts and filters', async ({ page }) => {
  const errors = watchErrors(page)
  await openApp(page)
  // The default order grows as stages land: read summarize's position instead of assuming it.
  const order = async () => page.locator('[data-stage]').evaluateAll((els) => els.map((e) => e.getAttribute('data-stage')))
  const at = (await order()).indexOf('summarize')
  expect(at).toBeGreaterThan(0)
  await page.getByRole('button', { name: 'Move summarize up' }).click()
  await expect(page.locator('[data-stage]').nth(at - 1)).toHaveAttribute('data-stage', 'summarize')
  await expect(page.getByTestId('loading')).toHaveCount(0)

  // keep_steps < 1 is the seed's error: the stage reports it and passes its input on.
  await page.getByRole('spinbutton', { name: 'prune-tool-results keep_steps value' }).fill('0')
  const prune = page.locator('[data-stage="prune-tool-results"]')
  await expect(prune.getByRole('alert')).toContainText(/^Error: .*keep_steps/)
  await page.getByRole('spinbutton', { name: 'prune-tool-results keep_steps value' }).fill('1')
  await expect(prune.getByRole('alert')).toHaveCount(0)

  await page.getByRole('tab', { name: 'Table' }).click()
  const table = page.getByTestId('message-table')
  await page.getByLabel('Filter by role').selectOption('tool')
  const roles = await table.locator('[role="row"][data-id] [role="cell"]:nth-child(2)').allTextContents()
  expect(roles.length).toBeGreaterThan(0)
  expect(new Set(roles)).toEqual(new Set(['tool']))

  // Numbers sort largest first on the first click, then ascending.
  const header = table.getByRole('columnheader', { name: /Tokens/ })
  const tokenCells = table.locator('[role="row"][data-id] [role="cell"]:nth-child(3)')
  const numbers = async () => (await tokenCells.allTextContents()).map((t) => Number(t.replace(/,/g, '')))
  await header.getByRole('button').click()
  await expect(header).toHaveAttribute('aria-sort', 'descending')
  const descending = await numbers()
  expect(descending).toEqual([...descending].sort((a, b) => b - a))
  await header.getByRole('button').click()
  await expect(header).toHaveAttribute('aria-sort', 'ascending')
  const ascending = await numbers()
  expect(ascending).toEqual([...ascending].sort((a, b) => a - b))
  expect(errors).toEqual([])
})

test('slim keep and pin-facts max_facts have controls from their definitions; a change re-runs and goes into the link', async ({ page, context }) => {
  const errors = watchErrors(page)
  await openApp(page)
  const hash = () => page.evaluate(() => decodeURIComponent(window.location.hash))
  // Both stages start off, with their defaults: slim keep 5 items, pin-facts 40 facts.
  const keep = page.getByRole('spinbutton', { name: 'slim keep value' })
  const maxFacts = page.getByRole('spinbutton', { name: 'pin-facts max_facts value' })
  await expect(keep).toHaveValue('5')
  await expect(keep).toBeDisabled()
  await expect(maxFacts).toHaveValue('40')
  await expect(page.locator('[data-stage="slim"] .param__unit')).toHaveText('items')
  await expect(page.locator('[data-stage="pin-facts"] .param__unit')).toHaveText('facts')

  await page.getByRole('switch', { name: 'Enable slim' }).click()
  await expect(keep).toBeEnabled()
  await page.getByRole('slider', { name: 'slim keep' }).fill('2')
  await expect(keep).toHaveValue('2')
  await expect.poll(hash).toMatch(/slim[^;]*keep=2/)

  // Below its minimum (1) the engine uses the default, and the control says so.
  await page.getByRole('switch', { name: 'Enable pin-facts' }).click()
  await maxFacts.fill('0')
  await expect(page.getByTestId('param-note-max_facts')).toHaveText('engine uses the default, 40')
  await maxFacts.fill('7')
  await expect(page.getByTestId('param-note-max_facts')).toHaveCount(0)
  await expect.poll(hash).toMatch(/pin-facts[^;]*max_facts=7/)
  await expect(page.getByTestId('loading')).toHaveCount(0)

  // The link restores both.
  const other = await context.newPage()
  await other.goto(page.url())
  await expect(other.getByTestId('totals')).toBeVisible({ timeout: 90_000 })
  await expect(other.getByRole('spinbutton', { name: 'slim keep value' })).toHaveValue('2')
  await expect(other.getByRole('spinbutton', { name: 'pin-facts max_facts value' })).toHaveValue('7')
  await expect(other.getByTestId('config-notice')).toHaveCount(0)
  await other.close()
  expect(errors).toEqual([])
})
