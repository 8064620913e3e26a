/**
 * A pool of tokenizer workers inside the engine worker (BENCH.md B1/B3): before a run,
 * every distinct text of the transcript that the counter has not seen yet is counted once, in
 * parallel across `poolSize()` workers, and primed into the engine's cached counter, so the
 * pipeline's synchronous `count` only hits the cache. The engine stays pure: it sees only a
 * `CachedCounter`. Where `Worker` does not exist (Node: CLI, tests) the pool is absent and the
 * pipeline counts on its own thread, with identical counts (same counter, same options).
 */
import type { Encoding, Message, ToolSchema } from '../engine/model'
import { isOrdinaryUser } from '../engine/facts/classify'
import { messageFactSpans, messageFactText, type FactSpan } from '../engine/facts/patterns'
import { cacheCounter, textsToCount, type CachedCounter } from '../engine/tokens/count'

/**
 * A batch sent to a pool worker: texts to count in `encoding`, or (`task: 'spans'`) texts whose
 * fact spans to find (`findFactSpans`).
 */
export type PoolRequest = CountRequest | SpansRequest

/** Texts to count in `encoding`. */
interface CountRequest {
  id: number
  encoding: Encoding
  texts: string[]
}

/** Message texts (`messageFactText`) whose fact spans to find. */
interface SpansRequest {
  id: number
  task: 'spans'
  texts: string[]
  /** Per text, whether an ordinary user message wrote it (`findFactSpans`' `stated`); absent: none did. */
  stated?: boolean[]
}

/** A pool worker's answer: one count (or one list of fact spans) per text, in order, or an error. */
export type PoolReply = { id: number; counts: number[] } | { id: number; spans: FactSpan[][] } | { id: number; error: string }

/** Most pool workers, whatever the core count (each holds its own MB-sized rank tables). */
const MAX_POOL_WORKERS = 4

/**
 * Code units per batch: large enough that the message overhead vanishes, small enough that the
 * workers finish together (they pull the next batch when done).
 */
const BATCH_CHARS = 256 * 1024

/** Workers for this machine: `navigator.hardwareConcurrency` capped at `MAX_POOL_WORKERS`, at least 1. */
export function poolSize(): number {
  const cores = typeof navigator !== 'undefined' ? navigator.hardwareConcurrency : 0
  return Math.max(1, Math.min(MAX_POOL_WORKERS, cores || 2))
}

/** What the last `precount` did, for the bench (`engineApi.tokenStats`). */
export interface PrecountStats {
  /** Pool workers used (0: no pool here, the pipeline counted on its own). */
  workers: number
  /** Distinct texts counted by the pool. */
  texts: number
  /** Their length in UTF-16 code units. */
  chars: number
  /** Wall time of the pool counting in ms. */
  ms: number
  /** Distinct texts whose counts were made ahead, while the file streamed in (`countAhead`). */
  ahead?: number
}

let workers: Worker[] | null = null
let nextId = 0
const waiting = new Map<number, { resolve: (reply: PoolReply) => void; reject: (e: Error) => void }>()
export const lastPrecount: PrecountStats = { workers: 0, texts: 0, chars: 0, ms: 0 }

function pool(): Worker[] | null {
  if (workers) return workers
  if (typeof Worker === 'undefined') return null
  workers = []
  for (let i = 0; i < poolSize(); i++) {
    // Keep `new URL(...)` inline: Vite only bundles a worker in this exact form.
    const w = new Worker(new URL('./token-pool.worker.ts', import.meta.url), { type: 'module' })
    w.onmessage = (e: MessageEvent<PoolReply>) => {
      const reply = e.data
      const wait = waiting.get(reply.id)
      if (!wait) return
      waiting.delete(reply.id)
      if ('error' in reply) wait.reject(new Error(reply.error))
      else wait.resolve(reply)
    }
    // A worker that fails to load or crashes must not leave a run waiting forever.
    w.onerror = (e: ErrorEvent) => {
      e.preventDefault()
      const failed = [...waiting.values()]
      waiting.clear()
      workers = null
      for (const wait of failed) wait.reject(new Error(`tokenizer pool worker failed: ${e.message || 'could not load'}`))
    }
    workers.push(w)
  }
  return workers
}

function request(worker: Worker, message: PoolRequest): Promise<PoolReply> {
  return new Promise((resolve, reject) => {
    waiting.set(message.id, { resolve, reject })
    worker.postMessage(message)
  })
}

/** Counts `texts` in `encoding` on `worker`: one count per text, in order. */
async function send(worker: Worker, encoding: Encoding, texts: string[]): Promise<number[]> {
  const reply = await request(worker, { id: ++nextId, encoding, texts })
  return 'counts' in reply ? reply.counts : []
}

/**
 * Uncounted text (UTF-16 code units) below which `precount` leaves counting to the pipeline on
 * the engine worker's own thread: ~1 MB counts in well under a second there, less than a pool
 * worker needs to start and load its rank tables.
 */
export const POOL_MIN_CHARS = 1_000_000

/** Starts the pool and has every worker load `encoding`'s rank tables (a no-op without `Worker`). */
export async function warmPool(encoding: Encoding): Promise<void> {
  const ws = pool()
  if (ws) await Promise.all(ws.map((w) => send(w, encoding, [])))
}

/**
 * Counts made ahead (`countAhead`) for one import. Kept apart from the counter's cache so that the
 * texts of the parts (equal in content, other string objects) do not stay alive as its keys; the
 * next `precount` in its encoding moves what it needs and drops it.
 */
interface Ahead {
  encoding: Encoding
  /** Every text queued, counted or not yet: a later part repeating one does not queue it again. */
  sent: Set<string>
  counts: Map<string, number>
  /** Batches not yet handed to a worker, oldest first. */
  queue: string[][]
  /**
   * Workers that take batches: all but one while the file streams in, so the import keeps a core
   * of its own (on 2 cores, 3 busy threads slowed the import by ≈ 2×); all once `precount` waits.
   */
  lanes: number
  /** Batches each worker has been handed and not answered. */
  inflight: Map<Worker, number>
  /** One promise per batch handed out, settled once its counts are stored. */
  drains: Promise<void>[]
  /** A pool worker failed: nothing more is handed out; `precount` counts what is left. */
  failed: boolean
}

/** The import counting ahead now; a new import (`startAhead`) replaces it, never empties it. */
let ahead: Ahead | null = null
/** The encoding `startAhead` named for the import in progress (none: nothing is counted ahead). */
let aheadEncoding: Encoding | null = null

/**
 * Starts counting ahead for a new import in `encoding` (the one its run will most likely use):
 * the previous import's state is dropped here, though a run already waiting on it keeps it; an
 * import no run took hands out no more batches.
 */
export function startAhead(encoding: Encoding): void {
  // No run took the previous import's counts (`takeAhead` would have): it was abandoned, so its
  // batches not yet handed out are dropped; those in flight finish and are forgotten.
  ahead?.queue.splice(0)
  ahead = null
  aheadEncoding = encoding
}

/**
 * Batches a worker counting ahead holds at once: enough that it does not run dry between two
 * parts of the import, when the engine thread, busy parsing, takes its answers and hands out more
 * (8 × 256 KB ≈ 0.4 s of counting; a part is ≈ 0.15 s of parsing).
 */
const AHEAD_DEPTH = 8

/** Hands `state`'s queued batches to its first `lanes` pool workers, up to `AHEAD_DEPTH` each. */
function pump(state: Ahead, ws: readonly Worker[]): void {
  if (state.failed) return
  for (const worker of ws.slice(0, state.lanes)) {
    while ((state.inflight.get(worker) ?? 0) < AHEAD_DEPTH) {
      const texts = state.queue.shift()
      if (!texts) return
      state.inflight.set(worker, (state.inflight.get(worker) ?? 0) + 1)
      const done = send(worker, state.encoding, texts).then(
        (n) => {
          texts.forEach((t, i) => state.counts.set(t, n[i] ?? 0))
          state.inflight.set(worker, (state.inflight.get(worker) ?? 1) - 1)
          pump(state, ws)
        },
        () => {
          // A failed worker: what is left is counted by `precount` (its texts have no count here).
          state.failed = true
        },
      )
      state.drains.push(done)
    }
  }
}

/**
 * Queues, for the pool, the distinct texts of a part of the transcript being imported
 * (`StreamImportOptions.onPart`) that `counter` has not counted, and returns at once: `lanes`
 * workers count them while the import goes on; the next `precount` with the same encoding takes
 * the counts and waits for the rest with every worker. Does nothing without a pool, or when
 * `counter`'s encoding is not the one `startAhead` named. Source: BENCH.md B3 (streaming and a
 * worker pool must beat one thread parsing then counting).
 */
export function countAhead(counter: CachedCounter, messages: readonly Message[], tools?: readonly ToolSchema[]): void {
  const { has } = counter
  const ws = typeof Worker === 'undefined' || !has || aheadEncoding !== counter.encoding ? null : pool()
  if (!ws || !has) return
  ahead ??= {
    encoding: counter.encoding,
    sent: new Set(),
    counts: new Map(),
    queue: [],
    lanes: Math.max(1, ws.length - 1),
    inflight: new Map(),
    drains: [],
    failed: false,
  }
  const state = ahead
  let batch: string[] = []
  let size = 0
  for (const text of textsToCount(messages, tools)) {
    if (state.sent.has(text) || has.call(counter, text)) continue
    state.sent.add(text)
    batch.push(text)
    size += text.length
    if (size >= BATCH_CHARS) {
      state.queue.push(batch)
      batch = []
      size = 0
    }
  }
  if (batch.length > 0) state.queue.push(batch)
  pump(state, ws)
}

/**
 * Primes `counter` with the counts made ahead for the texts it still lacks, after every worker has
 * helped finish the queue, and drops those counts. Returns how many it primed.
 */
async function takeAhead(counter: CachedCounter, texts: Iterable<string>): Promise<number> {
  const state = ahead
  if (!state || state.encoding !== counter.encoding) return 0
  // Taken by this run: a later import starts its own.
  ahead = null
  aheadEncoding = null
  const ws = workers
  if (ws) {
    state.lanes = ws.length
    pump(state, ws)
  }
  while (state.drains.length > 0) {
    const drains = state.drains
    state.drains = []
    await Promise.all(drains)
  }
  let taken = 0
  for (const text of texts) {
    const n = state.counts.get(text)
    if (n === undefined || counter.has?.(text)) continue
    counter.prime?.(text, n)
    taken++
  }
  return taken
}

/** Messages arrays whose texts were all counted, per counter (tool schemas ride with them). */
const precounted = new WeakMap<readonly Message[], WeakSet<CachedCounter>>()

/**
 * Counts, in the pool, every text of `messages` and `tools` that `counter` has not counted yet, and
 * primes `counter` with the results. Without a pool (or a counter without `has`/`prime`) it does
 * nothing and the pipeline counts as before; so it does with less than `minChars` UTF-16 code units
 * of uncounted text (default `POOL_MIN_CHARS`). Stops handing out batches once `signal` aborts.
 * When a pool worker fails, the texts it had not counted are left to the pipeline's own thread.
 */
export async function precount(
  counter: CachedCounter,
  messages: readonly Message[],
  tools: readonly ToolSchema[] | undefined,
  signal?: AbortSignal,
  minChars: number = POOL_MIN_CHARS,
): Promise<PrecountStats> {
  const { has, prime } = counter
  if (typeof Worker === 'undefined' || !has || !prime) return { workers: 0, texts: 0, chars: 0, ms: 0 }
  // A re-plan of the same transcript finds every text counted: skip the scan (BENCH B4).
  if (!signal?.aborted && precounted.get(messages)?.has(counter)) {
    const stats = { workers: workers?.length ?? 0, texts: 0, chars: 0, ms: 0 }
    delete lastPrecount.ahead
    Object.assign(lastPrecount, stats)
    return stats
  }
  const started = performance.now()
  const texts = textsToCount(messages, tools)
  const taken = await takeAhead(counter, texts)
  const todo: string[] = []
  let chars = 0
  for (const text of texts) {
    if (has.call(counter, text)) continue
    todo.push(text)
    chars += text.length
  }
  // A small transcript counts faster on this thread than it takes pool workers to load their
  // MB-sized rank tables (three parses of o200k on a cold start of the 44-message sample).
  const ws = chars >= minChars || taken > 0 ? pool() : null
  if (!ws) return { workers: 0, texts: 0, chars: 0, ms: 0 }
  const batches: string[][] = []
  let batch: string[] = []
  let size = 0
  for (const text of todo) {
    batch.push(text)
    size += text.length
    if (size >= BATCH_CHARS) {
      batches.push(batch)
      batch = []
      size = 0
    }
  }
  if (batch.length > 0) batches.push(batch)
  let next = 0
  const drain = async (w: Worker) => {
    while (next < batches.length && !signal?.aborted) {
      const texts = batches[next++] as string[]
      const counts = await send(w, counter.encoding, texts)
      texts.forEach((t, i) => prime.call(counter, t, counts[i] ?? 0))
    }
  }
  try {
    await Promise.all(ws.map(drain))
  } catch {
    // A pool worker failed: the pipeline counts what is left on its own thread (same counts).
    return { workers: 0, texts: 0, chars: 0, ms: 0 }
  }
  if (!signal?.aborted) {
    let counters = precounted.get(messages)
    if (!counters) precounted.set(messages, (counters = new WeakSet()))
    counters.add(counter)
  }
  const stats: PrecountStats = { workers: ws.length, texts: todo.length, chars, ms: performance.now() - started }
  if (taken > 0) stats.ahead = taken
  delete lastPrecount.ahead
  Object.assign(lastPrecount, stats)
  return stats
}

/**
 * Counts every distinct text of `messages` and `tools` in the pool from scratch (a throwaway
 * cache, so nothing counted before helps): the pool's throughput for BENCH.md B1. Zeros without
 * a pool.
 */
export function measurePool(encoding: Encoding, messages: readonly Message[], tools?: readonly ToolSchema[]): Promise<PrecountStats> {
  const fresh = cacheCounter(encoding, () => {
    throw new Error('every text is counted by the pool')
  })
  return precount(fresh, messages, tools, undefined, 0)
}

/** The fact spans of one messages array being found in the pool (`factSpansAhead`). */
interface SpansJob {
  /** Batches not handed out yet: messages and their fact texts, in order. */
  queue: { messages: Message[]; texts: string[]; stated: boolean[] }[]
  /** How many pool workers (the last ones) may hold a batch at once; 0 holds the job. */
  lanes: number
  /** Workers holding a batch of this job. */
  busy: Set<Worker>
  /** Settled once every batch is in, or at the first failure. */
  done: Promise<void>
  finish: () => void
}

const spansJobs = new WeakMap<readonly Message[], SpansJob>()

/** Hands `job`'s next batches to its free lanes, one batch per worker; settles it when all are in. */
function pumpSpans(job: SpansJob): void {
  const ws = workers
  if (!ws) return job.finish()
  for (const worker of ws.slice(Math.max(0, ws.length - job.lanes))) {
    if (job.busy.has(worker)) continue
    const batch = job.queue.shift()
    if (!batch) break
    job.busy.add(worker)
    const stated = batch.stated.includes(true) ? { stated: batch.stated } : {}
    request(worker, { id: ++nextId, task: 'spans', texts: batch.texts, ...stated }).then(
      (reply) => {
        job.busy.delete(worker)
        if ('spans' in reply) batch.messages.forEach((m, i) => messageFactSpans.prime(m, Object.freeze(reply.spans[i] ?? [])))
        if (job.queue.length === 0 && job.busy.size === 0) job.finish()
        else pumpSpans(job)
      },
      () => {
        // A failed batch leaves what is not in to `messageFactSpans` on this thread (the same spans).
        job.queue.length = 0
        job.finish()
      },
    )
  }
  if (job.queue.length === 0 && job.busy.size === 0) job.finish()
}

/**
 * Has the pool find the fact spans (`findFactSpans`, the engine's own) of every message of
 * `messages` whose spans are not known yet, a batch per worker at a time, and primes
 * `messageFactSpans` with them as batches come back: started when a long session's first run
 * starts, one worker — idle once the texts are counted — does on the second core what the Before's
 * fact index (the failure-mode checks, the facts table) would do after the run on the engine's
 * thread (≈ 1.3 s on a 50 MB session), while the run keeps a core. `pauseFactSpans` holds it
 * while the page shows the run; `factSpansSettled` finishes it with every worker. The promise
 * settles once every batch is in or a batch failed (never rejects); a no-op without a pool of at
 * least two workers, or while one is not started. Asked again for the same array, the same promise.
 */
export function factSpansAhead(messages: readonly Message[]): Promise<void> {
  const known = spansJobs.get(messages)
  if (known) return known.done
  const ws = workers
  if (!ws || ws.length < 2) return Promise.resolve()
  let finish = () => {}
  const done = new Promise<void>((resolve) => (finish = resolve))
  const job: SpansJob = { queue: [], lanes: 1, busy: new Set(), done, finish }
  let batch: Message[] = []
  let texts: string[] = []
  let stated: boolean[] = []
  let size = 0
  for (const m of messages) {
    if (messageFactSpans.known(m)) continue
    const text = messageFactText(m)
    batch.push(m)
    texts.push(text)
    stated.push(isOrdinaryUser(m))
    size += text.length
    if (size >= BATCH_CHARS) {
      job.queue.push({ messages: batch, texts, stated })
      batch = []
      texts = []
      stated = []
      size = 0
    }
  }
  if (batch.length > 0) job.queue.push({ messages: batch, texts, stated })
  spansJobs.set(messages, job)
  pumpSpans(job)
  return done
}

/**
 * Hands out no more batches of `messages`' fact spans (those held finish): from the end of the
 * first run until the page asks for what needs them, the page's rendering keeps the cores.
 */
export function pauseFactSpans(messages: readonly Message[]): void {
  const job = spansJobs.get(messages)
  if (job) job.lanes = 0
}

/**
 * Settles when the fact spans `factSpansAhead` is finding for `messages` are in (at once when none
 * are), going on with every pool worker meanwhile: the caller waits for them.
 */
export function factSpansSettled(messages: readonly Message[]): Promise<void> {
  const job = spansJobs.get(messages)
  if (!job) return Promise.resolve()
  job.lanes = workers?.length ?? 0
  pumpSpans(job)
  return job.done
}
