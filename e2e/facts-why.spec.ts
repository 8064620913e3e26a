import { expect, test } from '@playwright/test'
import { openApp, watchErrors } from './helpers'

// The Claude Code sample under the default pipeline: README.md is only in `ls` outputs (Before
// #2, #13, #35). prune-tool-results replaces #2 and #13 with a placeholder before summarize runs,
// so pass 1's prompt line for #13 reads "[13] tool: Result dropped to free context. …", and the
// summary of messages 0–21 it writes holds no README.md
// (`npm run cli -- find public/samples/claude-code.jsonl README.md`).
test('the finder on a lost fact shows the prompt line that carried it and the summary that came back', async ({ page }) => {
  const errors = watchErrors(page)
  await openApp(page)
  const finder = page.getByTestId('fact-finder')
  await finder.getByRole('searchbox', { name: 'Fact to find' }).fill('README.md')
  await expect(page.getByTestId('fact-verdict')).toContainText('lost in pass 1 of summarize (the last of 3 copies)')
  const why = page.getByTestId('fact-why')
  await expect(why.getByTestId('fact-why-reason')).toHaveText(
    'Why: it was not in the prompt: Before #13 reached the summarizer already without it',
  )
  await expect(why.getByTestId('fact-prompt-line')).toContainText('Its line in the prompt, as the summarizer got it (pass 1)')
  await expect(why.getByTestId('fact-prompt-line').locator('pre')).toHaveText(
    '[13] tool: Result dropped to free context. Call Bash again if you still need it.',
  )
  const summary = why.getByTestId('fact-summary')
  await expect(summary).toContainText('The summary that came back from pass 1, without it')
  // The offline summary opens with its label and the user's goal, and lacks the fact.
  await expect(summary.locator('pre')).toContainText('offline extractive summary (not an LLM) Goal: Customers shipping to postal code 94107')
  await expect(summary.locator('pre')).not.toContainText('README.md')

  // A match inside a collapsed row: the finder opens it to its full text, the fact marked.
  const current = page.getByTestId('before-column').locator('[role="row"][aria-selected="true"]')
  await expect(current.locator('.msg__index')).toHaveText('#2')
  await expect(current.getByRole('button', { name: 'Collapse message' })).toBeVisible()
  await expect(current.locator('.msg__body mark').first()).toHaveText('README.md')
  await expect(current.locator('.msg__body mark').first()).toBeInViewport()
  expect(errors).toEqual([])
})

test("a Facts-tab click finds the fact in Before | After, and the verdict's After numbers are the After column's", async ({ page }) => {
  const errors = watchErrors(page)
  await openApp(page)
  await page.getByRole('tab', { name: 'Facts' }).click()
  await page.getByRole('searchbox', { name: 'Filter facts by text' }).fill('ORD-58213')
  await page.getByTestId('facts-table').getByRole('button', { name: 'ORD-58213', exact: true }).click()

  // The compare view, with the finder on the fact and its matches marked in both columns.
  await expect(page.getByRole('searchbox', { name: 'Fact to find' })).toHaveValue('ORD-58213')
  const verdict = page.getByTestId('fact-verdict')
  await expect(verdict).toHaveAttribute('data-verdict', 'survives')
  const before = page.getByTestId('before-column')
  const after = page.getByTestId('after-column')
  await expect(before.locator('[role="row"][data-match]').first()).toBeVisible()
  await expect(before.locator('[role="row"][aria-selected="true"] mark').first()).toHaveText('ORD-58213')

  // "survives in N messages after (Before #28 → After #7, …)": each named After row holds it.
  const text = (await verdict.textContent()) ?? ''
  const pairs = [...text.matchAll(/Before #(\d+) → After #(\d+)/g)].map((m) => ({ before: m[1], after: m[2] }))
  expect(pairs.length).toBeGreaterThan(0)
  for (const p of pairs) {
    const row = after.locator('[role="row"][data-match]').filter({ has: page.locator('.msg__index', { hasText: new RegExp(`^#${p.after}$`) }) })
    // The After column is virtualized: bring the row in by walking the finder's matches.
    for (let i = 0; i < 12 && (await row.count()) === 0; i++) await page.getByRole('button', { name: 'Next match' }).click()
    await expect(row).toHaveCount(1)
    await expect(row.locator('.msg__match')).toHaveText(/^\d+×$/)
    // Its counterpart in the Before is the message the verdict names.
    await row.click()
    await expect(before.locator('[role="row"][data-counterpart="true"] .msg__index').first()).toHaveText(`#${p.before}`)
  }
  expect(errors).toEqual([])
})

// Our fixture: the user states postal code 80331 in message 0; the agent's auto compaction
// (preTokens 150,000) before message 6 summarizes messages 0–5 without it.
test("Recorded mode: the finder judges against the agent's own compaction and shows the summary it wrote", async ({ page }) => {
  const errors = watchErrors(page)
  await openApp(page)
  await page.getByLabel('Open transcript').setInputFiles('test/fixtures/facts-why/claude-code-auto-compact.jsonl')
  await expect(page.getByTestId('loading')).toHaveCount(0)
  await page.getByRole('radiogroup', { name: 'After column shows' }).getByRole('radio', { name: 'Recorded', exact: true }).click()
  await expect(page.getByTestId('recorded-column')).toBeVisible()
  await page.getByRole('searchbox', { name: 'Fact to find' }).fill('80331')
  // Lost at the agent's compaction 1, and asked for after it ("Ship it to the postal code I gave you.").
  await expect(page.getByTestId('fact-verdict')).toContainText(
    "lost at the agent's compaction 1 (message 6, auto, 150,000 tokens) — its summary omits it; asked for at Before #7 (referred back to)",
  )
  const why = page.getByTestId('fact-why')
  await expect(why.getByTestId('fact-why-reason')).toHaveText(
    'Why: it was in the messages the agent summarized, but not in the summary it wrote',
  )
  await expect(why.getByTestId('fact-summary').locator('pre')).toContainText('blue gift paper with a card reading happy birthday, Lena.')

  // A fact the agent kept: named by the recorded After column's numbers.
  await page.getByRole('searchbox', { name: 'Fact to find' }).fill('ORD-4417')
  await expect(page.getByTestId('fact-verdict')).toContainText(
    "survives in 2 messages after (Before #8 → After #2, After #0 (the agent's recorded summary))",
  )
  const recorded = page.getByTestId('recorded-column')
  await expect(recorded.locator('[role="row"][data-match]')).toHaveCount(2)
  await expect(recorded.locator('[role="row"][data-match] .msg__index')).toHaveText(['#0', '#2'])

  // The Facts tab judges against the agent's compaction too; a click comes back to the finder.
  await page.getByRole('tab', { name: 'Facts' }).click()
  await page.getByRole('searchbox', { name: 'Filter facts by text' }).fill('80331')
  const row = page.getByTestId('facts-table').locator('[role="row"][data-fact="80331"]')
  await expect(row).toHaveClass(/facts__row--lost/)
  await row.getByRole('button', { name: '80331', exact: true }).click()
  await expect(page.getByRole('searchbox', { name: 'Fact to find' })).toHaveValue('80331')
  await expect(page.getByTestId('fact-verdict')).toContainText("lost at the agent's compaction 1 (message 6")

  // Recorded vs simulated: the default pipeline never fires on these 9 messages, so only the
  // simulation kept the postal code; a click finds it.
  await page.getByRole('radiogroup', { name: 'After column shows' }).getByRole('radio', { name: 'Recorded vs simulated' }).click()
  const versus = page.getByTestId('versus-facts')
  await expect(versus.getByTestId('versus-facts-recorded')).toHaveText('Kept only by the agent (0): none')
  await expect(versus.getByTestId('versus-facts-simulated')).toContainText('80331')
  await versus.getByRole('button', { name: '80331', exact: true }).click()
  await expect(page.getByRole('searchbox', { name: 'Fact to find' })).toHaveValue('80331')
  await expect(page.getByTestId('after-column').locator('[role="row"][data-match]').first()).toBeVisible()
  expect(errors).toEqual([])
})
