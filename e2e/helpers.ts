import AxeBuilder from '@axe-core/playwright'
import { expect, type Locator, type Page } from '@playwright/test'

/** Collects uncaught errors and console errors; every test asserts it stays empty. */
export function watchErrors(page: Page): string[] {
  const errors: string[] = []
  page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`))
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(`console: ${m.text()}`)
  })
  return errors
}

/** Opens the app and waits until the first-start sample has been run by the worker. */
export async function openApp(page: Page): Promise<void> {
  await page.goto('/')
  // The first run starts the worker and loads the 2 MB o200k rank table: slow on a busy machine.
  const firstLoad = { timeout: 90_000 }
  await expect(page.getByTestId('file-info')).toContainText('claude-code.jsonl', firstLoad)
  await expect(page.getByTestId('totals')).toBeVisible(firstLoad)
  await expect(page.getByTestId('loading')).toHaveCount(0, firstLoad)
}

/**
 * The rendered message rows of a column (virtualized: only a window of them). Only rows that carry a
 * message (`data-id`): a pass boundary sits in an ARIA row of its own and is not a message.
 */
export function rows(page: Page, side: 'before' | 'after'): Locator {
  return page.getByTestId(`${side}-column`).locator('[role="row"][data-id]')
}

/**
 * Scrolls a virtualized column from the top until `target` is rendered, and returns it.
 * Fails when the end is reached without finding it.
 */
export async function scrollUntil(page: Page, side: 'before' | 'after', target: Locator): Promise<Locator> {
  const column = page.getByTestId(`${side}-column`)
  await column.evaluate((el) => el.scrollTo(0, 0))
  for (let i = 0; i < 80; i++) {
    if ((await target.count()) > 0) return target.first()
    const atEnd = await column.evaluate((el) => {
      const end = el.scrollTop + el.clientHeight >= el.scrollHeight - 2
      el.scrollBy(0, el.clientHeight * 0.8)
      return end
    })
    await page.waitForTimeout(50)
    if (atEnd && (await target.count()) === 0) break
  }
  await expect(target.first()).toBeAttached()
  return target.first()
}

/** Fills the Sweep form's two ranges: `x` and `y` as [from, step, to], whole numbers of the params' units. */
export async function fillSweepRanges(view: Locator, x: [number, number, number], y: [number, number, number]): Promise<void> {
  for (const [axis, range] of [['x', x], ['y', y]] as const) {
    for (const [i, key] of (['from', 'step', 'to'] as const).entries()) await view.getByLabel(`${axis} ${key}`).fill(String(range[i]))
  }
}

// The WCAG 2.0 / 2.1 A and AA rules; a violation of impact critical or serious fails the test.
const TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']
const FAILING = new Set(['critical', 'serious'])

/**
 * Runs axe on the page (or on `include`, a CSS selector) and returns one line per failing node of
 * every critical or serious violation: where it was checked, the rule, its impact, the node's
 * target and axe's failure summary.
 */
export async function axeFailures(page: Page, where: string, include?: string): Promise<string[]> {
  let builder = new AxeBuilder({ page }).withTags(TAGS)
  if (include) builder = builder.include(include)
  const { violations } = await builder.analyze()
  return violations
    .filter((v) => FAILING.has(v.impact ?? ''))
    .flatMap((v) =>
      v.nodes.map(
        (n) =>
          `[${where}] ${v.id} (${v.impact}) ${n.target.join(' ')}: ${(n.failureSummary ?? v.help).replace(/\s+/g, ' ')}`,
      ),
    )
}
