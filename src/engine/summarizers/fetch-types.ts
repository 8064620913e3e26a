/**
 * The minimal shapes of WHATWG `fetch`, `Response`, `ReadableStream` and `AbortController` the
 * HTTP summarizers use. The engine has no DOM types (it runs in the worker, Node and the CLI),
 * so these are declared here and `fetch` is always injected — the engine never reaches for a
 * global `fetch`. Timers, `AbortController` and `TextDecoder` are read from `globalThis` at call
 * time (present in browsers, workers and Node ≥ 18), as formats/index.ts does for `TextDecoder`.
 */
import type { CancelSignal } from '../stages/types'

/** Headers of a response: only `get` is read (names are case-insensitive). */
export interface HeadersLike {
  get(name: string): string | null
}

/** One read of a byte stream. */
interface ReadResultLike {
  done: boolean
  value?: Uint8Array
}

/** The reader of a response body. */
interface StreamReaderLike {
  read(): Promise<ReadResultLike>
  cancel(reason?: unknown): Promise<void>
}

/** A response body (`ReadableStream<Uint8Array>`). */
interface ByteStreamLike {
  getReader(): StreamReaderLike
}

/** The part of a `Response` the summarizers read. */
export interface ResponseLike {
  readonly ok: boolean
  readonly status: number
  readonly statusText: string
  readonly headers: HeadersLike
  readonly body: ByteStreamLike | null
  text(): Promise<string>
}

/** What the summarizers pass to `fetch`: always a POST with a JSON body. */
interface FetchInit {
  method: 'POST'
  headers: Record<string, string>
  /** The exact JSON text sent (the prompt preview shows the same text). */
  body: string
  /** A real `AbortSignal` when the runtime has `AbortController` (timeouts, cancel). */
  signal?: CancelSignal
}

/**
 * An injected `fetch`. In a browser or worker pass
 * `(url, init) => fetch(url, init as RequestInit)`; in Node (≥ 18) the same with the global
 * `fetch`. Tests pass counting or failing fakes.
 */
export type FetchLike = (url: string, init: FetchInit) => Promise<ResponseLike>

/** Waits `ms` milliseconds (injectable so tests of backoff need no wall clock). */
export type Sleep = (ms: number, signal?: CancelSignal) => Promise<void>

interface TimerGlobals {
  setTimeout?: (fn: () => void, ms: number) => unknown
  clearTimeout?: (handle: unknown) => void
  AbortController?: new () => { readonly signal: CancelSignal; abort(reason?: unknown): void }
  TextDecoder?: new (label?: string) => {
    decode(bytes?: Uint8Array, options?: { stream?: boolean }): string
  }
}

const g = globalThis as unknown as TimerGlobals

/** An `AbortController` of this runtime, or undefined when it has none. */
export function newAbortController():
  | { readonly signal: CancelSignal; abort(reason?: unknown): void }
  | undefined {
  return g.AbortController ? new g.AbortController() : undefined
}

/** Starts a timer; returns its canceller. A runtime without timers never fires it. */
export function startTimer(ms: number, fn: () => void): () => void {
  if (!g.setTimeout) return () => {}
  const handle = g.setTimeout(fn, ms)
  return () => g.clearTimeout?.(handle)
}

/** A streaming UTF-8 decoder (`TextDecoder`, `{stream: true}`); throws if the runtime has none. */
export function newUtf8Decoder(): (bytes?: Uint8Array) => string {
  if (!g.TextDecoder) throw new Error('this runtime has no TextDecoder')
  const decoder = new g.TextDecoder('utf-8')
  return (bytes) => (bytes ? decoder.decode(bytes, { stream: true }) : decoder.decode())
}

/** The default `Sleep`: a timer, cut short (resolved) when `signal` aborts. */
export const defaultSleep: Sleep = (ms, signal) =>
  new Promise((resolve) => {
    if (signal?.aborted) return resolve()
    const onAbort = () => {
      stop()
      resolve()
    }
    const stop = startTimer(ms, () => {
      signal?.removeEventListener?.('abort', onAbort)
      resolve()
    })
    signal?.addEventListener?.('abort', onAbort, { once: true })
  })
