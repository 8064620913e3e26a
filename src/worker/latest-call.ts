/**
 * "Latest call wins" for the worker's long calls (a run, a stage view, a sweep, a timeline, a
 * turn context): starting a call aborts the one before it, and the older call's answer is
 * replaced by a stale answer (`cancelled`) so it is never delivered as if it were current.
 */

/** Which older calls answer stale: any aborted one, or only one a newer call replaced. */
export type StaleWhen = 'aborted' | 'superseded'

/**
 * One kind of call, at most one in flight. `start()` aborts the previous call's signal (a real
 * AbortController, so a summarizer request in flight is aborted too); `cancel()` aborts the call
 * in flight without replacing it; `dispose()` aborts it and makes it stale for good (its
 * transcript is gone).
 */
export class LatestCall {
  #current: AbortController | null = null

  /** Aborts the call in flight, if any, and starts a new one: its signal. */
  start(): AbortSignal {
    this.#current?.abort()
    const controller = new AbortController()
    this.#current = controller
    return controller.signal
  }

  /** True while `signal` belongs to the newest call still in flight (not replaced, not disposed). */
  isLatest(signal: AbortSignal): boolean {
    return this.#current?.signal === signal
  }

  /** Ends `signal`'s call: when it is the newest, nothing is in flight any more. */
  end(signal: AbortSignal): void {
    if (this.isLatest(signal)) this.#current = null
  }

  /** Aborts the call in flight, which stays the newest (it answers as it does when aborted); false when none. */
  cancel(): boolean {
    if (!this.#current) return false
    this.#current.abort()
    return true
  }

  /** Aborts the call in flight and forgets it: it answers stale whatever `StaleWhen` it runs with. */
  dispose(): void {
    this.#current?.abort()
    this.#current = null
  }

  /**
   * Runs `work` as the newest call. Once it settles (answer or throw), a call that is stale —
   * aborted (`when: 'aborted'`, the default) or replaced by a newer call or `dispose`
   * (`'superseded'`) — answers `stale()` instead; otherwise its answer, or its error rethrown.
   */
  async run<T>(work: (signal: AbortSignal) => Promise<T>, stale: () => T, when: StaleWhen = 'aborted'): Promise<T> {
    const signal = this.start()
    const isStale = () => (when === 'aborted' ? signal.aborted : !this.isLatest(signal))
    try {
      const answer = await work(signal)
      return isStale() ? stale() : answer
    } catch (e) {
      if (isStale()) return stale()
      throw e
    } finally {
      this.end(signal)
    }
  }
}
