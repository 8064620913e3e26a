import { expect, test } from '@playwright/test'
import { openApp, watchErrors } from './helpers'

/**
 * test/fixtures/formats/usage-claude-code-calibration.jsonl (scripts/gen-calibration-fixture.mts):
 * a Claude Code session whose eight responses each record a context of 12,000 + 1.25 × our
 * o200k_base count of it, so the fit is overhead 12,000 and ratio 1.25 with no miss.
 */
const FIXTURE = 'test/fixtures/formats/usage-claude-code-calibration.jsonl'

/** A count as the page writes it (`13,251`) as a number. */
const count = (text: string | null) => Number((text ?? '').replace(/[^\d]/g, ''))

test('the totals say the counts are calibrated to the file’s usage; raw counts are one click away, and back', async ({ page }) => {
  test.setTimeout(240_000)
  const errors = watchErrors(page)
  await openApp(page)
  await page.getByLabel('Open transcript').setInputFiles(FIXTURE)
  await expect(page.getByTestId('file-format')).toHaveText('claude-code')
  await expect(page.getByTestId('loading')).toHaveCount(0)

  const line = page.getByTestId('totals-calibration')
  const before = page.getByTestId('tokens-before')
  const setting = page.getByLabel('Token counts')
  // The headline in the totals' row, its numbers on the line (and its tooltip).
  await expect(line).toContainText("calibrated to the file's usage: ±0.0%")
  await expect(line).toHaveAttribute('data-details', 'overhead 12,000 tokens, ratio 1.25; 8 recorded requests')
  await expect(setting).toHaveValue('auto')
  // The line's terms are explained on hover.
  await expect(line.getByText("calibrated to the file's usage", { exact: false })).toHaveAttribute(
    'title',
    /^calibrated to the file's usage: ±0\.0% \(overhead 12,000 tokens, ratio 1\.25; 8 recorded requests\)\.\nOverhead: tokens every request carries/,
  )
  const calibrated = count(await before.textContent())

  await test.step('show raw counts: the setting turns to Raw and the Before drops to our own count', async () => {
    await line.getByRole('button', { name: 'show raw counts' }).click()
    await expect(setting).toHaveValue('off')
    await expect(line).toHaveText(/^raw o200k_base counts\s*calibrate$/)
    await expect(before).not.toHaveText(new Intl.NumberFormat('en-US').format(calibrated))
    const raw = count(await before.textContent())
    // Calibrated = overhead + 1.25 × each message's count (rounded per message) over the same
    // messages and reply priming: 12,000 + 1.25 × raw, up to half a token per message of rounding.
    expect(Math.abs(calibrated - (12_000 + 1.25 * raw))).toBeLessThanOrEqual(17 / 2 + 1)
    expect(page.url()).toContain('cal=off')
  })

  await test.step('calibrate: back to the fitted counts', async () => {
    await line.getByRole('button', { name: 'calibrate' }).click()
    await expect(setting).toHaveValue('auto')
    await expect(line).toContainText("calibrated to the file's usage: ±0.0%")
    await expect(before).toHaveText(new Intl.NumberFormat('en-US').format(calibrated))
  })

  await test.step('by hand: the overhead and ratio typed are what the run counts with', async () => {
    await setting.selectOption('manual')
    // It starts from the fitted numbers.
    await expect(page.getByTestId('calibration-overhead')).toHaveValue('12000')
    await page.getByTestId('calibration-overhead').fill('5000')
    await page.getByTestId('calibration-ratio').fill('1')
    await expect(line).toContainText('calibrated by hand')
    await expect(line).toHaveAttribute('data-details', 'overhead 5,000 tokens, ratio 1.00')
    // Ratio 1 and 5,000 tokens of overhead: the raw count plus 5,000.
    await setting.selectOption('off')
    const raw = count(await before.textContent())
    await setting.selectOption('manual')
    await expect(before).toHaveText(new Intl.NumberFormat('en-US').format(raw + 5_000))
    // A ratio outside 0.5–2.5 is refused and said so.
    await page.getByTestId('calibration-ratio').fill('3')
    await expect(page.getByTestId('token-counts-setting')).toContainText('A ratio is between 0.5 and 2.5: still 1.')
    await expect(line).toHaveAttribute('data-details', 'overhead 5,000 tokens, ratio 1.00')
  })

  expect(errors).toEqual([])
})
