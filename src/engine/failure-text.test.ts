import { describe, expect, it } from 'vitest'
import { failureText } from './failure-text'

describe('failureText', () => {
  it('names a stack overflow for what it means for the input', () => {
    let overflow: unknown
    const down = (n: number): number => (n === 0 ? 0 : 1 + down(n - 1))
    try {
      down(1e7)
    } catch (e) {
      overflow = e
    }
    expect(overflow).toBeInstanceOf(RangeError)
    expect(failureText(overflow)).toBe(
      'this input is nested or chained too deeply to process here (the engine ran out of stack)',
    )
  })

  it('names a string too long to hold', () => {
    let tooLong: unknown
    try {
      'x'.repeat(2 ** 30).repeat(4)
    } catch (e) {
      tooLong = e
    }
    expect(failureText(tooLong)).toMatch(/^a text built from this input would be longer than the largest string/)
  })

  it('passes the engine’s own messages through, on one line', () => {
    expect(failureText(new Error('line 3: Unexpected token'))).toBe('line 3: Unexpected token')
    expect(failureText('first\nsecond')).toBe('first second')
    expect(failureText(new Error(''))).toBe('unknown error')
  })
})
