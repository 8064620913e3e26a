/**
 * Calibration (usage/calibration.ts): the line fitted to the file's recorded usage, the setting's
 * modes, the per-request estimates, thinking the file keeps only as a signature, tool results the
 * agent cleared in place, and that a transcript recording no usage is counted exactly as before.
 * Expected values follow the docstrings: a context of `x` tokens by our count (messages, tool
 * schemas, reply priming) is `overhead + ratio·x` tokens of the agent.
 */
import fc from 'fast-check'
import { beforeAll, describe, expect, it } from 'vitest'
import { contextWalk } from '../analysis/recorded'
import type { Message, PipelineConfig, RequestUsage, Transcript } from '../model'
import { runPipeline } from '../pipeline'
import { assistant, deepFreeze, indexed, system, toolResult, user } from '../stages/test-helpers'
import { countMessageTokens, loadCounter, REPLY_PRIMING_TOKENS, type CachedCounter } from '../tokens/count'
import { calibrationFor, fitLine, fitToUsage, transcriptCounts, usageReport } from './calibration'
import { RAW_COUNTS, type Calibration } from './calibration-terms'
import { usageTimeline } from './timeline'

let counter: CachedCounter
beforeAll(async () => {
  counter = await loadCounter('o200k_base')
})

/** Our raw count of one message (the engine's counter, tokens/count.ts). */
const raw = (m: Message): number => countMessageTokens(m, counter.count)

function transcriptOf(messages: Message[], extra: Partial<Transcript> = {}): Transcript {
  return { format: 'claude-code', messages, recordedCompactions: [], warnings: [], ...extra }
}

describe('fitLine', () => {
  const line = (x: number) => 12_000 + 1.25 * x
  const xs = [2_000, 5_000, 10_000, 20_000, 40_000, 60_000, 80_000, 100_000, 120_000, 150_000]

  it('recovers y = 12,000 + 1.25·x from exact points', () => {
    expect(fitLine(xs.map((x) => ({ x, y: line(x) })))).toEqual({ overhead: 12_000, ratio: 1.25, reinjected: 0 })
  })

  it('fits what requests after a recorded compaction carry beyond the line as reinjected', () => {
    const points = xs.map((x, i) => (i % 2 === 0 ? { x, y: line(x) } : { x, y: line(x) + 3_000, after: true }))
    expect(fitLine(points)).toEqual({ overhead: 12_000, ratio: 1.25, reinjected: 3_000 })
  })

  it('drops one wild outlier among 10 points: the fit of the other nine', () => {
    // The 5th request recorded five times what the line says (misses by 400%, far over 10%).
    const points = xs.map((x, i) => ({ x, y: i === 4 ? 5 * line(x) : line(x) }))
    expect(fitLine(points)).toEqual({ overhead: 12_000, ratio: 1.25, reinjected: 0 })
  })

  it('refits a negative overhead through 0', () => {
    // y = 1.25·x − 2,000 exactly: (8,000, 8,000) and (16,000, 18,000). Through 0, minimizing
    // Σ (1 − r·x/y)²: r = Σ(x/y) / Σ(x/y)² = (1 + 8/9) / (1 + 64/81) = 153/145 = 1.05517… → 1.0552.
    expect(fitLine([{ x: 8_000, y: 8_000 }, { x: 16_000, y: 18_000 }])).toEqual({ overhead: 0, ratio: 1.0552, reinjected: 0 })
  })

  it('an implausible ratio (y falling as x grows) falls back to ratio 1 and the median difference', () => {
    // y − x: 49,000, 38,000, 27,000 → median 38,000. Misses of 38,000 + x: 22%, 0%, 37%: none over 3 × 22%.
    const points = [
      { x: 1_000, y: 50_000 },
      { x: 2_000, y: 40_000 },
      { x: 3_000, y: 30_000 },
    ]
    expect(fitLine(points)).toEqual({ overhead: 38_000, ratio: 1, reinjected: 0 })
  })

  it('one request: ratio 1 and its difference; none: the identity', () => {
    expect(fitLine([{ x: 1_000, y: 4_000 }])).toEqual({ overhead: 3_000, ratio: 1, reinjected: 0 })
    expect(fitLine([])).toEqual({ overhead: 0, ratio: 1, reinjected: 0 })
  })

  it('property: exact linear data gives its line back within rounding', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 40_000 }),
        fc.integer({ min: 60, max: 240 }).map((r) => r / 100),
        fc.uniqueArray(fc.integer({ min: 1_000, max: 190_000 }), { minLength: 2, maxLength: 30 }),
        (overhead, ratio, xs) => {
          fc.pre(Math.max(...xs) - Math.min(...xs) >= 1_000)
          const fit = fitLine(xs.map((x) => ({ x, y: overhead + ratio * x })))
          // The overhead is rounded to a token, the ratio to 4 decimals.
          expect(Math.abs(fit.overhead - overhead)).toBeLessThanOrEqual(1)
          expect(Math.abs(fit.ratio - ratio)).toBeLessThanOrEqual(0.00005 + 1e-9)
          expect(fit.reinjected).toBe(0)
        },
      ),
      { numRuns: 300 },
    )
  })
})

/**
 * A chat of six turns whose recorded usage follows the model exactly: each request's context =
 * 5,000 + 1.5 × (our raw count of the messages before it; no tools) + the reply priming, which a
 * run adds unscaled (`rawBefore` holds priming + messages).
 * Messages whose raw count is even, so 1.5 × each is a whole token (the run rounds per message).
 */
function linearChat(): { transcript: Transcript; rawBefore: number[] } {
  const lines = [
    ['Please fix order ORD-58213 for 94107.', 'Fixed the zone lookup in the rating module.'],
    ['Now add a test that covers zone 9 and the fallback.', 'Added tests/test_zones.py with two cases.'],
    ['Run the whole suite and tell me what fails.', 'All 214 tests pass; two are skipped on CI only.'],
    ['Ship it to staging.', 'Deployed build 7 to staging.'],
    ['Check the logs for errors after the deploy, please, especially the billing worker.', 'No errors in the last hour.'],
    ['Thanks. Write the release note.', 'Release note: zone 9 fixed, tests added, staged as build 7.'],
  ]
  const messages: Message[] = []
  for (const [q, a] of lines) {
    for (const [role, text] of [['user', q], ['assistant', a]] as const) {
      let t = text as string
      const make = (s: string) => (role === 'user' ? user(`m${messages.length}`, s) : assistant(`m${messages.length}`, s))
      // Pad to an even raw count so 1.5 × each message is a whole token.
      if (raw(make(t)) % 2 === 1) t += ' ok'
      if (raw(make(t)) % 2 === 1) t += ' ok'
      messages.push(make(t))
    }
  }
  const all = indexed(messages)
  const rawBefore: number[] = []
  let sum = REPLY_PRIMING_TOKENS
  for (const m of all) {
    rawBefore.push(sum)
    sum += raw(m)
  }
  rawBefore.push(sum)
  const usage: RequestUsage[] = all
    .filter((m) => m.role === 'assistant')
    .map((m) => ({
      atMessageId: m.id,
      atIndex: m.index,
      context: 5_000 + 1.5 * ((rawBefore[m.index] as number) - REPLY_PRIMING_TOKENS) + REPLY_PRIMING_TOKENS,
    }))
  return { transcript: deepFreeze(transcriptOf(all, { usage })), rawBefore }
}

describe('recorded usage that cannot be fitted', () => {
  it('two requests are too few for two numbers: not fitted, the counts say why', () => {
    const { transcript } = linearChat()
    const two = transcriptOf(transcript.messages, { usage: transcript.usage!.slice(0, 2) })
    expect(fitToUsage(two, counter)).toBeNull()
    const c = calibrationFor(two, undefined, counter)
    expect(c).toMatchObject({ source: 'none', overhead: 0, ratio: 1 })
    expect(c.note).toBe('recorded usage not used: 2 requests are too few to fit an overhead and a ratio (at least 3)')
    // With an agent preset's overhead, that applies, with the same reason.
    const preset = calibrationFor(two, { mode: 'auto', agentOverhead: { tokens: 20_000, source: 'measured' } }, counter)
    expect(preset).toMatchObject({ source: 'preset', overhead: 20_000, note: c.note })
  })

  it('usage far from these messages (every context 1 token) is not fitted: a median miss over 50%', () => {
    const { transcript } = linearChat()
    const tiny = transcriptOf(transcript.messages, { usage: transcript.usage!.map((u) => ({ ...u, context: 1 })) })
    expect(fitToUsage(tiny, counter)).toBeNull()
    expect(calibrationFor(tiny, undefined, counter).note).toMatch(/^recorded usage not used: our count misses it by a median [\d,]+% /)
  })
})

describe('fitToUsage and usageReport', () => {
  it('recovers overhead 5,000 and ratio 1.5 from usage on that line; the estimates match the records', () => {
    const { transcript, rawBefore } = linearChat()
    for (const m of transcript.messages) expect(raw(m) % 2).toBe(0)
    const fit = fitToUsage(transcript, counter)!
    expect(fit.source).toBe('usage')
    expect(fit.overhead).toBe(5_000)
    expect(fit.ratio).toBe(1.5)
    expect(fit.requests).toBe(6)
    expect(fit.reinjected).toBeUndefined()
    expect(fit.medianError).toBeLessThan(0.001)

    const report = usageReport(transcript, counter, fit)
    expect(report.overhead).toBe(5_000)
    expect(report.ratio).toBe(1.5)
    expect(report.requests.map((r) => r.atMessageId)).toEqual(['m1', 'm3', 'm5', 'm7', 'm9', 'm11'])
    for (const r of report.requests) {
      // The run's count (transcriptCounts): each message × 1.5 (whole here), the overhead once and
      // the reply priming as it is — the record itself.
      const messages = (rawBefore[r.atIndex] as number) - REPLY_PRIMING_TOKENS
      expect(r.recorded).toBe(5_000 + 1.5 * messages + REPLY_PRIMING_TOKENS)
      expect(r.estimated).toBe(r.recorded)
    }
    expect(report.compactionsBefore).toEqual([])
  })

  it('a file without usage has no fit and an empty report', () => {
    const t = transcriptOf(indexed([user('u', 'hi'), assistant('a', 'hello')]))
    expect(fitToUsage(t, counter)).toBeNull()
    expect(usageReport(t, counter, RAW_COUNTS)).toEqual({ requests: [], overhead: 0, ratio: 1, medianError: null, compactionsBefore: [] })
  })
})

describe('calibrationFor', () => {
  const noUsage = () => transcriptOf(indexed([user('u', 'hi'), assistant('a', 'hello')]))

  it('off: raw counts, even for a file that records usage', () => {
    expect(calibrationFor(linearChat().transcript, { mode: 'off' }, counter)).toEqual(RAW_COUNTS)
  })

  it('manual: the overhead at least 0, the ratio within 0.5–2.5, defaults 0 and 1', () => {
    const t = noUsage()
    expect(calibrationFor(t, { mode: 'manual', overhead: -5, ratio: 9 }, counter)).toEqual({ source: 'manual', overhead: 0, ratio: 2.5 })
    expect(calibrationFor(t, { mode: 'manual', overhead: 1_200.4, ratio: 0.1 }, counter)).toEqual({ source: 'manual', overhead: 1_200, ratio: 0.5 })
    expect(calibrationFor(t, { mode: 'manual' }, counter)).toEqual({ source: 'manual', overhead: 0, ratio: 1 })
  })

  it('auto (also when absent): the usage fit; else the preset overhead; else raw counts', () => {
    const { transcript } = linearChat()
    expect(calibrationFor(transcript, undefined, counter)).toMatchObject({ source: 'usage', overhead: 5_000, ratio: 1.5 })
    // The file's usage wins over the preset's documented overhead.
    expect(calibrationFor(transcript, { mode: 'auto', agentOverhead: { tokens: 20_000, source: 'doc' } }, counter).source).toBe('usage')
    const t = noUsage()
    expect(calibrationFor(t, { mode: 'auto', agentOverhead: { tokens: 20_000, source: 'agent docs' } }, counter)).toEqual({
      source: 'preset',
      overhead: 20_000,
      ratio: 1,
      from: 'agent docs',
    })
    expect(calibrationFor(t, { mode: 'auto' }, counter)).toEqual(RAW_COUNTS)
    expect(calibrationFor(t, undefined, counter)).toEqual(RAW_COUNTS)
  })
})

describe('thinking the file keeps only as a signature', () => {
  // Claude Code writes a thinking block's signature, its text empty; the response's recorded
  // output (10,000) is what that thinking and the readable rest took.
  const reply = 'I will fix the zone lookup first.'
  const thinking: Message = {
    id: 'a1',
    index: 1,
    role: 'assistant',
    content: [
      { type: 'thinking', variant: 'thinking', text: '', signature: 'EuYBCkQYAiJA' },
      { type: 'text', text: reply },
    ],
    source: { format: 'claude-code' },
  }
  const transcript = () =>
    deepFreeze(
      transcriptOf([user('u0', 'Fix ORD-58213.'), thinking, { ...user('u2', 'Go on.'), index: 2 }], {
        usage: [{ atMessageId: 'a1', atIndex: 1, context: 9_000, output: 10_000 }],
      }),
    )

  it('under a usage calibration: ratio × its readable tokens + (output − readable raw)', () => {
    // Readable raw: the message framing and the text (an empty thinking text counts 0).
    const readable = 3 + counter.count(reply)
    const usage: Calibration = { source: 'usage', overhead: 0, ratio: 1.5 }
    const { message } = transcriptCounts(transcript(), counter, usage)
    expect(message(thinking)).toBe(Math.round(1.5 * readable) + (10_000 - readable))
    // Other messages are only scaled.
    expect(message(transcript().messages[0]!)).toBe(Math.round(1.5 * (3 + counter.count('Fix ORD-58213.'))))
  })

  it('under raw counts: its raw count', () => {
    const { message } = transcriptCounts(transcript(), counter, RAW_COUNTS)
    expect(message(thinking)).toBe(3 + counter.count(reply))
  })
})

describe('tool results cleared in place', () => {
  const placeholder = '[Old tool result content cleared]'
  const body = 'row of catalog items\n'.repeat(200)
  const messages = indexed([
    user('u0', 'Read the catalog.'),
    assistant('a1', null, [{ id: 'c1', name: 'Read', arguments: '{"file_path":"catalog.txt"}' }]),
    toolResult('t2', 'c1', body, 'Read'),
    assistant('a3', 'The catalog has 200 rows.'),
    user('u4', 'Now the prices.'),
    assistant('a5', 'Prices read.'),
  ])

  it('from the clearing on, each context is N − count(placeholder message) smaller', () => {
    const plain = transcriptOf(messages)
    const cleared = transcriptOf(messages, { clearedToolResults: [{ atIndex: 4, toolCallIds: ['c1'], placeholder }] })
    const n = raw(messages[2]!)
    const saved = n - raw({ ...messages[2]!, content: placeholder })
    expect(saved).toBeGreaterThan(100)
    const a = contextWalk(plain, raw, 10).at
    const b = contextWalk(cleared, raw, 10).at
    for (let j = 0; j <= messages.length; j++) expect(b[j]).toBe(j >= 4 ? (a[j] as number) - saved : a[j])
  })
})

/** Random chats without usage: system prompt or not, requests, tool steps and replies. */
const chatArb = fc
  .record({
    system: fc.boolean(),
    turns: fc.array(
      fc.record({
        ask: fc.string({ minLength: 1, maxLength: 80 }),
        steps: fc.array(fc.string({ maxLength: 400 }), { maxLength: 2 }),
        reply: fc.option(fc.string({ minLength: 1, maxLength: 120 }), { nil: null }),
      }),
      { minLength: 1, maxLength: 6 },
    ),
  })
  .map(({ system: withSystem, turns }) => {
    const out: Message[] = []
    let call = 0
    if (withSystem) out.push(system('s', 'You are a coding agent.'))
    for (const t of turns) {
      out.push(user(`m${out.length}`, t.ask))
      for (const result of t.steps) {
        const id = `c${call++}`
        out.push(assistant(`m${out.length}`, null, [{ id, name: 'read', arguments: '{"path":"a.py"}' }]))
        out.push(toolResult(`m${out.length}`, id, result, 'read'))
      }
      if (t.reply !== null) out.push(assistant(`m${out.length}`, t.reply))
    }
    return indexed(out)
  })

describe('properties', () => {
  const stages: PipelineConfig['stages'] = [
    { id: 'dedupe', enabled: true, params: {} },
    { id: 'prune-tool-results', enabled: true, params: { target: 200, keep_steps: 1, min_tokens: 20 } },
    { id: 'summarize', enabled: true, params: { keep_last: 2, compact_after: 3 } },
  ] as PipelineConfig['stages']

  it('calibration never changes a count of a transcript that records no usage', async () => {
    await fc.assert(
      fc.asyncProperty(chatArb, async (messages) => {
        const transcript = deepFreeze(transcriptOf(messages, { format: 'openai-chat' }))
        const auto = await runPipeline(transcript, { encoding: 'o200k_base', summarizer: 'extractive', stages }, { counter, skipChecks: true })
        const off = await runPipeline(
          transcript,
          { encoding: 'o200k_base', summarizer: 'extractive', stages, calibration: { mode: 'off' } },
          { counter, skipChecks: true },
        )
        expect(auto.before.totals).toEqual(off.before.totals)
        expect(auto.after.totals).toEqual(off.after.totals)
        expect(auto.before.tokensById).toEqual(off.before.tokensById)
        expect(auto.after.tokensById).toEqual(off.after.tokensById)
      }),
      { numRuns: 60 },
    )
  }, 60_000)

  it('fitToUsage, usageReport and usageTimeline never mutate the transcript', () => {
    fc.assert(
      fc.property(
        chatArb,
        fc.integer({ min: 0, max: 30_000 }),
        fc.integer({ min: 80, max: 200 }).map((r) => r / 100),
        (messages, overhead, ratio) => {
          // Usage on every assistant message, recorded from a line with a little noise.
          let sum = REPLY_PRIMING_TOKENS
          const usage: RequestUsage[] = []
          messages.forEach((m, i) => {
            if (m.role === 'assistant') usage.push({ atMessageId: m.id, atIndex: i, context: Math.round(overhead + ratio * sum + (i % 3) * 7), output: 50 })
            sum += raw(m)
          })
          const transcript = transcriptOf(messages, { usage })
          const copy = structuredClone(transcript)
          deepFreeze(transcript)
          const fit = fitToUsage(transcript, counter) ?? RAW_COUNTS
          usageReport(transcript, counter, fit)
          usageTimeline(transcript, counter, fit)
          expect(transcript).toEqual(copy)
        },
      ),
      { numRuns: 60 },
    )
  })
})
