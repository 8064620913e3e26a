import { afterEach, describe, expect, it, vi } from 'vitest'
import type { Message } from '../engine/model'
import { countCodePoints } from '../engine/stages/test-helpers'
import { cacheCounter } from '../engine/tokens/count'
import type { PoolReply, PoolRequest } from './token-pool'

/**
 * The tokenizer pool: each distinct uncounted text goes to a pool worker once, and the
 * counts come back to the right texts. Workers are faked here (Node has no Web Worker): each
 * "counts" code points, answering asynchronously like a real one.
 */

const sent: PoolRequest[] = []
/** The worker each request of `sent` went to. */
const sentTo: object[] = []

class FakeWorker {
  onmessage: ((e: MessageEvent<PoolReply>) => void) | null = null
  postMessage(request: PoolRequest) {
    sent.push(request)
    sentTo.push(this)
    // Fact spans answered with a marker, so a test sees which spans came from the pool.
    const reply: PoolReply =
      'task' in request
        ? { id: request.id, spans: request.texts.map((t) => [{ fact: `pool:${t}`, kind: 'id' as const }]) }
        : { id: request.id, counts: request.texts.map(countCodePoints) }
    setTimeout(() => this.onmessage?.({ data: reply } as MessageEvent<PoolReply>), 0)
  }
}

afterEach(() => {
  vi.unstubAllGlobals()
  vi.resetModules()
  sent.length = 0
  sentTo.length = 0
})

const msg = (id: string, content: string, extra: Partial<Message> = {}): Message =>
  ({ id, index: 0, role: 'user', content, ...extra }) as Message

describe('precount', () => {
  it('counts each distinct text once across the pool and primes the cache', async () => {
    vi.stubGlobal('Worker', FakeWorker)
    vi.stubGlobal('navigator', { hardwareConcurrency: 2 })
    const { precount, poolSize } = await import('./token-pool')
    expect(poolSize()).toBe(2)
    const counter = cacheCounter('o200k_base', () => {
      throw new Error('the pipeline thread must not tokenize a primed text')
    })
    const messages = [
      msg('a', 'hello'),
      msg('b', 'hello'),
      msg('c', 'Grüße 👋', { toolCalls: [{ id: 't1', name: 'bash', arguments: '{"cmd":"ls"}' }] }),
    ]
    const stats = await precount(counter, messages, undefined, undefined, 0)
    expect(stats.texts).toBe(4) // hello, Grüße 👋, bash, {"cmd":"ls"}
    expect(sent.flatMap((r) => r.texts).sort()).toEqual(['Grüße 👋', 'bash', 'hello', '{"cmd":"ls"}'].sort())
    expect(counter.count('hello')).toBe(5)
    expect(counter.count('Grüße 👋')).toBe(7)
    expect(counter.count('{"cmd":"ls"}')).toBe(12)
    expect(counter.tokenizerCalls).toBe(0)

    // Nothing new: a second pre-count sends nothing.
    sent.length = 0
    expect((await precount(counter, messages, undefined, undefined, 0)).texts).toBe(0)
    expect(sent).toEqual([])
  })

  it('leaves a small transcript to the pipeline thread: no pool worker starts below minChars', async () => {
    vi.stubGlobal('Worker', FakeWorker)
    vi.stubGlobal('navigator', { hardwareConcurrency: 2 })
    const { precount, POOL_MIN_CHARS } = await import('./token-pool')
    const counter = cacheCounter('o200k_base', (t) => t.length)
    // 'hello' (5) + 'world' (5) = 10 code units of uncounted text, under a minChars of 11.
    const stats = await precount(counter, [msg('a', 'hello'), msg('b', 'world')], undefined, undefined, 11)
    expect(stats).toEqual({ workers: 0, texts: 0, chars: 0, ms: 0 })
    expect(sent).toEqual([])
    expect(POOL_MIN_CHARS).toBe(1_000_000)
  })

  it('a pool worker that fails leaves the counting to the pipeline instead of hanging the run', async () => {
    class FailingWorker {
      onmessage: ((e: MessageEvent<PoolReply>) => void) | null = null
      onerror: ((e: { message: string; preventDefault(): void }) => void) | null = null
      postMessage(request: PoolRequest) {
        sent.push(request)
        setTimeout(() => this.onerror?.({ message: 'could not load', preventDefault: () => {} }), 0)
      }
    }
    vi.stubGlobal('Worker', FailingWorker)
    vi.stubGlobal('navigator', { hardwareConcurrency: 2 })
    const { precount } = await import('./token-pool')
    const counter = cacheCounter('o200k_base', countCodePoints)
    const stats = await precount(counter, [msg('a', 'hello')], undefined, undefined, 0)
    expect(stats.workers).toBe(0)
    expect(sent.length).toBeGreaterThan(0)
    // Not primed: the pipeline's own count (here code points) answers, once.
    expect(counter.count('hello')).toBe(5)
    expect(counter.tokenizerCalls).toBe(1)
  })

  /** The pool module with two fake workers, an import started in o200k, a counter that must only hit its cache. */
  const poolCountingAhead = async () => {
    vi.stubGlobal('Worker', FakeWorker)
    vi.stubGlobal('navigator', { hardwareConcurrency: 2 })
    const pool = await import('./token-pool')
    pool.startAhead('o200k_base')
    const counter = cacheCounter('o200k_base', () => {
      throw new Error('the pipeline thread must not tokenize a primed text')
    })
    return { ...pool, counter }
  }

  it('takes the counts made ahead while a file streamed in and counts only what they lack', async () => {
    const { countAhead, precount, counter } = await poolCountingAhead()
    // Two parts of the import, the second repeating a text of the first: while the file streams
    // in, one of the two workers counts (the import keeps the other core).
    countAhead(counter, [msg('a', 'alpha'), msg('b', 'beta')])
    countAhead(counter, [msg('c', 'beta'), msg('d', 'gamma')])
    expect(sent.length).toBe(2)
    expect(new Set(sentTo).size).toBe(1)
    // The whole import: equal texts (other string objects), and one the parts did not have.
    const whole = [msg('a', ['al', 'pha'].join('')), msg('b', 'beta'), msg('c', 'beta'), msg('d', 'gamma'), msg('e', 'delta')]
    const stats = await precount(counter, whole, undefined, undefined, 0)
    expect(stats.ahead).toBe(3)
    expect(stats.texts).toBe(1)
    // Each text went to the pool once: the parts' three ahead, then only the one they lacked.
    expect(sent.flatMap((r) => r.texts)).toEqual(['alpha', 'beta', 'gamma', 'delta'])
    expect(['alpha', 'beta', 'gamma', 'delta'].map((t) => counter.count(t))).toEqual([5, 4, 5, 5])
    expect(counter.tokenizerCalls).toBe(0)
    // The counts made ahead are gone: the next transcript starts from the counter's cache alone.
    sent.length = 0
    const next = await precount(counter, [msg('f', 'epsilon')], undefined, undefined, 0)
    expect(next.ahead).toBeUndefined()
    expect(sent.flatMap((r) => r.texts)).toEqual(['epsilon'])
  })

  it('a new import counts ahead apart from a run still waiting on the previous one', async () => {
    const { countAhead, precount, startAhead, counter } = await poolCountingAhead()
    countAhead(counter, [msg('a', 'first file')])
    // The first file's run starts waiting for its counts made ahead...
    const firstRun = precount(counter, [msg('a', 'first file')], undefined, undefined, 0)
    // ...while a second file streams in.
    startAhead('o200k_base')
    countAhead(counter, [msg('b', 'second file')])
    expect((await firstRun).ahead).toBe(1)
    sent.length = 0
    const second = await precount(counter, [msg('b', 'second file')], undefined, undefined, 0)
    expect(second.ahead).toBe(1)
    expect(second.texts).toBe(0)
    expect(sent).toEqual([])
  })

  it('an import no run took (a newer file superseded it) hands out no more batches', async () => {
    const { countAhead, startAhead, counter } = await poolCountingAhead()
    // Ten batches of one 256 KB text each: one lane takes 8 at once, 2 wait in the queue.
    const big = Array.from({ length: 10 }, (_, i) => msg(`m${i}`, String(i).repeat(256 * 1024)))
    countAhead(counter, big)
    expect(sent.length).toBe(8)
    startAhead('o200k_base')
    await new Promise((r) => setTimeout(r, 20))
    expect(sent.length).toBe(8)
  })

  it('counts ahead only in the encoding the import was started for', async () => {
    vi.stubGlobal('Worker', FakeWorker)
    vi.stubGlobal('navigator', { hardwareConcurrency: 2 })
    const { countAhead, startAhead } = await import('./token-pool')
    startAhead('cl100k_base')
    countAhead(cacheCounter('o200k_base', countCodePoints), [msg('a', 'hello')])
    expect(sent).toEqual([])
    countAhead(cacheCounter('cl100k_base', countCodePoints), [msg('a', 'hello')])
    expect(sent.map((r) => ['encoding' in r && r.encoding, r.texts])).toEqual([['cl100k_base', ['hello']]])
  })

  it('measures the pool on a transcript from scratch, whatever the counter already holds (B1)', async () => {
    vi.stubGlobal('Worker', FakeWorker)
    vi.stubGlobal('navigator', { hardwareConcurrency: 2 })
    const { measurePool } = await import('./token-pool')
    const stats = await measurePool('o200k_base', [msg('a', 'hello'), msg('b', 'hello'), msg('c', 'world')])
    expect(stats.workers).toBe(2)
    expect(stats.texts).toBe(2)
    expect(stats.chars).toBe(10)
    expect(sent.flatMap((r) => r.texts).sort()).toEqual(['hello', 'world'])
  })

  it('does nothing where there is no Worker (Node: CLI, tests)', async () => {
    vi.stubGlobal('Worker', undefined)
    const { precount } = await import('./token-pool')
    const counter = cacheCounter('o200k_base', countCodePoints)
    expect(await precount(counter, [msg('a', 'hello')], undefined)).toEqual({ workers: 0, texts: 0, chars: 0, ms: 0 })
    expect(counter.has?.('hello')).toBe(false)
  })
})

describe('factSpansAhead: the fact spans of a long session found in the pool', () => {
  /** The pool module with two fake workers started and nothing sent yet, and its `messageFactSpans`. */
  const warmedPool = async () => {
    vi.stubGlobal('Worker', FakeWorker)
    vi.stubGlobal('navigator', { hardwareConcurrency: 2 })
    const pool = await import('./token-pool')
    const { messageFactSpans } = await import('../engine/facts/patterns')
    await pool.warmPool('o200k_base')
    sent.length = 0
    sentTo.length = 0
    return { pool, messageFactSpans }
  }

  it('sends the messages whose spans are not known to one worker and primes what comes back', async () => {
    const { pool, messageFactSpans } = await warmedPool()
    const known = msg('a', 'see ORD-58213')
    const plain = msg('b', 'plain')
    const call = msg('c', 'call', { role: 'assistant', toolCalls: [{ id: 't1', name: 'read', arguments: '{"path":"src/a.ts"}' }] })
    // Found on this thread before: not sent again, and kept as found.
    expect(messageFactSpans(known)).toEqual([{ fact: 'ORD-58213', kind: 'id' }])
    const messages = [known, plain, call]
    const ahead = pool.factSpansAhead(messages)
    expect(pool.factSpansAhead(messages)).toBe(ahead)
    expect(pool.factSpansSettled(messages)).toBe(ahead)
    await ahead
    // One batch: each message's fact text (content, then each tool call's arguments on a line).
    // The user's text is marked stated (its values are facts however phrased), the assistant's not.
    expect(sent).toEqual([
      { id: expect.any(Number), task: 'spans', texts: ['plain', 'call\n{"path":"src/a.ts"}'], stated: [true, false] },
    ])
    expect(new Set(sentTo).size).toBe(1)
    expect(messageFactSpans(plain)).toEqual([{ fact: 'pool:plain', kind: 'id' }])
    expect(messageFactSpans(call)).toEqual([{ fact: 'pool:call\n{"path":"src/a.ts"}', kind: 'id' }])
    expect(messageFactSpans(known)).toEqual([{ fact: 'ORD-58213', kind: 'id' }])
  })

  it('one batch per worker at a time; held while paused, finished with every worker once awaited', async () => {
    const { pool, messageFactSpans } = await warmedPool()
    // Four batches of one 256 KB text each.
    const messages = Array.from({ length: 4 }, (_, i) => msg(`m${i}`, String(i).repeat(256 * 1024)))
    const done = pool.factSpansAhead(messages)
    expect(sent.length).toBe(1)
    pool.pauseFactSpans(messages)
    await new Promise((r) => setTimeout(r, 20))
    // The batch held when paused came back; no other was handed out.
    expect(sent.length).toBe(1)
    expect(messageFactSpans.known(messages[0] as Message)).toBe(true)
    expect(messageFactSpans.known(messages[1] as Message)).toBe(false)
    const settled = pool.factSpansSettled(messages)
    // Both workers take a batch at once.
    expect(sent.length).toBe(3)
    expect(new Set(sentTo.slice(1)).size).toBe(2)
    await settled
    expect(sent.length).toBe(4)
    expect(messages.every((m) => messageFactSpans.known(m))).toBe(true)
    await done
  })

  it('does nothing while no pool of two workers is started', async () => {
    vi.stubGlobal('Worker', FakeWorker)
    vi.stubGlobal('navigator', { hardwareConcurrency: 1 })
    const pool = await import('./token-pool')
    const { messageFactSpans } = await import('../engine/facts/patterns')
    const m = msg('a', 'see ORD-58213')
    await pool.factSpansAhead([m])
    await pool.warmPool('o200k_base')
    sent.length = 0
    await pool.factSpansAhead([m])
    expect(sent).toEqual([])
    expect(messageFactSpans.known(m)).toBe(false)
    expect(messageFactSpans(m)).toEqual([{ fact: 'ORD-58213', kind: 'id' }])
  })

  it('a batch the pool cannot answer is left to this thread: the promise still settles', async () => {
    class AnsweringErrors extends FakeWorker {
      override postMessage(request: PoolRequest) {
        if (!('task' in request)) return super.postMessage(request)
        sent.push(request)
        setTimeout(() => this.onmessage?.({ data: { id: request.id, error: 'out of memory' } } as MessageEvent<PoolReply>), 0)
      }
    }
    vi.stubGlobal('Worker', AnsweringErrors)
    vi.stubGlobal('navigator', { hardwareConcurrency: 2 })
    const pool = await import('./token-pool')
    const { messageFactSpans } = await import('../engine/facts/patterns')
    await pool.warmPool('o200k_base')
    const m = msg('a', 'see ORD-58213')
    await pool.factSpansAhead([m])
    expect(messageFactSpans.known(m)).toBe(false)
    expect(messageFactSpans(m)).toEqual([{ fact: 'ORD-58213', kind: 'id' }])
  })
})

describe('engine warm-up of the pool', () => {
  const sample = JSON.stringify([
    { role: 'user', content: 'hello' },
    { role: 'assistant', content: 'hi' },
  ])

  it('starts the pool once, after the first completed run and not at warmUp (the first run keeps the cores)', async () => {
    vi.stubGlobal('Worker', FakeWorker)
    vi.stubGlobal('navigator', { hardwareConcurrency: 2 })
    const { createEngineApi } = await import('./engine-api')
    const engineApi = createEngineApi()
    await engineApi.warmUp('o200k_base')
    expect(sent).toEqual([])
    expect(engineApi.importText(sample, 'chat.json').ok).toBe(true)
    const first = await engineApi.run(engineApi.getDefaults(), 1)
    expect(first.ok).toBe(true)
    // The small transcript was counted on the engine's thread; the pool starts in the next task.
    expect(sent).toEqual([])
    await engineApi.warmPool('o200k_base')
    // Two workers, each asked once by the idle-time start and once by warmPool: empty batches only.
    expect(sent.length).toBe(4)
    expect(sent.every((r) => r.texts.length === 0 && 'encoding' in r && r.encoding === 'o200k_base')).toBe(true)
    sent.length = 0
    await engineApi.run(engineApi.getDefaults(), 2)
    await new Promise((r) => setTimeout(r, 0))
    expect(sent).toEqual([])
  })
})
