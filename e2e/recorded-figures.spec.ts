import { expect, test, type Page } from '@playwright/test'
import { openApp, watchErrors } from './helpers'

// Our fixture (test/fixtures/recorded): two compactions of the agent's own. The manual one
// (boundary #12) folds the postal code 60311 and order ORD-77120 the user gave at #0, which the
// user asks for again at #13 and the agent repeats at #16; the agent reads config/zones.csv (#2)
// again at #14. The auto one (boundary #23) folds the branch fix/zone-603 the user named at #19,
// which the agent repeats at #27.
const FIXTURE = 'test/fixtures/recorded/claude-code-two-compactions.jsonl'

/** What the page says about the run its figures are about: totals, needed facts, re-work, warnings, passes. */
async function figures(page: Page) {
  const rework = page.getByTestId('rework-list').locator('summary')
  await expect(rework).not.toHaveText('Re-work after compaction…')
  const warnings = page.getByTestId('check-warnings')
  await expect(warnings).toBeVisible()
  return {
    tokensAfter: await page.getByTestId('tokens-after').textContent(),
    passes: await page.getByTestId('passes').textContent(),
    needed: await page.getByTestId('totals-needed').textContent(),
    rework: await rework.textContent(),
    warnings: await warnings.locator('summary').textContent(),
    passList: await page.getByTestId('pass-list').locator('summary').textContent(),
  }
}

test('Recorded mode: needed facts, re-work, warnings and passes describe the recorded compactions, whatever the simulated preset', async ({
  page,
}) => {
  test.setTimeout(240_000)
  const errors = watchErrors(page)
  await openApp(page)
  await page.getByLabel('Open transcript').setInputFiles(FIXTURE)
  await expect(page.getByTestId('file-info')).toContainText('claude-code-two-compactions.jsonl')
  await expect(page.getByTestId('loading')).toHaveCount(0)
  const modes = page.getByRole('radiogroup', { name: 'After column shows' })
  const recorded = modes.getByRole('radio', { name: 'Recorded', exact: true })
  const simulated = modes.getByRole('radio', { name: 'Simulated', exact: true })
  const picker = page.getByLabel('Preset', { exact: true })
  await picker.selectOption({ label: 'Seed defaults' })

  await recorded.click()
  await expect(page.getByTestId('recorded-note')).toContainText('Recorded compaction 2 of 2')
  const first = await figures(page)
  // Both compactions are the passes; the needed facts are those they removed.
  expect(first.passes).toBe('2')
  expect(first.passList).toBe('2 recorded compactions — as the agent made them')
  expect(first.needed).toMatch(/\d+ facts were needed after compaction removed them/)
  expect(first.needed).toContain('ORD-77120')
  expect(first.rework).toMatch(/^Re-work after compaction: 1 repeated tool call — [\d,]+ tokens$/)
  expect(first.warnings).toMatch(/^[1-9]\d* warnings/)

  const list = page.getByTestId('rework-list')
  await list.locator('summary').click()
  await expect(list.getByTestId('rework-entry')).toHaveCount(1)
  await expect(list.getByTestId('rework-entry')).toContainText("after the agent's compaction 1 (message 12, manual, 48,200 tokens)")
  await expect(list.getByTestId('rework-call')).toContainText(/^Read \{"file_path":"\/home\/dev\/shop\/config\/zones\.csv"\} at #14 — made before at #2/)
  await list.locator('summary').click()

  // The simulated After differs from preset to preset; the recorded figures never do.
  const simulatedAfter: string[] = []
  for (const name of ['aider', 'OpenHands observation masking', 'Seed defaults']) {
    await test.step(name, async () => {
      await picker.selectOption({ label: name })
      await simulated.click()
      await expect(page.getByTestId('loading')).toHaveCount(0)
      // Waits for this preset's run: its After is not the one the previous preset left.
      const previous = simulatedAfter.at(-1)
      if (previous !== undefined) await expect(page.getByTestId('tokens-after')).not.toHaveText(previous)
      simulatedAfter.push((await page.getByTestId('tokens-after').textContent()) ?? '')
      await recorded.click()
      await expect(page.getByTestId('recorded-note')).toContainText('Recorded compaction 2 of 2')
      expect(await figures(page)).toEqual(first)
    })
  }
  expect(new Set(simulatedAfter).size).toBe(3)

  await test.step('the cost view says what the file records', async () => {
    const costs = page.getByTestId('cost-view')
    await costs.locator('summary').click()
    await expect(costs.getByTestId('cost-recorded')).toContainText('no summarizer call is priced here')
    await expect(costs.getByTestId('cost-passes')).toHaveCount(0)
    await expect(costs.getByTestId('cost-totals')).toContainText("after the agent's compaction (its own calls not counted)")
  })
  expect(errors).toEqual([])
})
