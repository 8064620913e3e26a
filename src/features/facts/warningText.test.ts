import { describe, expect, it } from 'vitest'
import { warningPieces } from './warningText'

describe('warningPieces', () => {
  it('renames the ids a warning lists to their column labels, as whole tokens only', () => {
    const labels = new Map([
      ['13832f2c-3b11-40fa-9478-6ef73600c082', '#40'],
      ['summary:summarize:1', 'after #0'],
      ['m2', '#2'],
    ])
    const text =
      'the current request (message 13832f2c-3b11-40fa-9478-6ef73600c082) is lost: summarize pass 1 folded ' +
      'message 13832f2c-3b11-40fa-9478-6ef73600c082 into summary summary:summarize:1; m21 and m2x are not m2.'
    const pieces = warningPieces(text, labels)
    expect(pieces.map((p) => p.text).join('')).toBe(
      'the current request (message #40) is lost: summarize pass 1 folded message #40 into summary after #0; ' +
        'm21 and m2x are not #2.',
    )
    expect(pieces.filter((p) => p.id).map((p) => p.id)).toEqual([
      '13832f2c-3b11-40fa-9478-6ef73600c082',
      '13832f2c-3b11-40fa-9478-6ef73600c082',
      'summary:summarize:1',
      'm2',
    ])
  })

  it('leaves a sentence without known ids whole, and escapes ids that look like regex syntax', () => {
    expect(warningPieces('nothing here', new Map())).toEqual([{ text: 'nothing here' }])
    expect(warningPieces('see a.b+(c) and aXb+(c)', new Map([['a.b+(c)', '#1']])).map((p) => p.text)).toEqual([
      'see ',
      '#1',
      ' and aXb+(c)',
    ])
  })
})
