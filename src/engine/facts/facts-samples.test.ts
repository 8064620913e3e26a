/**
 * Fact finder acceptance: on every bundled sample the scenario facts (design/formats.md §5) get
 * the right verdict under DEFAULT_PIPELINE with the extractive summarizer, and with a
 * summarizer that omits one of them the finder names the pass that lost it. The expected
 * verdicts are derived here from the after transcript and the fates, independently of the
 * finder's own walk.
 */
import { holdsFact } from './fact-index'
import { lastLossAt } from '../../../test/verdict-words'
import { describe, expect, it } from 'vitest'
import { CODING, SAMPLE_FILES, SCENARIO, SUPPORT, loadSample } from '../../../test/sample-scenarios'
import { findFact } from './finder'
import { messageFactText } from './patterns'
import type { PipelineConfig, RunResult, Transcript } from '../model'
import { DEFAULT_PIPELINE, runPipeline } from '../pipeline'
import type { Summarizer } from '../stages/types'
import { extractiveSummarizer } from '../summarizers/extractive'
import { loadCounter } from '../tokens/count'


async function run(t: Transcript, config: PipelineConfig, summarizer: Summarizer): Promise<RunResult> {
  return runPipeline(t, config, { counter: await loadCounter('o200k_base'), summarizer })
}

/** The after messages holding `fact`, read straight off the after transcript. */
const holders = (r: RunResult, fact: string) =>
  r.after.messages.filter((m) => holdsFact(messageFactText(m), fact)).map((m) => m.id)

/** Summarize fires on every sample: keep 2, compact after 4 (the rest as DEFAULT_PIPELINE). */
const AGGRESSIVE: PipelineConfig = {
  ...DEFAULT_PIPELINE,
  stages: DEFAULT_PIPELINE.stages.map((s) =>
    s.id === 'summarize' ? { ...s, params: { keep_last: 2, compact_after: 4 } } : s,
  ),
}

describe('scenario facts on every bundled sample', () => {
  it('covers every sample of the gallery', () => {
    expect(SAMPLE_FILES.filter((f) => !(f in SCENARIO))).toEqual([])
  })

  for (const file of SAMPLE_FILES) {
    it(`${file}: DEFAULT_PIPELINE + extractive: each scenario fact survives where it is`, async () => {
      const t = loadSample(file)
      const r = await run(t, DEFAULT_PIPELINE, extractiveSummarizer)
      const mine = SCENARIO[file] ?? []
      const other = mine === CODING ? SUPPORT : CODING
      for (const fact of mine) {
        const v = findFact(r, fact)
        // Every scenario fact is in the sample, and the extractive summary never drops one.
        expect(v.beforeIds.length, fact).toBeGreaterThan(0)
        expect(v.verdict, fact).toBe('survives')
        expect(v.where.map((w) => w.id).sort()).toEqual(holders(r, fact).sort())
      }
      for (const fact of other) expect(findFact(r, fact).verdict, fact).toBe('never-present')
    })

    it(`${file}: a summarizer that omits a fact → lost at the pass that folded its last copy`, async () => {
      const t = loadSample(file)
      const mine = SCENARIO[file] ?? []
      let lost = 0
      for (const fact of mine) {
        const omitting: Summarizer = async (req) =>
          (await extractiveSummarizer(req)).split(fact).join('')
        const r = await run(t, AGGRESSIVE, omitting)
        const v = findFact(r, fact)
        const held = holders(r, fact)
        if (held.length > 0) {
          // Still verbatim in the kept tail: survives, and never because of a summary.
          expect(v.verdict).toBe('survives')
          expect(v.where.every((w) => w.as === 'verbatim')).toBe(true)
          continue
        }
        lost++
        expect(v.verdict, `${file} ${fact}`).toBe('lost')
        // The last copy went with the last summarize pass that folded a message holding it.
        const folded = v.beforeIds
          .map((id) => r.fates[id])
          .filter((f) => f?.kind === 'summarized' && f.stage === 'summarize')
          .map((f) => (f?.kind === 'summarized' ? f.pass : 0))
        if (folded.length === v.beforeIds.length) {
          expect(v.lost?.stage).toBe('summarize')
          expect(v.lost?.pass).toBe(Math.max(...folded))
          expect(v.lost?.replacedBy.kind).toBe('summary')
          // The sentence ends in that loss (after the history of earlier losses and returns, if any).
          const pass = Math.max(...folded)
          expect(v.explanation).toMatch(lastLossAt(pass))
          expect(v.history?.filter((e) => e.kind === 'lost').at(-1)).toMatchObject({ stage: 'summarize', pass })
        } else expect(v.lost).toBeDefined()
      }
      // Keep 2 folds every sample's older turns: at least one scenario fact goes with them.
      expect(lost).toBeGreaterThan(0)
    })
  }
})
