import { expect, test } from '@playwright/test'
import { importTranscript } from '../src/engine/formats'
import { DEFAULT_PIPELINE, runPipeline } from '../src/engine/pipeline'
import { loadCounter } from '../src/engine/tokens/count'
import { longChat } from '../test/hostile'
import { openApp, watchErrors } from './helpers'

/**
 * A long transcript's run is shown before its failure-mode checks (they cost more than a re-plan
 * there); the warnings follow on their own, the same the engine finds.
 */
test('a long chat shows its run, then the failure-mode warnings the engine finds', async ({ page }) => {
  const text = longChat(1_200)
  const imported = importTranscript(text, { fileName: 'long-chat.json' })
  if (!imported.ok) throw new Error(imported.error.message)
  const counter = await loadCounter('o200k_base')
  const expected = (await runPipeline(imported.transcript, DEFAULT_PIPELINE, { counter })).checks.failureModes ?? []
  // The chat is long enough for the default pipeline to raise warnings: the check compares two real lists.
  expect(expected.length).toBeGreaterThan(0)

  const errors = watchErrors(page)
  await openApp(page)
  await page.getByLabel('Open transcript').setInputFiles({ name: 'long-chat.json', mimeType: 'application/json', buffer: Buffer.from(text) })
  await expect(page.getByTestId('file-info')).toContainText('long-chat.json', { timeout: 60_000 })
  const warnings = page.getByTestId('check-warnings')
  await expect(warnings).toContainText(`${expected.length} ${expected.length === 1 ? 'warning' : 'warnings'}`, { timeout: 60_000 })
  await expect(page.getByTestId('check-warnings-pending')).toHaveCount(0)
  // The items are built when the list opens: one per warning, each with its rule's name.
  await warnings.locator('summary').click()
  await expect(warnings.locator('li')).toHaveCount(expected.length)
  expect(errors).toEqual([])
})
