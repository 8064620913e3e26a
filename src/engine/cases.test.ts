/**
 * The fault cases of test/fixtures/cases (format openai or anthropic, a stage we have) as tests:
 * each case's input goes through the real importer and pipeline; the test asserts the case's
 * `expect` and that the validity checker finds nothing new in the result. Summarize cases are
 * also swept over keep_last × compact_after, because the fix must hold for the whole kind.
 *
 * Mapping of case params onto our stages:
 * - `summarize`: keep_last / compact_after as given; `mock_summary` → a summarizer returning it.
 *   Without a mock, the case runs with the offline extractive summarizer (invariants only: it
 *   may refuse a pass whose summary would not be smaller) and with a short fixed summary (the
 *   case's structural expectation once a pass fires).
 * - `trim` with `target_count` (Semantic Kernel style, the target counts the system message) →
 *   summarize with keep_last = target_count − leading system messages, compact_after =
 *   keep_last + threshold_count; `trim` with `token_target` → prune-tool-results target.
 * - `prune` → prune-tool-results (target = token_target); `dedupe` → dedupe;
 *   `insert_compress` → insert-then-compress (keep_recent = keep_last, threshold 0);
 *   `count` → the run's token totals.
 * - `pins: auto` (cases 16, 17, 19, 20) → the `pin-facts` stage after `summarize`, with the
 *   extractive summarizer and with a short summary that keeps no fact at all (the pins alone
 *   must carry them); swept over keep_last × compact_after for the whole kind.
 * Not here: 43 (Vercel ModelMessage) and 45 (OpenAI Responses): formats not imported yet.
 */
import { describe, expect, it } from 'vitest'
import { loadCase, type FaultCase } from '../../test/fixtures'
import { checkValidity, findDanglingBackReferences } from './analysis/checks'
import { importTranscript } from './formats/index'
import type {
  Message,
  PipelineConfig,
  RunResult,
  StageConfig,
  Transcript,
  ValidityProblem,
} from './model'
import { EMPTY_MESSAGE_REASON, providerOf, runPipeline } from './pipeline'
import { BACK_REFERENCE_PREFIX, backReferenceFor, summarizeToolOutput } from './stages/dedupe'
import { COMPRESSED_SUMMARY_ID, COMPRESSION_INSTRUCTION } from './stages/insert-then-compress'
import { checkFailureModes } from './analysis/failure-modes'
import { PINNED_FACTS_ID, PINNED_HEADER, pinFacts } from './stages/pin-facts'
import { KEEP_STEPS_ERROR } from './stages/prune-tool-results'
import type { Summarizer, SummaryRequest } from './stages/types'
import { extractiveSummarizer } from './summarizers/extractive'
import { cutCodePoints, firstLine } from './util/text'
import { countMessageTokens, IMAGE_TOKENS, loadCounter, MESSAGE_OVERHEAD_TOKENS } from './tokens/count'


/** The case as a request body of its format, imported by the real importer. */
function importCase(c: FaultCase): Transcript {
  const body: Record<string, unknown> = { messages: c.input }
  if (c.params.format === 'anthropic' && typeof c.params.system === 'string')
    body.system = c.params.system
  if (Array.isArray(c.params.tools)) body.tools = c.params.tools
  const imported = importTranscript(JSON.stringify(body), { fileName: 'case.json' })
  if (!imported.ok) throw new Error(`case did not import: ${imported.error.message}`)
  return imported.transcript
}

const SHORT = 'Earlier turns summarized.'

/** A summarizer returning `answer`, recording its requests. */
function mock(answer: string) {
  const requests: SummaryRequest[] = []
  const fn: Summarizer = (r) => {
    requests.push(r)
    return Promise.resolve(answer)
  }
  return { fn, requests }
}

const pipeline = (...stages: StageConfig[]): PipelineConfig => ({
  encoding: 'o200k_base',
  summarizer: 'extractive',
  stages,
})
const summarizeStage = (
  keep_last: number,
  compact_after: number,
  extra: Record<string, unknown> = {},
): StageConfig => ({
  id: 'summarize',
  enabled: true,
  params: { keep_last, compact_after, ...extra },
})
const pruneStage = (target: number, keep_steps = 1, min_tokens = 200): StageConfig => ({
  id: 'prune-tool-results',
  enabled: true,
  params: { target, keep_steps, min_tokens },
})

async function run(
  t: Transcript,
  config: PipelineConfig,
  summarizer: Summarizer = extractiveSummarizer,
): Promise<RunResult> {
  return runPipeline(t, config, { counter: await loadCounter('o200k_base'), summarizer })
}

const key = (p: ValidityProblem) => `${p.rule}:${p.messageIds.join(',')}`

/** The checker finds nothing in the result that was not already in the input. */
function expectNoNewProblems(result: RunResult): void {
  const before = new Set(result.checks.before.map(key))
  expect(result.checks.after.filter((p) => !before.has(key(p)))).toEqual([])
}

const ids = (ms: readonly Message[]) => ms.map((m) => m.id)

/** Tool pairs: a kept tool result has its call kept before it; a kept answered call has all its results. */
function expectPairsIntact(before: readonly Message[], after: readonly Message[]): void {
  const kept = new Set(ids(after))
  for (const m of before) {
    if (m.role !== 'tool') continue
    const call = before.find((c) => c.toolCalls?.some((tc) => tc.id === m.toolCallId))
    if (call) expect(kept.has(m.id)).toBe(kept.has(call.id))
  }
  // The first message after the leading system block (and after a summary) is never a tool result.
  const firstConv = after.find((m) => m.role !== 'system')
  expect(firstConv?.role).not.toBe('tool')
  const afterSummary = after.findIndex((m) => m.id.startsWith('summary:'))
  if (afterSummary !== -1) expect(after[afterSummary + 1]?.role).not.toBe('tool')
}

/** Sweeps keep_last × compact_after with a short summary: the kind's invariants always hold. */
async function sweepSummarize(t: Transcript): Promise<void> {
  for (let keep = 1; keep <= 6; keep++) {
    for (let after = 1; after <= 6; after++) {
      const result = await run(t, pipeline(summarizeStage(keep, after)), mock(SHORT).fn)
      expect(result.stages[0]?.error).toBeUndefined()
      expectNoNewProblems(result)
      expectPairsIntact(t.messages, result.after.messages)
      expect(result.after.totals.tokens).toBeLessThanOrEqual(result.before.totals.tokens)
      const lead = t.messages.findIndex((m) => m.role !== 'system')
      for (let i = 0; i < lead; i++)
        expect(result.after.messages[i]?.content).toBe(t.messages[i]?.content)
    }
  }
}

describe('fault cases: pending tool calls (01, 41)', () => {
  it('01: the pending tool_use stays verbatim at the end and out of the summarizer request', async () => {
    const c = loadCase('01-pending-tool-use-at-compact.json')
    const t = importCase(c)
    expect(t.format).toBe('anthropic-messages')
    const pending = t.messages[t.messages.length - 1] as Message
    expect(pending.toolCalls?.[0]?.id).toBe('toolu_a2')
    for (const summarizer of [extractiveSummarizer, mock(SHORT).fn]) {
      const m = mock('')
      const spy: Summarizer = (r) => (m.fn(r), summarizer(r))
      const result = await run(t, pipeline(summarizeStage(1, 3)), spy)
      expect(result.after.messages[result.after.messages.length - 1]?.content).toEqual(
        pending.content,
      )
      expect(result.after.messages[result.after.messages.length - 1]?.id).toBe(pending.id)
      for (const r of m.requests) {
        expect(ids(r.slice)).not.toContain(pending.id)
        expect(checkValidity([...r.slice], { provider: 'anthropic' })).toEqual([])
      }
      expect(result.checks.after).toEqual([])
    }
    // With a short summary the pass fires: toolu_a1 and its result are summarized together.
    const result = await run(t, pipeline(summarizeStage(1, 3)), mock(SHORT).fn)
    expect(ids(result.after.messages)).toEqual(['m0', 'summary:summarize:1', 'm4'])
    await sweepSummarize(t)
  })

  it('41: the unanswered confirmation conf-1 is never folded into a summary', async () => {
    const c = loadCase('41-pending-call-not-compacted.json')
    const t = importCase(c)
    for (const summarizer of [extractiveSummarizer, mock(SHORT).fn]) {
      const result = await run(t, pipeline(summarizeStage(2, 4)), summarizer)
      const conf = result.after.messages.find((m) => m.toolCalls?.some((tc) => tc.id === 'conf-1'))
      expect(conf).toBeDefined()
      expect(checkValidity(result.after.messages, { pendingCallIds: ['conf-1'] })).toEqual([])
      expectNoNewProblems(result)
    }
    await sweepSummarize(t)
  })
})

describe('fault cases: tool pairs never split by the boundary (02, 03, 06, 07, 10, 13)', () => {
  it('02: the boundary retreats so toolu_b2 keeps its result and the linter instruction', async () => {
    const t = importCase(loadCase('02-orphan-tool-result-after-boundary.json'))
    const result = await run(t, pipeline(summarizeStage(3, 5)), mock(SHORT).fn)
    // Turn end m7: 7 > 5 → upto 4 (m5, tool) → 3 (m4, the toolu_b2 call).
    expect(ids(result.after.messages)).toEqual([
      'm0',
      'summary:summarize:1',
      'm4',
      'm5',
      'm6',
      'm7',
      'm8',
    ])
    expect(result.after.messages[4]?.content).toBe('Also run the linter when done.')
    expect(result.checks.after).toEqual([])
    await sweepSummarize(t)
  })

  it('03: the four parallel results stay with their call (retreat to the assistant message)', async () => {
    const t = importCase(loadCase('03-keep-window-inside-parallel-batch.json'))
    const result = await run(t, pipeline(summarizeStage(4, 6, { min_progress: true })), mock(SHORT).fn)
    // Retreat lands on the batch's call (m2): a one-message slice is no progress (min_progress), history kept.
    expect(ids(result.after.messages)).toEqual(ids(t.messages))
    expect(result.stages[0]?.note).toBe(
      'no progress possible: a pass would replace one message with one summary',
    )
    // Seed 001 alone makes that one-message pass; its summary is larger, so the pipeline keeps the history.
    const seed = await run(t, pipeline(summarizeStage(4, 6)), mock(SHORT).fn)
    expect(ids(seed.after.messages)).toEqual(ids(t.messages))
    expect(seed.stages[0]?.note).toMatch(/^its change would make the context larger/)
    expect(result.checks.after).toEqual([])
    await sweepSummarize(t)
  })

  it('06: the cut never lands between call_q1 and call_q2; the result is valid before it is kept', async () => {
    const t = importCase(loadCase('06-cut-between-two-results.json'))
    const result = await run(t, pipeline(summarizeStage(3, 5)), mock(SHORT).fn)
    expect(ids(result.after.messages)).toEqual(ids(t.messages))
    expect(result.checks.after).toEqual([])
    await sweepSummarize(t)
  })

  it('07: the first message after the summary is never a tool message', async () => {
    const t = importCase(loadCase('07-summary-then-tool-message.json'))
    await sweepSummarize(t)
    const result = await run(t, pipeline(summarizeStage(5, 6)), mock(SHORT).fn)
    expect(result.checks.after).toEqual([])
  })

  it('10: the parallel batch is summarized as one unit; the tail starts at "Both fixtures are ready."', async () => {
    const c = loadCase('10-summary-trigger-inside-batch.json')
    const t = importCase(c)
    // token_target has no summarize equivalent: keep_last 2 puts the naive boundary after the batch.
    for (const summarizer of [extractiveSummarizer, mock(SHORT).fn]) {
      const result = await run(
        t,
        pipeline(summarizeStage(2, c.params.compact_after as number)),
        summarizer,
      )
      expect(result.after.messages.map((m) => m.content).slice(1)).toEqual([
        'Both fixtures are ready.',
        'Which fixture should the perf test use?',
      ])
      expect(result.origins[result.after.messages[0]?.id ?? '']).toMatchObject({
        kind: 'summary',
        coveredIds: ['m0', 'm1', 'm2', 'm3'],
      })
      expect(result.checks.after).toEqual([])
    }
    await sweepSummarize(t)
  })

  it('13 (trim target_count 3): [system, summary, "Book the later one.", "Booked IC 530."], never a leading tool', async () => {
    const t = importCase(loadCase('13-text-tool-message-pair-detection.json'))
    // keep_last = 3 − 1 system = 2, compact_after = 2 + threshold_count 0.
    const result = await run(t, pipeline(summarizeStage(2, 2)), mock(SHORT).fn)
    expect(result.after.messages.map((m) => m.content)).toEqual([
      'You are a travel helper.',
      expect.stringContaining(SHORT),
      'Book the later one.',
      'Booked IC 530.',
    ])
    expect(result.checks.after).toEqual([])
    await sweepSummarize(t)
  })

  it('08 (trim token_target 500): the call_c1 pair is kept or dropped as one unit', async () => {
    const t = importCase(loadCase('08-trim-drops-tool-call-message.json'))
    const result = await run(t, pipeline(pruneStage(500)))
    expect(result.after.messages[result.after.messages.length - 1]?.content).toBe(
      'Thanks, now summarize the columns.',
    )
    expectPairsIntact(t.messages, result.after.messages)
    expect(result.checks.after).toEqual([])
  })
})

describe('fault cases: no-op and nothing to do (09, 15, 24, 25)', () => {
  it('09 (trim token_target 100000): byte-identical output, trailing tool message included', async () => {
    const t = importCase(loadCase('09-under-budget-must-be-noop.json'))
    const result = await run(t, pipeline(pruneStage(100000)))
    expect(result.after.messages).toEqual(t.messages)
    expect(result.stages[0]?.changed).toBe(false)
    expect(result.checks.after).toEqual([])
  })

  it('15 (summarize target 99 + threshold 99): unchanged, tool traffic kept, "no change" is visible', async () => {
    const t = importCase(loadCase('15-reducer-strips-tool-content.json'))
    const m = mock(SHORT)
    const result = await run(t, pipeline(summarizeStage(99, 198)), m.fn)
    expect(result.after.messages).toEqual(t.messages)
    expect(result.stages[0]).toMatchObject({ changed: false, note: 'nothing to compact' })
    expect(m.requests).toHaveLength(0)
    expect(result.checks.after).toEqual([])
  })

  it('24: nothing outside keep_last: no summarizer call, no summary, "nothing to compact"', async () => {
    const t = importCase(loadCase('24-zero-eligible-no-empty-summary.json'))
    const m = mock(SHORT)
    const result = await run(t, pipeline(summarizeStage(2, 0)), m.fn)
    expect(m.requests).toHaveLength(0)
    expect(result.after.messages).toEqual(t.messages)
    expect(result.stages[0]).toMatchObject({ changed: false, note: 'nothing to compact' })
    expect(result.checks.after).toEqual([])
  })

  it('25: zero progress is reported once per request and never calls the summarizer', async () => {
    const t = importCase(loadCase('25-zero-progress-no-loop.json'))
    const m = mock(SHORT)
    for (let request = 0; request < 5; request++) {
      // OpenHands' minimum-progress guard: seed 001 alone would make this one-message pass.
      const result = await run(t, pipeline(summarizeStage(1, 1, { min_progress: true })), m.fn)
      expect(result.after.messages).toEqual(t.messages)
      expect(result.stages[0]?.note).toBe(
        'no progress possible: a pass would replace one message with one summary',
      )
      expect(result.passes).toEqual([])
    }
    expect(m.requests).toHaveLength(0)
  })
})

describe('fault cases: summaries that would fail or grow (21, 35, 46, 49)', () => {
  it('21: a summary not smaller than its span is refused; history kept; never larger', async () => {
    const c = loadCase('21-reject-summary-not-smaller.json')
    const t = importCase(c)
    const m = mock(c.params.mock_summary as string)
    // The refuse_larger guard (Gemini CLI's "rejected if inflated"); seed 001 alone has none.
    const result = await run(t, pipeline(summarizeStage(1, 3, { refuse_larger: true })), m.fn)
    expect(m.requests.length).toBeGreaterThan(0)
    expect(result.after.messages).toEqual(t.messages)
    expect(result.after.totals.tokens).toBeLessThanOrEqual(result.before.totals.tokens)
    expect(result.stages[0]?.note).toMatch(/^refused \d+ pass\(es\): the summary was not smaller/)
    expect(result.checks.after).toEqual([])
  })

  it('35: an empty summary aborts: original history, error surfaced, no empty message', async () => {
    const c = loadCase('35-empty-summary-aborts.json')
    const t = importCase(c)
    const result = await run(
      t,
      pipeline(summarizeStage(1, 3)),
      mock(c.params.mock_summary as string).fn,
    )
    expect(result.stages[0]?.error).toMatch(/empty summary/)
    expect(result.after.messages).toEqual(t.messages)
    expect(result.passes).toEqual([])
    expect(result.checks.after).toEqual([])
  })

  it('46: the oversized result is elided head + tail in the prompt; one pass; the pair stays together', async () => {
    const c = loadCase('46-oversized-single-result.json')
    const t = importCase(c)
    const counter = await loadCounter('o200k_base')
    const m = mock(SHORT)
    const result = await runPipeline(
      t,
      pipeline(summarizeStage(1, 3, { context_window: c.params.context_window })),
      { counter, summarizer: m.fn },
    )
    expect(result.passes).toHaveLength(1)
    const prompt = result.passes[0]?.prompt ?? ''
    expect(prompt).toMatch(
      /\[3\] tool: 00000 INFO .* \[\.\.\. \d+ chars omitted \.\.\.\] .*ms=\d+$/m,
    )
    expect(counter.count(prompt)).toBeLessThanOrEqual(c.params.context_window as number)
    expect(result.origins['summary:summarize:1']).toMatchObject({ coveredIds: ['m1', 'm2', 'm3'] })
    expect(result.checks.after).toEqual([])
    // The extractive summarizer completes too, in one pass, without growing anything.
    const offline = await run(
      t,
      pipeline(summarizeStage(1, 3, { context_window: c.params.context_window })),
    )
    expect(offline.passes).toHaveLength(1)
    expect(offline.after.totals.tokens).toBeLessThan(offline.before.totals.tokens)
    expect(offline.checks.after).toEqual([])
  })

  it('49: oldest slice items are left out until the request fits; the system prompt is never dropped', async () => {
    const c = loadCase('49-compaction-request-must-fit.json')
    const t = importCase(c)
    const counter = await loadCounter('o200k_base')
    const window = c.params.context_window as number
    for (const summarizer of [extractiveSummarizer, mock(SHORT).fn]) {
      const result = await runPipeline(
        t,
        pipeline(summarizeStage(1, 4, { context_window: window })),
        { counter, summarizer },
      )
      expect(result.stages[0]?.error).toBeUndefined()
      expect(result.passes.length).toBeGreaterThan(0)
      for (const p of result.passes) expect(counter.count(p.prompt)).toBeLessThanOrEqual(window)
      expect(result.after.messages[0]?.content).toBe(t.messages[0]?.content)
      expect(result.checks.after).toEqual([])
    }
  })
})

describe('fault cases: the system prompt (14, 38, 40)', () => {
  it('14 (trim target_count 3): the system message survives verbatim at index 0 exactly once', async () => {
    const t = importCase(loadCase('14-truncation-keeps-system.json'))
    const result = await run(t, pipeline(summarizeStage(2, 2)), mock(SHORT).fn)
    expect(result.after.messages.map((m) => m.content)).toEqual([
      'Always answer in Spanish.',
      expect.stringContaining(SHORT),
      "What's 2+2?",
      'Cuatro.',
    ])
    expect(
      result.after.messages.filter((m) => m.content === 'Always answer in Spanish.'),
    ).toHaveLength(1)
    expect(result.checks.after).toEqual([])
    await sweepSummarize(t)
  })

  it('38: the system message is not in the summarizer input; the summary comes after it; INV-2207 kept', async () => {
    const t = importCase(loadCase('38-system-not-summarized.json'))
    const m = mock(SHORT)
    const result = await run(t, pipeline(summarizeStage(1, 3)), m.fn)
    expect(ids(result.after.messages)).toEqual(['m0', 'summary:summarize:1', 'm4', 'm5'])
    expect(result.after.messages[0]?.content).toBe(
      'You are the billing assistant. Never reveal internal cost codes.',
    )
    for (const r of m.requests) expect(r.prompt).not.toContain('Never reveal internal cost codes')
    expect(result.after.messages[3]?.content).toContain('INV-2207')
    expect(result.checks.after).toEqual([])
    await sweepSummarize(t)
  })

  it('40: a mid-conversation system note is ordinary: summarization proceeds, TB-8841 kept', async () => {
    const t = importCase(loadCase('40-mid-system-is-not-the-prompt.json'))
    const m = mock(SHORT)
    const result = await run(t, pipeline(summarizeStage(1, 3)), m.fn)
    expect(result.passes).toHaveLength(1)
    expect(m.requests[0]?.prompt).toContain(
      '[2] system: Reminder: no input received for 30 seconds.',
    )
    expect(ids(result.after.messages)).toEqual(['summary:summarize:1', 'm4', 'm5'])
    expect(result.after.messages[1]?.content).toContain('TB-8841')
    expect(result.stages[0]?.note).not.toBe('nothing to compact')
    expect(result.checks.after).toEqual([])
    await sweepSummarize(t)
  })
})

describe('fault cases: thinking blocks (31, 32)', () => {
  it('31: the latest thinking + tool_use message and its result are sent byte-identical', async () => {
    const t = importCase(loadCase('31-latest-thinking-untouched.json'))
    const loop = t.messages.find((m) => m.toolCalls?.some((c) => c.id === 'toolu_t1')) as Message
    expect(Array.isArray(loop.content) && loop.content.some((p) => p.type === 'thinking')).toBe(
      true,
    )
    for (const summarizer of [extractiveSummarizer, mock(SHORT).fn]) {
      const result = await run(t, pipeline(summarizeStage(2, 3)), summarizer)
      const kept = result.after.messages.find((m) => m.id === loop.id)
      expect(kept?.content).toBe(loop.content)
      expect(kept?.toolCalls).toBe(loop.toolCalls)
      expect(result.checks.after).toEqual([])
    }
    await sweepSummarize(t)
  })

  it('32 (prune): a thinking block is kept whole, signature included; the current loop is untouched', async () => {
    const c = loadCase('32-thinking-kept-whole-or-dropped.json')
    const t = importCase(c)
    const result = await run(
      t,
      pipeline(pruneStage(c.params.token_target as number, 1, c.params.min_tokens as number)),
    )
    for (const m of t.messages) {
      if (m.role !== 'assistant') continue
      const kept = result.after.messages.find((k) => k.id === m.id)
      expect(kept?.content).toEqual(m.content)
    }
    const k2 = t.messages.findIndex((m) => m.toolCalls?.some((tc) => tc.id === 'toolu_k2'))
    for (const m of t.messages.slice(k2))
      expect(result.after.messages.find((k) => k.id === m.id)?.content).toEqual(m.content)
    expect(result.checks.after).toEqual([])
  })
})

describe('fault cases: counting (27, 28, 29)', () => {
  it('27: tool-call arguments count, so the total is over token_target 1500', async () => {
    const c = loadCase('27-count-tool-call-arguments.json')
    const t = importCase(c)
    const result = await run(t, pipeline())
    const writer = t.messages.find((m) => m.toolCalls?.length) as Message
    expect(writer.content).toBeNull()
    expect(result.before.tokensById[writer.id]).toBeGreaterThan(1000)
    expect(result.before.totals.tokens).toBeGreaterThan(c.params.token_target as number)
  })

  it('28: the system prompt and the 12 tool schemas are counted, as non-compactable overhead', async () => {
    const c = loadCase('28-count-system-and-tool-schemas.json')
    const t = importCase(c)
    expect(t.tools).toHaveLength(12)
    const result = await run(t, pipeline())
    const system = result.before.tokensById[t.messages[0]?.id ?? ''] ?? 0
    const conversation = t.messages
      .slice(1)
      .reduce((n, m) => n + (result.before.tokensById[m.id] ?? 0), 0)
    // Schemas alone are well over a thousand tokens; the conversation is "ping" / "pong".
    expect(result.before.totals.overheadTokens - system).toBeGreaterThan(1000)
    expect(result.before.totals.overheadTokens).toBeGreaterThan(10 * conversation)
    expect(result.before.totals.tokens).toBeGreaterThan(
      result.before.totals.overheadTokens + conversation,
    )
  })

  it('29: an image costs a flat estimate, never its base64; nothing is pruned under 4000', async () => {
    const c = loadCase('29-image-not-counted-as-text.json')
    const t = importCase(c)
    const image = t.messages.find(
      (m) => Array.isArray(m.content) && m.content.some((p) => p.type === 'image'),
    ) as Message
    // keep_steps 0 is the seed's error ("the model has not acted on the newest results yet").
    const asGiven = await run(t, pipeline(pruneStage(4000, 0, 50)))
    expect(asGiven.stages[0]?.error).toBe(KEEP_STEPS_ERROR)
    expect(asGiven.after.messages).toEqual(t.messages)
    const result = await run(t, pipeline(pruneStage(4000, 1, 50)))
    expect(result.before.tokensById[image.id]).toBe(IMAGE_TOKENS + MESSAGE_OVERHEAD_TOKENS)
    expect(result.before.totals.tokens).toBeLessThan(4000)
    expect(result.stages[0]?.changed).toBe(false)
    expect(result.checks.after).toEqual([])
  })
})

describe('fault cases: dedupe (36, 47), empty messages (34)', () => {
  it('36: the back-reference excerpt is cut on a code-point boundary and is well-formed', async () => {
    const t = importCase(loadCase('36-dedupe-cap-surrogate-safe.json'))
    const result = await run(t, pipeline({ id: 'dedupe', enabled: true, params: {} }))
    const original = t.messages.find((m) => m.toolCallId === 'call_b1') as Message
    const repeat = result.after.messages.find((m) => m.toolCallId === 'call_b2') as Message
    const expected = backReferenceFor(cutCodePoints(firstLine(original.content as string), 160))
    expect(repeat.content).toBe(expected)
    expect(expected).toContain(`${'x'.repeat(159)}🔥]`)
    expect((repeat.content as unknown as { isWellFormed(): boolean }).isWellFormed()).toBe(true)
    expect(JSON.parse(JSON.stringify(repeat.content))).toBe(repeat.content)
    expect(result.checks.after).toEqual([])
  })

  it('47: the back-reference is marked; after pruning none points at content that is gone', async () => {
    const c = loadCase('47-dedupe-backref-marked-and-not-dangling.json')
    const t = importCase(c)
    const result = await run(
      t,
      pipeline(
        { id: 'dedupe', enabled: true, params: {} },
        pruneStage(c.params.token_target as number, 1, c.params.min_tokens as number),
      ),
    )
    const refs: Record<string, string> = {}
    for (const [id, o] of Object.entries(result.origins))
      if (o.kind === 'back-reference') refs[id] = o.firstId
    expect(findDanglingBackReferences(result.after.messages, refs)).toEqual([])
    for (const id of Object.keys(refs)) {
      expect(result.after.messages.find((m) => m.id === id)?.content).toMatch(
        new RegExp(`^${BACK_REFERENCE_PREFIX.replace(/[[\]]/g, '\\$&')}`),
      )
    }
    expect(summarizeToolOutput('setting_0: value_0\nx')).toBe('setting_0: value_0')
    expect(result.checks.after).toEqual([])
  })

  it('34 (prune): over target with nothing to prune, nothing fired: the empties stay (nothing removed when nothing fired)', async () => {
    const c = loadCase('34-no-empty-messages.json')
    const t = importCase(c)
    const result = await run(
      t,
      pipeline(pruneStage(c.params.token_target as number, 1, c.params.min_tokens as number)),
    )
    // Every result is tiny ("ok"): a placeholder would be longer, so prune replaces nothing.
    expect(result.stages[0]?.changed).toBe(false)
    expect(result.before.totals.tokens).toBeGreaterThan(c.params.token_target as number)
    expect(result.after.messages).toEqual(t.messages)
    expect(result.checks.after).toEqual(result.checks.before)
  })

  it('34 (compaction fires): no empty message is sent; pre-existing empties are dropped with a fate', async () => {
    const c = loadCase('34-no-empty-messages.json')
    const t = importCase(c)
    // Summarize everything but the last user turn: the context changed, so it is made send-ready.
    const result = await run(
      t,
      pipeline({ id: 'summarize', enabled: true, params: { keep_last: 1, compact_after: 1 } }),
      mock('a.py written.').fn,
    )
    expect(result.stages[0]?.changed).toBe(true)
    const emptyBefore = result.checks.before.filter((p) => p.rule === 'empty-message')
    expect(emptyBefore.length).toBeGreaterThan(0)
    // Each empty one is summarized away or dropped by the send-ready cleanup, with a fate.
    for (const p of emptyBefore) {
      for (const id of p.messageIds) {
        const fate = result.fates[id]
        if (fate?.kind !== 'summarized')
          expect(fate).toEqual({ kind: 'dropped', stage: 'pipeline', reason: EMPTY_MESSAGE_REASON })
        expect(result.after.messages.some((m) => m.id === id)).toBe(false)
      }
    }
    expect(result.checks.after).toEqual([])
  })

  it('34 (no-op): when nothing fires, even empty messages pass through untouched (cases/09)', async () => {
    const c = loadCase('34-no-empty-messages.json')
    const t = importCase(c)
    const result = await run(t, pipeline(pruneStage(1_000_000, 1, 1)))
    expect(result.stages[0]?.changed).toBe(false)
    expect(result.after.messages).toEqual(t.messages)
  })
})

describe('fault case 48: insert-then-compress reuses the exact request', () => {
  it('request = existing request + one user instruction; rebuilt = system + summary + last user turn', async () => {
    const c = loadCase('48-insert-then-compress-prefix.json')
    const t = importCase(c)
    expect(t.tools).toHaveLength(2)
    const m = mock(
      '<summary>Retry helper ported to httpx in net/retry.py; tests requested.</summary>',
    )
    const result = await run(
      t,
      pipeline({
        id: 'insert-then-compress',
        enabled: true,
        params: { threshold_tokens: 0, keep_recent: c.params.keep_last as number },
      }),
      m.fn,
    )
    expect(m.requests).toHaveLength(1)
    // The same message objects, in order: serialized, the prefix is byte-identical.
    const conversation = m.requests[0]?.conversation ?? []
    expect(conversation).toHaveLength(t.messages.length)
    t.messages.forEach((x, i) => expect(conversation[i]).toBe(x))
    expect(m.requests[0]?.prompt).toBe(COMPRESSION_INSTRUCTION)
    expect(ids(result.after.messages)).toEqual(['m0', COMPRESSED_SUMMARY_ID, 'm7'])
    expect(result.after.messages.some((x) => x.content === COMPRESSION_INSTRUCTION)).toBe(false)
    expect(result.passes[0]?.prompt).toContain(COMPRESSION_INSTRUCTION)
    expect(providerOf(t.format)).toBe('openai')
    expect(result.checks.after).toEqual([])
  })
})

describe('fault cases: pinned facts (16, 17, 19, 20; pins: auto)', () => {
  const pinStage: StageConfig = { id: 'pin-facts', enabled: true, params: { max_facts: 40 } }
  const pinned = (r: RunResult) => r.after.messages.find((m) => m.id === PINNED_FACTS_ID)
  const pinnedText = (r: RunResult) => String(pinned(r)?.content ?? '')

  /**
   * Runs the case with summarize + pin-facts. These cases are short: the pinned block costs more
   * than the summary saves, and the compaction never grows the context (seed 001), so the
   * pipeline undoes it and every message, facts included, stays verbatim. What the block would
   * carry is then checked on the stage itself, over summarize's own result (`result`: that run
   * with the block placed, as the pipeline places it when it fits).
   */
  async function runPins(c: FaultCase, summarizer: Summarizer, keep?: number, after?: number) {
    const t = importCase(c)
    const summarizeOnly = summarizeStage(keep ?? (c.params.keep_last as number), after ?? (c.params.compact_after as number))
    const full = await run(t, pipeline(summarizeOnly, pinStage), summarizer)
    expect(full.after.totals.tokens).toBeLessThanOrEqual(full.before.totals.tokens)
    const summarized = await run(t, pipeline(summarizeOnly), summarizer)
    let result = summarized
    if (full.after.messages.some((m) => m.id === PINNED_FACTS_ID)) result = full
    else {
      const counter = await loadCounter('o200k_base')
      const count = (m: Message) => countMessageTokens(m, counter.count)
      const stage = pinFacts(summarized.after.messages, { original: t.messages }, {
        countMessage: count,
        countText: counter.count,
        summarize: () => Promise.reject(new Error('not called')),
      })
      if (stage.changed) {
        const block = stage.messages.find((m) => m.id === PINNED_FACTS_ID) as Message
        // Undone: the Before is kept as it was, and the note gives the figures.
        expect(full.after.messages).toEqual(t.messages)
        expect(full.stages[1]?.note).toBe(
          `the pinned block (${count(block)} tokens) would make the context larger than before (${full.before.totals.tokens} → ${summarized.after.totals.tokens + count(block)} tokens); the compaction was undone, every message stays verbatim`,
        )
        const messages = stage.messages.map((m, index) => ({ ...m, index }))
        result = { ...summarized, after: { ...summarized.after, messages }, origins: { ...summarized.origins } }
        result.origins[PINNED_FACTS_ID] = stage.origins[PINNED_FACTS_ID]!
        result.checks = { ...summarized.checks, failureModes: checkFailureModes(result) }
      }
    }
    expect(checkValidity(result.after.messages, { provider: providerOf(t.format) })).toEqual([])
    const at = result.after.messages.findIndex((m) => m.id === PINNED_FACTS_ID)
    if (at !== -1) {
      expect(result.after.messages[at - 1]?.id.startsWith('summary:summarize:')).toBe(true)
      expect(result.origins[PINNED_FACTS_ID]?.kind).toBe('pinned-facts')
      expect(pinnedText(result).startsWith(PINNED_HEADER)).toBe(true)
    }
    return { t, result }
  }

  it('16: both standing rules are verbatim in the pinned block, whatever the summary keeps', async () => {
    const c = loadCase('16-standing-rules-survive.json')
    const rules = [
      'never push directly to main, always open a branch named fix/<topic>',
      'every commit subject starts with the ticket id CACHE-58',
    ]
    for (const summarizer of [extractiveSummarizer, mock(SHORT).fn]) {
      const { result } = await runPins(c, summarizer)
      // The rules message (m1) was summarized; the pinned block carries it word for word.
      expect(result.fates.m1?.kind).toBe('summarized')
      for (const rule of rules) expect(pinnedText(result)).toContain(rule)
      expect(result.checks.failureModes?.filter((w) => w.rule === 'over-compression')).toEqual([])
    }
    // The kind: whenever m1 is folded into a summary that drops the rules, the pins keep them.
    for (let keep = 1; keep <= 6; keep++) {
      for (let after = 1; after <= 6; after++) {
        const { result } = await runPins(c, mock(SHORT).fn, keep, after)
        if (result.fates.m1?.kind !== 'summarized') continue
        for (const rule of rules) expect(pinnedText(result)).toContain(rule)
      }
    }
  })

  it('16 without pins: the lost rules are an over-compression warning naming m1 and the summary', async () => {
    const t = importCase(loadCase('16-standing-rules-survive.json'))
    const result = await run(t, pipeline(summarizeStage(1, 4)), mock(SHORT).fn)
    // The lost rules' warning (the important facts lost are a warning of their own).
    const warnings = result.checks.failureModes?.filter((w) => w.rule === 'over-compression' && w.message.startsWith('the instruction'))
    expect(warnings).toHaveLength(1)
    expect(warnings?.[0]?.messageIds).toEqual(['m1', 'summary:summarize:1'])
  })

  it('17: the current goal is the latest request; the --dry-run work is recorded as done', async () => {
    const c = loadCase('17-current-goal-is-latest-request.json')
    for (const summarizer of [extractiveSummarizer, mock(SHORT).fn]) {
      const { result } = await runPins(c, summarizer)
      const text = pinnedText(result)
      expect(text).toContain('Current request: Now make the progress bar show an ETA.')
      // The goal is marked done by #4's report, which rides with it as its evidence.
      expect(text).toContain(
        'Original goal: Add a --dry-run flag to the sync command. — done: "Done: --dry-run added in cmd/sync.go and covered by a test." (#4)',
      )
      expect(text).not.toContain('Open items:')
      // The current request comes first: a resumed agent reads it as the task.
      expect(text.indexOf('Current request:')).toBeLessThan(text.indexOf('Original goal:'))
      // The kept tail keeps call_d2 with its result.
      const tail = result.after.messages.slice(-2)
      expect(tail[0]?.toolCalls?.[0]?.id).toBe('call_d2')
      expect(tail[1]?.toolCallId).toBe('call_d2')
      expect(result.checks.failureModes?.filter((w) => w.rule === 'goal-drift')).toEqual([])
    }
  })

  it('19: the in-flight job id, its status and its output path are pinned', async () => {
    const c = loadCase('19-in-flight-ids-pinned.json')
    for (const summarizer of [extractiveSummarizer, mock(SHORT).fn]) {
      const { result } = await runPins(c, summarizer)
      expect(pinnedText(result)).toContain(
        '- {"job_id": "job-4821", "status": "running", "output": "reports/q3.csv"}',
      )
      expect(result.origins[PINNED_FACTS_ID]).toMatchObject({ sourceIds: expect.arrayContaining(['m3']) })
    }
  })

  it('20: the old summary is folded, not nested; Ilse and chapter 7 survive verbatim in the pins', async () => {
    const c = loadCase('20-flatten-nested-summaries.json')
    for (const summarizer of [extractiveSummarizer, mock(SHORT).fn]) {
      const { t, result } = await runPins(c, summarizer)
      const text = pinnedText(result)
      expect(text).toContain('Ilse')
      expect(text).toContain('chapter 7')
      const summary = result.after.messages.find((m) => m.id === 'summary:summarize:1')
      const summaryText = String(summary?.content ?? '')
      expect(summaryText).not.toContain('Earlier summary >>')
      // Bounded: the new summary block is not bigger than the old one plus its header line.
      const counter = await loadCounter('o200k_base')
      const old = t.messages[1] as Message
      expect(counter.count(summaryText)).toBeLessThanOrEqual(counter.count(String(old.content)) + 32)
      // The old summary is never read as the goal.
      expect(text).not.toContain('Goal: [summary]')
    }
  })
})
