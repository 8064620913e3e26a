import { describe, expect, it } from 'vitest'
import { MAX_TURNS_WITH_MARKERS, showTurnMarkers } from './chart-options'

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
