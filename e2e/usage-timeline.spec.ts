import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { expect, test, type Page } from '@playwright/test'
import { generateLargeSession } from '../test/fixtures'
import { openApp, watchErrors } from './helpers'

let dir = ''
let file = ''
/** The context each response recorded (one per message.id, synthetic skipped) and each compaction's preTokens, read off the file. */
let contexts = new Set<number>()
const preTokens: number[] = []

// An invented Claude Code session in the real record shape (responses split over records sharing
// message.id and usage, one auto compact_boundary with compactMetadata), small enough to load fast.
test.beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'ci-usage-'))
  file = join(dir, 'claude-code-usage.jsonl')
  generateLargeSession(0.6, file, ['--compact-kchars=250', '--no-images'])
  // Claude Code's usage (formats-more.md §10.6): the context sent = input + cache creation + cache read.
  const byId = new Map<string, number>()
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (!line.trim()) continue
    const r = JSON.parse(line) as {
      type?: string
      subtype?: string
      compactMetadata?: { preTokens?: number }
      message?: { id?: string; model?: string; usage?: Record<string, number> }
    }
    if (r.type === 'system' && r.subtype === 'compact_boundary' && r.compactMetadata?.preTokens !== undefined) preTokens.push(r.compactMetadata.preTokens)
    const u = r.message?.usage
    if (r.type !== 'assistant' || !u || !r.message?.id || r.message.model === '<synthetic>') continue
    byId.set(r.message.id, (u.input_tokens ?? 0) + (u.cache_creation_input_tokens ?? 0) + (u.cache_read_input_tokens ?? 0))
  }
  contexts = new Set([...byId.values()].filter((n) => n > 0))
})

test.afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true })
})

async function openTimeline(page: Page): Promise<void> {
  await openApp(page)
  await page.getByLabel('Open transcript').setInputFiles(file)
  await expect(page.getByTestId('file-info')).toContainText('claude-code-usage.jsonl', { timeout: 60_000 })
  await expect(page.getByTestId('loading')).toHaveCount(0, { timeout: 60_000 })
  await page.getByRole('tab', { name: 'Timeline' }).click()
  await expect(page.getByTestId('timeline-caption')).toHaveAttribute('data-done', 'true', { timeout: 120_000 })
}

test('the timeline draws the agent’s recorded usage and compactions, hover reads them, and the stacked view says what filled the window', async ({ page }) => {
  test.setTimeout(240_000)
  expect(contexts.size).toBeGreaterThan(10)
  expect(preTokens.length).toBe(1)
  const errors = watchErrors(page)
  await openTimeline(page)

  const chart = page.getByTestId('timeline-chart')
  await expect(chart).toHaveAttribute('data-requests', String(contexts.size))
  await expect(page.getByTestId('timeline-caption')).toContainText(`${contexts.size.toLocaleString('en-US')} recorded requests, 1 recorded compaction`)
  await expect(page.getByTestId('timeline-legend-recorded')).toContainText("recorded (agent's usage)")
  await expect(page.getByTestId('timeline-legend-estimate')).toBeVisible()

  // The compaction marker: its trigger and the agent's own count before it.
  const pre = (preTokens[0] as number).toLocaleString('en-US')
  const marker = chart.getByTestId('timeline-compaction')
  await expect(marker).toHaveCount(1)
  await expect(marker).toHaveText(`auto · ${pre}`)
  await expect(page.getByTestId('timeline-legend-compactions')).toContainText(`1 recorded compaction (trigger · the agent's tokens before it: auto · ${pre})`)

  // Hovering reads a recorded request's own figure beside our estimate; the page does not move.
  const over = chart.locator('.u-over')
  const box = await over.boundingBox()
  if (!box) throw new Error('the chart has no plot area')
  const legend = page.getByTestId('timeline-legend')
  const legendBefore = await legend.boundingBox()
  await page.mouse.move(box.x + box.width * 0.6, box.y + box.height / 2)
  const hover = page.getByTestId('timeline-usage-hover')
  await expect(hover).not.toHaveAttribute('data-recorded', '')
  const recorded = Number(await hover.getAttribute('data-recorded'))
  expect(contexts.has(recorded)).toBe(true)
  await expect(hover).toContainText(`recorded ${recorded.toLocaleString('en-US')} tokens (the agent's usage) · our estimate`)
  await expect(page.getByTestId('timeline-hover')).toContainText(/^Turn \d+: before [\d,]+ tokens · after /)
  expect(await legend.boundingBox()).toEqual(legendBefore)

  await page.screenshot({ path: '/tmp/shots/timeline-1440.png', fullPage: false })

  // The stacked view: its legend names the parts, and the hover says what the request's context held.
  await page.getByLabel('What filled the window').check()
  await expect(chart).toHaveAttribute('data-stacked', 'true')
  const parts = page.getByTestId('timeline-composition-legend')
  await expect(parts.locator('[data-part="overhead"]')).toBeVisible()
  await expect(parts.locator('[data-part="user"]')).toBeVisible()
  await expect(parts.locator('[data-part="assistant"]')).toBeVisible()
  await expect(parts.locator('[data-part="summaries"]')).toBeVisible()
  await expect(parts.locator('[data-part^="tool:"]').first()).toContainText(' results')
  await page.mouse.move(box.x + box.width * 0.3, box.y + box.height / 2)
  await page.mouse.move(box.x + box.width * 0.6, box.y + box.height / 2)
  await expect(page.getByTestId('timeline-usage-composition')).toContainText(/^overhead [\d,]+ · /)
  await page.screenshot({ path: '/tmp/shots/timeline-1440-stacked.png', fullPage: false })

  await page.setViewportSize({ width: 1024, height: 768 })
  await expect(marker).toHaveText(`auto · ${pre}`)
  await page.mouse.move(0, 0)
  const small = await chart.locator('.u-over').boundingBox()
  if (!small) throw new Error('the chart has no plot area')
  await page.mouse.move(small.x + small.width * 0.6, small.y + small.height / 2)
  await expect(hover).not.toHaveAttribute('data-recorded', '')
  await page.screenshot({ path: '/tmp/shots/timeline-1024-stacked.png', fullPage: false })
  await page.getByLabel('What filled the window').uncheck()
  await page.mouse.move(small.x + small.width * 0.4, small.y + small.height / 2)
  await page.screenshot({ path: '/tmp/shots/timeline-1024.png', fullPage: false })
  expect(errors).toEqual([])
})

test('a file that records no usage draws nothing new and says so', async ({ page }) => {
  test.setTimeout(180_000)
  const errors = watchErrors(page)
  await openApp(page)
  // Six user/assistant exchanges of our own, without any usage.
  await page.getByLabel('Open transcript').setInputFiles('test/fixtures/decision-log/six-turns.json')
  await expect(page.getByTestId('file-info')).toContainText('six-turns.json', { timeout: 60_000 })
  await expect(page.getByTestId('loading')).toHaveCount(0, { timeout: 60_000 })
  await page.getByRole('tab', { name: 'Timeline' }).click()
  const caption = page.getByTestId('timeline-caption')
  await expect(caption).toHaveAttribute('data-done', 'true', { timeout: 120_000 })
  await expect(caption).toContainText('this file records no usage')
  await expect(page.getByTestId('timeline-chart')).toHaveAttribute('data-requests', '0')
  await expect(page.getByTestId('timeline-legend-recorded')).toHaveCount(0)
  await expect(page.getByLabel('What filled the window')).toHaveCount(0)
  await expect(page.getByTestId('timeline-usage-hover')).toHaveCount(0)
  expect(errors).toEqual([])
})

test.beforeAll(() => mkdirSync('/tmp/shots', { recursive: true }))
