import { expect, test, type Page } from '@playwright/test'
import { openApp, rows, watchErrors } from './helpers'

/** The main views' tab labels, in tab order (src/app/tabs.tsx TAB_VIEWS). */
async function tabLabels(page: Page): Promise<string[]> {
  return page.getByRole('tablist', { name: 'View' }).getByRole('tab').allTextContents()
}

/**
 * What overflows the viewport sideways, measured from the DOM: the page's scroll width, every
 * visible element whose left or right edge passes the viewport and that no ancestor clips or scrolls
 * sideways, every chip or pill whose label is cut without a title, and every tool name that
 * collapsed to nothing.
 */
async function overflow(page: Page) {
  return page.evaluate(() => {
    const innerWidth = window.innerWidth
    const describe = (el: Element) =>
      `${el.tagName.toLowerCase()}.${[...el.classList].join('.')} "${(el.textContent ?? '').trim().slice(0, 40)}"`
    const clippedSideways = (el: Element) => {
      for (let a = el.parentElement; a; a = a.parentElement) {
        if (a === document.body) return false
        const x = getComputedStyle(a).overflowX
        if (x === 'auto' || x === 'scroll' || x === 'hidden' || x === 'clip') return true
      }
      return false
    }
    const visible = (el: Element) => {
      const r = el.getBoundingClientRect()
      if (r.width === 0 || r.height === 0) return false
      return getComputedStyle(el).visibility !== 'hidden' && el.checkVisibility()
    }
    const offRight: string[] = []
    for (const el of document.body.querySelectorAll('*')) {
      if (!visible(el)) continue
      const r = el.getBoundingClientRect()
      if ((r.right > innerWidth + 0.5 || r.left < -0.5) && !clippedSideways(el)) offRight.push(describe(el))
    }
    const cutChips: string[] = []
    for (const el of document.querySelectorAll('.chip, .pill')) {
      if (!visible(el)) continue
      const h = el as HTMLElement
      if (h.scrollWidth > h.clientWidth + 1 && !h.title) cutChips.push(describe(el))
    }
    const emptyTools: string[] = []
    for (const el of document.querySelectorAll('.msg__tool')) {
      if (el.getBoundingClientRect().width <= 0) emptyTools.push(describe(el))
    }
    return {
      scrollWidth: document.scrollingElement?.scrollWidth ?? 0,
      innerWidth,
      offRight,
      cutChips,
      emptyTools,
      tools: document.querySelectorAll('.msg__tool').length,
    }
  })
}

/** The heights of the Before and After column boxes, the viewport's, and whether the page scrolls. */
async function columnShare(page: Page) {
  return page.evaluate(() => {
    const box = (id: string) => document.querySelector(`[data-testid="${id}"]`)?.closest('.column')?.getBoundingClientRect()
    const main = document.querySelector('main.content') as HTMLElement
    return {
      before: box('before-column')?.height ?? 0,
      after: box('after-column')?.height ?? 0,
      bottom: Math.max(box('before-column')?.bottom ?? 0, box('after-column')?.bottom ?? 0),
      innerHeight: window.innerHeight,
      pageScrolls: (document.scrollingElement?.scrollHeight ?? 0) > window.innerHeight,
      mainScrolls: main.scrollHeight > main.clientHeight + 1,
    }
  })
}

test('at 1440×900 the two columns take at least 70% of the height and the page does not scroll', async ({ page }) => {
  const errors = watchErrors(page)
  await page.setViewportSize({ width: 1440, height: 900 })
  await openApp(page)
  await expect(rows(page, 'before').first()).toBeVisible()
  // The sidebar is open: the measure is with the pipeline beside the columns.
  await expect(page.getByRole('complementary', { name: 'Pipeline' })).toBeVisible()
  const m = await columnShare(page)
  expect(m.before).toBeGreaterThanOrEqual(0.7 * m.innerHeight)
  expect(m.after).toBeGreaterThanOrEqual(0.7 * m.innerHeight)
  expect(m.bottom).toBeLessThanOrEqual(m.innerHeight)
  expect(m.pageScrolls).toBe(false)
  expect(m.mainScrolls).toBe(false)
  // The legend sits in Before | After's own toolbar; the downloads and the costs are one click away.
  await expect(page.getByTestId('fact-finder').locator('..').getByLabel('Legend')).toBeVisible()
  await expect(page.getByRole('group', { name: /^Download the/ })).toBeHidden()
  await page.getByTestId('export-menu').locator('summary').click()
  await expect(page.getByRole('group', { name: /^Download the/ }).getByRole('button', { name: 'Canonical JSON' })).toBeVisible()
  await expect(page.getByTestId('cost-view').locator('summary')).toHaveText('Cost of compaction')
  // Another view has no legend of Before | After above it.
  await page.getByRole('tab', { name: 'Timeline' }).click()
  await expect(page.getByText('What do these mean?')).toHaveCount(0)
  expect(errors).toEqual([])
})

for (const [width, height] of [
  [1024, 768],
  [1440, 900],
] as const) {
  test(`at ${width}×${height} nothing on any tab overflows the viewport or is cut without a tooltip`, async ({ page }) => {
    const errors = watchErrors(page)
    await page.setViewportSize({ width, height })
    await openApp(page)
    await expect(rows(page, 'before').first()).toBeVisible()
    const labels = await tabLabels(page)
    expect(labels).toContain('Facts')
    for (const label of labels) {
      await page.getByRole('tab', { name: label, exact: true }).click()
      await expect(page.getByRole('tab', { name: label, exact: true })).toHaveAttribute('aria-selected', 'true')
      await expect(page.getByTestId('loading')).toHaveCount(0)
      if (label === 'Facts') await expect(page.getByTestId('facts-table')).toBeVisible()
      const o = await overflow(page)
      expect(o.scrollWidth, `page scroll width on ${label}`).toBeLessThanOrEqual(o.innerWidth)
      expect(o.offRight, `elements past the left or right edge on ${label}`).toEqual([])
      expect(o.cutChips, `chips cut without a title on ${label}`).toEqual([])
      expect(o.emptyTools, `tool names of no width on ${label}`).toEqual([])
      if (label === 'Before | After') expect(o.tools).toBeGreaterThan(0)
    }
    // The header's Export menu opens inside the viewport.
    await page.getByText('Export ▾').click()
    await expect(page.getByRole('button', { name: 'Report…' })).toBeVisible()
    expect((await overflow(page)).offRight, 'the open Export menu past an edge').toEqual([])
    await page.getByText('Export ▾').click()
    // The Facts table's per-pass columns scroll inside the table's own box.
    await page.getByRole('tab', { name: 'Facts', exact: true }).click()
    const box = await page.getByTestId('facts-table').evaluate((el) => ({
      right: el.getBoundingClientRect().right,
      overflowX: getComputedStyle(el).overflowX,
    }))
    expect(box.right).toBeLessThanOrEqual(width)
    expect(box.overflowX).toBe('auto')
    expect(errors).toEqual([])
  })
}

test('the pipeline sidebar collapses, stays collapsed after a reload, and opens again', async ({ page }) => {
  const errors = watchErrors(page)
  await openApp(page)
  const toggle = page.getByTestId('sidebar-toggle')
  const sidebar = page.locator('#pipeline-panel')
  await expect(toggle).toHaveAttribute('aria-expanded', 'true')
  await expect(toggle).toHaveAttribute('aria-controls', 'pipeline-panel')
  await expect(sidebar).toBeVisible()
  const widthOpen = await page.getByTestId('before-column').evaluate((el) => el.getBoundingClientRect().width)

  await toggle.click()
  await expect(toggle).toHaveAttribute('aria-expanded', 'false')
  await expect(sidebar).toBeHidden()
  // The columns take the sidebar's width.
  const widthCollapsed = await page.getByTestId('before-column').evaluate((el) => el.getBoundingClientRect().width)
  expect(widthCollapsed).toBeGreaterThan(widthOpen)

  await page.reload()
  await expect(page.getByTestId('totals')).toBeVisible({ timeout: 90_000 })
  await expect(page.getByTestId('sidebar-toggle')).toHaveAttribute('aria-expanded', 'false')
  await expect(sidebar).toBeHidden()

  await page.getByTestId('sidebar-toggle').click()
  await expect(sidebar).toBeVisible()
  await expect(page.getByRole('switch', { name: 'Enable summarize' })).toBeVisible()
  expect(errors).toEqual([])
})

test('presentation mode shows only the columns and the savings badge; Escape leaves, Shift+P toggles', async ({ page }) => {
  const errors = watchErrors(page)
  await openApp(page)
  await page.getByRole('tab', { name: 'Timeline' }).click()
  await page.getByRole('button', { name: 'Present', exact: true }).click()

  // Back in Before | After, with every control hidden.
  await expect(page.getByTestId('before-column')).toBeVisible()
  await expect(page.getByTestId('after-column')).toBeVisible()
  await expect(page.getByTestId('tokens-saved')).toBeVisible()
  for (const hidden of [
    page.locator('.app-header'),
    page.getByRole('complementary', { name: 'Pipeline' }),
    page.getByRole('tablist', { name: 'View' }),
    page.getByTestId('fact-finder'),
    page.getByTestId('tokens-before'),
    page.getByTestId('pass-list'),
    page.getByText('Sync scroll'),
  ]) {
    await expect(hidden).toBeHidden()
  }
  // Larger text for a projector.
  const preview = page.getByTestId('before-column').locator('.msg__preview').first()
  expect(await preview.evaluate((el) => parseFloat(getComputedStyle(el).fontSize))).toBeGreaterThanOrEqual(18)

  await page.keyboard.press('Escape')
  await expect(page.locator('.app-header')).toBeVisible()
  await expect(page.getByRole('tablist', { name: 'View' })).toBeVisible()
  await expect(page.getByRole('tab', { name: 'Before | After' })).toHaveAttribute('aria-selected', 'true')

  // The shortcut from the one table: Shift+P in, Shift+P out.
  await page.locator('main.content').focus()
  await page.keyboard.press('Shift+P')
  await expect(page.locator('.app-header')).toBeHidden()
  await page.keyboard.press('Shift+P')
  await expect(page.locator('.app-header')).toBeVisible()
  expect(errors).toEqual([])
})
