import { readFileSync } from 'node:fs'
import fc from 'fast-check'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { importTranscript } from './formats'
import type { PipelineConfig, StageId, Transcript } from './model'
import { DEFAULT_PIPELINE, failureModesOf, runPipeline } from './pipeline'
import { STAGE_DEFINITIONS, type StageParamDef } from './stages/definitions'
import { STAGE_RUNNERS } from './stages/registry'
import { countCodePoints } from './stages/test-helpers'
import { STAGE_MEMO_PER_INPUT } from './stage-memo'
import { cacheCounter, textsToCount } from './tokens/count'

/**
 * The incremental re-plan (stage-memo.ts): a run over a transcript the engine has already run
 * reuses the outputs of the stages whose input and settings did not change. It must be invisible:
 * after any walk of parameter changes, every warm run deep-equals a cold run of the same config
 * over a fresh copy of the transcript (other message objects, so no memo or per-message cache can
 * answer), and only the stages from the first changed one run again.
 */

function load(name: string): Transcript {
  const text = readFileSync(new URL(`../../public/samples/${name}`, import.meta.url), 'utf8')
  const imported = importTranscript(text, { fileName: name })
  if (!imported.ok) throw new Error(imported.error.message)
  return imported.transcript
}

/** One step of a walk: a stage switched, a param set, or two neighbouring stages swapped. */
type Step =
  | { kind: 'toggle'; stage: StageId }
  | { kind: 'param'; stage: StageId; key: string; value: unknown }
  | { kind: 'swap'; at: number }

/** Values a count param may take in a walk: around the small numbers the samples are sized for. */
function countValues(p: StageParamDef): fc.Arbitrary<number> {
  if (p.fraction) return fc.constantFrom(0.25, 0.5, 0.9, 1)
  if (p.unit === 'tokens') return fc.constantFrom(0, 200, 1_000, 4_000, 20_000)
  return fc.integer({ min: 0, max: 24 })
}

const paramSteps: fc.Arbitrary<Step>[] = STAGE_DEFINITIONS.flatMap((d) =>
  d.params.flatMap((p): fc.Arbitrary<Step>[] => {
    const value =
      p.type === 'count'
        ? countValues(p)
        : p.type === 'flag'
          ? fc.boolean()
          : p.type === 'choice' && p.choices
            ? fc.constantFrom(...p.choices)
            : undefined
    return value ? [value.map((v): Step => ({ kind: 'param', stage: d.id, key: p.key, value: v }))] : []
  }),
)

const stepArb: fc.Arbitrary<Step> = fc.oneof(
  { weight: 3, arbitrary: fc.oneof(...paramSteps) },
  { weight: 1, arbitrary: fc.constantFrom(...STAGE_DEFINITIONS.map((d) => d.id)).map((stage): Step => ({ kind: 'toggle', stage })) },
  { weight: 1, arbitrary: fc.nat(STAGE_DEFINITIONS.length - 2).map((at): Step => ({ kind: 'swap', at })) },
)

function apply(config: PipelineConfig, step: Step): PipelineConfig {
  const c = structuredClone(config)
  if (step.kind === 'swap') {
    const [a, b] = [c.stages[step.at], c.stages[step.at + 1]]
    if (a && b) c.stages.splice(step.at, 2, b, a)
    return c
  }
  const stage = c.stages.find((s) => s.id === step.stage)
  if (!stage) throw new Error(`no ${step.stage} stage`)
  if (step.kind === 'toggle') stage.enabled = !stage.enabled
  else (stage.params as Record<string, unknown>)[step.key] = step.value
  return c
}

const coldRun = (transcript: Transcript, config: PipelineConfig) =>
  runPipeline(structuredClone(transcript), config, { counter: cacheCounter('o200k_base', countCodePoints) })

describe('incremental re-plans (stage memo)', () => {
  afterEach(() => vi.restoreAllMocks())

  for (const name of ['claude-code.jsonl', 'openai-chat.json']) {
    it(`${name}: after any walk of parameter changes, each warm re-plan deep-equals a cold run and re-tokenizes no transcript text`, async () => {
      const transcript = load(name)
      const own = textsToCount(transcript.messages, transcript.tools)
      await fc.assert(
        fc.asyncProperty(fc.array(stepArb, { minLength: 1, maxLength: 6 }), async (steps) => {
          // One counter for the whole walk, as the worker keeps one: the memo and the caches warm up.
          const tokenized: string[] = []
          const counter = cacheCounter('o200k_base', (text) => (tokenized.push(text), countCodePoints(text)))
          let config: PipelineConfig = DEFAULT_PIPELINE
          await runPipeline(transcript, config, { counter })
          const firstRun = tokenized.length
          for (const step of steps) {
            config = apply(config, step)
            const warm = await runPipeline(transcript, config, { counter })
            expect(warm).toEqual(await coldRun(transcript, config))
          }
          // No re-plan of the walk tokenized a text of the transcript again (only new summaries, blocks).
          expect(tokenized.slice(firstRun).filter((t) => own.has(t))).toEqual([])
        }),
        { numRuns: 25 },
      )
    })
  }

  it('a keep_last change runs summarize alone: dedupe and prune reuse their outputs', async () => {
    const transcript = load('claude-code.jsonl')
    const counter = cacheCounter('o200k_base', countCodePoints)
    await runPipeline(transcript, DEFAULT_PIPELINE, { counter })
    const runs = (['dedupe', 'prune-tool-results', 'summarize'] as const).map((id) => vi.spyOn(STAGE_RUNNERS, id))
    const config = apply(DEFAULT_PIPELINE, { kind: 'param', stage: 'summarize', key: 'keep_last', value: 3 })
    const result = await runPipeline(transcript, config, { counter })
    expect(runs.map((r) => r.mock.calls.length)).toEqual([0, 0, 1])
    // The same config again runs no stage at all.
    await runPipeline(transcript, config, { counter })
    expect(runs.map((r) => r.mock.calls.length)).toEqual([0, 0, 1])
    expect(result).toEqual(await coldRun(transcript, config))
  })

  it(`keeps the last ${STAGE_MEMO_PER_INPUT} settings per input: an older one runs again`, async () => {
    const transcript = load('claude-code.jsonl')
    const counter = cacheCounter('o200k_base', countCodePoints)
    const keepLast = (n: number) => apply(DEFAULT_PIPELINE, { kind: 'param', stage: 'summarize', key: 'keep_last', value: n })
    for (let n = 1; n <= STAGE_MEMO_PER_INPUT + 1; n++) await runPipeline(transcript, keepLast(n), { counter })
    const summarize = vi.spyOn(STAGE_RUNNERS, 'summarize')
    await runPipeline(transcript, keepLast(STAGE_MEMO_PER_INPUT + 1), { counter }) // kept
    await runPipeline(transcript, keepLast(2), { counter }) // kept (the 8 newest are 2…9)
    expect(summarize).not.toHaveBeenCalled()
    await runPipeline(transcript, keepLast(1), { counter }) // the oldest, dropped
    expect(summarize).toHaveBeenCalledTimes(1)
  })

  it('a summarizer passed by the caller is reused only when it is the same function', async () => {
    const transcript = load('claude-code.jsonl')
    const counter = cacheCounter('o200k_base', countCodePoints)
    const summarizer = async () => 'Summary of the earlier turns.'
    await runPipeline(transcript, DEFAULT_PIPELINE, { counter, summarizer })
    const summarize = vi.spyOn(STAGE_RUNNERS, 'summarize')
    await runPipeline(transcript, DEFAULT_PIPELINE, { counter, summarizer })
    expect(summarize).not.toHaveBeenCalled()
    const other = async () => 'Another summary.'
    const result = await runPipeline(transcript, DEFAULT_PIPELINE, { counter, summarizer: other })
    expect(summarize).toHaveBeenCalledTimes(1)
    expect(result.passes.map((p) => p.summary)).toContain('Another summary.')
  })

  it('a cancelled run keeps nothing: the next run of that config runs its stages', async () => {
    const transcript = load('claude-code.jsonl')
    const counter = cacheCounter('o200k_base', countCodePoints)
    const controller = new AbortController()
    controller.abort()
    const cancelled = await runPipeline(transcript, DEFAULT_PIPELINE, { counter, signal: controller.signal })
    expect(cancelled.stages.every((s) => s.error === 'cancelled')).toBe(true)
    const summarize = vi.spyOn(STAGE_RUNNERS, 'summarize')
    const result = await runPipeline(transcript, DEFAULT_PIPELINE, { counter })
    expect(summarize).toHaveBeenCalledTimes(1)
    summarize.mockRestore()
    expect(result).toEqual(await coldRun(transcript, DEFAULT_PIPELINE))
  })
})

describe('failure-mode checks left for later (deferFailureModes)', () => {
  it('failureModesOf gives what the run would have carried, and keeps it on the result', async () => {
    const transcript = load('claude-code.jsonl')
    const counter = cacheCounter('o200k_base', countCodePoints)
    const full = await runPipeline(transcript, DEFAULT_PIPELINE, { counter })
    // The sample's default run raises failure-mode warnings: the comparison is not of two empty lists.
    expect(full.checks.failureModes?.length).toBeGreaterThan(0)
    const deferred = await runPipeline(transcript, DEFAULT_PIPELINE, { counter, deferFailureModes: true })
    expect(deferred.checks.failureModes).toBeUndefined()
    expect(deferred.checks.after).toEqual(full.checks.after)
    const warnings = failureModesOf(deferred)
    expect(warnings).toEqual(full.checks.failureModes)
    expect(failureModesOf(deferred)).toBe(warnings)
    expect(deferred).toEqual(full)
  })

  it('a run that changed nothing has none, computed or not', async () => {
    const transcript = load('claude-code.jsonl')
    const counter = cacheCounter('o200k_base', countCodePoints)
    const off = structuredClone(DEFAULT_PIPELINE)
    for (const s of off.stages) s.enabled = false
    const deferred = await runPipeline(transcript, off, { counter, deferFailureModes: true })
    expect(failureModesOf(deferred)).toEqual([])
  })
})
