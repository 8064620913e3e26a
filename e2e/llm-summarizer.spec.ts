import { expect, test, type Page } from '@playwright/test'
import { startLlmServer, type LlmServer } from '../test/llm-server'
import { openApp, rows, watchErrors } from './helpers'

/**
 * The LLM summarizer end to end with a real local OpenAI-compatible server (test/llm-server.ts, started
 * here on 127.0.0.1 — no test reaches the internet): the send step shows the plan, Send fills
 * every pass of the Claude Code sample with the server's summaries, the preview equals what the
 * server received, cancelling mid-stream and a 401 both leave the previous result; the streamed
 * text shows as it arrives; the endpoint settings survive a reload (the key only by opt-in);
 * every row of the price table is editable.
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
  await page.getByLabel('Model', { exact: true }).fill('test-model')
  await page.getByLabel('API key').fill(key)
  await page.getByRole('button', { name: 'Preview and send…' }).click()
  await expect(page.getByTestId('send-dialog')).toBeVisible()
}

/** The After column's figures (rows are virtualized: a banner changes how many are rendered). */
async function afterSignature(page: Page): Promise<string> {
  const tokens = await page.getByTestId('tokens-after').textContent()
  const messages = await page.getByTestId('messages-after').textContent()
  const firstRow = await rows(page, 'after').first().getAttribute('data-id')
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
  // Escape closes the send step without sending; it opens again on the button.
  await page.keyboard.press('Escape')
  await expect(page.getByTestId('send-dialog')).toHaveCount(0)
  expect(server.requests).toHaveLength(0)
  await page.getByRole('button', { name: 'Preview and send…' }).click()
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
  await expect(page.getByTestId('prices-as-of')).toContainText(/prices as of \d{4}-\d{2}-\d{2}.*check the provider/i)
  // Round prices: $1 input, $0.10 cached input, $2 output per million tokens.
  await page.getByLabel('gpt-5-mini input price').fill('1')
  await page.getByLabel('gpt-5-mini cached input price').fill('0.1')
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

test('a slow stream shows its text growing in the status banner, pass by pass', async ({ page }) => {
  const errors = watchErrors(page)
  await openApp(page)
  await previewSend(page)
  const count = await page.getByTestId('planned-request').count()
  // The first answer (~220 code points, shorter than the banner's 300-code-point tail) streams for
  // ~11 s: 37 chunks of 6 code points, 300 ms apart; the later passes answer at once.
  const words = Array.from({ length: 30 }, (_, i) => `word${String(i).padStart(2, '0')}`).join(' ')
  server.enqueue({ text: `Goal: ${words} END`, chunkDelayMs: 300 })
  await page.getByRole('button', { name: 'Send', exact: true }).click()

  const progress = page.getByTestId('summarizer-progress')
  await expect(progress).toContainText(`pass 1 of ${count}`)
  await expect(progress).toContainText('streaming…')
  const stream = page.getByTestId('summarizer-stream')
  // The first words show while the last ones are seconds away: the text grows live.
  await expect(stream).toContainText('Goal: word00')
  expect(await stream.textContent()).not.toContain('word25')
  await expect(stream).toContainText('word25')
  await expect(page.getByTestId('summarizer-running')).toBeVisible()
  // Then the run completes and the banner goes.
  await expect(page.getByTestId('summarizer-running')).toHaveCount(0)
  await expect.poll(() => server.requests.length).toBe(count)
  await expect(page.getByTestId('run-error')).toHaveCount(0)
  const passList = page.getByTestId('pass-list')
  await passList.locator('summary').click()
  await passList.getByRole('button', { name: 'Summary' }).first().click()
  await expect(passList.locator('pre')).toContainText('word29 END')
  expect(errors).toEqual([])
})

test('the endpoint settings survive a reload; the key only with "Remember the key"', async ({ page }) => {
  const errors = watchErrors(page)
  await openApp(page)
  await page.getByLabel('Summarizer', { exact: true }).selectOption('openai-compatible')
  await page.getByLabel('Endpoint preset').selectOption({ label: 'LM Studio — http://localhost:1234/v1' })
  await page.getByLabel('Model', { exact: true }).fill('qwen2.5-7b-instruct')
  await page.getByLabel('Stream the answer').uncheck()
  await page.getByLabel('API key').fill('sk-not-remembered')

  await page.reload()
  await openApp(page)
  await expect(page.getByLabel('Summarizer', { exact: true })).toHaveValue('openai-compatible')
  await expect(page.getByLabel('Base URL')).toHaveValue('http://localhost:1234/v1')
  await expect(page.getByLabel('Endpoint preset')).toHaveValue('http://localhost:1234/v1')
  await expect(page.getByLabel('Model', { exact: true })).toHaveValue('qwen2.5-7b-instruct')
  await expect(page.getByLabel('Stream the answer')).not.toBeChecked()
  await expect(page.getByLabel('API key')).toHaveValue('')
  // Restored is not sent: the run stays offline until the send step.
  await expect(page.getByTestId('summarizer-in-use')).toContainText('Not in use yet')
  const stored = await page.evaluate(() => JSON.stringify(Object.entries(localStorage)))
  expect(stored).toContain('qwen2.5-7b-instruct')
  expect(stored).not.toContain('sk-not-remembered')

  await page.getByLabel('API key').fill('sk-remembered')
  await page.getByLabel('Remember the key on this device').check()
  await page.reload()
  await openApp(page)
  await expect(page.getByLabel('API key')).toHaveValue('sk-remembered')
  await expect(page.getByLabel('Remember the key on this device')).toBeChecked()
  // Never in the URL.
  expect(page.url()).not.toContain('sk-remembered')
  expect(errors).toEqual([])
})

test('every row of the price table is editable; choosing an edited row reprices the figures', async ({ page }) => {
  const errors = watchErrors(page)
  await openApp(page)
  const view = page.getByTestId('cost-view')
  await view.locator('summary').click()
  const table = page.getByTestId('price-table')
  await expect(table.getByRole('row')).not.toHaveCount(0)
  // Each model row has its own input, cached input and output cells and its date.
  for (const model of ['gpt-5', 'gpt-5-mini', 'claude-haiku-4-5', 'claude-sonnet-4-5']) {
    for (const field of ['input', 'cached input', 'output']) {
      await expect(page.getByLabel(`${model} ${field} price`, { exact: true })).toBeEditable()
    }
  }
  await expect(table).toContainText(/\d{4}-\d{2}-\d{2}/)
  await expect(page.getByLabel('price as gpt-5-mini', { exact: true })).toBeChecked()

  const totals = page.getByTestId('cost-totals')
  const before = await totals.textContent()
  // Edit a row that is not the one priced: round prices $10 / $1 / $40 per million for gpt-5.
  await page.getByLabel('gpt-5 input price', { exact: true }).fill('10')
  await page.getByLabel('gpt-5 cached input price', { exact: true }).fill('1')
  await page.getByLabel('gpt-5 output price', { exact: true }).fill('40')
  await page.getByLabel('gpt-5 cache write price', { exact: true }).fill('')
  expect(await totals.textContent()).toBe(before)
  await page.getByLabel('price as gpt-5', { exact: true }).check()
  await expect(totals).not.toHaveText(before ?? '')

  // Following turns without compaction, recomputed from the row's token counts at the edited prices.
  const row = (await page.getByTestId('cost-turns').getByRole('row', { name: 'without compaction' }).getByRole('cell').allTextContents())
    .map((t) => t.trim())
  const number = (text: string | undefined) => Number((text ?? '').replace(/[,$]/g, ''))
  const dollars = (number(row[1]) * 10 + number(row[2]) * 1 + number(row[3]) * 40) / 1e6
  const shown = dollars >= 1 ? `$${dollars.toFixed(2)}` : `$${dollars.toPrecision(3)}`
  expect(row[4]).toBe(shown)

  await page.getByRole('button', { name: 'Reset to the dated defaults' }).click()
  await expect(page.getByLabel('gpt-5 input price', { exact: true })).toHaveValue('1.25')
  expect(errors).toEqual([])
})
