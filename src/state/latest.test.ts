import { describe, expect, it } from 'vitest'
import { latestRequest } from './latest'

describe('latestRequest', () => {
  it('numbers requests from 1 and keeps only the newest one current', () => {
    const requests = latestRequest()
    const first = requests.next()
    expect(first.id).toBe(1)
    expect(first.isLatest()).toBe(true)
    const second = requests.next()
    expect(second.id).toBe(2)
    expect(first.isLatest()).toBe(false)
    expect(second.isLatest()).toBe(true)
  })

  it('drop makes every request so far stale, and the next one is current again', () => {
    const requests = latestRequest()
    const asked = requests.next()
    requests.drop()
    expect(asked.isLatest()).toBe(false)
    const after = requests.next()
    expect(after.isLatest()).toBe(true)
    expect(after.id).toBeGreaterThan(asked.id)
  })

  it('two sequences are independent', () => {
    const turns = latestRequest()
    const timeline = latestRequest()
    const turn = turns.next()
    timeline.next()
    expect(turn.isLatest()).toBe(true)
  })
})
