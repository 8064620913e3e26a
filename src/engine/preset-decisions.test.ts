/**
 * The decision log explains every turn: for every bundled sample (public/samples/index.json)
 * under every preset, each enabled triggering stage logs at least one decision in every turn of
 * the transcript (analysis/turns.ts `turnEnds`), and `describeDecision` words each one with
 * its numbers: a fired one names its level, a not-reached one the gap to it (computed here
 * from the decision's own fields). Real importers, the o200k_base counter, a one-letter summary.
 */
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { turnEnds } from './analysis/turns'
import { importTranscript } from './formats/index'
import type { StageId, Transcript, TriggerDecision } from './model'
import { DEFAULT_PIPELINE, runPipeline } from './pipeline'
import { applyPreset, PRESETS } from './presets'
import { describeDecision } from './stages/triggers'
import { loadCounter } from './tokens/count'

/** The stages whose trigger is checked and logged (the others edit unconditionally). */
const TRIGGERING: readonly StageId[] = ['summarize', 'prune-tool-results', 'insert-then-compress']

const samplesDir = new URL('../../public/samples/', import.meta.url)
const samples = (JSON.parse(readFileSync(new URL('index.json', samplesDir), 'utf8')) as { file: string }[]).map((s) => s.file)

function load(file: string): Transcript {
  const imported = importTranscript(readFileSync(new URL(file, samplesDir), 'utf8'), { fileName: file })
  if (!imported.ok) throw new Error(`${file}: ${imported.error.message}`)
  return imported.transcript
}

const n = (x: number) => x.toLocaleString('en-US')

/** What is wrong with the wording of `d` (empty when nothing). */
function wordingProblems(d: TriggerDecision): string[] {
  const text = describeDecision(d)
  const problems: string[] = []
  if (!text.includes(n(d.threshold))) problems.push(`no level ${n(d.threshold)}`)
  if (d.fired && !/fired|pruned/.test(text)) problems.push('fired but says neither "fired" nor "pruned"')
  if (!d.reached) {
    const value = d.measure === 'tokens' ? d.tokens : d.unsummarized
    // ≥: the level itself is enough; >: one more than the level is needed.
    const gap = d.op === '≥' ? d.threshold - value : d.threshold - value + 1
    if (!/short|needed/.test(text)) problems.push('not reached but says neither "short" nor "needed"')
    if (!text.includes(`${n(gap)} `)) problems.push(`no gap ${n(gap)}`)
  }
  if (d.reached && !d.fired && !text.includes('but no')) problems.push('reached, not fired, and no "but no"')
  return problems.map((p) => `${p}: ${text}`)
}

describe('the decision log explains every turn of the bundled samples under every preset', () => {
  it('lists the samples', () => {
    expect(samples.length).toBeGreaterThanOrEqual(10)
  })

  for (const file of samples) {
    it(file, async () => {
      const counter = await loadCounter('o200k_base')
      const transcript = load(file)
      const turns = turnEnds(transcript.messages).length
      expect(turns).toBeGreaterThan(0)
      const problems: string[] = []
      let checked = 0
      for (const preset of PRESETS) {
        const config = applyPreset(preset, DEFAULT_PIPELINE)
        const result = await runPipeline(transcript, config, {
          counter,
          summarizer: () => Promise.resolve('S'),
          skipChecks: true,
        })
        for (const stage of config.stages.filter((s) => s.enabled && TRIGGERING.includes(s.id))) {
          const log = (result.decisions ?? []).filter((d) => d.stage === stage.id)
          const seen = new Set(log.map((d) => d.turn))
          const missing = Array.from({ length: turns }, (_, i) => i + 1).filter((t) => !seen.has(t))
          if (missing.length > 0) problems.push(`${preset.id} ${stage.id}: no decision in turn(s) ${missing.join(', ')} of ${turns}`)
          const beyond = log.filter((d) => d.turn < 1 || d.turn > turns)
          if (beyond.length > 0) problems.push(`${preset.id} ${stage.id}: decisions outside turns 1–${turns}: ${beyond.map((d) => d.turn).join(', ')}`)
          checked += log.length
          for (const d of log) for (const p of wordingProblems(d)) problems.push(`${preset.id} ${stage.id}: ${p}`)
        }
      }
      expect(problems).toEqual([])
      // Every preset enables at least one triggering stage, each logging ≥ 1 decision a turn.
      expect(checked).toBeGreaterThanOrEqual(PRESETS.length * turns)
    })
  }
})
