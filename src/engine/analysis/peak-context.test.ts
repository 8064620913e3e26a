import { describe, expect, it } from 'vitest'
import { exceedsWindow, overWindowText, peakContextTokens } from './peak-context'

describe('peakContextTokens / exceedsWindow / overWindowText', () => {
  const run = (after: number, ...before: number[]) => ({
    after: { totals: { tokens: after } },
    passes: before.map((tokensBefore) => ({ tokensBefore })),
  })

  it('is the largest of the After total and every pass’s context before it fired', () => {
    expect(peakContextTokens(run(700, 900, 1200, 400))).toBe(1200)
    expect(peakContextTokens(run(1500, 900))).toBe(1500)
    // No pass: the context only grew, up to the After total.
    expect(peakContextTokens(run(3000))).toBe(3000)
  })

  it('is over the window only when the peak is more than the window', () => {
    expect(exceedsWindow(run(150_000, 200_000), 200_000)).toBe(false)
    expect(exceedsWindow(run(150_000, 200_001), 200_000)).toBe(true)
  })

  it('says the window and what it means', () => {
    expect(overWindowText(200_000)).toBe('over the 200,000-token window: the agent would have failed here')
  })
})
