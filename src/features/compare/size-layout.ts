/**
 * Where each item of a virtualized column sits (px): a size per item in a Fenwick tree of
 * prefix sums over one typed array, so a column of 200,000 items is laid out in about a
 * millisecond, and one measured size, the start of an item, or the item at an offset each cost
 * O(log n), never a pass over every item (a list virtualizer that keeps an offset per item
 * re-lays out all items after the first one measured). Pure; sizes are non-negative.
 */
export class SizeLayout {
  /** Items laid out. */
  readonly count: number
  readonly #sizes: Float64Array
  /** 1-based Fenwick tree: `#tree[i]` sums the sizes of items `i − (i & −i)`..`i − 1`. */
  readonly #tree: Float64Array
  /** Item positions whose size was set (`setSize`), with the size: a later layout may take them over. */
  readonly measured = new Map<number, number>()
  #total = 0

  /** Item `i` of size `sizes[i]` until `setSize` says otherwise; takes `sizes` over (it is changed in place). */
  constructor(sizes: Float64Array) {
    const count = sizes.length
    this.count = count
    const tree = new Float64Array(count + 1)
    tree.set(sizes, 1)
    let total = 0
    for (let i = 0; i < count; i++) total += sizes[i] as number
    // Each node adds itself to its parent once: O(n).
    for (let i = 1; i <= count; i++) {
      const parent = i + (i & -i)
      if (parent <= count) tree[parent] = (tree[parent] as number) + (tree[i] as number)
    }
    this.#sizes = sizes
    this.#tree = tree
    this.#total = total
  }

  /** Sum of every item's size (px). */
  get total(): number {
    return this.#total
  }

  /** Size of item `index` (px); 0 outside the items. */
  sizeOf(index: number): number {
    return this.#sizes[index] ?? 0
  }

  /** Sets item `index`'s size (px) and returns how much it changed (new − old); 0 outside the items. */
  setSize(index: number, size: number): number {
    if (index < 0 || index >= this.count) return 0
    this.measured.set(index, size)
    const delta = size - (this.#sizes[index] as number)
    if (delta === 0) return 0
    this.#sizes[index] = size
    this.#total += delta
    for (let i = index + 1; i <= this.count; i += i & -i) this.#tree[i] = (this.#tree[i] as number) + delta
    return delta
  }

  /** Offset of item `index`'s top (px): the sizes of the items before it (`total` for `count`). */
  startOf(index: number): number {
    let sum = 0
    for (let i = Math.min(Math.max(index, 0), this.count); i > 0; i -= i & -i) sum += this.#tree[i] as number
    return sum
  }

  /**
   * The item at `offset` (px): the last one whose start is at or before it, clamped to
   * 0..count − 1 (−1 when there are no items).
   */
  indexAt(offset: number): number {
    if (this.count === 0) return -1
    let at = 0
    let left = offset
    for (let step = 2 ** Math.floor(Math.log2(this.count)); step > 0; step >>= 1) {
      const next = at + step
      if (next <= this.count && (this.#tree[next] as number) <= left) {
        at = next
        left -= this.#tree[next] as number
      }
    }
    return Math.min(at, this.count - 1)
  }
}
