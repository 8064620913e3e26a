import { useSyncExternalStore } from 'react'
import { flushSync } from 'react-dom'

let printing = false
const listeners = new Set<() => void>()

/** Sets the flag and re-renders every reader synchronously, so the browser's print sees the result. */
function setPrinting(next: boolean): void {
  if (printing === next) return
  printing = next
  flushSync(() => {
    for (const listener of listeners) listener()
  })
}
const onBeforePrint = () => setPrinting(true)
const onAfterPrint = () => setPrinting(false)

function subscribe(listener: () => void): () => void {
  if (listeners.size === 0) {
    window.addEventListener('beforeprint', onBeforePrint)
    window.addEventListener('afterprint', onAfterPrint)
  }
  listeners.add(listener)
  return () => {
    listeners.delete(listener)
    if (listeners.size > 0) return
    window.removeEventListener('beforeprint', onBeforePrint)
    window.removeEventListener('afterprint', onAfterPrint)
  }
}

/**
 * True between the window's `beforeprint` and `afterprint` (Ctrl+P, the Export menu's Print,
 * `window.print()`): a virtualised list renders every row while it is true. The change is
 * rendered inside `beforeprint` (flushSync), before the browser lays out the printed pages.
 */
export function usePrinting(): boolean {
  return useSyncExternalStore(subscribe, () => printing, () => false)
}
