/**
 * Fact finder acceptance, the LLM half: on every bundled sample, with the real openai-compatible
 * summarizer talking HTTP to the local test server (test/llm-server.ts on 127.0.0.1, no mocks)
 * and the server answering summaries that omit one scenario fact, the finder says the fact is
 * lost and names the stage and pass that dropped its last copy. The expected pass is derived
 * from the fates the run recorded, independently of the finder's walk over summary chains.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { lastLossAt } from '../../../test/verdict-words'
import { SAMPLE_FILES, SCENARIO, loadSample } from '../../../test/sample-scenarios'
import { startLlmServer, type LlmServer, type RecordedRequest } from '../../../test/llm-server'
import { findFact } from './finder'
import { findFactSpans, messageFactText } from './patterns'
import type { PipelineConfig, RunResult, Transcript } from '../model'
import { DEFAULT_PIPELINE, runPipeline } from '../pipeline'
import type { FetchLike } from '../summarizers/fetch-types'
import { loadCounter } from '../tokens/count'


const nodeFetch: FetchLike = (url, init) => fetch(url, init as RequestInit)

let server: LlmServer
/** The fact the server's summaries leave out (set per test; tests in a file run in order). */
let omitted = ''

/**
 * What the test model answers: the facts of everything it was asked to summarize (the slice and
 * the previous summary), except any holding `omitted` — an LLM that forgot one fact.
 */
function answer(request: RecordedRequest): { text: string } {
  const facts = findFactSpans(request.lastUserText)
    .map((s) => s.fact)
    .filter((f) => !f.includes(omitted))
  return { text: `Facts: ${facts.join('; ')}`.split(omitted).join('') }
}

beforeAll(async () => {
  server = await startLlmServer({ defaultAnswer: answer })
})
afterAll(() => server.close())

/** keep_last 2 / compact_after 4 so summarize folds every sample's older turns, over HTTP. */
function config(): PipelineConfig {
  return {
    ...DEFAULT_PIPELINE,
    summarizer: 'openai-compatible',
    summarizerOptions: { baseUrl: server.openaiBaseUrl, model: 'test-model', stream: false },
    stages: DEFAULT_PIPELINE.stages.map((s) =>
      s.id === 'summarize' ? { ...s, params: { keep_last: 2, compact_after: 4 } } : s,
    ),
  }
}

async function run(t: Transcript): Promise<RunResult> {
  return runPipeline(t, config(), {
    counter: await loadCounter('o200k_base'),
    summarizerRuntime: { fetch: nodeFetch },
  })
}

describe('an LLM summary omitting a scenario fact: the finder names the pass that lost it', () => {
  it('covers every sample of the gallery', () => {
    expect(SAMPLE_FILES.filter((f) => !(f in SCENARIO))).toEqual([])
  })

  for (const file of SAMPLE_FILES) {
    it(`${file}`, async () => {
      const t = loadSample(file)
      let lost = 0
      for (const fact of SCENARIO[file] ?? []) {
        omitted = fact
        server.reset()
        const r = await run(t)
        // The summaries really came from the server, and none of them holds the fact.
        expect(r.stages.find((s) => s.stage === 'summarize')?.error).toBeUndefined()
        const passes = r.passes.filter((p) => p.stage === 'summarize')
        expect(server.requests.length).toBe(passes.length)
        for (const p of passes) expect(p.summary).not.toContain(fact)

        const v = findFact(r, fact)
        const held = r.after.messages.filter((m) => messageFactText(m).includes(fact))
        if (held.length > 0) {
          // Still verbatim in the kept tail (or an unsummarized message): it survives.
          expect(v.verdict, `${file} ${fact}`).toBe('survives')
          expect(v.where.map((w) => w.id).sort()).toEqual(held.map((m) => m.id).sort())
          continue
        }
        lost++
        expect(v.verdict, `${file} ${fact}`).toBe('lost')
        const fates = v.beforeIds.map((id) => r.fates[id])
        const folded = fates.flatMap((f) => (f?.kind === 'summarized' && f.stage === 'summarize' ? [f.pass] : []))
        if (folded.length === fates.length) {
          // Every copy went into a summary that omits it: the last copy went with the last fold.
          const pass = Math.max(...folded)
          expect(v.lost?.stage).toBe('summarize')
          expect(v.lost?.pass).toBe(pass)
          expect(v.lost?.replacedBy).toMatchObject({ kind: 'summary', summaryId: `summary:summarize:${pass}` })
          expect(v.explanation).toMatch(lastLossAt(pass))
        } else {
          // Some copy went another way (pruned, back-referenced): the stage named is one that took a copy.
          expect(fates.map((f) => (f && 'stage' in f ? f.stage : undefined))).toContain(v.lost?.stage)
        }
      }
      // keep 2 folds every sample's older turns: at least one scenario fact goes with them.
      expect(lost).toBeGreaterThan(0)
    })
  }
})
