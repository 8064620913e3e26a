import { expect, test } from '@playwright/test'
import { openApp, rows, watchErrors } from './helpers'

// On the Claude Code sample under the default pipeline, README.md is in Before messages 2, 13
// and 35 and in no After message: message 35's copy goes earlier in the pipeline, and pass 1 of
// summarize folds messages 0–21 into an extractive summary after pruning had already cleared the
// tool results holding it — README.md is not in it (`npm run cli -- find public/samples/claude-code.jsonl README.md`).
test('finds a fact summarized away, steps through its matches and names the pass that lost it', async ({ page }) => {
  const errors = watchErrors(page)
  await openApp(page)
  const finder = page.getByTestId('fact-finder')
  const counter = page.getByTestId('fact-counter')
  const before = page.getByTestId('before-column')

  await finder.getByRole('searchbox', { name: 'Fact to find' }).fill('README.md')
  await expect(counter).toHaveText('1 of 3 · Before')
  await expect(page.getByTestId('fact-verdict')).toContainText(
    'lost in pass 1 of summarize (the last of 3 copies) — replaced by the summary of messages 0–21',
  )
  await expect(page.getByTestId('fact-verdict')).toHaveAttribute('data-verdict', 'lost')

  // The first match is selected, marked and its text highlighted.
  const first = before.locator('[role="row"][aria-selected="true"]')
  await expect(first).toHaveAttribute('data-match', 'true')
  await expect(first.locator('.msg__index')).toHaveText('#2')
  // Its preview is cut before the fact: the finder opens the row, and the full text marks it.
  await expect(first.getByRole('button', { name: 'Collapse message' })).toBeVisible()
  await expect(first.locator('mark').first()).toHaveText('README.md')
  // The After holds it nowhere.
  await expect(page.getByTestId('after-column').locator('[role="row"][data-match]')).toHaveCount(0)

  await finder.getByRole('button', { name: 'Next match' }).click()
  await expect(counter).toHaveText('2 of 3 · Before')
  const second = before.locator('[role="row"][aria-selected="true"]')
  await expect(second.locator('.msg__index')).toHaveText('#13')
  await expect(second).toHaveAttribute('data-match', 'true')
  await expect(second).toBeInViewport()

  // Enter and Shift+Enter in the input walk too, wrapping around.
  const input = finder.getByRole('searchbox', { name: 'Fact to find' })
  await input.press('Enter')
  await expect(counter).toHaveText('3 of 3 · Before')
  await expect(before.locator('[role="row"][aria-selected="true"] .msg__index')).toHaveText('#35')
  await input.press('Enter')
  await expect(counter).toHaveText('1 of 3 · Before')
  await input.press('Shift+Enter')
  await expect(counter).toHaveText('3 of 3 · Before')
  expect(errors).toEqual([])
})

test('an invalid regular expression says so instead of searching', async ({ page }) => {
  const errors = watchErrors(page)
  await openApp(page)
  const finder = page.getByTestId('fact-finder')
  await finder.getByRole('checkbox', { name: 'regex' }).check()
  await finder.getByRole('searchbox', { name: 'Fact to find' }).fill('ORD-(')
  await expect(page.getByTestId('fact-error')).toContainText('Not a valid regular expression')
  await finder.getByRole('searchbox', { name: 'Fact to find' }).fill('ORD-\\d+')
  await expect(page.getByTestId('fact-counter')).toHaveText(/^1 of \d+ · Before$/)
  await expect(page.getByTestId('fact-verdict')).toContainText('survives in')
  expect(errors).toEqual([])
})

test('clicking a fact in an expanded message searches it in both columns', async ({ page }) => {
  const errors = watchErrors(page)
  await openApp(page)
  const row = rows(page, 'before').first()
  await row.getByRole('button', { name: 'Show full message' }).click()
  // The user's request names the file the agent must not change; the engine finds it as a fact.
  const fact = row.getByRole('button', { name: 'src/quote/api.py', exact: true })
  await fact.click()
  await expect(page.getByRole('searchbox', { name: 'Fact to find' })).toHaveValue('src/quote/api.py')
  await expect(page.getByTestId('fact-counter')).toHaveText(/^1 of \d+ · Before$/)
  await expect(page.getByTestId('fact-verdict')).toHaveAttribute('data-verdict', /survives|lost/)
  await expect(row).toHaveAttribute('data-match', 'true')
  await expect(row.locator('mark').first()).toHaveText('src/quote/api.py')
  expect(errors).toEqual([])
})

test('a catastrophically backtracking regex is stopped, and the finder keeps working', async ({ page }) => {
  const errors = watchErrors(page)
  await openApp(page)
  // Tool outputs of 40 "a" then "b": /(a+)+$/ backtracks exponentially on each of them.
  const messages: unknown[] = [{ role: 'user', content: 'Track order ORD-77123 please.' }]
  for (let i = 0; i < 6; i++) {
    messages.push({
      role: 'assistant',
      content: null,
      tool_calls: [{ id: `call_${i}`, type: 'function', function: { name: 'lookup', arguments: '{}' } }],
    })
    messages.push({ role: 'tool', tool_call_id: `call_${i}`, content: `${'a'.repeat(40)}b ${i}` })
  }
  await page.getByLabel('Open transcript').setInputFiles({
    name: 'backtracking.json',
    mimeType: 'application/json',
    buffer: Buffer.from(JSON.stringify({ messages })),
  })
  await expect(page.getByTestId('file-info')).toContainText('backtracking.json')
  await expect(page.getByTestId('loading')).toHaveCount(0)
  const finder = page.getByTestId('fact-finder')
  const input = finder.getByRole('searchbox', { name: 'Fact to find' })
  await finder.getByRole('checkbox', { name: 'regex' }).check()
  await input.fill('(a+)+$')
  await expect(page.getByTestId('fact-error')).toContainText('took over 2 s on this transcript and was stopped')
  // The engine worker was never blocked: the next search answers.
  await finder.getByRole('checkbox', { name: 'regex' }).uncheck()
  await input.fill('ORD-77123')
  await expect(page.getByTestId('fact-counter')).toHaveText('1 of 2 · Before')
  await expect(page.getByTestId('fact-verdict')).toHaveAttribute('data-verdict', 'survives')
  expect(errors).toEqual([])
})
