import type { ColumnItem, ColumnItems } from './column-items'

/** At most this many items (rows and boundaries) of a column are printed; the rest are counted. */
const PRINT_ITEM_CAP = 2000

/**
 * The items a printed column renders: the first `cap` of `items` in their order, and how many
 * messages (row items, not boundaries) are left out after them, for the printed line that says so.
 */
export function printedItems(
  items: ColumnItems,
  cap: number = PRINT_ITEM_CAP,
): { shown: readonly ColumnItem[]; moreMessages: number } {
  if (items.length <= cap) return { shown: items.slice(), moreMessages: 0 }
  const boundariesLeft = items.boundaryPositions.filter((i) => i >= cap).length
  return { shown: items.slice(0, cap), moreMessages: items.length - cap - boundariesLeft }
}
