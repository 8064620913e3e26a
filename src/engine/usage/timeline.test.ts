/**
 * The usage timeline (usage/timeline.ts): per recorded request the agent's figure beside our
 * calibrated count of the same context and what it was made of, each recorded compaction with the
 * agent's figure and ours, and the clearings. Expected values follow the docstrings of
 * `contextWalk` (analysis/recorded.ts) and `transcriptCounts` (usage/calibration.ts).
 */
import { beforeAll, describe, expect, it } from 'vitest'
import type { Message, Transcript } from '../model'
import { assistant, deepFreeze, indexed, toolResult, user } from '../stages/test-helpers'
import { countMessageTokens, loadCounter, REPLY_PRIMING_TOKENS, type CachedCounter } from '../tokens/count'
import type { Calibration } from './calibration-terms'
import { usageTimeline, type CompositionPart, type UsagePoint } from './timeline'

let counter: CachedCounter
beforeAll(async () => {
  counter = await loadCounter('o200k_base')
})

const PLACEHOLDER = '[Old tool result content cleared]'
const OVERHEAD = 1_000
const REINJECTED = 500
const calibration: Calibration = { source: 'usage', overhead: OVERHEAD, ratio: 1.2, reinjected: REINJECTED }
/** A message as the run counts it under `calibration`: round(1.2 × our count). */
const c = (m: Message) => Math.round(1.2 * countMessageTokens(m, counter.count))
/** Tool schemas (none), reply priming and the overhead: every request carries them. */
const FIXED = REPLY_PRIMING_TOKENS + OVERHEAD

const thinkingReply: Message = {
  id: 'm6',
  index: 0,
  role: 'assistant',
  content: [
    { type: 'thinking', variant: 'thinking', text: 'The user wants the zone lookup checked again after the summary.' },
    { type: 'text', text: 'Checking the zone lookup again.' },
  ],
  source: { format: 'claude-code' },
}
const summary: Message = { ...user('m5', 'Summary: the catalog was read; zone 9 lookup fixed.'), flags: { compactSummary: true } }

/**
 * A Claude Code-shaped session: a read whose result is cleared at #4, an auto compaction at #5
 * (its summary message #5), then a reply with readable thinking; usage on each response.
 */
function session(): Transcript {
  const messages = indexed([
    user('m0', 'Read the catalog and fix zone 9.'),
    assistant('m1', null, [{ id: 'c1', name: 'Read', arguments: '{"file_path":"catalog.txt"}' }]),
    toolResult('m2', 'c1', 'row of catalog items\n'.repeat(150), 'Read'),
    assistant('m3', 'Zone 9 is fixed.'),
    user('m4', 'Good. Check it once more.'),
    summary,
    thinkingReply,
    user('m7', 'And the tests?'),
    assistant('m8', 'All pass.'),
  ])
  return deepFreeze({
    format: 'claude-code',
    messages,
    recordedCompactions: [{ atIndex: 5, trigger: 'auto', tokensBefore: 42_000, summaryText: null, summaryMessageId: 'm5', source: 'claude-code' }],
    warnings: [],
    clearedToolResults: [{ atIndex: 4, toolCallIds: ['c1'], placeholder: PLACEHOLDER, tokensSaved: 900 }],
    usage: [
      { atMessageId: 'm1', atIndex: 1, context: 20_100, output: 40 },
      { atMessageId: 'm3', atIndex: 3, context: 23_400 },
      { atMessageId: 'm6', atIndex: 6, context: 21_050, output: 120 },
      { atMessageId: 'm8', atIndex: 8, context: 21_300 },
      // No context recorded: not a point.
      { atMessageId: 'm7', atIndex: 7, context: 0 },
    ],
  })
}

const sum = (p: UsagePoint): number => Object.values(p.composition).reduce<number>((n, v) => n + (v ?? 0), 0)

describe('usageTimeline', () => {
  it('one point per recorded request with a context: the record copied, our count beside it', () => {
    const t = session()
    const [m0, m1, m2, , , m5, m6, m7] = t.messages as Message[]
    const timeline = usageTimeline(t, counter, calibration)
    expect(timeline.points.map((p) => [p.atMessageId, p.atIndex, p.recorded, p.output])).toEqual([
      ['m1', 1, 20_100, 40],
      ['m3', 3, 23_400, undefined],
      ['m6', 6, 21_050, 120],
      ['m8', 8, 21_300, undefined],
    ])
    // Before the compaction: the fixed part and every message before the request.
    expect(timeline.points[0]!.estimated).toBe(FIXED + c(m0!))
    expect(timeline.points[1]!.estimated).toBe(FIXED + c(m0!) + c(m1!) + c(m2!))
    // After it: the fixed part, what it re-injects and its summary, then the messages after it.
    expect(timeline.points[2]!.estimated).toBe(FIXED + REINJECTED + c(m5!))
    expect(timeline.points[3]!.estimated).toBe(FIXED + REINJECTED + c(m5!) + c(m6!) + c(m7!))
  })

  it('what each context was made of: the parts sum to the estimate within rounding', () => {
    const t = session()
    const [m0, m1, m2, , , m5] = t.messages as Message[]
    const timeline = usageTimeline(t, counter, calibration)
    expect(timeline.parts).toEqual<CompositionPart[]>(['overhead', 'user', 'assistant', 'thinking', 'summaries', 'tool:Read'])
    expect(timeline.points[1]!.composition).toEqual({ overhead: FIXED, user: c(m0!), assistant: c(m1!), 'tool:Read': c(m2!) })
    expect(timeline.points[2]!.composition).toEqual({ overhead: FIXED + REINJECTED, summaries: c(m5!) })
    const last = timeline.points[3]!.composition
    expect(last.thinking).toBeGreaterThan(0)
    for (const p of timeline.points) {
      expect(Math.abs(sum(p) - p.estimated)).toBeLessThanOrEqual(Object.keys(p.composition).length)
    }
  })

  it('compactions carry the agent’s figure and ours; clearings where and how many', () => {
    const t = session()
    const [m0, m1, m2, m3, m4] = t.messages as Message[]
    const timeline = usageTimeline(t, counter, calibration)
    // The cleared result counts as its placeholder from #4 on, so right before the boundary too.
    const cleared = c({ ...m2!, content: PLACEHOLDER })
    expect(cleared).toBeLessThan(c(m2!))
    expect(timeline.compactions).toEqual([
      { atIndex: 5, trigger: 'auto', tokensBefore: 42_000, estimatedTokensBefore: FIXED + c(m0!) + c(m1!) + cleared + c(m3!) + c(m4!) },
    ])
    expect(timeline.clearings).toEqual([{ atIndex: 4, results: 1, tokensSaved: 900 }])
  })

  it('a file without usage: no points, the compactions still', () => {
    const { usage: _, ...t } = session()
    const timeline = usageTimeline(t, counter, calibration)
    expect(timeline.points).toEqual([])
    expect(timeline.compactions.map((x) => x.tokensBefore)).toEqual([42_000])
  })
})
