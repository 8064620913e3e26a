import { elementScroll, useVirtualizer, type Virtualizer } from '@tanstack/react-virtual'
import { useCallback, useEffect, useImperativeHandle, useRef, useState, type ReactNode, type Ref } from 'react'
import { formatCountOf } from '../../components/format'
import type { FactHighlight } from '../facts/FactFinderText'
import type { Side } from '../../worker/protocol'
import { usePrinting } from '../export/print'
import type { ColumnItem, ColumnItems } from './column-items'
import { MessageRow } from './MessageRow'
import { printedItems } from './print-items'

/** What the compare view can ask of a column. */
export interface ColumnHandle {
  /** Scrolls so the row with this id is in view. */
  scrollToId: (id: string, align: 'start' | 'center') => void
  /** Scrolls so the item at this position of the column's items (a row or a boundary) is in view. */
  scrollToIndex: (index: number, align: 'start' | 'center') => void
  /** Expands the row with this id, or collapses it when expanded. */
  toggleExpand: (id: string) => void
  /**
   * Moves keyboard focus to the row with this id once it is rendered (a virtualized row may be a
   * few frames away after a scroll); the column does not scroll on focus and does not treat it as
   * the reader driving its scroll.
   */
  focusId: (id: string) => void
}

/** Rows rendered past the visible ones, above and below, once the column has been laid out. */
const OVERSCAN = 8
/** The same on a column's first frame: a margin for rows shorter than the size estimated. */
const FIRST_OVERSCAN = 1

/** Frames `focusId` waits for a scrolled-to row to be rendered before it gives up. */
const FOCUS_FRAMES = 30

type ColumnVirtualizer = Virtualizer<HTMLDivElement, Element>

/**
 * A row's height (px) without forcing a layout: the ResizeObserver's border box when it reports
 * one (after the browser's own layout), else the height measured before or the estimate. The
 * default reads `offsetHeight` when a row mounts, which lays the page out inside React's commit.
 */
function measureRow(element: Element, entry: ResizeObserverEntry | undefined, instance: ColumnVirtualizer): number {
  const box = entry?.borderBoxSize?.[0]
  if (box) return Math.round(box.blockSize)
  if (entry) return Math.round(entry.contentRect.height)
  const index = instance.indexFromElement(element)
  return instance.itemSizeCache.get(instance.options.getItemKey(index)) ?? instance.options.estimateSize(index)
}

/** Scroll boxes the virtualizer has scrolled at least once. */
const scrolledOnce = new WeakSet<Element>()

/**
 * The virtualizer's scroll, minus its first write of offset 0 to a column just mounted (where the
 * box already is): that write lays the page out inside React's commit.
 */
const scrollColumn: typeof elementScroll<HTMLDivElement> = (offset, options, instance) => {
  const element = instance.scrollElement
  if (element && !scrolledOnce.has(element)) {
    scrolledOnce.add(element)
    if (offset === 0 && !options.adjustments) return
  }
  elementScroll(offset, options, instance)
}

/** The last size a column's scroll box had (px): a newly mounted column starts from it. */
let lastRect = { width: 0, height: typeof window === 'undefined' ? 0 : window.innerHeight }

/**
 * The scroll box's size as a ResizeObserver reports it (read in its callback, where layout is
 * done), starting from `lastRect`; without ResizeObserver, read once. The default reads the box
 * when the column mounts, forcing the layout inside React's commit.
 */
function observeScrollRect(instance: ColumnVirtualizer, cb: (rect: { width: number; height: number }) => void) {
  const element = instance.scrollElement
  if (!element) return
  const read = () => {
    lastRect = { width: element.clientWidth, height: element.clientHeight }
    cb(lastRect)
  }
  if (typeof ResizeObserver === 'undefined') {
    read()
    return
  }
  cb(lastRect)
  const observer = new ResizeObserver(read)
  observer.observe(element)
  return () => observer.disconnect()
}

interface MessageColumnProps {
  side: Side
  title: string
  subtitle: string
  items: ColumnItems
  selectedId: string | null
  highlighted: ReadonlySet<string>
  /** Rows holding the fact finder's query, with their occurrence counts. */
  matches?: ReadonlyMap<string, number>
  /** The finder's query, marked in the matching rows' text. */
  factHighlight?: FactHighlight | null
  /** The row of the finder's current match in this column: opened to its full text, scrolled to the mark. */
  currentMatchId?: string | null
  onSelect: (side: Side, id: string) => void
  /** Called when the user scrolls this column, with the id of the topmost visible row. */
  onUserScroll?: (side: Side, topRowId: string) => void
  handleRef?: Ref<ColumnHandle>
}

/**
 * A virtualized column of messages: only the visible rows (plus overscan) are in the DOM; while
 * the page prints, every row (up to `PRINT_ITEM_CAP` items, then a line counting the rest) in flow.
 */
export function MessageColumn(props: MessageColumnProps) {
  const { side, title, subtitle, items, selectedId, highlighted, onSelect, onUserScroll, handleRef } = props
  const { matches, factHighlight = null, currentMatchId = null } = props
  const scrollRef = useRef<HTMLDivElement>(null)
  const [expanded, setExpanded] = useState<ReadonlySet<string>>(() => new Set())
  // The user is driving this column (pointer over it); programmatic scrolls do not echo back.
  const driving = useRef(false)
  // Focus moved by `focusId` (a shortcut), not by the reader tabbing or clicking into the column.
  const quietFocus = useRef(false)
  const printing = usePrinting()
  // A column just mounted renders little more than the rows in view, and the rows past them one
  // frame later: the frame that first lays the column out (a large file's head, its first run)
  // holds the rows a person sees, not twice as many.
  const [overscan, setOverscan] = useState(FIRST_OVERSCAN)
  useEffect(() => {
    const frame = requestAnimationFrame(() => setOverscan(OVERSCAN))
    return () => cancelAnimationFrame(frame)
  }, [])

  // Stable per items: the virtualizer lays out every item again whenever either function changes.
  const estimateSize = useCallback((i: number) => (items.isBoundary(i) ? 34 : 64), [items])
  const getItemKey = useCallback((i: number) => items.sizeKeyAt(i), [items])
  const virtualizer = useVirtualizer({
    count: items.length,
    getScrollElement: () => scrollRef.current,
    estimateSize,
    getItemKey,
    overscan,
    measureElement: measureRow,
    observeElementRect: observeScrollRect,
    scrollToFn: scrollColumn,
  })

  const toggleExpand = useCallback((id: string) => {
    if (opened.current === id) opened.current = null
    setExpanded((prev) => {
      const next = new Set(prev)
      if (next.has(id)) next.delete(id)
      else next.add(id)
      return next
    })
  }, [])

  useImperativeHandle(
    handleRef,
    () => ({
      scrollToId: (id, align) => {
        const index = items.indexOfRow(id)
        if (index < 0) return
        driving.current = false
        virtualizer.scrollToIndex(index, { align })
      },
      scrollToIndex: (index, align) => {
        if (index < 0 || index >= items.length) return
        driving.current = false
        virtualizer.scrollToIndex(index, { align })
      },
      toggleExpand,
      focusId: (id) => {
        let frames = 0
        const attempt = () => {
          const el = scrollRef.current?.querySelector<HTMLElement>(`[role="row"][data-id="${CSS.escape(id)}"]`)
          if (el) {
            quietFocus.current = true
            el.focus({ preventScroll: true })
            quietFocus.current = false
          } else if (++frames < FOCUS_FRAMES) requestAnimationFrame(attempt)
        }
        attempt()
      },
    }),
    [items, virtualizer, toggleExpand],
  )

  const select = useCallback((id: string) => onSelect(side, id), [onSelect, side])

  // The finder's current match opens its row (a collapsed row shows only a preview, which may
  // not reach the match); the row the finder opened closes when the match moves on, unless the
  // person toggled it meanwhile.
  const opened = useRef<string | null>(null)
  useEffect(() => {
    const previous = opened.current
    opened.current = null
    setExpanded((prev) => {
      const close = previous !== null && previous !== currentMatchId && prev.has(previous)
      const open = currentMatchId !== null && !prev.has(currentMatchId)
      if (open) opened.current = currentMatchId
      if (!close && !open) return prev
      const next = new Set(prev)
      if (close) next.delete(previous)
      if (open) next.add(currentMatchId)
      return next
    })
  }, [currentMatchId])

  useEffect(() => {
    const el = scrollRef.current
    if (!el || !onUserScroll) return
    const onScroll = () => {
      if (!driving.current) return
      const top = virtualizer.getVirtualItems().find((v) => v.end > el.scrollTop)
      if (!top) return
      for (let i = top.index; i < items.length; i++) {
        const row = items.rowAt(i)
        if (row) {
          onUserScroll(side, row.id)
          return
        }
      }
    }
    el.addEventListener('scroll', onScroll, { passive: true })
    return () => el.removeEventListener('scroll', onScroll)
  }, [items, onUserScroll, side, virtualizer])

  // One item's markup, the same in the virtualised list and the printed one.
  const renderItem = (item: ColumnItem) =>
    item.type === 'boundary' ? (
      // A table holds only rows: the separator sits in a row of one cell.
      <div role="row">
        <div role="cell">
          <div className={`boundary boundary--${item.kind}`} role="separator" aria-label={item.label}>
            <span className="boundary__label">
              <span aria-hidden="true">{item.kind === 'summary' ? 'Σ ' : '⎇ '}</span>
              {item.label}
            </span>
          </div>
        </div>
      </div>
    ) : (
      <MessageRow
        side={side}
        row={item.row}
        selected={selectedId === item.row.id}
        highlighted={highlighted.has(item.row.id)}
        matchCount={matches?.get(item.row.id) ?? 0}
        factHighlight={matches?.has(item.row.id) ? factHighlight : null}
        expanded={expanded.has(item.row.id)}
        currentMatch={currentMatchId === item.row.id}
        onSelect={select}
        onToggleExpand={toggleExpand}
      />
    )

  return (
    <section className="column" aria-label={title}>
      <header className="column__head">
        <h2>{title}</h2>
        <span className="muted">{subtitle}</span>
      </header>
      <div
        ref={scrollRef}
        className="column__scroll"
        data-testid={`${side}-column`}
        role="table"
        aria-label={`${title} messages`}
        aria-rowcount={items.length}
        onPointerEnter={() => (driving.current = true)}
        onPointerLeave={() => (driving.current = false)}
        onFocus={() => {
          if (!quietFocus.current) driving.current = true
        }}
        onBlur={() => (driving.current = false)}
      >
        {printing ? (
          <PrintedItems items={items} render={renderItem} />
        ) : (
          <div style={{ height: virtualizer.getTotalSize(), position: 'relative', width: '100%' }}>
            {virtualizer.getVirtualItems().map((v) => {
              const item = items.at(v.index)
              if (!item) return null
              return (
                <div
                  key={item.key}
                  data-index={v.index}
                  ref={virtualizer.measureElement}
                  className="column__item"
                  style={{ transform: `translateY(${v.start}px)` }}
                >
                  {renderItem(item)}
                </div>
              )
            })}
          </div>
        )}
      </div>
    </section>
  )
}

/**
 * Every item of a column in flow (no virtualiser), for the printed page: the first
 * `PRINT_ITEM_CAP`, then a line counting the messages left out.
 */
function PrintedItems({ items, render }: { items: ColumnItems; render: (item: ColumnItem) => ReactNode }) {
  const { shown, moreMessages } = printedItems(items)
  return (
    <div className="column__printed">
      {shown.map((item, i) => (
        <div key={item.key ?? i} data-index={i} className="column__item column__item--printed">
          {render(item)}
        </div>
      ))}
      {moreMessages > 0 && (
        <p className="column__more" data-testid="print-more">
          … {formatCountOf(moreMessages, 'more message')}: save the HTML report for all of them
        </p>
      )}
    </div>
  )
}

