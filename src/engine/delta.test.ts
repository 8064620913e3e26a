import { describe, expect, it } from 'vitest'
import { formatPercentDelta, formatTokenDelta } from './delta'

describe('formatTokenDelta', () => {
  it('signs a growth with + and a saving with the real minus sign (U+2212)', () => {
    expect(formatTokenDelta(315, 531)).toBe('+216')
    expect(formatTokenDelta(531, 315)).toBe('−216')
    expect(formatTokenDelta(531, 315).codePointAt(0)).toBe(0x2212)
    expect(formatTokenDelta(40, 40)).toBe('0')
  })
  it('groups thousands', () => {
    expect(formatTokenDelta(12000, 10766)).toBe('−1,234')
  })
})

describe('formatPercentDelta', () => {
  it('one decimal, signed: 464 → 531 is +14.4% (67 / 464 = 14.44 %)', () => {
    expect(formatPercentDelta(464, 531)).toBe('+14.4%')
    expect(formatPercentDelta(531, 464)).toBe('−12.6%') // 67 / 531 = 12.62 %
  })
  it('0% for no change or under 0.05 %; a growth from nothing has no percentage', () => {
    expect(formatPercentDelta(100, 100)).toBe('0%')
    expect(formatPercentDelta(0, 0)).toBe('0%')
    expect(formatPercentDelta(0, 5)).toBe('—')
    expect(formatPercentDelta(10000, 10004)).toBe('0%') // 0.04 %
  })
  it('−100% only when everything went', () => {
    expect(formatPercentDelta(10000, 4)).toBe('−99.9%') // 99.96 % truncated
    expect(formatPercentDelta(10, 0)).toBe('−100%')
  })
})
