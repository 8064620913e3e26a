import { describe, expect, it } from 'vitest'
import { estimateRunCost, type ModelPrice, type RunTokens } from '../../engine/analysis/costs'
import { formatDollars, strategyBars } from './strategies'

// $1 / $0.10 / $2 per million tokens: every figure below is recomputed by hand.
const price: ModelPrice = { model: 'p', input: 1, cachedInput: 0.1, output: 2, asOf: '2025-01-01', source: 'test' }
const noTurns = { turns: 0, newTokensPerTurn: 0, outputTokensPerTurn: 0, caching: true }

describe('strategyBars', () => {
  it('compares insert-then-compress cached, cold and as a separate call', () => {
    const tokens: RunTokens = {
      passes: [
        { stage: 'insert-then-compress', pass: 1, promptTokens: 100, prefixTokens: 10_000, outputTokens: 500, separatePromptTokens: 8_000 },
      ],
      contextBefore: 10_000,
      contextAfter: 2_000,
    }
    const bars = strategyBars(estimateRunCost(tokens, price, noTurns))
    // cached: 100 input × $1 + 10,000 cached × $0.10 + 500 output × $2 = 100 + 1,000 + 1,000 = 2,100 µ$
    // cold:   10,100 input × $1 + 500 × $2 = 11,100 µ$; separate: 8,000 × $1 + 500 × $2 = 9,000 µ$
    expect(bars.map((b) => b.label)).toEqual([
      'no compaction',
      'as configured',
      'insert-then-compress, cold cache',
      'separate summarization call',
    ])
    expect(bars.map((b) => b.dollars)).toEqual([0, 0.0021, 0.0111, 0.009].map((d) => expect.closeTo(d, 12)))
  })

  it('only two bars without insert-then-compress; following turns count in both', () => {
    const tokens: RunTokens = {
      passes: [{ stage: 'summarize', pass: 1, promptTokens: 1_000, prefixTokens: 0, outputTokens: 100 }],
      contextBefore: 5_000,
      contextAfter: 1_000,
    }
    const turns = { turns: 1, newTokensPerTurn: 0, outputTokensPerTurn: 0, caching: false }
    const bars = strategyBars(estimateRunCost(tokens, price, turns))
    // no compaction: one turn sends 5,000 uncached = $0.005; compacted: 1,000 + 100 × 2 + 1,000 = 2,200 µ$
    expect(bars.map((b) => b.dollars)).toEqual([expect.closeTo(0.005, 12), expect.closeTo(0.0022, 12)])
  })

  it('formats small and large dollar amounts', () => {
    expect(formatDollars(0)).toBe('$0')
    expect(formatDollars(0.0021)).toBe('$0.00210')
    expect(formatDollars(12.345)).toBe('$12.35')
  })
})
