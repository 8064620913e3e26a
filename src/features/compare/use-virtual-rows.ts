import { useCallback, useEffect, useLayoutEffect, useState, type RefObject } from 'react'
import { SizeLayout } from './size-layout'

/**
 * The list a virtualized column shows, as `useVirtualRows` reads it: how many items, and the key
 * each one's measured size is kept under (the same item in the next list has the same key).
 * `ColumnItems` is one.
 */
export interface VirtualList {
  readonly length: number
  sizeKeyAt(index: number): string | number
}

/** How long (ms) a scroll to an item keeps it in place while the items around it are measured. */
const SETTLE_MS = 1000

/** The height a column's scroll box last had (px): a newly mounted column starts from it. */
let lastHeight = typeof window === 'undefined' ? 0 : window.innerHeight

/** One item to render: its position in the column's items and its top (px). */
interface VirtualRow {
  index: number
  start: number
}

/** What a column renders and asks of its virtual rows (`useVirtualRows`). */
export interface VirtualRows {
  /** The items in view plus `overscan` either side, in order. */
  rows: VirtualRow[]
  /** Height of all items (px): the scroll box's content. */
  total: number
  /** The item at the scroll box's top edge (−1 for none). */
  topIndex: () => number
  /** Ref of each rendered item's element (with `data-index`): its measured height replaces the estimate. */
  measureRef: (node: HTMLElement | null) => (() => void) | undefined
  /** Scrolls so item `index` is at the top (`start`) or in the middle (`center`). */
  scrollToIndex: (index: number, align: 'start' | 'center') => void
}

/**
 * The imperative side of one column's virtual rows, held for the column's life: the layout of the
 * items rendered last, the one committed (which the measured elements' `data-index` refer to), the
 * observer of the rendered items, and the scroll box.
 */
class ColumnMeasure<L extends VirtualList> {
  readonly #estimate: (items: L) => Float64Array
  #items: L | null = null
  #layout = new SizeLayout(new Float64Array(0))
  #committed = this.#layout
  #observer: ResizeObserver | null = null
  /** The rendered items' elements being observed. */
  readonly #observed = new Set<HTMLElement>()
  #scroller: HTMLElement | null = null
  #onChange: () => void = () => {}
  #height = lastHeight
  /** The item the last `scrollToIndex` went to, held there while its neighbours are measured, until `#settleBy` (ms). */
  #target: { index: number; align: 'start' | 'center' } | null = null
  #settleBy = 0

  constructor(estimate: (items: L) => Float64Array) {
    this.#estimate = estimate
  }

  /** The layout of `items`: made once per items, with the sizes measured for the same item at the same position. */
  layoutOf(items: L): SizeLayout {
    if (items === this.#items) return this.#layout
    const next = new SizeLayout(this.#estimate(items))
    const prev = this.#items
    if (prev) for (const [i, size] of this.#layout.measured) if (prev.sizeKeyAt(i) === items.sizeKeyAt(i)) next.setSize(i, size)
    this.#items = items
    this.#layout = next
    return next
  }

  /**
   * The layout rendered is on screen, in `scroller`; `onChange` re-renders the column after a
   * measurement. Called in the commit, before the browser lays out and reports sizes. A new layout
   * has every rendered element measured again: an element kept from the list before (same key)
   * may stand at another position now, and an observer reports a size only when it changes.
   */
  commit(layout: SizeLayout, scroller: HTMLElement | null, onChange: () => void): void {
    if (layout !== this.#committed && this.#observer) {
      for (const node of this.#observed) {
        this.#observer.unobserve(node)
        this.#observer.observe(node)
      }
    }
    this.#committed = layout
    this.#scroller = scroller
    this.#onChange = onChange
  }

  /** The scroll box's height (px), as its ResizeObserver last read it. */
  setHeight(height: number): void {
    this.#height = height
    lastHeight = height
  }

  /** Observes a rendered item's size until the returned function is called. */
  observe(node: HTMLElement): () => void {
    if (typeof ResizeObserver === 'undefined') return () => {}
    this.#observer ??= new ResizeObserver((entries) => this.#measured(entries))
    const observer = this.#observer
    observer.observe(node)
    this.#observed.add(node)
    return () => {
      observer.unobserve(node)
      this.#observed.delete(node)
    }
  }

  /** Stops observing (the column unmounted). */
  disconnect(): void {
    this.#observer?.disconnect()
    this.#observer = null
    this.#observed.clear()
  }

  #measured(entries: ResizeObserverEntry[]): void {
    const sizes = this.#committed
    const el = this.#scroller
    let changed = false
    let shift = 0
    for (const entry of entries) {
      const target = entry.target as HTMLElement
      if (!target.isConnected) continue
      const index = Number(target.dataset.index)
      const box = entry.borderBoxSize?.[0]
      const size = Math.round(box ? box.blockSize : entry.contentRect.height)
      const startBefore = sizes.startOf(index)
      const delta = sizes.setSize(index, size)
      if (delta === 0) continue
      changed = true
      if (el && startBefore < el.scrollTop) shift += delta
    }
    if (!changed) return
    // A scroll to an item measured around it keeps that item where it went; otherwise what is in
    // view stays put as the items above it change size.
    if (this.#target && performance.now() < this.#settleBy) this.#scrollTo(this.#target.index, this.#target.align)
    else if (el && shift !== 0) el.scrollTop += shift
    this.#onChange()
  }

  /** The item at the scroll box's top edge, −1 for none. */
  topIndex(): number {
    return this.#scroller ? this.#committed.indexAt(this.#scroller.scrollTop) : -1
  }

  /** Scrolls so item `index` is at the top (`start`) or in the middle (`center`) of the scroll box. */
  scrollToIndex(index: number, align: 'start' | 'center'): void {
    this.#target = { index, align }
    this.#settleBy = performance.now() + SETTLE_MS
    this.#scrollTo(index, align)
  }

  /** The reader scrolled (wheel, touch, pointer, keys): a scroll to an item no longer holds. */
  release(): void {
    this.#target = null
  }

  #scrollTo(index: number, align: 'start' | 'center'): void {
    const el = this.#scroller
    const sizes = this.#committed
    if (!el || index < 0 || index >= sizes.count) return
    const start = sizes.startOf(index)
    const top = align === 'start' ? start : start - (this.#height - sizes.sizeOf(index)) / 2
    el.scrollTop = Math.max(0, top)
  }
}

/**
 * A virtualized column of `items` in the scroll box `scrollRef`: item heights estimated
 * (`estimate(items)`: one size per item, px; read once per items, from the first render's function), then
 * measured by a ResizeObserver (read after the browser's own layout, never forcing one), kept in a
 * `SizeLayout`, so mounting a column, measuring a row, or scrolling costs O(rows in view · log n),
 * never a pass over every item. A measured item above the top edge moves the scroll position by
 * its change, so what is in view stays put. A new `items` keeps the sizes measured for the items
 * at the same positions with the same keys (a re-run of the same rows).
 */
export function useVirtualRows<L extends VirtualList>(
  scrollRef: RefObject<HTMLDivElement | null>,
  items: L,
  estimate: (items: L) => Float64Array,
  overscan: number,
): VirtualRows {
  const [keeper] = useState(() => new ColumnMeasure(estimate))
  const layout = keeper.layoutOf(items)
  const [view, setView] = useState(() => ({ top: 0, height: lastHeight }))
  const [, setMeasured] = useState(0)

  // In the commit: the sizes the observer reports after this frame's layout are of this layout's items.
  useLayoutEffect(() => {
    keeper.commit(layout, scrollRef.current, () => setMeasured((n) => n + 1))
  }, [keeper, layout, scrollRef])
  useEffect(() => () => keeper.disconnect(), [keeper])

  useEffect(() => {
    const el = scrollRef.current
    if (!el) return
    const onScroll = () => setView((v) => (v.top === el.scrollTop ? v : { top: el.scrollTop, height: v.height }))
    el.addEventListener('scroll', onScroll, { passive: true })
    const release = () => keeper.release()
    const reader = ['wheel', 'touchstart', 'pointerdown', 'keydown'] as const
    for (const type of reader) el.addEventListener(type, release, { passive: true })
    const observer =
      typeof ResizeObserver === 'undefined'
        ? null
        : new ResizeObserver(() => {
            keeper.setHeight(el.clientHeight)
            setView({ top: el.scrollTop, height: el.clientHeight })
          })
    observer?.observe(el)
    return () => {
      el.removeEventListener('scroll', onScroll)
      for (const type of reader) el.removeEventListener(type, release)
      observer?.disconnect()
    }
  }, [keeper, scrollRef])

  const measureRef = useCallback((node: HTMLElement | null) => (node ? keeper.observe(node) : undefined), [keeper])
  const topIndex = useCallback(() => keeper.topIndex(), [keeper])
  const scrollToIndex = useCallback((index: number, align: 'start' | 'center') => keeper.scrollToIndex(index, align), [keeper])

  const rows: VirtualRow[] = []
  if (items.length > 0) {
    const first = Math.max(0, layout.indexAt(view.top) - overscan)
    const last = Math.min(items.length - 1, layout.indexAt(view.top + view.height) + overscan)
    for (let i = first; i <= last; i++) rows.push({ index: i, start: layout.startOf(i) })
  }
  return { rows, total: layout.total, topIndex, measureRef, scrollToIndex }
}
