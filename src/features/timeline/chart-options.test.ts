import { describe, expect, it } from 'vitest'
import {
  axisWidth,
  groupTokens,
  labelsLogTick,
  logRange,
  MAX_TURNS_WITH_MARKERS,
  mergedXs,
  nearestIndex,
  showTurnMarkers,
  stackGroups,
  turnAt,
  widestLabel,
} from './chart-options'

describe('showTurnMarkers', () => {
  it('marks every turn of a short session, including a session of one turn (no line to draw)', () => {
    expect(showTurnMarkers(1)).toBe(true)
    expect(showTurnMarkers(3)).toBe(true)
    expect(showTurnMarkers(MAX_TURNS_WITH_MARKERS)).toBe(true)
  })

  it('draws lines only on long sessions and on an empty one', () => {
    expect(showTurnMarkers(MAX_TURNS_WITH_MARKERS + 1)).toBe(false)
    expect(showTurnMarkers(0)).toBe(false)
  })
})

describe('axisWidth', () => {
  // 7 px per character: `1,200,000` is 9 characters, 63 px.
  const measure = (text: string) => text.length * 7

  it('is the gap plus the widest label, so no label loses its first digit', () => {
    expect(axisWidth(['0', '400,000', '1,200,000'], measure, 22)).toBe(22 + 63)
  })

  it('rounds up and skips the empty labels of unlabelled ticks', () => {
    expect(axisWidth(['', null, '5'], (t) => t.length * 6.4, 10)).toBe(17)
    expect(axisWidth(null, measure, 22)).toBe(22)
  })
})

describe('widestLabel', () => {
  it('is the label that measures widest, not the longest string', () => {
    // A proportional font: `1` is narrow, `8` wide.
    const measure = (text: string) => [...text].reduce((w, c) => w + (c === '1' ? 3 : c === ',' ? 2 : 7), 0)
    expect(widestLabel(['111,111', '88,888'], measure)).toBe('88,888')
    expect(widestLabel([null, ''], measure)).toBe('')
  })
})

describe('labelsLogTick', () => {
  it('labels 1, 2 and 5 times a power of ten', () => {
    expect([1, 2, 5, 10, 20, 50, 100, 200_000, 500_000, 1_000_000].every(labelsLogTick)).toBe(true)
  })

  it('leaves the other ticks of a decade, zero and negatives unlabelled', () => {
    expect([3, 4, 6, 7, 8, 9, 30, 300_000, 0, -10].some(labelsLogTick)).toBe(false)
  })
})

describe('logRange', () => {
  it('starts at the power of ten at or below the smallest positive value and ends at the top', () => {
    expect(logRange([[340, 2_500], [null, 120]], 210_000)).toEqual([100, 210_000])
    expect(logRange([[1_000]], 5_000)).toEqual([1_000, 10_000])
  })

  it('starts at 1 when nothing is positive', () => {
    expect(logRange([[0], [null]], 50)).toEqual([1, 50])
  })
})

describe('the usage timeline on the turn axis', () => {
  it('a turn end is its turn; a request between two ends reads the turn it was sent in', () => {
    expect(turnAt(3, 6)).toBe(3)
    expect(turnAt(2.4, 6)).toBe(3)
    expect(turnAt(0.5, 6)).toBe(1)
    expect(turnAt(9, 6)).toBe(6)
  })
  it('merges turns and request positions, and finds the nearest', () => {
    const { xs, at } = mergedXs(3, [0.5, 1, 2.25])
    expect(xs).toEqual([0.5, 1, 2, 2.25, 3])
    expect(at.get(2.25)).toBe(3)
    expect(nearestIndex(xs, 2.2)).toBe(3)
    expect(nearestIndex(xs, 0)).toBe(0)
    expect(nearestIndex([], 1)).toBe(-1)
  })
  it('stacks the fixed parts, the largest tools each, the rest as other tools', () => {
    const groups = stackGroups(['overhead', 'user', 'tool:Read', 'tool:Bash', 'tool:Grep'], 2)
    expect(groups.map((g) => g.key)).toEqual(['overhead', 'user', 'tool:Read', 'tool:Bash', 'other-tools'])
    expect(groups[2]?.label).toBe('Read results')
    expect(groupTokens({ overhead: 10, 'tool:Grep': 4 }, groups)).toEqual([10, 0, 0, 0, 4])
  })
})
