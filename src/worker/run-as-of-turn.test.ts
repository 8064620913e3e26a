import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import type { PipelineConfig } from '../engine/model'
import { createEngineApi } from './engine-api'
import { restoreBeforePreviews, type RunView } from './protocol'

const engineApi = createEngineApi()
const fixture = readFileSync('test/fixtures/playback/three-turns.json', 'utf8')

/** Summarize only, firing early on this nine-message session. */
function summarizeOnly(): PipelineConfig {
  const config = engineApi.getDefaults()
  return {
    ...config,
    stages: config.stages.map((s) =>
      s.id === 'summarize' ? { ...s, enabled: true, params: { ...s.params, compact_after: 3, keep_last: 2 } } : { ...s, enabled: false },
    ),
  }
}

async function runAsOf(config: PipelineConfig, runId: number, asOfTurn?: number, previewsOf?: string): Promise<RunView> {
  const options = { ...(asOfTurn === undefined ? {} : { asOfTurn }), ...(previewsOf ? { previewsOf } : {}) }
  const out = await engineApi.run(config, runId, options)
  if (!out.ok) throw new Error(`run failed: ${out.error}`)
  return out.view
}

describe('a run as of turn N', () => {
  // The fixture's turns end at its assistant answers without tool calls: messages 4, 6 and 8.
  it('runs the prefix up to the turn’s end and says which turn it is of how many', async () => {
    expect(engineApi.importText(fixture, 'three-turns.json').ok).toBe(true)
    const config = summarizeOnly()
    const t1 = await runAsOf(config, 1, 1)
    expect(t1.before.rows.map((r) => r.index)).toEqual([0, 1, 2, 3, 4])
    expect(t1.asOf).toEqual({ turn: 1, turns: 3, endIndex: 4 })
    const t2 = await runAsOf(config, 2, 2)
    expect(t2.before.totals.messages).toBe(7)
    expect(t2.asOf).toEqual({ turn: 2, turns: 3, endIndex: 6 })
    // Out of range: clamped to 1..3.
    expect((await runAsOf(config, 3, 0)).asOf).toEqual({ turn: 1, turns: 3, endIndex: 4 })
    expect((await runAsOf(config, 4, 99)).asOf).toEqual({ turn: 3, turns: 3, endIndex: 8 })
  })

  it('has the After the Turn N view has at that turn, and at the last turn the full run’s', async () => {
    expect(engineApi.importText(fixture, 'three-turns.json').ok).toBe(true)
    const config = summarizeOnly()
    for (const turn of [1, 2, 3]) {
      const view = await runAsOf(config, 10 + turn, turn)
      const context = await engineApi.getTurnContext(config, turn, turn)
      if (!context.ok) throw new Error(context.error)
      expect(view.after.rows.map((r) => r.id)).toEqual(context.view.rows.map((r) => r.id))
      expect(view.after.totals.tokens).toBe(context.view.tokens)
      expect(view.passes.length).toBe(context.view.passes.length)
    }
    const last = await runAsOf(config, 20, 3)
    const full = await runAsOf(config, 21)
    expect(full.asOf).toBeUndefined()
    // compact_after 3: more than three unsummarized messages by the end of turn 1 already.
    expect(full.passes.length).toBeGreaterThan(0)
    expect(last.after.rows).toEqual(full.after.rows)
    expect(last.before.rows).toEqual(full.before.rows)
    expect(last.passes).toEqual(full.passes)
  })

  it('takes its slim Before rows from a view of more turns, never from one of fewer', async () => {
    expect(engineApi.importText(fixture, 'three-turns.json').ok).toBe(true)
    const config = summarizeOnly()
    const full = await runAsOf(config, 1)
    const t2 = await runAsOf(config, 2, 2, full.transcriptKey)
    expect(t2.beforePreviewsOmitted).toBe(true)
    const fewer = structuredClone(t2)
    expect(restoreBeforePreviews(t2, full)).toBe(true)
    expect(t2.before.rows).toEqual((await runAsOf(config, 3, 2)).before.rows)
    const t3 = await runAsOf(config, 4, 3, full.transcriptKey)
    expect(restoreBeforePreviews(t3, fewer)).toBe(false)
  })
})
