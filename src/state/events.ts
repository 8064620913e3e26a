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

/** A slice's answer to an event; it resets (or keeps) only that slice's own fields. */
type Listener<T> = (event: T) => void

/**
 * The store's events: one place where a change that concerns several slices is announced, so
 * each slice answers it with its own reset instead of one slice writing the others' fields.
 */
export interface StoreEvents {
  /** Registers a slice's answer to `transcriptChanged`; answers run in registration order. */
  onTranscriptChanged: (listener: Listener<TranscriptChange>) => void
  /** Announces that another transcript opened (the load slice, after it set `info`). */
  transcriptChanged: (change: TranscriptChange) => void
}

/** A fresh set of events for one store (each store, e.g. one per test, has its own listeners). */
export function createStoreEvents(): StoreEvents {
  const transcript: Listener<TranscriptChange>[] = []
  return {
    onTranscriptChanged: (listener) => {
      transcript.push(listener)
    },
    transcriptChanged: (change) => {
      for (const listener of transcript) listener(change)
    },
  }
}
