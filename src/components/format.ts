import { nounFor } from '../engine/util/text'
const numberFormat = new Intl.NumberFormat('en-US')

/** `12,345`: a count (tokens, messages, chars) rounded to a whole number, thousands separated. */
export function formatCount(n: number): string {
  return numberFormat.format(Math.round(n))
}

/** `1 message` / `2 messages` / `12,000 tokens`: a count and its noun, pluralized in English. */
export function formatCountOf(n: number, singular: string, plural = `${singular}s`): string {
  return `${formatCount(n)} ${nounFor(n, singular, plural)}`
}

/** Thousands separators in the bare numbers (4+ digits) of a sentence: `12000 tokens` → `12,000 tokens`. */
export function formatNumbersIn(text: string): string {
  return text.replace(/(?<![\d.,\w-])\d{4,}(?![\d.,]\d|\w)/g, (d) => formatCount(Number(d)))
}
