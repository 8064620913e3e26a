import { describe, expect, it } from 'vitest'
import { formatCount, formatCountOf, formatNumbersIn } from './format'

describe('counts', () => {
  it('separates thousands and pluralizes', () => {
    expect(formatCount(12000)).toBe('12,000')
    expect(formatCountOf(1, 'message')).toBe('1 message')
    expect(formatCountOf(6001, 'message')).toBe('6,001 messages')
    expect(formatCountOf(2, 'pass', 'passes')).toBe('2 passes')
  })
  it('formats the bare numbers of a sentence, not ids, decimals or small numbers', () => {
    expect(formatNumbersIn('total 12000 tokens ≤ threshold 5000')).toBe('total 12,000 tokens ≤ threshold 5,000')
    expect(formatNumbersIn('kept 20 of 6001 messages')).toBe('kept 20 of 6,001 messages')
    expect(formatNumbersIn('id msg-12345 and 1.2345 and 12,000')).toBe('id msg-12345 and 1.2345 and 12,000')
  })
})
