import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { expect, test } from '@playwright/test'
import { generateLargeSession } from '../test/fixtures'
import { openApp, watchErrors } from './helpers'

/*
 * The pipeline controls on a transcript of the bench's size: a 10 MB Claude Code session from the
 * generator (seed 42; about 1,400 messages), where a slider over 1 … 1,430 messages on a 245 px
 * track used to move keep_last by about 6 messages per pixel.
 */

let dir = ''
let file = ''

test.beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'ci-controls-'))
  file = join(dir, 'large-claude-code.jsonl')
  generateLargeSession(10, file)
})

test.afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true })
})

const done = { timeout: 180_000 }

test('on a 10 MB session: small slider steps, the sweep grid around them, exact numbers, a preset sets the window, its trigger on the timeline, two presets side by side', async ({ page }) => {
  test.setTimeout(420_000)
  const errors = watchErrors(page)
  await openApp(page)
  await page.getByLabel('Open transcript').setInputFiles(file)
  await expect(page.getByTestId('file-info')).toContainText('large-claude-code.jsonl', done)
  await expect(page.getByTestId('loading')).toHaveCount(0, done)

  // Dragging the keep_last thumb 30 px moves it by a few messages, not by ~180.
  const number = page.getByRole('spinbutton', { name: 'summarize keep_last value' })
  await expect(number).toHaveValue('20')
  const slider = page.getByRole('slider', { name: 'summarize keep_last' })
  await slider.scrollIntoViewIfNeeded()
  const box = await slider.boundingBox()
  if (!box) throw new Error('no slider box')
  const position = Number(await slider.inputValue())
  const max = Number(await slider.getAttribute('max'))
  // Chromium's thumb is 16 px wide: its centre runs from 8 px in to 8 px before the end.
  const x = box.x + 8 + (position / max) * (box.width - 16)
  const y = box.y + box.height / 2
  await page.mouse.move(x, y)
  await page.mouse.down()
  await page.mouse.move(x + 30, y, { steps: 6 })
  await page.mouse.up()
  const dragged = Number(await number.inputValue())
  expect(dragged).not.toBe(20)
  expect(Math.abs(dragged - 20)).toBeLessThanOrEqual(10)
  await expect(page.getByTestId('loading')).toHaveCount(0, done)

  // The Sweep tab's default grid is centred on the current setting and holds it.
  await page.getByRole('tab', { name: 'Sweep' }).click()
  const sweep = page.getByTestId('sweep-view')
  const onGrid = async (axis: 'x' | 'y', value: number) => {
    const [from, to, step] = await Promise.all(['from', 'to', 'step'].map(async (f) => Number(await sweep.getByLabel(`${axis} ${f}`).inputValue())))
    expect(from!).toBeLessThanOrEqual(value)
    expect(to!).toBeGreaterThanOrEqual(value)
    expect((value - from!) % step!).toBe(0)
  }
  await expect(sweep.getByLabel('x parameter')).toHaveValue('keep_last')
  await onGrid('x', dragged)
  await onGrid('y', 40)
  await page.getByRole('tab', { name: 'Before | After' }).click()

  // Any value is typeable, not only slider stops; the link carries it.
  await number.fill('137')
  await number.press('Enter')
  await expect(number).toHaveValue('137')
  await expect.poll(() => page.evaluate(() => window.location.hash)).toContain('keep_last=137')
  await expect(page.getByTestId('loading')).toHaveCount(0, done)

  // A preset made for a model sets the window; token params show their share of it; the params
  // its token trigger and token budget replace are greyed with the engine's reason.
  const windowSetting = page.getByTestId('window-setting')
  await expect(windowSetting.getByRole('combobox')).toHaveValue('claude-200k')
  await page.getByLabel('Preset', { exact: true }).selectOption('claude-code-1m')
  await expect(windowSetting.getByRole('combobox')).toHaveValue('claude-1m')
  await expect(page.getByTestId('window-tokens')).toHaveText('1,000,000 tokens')
  await expect.poll(() => page.evaluate(() => window.location.hash)).toContain(';w=1000000;')
  await expect(page.getByTestId('param-share-trigger_reserve')).toHaveText('45,000 tokens · 4.5% of 1M')
  // Claude Code's trigger for the session's version (2.0.76, before 2.1.21): window − 32,000 − 13,000 = 955,000 tokens on 1M.
  await expect(page.getByTestId('summarize-trigger')).toHaveText(
    'fires at 955,000 tokens · 95.5% of 1M (1,000,000 window − 45,000 reserve)',
  )
  await expect(page.getByTestId('param-note-compact_after')).toHaveText('not used: the token trigger (trigger_reserve) replaces it')
  await expect(page.getByRole('combobox', { name: 'summarize check' })).toHaveValue('request')
  await expect(page.getByRole('spinbutton', { name: 'summarize trigger_tokens value' })).toHaveValue('')
  await expect(page.getByTestId('loading')).toHaveCount(0, done)

  // The timeline draws Claude Code's trigger line, and hovering the turn of its pass reads the decision.
  await page.getByRole('tab', { name: 'Timeline' }).click()
  const caption = page.getByTestId('timeline-caption')
  await expect(caption).toHaveAttribute('data-done', 'true', done)
  await expect(page.getByTestId('timeline-legend').locator('[data-level="summarize:trigger"]')).toContainText(
    'summarize trigger 955,000 tokens (1,000,000 window − 45,000 reserve)',
  )
  const turns = Number(/^([\d,]+) turns/.exec((await caption.textContent()) ?? '')?.[1]?.replace(/,/g, ''))
  const passTurn = Number(((await caption.getAttribute('data-pass-turns')) ?? '').split(',')[0])
  expect(passTurn).toBeGreaterThan(1)
  const plot = await page.getByTestId('timeline-chart').locator('.u-over').boundingBox()
  // The axis starts at the first turn, or at 0 when the session's recorded requests begin before it.
  const xMin = Number(await page.getByTestId('timeline-chart').getAttribute('data-x-min'))
  if (!plot) throw new Error('the chart has no plot area')
  await page.mouse.move(plot.x + ((passTurn - xMin) / (turns - xMin)) * plot.width, plot.y + plot.height / 2)
  await expect(page.getByTestId('timeline-decisions').locator('li[data-fired="true"]')).toContainText(
    /≥ 955,000 \(1,000,000 window − 45,000 reserve\) → pass 1 fired/,
  )
  await page.getByRole('tab', { name: 'Before | After' }).click()

  // Side by side: the current preset and Codex, each with its figures.
  await page.getByLabel('Preset to compare with').selectOption('codex-local')
  await page.getByRole('button', { name: 'Compare' }).click()
  const comparison = page.getByTestId('preset-comparison')
  await expect(comparison.getByTestId('preset-comparison-side')).toHaveText(['Claude Code (1M)', 'Codex CLI (local compaction)'])
  const tokensAfter = comparison.getByTestId('compare-tokens-after')
  await expect(tokensAfter).toHaveCount(2)
  await expect(tokensAfter.nth(0)).toHaveText(/^\d[\d,]*$/, done)
  await expect(tokensAfter.nth(1)).toHaveText(/^\d[\d,]*$/, done)
  const count = /^\d[\d,]*$/
  await expect(comparison.getByTestId('compare-passes')).toHaveText([count, count])
  await expect(comparison.getByTestId('compare-needed-facts-lost')).toHaveText([count, count])
  expect(errors).toEqual([])
})
