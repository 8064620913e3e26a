import { readFileSync } from 'node:fs'
import { expect, test } from '@playwright/test'
import { openApp, watchErrors } from './helpers'

test('paste imports a transcript from text', async ({ page }) => {
  const errors = watchErrors(page)
  await openApp(page)
  await page.getByRole('button', { name: 'Paste' }).click()
  const dialog = page.getByRole('dialog', { name: 'Paste a transcript' })
  await dialog.getByLabel('Transcript text').fill(readFileSync('public/samples/openai-chat-legacy-functions.json', 'utf8'))
  await dialog.getByRole('button', { name: 'Import' }).click()

  await expect(dialog).toHaveCount(0)
  await expect(page.getByTestId('file-info')).toContainText('pasted text')
  await expect(page.getByTestId('file-format')).toHaveText('openai-chat')
  await expect(page.getByTestId('loading')).toHaveCount(0)
  expect(errors).toEqual([])
})

test('pasting garbage shows the error banner and keeps the transcript', async ({ page }) => {
  const errors = watchErrors(page)
  await openApp(page)
  await page.getByRole('button', { name: 'Paste' }).click()
  const dialog = page.getByRole('dialog', { name: 'Paste a transcript' })
  await dialog.getByLabel('Transcript text').fill('{"messages": [')
  await dialog.getByRole('button', { name: 'Import' }).click()
  await expect(page.getByTestId('import-error')).toContainText('pasted text')
  await expect(page.getByTestId('file-info')).toContainText('claude-code.jsonl')
  // The dialog stays open with the pasted text, so it can be fixed and imported again.
  await expect(dialog.getByTestId('paste-error')).toContainText('pasted text')
  await expect(dialog.getByLabel('Transcript text')).toHaveValue('{"messages": [')
  await dialog.getByRole('button', { name: 'Cancel' }).click()
  await expect(dialog).toHaveCount(0)
  expect(errors).toEqual([])
})

test('dropping a file anywhere on the page loads it', async ({ page }) => {
  const errors = watchErrors(page)
  await openApp(page)
  const text = readFileSync('public/samples/anthropic-messages.json', 'utf8')
  const dataTransfer = await page.evaluateHandle((content) => {
    const dt = new DataTransfer()
    dt.items.add(new File([content], 'dropped.json', { type: 'application/json' }))
    return dt
  }, text)
  await page.dispatchEvent('body', 'dragenter', { dataTransfer })
  await expect(page.getByTestId('drop-overlay')).toContainText('Drop a transcript or a session file')
  await page.dispatchEvent('body', 'drop', { dataTransfer })
  await expect(page.getByTestId('drop-overlay')).toHaveCount(0)
  await expect(page.getByTestId('file-info')).toContainText('dropped.json')
  await expect(page.getByTestId('file-format')).toHaveText('anthropic-messages')
  expect(errors).toEqual([])
})

test('several files dropped together open as one input (a session kept in several files)', async ({ page }) => {
  const errors = watchErrors(page)
  await openApp(page)
  const text = readFileSync('public/samples/claude-code.jsonl', 'utf8')
  const dataTransfer = await page.evaluateHandle((content) => {
    const dt = new DataTransfer()
    dt.items.add(new File([content], 'session.jsonl'))
    dt.items.add(new File(['# notes'], 'NOTES.md'))
    return dt
  }, text)
  await page.dispatchEvent('body', 'dragenter', { dataTransfer })
  await page.dispatchEvent('body', 'drop', { dataTransfer })
  await expect(page.getByTestId('file-info')).toContainText('dropped files.zip')
  await expect(page.getByTestId('file-format')).toHaveText('claude-code')
  expect(errors).toEqual([])
})
