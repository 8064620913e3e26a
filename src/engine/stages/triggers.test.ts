import { describe, expect, it } from 'vitest'
import type { TriggerDecision } from '../model'
import { describeDecision, pruneTrigger, summarizeTail, summarizeTrigger, unusedParam } from './triggers'

const base: TriggerDecision = {
  stage: 'summarize',
  turn: 37,
  atMessage: 812,
  tokens: 171_204,
  unsummarized: 120,
  measure: 'tokens',
  threshold: 167_000,
  op: '≥',
  thresholdSource: '200,000 window − 33,000 reserve',
  reached: true,
  fired: true,
  pass: 2,
  tokensAfter: 12_410,
}

describe('summarizeTrigger', () => {
  it('is seed 001 compact_after when no token param is set (more than, messages)', () => {
    expect(summarizeTrigger({ keep_last: 20, compact_after: 40 })).toEqual({
      measure: 'messages', threshold: 40, source: 'compact_after 40', op: '>',
    })
    // compact_after is raised to keep_last (seed 001 `plan`).
    expect(summarizeTrigger({ keep_last: 30, compact_after: 10 }).threshold).toBe(30)
  })

  it('window − reserve (Claude Code): 200,000 − 33,000 = 167,000; 1,000,000 − 33,000 = 967,000', () => {
    expect(summarizeTrigger({ trigger_reserve: 33_000 }, 200_000)).toEqual({
      measure: 'tokens', threshold: 167_000, source: '200,000 window − 33,000 reserve', op: '≥',
    })
    expect(summarizeTrigger({ trigger_reserve: 33_000 }, 1_000_000).threshold).toBe(967_000)
  })

  it('a share of the window (Codex 0.9 × 272,000 = 244,800; Gemini 0.5 × 1,048,576 = 524,288)', () => {
    expect(summarizeTrigger({ trigger_share: 0.9 }, 272_000)).toMatchObject({ threshold: 244_800, source: '90% of 272,000 window' })
    expect(summarizeTrigger({ trigger_share: 0.5 }, 1_048_576).threshold).toBe(524_288)
    expect(summarizeTrigger({ trigger_share: 0.9, trigger_reserve: 4_800 }, 272_000).threshold).toBe(240_000)
  })

  it('trigger_tokens wins over the window params; a share above 1 is unusable (compact_after again)', () => {
    expect(summarizeTrigger({ trigger_tokens: 150_000, trigger_share: 0.5 }, 200_000)).toMatchObject({
      threshold: 150_000, source: 'trigger_tokens 150,000',
    })
    expect(summarizeTrigger({ trigger_share: 1.5 }).measure).toBe('messages')
  })
})

describe('pruneTrigger', () => {
  it('is "over target" without a trigger, "reaches trigger" with one (Anthropic clear_tool_uses)', () => {
    expect(pruneTrigger({ target: 12_000 })).toEqual({ measure: 'tokens', threshold: 12_000, source: 'target 12,000', op: '>' })
    expect(pruneTrigger({ target: 0, trigger: 100_000 })).toEqual({
      measure: 'tokens', threshold: 100_000, source: 'trigger 100,000', op: '≥',
    })
  })
})

describe('summarizeTail', () => {
  it('keep_last by default; keep_tokens, keep_share and keep_user_only replace it', () => {
    expect(summarizeTail({ keep_last: 20 })).toEqual({ kind: 'messages', keepLast: 20, tailStart: 'any' })
    expect(summarizeTail({ keep_tokens: 0 })).toEqual({ kind: 'tokens', budget: 0, userOnly: false, tailStart: 'any' })
    expect(summarizeTail({ keep_share: 0.3, tail_start: 'user' })).toMatchObject({ kind: 'tokens', share: 0.3, tailStart: 'user' })
    // Codex: user messages within 20,000 tokens when keep_tokens is not set.
    expect(summarizeTail({ keep_user_only: true })).toEqual({ kind: 'tokens', budget: 20_000, userOnly: true, tailStart: 'any' })
  })
})

describe('unusedParam', () => {
  it('names the param that replaces one', () => {
    expect(unusedParam('summarize', 'compact_after', { trigger_reserve: 33_000 })).toBe(
      'not used: the token trigger (trigger_reserve) replaces it',
    )
    expect(unusedParam('summarize', 'keep_last', { keep_tokens: 0 })).toBe('not used: keep_tokens sets the kept tail')
    expect(unusedParam('summarize', 'keep_last', { keep_user_only: true })).toBe('not used: keep_user_only sets the kept tail')
    expect(unusedParam('summarize', 'trigger_share', { trigger_tokens: 8192, trigger_share: 0.5 })).toBe('not used: trigger_tokens is set')
    expect(unusedParam('summarize', 'compact_after', { keep_last: 20, compact_after: 40 })).toBeUndefined()
    expect(unusedParam('prune-tool-results', 'target', { target: 0 })).toBeUndefined()
  })
})

describe('describeDecision', () => {
  it('a fired token decision names the level, its source, the pass and the tokens before → after', () => {
    expect(describeDecision(base)).toBe(
      'turn 37 (#812): 171,204 tokens ≥ 167,000 (200,000 window − 33,000 reserve) → pass 2 fired (171,204 → 12,410 tokens)',
    )
    expect(describeDecision(base, false)).toBe(
      '171,204 tokens ≥ 167,000 (200,000 window − 33,000 reserve) → pass 2 fired (171,204 → 12,410 tokens)',
    )
  })

  it('one that was not reached says by how much it fell short', () => {
    const d = { ...base, turn: 36, atMessage: 790, tokens: 165_880, reached: false, fired: false }
    delete d.pass
    delete d.tokensAfter
    // 167,000 − 165,880 = 1,120.
    expect(describeDecision(d)).toBe(
      'turn 36 (#790): 165,880 tokens < 167,000 (200,000 window − 33,000 reserve): 1,120 tokens short, no compaction',
    )
    const m: TriggerDecision = {
      ...d, measure: 'messages', unsummarized: 38, threshold: 40, op: '>', thresholdSource: 'compact_after 40',
    }
    // More than 40 needs 41: 3 more.
    expect(describeDecision(m, false)).toBe('38 unsummarized messages ≤ 40 (compact_after 40): 3 more messages needed, no compaction')
  })

  it('a reached trigger held by a guard says which', () => {
    const d: TriggerDecision = {
      ...base, measure: 'messages', unsummarized: 2, threshold: 1, op: '>', thresholdSource: 'compact_after 1',
      fired: false, held: 'min_progress guard: the pass would replace one message with one summary',
    }
    delete d.pass
    delete d.tokensAfter
    expect(describeDecision(d, false)).toBe(
      '2 unsummarized messages > 1 (compact_after 1), but no pass: min_progress guard: the pass would replace one message with one summary',
    )
  })

  it('prune words its change as pruning', () => {
    const d: TriggerDecision = {
      ...base, stage: 'prune-tool-results', tokens: 104_000, threshold: 100_000, thresholdSource: 'trigger 100,000',
    }
    delete d.pass
    delete d.tokensAfter
    expect(describeDecision(d, false)).toBe('104,000 tokens ≥ 100,000 (trigger 100,000) → tool results pruned')
  })
})
