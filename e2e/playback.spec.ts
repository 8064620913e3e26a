import { expect, test, type Page } from '@playwright/test'
import { openApp, rows, watchErrors } from './helpers'

/** What the page shows of a run: totals, the pass list's passes, the After column's rows. */
async function shown(page: Page) {
  return {
    tokensAfter: await page.getByTestId('tokens-after').textContent(),
    messagesAfter: await page.getByTestId('messages-after').textContent(),
    passes: await page.getByTestId('passes').textContent(),
    afterRows: await rows(page, 'after').allTextContents(),
  }
}

/** The full run's passes as the pass list words them: `pass 2 — messages 22–33`, in order. */
async function passListed(page: Page): Promise<string[]> {
  const list = page.getByTestId('pass-list')
  await list.locator('summary').click()
  const lines = await list.locator('.passes__line').allTextContents()
  await list.locator('summary').click()
  return lines.map((line) => {
    const m = /^(pass \d+).*?messages (\d+–\d+) → summary/.exec(line)
    if (!m) throw new Error(`unexpected pass line: ${line}`)
    return `${m[1]} — messages ${m[2]}`
  })
}

/** Every text the playback status line shows from now on, in order (recorded in the page). */
async function recordAnnouncements(page: Page): Promise<void> {
  await page.evaluate(() => {
    const seen: string[] = []
    ;(window as unknown as { announced: string[] }).announced = seen
    new MutationObserver(() => {
      const text = document.querySelector('[data-testid="playback-status"]')?.textContent ?? ''
      if (text !== '' && seen.at(-1) !== text) seen.push(text)
    }).observe(document.body, { subtree: true, childList: true, characterData: true })
  })
}

const bar = (page: Page) => page.getByTestId('playback-bar')
const turnInHash = (page: Page) => page.evaluate(() => /[#&]turn=(\d+)/.exec(window.location.hash)?.[1] ?? null)

test('playback from turn 1 to the end announces every pass in order and ends in the full run’s After', async ({ page }) => {
  const errors = watchErrors(page)
  await openApp(page)
  // Passes at several turns of the sample.
  await page.getByRole('spinbutton', { name: 'summarize keep_last value' }).fill('4')
  await page.getByRole('spinbutton', { name: 'summarize compact_after value' }).fill('8')
  await expect(page.getByTestId('loading')).toHaveCount(0)
  await expect.poll(async () => Number(await page.getByTestId('passes').textContent())).toBeGreaterThanOrEqual(2)
  const expected = await passListed(page)
  expect(expected.length).toBeGreaterThanOrEqual(2)
  const full = await shown(page)

  await recordAnnouncements(page)
  await page.getByTestId('playback-start').click()
  await expect(bar(page)).toBeVisible()
  await page.getByRole('radio', { name: '4×' }).click()
  await expect(bar(page)).toHaveAttribute('data-turns', /^\d+$/)
  const turns = Number(await bar(page).getAttribute('data-turns'))
  expect(turns).toBeGreaterThanOrEqual(expected.length)

  // It plays to the last turn and stops there.
  await expect(bar(page)).toHaveAttribute('data-turn', String(turns), { timeout: 60_000 })
  await expect(bar(page)).toHaveAttribute('data-playing', 'false')
  await expect(page.getByTestId('playback-computing')).toHaveAttribute('data-computing', 'false')
  expect(await turnInHash(page)).toBe(String(turns))

  // Every pass of the full run was announced, in order, with the decision that fired it.
  const announced = await page.evaluate(() => (window as unknown as { announced: string[] }).announced)
  const said = announced.flatMap((line) => [...line.matchAll(/(pass \d+ — messages \d+–\d+) → summary, because /g)].map((m) => m[1]))
  expect(said).toEqual(expected)
  for (const line of announced) expect(line).toMatch(/^Turn \d+: pass \d+ — .* → pass \d+ fired/)

  // The last turn shows what the full run showed; so does the page after Exit.
  expect(await shown(page)).toEqual(full)
  await page.getByTestId('playback-exit').click()
  await expect(bar(page)).toHaveCount(0)
  await expect(page.getByTestId('playback-start')).toBeVisible()
  await expect(page.getByTestId('loading')).toHaveCount(0)
  await expect.poll(() => shown(page)).toEqual(full)
  expect(await turnInHash(page)).toBeNull()
  expect(errors).toEqual([])
})

test('the turn follows the URL and is restored on reload; p , . drive playback', async ({ page }) => {
  const errors = watchErrors(page)
  await openApp(page)
  const messagesOf = async () => Number(await page.getByTestId('messages-before').textContent())
  const all = await messagesOf()

  await page.getByTestId('playback-start').click()
  await expect(bar(page)).toBeVisible()
  // Playing: p pauses it (on a busy machine it may have moved on: back to turn 1 then).
  await page.keyboard.press('p')
  await expect(bar(page)).toHaveAttribute('data-playing', 'false')
  if ((await bar(page).getAttribute('data-turn')) !== '1') await page.getByRole('button', { name: 'First turn' }).click()
  await expect(bar(page)).toHaveAttribute('data-turn', '1')
  await expect(page.getByTestId('playback-computing')).toHaveAttribute('data-computing', 'false')
  const turnOne = await messagesOf()
  expect(turnOne).toBeLessThan(all)
  const turns = Number(await bar(page).getAttribute('data-turns'))
  expect(turns).toBeGreaterThan(2)

  // . steps forward, , steps back; the hash follows.
  await page.keyboard.press('.')
  await expect(bar(page)).toHaveAttribute('data-turn', '2')
  await expect.poll(() => turnInHash(page)).toBe('2')
  await expect.poll(messagesOf).toBeGreaterThan(turnOne)
  await page.keyboard.press('.')
  await expect(bar(page)).toHaveAttribute('data-turn', '3')
  await page.keyboard.press(',')
  await expect(bar(page)).toHaveAttribute('data-turn', '2')
  await expect.poll(() => turnInHash(page)).toBe('2')
  await expect(page.getByTestId('playback-readout')).toHaveText(`Turn 2 of ${turns}`)
  const atTwo = await messagesOf()

  // Reload: playback opens paused at turn 2, showing the same prefix.
  await page.reload()
  await expect(bar(page)).toHaveAttribute('data-turn', '2', { timeout: 90_000 })
  await expect(bar(page)).toHaveAttribute('data-playing', 'false')
  await expect(page.getByTestId('playback-computing')).toHaveAttribute('data-computing', 'false')
  await expect.poll(messagesOf).toBe(atTwo)

  // A setting changed during playback re-runs the turn shown.
  await page.getByRole('spinbutton', { name: 'summarize compact_after value' }).fill('4')
  await expect(page.getByTestId('playback-computing')).toHaveAttribute('data-computing', 'false')
  await expect(bar(page)).toHaveAttribute('data-turn', '2')
  await expect.poll(messagesOf).toBe(atTwo)
  // Out of the field: the keys are shortcuts again.
  await page.getByTestId('playback-readout').click()

  // p plays on from here; the ? list names the playback keys.
  await page.keyboard.press('p')
  await expect(bar(page)).toHaveAttribute('data-playing', 'true')
  await page.keyboard.press('p')
  await expect(bar(page)).toHaveAttribute('data-playing', 'false')
  await page.keyboard.press('?')
  const dialog = page.getByTestId('shortcuts-dialog')
  await expect(dialog).toContainText('Play / pause the session turn by turn')
  await expect(dialog).toContainText('Step one turn back / forward')
  await page.keyboard.press('Escape')

  // Exit: the whole session again, and no turn in the URL.
  await page.getByTestId('playback-exit').click()
  await expect.poll(messagesOf).toBe(all)
  await expect.poll(() => turnInHash(page)).toBeNull()
  expect(errors).toEqual([])
})

test('in presentation mode p starts playback and its bar stays, compact, with the columns', async ({ page }) => {
  const errors = watchErrors(page)
  await openApp(page)
  await page.locator('main.content').focus()
  await page.keyboard.press('Shift+P')
  await expect(page.locator('.app-header')).toBeHidden()
  // The ▶ Play button sits in the hidden tab row: the key is the way in.
  await expect(page.getByTestId('playback-start')).toBeHidden()
  await page.keyboard.press('p')
  await expect(bar(page)).toBeVisible()
  // It plays through the sample's turns and stops at the last one.
  await expect(bar(page)).toHaveAttribute('data-turns', /^\d+$/)
  const turns = await bar(page).getAttribute('data-turns')
  await expect(bar(page)).toHaveAttribute('data-turn', turns ?? '', { timeout: 90_000 })
  await expect(bar(page)).toHaveAttribute('data-playing', 'false', { timeout: 90_000 })
  // p plays again, from turn 1.
  await page.keyboard.press('p')
  await expect(bar(page)).toHaveAttribute('data-playing', 'true')
  await expect(page.getByTestId('playback-toggle')).toBeVisible()
  await expect(page.getByTestId('playback-readout')).toBeVisible()
  await expect(page.getByTestId('playback-strip')).toBeHidden()
  // Still presentation: the rest of the row, the header and the settings stay hidden.
  await expect(page.getByRole('tablist', { name: 'View' })).toBeHidden()
  await expect(page.getByRole('complementary', { name: 'Pipeline' })).toBeHidden()
  await expect(page.getByTestId('before-column')).toBeVisible()
  await expect(page.getByTestId('after-column')).toBeVisible()
  await expect(page.getByTestId('tokens-saved')).toBeVisible()
  expect(errors).toEqual([])
})
