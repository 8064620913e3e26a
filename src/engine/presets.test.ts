import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { importTranscript } from './formats/index'
import type { PipelineConfig, StageConfig, StageId } from './model'
import { DEFAULT_PIPELINE, runPipeline } from './pipeline'
import { applyPreset, matchPreset, presetById, PRESETS } from './presets'
import { loadCounter } from './tokens/count'

const STAGES: StageId[] = ['dedupe', 'slim', 'prune-tool-results', 'summarize', 'insert-then-compress', 'pin-facts']
const stage = (stages: readonly StageConfig[], id: StageId) => stages.find((s) => s.id === id)!
const enabled = (stages: readonly StageConfig[]) => stages.filter((s) => s.enabled).map((s) => s.id)

describe('PRESETS: the named strategies and their stage lists', () => {
  it('are the four named strategies, in picker order', () => {
    expect(PRESETS.map((p) => p.name)).toEqual([
      'Seed defaults',
      'Clear tool uses (Anthropic context editing style)',
      'Codex-style insert-then-compress',
      'OpenHands-style keep first + half window',
    ])
    for (const p of PRESETS) {
      expect(p.stages.map((s) => s.id).sort()).toEqual([...STAGES].sort())
      expect(p.source.length).toBeGreaterThan(40)
      expect(p.differs.length).toBeGreaterThan(40)
    }
  })

  it('seed defaults: keep_last 20 / compact_after 40, keep_steps 1 / min_tokens 200, dedupe → prune → summarize', () => {
    const p = presetById('seed-defaults')!
    expect(enabled(p.stages)).toEqual(['dedupe', 'prune-tool-results', 'summarize'])
    expect(stage(p.stages, 'summarize').params).toEqual({ keep_last: 20, compact_after: 40 })
    expect(stage(p.stages, 'prune-tool-results').params).toMatchObject({ keep_steps: 1, min_tokens: 200 })
  })

  it('clear tool uses: prune only, keep 3 tool uses, a trigger, exclude_tools and clear_at_least', () => {
    const p = presetById('clear-tool-uses')!
    expect(enabled(p.stages)).toEqual(['prune-tool-results'])
    expect(stage(p.stages, 'prune-tool-results').params).toEqual({
      target: 10000,
      keep_steps: 1,
      min_tokens: 0,
      keep_tool_uses: 3,
      clear_at_least: 2000,
      exclude_tools: ['web_search'],
    })
  })

  it('Codex style: insert-then-compress only', () => {
    const p = presetById('codex-insert-then-compress')!
    expect(enabled(p.stages)).toEqual(['insert-then-compress'])
    expect(stage(p.stages, 'insert-then-compress').params).toEqual({ threshold_tokens: 5000, keep_recent: 4 })
  })

  it('OpenHands style: max_size 120, keep_first 4 → keep_last 120/2 − 4 − 1 = 55, compact_after 120 − 4 − 1 = 115, goal pinned', () => {
    const p = presetById('openhands-keep-first')!
    expect(enabled(p.stages)).toEqual(['summarize', 'pin-facts'])
    expect(stage(p.stages, 'summarize').params).toEqual({ keep_last: 55, compact_after: 115 })
  })
})

describe('applyPreset / matchPreset', () => {
  const mine: PipelineConfig = {
    ...structuredClone(DEFAULT_PIPELINE),
    encoding: 'cl100k_base',
    summarizer: 'openai-compatible',
    summarizerOptions: { baseUrl: 'http://127.0.0.1:11434/v1', model: 'llama3.2' },
  }

  it('replaces the stage list with a copy and keeps the encoding and summarizer settings', () => {
    const p = presetById('codex-insert-then-compress')!
    const out = applyPreset(p, mine)
    expect(out.encoding).toBe('cl100k_base')
    expect(out.summarizer).toBe('openai-compatible')
    expect(out.summarizerOptions).toEqual({ baseUrl: 'http://127.0.0.1:11434/v1', model: 'llama3.2' })
    expect(out.stages).toEqual(p.stages)
    expect(out.stages).not.toBe(p.stages)
    expect(out.stages[4]).not.toBe(p.stages[4])
  })

  it('the default pipeline is the seed-defaults preset; each applied preset matches itself', () => {
    expect(presetById('seed-defaults')!.stages).toEqual(DEFAULT_PIPELINE.stages)
    expect(matchPreset(DEFAULT_PIPELINE)?.id).toBe('seed-defaults')
    for (const p of PRESETS) expect(matchPreset(applyPreset(p, mine))?.id).toBe(p.id)
  })

  it('a changed param or order is no preset; key order does not matter', () => {
    const moved = applyPreset(presetById('seed-defaults')!, mine)
    ;(stage(moved.stages, 'summarize').params as { keep_last: number }).keep_last = 21
    expect(matchPreset(moved)).toBeUndefined()
    const reordered = applyPreset(presetById('seed-defaults')!, mine)
    reordered.stages.reverse()
    expect(matchPreset(reordered)).toBeUndefined()
    const keys = applyPreset(presetById('codex-insert-then-compress')!, mine)
    const itc = stage(keys.stages, 'insert-then-compress')
    itc.params = { keep_recent: 4, threshold_tokens: 5000 }
    expect(matchPreset(keys)?.id).toBe('codex-insert-then-compress')
  })
})

describe('presets on the Claude Code sample (44 messages, 19,526 tokens o200k_base)', () => {
  const text = readFileSync(new URL('../../public/samples/claude-code.jsonl', import.meta.url), 'utf8')
  const imported = importTranscript(text, { fileName: 'claude-code.jsonl' })
  if (!imported.ok) throw new Error(imported.error.message)
  const transcript = imported.transcript

  it('every preset runs without a stage error; the strategy stage of the first three fires, OpenHands summarize (above ~115 messages) does not', async () => {
    const counter = await loadCounter('o200k_base')
    const fired: Record<string, boolean | undefined> = {}
    const strategy: Record<string, StageId> = {
      'seed-defaults': 'summarize',
      'clear-tool-uses': 'prune-tool-results',
      'codex-insert-then-compress': 'insert-then-compress',
      'openhands-keep-first': 'summarize',
    }
    for (const p of PRESETS) {
      const result = await runPipeline(transcript, applyPreset(p, DEFAULT_PIPELINE), { counter })
      expect(result.stages.filter((s) => s.error !== undefined)).toEqual([])
      fired[p.id] = result.stages.find((s) => s.stage === strategy[p.id])?.changed
    }
    expect(fired).toEqual({
      'seed-defaults': true,
      'clear-tool-uses': true,
      'codex-insert-then-compress': true,
      'openhands-keep-first': false,
    })
  })
})
