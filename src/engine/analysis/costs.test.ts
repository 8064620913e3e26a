/**
 * The cost model, recomputed by hand from small numbers (prices in USD per million tokens).
 */
import { describe, expect, it } from 'vitest'
import {
  DEFAULT_PRICES,
  DEFAULT_PRICES_AS_OF,
  DEFAULT_PRICES_NOTE,
  costOf,
  estimateRunCost,
  findPrice,
  followingTurnsUsage,
  insertThenCompressUsage,
  runTokens,
  separateCallUsage,
  type FollowingTurns,
  type ModelPrice,
} from './costs'
import type { Message, RunResult } from '../model'
import { COMPRESSION_INSTRUCTION } from '../stages/insert-then-compress'
import { DEFAULT_RULES, SLICE_HEADING } from '../stages/summarize'
import { countCodePoints, user, assistant } from '../stages/test-helpers'

const price: ModelPrice = {
  model: 'm',
  input: 2,
  cachedInput: 0.5,
  output: 8,
  cacheWrite: 2.5,
  asOf: '2025-11-30',
  source: 'test',
}

const turns: FollowingTurns = { turns: 3, newTokensPerTurn: 100, outputTokensPerTurn: 50, caching: true }

describe('costOf', () => {
  it('input (cache writes at their own price), cached input and output, per million tokens', () => {
    const c = costOf({ input: 1_000_000, cachedInput: 2_000_000, output: 500_000, cacheWrite: 400_000 }, price)
    // 600,000 × $2 + 400,000 × $2.5 = $1.2 + $1.0; 2M × $0.5; 0.5M × $8.
    expect(c.input).toBeCloseTo(2.2, 10)
    expect(c.cachedInput).toBeCloseTo(1, 10)
    expect(c.output).toBeCloseTo(4, 10)
    expect(c.total).toBeCloseTo(7.2, 10)
  })

  it('without a cacheWrite price, writes cost the input price', () => {
    const { cacheWrite: _, ...plain } = price
    expect(costOf({ input: 1_000_000, cachedInput: 0, output: 0, cacheWrite: 1_000_000 }, plain).input).toBe(2)
  })
})

describe('insert-then-compress vs the alternatives (SPEC §3.4)', () => {
  it('cached prefix + instruction vs the same request uncached vs a separate summarization call', () => {
    // Prefix 10,000 tokens (system + tools + history), instruction 200, answer 1,000.
    const cached = insertThenCompressUsage(10_000, 200, 1_000)
    expect(cached).toEqual({ input: 200, cachedInput: 10_000, output: 1_000, cacheWrite: 0 })
    // 200 × 2 + 10,000 × 0.5 + 1,000 × 8 = 400 + 5,000 + 8,000 = 13,400 per million.
    expect(costOf(cached, price).total).toBeCloseTo(0.0134, 10)
    const uncached = insertThenCompressUsage(10_000, 200, 1_000, false)
    expect(uncached).toEqual({ input: 10_200, cachedInput: 0, output: 1_000, cacheWrite: 0 })
    // 10,200 × 2 + 8,000 = 28,400 per million.
    expect(costOf(uncached, price).total).toBeCloseTo(0.0284, 10)
    // A separate call with a 6,000-token prompt: 12,000 + 8,000 = 20,000 per million.
    expect(costOf(separateCallUsage(6_000, 1_000), price).total).toBeCloseTo(0.02, 10)
  })
})

describe('followingTurnsUsage', () => {
  it('warm (no compaction): every turn reads what the last one sent from the cache', () => {
    // C = 1,000, g = 100: turns send 1,100, 1,200, 1,300 = 3,600; cached 1,000 + 1,100 + 1,200.
    expect(followingTurnsUsage(1_000, true, turns)).toEqual({
      input: 300,
      cachedInput: 3_300,
      output: 150,
      cacheWrite: 300,
    })
  })

  it('cold (right after compaction): the first turn pays the whole rebuilt context', () => {
    // C = 400: turns send 500, 600, 700 = 1,800; cached 0 + 500 + 600 = 1,100.
    expect(followingTurnsUsage(400, false, turns)).toEqual({
      input: 700,
      cachedInput: 1_100,
      output: 150,
      cacheWrite: 700,
    })
  })

  it('without caching everything is uncached input', () => {
    expect(followingTurnsUsage(1_000, true, { ...turns, caching: false })).toEqual({
      input: 3_600,
      cachedInput: 0,
      output: 150,
      cacheWrite: 0,
    })
  })
})

describe('estimateRunCost', () => {
  it('per pass, in total, and the following turns before vs after, recomputed by hand', () => {
    const cost = estimateRunCost(
      {
        passes: [
          { stage: 'summarize', pass: 1, promptTokens: 3_000, prefixTokens: 0, outputTokens: 500 },
          {
            stage: 'insert-then-compress',
            pass: 1,
            promptTokens: 200,
            prefixTokens: 10_000,
            outputTokens: 1_000,
            separatePromptTokens: 6_000,
          },
        ],
        contextBefore: 1_000,
        contextAfter: 400,
      },
      price,
      turns,
    )
    // summarize: 3,000 × 2 + 500 × 8 = 10,000 per million.
    expect(cost.passes[0]?.cost.total).toBeCloseTo(0.01, 10)
    expect(cost.passes[0]?.withoutCache).toBeUndefined()
    expect(cost.passes[1]?.cost.total).toBeCloseTo(0.0134, 10)
    expect(cost.passes[1]?.withoutCache?.cost.total).toBeCloseTo(0.0284, 10)
    expect(cost.passes[1]?.separateCall?.cost.total).toBeCloseTo(0.02, 10)
    expect(cost.summarization.usage).toEqual({ input: 3_200, cachedInput: 10_000, output: 1_500, cacheWrite: 0 })
    // 3,200 × 2 + 10,000 × 0.5 + 1,500 × 8 = 6,400 + 5,000 + 12,000.
    expect(cost.summarization.cost.total).toBeCloseTo(0.0234, 10)
    // Without: 300 × 2.5 + 3,300 × 0.5 + 150 × 8 = 750 + 1,650 + 1,200 = 3,600 per million.
    expect(cost.followingTurns.withoutCompaction.cost.total).toBeCloseTo(0.0036, 10)
    // With: 700 × 2.5 + 1,100 × 0.5 + 1,200 = 1,750 + 550 + 1,200 = 3,500 per million.
    expect(cost.followingTurns.withCompaction.cost.total).toBeCloseTo(0.0035, 10)
    expect(cost.total.withoutCompaction).toBeCloseTo(0.0036, 10)
    expect(cost.total.withCompaction).toBeCloseTo(0.0269, 10)
  })

  it('an unchanged context stays warm: both sides of the following turns are equal', () => {
    const cost = estimateRunCost({ passes: [], contextBefore: 1_000, contextAfter: 1_000 }, price, turns)
    expect(cost.followingTurns.withCompaction).toEqual(cost.followingTurns.withoutCompaction)
    expect(cost.summarization.cost.total).toBe(0)
  })
})

describe('runTokens', () => {
  const m = (x: Message, index: number): Message => ({ ...x, index })
  const before = [m(user('u0', 'hello there'), 0), m(assistant('a1', 'hi back'), 1), m(user('u2', 'next'), 2)]
  const run: Pick<RunResult, 'passes' | 'before' | 'after' | 'origins'> = {
    before: { messages: before, totals: { messages: 3, tokens: 120, overheadTokens: 0 }, tokensById: {} },
    after: { messages: [], totals: { messages: 2, tokens: 70, overheadTokens: 0 }, tokensById: {} },
    origins: {
      'summary:insert-then-compress:1': {
        kind: 'summary',
        stage: 'insert-then-compress',
        pass: 1,
        fromIndex: 0,
        toIndex: 1,
        coveredIds: ['u0', 'a1'],
      },
    },
    passes: [
      {
        pass: 1,
        stage: 'summarize',
        atMessage: 1,
        from: 0,
        upto: 2,
        prompt: 'abcdefghij',
        summary: 'xyz',
        summaryId: 'summary:summarize:1',
        tokensBefore: 0,
        tokensAfter: 0,
      },
      {
        pass: 1,
        stage: 'insert-then-compress',
        atMessage: 2,
        from: 0,
        upto: 2,
        prompt: '(shown prompt)',
        summary: '<summary>S</summary>',
        summaryId: 'summary:insert-then-compress:1',
        tokensBefore: 40,
        tokensAfter: 20,
      },
    ],
  }

  it('counts each call with the run counter (one token per code point here)', () => {
    const tokens = runTokens(run, countCodePoints, [{ name: 't' }])
    expect(tokens.contextBefore).toBe(120)
    expect(tokens.contextAfter).toBe(70)
    // 10 code points + 3 message overhead + 3 reply priming; the summary is 3.
    expect(tokens.passes[0]).toEqual({
      stage: 'summarize',
      pass: 1,
      promptTokens: 16,
      prefixTokens: 0,
      outputTokens: 3,
    })
    const separate = `${DEFAULT_RULES.trimEnd()}\n\n${SLICE_HEADING}\n\n[0] user: hello there\n[1] assistant: hi back`
    expect(tokens.passes[1]).toEqual({
      stage: 'insert-then-compress',
      pass: 1,
      promptTokens: [...COMPRESSION_INSTRUCTION].length + 6,
      // 40 message tokens + the schema '{"name":"t","description":"","parameters":{}}' (45).
      prefixTokens: 85,
      outputTokens: 20,
      separatePromptTokens: [...separate].length + 6,
    })
  })
})

describe('price table', () => {
  it('defaults are dated and say to check the provider', () => {
    expect(DEFAULT_PRICES.length).toBeGreaterThan(3)
    for (const p of DEFAULT_PRICES) {
      expect(p.asOf).toBe(DEFAULT_PRICES_AS_OF)
      expect(p.source).not.toBe('')
    }
    expect(DEFAULT_PRICES_NOTE).toContain(DEFAULT_PRICES_AS_OF)
    expect(DEFAULT_PRICES_NOTE).toMatch(/check the provider's pricing page/)
  })

  it('findPrice: exact id, else the longest id the model starts with', () => {
    const table: ModelPrice[] = [
      { ...price, model: 'gpt-5' },
      { ...price, model: 'gpt-5-mini' },
    ]
    expect(findPrice(table, 'gpt-5')?.model).toBe('gpt-5')
    expect(findPrice(table, 'gpt-5-mini-2025-08-07')?.model).toBe('gpt-5-mini')
    expect(findPrice(table, 'gpt-5-2025-08-07')?.model).toBe('gpt-5')
    expect(findPrice(table, 'gpt-4o')).toBeUndefined()
  })
})
