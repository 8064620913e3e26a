import { describe, expect, it } from 'vitest'
import type { TriggerDecision } from '../../engine/model'
import type { PassMeta, RunView } from '../../worker/protocol'
import { firedAtTurn } from './announce'

const summarizeAt7: TriggerDecision = {
  stage: 'summarize',
  turn: 7,
  atMessage: 24,
  tokens: 9120,
  unsummarized: 38,
  measure: 'messages',
  threshold: 20,
  op: '>',
  thresholdSource: 'compact_after 20',
  reached: true,
  fired: true,
  pass: 2,
  tokensAfter: 2210,
}
const pass2 = { stage: 'summarize', pass: 2, atMessage: 24, from: 0, upto: 22, summary: 's', summaryId: 'sum-2', tokensBefore: 9120, tokensAfter: 2210, promptLength: 10 } as PassMeta

function viewAt(turn: number | undefined, decisions: TriggerDecision[], passes: PassMeta[]): RunView {
  const v = { passes, decisions: { decisions, total: decisions.length, reached: decisions.length, fired: decisions.length } } as unknown as RunView
  if (turn !== undefined) v.asOf = { turn, turns: 23, endIndex: 24 }
  return v
}

describe('firedAtTurn', () => {
  it('words a summarize pass with its range and the decision that fired it', () => {
    expect(firedAtTurn(viewAt(7, [summarizeAt7], [pass2]))).toBe(
      'Turn 7: pass 2 — messages 0–21 → summary, because 38 unsummarized messages > 20 (compact_after 20) → pass 2 fired (9,120 → 2,210 tokens)',
    )
  })

  it('leaves out an in-place edit (no pass), and joins two passes at one turn', () => {
    const prune: TriggerDecision = {
      ...summarizeAt7,
      stage: 'prune-tool-results',
      measure: 'tokens',
      op: '≥',
      threshold: 8000,
      thresholdSource: 'trigger 8,000',
      tokens: 9500,
      tokensAfter: 6000,
    }
    delete prune.pass
    const ite: TriggerDecision = { ...summarizeAt7, stage: 'insert-then-compress', pass: 1, unsummarized: 30 }
    const itePass = { ...pass2, stage: 'insert-then-compress', pass: 1, from: 3, upto: 10 } as PassMeta
    expect(firedAtTurn(viewAt(7, [prune, summarizeAt7, ite], [pass2, itePass]))).toBe(
      'Turn 7: pass 2 — messages 0–21 → summary, because 38 unsummarized messages > 20 (compact_after 20) → pass 2 fired (9,120 → 2,210 tokens); ' +
        'insert-then-compress — messages 3–9 → summary, because 30 unsummarized messages > 20 (compact_after 20) → pass 1 fired (9,120 → 2,210 tokens)',
    )
    expect(firedAtTurn(viewAt(7, [prune], [pass2]))).toBeNull()
  })

  it('says nothing for a turn where no pass fired, an earlier turn’s pass, or a full run', () => {
    const held = { ...summarizeAt7, fired: false, pass: undefined, held: 'min_progress' } as TriggerDecision
    expect(firedAtTurn(viewAt(7, [held], [pass2]))).toBeNull()
    expect(firedAtTurn(viewAt(8, [summarizeAt7], [pass2]))).toBeNull()
    expect(firedAtTurn(viewAt(undefined, [summarizeAt7], [pass2]))).toBeNull()
    expect(firedAtTurn(null)).toBeNull()
  })
})
