import { describe, expect, it } from 'vitest'
import { lossReason, passName, positionNames, verdictSentence, type VerdictWords } from './verdict'
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
const afterAt: Record<string, number> = { m41: 7, 'summary:summarize:2': 0, 'pinned:1': 1 }
const byPosition = positionNames(
  new Map([['m41', 41], ['m4', 4], ['m7', 7]]),
  (id) => (afterAt[id] === undefined ? undefined : { index: afterAt[id], origin: origins[id] }),
  passes,
)
// Messages no column lists are named by their ids.
const byId = positionNames(new Map(), () => undefined, passes)
const lost = (replacedBy: NonNullable<VerdictWords['lost']>['replacedBy'], pass?: number): VerdictWords => ({
  verdict: 'lost',
  where: [],
  copiesLost: 1,
  lost: pass === undefined ? { beforeId: 'm7', stage: 'dedupe', replacedBy } : { beforeId: 'm7', stage: 'summarize', pass, replacedBy },
})

describe('verdictSentence: one wording, names by position (page, CLI, explanation), by id where no column lists a message', () => {
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
    expect(verdictSentence(v, byPosition)).toBe('survives in 4 messages after (Before #41 → After #7, After #1 (pinned facts), After #0 (summary of pass 2), +1 more)')
    expect(verdictSentence(v, byId)).toBe('survives in 4 messages after (m41, pinned:1, summary:summarize:2, +1 more)')
    expect(verdictSentence({ ...v, where: [{ id: 'pinned:1', as: 'pinned' }] }, byPosition)).toBe('survives only in After #1 (pinned facts)')
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
      'lost in dedupe — replaced by a back-reference to Before #4, whose original was evicted too',
    )
    expect(verdictSentence(backRef, byId)).toBe('lost in dedupe — replaced by a back-reference to m4, whose original was evicted too')
    expect(verdictSentence(lost({ kind: 'placeholder', text: '[pruned]' }), byPosition)).toBe(
      'lost in dedupe — replaced by a placeholder in Before #7',
    )
    expect(verdictSentence(lost({ kind: 'dropped', reason: 'empty' }), byId)).toBe('lost in dedupe — m7 dropped (empty)')
    expect(verdictSentence({ verdict: 'lost', where: [], copiesLost: 0 }, byId)).toBe('lost — no recorded step explains it')
  })

  it('never present, and the After message that holds it anyway', () => {
    expect(verdictSentence({ verdict: 'never-present', where: [], copiesLost: 0 }, byPosition)).toBe('never present in the Before')
    expect(
      verdictSentence({ verdict: 'never-present', where: [{ id: 'summary:summarize:2', as: 'summary' }], copiesLost: 0 }, byPosition),
    ).toBe('never present in the Before — yet the After holds it (After #0 (summary of pass 2))')
  })

  it("lost in the agent's own compaction: its number, where its record puts it, with its trigger and the agent's token count", () => {
    const recorded = (at: { atIndex: number; compaction?: number; trigger?: string; tokensBefore?: number } | undefined): VerdictWords => ({
      verdict: 'lost',
      where: [],
      copiesLost: 1,
      lost: {
        beforeId: 'm7',
        stage: 'recorded',
        pass: 1,
        replacedBy: { kind: 'summary', summaryId: 's', text: 'The user wants a refund.', ...(at ? { recorded: at } : {}) },
      },
    })
    expect(verdictSentence(recorded({ atIndex: 28, compaction: 2, trigger: 'auto', tokensBefore: 150_000 }), byPosition)).toBe(
      "lost in the agent's compaction 2 (message 28, auto, 150,000 tokens) — its summary omits it",
    )
    expect(verdictSentence(recorded({ atIndex: 28, compaction: 1, trigger: 'manual' }), byPosition)).toBe(
      "lost in the agent's compaction 1 (message 28, manual) — its summary omits it",
    )
    // Without its number (a record outside a recorded run's list): where it was.
    expect(verdictSentence(recorded({ atIndex: 28, trigger: 'manual' }), byPosition)).toBe(
      "lost in the agent's compaction at message 28 (manual) — its summary omits it",
    )
    expect(verdictSentence(recorded({ atIndex: 5 }), byId)).toBe("lost in the agent's compaction at message 5 — its summary omits it")
    expect(verdictSentence(recorded(undefined), byId)).toBe("lost in the agent's recorded compaction — its summary omits it")
    expect(lossReason(recorded({ atIndex: 28 }), byPosition, 'llm')).toBe(
      'it was in the messages the agent summarized, but not in the summary it wrote',
    )
  })

  it('lossReason: why the last copy went, per kind of loss', () => {
    const inPrompt = lost({ kind: 'summary', summaryId: 's', text: 'Totals only.', promptLine: '[7] user: ship to 94107', inPrompt: true }, 2)
    expect(lossReason(inPrompt, byPosition, 'llm')).toBe('it was in the prompt but not in the answer')
    expect(lossReason(inPrompt, byPosition, 'extractive')).toBe('it was in the prompt, but the extractive summary kept other lines')
    const notInPrompt = lost({ kind: 'summary', summaryId: 's', text: 'Totals only.', inPrompt: false }, 2)
    expect(lossReason(notInPrompt, byPosition, 'llm')).toBe(
      'it was not in the prompt: the summarizer never saw it (cut or left out to fit its window)',
    )
    const replaced = lost({ kind: 'summary', summaryId: 's', text: '', promptLine: '[7] tool: Result dropped.', inPrompt: false }, 2)
    expect(lossReason(replaced, byPosition, 'extractive')).toBe('it was not in the prompt: Before #7 reached the summarizer already without it')
    expect(lossReason(lost({ kind: 'summary', summaryId: 's', text: '' }, 2), byPosition, 'llm')).toBeUndefined()
    expect(lossReason(lost({ kind: 'placeholder', text: '[pruned]' }), byPosition, 'llm')).toBe(
      'Before #7 was pruned: a placeholder took its place',
    )
    expect(lossReason(lost({ kind: 'back-reference', firstId: 'm4', text: '', targetEvicted: true }), byPosition, 'llm')).toBe(
      'Before #7 became a back-reference to its first occurrence, Before #4, which left the context too',
    )
    expect(lossReason(lost({ kind: 'back-reference', firstId: 'm4', text: '', targetEvicted: false }), byId, 'llm')).toBe(
      'm7 became a back-reference to its first occurrence, m4',
    )
    expect(lossReason(lost({ kind: 'dropped', reason: 'empty' }), byPosition, 'llm')).toBeUndefined()
    expect(lossReason({ verdict: 'survives', where: [{ id: 'm41', as: 'verbatim' }], copiesLost: 0 }, byPosition, 'llm')).toBeUndefined()
  })

  it('passName: summarize passes by number, other stages by name', () => {
    expect(passName('summarize', 2)).toBe('pass 2')
    expect(passName('insert-then-compress', 1)).toBe('insert-then-compress')
    expect(passName('insert-then-compress', 2)).toBe('insert-then-compress pass 2')
  })
})
