import { expect, test } from '@playwright/test'
import { openApp, watchErrors } from './helpers'

/** A small OpenAI chat with a path and an order number: a facts table of its own. */
const SECOND_FILE = JSON.stringify({
  messages: [
    { role: 'user', content: 'Order 7731-QX ships from /srv/depot/north.csv.' },
    { role: 'assistant', content: 'Noted: order 7731-QX, file /srv/depot/north.csv.' },
  ],
})

test('a facts table that fails for the next file shows that failure, never the previous rows', async ({ page }) => {
  const errors = watchErrors(page)
  await openApp(page)
  await page.getByRole('tab', { name: 'Facts' }).click()
  await expect(page.getByTestId('facts-totals')).toContainText(/\d+ of \d+ facts survive/)
  const firstFacts = await page.locator('[role="row"][data-fact]').count()
  expect(firstFacts).toBeGreaterThan(0)

  // From now on every facts table the worker answers is a failure, as a table that throws
  // would be reported (Comlink replies go through the worker's postMessage).
  for (const worker of page.workers()) {
    await worker.evaluate(() => {
      const post = self.postMessage.bind(self) as (message: unknown, transfer?: Transferable[]) => void
      ;(self as unknown as { postMessage: typeof post }).postMessage = (message, transfer) => {
        const m = message as { value?: { ok?: boolean; table?: unknown; unchanged?: unknown } } | null
        if (m?.value && m.value.ok === true && ('table' in m.value || 'unchanged' in m.value)) {
          post({ ...m, value: { ok: false, error: 'the table could not be built (simulated)' } }, transfer)
        } else post(message, transfer)
      }
    })
  }

  await page.getByRole('button', { name: 'Paste' }).click()
  const dialog = page.getByRole('dialog', { name: 'Paste a transcript' })
  await dialog.getByRole('textbox').fill(SECOND_FILE)
  await dialog.getByRole('button', { name: 'Import' }).click()
  await expect(page.getByTestId('file-info')).toContainText('pasted text')

  await page.getByRole('tab', { name: 'Facts' }).click()
  await expect(page.getByTestId('facts-status')).toHaveText(
    'No facts table: the table could not be built (simulated)',
  )
  await expect(page.locator('[role="row"][data-fact]')).toHaveCount(0)
  await expect(page.getByTestId('facts-totals')).toHaveCount(0)
  expect(errors).toEqual([])
})

test('the API key is never in the markup: typed into its field, it is not in outerHTML', async ({ page }) => {
  const errors = watchErrors(page)
  await openApp(page)
  const key = 'sk-test-DO-NOT-LEAK-5f2c9a'
  await page.getByLabel('Summarizer', { exact: true }).selectOption('openai-compatible')
  const field = page.getByLabel('API key')
  await field.fill(key)
  await expect(field).toHaveValue(key)
  const markup = await page.evaluate(() => document.documentElement.outerHTML)
  expect(markup).not.toContain(key)
  expect(errors).toEqual([])
})
