const numberFormat = new Intl.NumberFormat('en-US')

/** `12,345`: a count (tokens, messages, chars) rounded to a whole number, thousands separated. */
export function formatCount(n: number): string {
  return numberFormat.format(Math.round(n))
}

/** `1 message` / `2 messages` / `12,000 tokens`: a count and its noun, pluralized in English. */
export function formatCountOf(n: number, singular: string, plural = `${singular}s`): string {
  return `${formatCount(n)} ${Math.round(n) === 1 ? singular : plural}`
}

/**
 * `−42%` / `+3%` / `0%` with a real minus sign. One decimal near the ends, where rounding would
 * mislead: `−99.8%` (never `−100%` unless everything went) and `−0.4%` (never `0%` for a change).
 * Truncated toward zero at the top so 99.96 reads `99.9`, not `100.0`.
 */
export function formatPercentChange(savedPercent: number): string {
  const abs = Math.abs(savedPercent)
  let text: string
  if (abs >= 99.5 && abs < 100) text = (Math.floor(abs * 10) / 10).toFixed(1)
  else if (abs < 1) text = abs.toFixed(1)
  else text = String(Math.round(abs))
  if (Number(text) === 0) return '0%'
  return savedPercent > 0 ? `−${text}%` : `+${text}%`
}

/** Thousands separators in the bare numbers (4+ digits) of a sentence: `12000 tokens` → `12,000 tokens`. */
export function formatNumbersIn(text: string): string {
  return text.replace(/(?<![\d.,\w-])\d{4,}(?![\d.,]\d|\w)/g, (d) => formatCount(Number(d)))
}
