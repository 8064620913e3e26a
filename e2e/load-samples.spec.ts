import { readFileSync } from 'node:fs'
import { expect, test, type Page } from '@playwright/test'
import { openApp, rows, watchErrors } from './helpers'

interface SampleEntry {
  file: string
  label: string
  format: string
}

const samples = JSON.parse(readFileSync('public/samples/index.json', 'utf8')) as SampleEntry[]

test('loads every bundled sample through the file input', async ({ page }) => {
  // One page for all samples: the worker and its tokenizer start once.
  test.setTimeout(60_000 + samples.length * 30_000)
  const errors = watchErrors(page)
  await openApp(page)
  for (const sample of samples) {
    await test.step(sample.file, async () => {
      await page.getByLabel('Open transcript').setInputFiles(`public/samples/${sample.file}`)
      await expect(page.getByTestId('file-info')).toContainText(sample.file)
      await expect(page.getByTestId('file-format')).toHaveText(sample.format)
      await expect(page.getByTestId('loading')).toHaveCount(0)
      await expect(page.getByTestId('import-error')).toHaveCount(0)
      await expect(page.getByTestId('run-error')).toHaveCount(0)
      await expect(page.getByTestId('tokens-before')).toHaveText(/^[1-9][\d,]*$/)
      await expect(page.getByTestId('tokens-after')).toHaveText(/^[1-9][\d,]*$/)
      await expect(rows(page, 'before').first()).toBeVisible()
      await expect(rows(page, 'after').first()).toBeVisible()
    })
  }
  expect(errors).toEqual([])
})

test('the sample gallery opens a sample', async ({ page }) => {
  const errors = watchErrors(page)
  await openApp(page)
  await page.getByRole('button', { name: 'Samples' }).click()
  const gallery = page.getByTestId('sample-gallery')
  await expect(gallery.getByRole('button')).toHaveCount(samples.length)
  await gallery.getByRole('button', { name: /Anthropic Messages/ }).click()
  await expect(page.getByTestId('file-format')).toHaveText('anthropic-messages')
  await expect(page.getByTestId('loading')).toHaveCount(0)
  expect(errors).toEqual([])
})

/** The aider sample (the last in the gallery) is shown whole: its format, all 20 messages, a finished run. */
async function expectAiderShown(page: Page): Promise<void> {
  await expect(page.getByTestId('file-info')).toContainText('aider.chat.history.md')
  await expect(page.getByTestId('file-format')).toHaveText('aider')
  await expect(page.getByTestId('loading')).toHaveCount(0)
  // aider sample's first session: 12 user + 8 assistant messages (src/engine/formats/agent-samples.test.ts).
  await expect(page.getByTestId('message-count')).toHaveText('20 messages')
  await expect(page.getByTestId('messages-before')).toHaveText('20')
  await expect(page.getByTestId('messages-after')).toHaveText(/^[1-9]\d*$/)
  await expect(page.getByTestId('import-error')).toHaveCount(0)
  await expect(page.getByTestId('run-error')).toHaveCount(0)
  await expect(rows(page, 'before').first()).toBeVisible()
  await expect(rows(page, 'after').first()).toBeVisible()
}

// QA reported a stall when every sample is opened in quick succession in one page (each load alone
// is fine): every pick below lands while earlier imports and runs are still in flight. On a loaded
// machine one pick can take seconds, hence the generous budget; a real stall never ends.
const rapidOrder = samples
const rapidTimeout = 120_000 + rapidOrder.length * 15_000

test('opening every sample back to back from the gallery ends on the last one, complete', async ({ page }) => {
  test.setTimeout(rapidTimeout)
  const errors = watchErrors(page)
  await openApp(page)
  const galleryButton = page.getByRole('button', { name: 'Samples' })
  const gallery = page.getByTestId('sample-gallery')
  for (const sample of rapidOrder) {
    await galleryButton.click()
    await gallery.getByText(sample.label, { exact: true }).click()
  }
  expect(rapidOrder.at(-1)?.file).toBe('aider.chat.history.md')
  await expectAiderShown(page)
  expect(errors).toEqual([])
})

test('opening every sample back to back through the file input ends on the last one, complete', async ({ page }) => {
  test.setTimeout(rapidTimeout)
  const errors = watchErrors(page)
  await openApp(page)
  const input = page.getByLabel('Open transcript')
  for (const sample of rapidOrder) await input.setInputFiles(`public/samples/${sample.file}`)
  await expectAiderShown(page)
  expect(errors).toEqual([])
})
