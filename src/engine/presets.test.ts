/**
 * The preset list as data: ids, picker order, sources with their date, what each runs, and
 * `applyPreset` / `matchPreset`. Where each preset fires and what it keeps is in
 * agent-presets.test.ts; its decision log on the samples in preset-decisions.test.ts.
 */
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { importTranscript } from './formats/index'
import type { PipelineConfig, StageConfig, StageId } from './model'
import { DEFAULT_WINDOW } from './models'
import { DEFAULT_PIPELINE, runPipeline } from './pipeline'
import { applyPreset, compareVersions, matchPreset, presetById, presetStagesFor, presetVersionNote, PRESETS } from './presets'
import { summarizeTrigger } from './stages/triggers'
import { loadCounter } from './tokens/count'

const STAGES: StageId[] = ['dedupe', 'slim', 'prune-tool-results', 'summarize', 'insert-then-compress', 'pin-facts']
const stage = (stages: readonly StageConfig[], id: StageId) => stages.find((s) => s.id === id)!
const enabled = (stages: readonly StageConfig[]) => stages.filter((s) => s.enabled).map((s) => s.id)

describe('PRESETS: the named strategies and their stage lists', () => {
  it('are the seeds’ defaults and ten agents, in picker order, with unique ids', () => {
    expect(PRESETS.map((p) => p.id)).toEqual([
      'seed-defaults',
      'claude-code-200k',
      'claude-code-1m',
      'codex-local',
      'gemini-cli',
      'anthropic-compaction',
      'anthropic-clear-tool-uses',
      'openhands-condenser',
      'openhands-masking',
      'aider',
      'deep-agents',
    ])
    expect(new Set(PRESETS.map((p) => p.id)).size).toBe(PRESETS.length)
    expect(new Set(PRESETS.map((p) => p.name)).size).toBe(PRESETS.length)
  })

  it('each lists every stage once, names the date its source was read and says where it differs', () => {
    for (const p of PRESETS) {
      expect(p.stages.map((s) => s.id).sort(), p.id).toEqual([...STAGES].sort())
      expect(p.source, p.id).toContain('December 2026')
      expect(p.differs.trim().length, p.id).toBeGreaterThan(0)
    }
  })

  it('each runs the stages its source describes', () => {
    expect(Object.fromEntries(PRESETS.map((p) => [p.id, enabled(p.stages)]))).toEqual({
      'seed-defaults': ['dedupe', 'prune-tool-results', 'summarize'],
      'claude-code-200k': ['summarize'],
      'claude-code-1m': ['summarize'],
      'codex-local': ['summarize'],
      'gemini-cli': ['summarize'],
      'anthropic-compaction': ['summarize'],
      'anthropic-clear-tool-uses': ['prune-tool-results'],
      'openhands-condenser': ['summarize', 'pin-facts'],
      'openhands-masking': ['prune-tool-results'],
      aider: ['summarize'],
      'deep-agents': ['summarize'],
    })
  })

  it('the window of the agents that name a model: 200K / 1M (Claude Code), 272,000 (GPT-5-Codex), 1,048,576 (Gemini), 200,000 (Deep Agents)', () => {
    expect(Object.fromEntries(PRESETS.filter((p) => p.window !== undefined).map((p) => [p.id, p.window]))).toEqual({
      'claude-code-200k': 200_000,
      'claude-code-1m': 1_000_000,
      'codex-local': 272_000,
      'gemini-cli': 1_048_576,
      'deep-agents': 200_000,
    })
  })

  it('seed defaults: keep_last 20 / compact_after 40 after each turn, keep_steps 1 / min_tokens 200', () => {
    const p = presetById('seed-defaults')!
    expect(stage(p.stages, 'summarize').params).toEqual({ keep_last: 20, compact_after: 40 })
    expect(stage(p.stages, 'prune-tool-results').params).toMatchObject({ keep_steps: 1, min_tokens: 200 })
  })

  it('Claude Code: a reserve of 20,000 (summary output) + 13,000 = 33,000, nothing kept, checked before each request', () => {
    for (const id of ['claude-code-200k', 'claude-code-1m']) {
      expect(stage(presetById(id)!.stages, 'summarize').params).toEqual({ trigger_reserve: 20_000 + 13_000, keep_tokens: 0, check: 'request' })
    }
  })
})

describe('applyPreset / matchPreset', () => {
  const mine: PipelineConfig = {
    ...structuredClone(DEFAULT_PIPELINE),
    encoding: 'cl100k_base',
    summarizer: 'openai-compatible',
    summarizerOptions: { baseUrl: 'http://127.0.0.1:11434/v1', model: 'llama3.2' },
    window: 128_000,
  }

  it('replaces the stage list with a copy and keeps the encoding and summarizer settings', () => {
    const p = presetById('aider')!
    const out = applyPreset(p, mine)
    expect(out.encoding).toBe('cl100k_base')
    expect(out.summarizer).toBe('openai-compatible')
    expect(out.summarizerOptions).toEqual({ baseUrl: 'http://127.0.0.1:11434/v1', model: 'llama3.2' })
    expect(out.stages).toEqual(p.stages)
    expect(out.stages).not.toBe(p.stages)
    expect(stage(out.stages, 'summarize')).not.toBe(stage(p.stages, 'summarize'))
    expect(stage(out.stages, 'summarize').params).not.toBe(stage(p.stages, 'summarize').params)
  })

  it('sets the preset’s window when it has one, else keeps the user’s', () => {
    expect(applyPreset(presetById('codex-local')!, mine).window).toBe(272_000)
    expect(applyPreset(presetById('claude-code-1m')!, mine).window).toBe(1_000_000)
    expect(applyPreset(presetById('aider')!, mine).window).toBe(128_000)
    expect(applyPreset(presetById('anthropic-compaction')!, DEFAULT_PIPELINE).window).toBeUndefined()
  })

  it('the default pipeline is the seed-defaults preset; each applied preset matches itself', () => {
    expect(presetById('seed-defaults')!.stages).toEqual(DEFAULT_PIPELINE.stages)
    expect(matchPreset(DEFAULT_PIPELINE)?.id).toBe('seed-defaults')
    for (const p of PRESETS) expect(matchPreset(applyPreset(p, mine))?.id, p.id).toBe(p.id)
  })

  it('Claude Code 200K and 1M share their stages: the window tells them apart (absent: 200,000)', () => {
    const stages = [...presetById('claude-code-200k')!.stages]
    expect(DEFAULT_WINDOW).toBe(200_000)
    expect(matchPreset({ stages })?.id).toBe('claude-code-200k')
    expect(matchPreset({ stages, window: 1_000_000 })?.id).toBe('claude-code-1m')
    expect(matchPreset({ stages, window: 500_000 })).toBeUndefined()
    // A preset with its own window matches only that window.
    expect(matchPreset({ stages: [...presetById('codex-local')!.stages], window: 400_000 })).toBeUndefined()
  })

  it('a changed param or order is no preset; key order does not matter', () => {
    const moved = applyPreset(presetById('seed-defaults')!, mine)
    ;(stage(moved.stages, 'summarize').params as { keep_last: number }).keep_last = 21
    expect(matchPreset(moved)).toBeUndefined()
    const reordered = applyPreset(presetById('seed-defaults')!, mine)
    reordered.stages.reverse()
    expect(matchPreset(reordered)).toBeUndefined()
    const keys = applyPreset(presetById('aider')!, mine)
    stage(keys.stages, 'summarize').params = { tail_start: 'user', keep_tokens: 4095, trigger_tokens: 8193 }
    expect(matchPreset(keys)?.id).toBe('aider')
  })
})

describe('presets on the Claude Code sample', () => {
  const text = readFileSync(new URL('../../public/samples/claude-code.jsonl', import.meta.url), 'utf8')
  const imported = importTranscript(text, { fileName: 'claude-code.jsonl' })
  if (!imported.ok) throw new Error(imported.error.message)
  const transcript = imported.transcript

  it('every preset runs without a stage error', async () => {
    const counter = await loadCounter('o200k_base')
    for (const p of PRESETS) {
      const result = await runPipeline(transcript, applyPreset(p, DEFAULT_PIPELINE), { counter, summarizer: () => Promise.resolve('S') })
      expect(result.stages.filter((s) => s.error !== undefined), p.id).toEqual([])
      expect(result.stages.map((s) => s.stage), p.id).toEqual(enabled(p.stages))
    }
  })
})

describe('Claude Code presets by agent version', () => {
  // agent-settings.md "Versions": before 2.1.21 the reserve was the full 32,000 output tokens +
  // 13,000 = 45,000; from 2.1.21 on, 20,000 + 13,000 = 33,000. The trigger is window − reserve.
  const session = (agentVersion?: string) => ({ format: 'claude-code' as const, agentVersion })
  const trigger = (config: PipelineConfig) => summarizeTrigger(stage(config.stages, 'summarize').params, config.window).threshold

  it('compareVersions orders versions part by part as numbers and refuses what is not a version', () => {
    expect(compareVersions('2.1.7', '2.1.21')).toBeLessThan(0)
    expect(compareVersions('2.1.37', '2.1.21')).toBeGreaterThan(0)
    expect(compareVersions('2.1.21', '2.1.21')).toBe(0)
    expect(compareVersions('2.1', '2.1.0')).toBe(0)
    expect(compareVersions('2.2', '2.1.99')).toBeGreaterThan(0)
    expect(compareVersions('v2.1.7-beta', '2.1.21')).toBeLessThan(0)
    expect(compareVersions('unknown', '2.1.21')).toBeUndefined()
    expect(compareVersions('', '2.1.21')).toBeUndefined()
  })

  it('200K: 155,000 before 2.1.21, 167,000 from 2.1.21 on and without a usable version', () => {
    const p = presetById('claude-code-200k')!
    expect(trigger(applyPreset(p, DEFAULT_PIPELINE, session('2.1.7')))).toBe(155_000)
    expect(trigger(applyPreset(p, DEFAULT_PIPELINE, session('2.1.20')))).toBe(155_000)
    expect(trigger(applyPreset(p, DEFAULT_PIPELINE, session('1.0.98')))).toBe(155_000)
    expect(trigger(applyPreset(p, DEFAULT_PIPELINE, session('2.1.21')))).toBe(167_000)
    expect(trigger(applyPreset(p, DEFAULT_PIPELINE, session('2.1.37')))).toBe(167_000)
    expect(trigger(applyPreset(p, DEFAULT_PIPELINE, session()))).toBe(167_000)
    expect(trigger(applyPreset(p, DEFAULT_PIPELINE, session('garbage')))).toBe(167_000)
    expect(trigger(applyPreset(p, DEFAULT_PIPELINE))).toBe(167_000)
    // Another agent's version (a Codex CLI 0.46.0 rollout) is not Claude Code's.
    expect(trigger(applyPreset(p, DEFAULT_PIPELINE, { format: 'codex-rollout', agentVersion: '0.46.0' }))).toBe(167_000)
  })

  it('1M: 1,000,000 − 45,000 = 955,000 before 2.1.21, 1,000,000 − 33,000 = 967,000 after', () => {
    const p = presetById('claude-code-1m')!
    expect(trigger(applyPreset(p, DEFAULT_PIPELINE, session('2.1.7')))).toBe(955_000)
    expect(trigger(applyPreset(p, DEFAULT_PIPELINE, session('2.1.37')))).toBe(967_000)
  })

  it('matchPreset recognises either version’s settings; presetStagesFor says which versions', () => {
    for (const id of ['claude-code-200k', 'claude-code-1m']) {
      const p = presetById(id)!
      expect(matchPreset(applyPreset(p, DEFAULT_PIPELINE, session('2.1.7')))?.id).toBe(id)
      expect(matchPreset(applyPreset(p, DEFAULT_PIPELINE, session('2.1.37')))?.id).toBe(id)
      expect(presetStagesFor(p, session('2.1.7')).versions).toBe('versions before 2.1.21')
      expect(presetStagesFor(p, session('2.1.37')).versions).toBe('versions 2.1.21 and later')
    }
    expect(presetStagesFor(presetById('aider')!, session('2.1.7'))).toEqual({ stages: presetById('aider')!.stages })
  })

  it('the source says which versions each trigger holds for', () => {
    const source = presetById('claude-code-200k')!.source
    expect(source).toContain('167,000 tokens on 200K (versions 2.1.21 and later)')
    expect(source).toContain('Versions before 2.1.21 reserved the full 32,000 output tokens: window − 45,000 = 155,000')
    expect(presetById('claude-code-1m')!.source).toContain('window − 45,000 = 955,000')
  })

  it('presetVersionNote names the version and which versions the trigger holds for', () => {
    const p = presetById('claude-code-200k')!
    const old = applyPreset(p, DEFAULT_PIPELINE, session('2.1.7'))
    const current = applyPreset(p, DEFAULT_PIPELINE, session('2.1.37'))
    expect(presetVersionNote(old, session('2.1.7'))).toBe('Claude Code 2.1.7: trigger at 155,000 (versions before 2.1.21)')
    expect(presetVersionNote(current, session('2.1.37'))).toBe('Claude Code 2.1.37: trigger at 167,000 (versions 2.1.21 and later)')
    expect(presetVersionNote(old, session('2.1.37'))).toBe(
      'Claude Code 2.1.37 triggers at 167,000 (versions 2.1.21 and later); these settings trigger at 155,000 (versions before 2.1.21)',
    )
    expect(presetVersionNote(current, null)).toBe('Trigger at 167,000 (versions 2.1.21 and later); the file records no Claude Code version')
    expect(presetVersionNote(applyPreset(presetById('aider')!, DEFAULT_PIPELINE), session('2.1.7'))).toBeUndefined()
  })
})

describe('agent presets’ documented overhead', () => {
  // A Claude Code session (formats.md §4.4 shape) whose assistant records carry no `usage`: the
  // file records no request's context, so `auto` calibration falls back to the preset's figure.
  const record = (uuid: string, parent: string | null, type: 'user' | 'assistant', content: unknown) =>
    JSON.stringify({
      parentUuid: parent,
      isSidechain: false,
      userType: 'external',
      cwd: '/w/app',
      sessionId: '0b7d3c1e-2f4a-4b5c-8d6e-7f8091a2b3c4',
      version: '2.1.37',
      type,
      message: type === 'user' ? { role: 'user', content } : { id: `msg_${uuid}`, type: 'message', role: 'assistant', model: 'claude-sonnet-4-5', content },
      uuid,
      timestamp: '2026-03-02T10:00:00.000Z',
    })
  const text = [
    record('u1', null, 'user', 'Rename the config loader to loadSettings.'),
    record('a1', 'u1', 'assistant', [{ type: 'text', text: 'Renamed it in src/config.ts and its two callers.' }]),
    record('u2', 'a1', 'user', 'Thanks.'),
  ].join('\n')
  const imported = importTranscript(text, { fileName: 'no-usage.jsonl' })
  if (!imported.ok) throw new Error(imported.error.message)
  const transcript = imported.transcript
  const claude = presetById('claude-code-200k')!

  it('Claude Code 20,000, Codex 2,800, Gemini CLI 17,000 tokens, each saying it was measured', () => {
    expect(presetById('claude-code-200k')!.overhead?.tokens).toBe(20_000)
    expect(presetById('claude-code-1m')!.overhead?.tokens).toBe(20_000)
    expect(presetById('codex-local')!.overhead?.tokens).toBe(2_800)
    expect(presetById('gemini-cli')!.overhead?.tokens).toBe(17_000)
    for (const p of PRESETS.filter((p) => p.overhead)) expect(p.overhead!.source, p.id).toMatch(/^measured: .*public/)
    expect(presetById('seed-defaults')!.overhead).toBeUndefined()
  })

  it('applying an agent preset sets calibration.agentOverhead and keeps the mode and hand-set numbers; seed defaults clears it', () => {
    const applied = applyPreset(claude, DEFAULT_PIPELINE)
    expect(applied.calibration?.mode).toBe('auto')
    expect(applied.calibration?.agentOverhead).toEqual(claude.overhead)
    const manual: PipelineConfig = { ...DEFAULT_PIPELINE, calibration: { mode: 'manual', overhead: 5_000, ratio: 1.2 } }
    expect(applyPreset(presetById('codex-local')!, manual).calibration).toEqual({
      mode: 'manual',
      overhead: 5_000,
      ratio: 1.2,
      agentOverhead: presetById('codex-local')!.overhead,
    })
    expect(applyPreset(presetById('seed-defaults')!, applied).calibration).toBeUndefined()
    expect(applyPreset(presetById('seed-defaults')!, applyPreset(claude, manual)).calibration).toEqual({ mode: 'manual', overhead: 5_000, ratio: 1.2 })
    // The overhead is the environment's, not the strategy's: the preset still matches either way.
    const raw: PipelineConfig = { ...applied, calibration: { mode: 'off' } }
    expect(matchPreset(raw)?.id).toBe('claude-code-200k')
  })

  it('on a file without usage a run counts the preset’s 20,000 tokens on top of the raw count; Raw does not', async () => {
    expect(transcript.usage ?? []).toEqual([])
    const counter = await loadCounter('o200k_base')
    const deps = { counter, summarizer: () => Promise.resolve('S') }
    const applied = applyPreset(claude, DEFAULT_PIPELINE, transcript)
    const calibrated = await runPipeline(transcript, applied, deps)
    const raw = await runPipeline(transcript, { ...applied, calibration: { ...applied.calibration!, mode: 'off' } }, deps)
    expect(calibrated.calibration?.source).toBe('preset')
    expect(calibrated.calibration?.overhead).toBe(20_000)
    expect(raw.calibration?.source).toBe('none')
    expect(calibrated.before.totals.tokens - raw.before.totals.tokens).toBe(20_000)
  })
})
