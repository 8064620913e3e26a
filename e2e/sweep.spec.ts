import { expect, test } from '@playwright/test'
import { fillSweepRanges, openApp, watchErrors } from './helpers'

// A grid on a 44-message transcript runs 64 pipelines in the worker: allow it time on a busy machine.
const gridDone = { timeout: 90_000 }

test('an 8 × 8 sweep on the Claude Code sample fills 64 cells; clicking one applies its values to the pipeline and the link', async ({
  page,
}) => {
  const errors = watchErrors(page)
  await openApp(page)
  await page.getByRole('tab', { name: 'Sweep' }).click()
  const view = page.getByTestId('sweep-view')
  // Defaults around the current keep_last 20 / compact_after 40: 5…40 step 5, 10…80 step 10.
  await expect(view.getByLabel('x parameter')).toHaveValue('keep_last')
  await expect(view.getByLabel('y parameter')).toHaveValue('compact_after')
  await expect(view.getByLabel('x from')).toHaveValue('5')
  await expect(view.getByLabel('y to')).toHaveValue('80')

  await view.getByTestId('sweep-run').click()
  const progress = view.getByTestId('sweep-progress')
  await expect(progress).toHaveAttribute('data-status', 'done', gridDone)
  await expect(progress).toContainText('64 cells')
  await expect(view.getByRole('progressbar', { name: 'Sweep progress' })).toHaveAttribute('aria-valuenow', '64')
  const cells = view.getByTestId('sweep-cell')
  await expect(cells).toHaveCount(64)
  // The current settings (keep_last 20, compact_after 40) are on the grid, marked.
  await expect(view.locator('[data-testid="sweep-cell"][data-current]')).toHaveCount(1)

  const hashBefore = await page.evaluate(() => location.hash)
  const pick = view.locator('[data-testid="sweep-cell"][data-x="10"][data-y="30"]')
  await expect(pick).toHaveAttribute('aria-label', /^keep_last 10, compact_after 30: [\d,]+ tokens after/)
  await pick.click()

  await expect(page.getByRole('spinbutton', { name: 'summarize keep_last value' })).toHaveValue('10')
  await expect(page.getByRole('spinbutton', { name: 'summarize compact_after value' })).toHaveValue('30')
  await expect(pick).toHaveAttribute('data-current', 'true')
  // The run follows: the totals show the cell's tokens after.
  const cellTokens = /: ([\d,]+) tokens after/.exec((await pick.getAttribute('aria-label')) ?? '')?.[1]
  await expect(page.getByTestId('tokens-after')).toContainText(cellTokens ?? '?')
  // The settings link follows too (url-sync writes #cfg=…, debounced).
  await expect.poll(() => page.evaluate(() => location.hash)).not.toBe(hashBefore)
  await expect.poll(() => page.evaluate(() => decodeURIComponent(location.hash))).toContain('keep_last=10')
  await expect.poll(() => page.evaluate(() => decodeURIComponent(location.hash))).toContain('compact_after=30')

  // Colour by important facts lost: every cell still shows a value, and the legend names the metric.
  await view.getByRole('radio', { name: 'important facts lost' }).click()
  await expect(view.getByLabel('Legend')).toContainText('facts lost (fewer is better)')
  expect(errors).toEqual([])
})

test('target × keep_steps: keep_steps is swept from 1, a cancel keeps the cells done so far', async ({ page }) => {
  const errors = watchErrors(page)
  await openApp(page)
  await page.getByRole('tab', { name: 'Sweep' }).click()
  const view = page.getByTestId('sweep-view')
  await view.getByRole('button', { name: 'target × keep_steps' }).click()
  await expect(view.getByLabel('x parameter')).toHaveValue('target')
  await expect(view.getByLabel('y parameter')).toHaveValue('keep_steps')
  // The largest grid (50 × 50 = 2,500 cells) to cancel part-way: 320 cells could finish, with
  // cached counts and summaries, before the first cell was seen, and Cancel was gone by then.
  await fillSweepRanges(view, [500, 500, 25000], [1, 1, 50])
  await expect(view.getByTestId('sweep-run')).toHaveText('Run sweep (2500 cells)')
  await view.getByTestId('sweep-run').click()
  await expect(view.getByTestId('sweep-cell').first()).toBeVisible(gridDone)
  await view.getByTestId('sweep-cancel').click()
  const progress = view.getByTestId('sweep-progress')
  await expect(progress).toHaveAttribute('data-status', 'cancelled', gridDone)
  await expect(progress).toContainText(/cancelled: \d+ of 2500 cells/)
  const done = await view.getByTestId('sweep-cell').count()
  expect(done).toBeGreaterThan(0)
  expect(done).toBeLessThan(2500)
  expect(errors).toEqual([])
})

test('a preset sets the whole pipeline; the prune stage offers exclude_tools for the transcript’s tools', async ({ page }) => {
  const errors = watchErrors(page)
  await openApp(page)
  const picker = page.getByLabel('Preset', { exact: true })
  await expect(picker).toHaveValue('seed-defaults')
  await picker.selectOption({ label: 'Anthropic context editing (clear_tool_uses)' })
  await expect(page.getByRole('switch', { name: 'Enable summarize' })).not.toBeChecked()
  await expect(page.getByRole('switch', { name: 'Enable dedupe' })).not.toBeChecked()
  await expect(page.getByRole('switch', { name: 'Enable prune-tool-results' })).toBeChecked()
  await expect(page.getByRole('spinbutton', { name: 'prune-tool-results keep_tool_uses value' })).toHaveValue('3')
  await expect(page.getByRole('spinbutton', { name: 'prune-tool-results target value' })).toHaveValue('0')
  await expect(page.getByLabel('prune-tool-results exclude_tools')).toHaveValue('')
  await expect(picker).toHaveAttribute('title', /clear_tool_uses_20250919/)

  // Excluding a tool of the transcript is a change: no preset matches any more.
  const tools = page.getByRole('group', { name: 'Tools in this transcript' })
  await tools.getByRole('button', { name: 'Bash' }).click()
  await expect(page.getByLabel('prune-tool-results exclude_tools')).toHaveValue('Bash')
  await expect(picker).toHaveValue('')
  await expect(picker.locator('option:checked')).toHaveText('Custom settings')
  expect(errors).toEqual([])
})

test('choosing another parameter gives it its own default range around its value: slim keep 5 → 2…9, pin-facts max_facts 40 → 10…80', async ({ page }) => {
  const errors = watchErrors(page)
  await openApp(page)
  await page.getByRole('tab', { name: 'Sweep' }).click()
  const view = page.getByTestId('sweep-view')
  await view.getByLabel('x parameter').selectOption('keep')
  await expect(view.getByLabel('x from')).toHaveValue('2')
  await expect(view.getByLabel('x to')).toHaveValue('9')
  await expect(view.getByLabel('x step')).toHaveValue('1')
  await view.getByLabel('y parameter').selectOption('max_facts')
  await expect(view.getByLabel('y from')).toHaveValue('10')
  await expect(view.getByLabel('y to')).toHaveValue('80')
  await expect(view.getByLabel('y step')).toHaveValue('10')
  expect(errors).toEqual([])
})
