import { describe, expect, it } from 'vitest'
import type { FactRun } from '../facts/run-index'
import type { Pass, PipelineConfig, RunResult, StageConfig, Transcript } from '../model'
import { checkFailureModes } from './failure-modes'
import { runPipeline } from '../pipeline'
import type { Summarizer } from '../stages/types'
import { assistant, indexed, system, user } from '../stages/test-helpers'
import { extractiveSummarizer } from '../summarizers/extractive'
import { loadCounter } from '../tokens/count'

const GOAL = 'Please ship order ORD-58213 to postal code 94107 by 2025-06-27.'
const RULE = 'Never use express shipping for this customer.'

/** A goal, a standing rule, then chit-chat turns; the last user request is different. */
function transcript(): Transcript {
  const messages = [
    system('s', 'You are a shipping assistant.'),
    user('u1', GOAL),
    assistant('a2', 'Sure, I will look into it.'),
    user('u3', RULE),
    assistant('a4', 'Understood, standard shipping only.'),
  ]
  for (let i = 5; i < 13; i += 2) {
    messages.push(user(`u${i}`, `Any update on step ${i}?`))
    messages.push(assistant(`a${i + 1}`, `Still working on step ${i}, nothing new yet.`))
  }
  messages.push(user('u13', 'Also print the label as a PDF.'))
  messages.push(assistant('a14', 'Printing the label now.'))
  return { format: 'openai-chat', messages: indexed(messages), recordedCompactions: [], warnings: [] }
}

const summarize: StageConfig = {
  id: 'summarize',
  enabled: true,
  params: { keep_last: 2, compact_after: 4 },
}
const config = (...stages: StageConfig[]): PipelineConfig => ({
  encoding: 'o200k_base',
  summarizer: 'extractive',
  stages,
})

async function run(summarizer: Summarizer, ...stages: StageConfig[]): Promise<RunResult> {
  return runPipeline(transcript(), config(...(stages.length ? stages : [summarize])), {
    counter: await loadCounter('o200k_base'),
    summarizer,
  })
}

/** Answers the n-th call with answers[n] (the last one after that). */
function sequence(...answers: string[]): Summarizer {
  let n = 0
  return () => Promise.resolve(answers[Math.min(n++, answers.length - 1)] ?? '')
}

const rules = (r: RunResult, rule: string) =>
  (r.checks.failureModes ?? []).filter((w) => w.rule === rule)

describe('failure modes (SPEC §3.5, seed 004)', () => {
  it('the transcript compacts in several passes (the checks below rely on it)', async () => {
    const r = await run(sequence('Shipping chat.'))
    expect(r.passes.length).toBeGreaterThan(1)
    expect(r.after.messages.map((m) => m.id)).toEqual(['s', 'summary:summarize:' + r.passes.length, 'u13', 'a14'])
  })

  it('goal drift: a summary without the goal → a warning naming the goal and the summary', async () => {
    const r = await run(sequence('Shipping chat.'))
    const w = rules(r, 'goal-drift')
    expect(w).toHaveLength(1)
    expect(w[0]?.messageIds).toEqual(['u1', `summary:summarize:${r.passes.length}`])
    expect(w[0]?.message).toContain('the goal "Please ship order ORD-58213')
  })

  it('no goal drift when the goal is kept verbatim (extractive summary) or pinned', async () => {
    expect(rules(await run(extractiveSummarizer), 'goal-drift')).toEqual([])
    const pinned = await run(sequence('Shipping chat.'), summarize, {
      id: 'pin-facts',
      enabled: true,
      params: { max_facts: 40 },
    })
    expect(rules(pinned, 'goal-drift')).toEqual([])
  })

  it('over-compression: the standing rule lost → a warning naming u3 and the summary', async () => {
    const r = await run(sequence('Shipping chat.'))
    const w = rules(r, 'over-compression').filter((x) => x.message.startsWith('the instruction'))
    // GOAL has no constraint word; RULE does.
    expect(w.map((x) => x.messageIds[0])).toEqual(['u3'])
    expect(w[0]?.message).toContain(RULE)
  })

  it('over-compression: important facts lost → one warning quoting the three most important and the pass that lost each', async () => {
    const r = await run(sequence('Shipping chat.'))
    const w = rules(r, 'over-compression').filter((x) => /important facts? (?:is|are) lost/.test(x.message))
    // The summary keeps nothing: the goal, its three pattern facts and the rule are lost. The goal
    // ranks first, the rule (a constraint) next, then the user's facts in order; pass 1 folds u1
    // and u3 and its summary omits them all.
    expect(w.map((x) => x.message)).toEqual([
      `5 important facts are lost: "${GOAL}" (lost in pass 1 of summarize), "${RULE}" (lost in pass 1 of summarize), ` +
        '"ORD-58213" (lost in pass 1 of summarize), +2 more',
    ])
    expect(w[0]?.messageIds).toEqual(['u1', 'u3'])
  })

  it('over-compression: more than 95% of the tokens gone → a warning naming the pass that cut the most', () => {
    const pass = (n: number, tokensBefore: number, tokensAfter: number): Pass => ({
      pass: n,
      stage: 'summarize',
      atMessage: n,
      from: 0,
      upto: n,
      prompt: '',
      summary: '',
      summaryId: `summary:summarize:${n}`,
      tokensBefore,
      tokensAfter,
    })
    const handMade = (afterTokens: number) =>
      ({
        before: { messages: [user('u0', 'Hi.')], totals: { tokens: 1000 } },
        after: { messages: [], totals: { tokens: afterTokens } },
        fates: {},
        origins: {},
        passes: [pass(1, 600, 500), pass(2, 900, afterTokens)],
      }) as unknown as FactRun
    const gone = (afterTokens: number) =>
      checkFailureModes(handMade(afterTokens)).filter((w) => w.message.startsWith('the After keeps'))
    // 1,000 → 4: 99.6% went; pass 2 cut 896 tokens, pass 1 only 100.
    expect(gone(4)).toEqual([
      {
        rule: 'over-compression',
        message: "the After keeps 0.4% of the Before's tokens (1,000 → 4): more than 95% went; the largest cut: pass 2 of summarize (−896 tokens)",
        messageIds: ['summary:summarize:2'],
      },
    ])
    // Exactly 95% gone is not more than 95%.
    expect(gone(50)).toEqual([])
  })

  it('no over-compression when the rule survives (pin-facts keeps the line verbatim)', async () => {
    const r = await run(sequence('Shipping chat.'), summarize, {
      id: 'pin-facts',
      enabled: true,
      params: { max_facts: 40 },
    })
    expect(rules(r, 'over-compression')).toEqual([])
  })

  it('double compression: pass 1 keeps ORD-58213, pass 2 drops it → one warning for it', async () => {
    const r = await run(sequence('Order ORD-58213.', 'Shipping chat.'))
    const w = rules(r, 'double-compression').filter((x) => x.message.includes('"ORD-58213"'))
    expect(w).toHaveLength(1)
    expect(w[0]?.messageIds).toEqual(['u1', 'summary:summarize:1', 'summary:summarize:2'])
    expect(w[0]?.message).toContain('summarize pass 1 and is missing after pass 2')
  })

  it('no double compression when every later summary keeps it', async () => {
    const r = await run(sequence('Order ORD-58213.'))
    expect(rules(r, 'double-compression')).toEqual([])
  })

  it('fabricated summary: an ID in no summarized message → a warning naming the summary', async () => {
    const r = await run(sequence('Order ORD-58213, invoice INV-7777.', 'Order ORD-58213, invoice INV-7777.'))
    const w = rules(r, 'fabricated-summary')
    // Pass 1 invents INV-7777; pass 2 repeats it from the previous summary (not invented again).
    expect(w).toHaveLength(1)
    expect(w[0]?.message).toContain('"INV-7777"')
    expect(w[0]?.messageIds[0]).toBe('summary:summarize:1')
    expect(w[0]?.messageIds).toContain('u1')
  })

  it('no fabricated summary from the extractive summarizer (it only copies)', async () => {
    expect(rules(await run(extractiveSummarizer), 'fabricated-summary')).toEqual([])
  })

  it('nothing changed → no failure modes', async () => {
    const r = await run(sequence('x'), { ...summarize, params: { keep_last: 50, compact_after: 60 } })
    expect(r.checks.failureModes).toEqual([])
  })
})
