import { expect, test } from '@playwright/test'
import { openApp, watchErrors } from './helpers'

test('Recorded mode shows what the agent kept (Claude Code and Codex); Recorded vs simulated sets both side by side', async ({
  page,
}) => {
  test.setTimeout(240_000)
  const errors = watchErrors(page)
  await openApp(page)
  const modes = page.getByRole('radiogroup', { name: 'After column shows' })
  const recordedColumn = page.getByTestId('recorded-column')
  const boundary = /^recorded compaction 1: messages \d+–\d+ → the agent's summary$/

  await test.step('Claude Code: Recorded', async () => {
    await modes.getByRole('radio', { name: 'Recorded', exact: true }).click()
    await expect(modes.getByRole('radio', { name: 'Recorded', exact: true })).toHaveAttribute('aria-checked', 'true')
    await expect(recordedColumn.getByRole('separator', { name: boundary })).toBeVisible()
    const summary = recordedColumn.locator('[role="row"][data-kind="summary"]')
    await expect(summary).toHaveCount(1)
    await expect(summary.getByText('recorded summary', { exact: true })).toBeVisible()
    // Claude Code's summary opens "This session is being continued from a previous conversation".
    await expect(summary).toContainText('continued from a previous conversation')
    // Fates on the Before side come from the recorded compaction, and the totals are its own.
    await expect(page.getByTestId('before-column').getByText('summarized · recorded').first()).toBeVisible()
    await expect(page.getByTestId('tokens-saved')).toHaveText(/^−\d+(\.\d)?% tokens \(recorded\)$/)
    await expect(page.getByTestId('problems-after')).toBeVisible()
    await expect(page.getByTestId('recorded-note')).toContainText('Recorded compaction 1 of 1')
  })

  await test.step('Claude Code: Recorded vs simulated', async () => {
    await modes.getByRole('radio', { name: 'Recorded vs simulated' }).click()
    await expect(recordedColumn.getByRole('separator', { name: boundary })).toBeVisible()
    await expect(page.getByTestId('after-column').getByRole('separator', { name: /^pass 1: messages 0–\d+ → summary$/ })).toBeVisible()
    const versus = page.getByTestId('versus-totals')
    await expect(versus.getByTestId('versus-recorded-tokens')).toHaveText(/^[1-9][\d,]*$/)
    await expect(versus.getByTestId('versus-simulated-tokens')).toHaveText(/^[1-9][\d,]*$/)
    // Selecting the recorded summary highlights the simulated rows carrying the same messages.
    await recordedColumn.locator('[role="row"][data-kind="summary"]').click()
    await expect(page.getByTestId('after-column').locator('[role="row"][data-counterpart="true"]').first()).toBeVisible()
  })

  await test.step('Codex: Recorded', async () => {
    await page.getByLabel('Open transcript').setInputFiles('public/samples/codex-rollout.jsonl')
    await expect(page.getByTestId('file-format')).toHaveText('codex-rollout')
    await expect(page.getByTestId('loading')).toHaveCount(0)
    await modes.getByRole('radio', { name: 'Recorded', exact: true }).click()
    await expect(recordedColumn.getByRole('separator', { name: boundary })).toBeVisible()
    const summary = recordedColumn.locator('[role="row"][data-kind="summary"]')
    await expect(summary).toHaveCount(1)
    await expect(summary.getByText('recorded summary', { exact: true })).toBeVisible()
  })

  await test.step('a transcript without recorded compactions has no Recorded mode', async () => {
    await page.getByLabel('Open transcript').setInputFiles('public/samples/openai-chat.json')
    await expect(page.getByTestId('file-format')).toHaveText('openai-chat')
    await expect(page.getByTestId('loading')).toHaveCount(0)
    await expect(modes).toHaveCount(0)
    await expect(page.getByTestId('after-column')).toBeVisible()
  })
  expect(errors).toEqual([])
})
