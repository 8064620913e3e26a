import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { expect, test } from '@playwright/test'
import { generateLargeSession } from '../test/fixtures'
import { openApp, watchErrors } from './helpers'

let dir = ''
let file = ''

// A 3 MB Claude Code 2.0.76 session without recorded compactions: its context passes 200,000
// tokens, so Claude Code (200K)'s trigger for versions before 2.1.21, 200,000 window − 45,000
// reserve = 155,000 tokens, is reached.
test.beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'ci-decisions-'))
  file = join(dir, 'claude-code-200k.jsonl')
  generateLargeSession(3, file, ['--compact-kchars=0', '--no-images'])
})

test.afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true })
})

test('under Claude Code (200K) the timeline draws the 155,000 trigger of the session’s version, a hovered turn and the pass list say why a pass fired', async ({ page }) => {
  test.setTimeout(240_000)
  const errors = watchErrors(page)
  await openApp(page)
  await page.getByLabel('Open transcript').setInputFiles(file)
  await expect(page.getByTestId('file-info')).toContainText('claude-code-200k.jsonl', { timeout: 60_000 })
  await expect(page.getByTestId('loading')).toHaveCount(0, { timeout: 60_000 })
  await page.getByLabel('Preset', { exact: true }).selectOption({ label: 'Claude Code (200K)' })

  await page.getByRole('tab', { name: 'Timeline' }).click()
  const caption = page.getByTestId('timeline-caption')
  await expect(caption).toHaveAttribute('data-done', 'true', { timeout: 120_000 })
  await expect(caption).not.toHaveAttribute('data-passes', '0')

  // The legend names the window line and the trigger line with how the level was derived.
  const legend = page.getByTestId('timeline-legend')
  await expect(legend.locator('[data-level="window"]')).toContainText('model window 200,000 tokens')
  await expect(legend.locator('[data-level="summarize:trigger"]')).toContainText(
    'summarize trigger 155,000 tokens (200,000 window − 45,000 reserve)',
  )

  // No y label is cut: the widest starts with a digit and fits left of the plot area.
  const chart = page.getByTestId('timeline-chart')
  const widest = (await chart.getAttribute('data-y-widest')) ?? ''
  expect(widest).toMatch(/^\d[\d,]*$/)
  const font = (await chart.getAttribute('data-y-font')) ?? ''
  const labelWidth = await page.evaluate(
    ([text, f]) => {
      const ctx = document.createElement('canvas').getContext('2d')!
      ctx.font = f!
      return ctx.measureText(text!).width
    },
    [widest, font],
  )
  const over = chart.locator('.u-over')
  const box = await over.boundingBox()
  const host = await chart.locator('.uplot').boundingBox()
  if (!box || !host) throw new Error('the chart has no plot area')
  expect(box.x - host.x).toBeGreaterThan(labelWidth)

  // Hover the turn of the first pass: its decision, as the engine words it.
  const turns = Number(/^([\d,]+) turns/.exec((await caption.textContent()) ?? '')?.[1]?.replace(/,/g, ''))
  const passTurn = Number(((await caption.getAttribute('data-pass-turns')) ?? '').split(',')[0])
  expect(passTurn).toBeGreaterThan(1)
  // The axis starts at the first turn, or at 0 when the session's recorded requests begin before it.
  const xMin = Number(await chart.getAttribute('data-x-min'))
  await page.mouse.move(box.x + ((passTurn - xMin) / (turns - xMin)) * box.width, box.y + box.height / 2)
  await expect(page.getByTestId('timeline-hover')).toHaveAttribute('data-turn', String(passTurn))
  const said = page.getByTestId('timeline-decisions')
  await expect(said).toHaveAttribute('data-turn', String(passTurn))
  await expect(said.locator('li[data-fired="true"]')).toContainText(
    new RegExp(`^summarize: turn ${passTurn} \\(#\\d+\\): [\\d,]+ tokens ≥ 155,000 \\(200,000 window − 45,000 reserve\\) → pass 1 fired \\([\\d,]+ → [\\d,]+ tokens\\)$`),
  )

  // The log scale keeps every level on the chart.
  await page.getByRole('radio', { name: 'Log scale' }).click()
  await expect(chart).toHaveAttribute('data-scale', 'log')

  // The pass list: each pass with the decision that fired it.
  await page.getByTestId('pass-list').locator('summary').click()
  const why = page.getByTestId('pass-why')
  await expect(why.first()).toContainText(/^why: turn \d+ \(#\d+\): [\d,]+ tokens ≥ 155,000 \(200,000 window − 45,000 reserve\) → pass 1 fired/)
  expect(await why.count()).toBe(Number(await caption.getAttribute('data-passes')))
  expect(errors).toEqual([])
})
