const numberFormat = new Intl.NumberFormat('en-US')

/** `12,345`. */
export function formatCount(n: number): string {
  return numberFormat.format(Math.round(n))
}

/** `−42%` / `+3%` / `0%` with a real minus sign. */
export function formatPercentChange(savedPercent: number): string {
  const rounded = Math.round(savedPercent)
  if (rounded === 0) return '0%'
  return rounded > 0 ? `−${rounded}%` : `+${-rounded}%`
}
