/**
 * The offline summarizer on every bundled sample: each summarize pass's summary holds, verbatim,
 * every value stated in an ordinary user message it folded (`messageFactSpans`, seed 001
 * "every fact the customer stated") and every standing rule of one (`instructionLines`, seed
 * 004 "constraints hamesha full text"), and those of the passes before it (a rolling summary
 * carries the previous one's). Under DEFAULT_PIPELINE, and under keep_last 2 / compact_after 4,
 * which makes summarize fire on every sample.
 */
import { describe, expect, it } from 'vitest'
import { SAMPLE_FILES, loadSample } from '../../../test/sample-scenarios'
import { isOrdinaryUser } from '../facts/classify'
import { contentText } from '../content'
import { instructionLines, messageFactSpans } from '../facts/patterns'
import type { Message, Pass, PipelineConfig, RunResult } from '../model'
import { DEFAULT_PIPELINE, runPipeline } from '../pipeline'
import { loadCounter } from '../tokens/count'
import { extractiveSummarizer } from './extractive'

/** Summarize fires on every sample: keep 2, compact after 4 (the rest as DEFAULT_PIPELINE). */
const AGGRESSIVE: PipelineConfig = {
  ...DEFAULT_PIPELINE,
  stages: DEFAULT_PIPELINE.stages.map((s) =>
    s.id === 'summarize' ? { ...s, params: { keep_last: 2, compact_after: 4 } } : s,
  ),
}

/** The before messages a pass folded: indices `from`..`upto-1`, less the ones it kept. */
function folded(r: RunResult, p: Pass): Message[] {
  return r.before.messages.filter((m) => m.index >= p.from && m.index < p.upto && !p.kept?.includes(m.index))
}

/** The values the user stated in `messages`, each once, in order. */
function statedValues(messages: readonly Message[]): string[] {
  const out = new Set<string>()
  for (const m of messages) if (isOrdinaryUser(m)) for (const s of messageFactSpans(m)) out.add(s.fact)
  return [...out]
}

/** The standing rules of the ordinary user messages in `messages`, each once, in order. */
function ruleLines(messages: readonly Message[]): string[] {
  const out = new Set<string>()
  for (const m of messages) if (isOrdinaryUser(m)) for (const l of instructionLines(contentText(m.content))) out.add(l)
  return [...out]
}

describe('the offline summary of each bundled sample holds every user-stated value and rule of its slice', () => {
  for (const [name, config] of [
    ['DEFAULT_PIPELINE', DEFAULT_PIPELINE],
    ['keep_last 2 / compact_after 4', AGGRESSIVE],
  ] as const) {
    it(`${name}: every pass of every sample`, async () => {
      const counter = await loadCounter('o200k_base')
      let passes = 0
      for (const file of SAMPLE_FILES) {
        const r = await runPipeline(loadSample(file), config, { counter, summarizer: extractiveSummarizer })
        const summarizing = r.passes.filter((p) => p.stage === 'summarize')
        if (config === AGGRESSIVE) expect(summarizing.length, file).toBeGreaterThan(0)
        const before: Message[] = []
        for (const p of summarizing) {
          before.push(...folded(r, p))
          const missing = statedValues(before).filter((v) => !p.summary.includes(v))
          expect(missing, `${file} pass ${p.pass}`).toEqual([])
          const lostRules = ruleLines(before).filter((l) => !p.summary.includes(l))
          expect(lostRules, `${file} pass ${p.pass} rules`).toEqual([])
          passes++
        }
      }
      expect(passes).toBeGreaterThan(0)
    })
  }
})
