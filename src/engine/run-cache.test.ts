import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { importTranscript } from './formats'
import type { PipelineConfig, Transcript } from './model'
import { DEFAULT_PIPELINE, runPipeline } from './pipeline'
import { countCodePoints } from './stages/test-helpers'
import { cacheCounter } from './tokens/count'

/**
 * BENCH B4: a re-plan reuses what the engine derived per message object (token counts,
 * dedupe's SHA-256 and summaries, fact spans, prompt lines, the Before's validity problems). The
 * caches must be invisible: a run over the same, already-seen message objects gives exactly the
 * RunResult of a run over a fresh copy of the transcript that no cache has seen.
 */

const SAMPLES = ['claude-code.jsonl', 'codex-rollout.jsonl', 'openai-chat.json', 'anthropic-messages.json']

function load(name: string): Transcript {
  const text = readFileSync(new URL(`../../public/samples/${name}`, import.meta.url), 'utf8')
  const imported = importTranscript(text, { fileName: name })
  if (!imported.ok) throw new Error(imported.error.message)
  return imported.transcript
}

function variant(edit: (c: PipelineConfig) => void): PipelineConfig {
  const c = structuredClone(DEFAULT_PIPELINE)
  edit(c)
  return c
}

const param = (c: PipelineConfig, id: string, key: string, value: unknown) => {
  const s = c.stages.find((x) => x.id === id)
  if (!s) throw new Error(`no ${id} stage`)
  ;(s.params as Record<string, unknown>)[key] = value
}

const CONFIGS: [string, PipelineConfig][] = [
  ['default', DEFAULT_PIPELINE],
  ['keep_last 5', variant((c) => param(c, 'summarize', 'keep_last', 5))],
  ['keep_last 3, compact_after 6', variant((c) => (param(c, 'summarize', 'keep_last', 3), param(c, 'summarize', 'compact_after', 6)))],
  ['every stage on', variant((c) => c.stages.forEach((s) => (s.enabled = true)))],
]

describe('per-message caches never change a result (B4)', () => {
  for (const name of SAMPLES) {
    it(`${name}: warm re-plans deep-equal cold runs on a fresh copy`, async () => {
      const transcript = load(name)
      const counter = cacheCounter('o200k_base', countCodePoints)
      // Warm every cache with the first config, then re-plan through the others.
      for (const [label, config] of CONFIGS) {
        const warm = await runPipeline(transcript, config, { counter })
        const again = await runPipeline(transcript, config, { counter })
        // A fresh copy: other message objects, so no per-object cache can answer for them.
        const coldCounter = cacheCounter('o200k_base', countCodePoints)
        const cold = await runPipeline(structuredClone(transcript), config, { counter: coldCounter })
        expect(warm, label).toEqual(cold)
        expect(again, label).toEqual(cold)
      }
    })
  }

  it('a caller editing its RunResult does not reach the next run', async () => {
    const transcript = load('claude-code.jsonl')
    const counter = cacheCounter('o200k_base', countCodePoints)
    const first = await runPipeline(transcript, DEFAULT_PIPELINE, { counter })
    const expected = structuredClone(first.checks.before)
    first.checks.before.push({ rule: 'orphan-tool-result', messageIds: ['x'], message: 'edited' })
    first.checks.before[0]?.messageIds.push('y')
    const second = await runPipeline(transcript, DEFAULT_PIPELINE, { counter })
    expect(second.checks.before).toEqual(expected)
  })
})
