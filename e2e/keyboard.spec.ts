import { expect, test } from '@playwright/test'
import { shortcutGroups } from '../src/app/shortcuts'
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
  // Exactly the table's entries, under its headings, each with its condition.
  const groups = shortcutGroups()
  const tables = dialog.getByTestId('shortcuts-group')
  await expect(tables.locator('caption')).toHaveText(groups.map((g) => g.group))
  for (const [i, g] of groups.entries()) {
    await expect(tables.nth(i).getByRole('rowheader')).toHaveText(g.entries.map((e) => e.keys))
    await expect(tables.nth(i).getByRole('cell')).toHaveText(g.entries.map((e) => (e.when ? `${e.does} — when ${e.when}` : e.does)))
  }
  // The keys tested below are among them.
  const keys = groups.flatMap((g) => g.entries.map((e) => e.keys))
  for (const k of ['/', '?', 'Esc', 'j / k', 'Enter / Space', '[ / ]', '← / →', 'Home / End', 'Tab (first stop)']) {
    expect(keys).toContain(k)
  }
  await page.keyboard.press('Escape')
  await expect(dialog).toHaveCount(0)
  // Typed into a field, ? is text, not the shortcut.
  const input = page.getByTestId('fact-finder').getByRole('searchbox', { name: 'Fact to find' })
  await input.fill('')
  await input.press('?')
  await expect(input).toHaveValue('?')
  await expect(dialog).toHaveCount(0)
  // A checkbox takes no text: there ? is the shortcut again.
  const sync = page.getByRole('checkbox', { name: 'Sync scroll' })
  await sync.focus()
  await sync.press('?')
  await expect(dialog).toBeVisible()
  await page.keyboard.press('Escape')
  await expect(dialog).toHaveCount(0)
  expect(errors).toEqual([])
})

test('j / k select the next / previous message, focus follows and the counterpart is revealed', async ({ page }) => {
  const errors = watchErrors(page)
  await openApp(page)
  const before = page.getByTestId('before-column')
  const after = page.getByTestId('after-column')
  // Nothing selected: j selects the Before's first message.
  await page.keyboard.press('j')
  const first = before.locator('[role="row"][aria-selected="true"]')
  await expect(first).toHaveCount(1)
  await expect(first).toContainText('#0')
  await expect(first).toBeFocused()
  await expect(after.locator('[role="row"][data-counterpart="true"]').first()).toBeInViewport()

  await page.keyboard.press('j')
  await page.keyboard.press('j')
  const third = before.locator('[role="row"][aria-selected="true"]')
  await expect(third.locator('.msg__index')).toHaveText('#2')
  await expect(third).toBeFocused()
  await page.keyboard.press('k')
  await expect(before.locator('[role="row"][aria-selected="true"] .msg__index')).toHaveText('#1')
  await expect(before.locator('[role="row"][aria-selected="true"]')).toBeFocused()
  await expect(page.getByText(/^Selected Before #1 /)).toBeVisible()

  // Far down the column: the virtualized rows are rendered and scrolled into view as j moves on.
  for (let i = 0; i < 30; i++) await page.keyboard.press('j')
  const far = before.locator('[role="row"][aria-selected="true"]')
  await expect(far.locator('.msg__index')).toHaveText('#31')
  await expect(far).toBeInViewport()
  await expect(far).toBeFocused()
  // In a field j is text.
  const input = page.getByTestId('fact-finder').getByRole('searchbox', { name: 'Fact to find' })
  await input.focus()
  await page.keyboard.press('j')
  await expect(input).toHaveValue('j')
  expect(errors).toEqual([])
})

test('Enter and Space expand and collapse the selected message; on a button they press it', async ({ page }) => {
  const errors = watchErrors(page)
  await openApp(page)
  const before = page.getByTestId('before-column')
  await page.keyboard.press('j')
  const row = before.locator('[role="row"][aria-selected="true"]')
  await expect(row).toBeFocused()
  await page.keyboard.press('Enter')
  await expect(row.getByRole('button', { name: 'Collapse message' })).toBeVisible()
  // The first message is the user's request, in full (its preview is cut at 200 code points).
  await expect(row).toContainText('Do not change the public signature of quote_for() in src/quote/api.py.')
  await page.keyboard.press(' ')
  await expect(row.getByRole('button', { name: 'Show full message' })).toBeVisible()
  await page.keyboard.press(' ')
  await expect(row.getByRole('button', { name: 'Collapse message' })).toBeVisible()
  // Enter on the row's own button presses that button once (no second toggle from the shortcut).
  await row.getByRole('button', { name: 'Collapse message' }).focus()
  await page.keyboard.press('Enter')
  await expect(row.getByRole('button', { name: 'Show full message' })).toBeVisible()
  expect(errors).toEqual([])
})

test('[ and ] step through the compaction passes: boundary, first message, announcement', async ({ page }) => {
  const errors = watchErrors(page)
  await openApp(page)
  // 13 messages; keep_last 2 / compact_after 4 make two passes (see facts-needed.spec.ts).
  await page.getByLabel('Open transcript').setInputFiles('test/fixtures/facts/postal-code-needed.json')
  await expect(page.getByTestId('file-info')).toContainText('postal-code-needed.json')
  await expect(page.getByTestId('loading')).toHaveCount(0)
  await page.getByRole('spinbutton', { name: 'summarize keep_last value' }).fill('2')
  await page.getByRole('spinbutton', { name: 'summarize compact_after value' }).fill('4')
  await expect(page.getByTestId('passes')).toHaveText('2')
  await page.getByRole('tab', { name: 'Before | After' }).focus()

  const before = page.getByTestId('before-column')
  const after = page.getByTestId('after-column')
  const boundaries = before.locator('.boundary')
  await expect(boundaries).toHaveCount(2)
  const labels = await boundaries.evaluateAll((els) => els.map((e) => e.getAttribute('aria-label') ?? ''))
  expect(labels[0]).toMatch(/^pass 1: messages \d+–\d+ → summary$/)
  expect(labels[1]).toMatch(/^pass 2: messages \d+–\d+ → summary$/)
  const fromOf = (label: string) => Number(/messages (\d+)–/.exec(label)?.[1])
  const announcement = page.getByTestId('pass-announcement')
  await expect(announcement).toHaveAttribute('role', 'status')
  const selectedIndex = before.locator('[role="row"][aria-selected="true"] .msg__index')

  await page.keyboard.press(']')
  await expect(announcement).toHaveText(`Pass 1 of 2: ${labels[0]}`)
  await expect(selectedIndex).toHaveText(`#${fromOf(labels[0] ?? '')}`)
  await expect(boundaries.first()).toBeInViewport()
  await expect(before.locator('[role="row"][aria-selected="true"]')).toBeFocused()
  // The After shows the summary carrying the pass's first message (the selection's counterpart:
  // the last pass's summary, which folds pass 1's) under its boundary.
  const summary = after.locator('[role="row"][data-counterpart="true"]')
  await expect(summary).toHaveAttribute('data-kind', 'summary')
  await expect(summary).toBeInViewport()
  const afterBoundary = after.locator('.boundary')
  await expect(afterBoundary).toHaveCount(1)
  await expect(afterBoundary).toBeInViewport()

  await page.keyboard.press(']')
  await expect(announcement).toHaveText(`Pass 2 of 2: ${labels[1]}`)
  await expect(selectedIndex).toHaveText(`#${fromOf(labels[1] ?? '')}`)
  await expect(boundaries.nth(1)).toBeInViewport()
  await expect(afterBoundary).toBeInViewport()
  await page.keyboard.press(']')
  await expect(announcement).toHaveText('No later compaction pass: 2 in this run.')
  await expect(selectedIndex).toHaveText(`#${fromOf(labels[1] ?? '')}`)

  await page.keyboard.press('[')
  await expect(announcement).toHaveText(`Pass 1 of 2: ${labels[0]}`)
  await expect(selectedIndex).toHaveText(`#${fromOf(labels[0] ?? '')}`)
  await page.keyboard.press('[')
  await expect(announcement).toHaveText('No earlier compaction pass: 2 in this run.')
  expect(errors).toEqual([])
})

test('parameter help opens with Enter or Space on its i button and closes with Escape', async ({ page }) => {
  const errors = watchErrors(page)
  await openApp(page)
  const keepLast = page.locator('[data-stage="summarize"]').getByRole('button', { name: 'About keep_last' })
  const text = page.locator('[data-stage="summarize"]').getByTestId('param-help-keep_last')
  await expect(keepLast).toHaveAttribute('aria-expanded', 'false')
  await expect(text).toBeHidden()
  expect(await keepLast.getAttribute('aria-controls')).toBe(await text.getAttribute('id'))
  await keepLast.focus()
  await page.keyboard.press('Enter')
  await expect(keepLast).toHaveAttribute('aria-expanded', 'true')
  await expect(text).toBeVisible()
  await expect(text).toHaveText('Newest messages kept verbatim.')
  await page.keyboard.press('Escape')
  await expect(keepLast).toHaveAttribute('aria-expanded', 'false')
  await expect(text).toBeHidden()
  await expect(keepLast).toBeFocused()
  await page.keyboard.press(' ')
  await expect(text).toBeVisible()
  await page.keyboard.press(' ')
  await expect(text).toBeHidden()

  // The preset's source and differences, the same way.
  const preset = page.getByRole('button', { name: /^About / }).and(page.locator('.preset-picker *'))
  await preset.focus()
  await page.keyboard.press('Enter')
  await expect(page.getByTestId('preset-help')).toContainText('Source:')
  await expect(page.getByTestId('preset-help')).toContainText('How ours differs:')
  await page.keyboard.press('Escape')
  await expect(page.getByTestId('preset-help')).toBeHidden()
  expect(errors).toEqual([])
})
