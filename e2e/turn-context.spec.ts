import { expect, test } from '@playwright/test'
import { openApp, watchErrors } from './helpers'

test.use({ permissions: ['clipboard-read', 'clipboard-write'] })

test('scrub to a turn, see its context and tokens, copy it as OpenAI and Anthropic request bodies', async ({ page }) => {
  const errors = watchErrors(page)
  await openApp(page)
  await page.getByRole('tab', { name: 'Turn N' }).click()

  const input = page.getByTestId('turn-input')
  await expect(input).toBeVisible()
  // The scrubber starts at the last turn: its context is the After of the whole run.
  const turns = Number(await input.getAttribute('max'))
  expect(turns).toBeGreaterThan(2)
  await expect(input).toHaveValue(String(turns))
  const tokensAfter = (await page.getByTestId('tokens-after').textContent()) ?? ''
  const lastTokens = Number(await page.getByTestId('turn-tokens').getAttribute('data-tokens'))
  expect(tokensAfter.replace(/\D/g, '')).toContain(String(lastTokens))

  // Turn 1: the first exchange only, nothing compacted yet.
  await input.fill('1')
  await expect(page.getByTestId('turn-tokens')).toContainText('at turn 1')
  await expect(page.getByTestId('turn-passes')).toHaveText('No pass had fired by this turn')
  const firstTokens = Number(await page.getByTestId('turn-tokens').getAttribute('data-tokens'))
  expect(firstTokens).toBeGreaterThan(0)
  // A prefix of the session: at most what the whole transcript is before compaction. (Not less
  // than the last turn's: on this sample the last turn is after a summary pass and is smaller.)
  const tokensBefore = Number(/([\d,]+) →/.exec((await page.getByTestId('totals').textContent()) ?? '')?.[1]?.replace(/,/g, ''))
  expect(firstTokens).toBeLessThan(tokensBefore)
  await expect(page.getByTestId('turn-row').first()).toBeVisible()

  // The last turn again: the summary block is marked and passes are listed.
  await input.fill(String(turns))
  await expect(page.getByTestId('turn-tokens')).toContainText(`at turn ${turns}`)
  await expect(page.getByTestId('turn-passes')).toContainText('pass 1')
  await expect(page.locator('[data-testid="turn-row"][data-origin="summary"]')).toHaveCount(1)

  await page.getByRole('button', { name: 'Copy as OpenAI request' }).click()
  await expect(page.getByTestId('turn-copied')).toContainText('copied')
  const openai = JSON.parse(await page.evaluate(() => navigator.clipboard.readText())) as {
    messages: { role: string; tool_calls?: unknown[] }[]
  }
  expect(Array.isArray(openai.messages)).toBe(true)
  // One OpenAI message per context message.
  expect(openai.messages.length).toBe(Number(await page.getByTestId('turn-messages').getAttribute('data-count')))
  expect(openai.messages.some((m) => m.role === 'tool')).toBe(true)

  await page.getByRole('button', { name: 'Copy as Anthropic request' }).click()
  await expect(page.getByTestId('turn-copied')).toContainText('Anthropic')
  const anthropic = JSON.parse(await page.evaluate(() => navigator.clipboard.readText())) as {
    max_tokens: number
    system?: unknown
    messages: { role: string; content: unknown }[]
  }
  expect(anthropic.max_tokens).toBeGreaterThan(0)
  expect(anthropic.messages[0]?.role).toBe('user')
  expect(anthropic.messages.every((m) => m.role === 'user' || m.role === 'assistant')).toBe(true)
  const blocks = anthropic.messages.flatMap((m) => (Array.isArray(m.content) ? (m.content as { type: string }[]) : []))
  expect(blocks.some((b) => b.type === 'tool_use')).toBe(true)
  expect(blocks.some((b) => b.type === 'tool_result')).toBe(true)
  expect(errors).toEqual([])
})

test('the timeline follows a slider, and a click on the chart opens that turn', async ({ page }) => {
  const errors = watchErrors(page)
  await openApp(page)
  await page.getByRole('tab', { name: 'Timeline' }).click()
  const caption = page.getByTestId('timeline-caption')
  await expect(caption).toHaveAttribute('data-done', 'true')
  const passes = Number(await caption.getAttribute('data-passes'))
  const lastAfter = await caption.getAttribute('data-last-after')
  expect(passes).toBeGreaterThan(0)

  // Fewer messages kept verbatim: a smaller context at the last turn, and no fewer passes.
  await page.getByRole('spinbutton', { name: 'summarize keep_last value' }).fill('8')
  await expect(caption).not.toHaveAttribute('data-last-after', lastAfter ?? '')
  await expect(caption).toHaveAttribute('data-done', 'true')
  expect(Number(await caption.getAttribute('data-passes'))).toBeGreaterThanOrEqual(passes)
  expect(Number(await caption.getAttribute('data-last-after'))).toBeLessThan(Number(lastAfter))

  // Hover reads a turn out; clicking there lands on that turn's context.
  const over = page.getByTestId('timeline-chart').locator('.u-over')
  const box = await over.boundingBox()
  if (!box) throw new Error('the chart has no plot area')
  await page.mouse.move(box.x + box.width * 0.4, box.y + box.height / 2)
  const hover = page.getByTestId('timeline-hover')
  await expect(hover).toHaveAttribute('data-turn', /^\d+$/)
  const turn = (await hover.getAttribute('data-turn')) ?? ''
  await page.mouse.click(box.x + box.width * 0.4, box.y + box.height / 2)
  await expect(page.getByRole('tab', { name: 'Turn N' })).toHaveAttribute('aria-selected', 'true')
  await expect(page.getByTestId('turn-input')).toHaveValue(turn)
  await expect(page.getByTestId('turn-tokens')).toContainText(`at turn ${turn}`)
  expect(errors).toEqual([])
})
