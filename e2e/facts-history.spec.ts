import { expect, test } from '@playwright/test'
import { openApp, watchErrors } from './helpers'

// Our fixture (test/fixtures/facts-history/three-compactions.jsonl, made with
// test/claude-code-session.ts): the user states commit 17015f9a and config/billing/invoice_rules.yaml
// in message 0; compaction 1 (before #6) keeps the commit in its summary but not the path;
// compaction 2 (before #11) drops the commit; the user asks "Which commit are we deploying
// again?" (#12) and a tool result brings it back (#14); compaction 3 (before #17) drops it again.
const FIXTURE = 'test/fixtures/facts-history/three-compactions.jsonl'

test("Recorded mode: a fact's history blames each compaction that dropped it, in the finder and the Facts tab", async ({ page }) => {
  const errors = watchErrors(page)
  await openApp(page)
  await page.getByLabel('Open transcript').setInputFiles(FIXTURE)
  await expect(page.getByTestId('loading')).toHaveCount(0)
  await page.getByRole('radiogroup', { name: 'After column shows' }).getByRole('radio', { name: 'Recorded', exact: true }).click()
  await expect(page.getByTestId('recorded-column')).toBeVisible()

  const finder = page.getByRole('searchbox', { name: 'Fact to find' })
  // Stated before compaction 1 and never again: lost at compaction 1, not at the last one shown.
  await finder.fill('config/billing/invoice_rules.yaml')
  await expect(page.getByTestId('fact-verdict')).toContainText(
    "lost in the agent's compaction 1 (message 6, auto, 166,311 tokens) — its summary omits it",
  )
  await finder.fill('17015f9a')
  await expect(page.getByTestId('fact-verdict')).toContainText(
    "lost at the agent's compaction 2 (message 11, manual, 120,000 tokens); asked for at Before #12 (referred back to); " +
      "back at Before #14 (a tool result); lost again at the agent's compaction 3 (message 17, auto, 158,020 tokens) — its summary omits it",
  )

  // The Facts tab tells the same history on a line of the fact's row.
  await page.getByRole('tab', { name: 'Facts' }).click()
  await page.getByRole('searchbox', { name: 'Filter facts by text' }).fill('17015f9a')
  const row = page.getByTestId('facts-table').locator('[role="row"][data-fact="17015f9a"]')
  await expect(row).toHaveClass(/facts__row--lost/)
  await expect(row.getByText('lost · compaction 3')).toBeVisible()
  await expect(row.getByTestId('fact-history')).toHaveText(
    "History: lost at the agent's compaction 2 (message 11, manual, 120,000 tokens); asked for at #12 (referred back to); " +
      "back at #14 (a tool result); lost again at the agent's compaction 3 (message 17, auto, 158,020 tokens)",
  )
  await page.getByRole('searchbox', { name: 'Filter facts by text' }).fill('invoice_rules')
  const path = page.getByTestId('facts-table').locator('[role="row"][data-fact="config/billing/invoice_rules.yaml"]')
  await expect(path.getByText('lost · compaction 1')).toBeVisible()
  expect(errors).toEqual([])
})

test('Recorded vs simulated: the finder gives both verdicts, each named by its own After', async ({ page }) => {
  const errors = watchErrors(page)
  await openApp(page)
  await page.getByLabel('Open transcript').setInputFiles(FIXTURE)
  await expect(page.getByTestId('loading')).toHaveCount(0)
  await page.getByRole('radiogroup', { name: 'After column shows' }).getByRole('radio', { name: 'Recorded vs simulated' }).click()
  await page.getByRole('searchbox', { name: 'Fact to find' }).fill('config/billing/invoice_rules.yaml')
  // The default pipeline never fires on 20 short messages: the simulation keeps the path.
  await expect(page.getByTestId('fact-verdict')).toContainText('Simulated: survives')
  await expect(page.getByTestId('fact-verdict-recorded')).toHaveText(
    "Recorded: lost in the agent's compaction 1 (message 6, auto, 166,311 tokens) — its summary omits it",
  )
  expect(errors).toEqual([])
})
