import { describe, expect, it } from 'vitest'
import { LatestCall } from './latest-call'

/** A call whose work resolves with `answer` once `release` is called, recording its signal. */
function held<T>(answer: T) {
  let release!: () => void
  const gate = new Promise<void>((resolve) => (release = resolve))
  const seen: { signal?: AbortSignal } = {}
  const work = async (signal: AbortSignal) => {
    seen.signal = signal
    await gate
    return answer
  }
  return { work, release, seen }
}

const stale = () => 'stale'

describe('LatestCall: the newest call wins', () => {
  it('a newer call aborts the older, whose answer is never delivered', async () => {
    const calls = new LatestCall()
    const first = held('first')
    const second = held('second')
    const a = calls.run(first.work, stale)
    const b = calls.run(second.work, stale)
    expect(first.seen.signal?.aborted).toBe(true)
    expect(second.seen.signal?.aborted).toBe(false)
    // The older finishes last: still stale.
    second.release()
    first.release()
    expect(await b).toBe('second')
    expect(await a).toBe('stale')
    // Nothing is in flight once the newest ended.
    expect(calls.cancel()).toBe(false)
  })

  it('a cancel stops the call in flight: stale when aborted calls are, its own answer when only replaced ones are', async () => {
    for (const [when, expected] of [
      ['aborted', 'stale'],
      ['superseded', 'partial'],
    ] as const) {
      const calls = new LatestCall()
      const call = held('partial')
      const out = calls.run(call.work, stale, when)
      expect(calls.cancel()).toBe(true)
      expect(call.seen.signal?.aborted).toBe(true)
      call.release()
      expect(await out).toBe(expected)
    }
  })

  it('a replaced call is stale in either mode, and an error of a stale call is not thrown', async () => {
    const calls = new LatestCall()
    const old = calls.run(async (signal) => {
      await new Promise((resolve) => setTimeout(resolve, 0))
      if (signal.aborted) throw new Error('aborted mid-way')
      return 'old'
    }, stale, 'superseded')
    const fresh = calls.run(async () => 'fresh', stale, 'superseded')
    expect(await fresh).toBe('fresh')
    expect(await old).toBe('stale')
  })

  it('an error of the newest call is rethrown', async () => {
    const calls = new LatestCall()
    await expect(calls.run(async () => Promise.reject(new Error('boom')), stale)).rejects.toThrow('boom')
  })

  it('dispose aborts the call in flight and makes it stale for good', async () => {
    for (const when of ['aborted', 'superseded'] as const) {
      const calls = new LatestCall()
      const call = held('late')
      const out = calls.run(call.work, stale, when)
      calls.dispose()
      expect(call.seen.signal?.aborted).toBe(true)
      expect(calls.cancel()).toBe(false)
      call.release()
      expect(await out).toBe('stale')
    }
  })

  it('start, isLatest and end track the newest signal by hand', () => {
    const calls = new LatestCall()
    const a = calls.start()
    expect(calls.isLatest(a)).toBe(true)
    const b = calls.start()
    expect(a.aborted).toBe(true)
    expect(calls.isLatest(a)).toBe(false)
    calls.end(a) // not the newest: nothing changes
    expect(calls.isLatest(b)).toBe(true)
    calls.end(b)
    expect(calls.isLatest(b)).toBe(false)
  })
})
