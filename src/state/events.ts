import type { TranscriptInfo } from '../worker/protocol'

/** What every slice hears when another transcript (or another conversation of it) opens. */
interface TranscriptChange {
  /** The `info` of the import now open (a new object for every import, compared by identity). */
  info: TranscriptInfo
  /**
   * The transcript open before came back into a fresh worker after a hard cancel: the same text,
   * already shown in any send step, and no run is started for it.
   */
  reimport: boolean
}

/** The events of the store and what each carries. */
interface StoreEventMap {
  /** Another transcript opened (the load slice, right after it set `info`). */
  transcriptChanged: TranscriptChange
  /** A load (file, sample, paste, conversation) starts, whether or not it will succeed. */
  loadStarted: { fileName: string }
}

/**
 * The store's events: one place where a change that concerns several slices is announced, so
 * each slice answers it with its own reset instead of one slice writing the others' fields.
 * Listeners run synchronously, in the order they were registered (the slices' order in store.ts).
 */
export interface StoreEvents {
  /** Registers a slice's answer to `event`. */
  on: <E extends keyof StoreEventMap>(event: E, listener: (payload: StoreEventMap[E]) => void) => void
  /** Announces `event` to every listener. */
  emit: <E extends keyof StoreEventMap>(event: E, payload: StoreEventMap[E]) => void
}

/** A fresh set of events for one store (each store, e.g. one per test, has its own listeners). */
export function createStoreEvents(): StoreEvents {
  // Keyed by event; `on` and `emit` keep each listener paired with its own event's payload.
  const listeners = new Map<keyof StoreEventMap, ((payload: unknown) => void)[]>()
  return {
    on: (event, listener) => {
      const list = listeners.get(event) ?? []
      list.push(listener as (payload: unknown) => void)
      listeners.set(event, list)
    },
    emit: (event, payload) => {
      for (const listener of listeners.get(event) ?? []) listener(payload)
    },
  }
}
