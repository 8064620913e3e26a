import { readFileSync } from 'node:fs'
import { expect, test } from '@playwright/test'
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
