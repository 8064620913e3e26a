import { readFileSync } from 'node:fs'
import { expect, test, type Page } from '@playwright/test'
import { openApp, rows, watchErrors } from './helpers'

/** Opens the header's Export menu (if closed), clicks a download button, returns the suggested name and the parsed JSON. */
async function download(page: Page, button: string): Promise<{ name: string; json: unknown }> {
  const menu = page.getByTestId('export-menu')
  if (!(await menu.evaluate((el) => (el as HTMLDetailsElement).open))) await menu.locator('summary').click()
  const group = page.getByRole('group', { name: /^Download the/ })
  const [file] = await Promise.all([page.waitForEvent('download'), group.getByRole('button', { name: button }).click()])
  const path = await file.path()
  return { name: file.suggestedFilename(), json: JSON.parse(readFileSync(path, 'utf8')) as unknown }
}

test('the After downloads as canonical JSON and as the source request format; the Before stays', async ({ page }) => {
  const errors = watchErrors(page)
  await openApp(page)
  const afterMessages = Number((await page.getByTestId('messages-after').textContent())?.replace(/,/g, ''))
  const beforeMessages = await page.getByTestId('messages-before').textContent()

  const canonical = await download(page, 'Canonical JSON')
  expect(canonical.name).toBe('claude-code.after.canonical.json')
  expect(canonical.json).toMatchObject({ format: 'canonical', sourceFormat: 'claude-code' })
  const messages = (canonical.json as { messages: { id: string; role: string }[] }).messages
  expect(messages).toHaveLength(afterMessages)
  expect(messages[0]?.role).toBe('user')

  const anthropic = await download(page, 'Anthropic Messages request')
  expect(anthropic.name).toBe('claude-code.after.anthropic.json')
  // A request body: the session's model and a max_tokens, as the Messages API requires.
  expect(anthropic.json).toMatchObject({ model: 'claude-sonnet-4-5-20250929', max_tokens: 4096 })
  const body = anthropic.json as { messages: { role: string; content: unknown }[] }
  expect(body.messages.length).toBeGreaterThan(0)
  expect(body.messages.every((m) => m.role === 'user' || m.role === 'assistant')).toBe(true)
  await expect(page.getByTestId('export-notice')).toContainText('Downloaded claude-code.after.anthropic.json')

  // In Recorded mode, the recorded After is the one downloaded; the notice about the other After goes.
  await page.getByRole('radio', { name: 'Recorded', exact: true }).click()
  await expect(page.getByTestId('recorded-column')).toBeVisible()
  await expect(page.getByTestId('export-notice')).toHaveCount(0)
  const recorded = await download(page, 'Canonical JSON')
  expect(recorded.name).toBe('claude-code.recorded.canonical.json')
  const recordedMessages = (recorded.json as { messages: { flags?: { compactSummary?: boolean } }[] }).messages
  expect(recordedMessages[0]?.flags?.compactSummary).toBe(true)

  await expect(page.getByTestId('export-notice')).toContainText('Downloaded claude-code.recorded.canonical.json')

  // Exporting never changed the Before.
  await expect(page.getByTestId('messages-before')).toHaveText(beforeMessages ?? '')

  // Another transcript: the notice was about the previous one.
  await page.getByLabel('Open transcript').setInputFiles('public/samples/openai-chat.json')
  await expect(page.getByTestId('file-format')).toHaveText('openai-chat')
  await expect(page.getByTestId('loading')).toHaveCount(0)
  await expect(page.getByTestId('export-notice')).toHaveCount(0)
  expect(errors).toEqual([])
})

test('Claude Code forks are listed and a sub-agent opens as its own transcript', async ({ page }) => {
  const errors = watchErrors(page)
  await openApp(page)
  await page.getByLabel('Open transcript').setInputFiles('e2e/fixtures/claude-code-forks.jsonl')
  await expect(page.getByTestId('message-count')).toHaveText('8 messages')
  await expect(page.getByTestId('loading')).toHaveCount(0)

  const branches = page.getByTestId('branches')
  await branches.getByText('1 other branch').click()
  await expect(branches).toContainText('I will rename it to read_config everywhere, including the public API.')

  const conversation = page.getByRole('combobox', { name: 'Conversation' })
  await conversation.selectOption({ label: 'Sub-agent agent7: Find every caller of load_config (4 messages)' })
  await expect(page.getByTestId('message-count')).toHaveText('4 messages')
  await expect(page.getByTestId('loading')).toHaveCount(0)
  await expect(rows(page, 'before').first()).toContainText('Find every caller of load_config')

  await download(page, 'Canonical JSON')
  await expect(page.getByTestId('export-notice')).toContainText('Downloaded')
  await conversation.selectOption('main')
  await expect(page.getByTestId('message-count')).toHaveText('8 messages')
  await expect(page.getByTestId('loading')).toHaveCount(0)
  // The notice was about the sub-agent's After.
  await expect(page.getByTestId('export-notice')).toHaveCount(0)
  expect(errors).toEqual([])
})
