import { describe, expect, it } from 'vitest'
import { SizeLayout } from './size-layout'

/** The same answers worked out the plain way, from a list of sizes. */
function naive(sizes: number[]) {
  const startOf = (i: number) => sizes.slice(0, Math.max(0, i)).reduce((a, b) => a + b, 0)
  const indexAt = (offset: number) => {
    if (sizes.length === 0) return -1
    let last = 0
    for (let i = 0; i < sizes.length; i++) if (startOf(i) <= offset) last = i
    return last
  }
  return { startOf, indexAt, total: startOf(sizes.length) }
}

describe('SizeLayout', () => {
  it('lays out estimated sizes: starts, total, and the item at an offset', () => {
    const layout = new SizeLayout(Float64Array.from([64, 64, 34, 64, 64]))
    expect([0, 1, 2, 3, 4, 5].map((i) => layout.startOf(i))).toEqual([0, 64, 128, 162, 226, 290])
    expect(layout.total).toBe(290)
    expect(layout.indexAt(0)).toBe(0)
    expect(layout.indexAt(63.5)).toBe(0)
    expect(layout.indexAt(64)).toBe(1)
    expect(layout.indexAt(161)).toBe(2)
    expect(layout.indexAt(-10)).toBe(0)
    expect(layout.indexAt(10_000)).toBe(4)
  })

  it('moves every later item by a measured size’s change, and reports the change', () => {
    const layout = new SizeLayout(new Float64Array(4).fill(10))
    expect(layout.setSize(1, 25)).toBe(15)
    expect(layout.setSize(1, 25)).toBe(0)
    expect(layout.setSize(9, 25)).toBe(0)
    expect([0, 1, 2, 3, 4].map((i) => layout.startOf(i))).toEqual([0, 10, 35, 45, 55])
    expect(layout.sizeOf(1)).toBe(25)
    expect(layout.total).toBe(55)
    expect(layout.indexAt(34)).toBe(1)
    expect(layout.indexAt(35)).toBe(2)
    expect([...layout.measured]).toEqual([[1, 25]])
  })

  it('agrees with the plain sums for any sizes and measurements', () => {
    let seed = 7
    const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31
    for (const n of [0, 1, 2, 3, 7, 8, 9, 100]) {
      const sizes = Array.from({ length: n }, () => Math.floor(random() * 100))
      const layout = new SizeLayout(Float64Array.from(sizes))
      for (let k = 0; k < n; k++) {
        const i = Math.floor(random() * n)
        sizes[i] = Math.floor(random() * 200)
        layout.setSize(i, sizes[i])
      }
      const plain = naive(sizes)
      expect(layout.total).toBe(plain.total)
      for (let i = 0; i <= n; i++) expect(layout.startOf(i)).toBe(plain.startOf(i))
      for (let offset = -5; offset < plain.total + 5; offset += 7) expect(layout.indexAt(offset)).toBe(plain.indexAt(offset))
    }
  })
})
