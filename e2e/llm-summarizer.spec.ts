import { expect, test, type Page } from '@playwright/test'
import { startLlmServer, type LlmServer } from '../test/llm-server'
import { openApp, watchErrors } from './helpers'

/**
 * Issue 4 acceptance with a real local OpenAI-compatible server (test/llm-server.ts, started
 * here on 127.0.0.1 — no test reaches the internet): the send step shows the plan, Send fills
 * every pass of the Claude Code sample with the server's summaries, the preview equals what the
 * server received, cancelling mid-stream and a 401 both leave the previous result.
 */

let server: LlmServer
test.beforeEach(async () => {
  server = await startLlmServer({ apiKey: 'test-key-123' })
})
test.afterEach(async () => {
  await server.close()
})

/** Chooses the OpenAI-compatible summarizer at the test server and opens the send dialog. */
async function previewSend(page: Page, key = 'test-key-123'): Promise<void> {
  await page.getByLabel('Summarizer', { exact: true }).selectOption('openai-compatible')
  await page.getByLabel('Base URL').fill(server.openaiBaseUrl)
  await page.getByLabel('Model').fill('test-model')
  await page.getByLabel('API key').fill(key)
  await page.getByRole('button', { name: 'Preview and send…' }).click()
  await expect(page.getByTestId('send-dialog')).toBeVisible()
}

/** The After column's figures (rows are virtualized: a banner changes how many are rendered). */
async function afterSignature(page: Page): Promise<string> {
  const tokens = await page.getByTestId('tokens-after').textContent()
  const messages = await page.getByTestId('messages-after').textContent()
  const firstRow = await page.getByTestId('after-column').getByRole('row').first().getAttribute('data-id')
  return `${tokens}|${messages}|${firstRow}`
}

test('the send step shows the plan; Send puts LLM summaries in every pass, as previewed', async ({ page }) => {
  const errors = watchErrors(page)
  await openApp(page)
  await previewSend(page)
  const host = new URL(server.url).host
  const planned = page.getByTestId('planned-request')
  const count = await planned.count()
  expect(count).toBeGreaterThan(0)
  await expect(page.getByTestId('send-summary')).toContainText(`${count} request`)
  await expect(page.getByTestId('send-summary')).toContainText(`tokens to ${host}`)
  const firstBody = await page.getByTestId('planned-body').first().textContent()
  expect(firstBody).toContain('"model":"test-model"')
  expect(firstBody).not.toContain('test-key-123')
  // Nothing leaves before Send.
  expect(server.requests).toHaveLength(0)

  await page.getByRole('button', { name: 'Send', exact: true }).click()
  await expect(page.getByTestId('send-dialog')).toHaveCount(0)
  await expect.poll(() => server.requests.length).toBe(count)
  await expect(page.getByTestId('summarizer-running')).toHaveCount(0)
  await expect(page.getByTestId('run-error')).toHaveCount(0)

  // The first request had no earlier answer to fold in: the preview is byte for byte what was sent.
  expect(server.requests[0]?.bodyText).toBe(firstBody)
  expect(server.requests[0]?.headers.authorization).toBe('Bearer test-key-123')

  // Every pass holds the server's summary.
  const passList = page.getByTestId('pass-list')
  await passList.locator('summary').click()
  const summaries = passList.getByRole('button', { name: 'Summary' })
  await expect(summaries).toHaveCount(count)
  for (let i = 0; i < count; i++) {
    await summaries.nth(i).click()
    await expect(passList.locator('pre')).toContainText(`LLM summary ${i + 1} of `)
  }
  expect(errors).toEqual([])
})

test('cancelling mid-stream keeps the previous result and the page usable', async ({ page }) => {
  const errors = watchErrors(page)
  await openApp(page)
  const before = await afterSignature(page)
  server.enqueue({ hangAfterChunks: 2 })
  await previewSend(page)
  await page.getByRole('button', { name: 'Send', exact: true }).click()
  await expect.poll(() => server.requests.length).toBe(1)
  await expect(page.getByTestId('summarizer-running')).toBeVisible()
  await page.getByRole('button', { name: 'Cancel summaries' }).click()

  await expect(page.getByTestId('summarizer-notice')).toContainText('cancelled')
  await expect(page.getByTestId('summarizer-running')).toHaveCount(0)
  await expect(page.getByTestId('loading')).toHaveCount(0)
  expect(await afterSignature(page)).toBe(before)

  // Still usable: back to the offline summarizer, a run happens and nothing more is sent.
  const sent = server.requests.length
  await page.getByLabel('Summarizer', { exact: true }).selectOption('extractive')
  await expect(page.getByTestId('summarizer-notice')).toHaveCount(0)
  await page.getByRole('spinbutton', { name: 'summarize keep_last value' }).fill('10')
  await expect.poll(() => afterSignature(page)).not.toBe(before)
  expect(server.requests.length).toBe(sent)
  expect(errors).toEqual([])
})

test('a wrong key explains itself and keeps the previous result', async ({ page }) => {
  const errors = watchErrors(page)
  await openApp(page)
  const before = await afterSignature(page)
  await previewSend(page, 'wrong-key')
  await page.getByRole('button', { name: 'Send', exact: true }).click()

  const banner = page.getByTestId('run-error')
  await expect(banner).toContainText('401 unauthorized')
  await expect(banner).not.toContainText('wrong-key')
  await expect(page.getByTestId('summarizer-stage-error')).toContainText('API key')
  expect(await afterSignature(page)).toBe(before)
  // Chromium reports every HTTP error response of a fetch on the console, even a handled one:
  // this exact line is the 401 the test asked for; anything else still fails the test.
  const expected = /^console: Failed to load resource: the server responded with a status of 401 \(Unauthorized\)$/
  expect(errors.filter((e) => !expected.test(e))).toEqual([])
})

test('the cost view prices insert-then-compress cached vs cold vs a separate call, recomputable by hand', async ({
  page,
}) => {
  const errors = watchErrors(page)
  await openApp(page)
  await page.getByRole('switch', { name: 'Enable summarize' }).click()
  await page.getByRole('switch', { name: 'Enable insert-then-compress' }).click()
  await expect(page.getByTestId('pass-list')).toContainText('1 compaction pass')

  const view = page.getByTestId('cost-view')
  await view.locator('summary').click()
  await expect(page.getByTestId('prices-as-of')).toContainText(/Prices as of \d{4}-\d{2}-\d{2}.*check the provider/)
  // Round prices: $1 input, $0.10 cached input, $2 output per million tokens.
  await page.getByLabel('gpt-5-mini input price').fill('1')
  await page.getByLabel('gpt-5-mini cachedInput price').fill('0.1')
  await page.getByLabel('gpt-5-mini output price').fill('2')

  const passes = page.getByTestId('cost-passes')
  const cells = async (name: string) =>
    (await passes.getByRole('row', { name }).getByRole('cell').allTextContents()).map((t) => t.trim())
  const number = (text: string | undefined) => Number((text ?? '').replace(/[,$]/g, ''))
  const cached = await cells('insert-then-compress pass 1 (cached prefix)')
  const cold = await cells('insert-then-compress pass 1 — cold cache')
  const separate = await cells('insert-then-compress pass 1 — as a separate call')
  // Same request, same output: the cold cache pays the cached prefix as uncached input.
  expect(number(cold[1])).toBe(number(cached[1]) + number(cached[2]))
  expect(number(cold[2])).toBe(0)
  expect(number(separate[2])).toBe(0)
  expect(number(cold[3])).toBe(number(cached[3]))
  // Dollars = (input × 1 + cached × 0.1 + output × 2) / 1,000,000, shown to 3 significant digits.
  for (const row of [cached, cold, separate]) {
    const dollars = (number(row[1]) + number(row[2]) * 0.1 + number(row[3]) * 2) / 1e6
    expect(row[4]).toBe(`$${dollars.toPrecision(3)}`)
  }
  expect(number(cached[4])).toBeLessThan(number(cold[4]))
  await expect(page.getByTestId('cost-chart').locator('canvas')).toBeVisible()
  await expect(page.getByTestId('cost-chart')).toHaveAttribute('aria-label', /separate summarization call/)
  expect(errors).toEqual([])
})
