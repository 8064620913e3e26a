import { expect, test } from '@playwright/test'
import { neededText } from '../src/engine/facts/needed'
import { importTranscript } from '../src/engine/formats'
import { DEFAULT_PIPELINE, runPipeline } from '../src/engine/pipeline'
import { loadCounter } from '../src/engine/tokens/count'
import { neededFactsOf } from '../src/features/totals/needed-line'
import { longChat } from '../test/hostile'
import { openApp, watchErrors } from './helpers'

/** One animation frame of the page, as the sampler below records it. */
interface Frame {
  /** The long chat's run is on screen (its file name shown, the totals card there). */
  shown: boolean
  /** "Checking for failure modes…" is on screen: the run's checks have not come yet. */
  pending: boolean
  /** The card's "facts were needed" line says it is being checked. */
  neededPending: boolean
  /** Viewport tops (CSS px) of what sits under the totals card, and the card's height. */
  tabsTop: number
  viewTop: number
  beforeTop: number
  totalsHeight: number
  neededTop: number | null
}

/**
 * A 1,200-message chat (`longChat`); `withNeededFact`: message 500 gives the postal code
 * 01310-100 and message 1150 says "ship it to the postal code I gave you", which the rolling
 * summaries of the default pipeline have dropped by then (their facts are capped).
 */
function chat(withNeededFact: boolean): string {
  const text = longChat(1_200)
  if (!withNeededFact) return text
  const parsed = JSON.parse(text) as { messages: { role: string; content: string }[] }
  parsed.messages[500]!.content = 'Step 500: the parcel goes to postal code 01310-100.'
  parsed.messages[1150]!.content = 'Step 1150: ship it to the postal code I gave you.'
  return JSON.stringify(parsed)
}

/** The totals line the engine's run of `text` calls for, under the default pipeline. */
async function expectedNeededLine(text: string): Promise<string> {
  const imported = importTranscript(text, { fileName: 'long-chat.json' })
  if (!imported.ok) throw new Error(imported.error.message)
  const counter = await loadCounter('o200k_base')
  const warnings = (await runPipeline(imported.transcript, DEFAULT_PIPELINE, { counter })).checks.failureModes ?? []
  // The chat raises warnings: the checks have something to bring.
  expect(warnings.length).toBeGreaterThan(0)
  const needed = neededFactsOf(warnings)
  return needed.length === 0 ? 'No fact compaction removed was needed later' : `⚠ ${neededText(needed)}`
}

/**
 * A long session's run is shown before its failure-mode checks; when they come, the totals card
 * fills its "facts were needed" line in place: nothing under the card moves. Every frame from
 * the file's open to the warnings is sampled (requestAnimationFrame), so the frame before the
 * checks came and the one after are both looked at, however short the wait.
 */
for (const withNeededFact of [true, false]) {
  test(`the deferred failure-mode checks of a long chat fill the totals card without moving what is under it (${withNeededFact ? 'a fact needed' : 'no fact needed'})`, async ({ page }, testInfo) => {
    const text = chat(withNeededFact)
    const line = await expectedNeededLine(text)
    const errors = watchErrors(page)
    await openApp(page)
    await page.evaluate(() => {
      const frames: Frame[] = []
      ;(window as unknown as { __frames: Frame[] }).__frames = frames
      const top = (sel: string) => document.querySelector(sel)?.getBoundingClientRect().top ?? NaN
      const sample = () => {
        const totals = document.querySelector('[data-testid="totals"]')
        const needed = document.querySelector('[data-testid="totals-needed"], [data-testid="totals-needed-pending"]')
        frames.push({
          shown: !!totals && !!document.querySelector('[data-testid="file-info"]')?.textContent?.includes('long-chat.json'),
          pending: !!document.querySelector('[data-testid="check-warnings-pending"]'),
          neededPending: !!document.querySelector('[data-testid="totals-needed-pending"]'),
          tabsTop: top('.tabs-row'),
          viewTop: top('.view'),
          beforeTop: top('[data-testid="before-column"]'),
          totalsHeight: totals?.getBoundingClientRect().height ?? NaN,
          neededTop: needed ? needed.getBoundingClientRect().top : null,
        })
        requestAnimationFrame(sample)
      }
      requestAnimationFrame(sample)
    })
    await page.getByLabel('Open transcript').setInputFiles({ name: 'long-chat.json', mimeType: 'application/json', buffer: Buffer.from(text) })
    await expect(page.getByTestId('file-info')).toContainText('long-chat.json', { timeout: 60_000 })
    await expect(page.getByTestId('check-warnings')).toBeVisible({ timeout: 60_000 })
    await expect(page.getByTestId('check-warnings-pending')).toHaveCount(0)
    await expect(page.getByTestId('totals-needed')).toHaveText(line)
    await testInfo.attach('totals after the checks', { body: await page.getByTestId('totals').screenshot(), contentType: 'image/png' })
    // A few frames after the warnings, so the last layout is in the samples too.
    await page.evaluate(() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done))))
    const frames = (await page.evaluate(() => (window as unknown as { __frames: Frame[] }).__frames)).filter((f) => f.shown)

    const firstPending = frames.findIndex((f) => f.pending)
    // The checks were left for later: at least one frame showed the run without them.
    expect(firstPending).toBeGreaterThanOrEqual(0)
    const waiting = frames[firstPending]!
    const arrived = frames.findIndex((f, i) => i > firstPending && !f.pending)
    expect(arrived).toBeGreaterThan(firstPending)
    const place = (f: Frame) => ({ tabsTop: f.tabsTop, viewTop: f.viewTop, beforeTop: f.beforeTop, totalsHeight: f.totalsHeight, neededTop: f.neededTop })
    // From the first frame without the checks to the last sampled, nothing under the card moves.
    for (const f of frames.slice(firstPending)) expect(place(f)).toEqual(place(waiting))
    // While waiting, the card's line is there already, saying it is being checked; then it is filled.
    expect(frames.slice(firstPending, arrived).every((f) => f.neededPending)).toBe(true)
    expect(frames.slice(arrived).some((f) => f.neededPending)).toBe(false)
    expect(errors).toEqual([])
  })
}
