import { expect, test } from '@playwright/test'
import { openApp, watchErrors } from './helpers'

/**
 * A short transcript's two columns appear together: on a long one the After column renders one
 * deferred render after the Before (so the two never commit in one task), but on a short one
 * an After appearing after its Before would only flash. Watched every animation frame.
 */
test('opening short samples never shows a Before with an empty After', async ({ page }) => {
  const errors = watchErrors(page)
  await openApp(page)
  for (const sample of ['codex-rollout.jsonl', 'openai-chat-legacy-functions.json', 'chatgpt-export-conversations.json']) {
    await page.evaluate(() => {
      const w = window as unknown as { __lonely: number; __watching: boolean }
      w.__lonely = 0
      w.__watching = true
      const rowsIn = (side: string) => document.querySelectorAll(`[data-testid="${side}-column"] [role="row"]`).length
      const frame = () => {
        if (rowsIn('before') > 0 && rowsIn('after') === 0) w.__lonely++
        if (w.__watching) requestAnimationFrame(frame)
      }
      requestAnimationFrame(frame)
    })
    await page.getByLabel('Open transcript').setInputFiles(`public/samples/${sample}`)
    await expect(page.getByTestId('file-info')).toContainText(sample, { timeout: 60_000 })
    await expect(page.getByTestId('loading')).toHaveCount(0, { timeout: 60_000 })
    await expect(page.locator('[data-testid="after-column"] [role="row"]').first()).toBeVisible()
    const lonely = await page.evaluate(() => {
      const w = window as unknown as { __lonely: number; __watching: boolean }
      w.__watching = false
      return w.__lonely
    })
    expect(lonely, sample).toBe(0)
  }
  expect(errors).toEqual([])
})
