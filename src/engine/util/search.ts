/**
 * The first index in `[lo, hi)` at which `isAtOrPast(i)` holds, or `hi` when none does; the
 * predicate must be false then true along the range (a sorted list's lower bound). O(log n).
 */
export function partitionPoint(lo: number, hi: number, isAtOrPast: (i: number) => boolean): number {
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if (isAtOrPast(mid)) hi = mid
    else lo = mid + 1
  }
  return lo
}
