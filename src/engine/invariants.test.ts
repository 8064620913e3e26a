/**
 * Invariants of a whole run over random conversations that hold empty messages anywhere:
 * nothing is removed when nothing fired (no stage reports a change and no pass was made: the
 * After is the Before, message for message), a context that compaction changed is not made
 * to start with an assistant message by the send-ready cleanup, and tokens never go up where a
 * stage promises it (a pass of seed 001 that grows the context says so, and why).
 */
import fc from 'fast-check'
import { beforeAll, describe, expect, it } from 'vitest'
import { checkValidity } from './analysis/checks'
import type { Message, PipelineConfig, StageConfig, StageId, Transcript } from './model'
import { runPipeline } from './pipeline'
import { summarize } from './stages/summarize'
import { assistant, countWords, deepFreeze, indexed, makeContext, system, toolResult, user } from './stages/test-helpers'
import { describeDecision } from './stages/triggers'
import { loadCounter, type CachedCounter } from './tokens/count'

let counter: CachedCounter
beforeAll(async () => {
  counter = await loadCounter('o200k_base')
})

/** One message of a generated conversation; `empty` ones have no text in one of the ways importers give it. */
type Piece =
  | { kind: 'user'; text: number }
  | { kind: 'reply'; text: number }
  | { kind: 'step'; body: number; text: boolean }
  | { kind: 'empty'; role: 'user' | 'assistant'; shape: 0 | 1 | 2 | 3 }

const TEXTS = ['Fix order ORD-58213 for 94107.', 'Done. TODO: cover zone 9.', 'ok', 'See /etc/app/config.yaml']
const BODIES = ['ok', '', 'row of items\n'.repeat(60), 'build log line\n'.repeat(30)]

const pieceArb: fc.Arbitrary<Piece> = fc.oneof(
  fc.record({ kind: fc.constant('user' as const), text: fc.nat(TEXTS.length - 1) }),
  fc.record({ kind: fc.constant('reply' as const), text: fc.nat(TEXTS.length - 1) }),
  fc.record({ kind: fc.constant('step' as const), body: fc.nat(BODIES.length - 1), text: fc.boolean() }),
  fc.record({
    kind: fc.constant('empty' as const),
    role: fc.constantFrom('user' as const, 'assistant' as const),
    shape: fc.constantFrom(0 as const, 1 as const, 2 as const, 3 as const),
  }),
)

/** Empty content as importers write it: '', null, [] and a part list of one empty text block. */
function emptyContent(shape: 0 | 1 | 2 | 3): Message['content'] {
  return shape === 0 ? '' : shape === 1 ? null : shape === 2 ? [] : [{ type: 'text', text: '' }]
}

/** `unique`: every tool output differs (a first line naming its call), so dedupe has no repeat to replace. */
function build(pieces: readonly Piece[], withSystem: boolean, unique = false): Message[] {
  const out: Message[] = []
  let call = 0
  if (withSystem) out.push(system('s', 'You are a coding agent.'))
  for (const p of pieces) {
    const id = `m${out.length}`
    if (p.kind === 'user') out.push(user(id, TEXTS[p.text]!))
    else if (p.kind === 'reply') out.push(assistant(id, TEXTS[p.text]!))
    else if (p.kind === 'empty') {
      const m = p.role === 'user' ? user(id, '') : assistant(id, '')
      m.content = emptyContent(p.shape)
      out.push(m)
    } else {
      const c = `c${call++}`
      out.push(assistant(id, p.text ? 'Let me look.' : null, [{ id: c, name: 'read', arguments: '{"path":"a.py"}' }]))
      const body = BODIES[p.body]!
      out.push(toolResult(`m${out.length}`, c, unique && body.length > 2 ? `${c}\n${body}` : body, 'read'))
    }
  }
  return indexed(out)
}

const NEVER = 1_000_000_000
/** Params with which no stage can change anything (thresholds out of reach, tails longer than any chat). */
const QUIET: Record<StageId, Record<string, unknown>> = {
  dedupe: {},
  slim: { keep: 50 },
  'prune-tool-results': { target: NEVER, keep_steps: 1, min_tokens: 200 },
  summarize: { keep_last: 10_000, compact_after: 10_000 },
  'insert-then-compress': { threshold_tokens: NEVER, keep_recent: 10 },
  'pin-facts': { max_facts: 40 },
}
/** Params that may fire, or reach a trigger and hold (prune over a target with nothing to prune). */
const paramsArb: Record<StageId, fc.Arbitrary<Record<string, unknown>>> = {
  dedupe: fc.constant({}),
  slim: fc.record({ keep: fc.integer({ min: 1, max: 6 }) }),
  'prune-tool-results': fc.record({
    target: fc.integer({ min: 0, max: 2000 }),
    keep_steps: fc.integer({ min: 1, max: 3 }),
    min_tokens: fc.integer({ min: 0, max: 300 }),
  }),
  summarize: fc.record({ keep_last: fc.integer({ min: 1, max: 6 }), compact_after: fc.integer({ min: 1, max: 6 }) }),
  'insert-then-compress': fc.record({
    threshold_tokens: fc.integer({ min: 0, max: 2000 }),
    keep_recent: fc.integer({ min: 0, max: 6 }),
  }),
  'pin-facts': fc.record({ max_facts: fc.integer({ min: 1, max: 40 }) }),
}
const STAGES = Object.keys(QUIET) as StageId[]

const stagesArb = (quiet: boolean): fc.Arbitrary<StageConfig[]> =>
  fc
    .shuffledSubarray(STAGES, { minLength: 1 })
    .chain((ids) =>
      fc.tuple(
        ...ids.map((id) =>
          (quiet ? fc.constant(QUIET[id]) : paramsArb[id]).map((params) => ({ id, enabled: true, params }) as StageConfig),
        ),
      ),
    )

function transcriptOf(messages: Message[], format: Transcript['format'] = 'openai-chat'): Transcript {
  return deepFreeze({ format, messages, recordedCompactions: [], warnings: [] })
}
const configOf = (stages: StageConfig[]): PipelineConfig => ({ encoding: 'o200k_base', summarizer: 'extractive', stages })
const conversationArb = fc.array(pieceArb, { minLength: 1, maxLength: 12 })

describe('nothing is removed when nothing fired', () => {
  it('every stage with params that cannot fire: no change, and the After is the Before', async () => {
    await fc.assert(
      fc.asyncProperty(conversationArb, fc.boolean(), stagesArb(true), async (pieces, withSystem, stages) => {
        const transcript = transcriptOf(build(pieces, withSystem, true))
        const result = await runPipeline(transcript, configOf(stages), { counter, skipChecks: true })
        expect(result.stages.map((s) => s.changed)).toEqual(stages.map(() => false))
        expect(result.passes).toEqual([])
        expect(result.after.messages).toEqual(transcript.messages)
        expect(result.cleanup).toBeUndefined()
      }),
      { numRuns: 100 },
    )
  }, 60_000)

  it('any params: when no stage changed anything and no pass was made, the After is the Before', async () => {
    await fc.assert(
      fc.asyncProperty(conversationArb, fc.boolean(), stagesArb(false), async (pieces, withSystem, stages) => {
        const transcript = transcriptOf(build(pieces, withSystem))
        const result = await runPipeline(transcript, configOf(stages), { counter, skipChecks: true })
        if (result.stages.some((s) => s.changed) || result.passes.length > 0) return
        expect(result.after.messages).toEqual(transcript.messages)
        for (const m of transcript.messages) expect(result.fates[m.id]).toEqual({ kind: 'kept', changed: false })
      }),
      { numRuns: 150 },
    )
  }, 60_000)

  it('an empty first message over prune’s target with nothing to prune stays, and nothing is reported dropped', async () => {
    const messages = indexed([
      user('u0', ''),
      assistant('a1', 'hi there'),
      user('u2', 'next'),
      assistant('a3', 'ok'),
    ])
    const result = await runPipeline(
      transcriptOf(messages, 'anthropic-messages'),
      configOf([{ id: 'prune-tool-results', enabled: true, params: { target: 5, keep_steps: 1, min_tokens: 200 } }]),
      { counter },
    )
    expect(result.stages.map((s) => s.changed)).toEqual([false])
    expect(result.after.messages.map((m) => m.id)).toEqual(['u0', 'a1', 'u2', 'a3'])
    expect(result.fates.u0).toEqual({ kind: 'kept', changed: false })
    expect(result.warnings).toEqual([])
    // The After has the Before's problems and no new one.
    expect(result.checks.after.map((p) => p.rule)).toEqual(result.checks.before.map((p) => p.rule))
  })
})

describe('the send-ready cleanup after a change never makes a context start with an assistant message', () => {
  it('an empty first user message stays when dropping it would leave an assistant message first (Anthropic)', async () => {
    const messages = indexed([
      system('s', 'You are a coding agent.'),
      user('u0', ''),
      assistant('a1', null, [{ id: 'c1', name: 'read' }]),
      toolResult('t2', 'c1', 'row of items\n'.repeat(80), 'read'),
      assistant('a3', null, [{ id: 'c2', name: 'read' }]),
      toolResult('t4', 'c2', 'ok', 'read'),
      assistant('a5', ''),
      assistant('a6', 'Done.'),
    ])
    const result = await runPipeline(
      transcriptOf(messages, 'anthropic-messages'),
      configOf([{ id: 'prune-tool-results', enabled: true, params: { target: 0, keep_steps: 1, min_tokens: 10 } }]),
      { counter },
    )
    // Prune replaced t2, so the context is made send-ready: the empty a5 goes, the empty u0 stays.
    expect(result.stages.map((s) => s.changed)).toEqual([true])
    expect(result.after.messages.map((m) => m.id)).toEqual(['s', 'u0', 'a1', 't2', 'a3', 't4', 'a6'])
    expect(result.fates.u0).toEqual({ kind: 'kept', changed: false })
    expect(result.fates.a5?.kind).toBe('dropped')
    const rules = (ms: readonly Message[]) => checkValidity(ms, { provider: 'anthropic' }).map((p) => p.rule)
    expect(rules(result.after.messages)).not.toContain('first-not-user')
  })

  it('over random conversations: the cleanup never creates a first-not-user problem', async () => {
    await fc.assert(
      fc.asyncProperty(conversationArb, fc.boolean(), stagesArb(false), async (pieces, withSystem, generated) => {
        // insert-then-compress's summary as a user turn, as for Anthropic-shaped transcripts
        // (its default, an assistant summary first, is the stage's choice, not the cleanup's).
        const stages = generated.map((s) =>
          s.id === 'insert-then-compress' ? ({ ...s, params: { ...s.params, summary_role: 'user' } } as StageConfig) : s,
        )
        const transcript = transcriptOf(build(pieces, withSystem), 'anthropic-messages')
        const result = await runPipeline(transcript, configOf(stages), { counter, skipChecks: true })
        const firstNotUser = (ms: readonly Message[]) =>
          checkValidity(ms, { provider: 'anthropic' }).some((p) => p.rule === 'first-not-user')
        if (!firstNotUser(transcript.messages)) expect(firstNotUser(result.after.messages)).toBe(false)
      }),
      { numRuns: 150 },
    )
  }, 60_000)
})

describe('a pass that grows the context says so, and why', () => {
  // One token per word, no per-message overhead: the figures below are word counts.
  const ctx = makeContext(countWords, { summarize: () => Promise.resolve('alpha beta') })
  const chat = indexed([user('u0', 'hi there'), assistant('a1', 'ok'), user('u2', 'more'), assistant('a3', 'done')])

  it('seed 001 makes the pass; its decision and its pass name the growth and the guard that refuses it', async () => {
    const out = await summarize(chat, { keep_last: 1, compact_after: 1 }, ctx)
    // Turn 1 ends at #1 with 2 unsummarized messages (> 1): the slice is u0 (2 words). The summary
    // message is the header `[Summary of messages 0–0 (pass 1)]` (6 words) + `alpha beta` (2): 8.
    // Context before: 2 + 1 = 3; after: 8 + a1's 1 = 9.
    const grew = 'the summary (8 tokens) is larger than the 2 tokens it replaced; seed 001 makes every pass its plan makes (refuse_larger refuses such a pass)'
    expect(out.passes[0]).toMatchObject({ pass: 1, tokensBefore: 3, tokensAfter: 9, grew })
    const fired = out.decisions!.find((d) => d.pass === 1)!
    expect(fired.grew).toBe(grew)
    expect(describeDecision(fired)).toBe(
      `turn 1 (#1): 2 unsummarized messages > 1 (compact_after 1) → pass 1 fired (3 → 9 tokens, +6: ${grew})`,
    )
    // Pass 2 folds pass 1's summary (8) and a1, u2 (2) into 8 tokens: it shrinks, nothing to say.
    expect(out.passes[1]).toMatchObject({ pass: 2, tokensBefore: 11, tokensAfter: 9 })
    expect(out.passes[1]?.grew).toBeUndefined()
    expect(describeDecision(out.decisions!.find((d) => d.pass === 2)!)).toBe(
      'turn 2 (#3): 3 unsummarized messages > 1 (compact_after 1) → pass 2 fired (11 → 9 tokens)',
    )
  })

  it('with refuse_larger the pass is refused instead', async () => {
    const out = await summarize(chat, { keep_last: 1, compact_after: 1, refuse_larger: true }, ctx)
    expect(out.decisions![0]).toMatchObject({ fired: false, held: 'refuse_larger guard: the summary (8 tokens) is not smaller than the 2 tokens it would replace' })
  })

  it('over random runs: tokens never go up where a stage promises it, and every growing pass says why', async () => {
    await fc.assert(
      fc.asyncProperty(conversationArb, fc.boolean(), stagesArb(false), async (pieces, withSystem, stages) => {
        const transcript = transcriptOf(build(pieces, withSystem))
        const result = await runPipeline(transcript, configOf(stages), { counter, skipChecks: true })
        // The whole run never grows (seed 001); dedupe, slim and prune never grow what they edit.
        expect(result.after.totals.tokens).toBeLessThanOrEqual(result.before.totals.tokens)
        for (const s of result.stages)
          if (s.stage !== 'pin-facts') expect(s.tokensAfter).toBeLessThanOrEqual(s.tokensBefore)
        for (const p of result.passes) expect(p.grew !== undefined).toBe(p.tokensAfter > p.tokensBefore)
        for (const d of result.decisions ?? []) {
          if (!d.fired || d.tokensAfter === undefined) continue
          expect(d.grew !== undefined).toBe(d.tokensAfter > d.tokens)
          if (d.grew !== undefined) expect(describeDecision(d)).toContain(d.grew)
        }
      }),
      { numRuns: 150 },
    )
  }, 60_000)
})
