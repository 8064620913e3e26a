import { describe, expect, it } from 'vitest'
import { formatCount, formatCountOf, formatNumbersIn, formatPercentChange } from './format'

describe('formatPercentChange', () => {
  it('rounds to whole percents in the middle', () => {
    expect(formatPercentChange(42.4)).toBe('−42%')
    expect(formatPercentChange(-3.2)).toBe('+3%')
  })
  it('keeps one decimal near 100 so 99.86 does not read as everything gone', () => {
    expect(formatPercentChange(99.86)).toBe('−99.8%')
    expect(formatPercentChange(99.5)).toBe('−99.5%')
    expect(formatPercentChange(100)).toBe('−100%')
  })
  it('keeps one decimal under 1 so a small change is not 0%', () => {
    expect(formatPercentChange(0.43)).toBe('−0.4%')
    expect(formatPercentChange(-0.25)).toBe('+0.3%')
    expect(formatPercentChange(0.01)).toBe('0%')
    expect(formatPercentChange(0)).toBe('0%')
  })
})

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
