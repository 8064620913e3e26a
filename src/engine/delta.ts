/**
 * Signed changes of a token count, for every place that shows what a compaction did (CLI, page,
 * exports): a saving reads `−216` / `−14.4%`, a growth `+216` / `+14.4%`, with the real minus
 * sign U+2212 the page uses everywhere. Pure.
 */

const grouped = new Intl.NumberFormat('en-US')

/**
 * `after − before` tokens, signed: `−1,234` (fewer), `+216` (more), `0` (equal). Whole tokens,
 * thousands separated (en-US).
 */
export function formatTokenDelta(before: number, after: number): string {
  const delta = Math.round(after) - Math.round(before)
  if (delta === 0) return '0'
  return `${delta < 0 ? '−' : '+'}${grouped.format(Math.abs(delta))}`
}

/**
 * `(after − before) / before` in percent, signed, one decimal: `−14.4%`, `+14.4%`, `0%` (no
 * change, or a change under 0.05 %); `—` for a growth from an empty `before` (no percentage of
 * nothing). Truncated rather than rounded up to 100,
 * so `−99.96%` reads `−99.9%`: `−100%` only when everything went (`+100%`, `+250.0%` for growths).
 */
export function formatPercentDelta(before: number, after: number): string {
  if (before === 0) return after === 0 ? '0%' : '—'
  const percent = ((after - before) / before) * 100
  const abs = Math.abs(percent)
  const text = abs >= 99.95 && abs < 100 ? (Math.floor(abs * 10) / 10).toFixed(1) : abs.toFixed(1)
  if (Number(text) === 0) return '0%'
  return `${percent < 0 ? '−' : '+'}${text === '100.0' ? '100' : text}%`
}
