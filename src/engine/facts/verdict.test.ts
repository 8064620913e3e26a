import { describe, expect, it } from 'vitest'
import { idNames, passName, positionNames, verdictSentence, type VerdictWords } from './verdict'
import type { Origin } from '../model'

const passes = [
  { stage: 'summarize', pass: 1, from: 0, upto: 10 },
  { stage: 'summarize', pass: 2, from: 0, upto: 22 },
  { stage: 'insert-then-compress', pass: 1, from: 0, upto: 0 },
]
const origins: Record<string, Origin> = {
  m41: { kind: 'original', beforeId: 'm41', changed: false },
  'summary:summarize:2': {
    kind: 'summary',
    stage: 'summarize',
    pass: 2,
    fromIndex: 0,
    toIndex: 21,
    coveredIds: [],
  },
  'pinned:1': { kind: 'pinned-facts', stage: 'pin-facts', sourceIds: ['m41'] },
}
const byPosition = positionNames(new Map([['m41', 41], ['m4', 4], ['m7', 7]]), (id) => origins[id], passes)
const byId = idNames(passes)
const lost = (replacedBy: NonNullable<VerdictWords['lost']>['replacedBy'], pass?: number): VerdictWords => ({
  verdict: 'lost',
  where: [],
  copiesLost: 1,
  lost: pass === undefined ? { beforeId: 'm7', stage: 'dedupe', replacedBy } : { beforeId: 'm7', stage: 'summarize', pass, replacedBy },
})

describe('verdictSentence: one wording, names by position (page, CLI) or by id (explanation)', () => {
  it('survives: how many messages after and which, capped at three', () => {
    const v: VerdictWords = {
      verdict: 'survives',
      copiesLost: 0,
      where: [
        { id: 'm41', as: 'verbatim' },
        { id: 'pinned:1', as: 'pinned' },
        { id: 'summary:summarize:2', as: 'summary' },
        { id: 'x', as: 'summary' },
      ],
    }
    expect(verdictSentence(v, byPosition)).toBe('survives in 4 messages after (#41, pinned facts, summary of pass 2, +1 more)')
    expect(verdictSentence(v, byId)).toBe('survives in 4 messages after (m41, pinned:1, summary:summarize:2, +1 more)')
    expect(verdictSentence({ ...v, where: [{ id: 'pinned:1', as: 'pinned' }] }, byPosition)).toBe('survives only in pinned facts')
  })

  it('lost: the pass and what replaced the last copy', () => {
    const summary = lost({ kind: 'summary', summaryId: 'summary:summarize:2', text: '' }, 2)
    expect(verdictSentence({ ...summary, copiesLost: 3 }, byPosition)).toBe(
      'lost in pass 2 of summarize (the last of 3 copies) — replaced by the summary of messages 0–21',
    )
    expect(verdictSentence(lost({ kind: 'summary', summaryId: 's', text: '' }, 9), byId)).toBe(
      'lost in pass 9 of summarize — replaced by a summary that omits it',
    )
    const backRef = lost({ kind: 'back-reference', firstId: 'm4', text: '', targetEvicted: true })
    expect(verdictSentence(backRef, byPosition)).toBe(
      'lost in dedupe — replaced by a back-reference to #4, whose original was evicted too',
    )
    expect(verdictSentence(backRef, byId)).toBe('lost in dedupe — replaced by a back-reference to m4, whose original was evicted too')
    expect(verdictSentence(lost({ kind: 'placeholder', text: '[pruned]' }), byPosition)).toBe(
      'lost in dedupe — replaced by a placeholder in #7',
    )
    expect(verdictSentence(lost({ kind: 'dropped', reason: 'empty' }), byId)).toBe('lost in dedupe — m7 dropped (empty)')
    expect(verdictSentence({ verdict: 'lost', where: [], copiesLost: 0 }, byId)).toBe('lost — no recorded step explains it')
  })

  it('never present, and the After message that holds it anyway', () => {
    expect(verdictSentence({ verdict: 'never-present', where: [], copiesLost: 0 }, byPosition)).toBe('never present in the Before')
    expect(
      verdictSentence({ verdict: 'never-present', where: [{ id: 'summary:summarize:2', as: 'summary' }], copiesLost: 0 }, byPosition),
    ).toBe('never present in the Before — yet the After holds it (summary of pass 2)')
  })

  it('passName: summarize passes by number, other stages by name', () => {
    expect(passName('summarize', 2)).toBe('pass 2')
    expect(passName('insert-then-compress', 1)).toBe('insert-then-compress')
    expect(passName('insert-then-compress', 2)).toBe('insert-then-compress pass 2')
  })
})
