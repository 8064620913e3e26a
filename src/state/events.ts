import mitt, { type Emitter } from 'mitt'
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
type StoreEventMap = {
  /** Another transcript opened (the load slice, right after it set `info`). */
  transcriptChanged: TranscriptChange
  /** A load (file, sample, paste, conversation) starts, whether or not it will succeed. */
  loadStarted: { fileName: string }
}

/**
 * The store's events: one place where a change that concerns several slices is announced, so
 * each slice answers it with its own reset instead of one slice writing the others' fields.
 * A mitt emitter (`on`, `emit`, `off`): listeners run synchronously, in the order they were
 * registered (the slices' order in store.ts).
 */
export type StoreEvents = Emitter<StoreEventMap>

/** A fresh set of events for one store (each store, e.g. one per test, has its own listeners). */
export function createStoreEvents(): StoreEvents {
  return mitt<StoreEventMap>()
}
