/** The CLI's heap sizing: when a large input makes it start again with a limit sized to the machine. */
import { describe, expect, it } from 'vitest'
import { HEAP_SHARE_OF_MEMORY, heapLimitFor, LARGE_INPUT_BYTES } from './heap'

const GB = 1024 * 1024 * 1024

describe('heapLimitFor', () => {
  it('a large input on a machine with memory to spare: three quarters of the memory, in MB', () => {
    // 24 GB machine, the 4 GB default: 18 GB = 18,432 MB.
    expect(heapLimitFor(60 * 1024 * 1024, [], 4 * GB, 24 * GB)).toBe(24 * 1024 * HEAP_SHARE_OF_MEMORY)
    expect(heapLimitFor(LARGE_INPUT_BYTES, [], 4 * GB, 24 * GB)).toBe(18_432)
  })

  it('runs as is: a small input, a limit the person set, or a machine whose share is not above the limit', () => {
    expect(heapLimitFor(LARGE_INPUT_BYTES - 1, [], 4 * GB, 24 * GB)).toBeNull()
    expect(heapLimitFor(60 * 1024 * 1024, ['--max-old-space-size=2048'], 2 * GB, 24 * GB)).toBeNull()
    expect(heapLimitFor(60 * 1024 * 1024, ['--import', 'tsx', '--max-old-space-size', '2048'], 2 * GB, 24 * GB)).toBeNull()
    // 4 GB machine: 3 GB is below the 4 GB limit V8 chose.
    expect(heapLimitFor(60 * 1024 * 1024, [], 4 * GB, 4 * GB)).toBeNull()
  })
})
