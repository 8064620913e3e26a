import { describe, expect, it } from 'vitest'
import { hashWithTurn, turnFromHash } from './url'

describe('the playback turn in the hash', () => {
  it('reads a whole turn ≥ 1 and nothing else', () => {
    expect(turnFromHash('#cfg=v1;x&turn=7')).toBe(7)
    expect(turnFromHash('#turn=12&watch=a')).toBe(12)
    for (const hash of ['', '#cfg=v1;x', '#turn=0', '#turn=-3', '#turn=2.5', '#turn=seven', '#turn=']) {
      expect(turnFromHash(hash)).toBeNull()
    }
  })

  it('writes it after the other entries, in place when there, and removes it for null', () => {
    expect(hashWithTurn('#cfg=v1;x&watch=a', 7)).toBe('#cfg=v1;x&watch=a&turn=7')
    expect(hashWithTurn('#cfg=v1;x&turn=7&watch=a', 8)).toBe('#cfg=v1;x&turn=8&watch=a')
    expect(hashWithTurn('#cfg=v1;x&turn=8', null)).toBe('#cfg=v1;x')
    expect(hashWithTurn('#turn=8', null)).toBe('')
    expect(hashWithTurn('', 1)).toBe('#turn=1')
  })
})
