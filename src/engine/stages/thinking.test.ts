/**
 * Anthropic's thinking-block rules hold for every stage, applied once by the pipeline
 * (thinking.ts `withThinkingRules` with the run's Before): a signed block of an earlier turn that
 * follows the first message a compaction changed is dropped whole; the current turn's blocks
 * (after the latest user message) and blocks before the first change stay byte-identical; the
 * checker, given the Before, reports a block kept where it must go (`stale-thinking`).
 * Expectations are worked out by hand from the transcript below and the rules in thinking.ts
 * (cases/31, cases/32).
 */
import { describe, expect, it } from 'vitest'
import { checkValidity } from '../analysis/checks'
import type { Message, Part, PipelineConfig, StageConfig, Transcript } from '../model'
import { runPipeline } from '../pipeline'
import { cacheCounter } from '../tokens/count'
import { assistant, countCodePoints, deepFreeze, indexed, toolResult, user } from './test-helpers'
import { firstChangedPosition, STALE_THINKING_REASON, staleThinkingPositions } from './thinking'

const signed = (text: string): Part => ({ type: 'thinking', variant: 'thinking', text, signature: `sig-${text}` })
const withParts = (m: Message, parts: Part[]): Message => ({ ...m, content: parts })
const ids = (ms: readonly Message[]) => ms.map((m) => m.id)

/**
 * A JSON list of 40 items (slim keeps 5; dedupe sees it twice; prune finds it over min_tokens)
 * with one fact pin-facts keeps once the list is pruned (an order number).
 */
const catalog = JSON.stringify({ order: 'ORD-58213', total: 40, items: Array.from({ length: 40 }, (_, i) => ({ id: i, name: `item ${i}` })) })
const log = 'build log line\n'.repeat(30)

// 0 u0 | 1 a1 θ1 + call c1, 2 t2 catalog, 3 a3 | 4 u4 | 5 a5 θ5 + call c2, 6 t6 catalog again,
// 7 a7 θ7 + text | 8 u8 (latest user) | 9 a9 θ9 + call c3, 10 t10 log (the current tool loop).
function conversation(): Message[] {
  const call = (id: string) => [{ id, name: 'read', arguments: '{"path":"catalog.json"}' }]
  return indexed([
    user('u0', 'Read the catalog.'),
    withParts(assistant('a1', null, call('c1')), [signed('plan one')]),
    toolResult('t2', 'c1', catalog, 'read'),
    assistant('a3', 'Read it.'),
    user('u4', 'Read it again.'),
    withParts(assistant('a5', null, call('c2')), [signed('plan five')]),
    toolResult('t6', 'c2', catalog, 'read'),
    withParts(assistant('a7', null), [signed('same as before'), { type: 'text', text: 'Same as before.' }]),
    user('u8', 'Now the build log.'),
    withParts(assistant('a9', null, call('c3')), [signed('plan nine')]),
    toolResult('t10', 'c3', log, 'read'),
  ])
}

function transcriptOf(messages: Message[]): Transcript {
  return deepFreeze({ format: 'anthropic-messages', messages, recordedCompactions: [], warnings: [] })
}

const config = (...stages: StageConfig[]): PipelineConfig => ({ encoding: 'o200k_base', summarizer: 'extractive', stages })
const run = (messages: Message[], ...stages: StageConfig[]) =>
  runPipeline(transcriptOf(messages), config(...stages), { counter: cacheCounter('o200k_base', countCodePoints) })

/** The signed blocks left in each After message that had one in the Before, by id. */
function blocksLeft(after: readonly Message[]): Record<string, string[]> {
  const out: Record<string, string[]> = {}
  for (const m of after) {
    if (!Array.isArray(m.content)) continue
    const texts = m.content.flatMap((p) => (p.type === 'thinking' && p.signature ? [p.text ?? ''] : []))
    if (texts.length > 0) out[m.id] = texts
  }
  return out
}

describe('firstChangedPosition and staleThinkingPositions', () => {
  it('the first position where a message was changed, moved or removed; none when the context is the Before or a prefix of it', () => {
    const before = conversation()
    expect(firstChangedPosition(before, before)).toBeUndefined()
    expect(firstChangedPosition(before.slice(0, 4), before)).toBeUndefined()
    // A re-indexed copy with the same content is the same message.
    expect(firstChangedPosition(before.map((m) => ({ ...m, index: m.index + 1 })), before)).toBeUndefined()
    expect(firstChangedPosition([...before.slice(0, 6), { ...before[6]!, content: 'x' }, ...before.slice(7)], before)).toBe(6)
    expect(firstChangedPosition([...before.slice(0, 2), ...before.slice(3)], before)).toBe(2)
  })

  it('from a changed position: the earlier turns’ blocks at or after it, never the current turn’s', () => {
    const messages = conversation()
    expect(staleThinkingPositions(messages, 6)).toEqual([7])
    expect(staleThinkingPositions(messages, 2)).toEqual([5, 7])
    expect(staleThinkingPositions(messages, 0)).toEqual([1, 5, 7])
    // Without a position: only after a summary a stage wrote, and the input has none.
    expect(staleThinkingPositions(messages)).toEqual([])
  })
})

describe('every stage is held to the thinking rules (pipeline)', () => {
  it('dedupe: the back-reference at t6 changes the prefix of a7, whose block goes; a5 and the current turn keep theirs', async () => {
    const before = conversation()
    const result = await run(before, { id: 'dedupe', enabled: true, params: {} })
    expect(result.fates.t6?.kind).toBe('back-referenced')
    expect(blocksLeft(result.after.messages)).toEqual({ a1: ['plan one'], a5: ['plan five'], a9: ['plan nine'] })
    const a7 = result.after.messages.find((m) => m.id === 'a7')
    expect(a7?.content).toBe('Same as before.')
    expect(result.origins.a7).toEqual({ kind: 'original', beforeId: 'a7', changed: true })
    // The current turn is byte-identical (cases/31).
    expect(result.after.messages.slice(-2).map(({ index: _i, ...m }) => m)).toEqual(before.slice(-2).map(({ index: _i, ...m }) => m))
    expect(result.checks.after.filter((p) => p.rule === 'stale-thinking')).toEqual([])
  })

  it('prune-tool-results: placeholders from t2 on; a5 and a7 lose their blocks, a5 keeps its call', async () => {
    const before = conversation()
    const result = await run(before, { id: 'prune-tool-results', enabled: true, params: { target: 0, min_tokens: 0 } })
    expect(result.fates.t2?.kind).toBe('pruned')
    expect(result.fates.t6?.kind).toBe('pruned')
    expect(result.fates.t10?.kind).toBe('kept')
    expect(blocksLeft(result.after.messages)).toEqual({ a1: ['plan one'], a9: ['plan nine'] })
    const a5 = result.after.messages.find((m) => m.id === 'a5')
    expect(a5?.content).toBeNull()
    expect(a5?.toolCalls).toEqual(before[5]!.toolCalls)
    expect(result.checks.after).toEqual([])
  })

  it('slim: the slimmed t2 changes the prefix of everything after it', async () => {
    const result = await run(conversation(), { id: 'slim', enabled: true, params: {} })
    expect(result.fates.t2?.kind).toBe('slimmed')
    expect(blocksLeft(result.after.messages)).toEqual({ a1: ['plan one'], a9: ['plan nine'] })
    expect(result.checks.after).toEqual([])
  })

  it('pin-facts after prune: the pinned block at the top changes every prefix, a1 loses its block too (a message left empty is dropped)', async () => {
    const onlyThinking = conversation().map((m) => (m.id === 'a3' ? withParts(m, [signed('done reading')]) : m))
    const result = await run(
      onlyThinking,
      { id: 'prune-tool-results', enabled: true, params: { target: 0, min_tokens: 0 } },
      { id: 'pin-facts', enabled: true, params: {} },
    )
    expect(result.stages.map((s) => [s.stage, s.changed])).toEqual([['prune-tool-results', true], ['pin-facts', true]])
    expect(ids(result.after.messages).slice(0, 2)).toEqual(['pinned:facts', 'u0'])
    expect(blocksLeft(result.after.messages)).toEqual({ a9: ['plan nine'] })
    // a3 held nothing but a signed block: removed whole, by the stage whose change made it stale.
    expect(result.fates.a3).toEqual({ kind: 'dropped', stage: 'prune-tool-results', reason: STALE_THINKING_REASON })
    expect(result.checks.after.filter((p) => p.rule === 'stale-thinking')).toEqual([])
  })

  it('the checker, given the Before, reports a block kept after a change (named with the first changed message)', () => {
    const before = conversation()
    const after = before.map((m) => (m.id === 't6' ? { ...m, content: 'Result dropped to free context. Call read again if you still need it.' } : m))
    expect(checkValidity(after, { provider: 'anthropic', before }).map((p) => [p.rule, p.messageIds])).toEqual([
      ['stale-thinking', ['a7', 't6']],
    ])
    // Without the Before only a summary marks the change; other providers have no such rule.
    expect(checkValidity(after, { provider: 'anthropic' })).toEqual([])
    expect(checkValidity(after, { provider: 'openai', before })).toEqual([])
  })
})
