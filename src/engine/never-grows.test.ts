/**
 * Compaction never grows the context it exists to shrink (seed 001): over random small chats and
 * random stage lists, After tokens ≤ Before tokens, and a run where nothing fired leaves the
 * context as it was. Plus the refusal of a pinned block that costs more than the compaction
 * saved, with its note.
 */
import fc from 'fast-check'
import { beforeAll, describe, expect, it } from 'vitest'
import type { Message, PipelineConfig, StageConfig, StageId, Transcript } from './model'
import { EMPTY_MESSAGE_REASON, runPipeline } from './pipeline'
import { PINNED_FACTS_ID, pinFacts } from './stages/pin-facts'
import { assistant, deepFreeze, indexed, system, toolResult, user } from './stages/test-helpers'
import { countMessageTokens, loadCounter, type CachedCounter } from './tokens/count'

let counter: CachedCounter
beforeAll(async () => {
  counter = await loadCounter('o200k_base')
})

/** User lines with facts (order numbers, postal codes, paths, URLs, e-mails, dates, rules). */
const USER_LINES = [
  'Please fix order ORD-58213 for 94107.',
  "Don't change quote_for() in src/quote/api.py",
  'Ship to alice@example.com by 2024-05-03, budget $1,250.',
  'See https://example.com/tickets/4411 and /etc/app/config.yaml',
  'ok',
  'Now add a test.',
]
const ASSISTANT_LINES = [
  'Fixed the zone lookup. TODO: cover zone 9.',
  'Done. I will deploy after review.',
  'Working on it.',
  'Sure.',
]
/** Tool bodies: repeats (dedupe), long ones (prune), tiny ones (placeholders would grow them). */
const TOOL_BODIES = [
  'catalog page 1\n' + 'row of items\n'.repeat(40),
  'def rate(zone): reads data/zones.csv',
  'build log line\n'.repeat(30),
  'ok',
  'job 7 status: running',
  'x'.repeat(300),
]
const STAGES: readonly StageId[] = ['dedupe', 'slim', 'prune-tool-results', 'summarize', 'insert-then-compress', 'pin-facts']

interface TurnSpec {
  user: number
  steps: { body: number; text: boolean }[]
  reply: number | null
}

const turnArb: fc.Arbitrary<TurnSpec> = fc.record({
  user: fc.nat(USER_LINES.length - 1),
  steps: fc.array(fc.record({ body: fc.nat(TOOL_BODIES.length - 1), text: fc.boolean() }), { maxLength: 2 }),
  reply: fc.option(fc.nat(ASSISTANT_LINES.length - 1), { nil: null }),
})

/** A valid chat: system prompt, then turns of a request, tool steps (call + result) and a reply. */
function build(turns: TurnSpec[], withSystem: boolean): Message[] {
  const out: Message[] = []
  let call = 0
  if (withSystem) out.push(system('s', 'You are a coding agent.'))
  turns.forEach((t) => {
    out.push(user(`m${out.length}`, USER_LINES[t.user]!))
    for (const step of t.steps) {
      const id = `c${call++}`
      out.push(assistant(`m${out.length}`, step.text ? 'Let me look.' : null, [{ id, name: 'read', arguments: '{"path":"src/a.py"}' }]))
      out.push(toolResult(`m${out.length}`, id, TOOL_BODIES[step.body]!, 'read'))
    }
    if (t.reply !== null) out.push(assistant(`m${out.length}`, ASSISTANT_LINES[t.reply]!))
  })
  return indexed(out)
}

const small = fc.integer({ min: 1, max: 6 })
const paramsArb: Record<StageId, fc.Arbitrary<Record<string, unknown>>> = {
  dedupe: fc.constant({}),
  slim: fc.record({ keep: small }),
  'prune-tool-results': fc.record({
    target: fc.integer({ min: 0, max: 3000 }),
    keep_steps: fc.integer({ min: 1, max: 3 }),
    min_tokens: fc.integer({ min: 0, max: 300 }),
  }),
  summarize: fc.record({ keep_last: small, compact_after: small }),
  'insert-then-compress': fc.record({
    threshold_tokens: fc.integer({ min: 0, max: 2000 }),
    keep_recent: fc.integer({ min: 0, max: 6 }),
  }),
  'pin-facts': fc.record({ max_facts: fc.integer({ min: 1, max: 40 }) }),
}

const withParams = (ids: StageId[]): fc.Arbitrary<StageConfig[]> =>
  fc.tuple(...ids.map((id) => paramsArb[id].map((params): StageConfig => ({ id, enabled: true, params }) as StageConfig)))

/**
 * A random order of a random subset of the six stages (each at most once), with random params;
 * half of the time `summarize` then `pin-facts` (the pair whose block may cost more than the
 * summary saved) after a random subset of the others.
 */
const stagesArb: fc.Arbitrary<StageConfig[]> = fc.oneof(
  fc.shuffledSubarray([...STAGES], { minLength: 1 }).chain(withParams),
  fc
    .shuffledSubarray(['dedupe', 'slim', 'prune-tool-results'] as StageId[])
    .chain((ids) => withParams([...ids, 'summarize', 'pin-facts'])),
)

function transcriptOf(messages: Message[]): Transcript {
  return deepFreeze({ format: 'openai-chat', messages, recordedCompactions: [], warnings: [] })
}

function configOf(stages: StageConfig[]): PipelineConfig {
  return { encoding: 'o200k_base', summarizer: 'extractive', stages }
}

describe('the compaction never grows the context (seed 001)', () => {
  it('After tokens ≤ Before tokens; nothing fired → the Before messages unchanged', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(turnArb, { minLength: 1, maxLength: 8 }),
        fc.boolean(),
        stagesArb,
        async (turns, withSystem, stages) => {
          const transcript = transcriptOf(build(turns, withSystem))
          const result = await runPipeline(transcript, configOf(stages), { counter, skipChecks: true })
          expect(result.after.totals.tokens).toBeLessThanOrEqual(result.before.totals.tokens)
          for (const s of result.stages) {
            if (s.stage !== 'pin-facts') expect(s.tokensAfter).toBeLessThanOrEqual(s.tokensBefore)
          }
          if (!result.stages.some((s) => s.changed)) {
            // The generator writes no empty message, so the send-ready cleanup drops nothing.
            expect(result.passes).toEqual([])
            expect(result.after.messages).toEqual(transcript.messages)
          }
        },
      ),
      { numRuns: 150 },
    )
  }, 60_000)

  it('the send-ready cleanup only drops empty messages (never adds tokens)', async () => {
    // An empty user message in a chat whose long tool result prune replaces: it goes too.
    const messages = indexed([
      user('u0', 'Fix ORD-58213.'),
      user('u1', ''),
      assistant('a2', null, [{ id: 'c1', name: 'read' }]),
      toolResult('t3', 'c1', TOOL_BODIES[0]!, 'read'),
      assistant('a4', null, [{ id: 'c2', name: 'read' }]),
      toolResult('t5', 'c2', 'ok', 'read'),
      assistant('a6', 'Done.'),
    ])
    const result = await runPipeline(
      transcriptOf(messages),
      configOf([{ id: 'prune-tool-results', enabled: true, params: { target: 1, keep_steps: 1, min_tokens: 50 } }]),
      { counter, skipChecks: true },
    )
    expect(result.stages.map((s) => s.changed)).toEqual([true])
    expect(result.after.messages.map((m) => m.id)).toEqual(['u0', 'a2', 't3', 'a4', 't5', 'a6'])
    expect(result.fates.u1).toEqual({ kind: 'dropped', stage: 'pipeline', reason: EMPTY_MESSAGE_REASON })
    expect(result.after.totals.tokens).toBeLessThan(result.before.totals.tokens)
  })
})

describe('a pinned block that would make the context larger than the Before is refused', () => {
  // Four turns with facts in every request; summarize (keep_last 2, compact_after 2) folds the
  // first three turns into an extractive summary shorter than them (a5's long reply holds
  // nothing it keeps) and pin-facts would pin all their facts.
  const messages = deepFreeze(
    indexed([
      user('u0', 'Fix order ORD-58213 for 94107, ship to alice@example.com by 2024-05-03.'),
      assistant('a1', 'Fixed the zone lookup. TODO: cover zone 9.'),
      user('u2', 'See https://example.com/tickets/4411 and /etc/app/config.yaml, budget $1,250.'),
      assistant('a3', 'Done. I will deploy after review.'),
      user('u4', "Don't change quote_for() in src/quote/api.py. Order ORD-77120 too."),
      assistant(
        'a5',
        'Sure. That will take a little while, because the whole module has to be read again from the top and every caller checked.',
      ),
      user('u6', 'Now add a test.'),
      assistant('a7', 'Added.'),
    ]),
  )
  const summarizeOnly: StageConfig = { id: 'summarize', enabled: true, params: { keep_last: 2, compact_after: 2 } }
  const pin: StageConfig = { id: 'pin-facts', enabled: true, params: { max_facts: 40 } }
  const stageContext = () => ({
    countMessage: (m: Message) => countMessageTokens(m, counter.count),
    countText: counter.count,
    summarize: () => Promise.reject(new Error('not called')),
  })

  it('after summarize: the compaction is undone (the facts stay verbatim), the note gives the figures', async () => {
    const transcript = transcriptOf(messages)
    const alone = await runPipeline(transcript, configOf([summarizeOnly]), { counter, skipChecks: true })
    // The block pin-facts writes on that context, counted with the same counter.
    const pinned = pinFacts(alone.after.messages, { max_facts: 40, original: messages }, stageContext())
    const block = pinned.messages.find((m) => m.id === PINNED_FACTS_ID)!
    const blockTokens = countMessageTokens(block, counter.count)
    const before = alone.before.totals.tokens
    const summarized = alone.after.totals.tokens
    const withBlock = summarized + blockTokens
    // The premise of the test: summarize saved less than the block costs.
    expect(summarized).toBeLessThan(before)
    expect(withBlock).toBeGreaterThan(before)

    const result = await runPipeline(transcript, configOf([summarizeOnly, pin]), { counter, skipChecks: true })
    const note = `the pinned block (${blockTokens} tokens) would make the context larger than before (${before} → ${withBlock} tokens); the compaction was undone, every message stays verbatim`
    expect(result.stages).toEqual([
      {
        stage: 'summarize',
        changed: false,
        note: `undone (${before} → ${summarized} tokens): the pinned block would cost more than the compaction saved`,
        tokensBefore: before,
        tokensAfter: before,
        messagesBefore: 8,
        messagesAfter: 8,
      },
      { stage: 'pin-facts', changed: false, note, tokensBefore: summarized, tokensAfter: summarized, messagesBefore: 3, messagesAfter: 3 },
    ])
    expect(result.warnings).toEqual([`pin-facts: ${note}`])
    expect(result.after.messages).toEqual(transcript.messages)
    expect(result.after.totals.tokens).toBe(before)
    expect(result.passes).toEqual([])
    expect(Object.values(result.fates).every((f) => f.kind === 'kept' && !f.changed)).toBe(true)
    expect(Object.keys(result.origins)).toEqual(messages.map((m) => m.id))
  })

  it('the undone pass is marked in the decision log, and a later run reusing the kept summarize output still has it fired', async () => {
    // One transcript object for all three runs: the later ones reuse the kept stage outputs.
    const transcript = transcriptOf(messages)
    const fired = (r: { decisions?: readonly { stage: string; fired: boolean }[] }) =>
      (r.decisions ?? []).filter((d) => d.stage === 'summarize' && d.fired).length
    const first = await runPipeline(transcript, configOf([summarizeOnly]), { counter, skipChecks: true })
    expect(first.passes.length).toBeGreaterThan(0)
    expect(fired(first)).toBe(first.passes.length)
    const undone = await runPipeline(transcript, configOf([summarizeOnly, pin]), { counter, skipChecks: true })
    const marked = (undone.decisions ?? []).filter((d) => d.stage === 'summarize' && d.held?.startsWith('the pipeline left the change out'))
    expect(marked.length).toBe(first.passes.length)
    expect(fired(undone)).toBe(0)
    for (const d of marked) expect(d).not.toHaveProperty('pass')
    // Marking copied the decisions: the kept output (and the first run's log) still say fired.
    const again = await runPipeline(transcript, configOf([summarizeOnly]), { counter, skipChecks: true })
    expect(fired(again)).toBe(first.passes.length)
    expect(fired(first)).toBe(first.passes.length)
  })

  it('with nothing compacted before it (a pasted summary turn): the block alone is left out', async () => {
    // The transcript opens with an agent's earlier summary whose facts pin-facts copies out.
    const pasted = deepFreeze(
      indexed([
        user('s0', '[summary] Order ORD-58213 for 94107; ship to alice@example.com by 2024-05-03.'),
        user('u1', 'Now add a test.'),
        assistant('a2', 'Added.'),
      ]),
    )
    const transcript = transcriptOf(pasted)
    const pinned = pinFacts(pasted, { max_facts: 40, original: pasted }, stageContext())
    expect(pinned.changed).toBe(true)
    const block = pinned.messages.find((m) => m.id === PINNED_FACTS_ID)!
    const blockTokens = countMessageTokens(block, counter.count)
    const result = await runPipeline(transcript, configOf([pin]), { counter, skipChecks: true })
    const before = result.before.totals.tokens
    const note = `the pinned block (${blockTokens} tokens) would make the context larger than before (${before} → ${before + blockTokens} tokens); left out`
    expect(result.stages[0]).toMatchObject({ stage: 'pin-facts', changed: false, note })
    expect(result.warnings).toEqual([`pin-facts: ${note}`])
    expect(result.after.messages).toEqual(transcript.messages)
  })

  it('keeps the block when the compaction saved more than it costs', async () => {
    // The same chat with a long tool result in the first turn: summarizing it saves far more.
    const big = deepFreeze(
      indexed([
        messages[0]!,
        assistant('c', null, [{ id: 'c1', name: 'read', arguments: '{"path":"src/a.py"}' }]),
        toolResult('t', 'c1', 'row of the catalog\n'.repeat(200), 'read'),
        ...messages.slice(1),
      ]),
    )
    const result = await runPipeline(transcriptOf(big), configOf([summarizeOnly, pin]), { counter, skipChecks: true })
    expect(result.stages.map((s) => s.changed)).toEqual([true, true])
    expect(result.after.messages.some((m) => m.id === PINNED_FACTS_ID)).toBe(true)
    expect(result.after.totals.tokens).toBeLessThanOrEqual(result.before.totals.tokens)
  })
})
