import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { importTranscript } from '../formats'
import type { Message, PipelineConfig } from '../model'
import { DEFAULT_PIPELINE, runPipeline } from '../pipeline'
import { countCodePoints } from '../stages/test-helpers'
import { cacheCounter, textsToCount } from './count'

/**
 * BENCH.md B4 as a budget that is not a timing: a re-plan after a keep_last change reuses every
 * count of the first run, so the tokenizer sees no text of the transcript again; the only texts
 * it counts are ones that did not exist before (the new summaries).
 */

const sample = readFileSync(new URL('../../../public/samples/claude-code.jsonl', import.meta.url), 'utf8')

function withKeepLast(config: PipelineConfig, keepLast: number): PipelineConfig {
  const c = structuredClone(config)
  const s = c.stages.find((x) => x.id === 'summarize')
  if (!s) throw new Error('no summarize stage')
  s.params.keep_last = keepLast
  return c
}

/** Texts of the messages a run synthesized (origin other than original/back-reference/placeholder). */
function synthesizedTexts(after: readonly Message[], origins: Record<string, { kind: string }>): Set<string> {
  const derived = after.filter((m) => !['original', 'back-reference', 'placeholder'].includes(origins[m.id]?.kind ?? ''))
  return textsToCount(derived, undefined)
}

describe('re-plans reuse counts (B4: zero tokenizer calls)', () => {
  it('changing keep_last re-counts no text of the transcript, only the new summaries', async () => {
    const imported = importTranscript(sample, { fileName: 'claude-code.jsonl' })
    if (!imported.ok) throw new Error(imported.error.message)
    const transcript = imported.transcript
    const counted: string[] = []
    const counter = cacheCounter('o200k_base', (text) => {
      counted.push(text)
      return countCodePoints(text)
    })

    const first = await runPipeline(transcript, DEFAULT_PIPELINE, { counter })
    // The sample is long enough for the default summarize to fire: the re-plan has new summaries.
    expect(first.passes.some((p) => p.stage === 'summarize')).toBe(true)
    const own = textsToCount(transcript.messages, transcript.tools)
    // The first run counted every text of the transcript once.
    expect(counted.filter((t) => own.has(t)).length).toBe(own.size)

    const firstCalls = counted.length
    const second = await runPipeline(transcript, withKeepLast(DEFAULT_PIPELINE, 10), { counter })
    const replanned = counted.slice(firstCalls)

    expect(replanned.filter((t) => own.has(t))).toEqual([])
    // What was tokenized is the new summaries, or segments of them (`countComposed`).
    const fresh = [...synthesizedTexts(second.after.messages, second.origins)]
    expect(replanned.length).toBeGreaterThan(0)
    for (const text of replanned) expect(fresh.some((f) => f.includes(text))).toBe(true)
    expect(counter.tokenizerCalls).toBe(counted.length)

    // The same config again: everything is cached, not a single call.
    const before = counter.tokenizerCalls
    await runPipeline(transcript, withKeepLast(DEFAULT_PIPELINE, 10), { counter })
    expect(counter.tokenizerCalls).toBe(before)
  })

  it('a primed count is used as is and is not a tokenizer call', () => {
    let calls = 0
    const counter = cacheCounter('o200k_base', (text) => {
      calls++
      return countCodePoints(text)
    })
    expect(counter.has?.('hello')).toBe(false)
    counter.prime?.('hello', 7)
    expect(counter.has?.('hello')).toBe(true)
    expect(counter.count('hello')).toBe(7)
    expect(calls).toBe(0)
    expect(counter.tokenizerCalls).toBe(0)
    // The empty string is never a call and always "counted".
    expect(counter.has?.('')).toBe(true)
    expect(counter.count('')).toBe(0)
  })
})
