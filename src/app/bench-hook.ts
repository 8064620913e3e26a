/**
 * `window.__bench`, installed only when the URL has `?bench` (main.tsx loads this chunk lazily):
 * the store and the engine for `npm run bench` (BENCH.md), and the main thread's Long Tasks
 * (PerformanceObserver 'longtask', B5). Nothing here runs in normal use.
 */
import { useStore } from '../state/store'
import { getEngine } from './engine-client'

/** A main-thread task over 50 ms as the Long Tasks API reports it (ms, page clock). */
interface LongTask {
  start: number
  duration: number
}

/** Installs `window.__bench`. */
export function installBenchHook(): void {
  const longTasks: LongTask[] = []
  try {
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) longTasks.push({ start: e.startTime, duration: e.duration })
    }).observe({ type: 'longtask', buffered: true })
  } catch {
    // No Long Tasks API (not Chromium): the bench reports B5 as unmeasured.
  }
  Object.assign(window, { __bench: { store: useStore, engine: getEngine, longTasks } })
}
