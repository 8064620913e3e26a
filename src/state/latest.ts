/** One request's place in a "latest request wins" sequence (`latestRequest`). */
interface RequestTicket {
  /** The request's id: 1, 2, 3… in the order asked (sent along where the worker drops older work by id). */
  readonly id: number
  /** True while no newer request was asked and the sequence was not dropped since. */
  isLatest: () => boolean
}

/** A sequence of requests of one kind where only the newest answer counts. */
export interface LatestRequest {
  /** Starts a request: every ticket given before it stops being the latest. */
  next: () => RequestTicket
  /** Makes every ticket given so far stale without starting a request (a reset, a closed dialog). */
  drop: () => void
}

/**
 * "Latest request wins" for a slice's worker requests: each request takes a ticket, and its
 * answer (or progress) is applied only while `ticket.isLatest()`; answers of older requests,
 * and of any request before a `drop()`, are ignored. Ids start at 1 per sequence.
 */
export function latestRequest(): LatestRequest {
  let latest = 0
  return {
    next: () => {
      const id = ++latest
      return { id, isLatest: () => id === latest }
    },
    drop: () => {
      latest++
    },
  }
}
