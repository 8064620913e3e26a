/**
 * The figures of a recorded view (failure-mode warnings with the needed facts, re-work, the cost
 * view's counts): asked with its `RecordedRef`, they are made from the agent's own compactions,
 * once per recorded run, and no simulated run's settings change them.
 */
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { applyPreset, presetById } from '../engine/presets'
import type { PipelineConfig } from '../engine/model'
import { createEngineApi } from './engine-api'
import type { RecordedRef } from './protocol'

// Our fixture (test/claude-code-session.ts script): the user gives postal code 60311 and order
// ORD-77120 at #0; the agent reads config/zones.csv at #2–#3. The manual compaction (boundary #12,
// 48,200 tokens) folds #0–#11 and its summary names neither; the user then asks for "the order
// number I gave you" (#13), the agent reads zones.csv again (#14) and repeats both facts (#16).
// The user names branch fix/zone-603 at #19; the auto compaction (boundary #23, 151,300 tokens)
// folds #12–#22 without it, and the agent repeats it at #27.
const source = readFileSync('test/fixtures/recorded/claude-code-two-compactions.jsonl', 'utf8')

const LAST: RecordedRef = { compaction: 1, encoding: 'o200k_base' }

function preset(id: string, base: PipelineConfig): PipelineConfig {
  const p = presetById(id)
  if (!p) throw new Error(`no preset ${id}`)
  return applyPreset(p, base)
}

async function opened() {
  const api = createEngineApi()
  const imported = api.importText(source, 'two-compactions.jsonl')
  if (!imported.ok) throw new Error(imported.error.message)
  expect(imported.info.recordedCompactions.map((c) => c.atIndex)).toEqual([12, 23])
  return api
}

/** The needed facts an over-compression warning names, by the compaction it names first. */
function neededByCompaction(warnings: readonly { message: string; neededFactTexts?: string[] }[]) {
  const out: Record<string, string[]> = {}
  for (const w of warnings) {
    const at = /^compaction (\d+) /.exec(w.message)
    if (at && w.neededFactTexts) out[at[1] as string] = w.neededFactTexts
  }
  return out
}

describe('the figures of a recorded view', () => {
  it('are made from the recorded compactions and stay the same whatever the simulated preset', async () => {
    const api = await opened()
    const base = api.getDefaults()
    const seen: unknown[] = []
    let runId = 0
    for (const id of ['seed-defaults', 'aider', 'openhands-masking']) {
      const run = await api.run(preset(id, base), ++runId)
      if (!run.ok) throw new Error(run.error)
      // The page asks for the recorded view again after each simulated run.
      const recorded = await api.runRecorded('o200k_base')
      if (!recorded.ok) throw new Error(recorded.error)
      expect(recorded.recorded.view.passes.map((p) => [p.stage, p.pass, p.atMessage])).toEqual([
        ['recorded', 1, 11],
        ['recorded', 2, 22],
      ])
      const warnings = await api.getFailureModes(runId, LAST)
      const rework = api.getRework(runId, LAST)
      const tokens = await api.getRunTokens('o200k_base', LAST)
      if (!warnings || !rework.ok || !tokens) throw new Error('expected the recorded figures')
      seen.push({ warnings, rework: rework.rework, tokens })

      const needed = neededByCompaction(warnings)
      // Compaction 1 folded #0 and its summary names neither fact; #13 and #16 needed them.
      expect(needed['1']).toEqual(expect.arrayContaining(['60311', 'ORD-77120']))
      expect(needed['1']).not.toContain('fix/zone-603')
      // Compaction 2 folded #19 (the branch); #27 repeats it. ORD-77120 is needed by no later message.
      expect(needed['2']).toEqual(expect.arrayContaining(['fix/zone-603']))
      expect(needed['2']).not.toContain('ORD-77120')

      // Re-work: one entry per recorded compaction, none for the simulated passes.
      expect(rework.rework.map((r) => r.compaction)).toMatchObject([
        { kind: 'recorded', compaction: 1, atIndex: 12, trigger: 'manual', tokensBefore: 48_200 },
        { kind: 'recorded', compaction: 2, atIndex: 23, trigger: 'auto', tokensBefore: 151_300 },
      ])
      // zones.csv read at #2, folded by compaction 1, read again at #14.
      const [first, second] = rework.rework
      expect(first?.calls.map((c) => [c.tool, c.first.call.index, c.repeat.call.index])).toEqual([['Read', 2, 14]])
      expect(second?.calls).toEqual([])

      // The cost view: the recorded context before and after, and no summarizer call of ours.
      expect(tokens).toEqual({
        passes: [],
        contextBefore: recorded.recorded.view.before.totals.tokens,
        contextAfter: recorded.recorded.view.after.totals.tokens,
      })
    }
    expect(seen[1]).toEqual(seen[0])
    expect(seen[2]).toEqual(seen[0])
  })

  it('are made once per recorded run: asked again after a simulated run, the same lists answer', async () => {
    const api = await opened()
    const base = api.getDefaults()
    expect((await api.run(preset('seed-defaults', base), 1)).ok).toBe(true)
    expect((await api.runRecorded('o200k_base')).ok).toBe(true)
    const warnings = await api.getFailureModes(1, LAST)
    const rework = api.getRework(1, LAST)
    expect((await api.run(preset('aider', base), 2)).ok).toBe(true)
    expect((await api.runRecorded('o200k_base')).ok).toBe(true)
    expect(await api.getFailureModes(2, LAST)).toBe(warnings)
    const again = api.getRework(2, LAST)
    expect(again.ok && rework.ok && again.rework === rework.rework).toBe(true)
  })

  it('the simulated run keeps its own: its passes and every recorded compaction in re-work', async () => {
    const api = await opened()
    const run = await api.run(preset('aider', api.getDefaults()), 1)
    if (!run.ok) throw new Error(run.error)
    // aider's trigger (more than 8,192 tokens after a reply) makes one summarize pass on this session.
    expect(run.view.passes.map((p) => [p.stage, p.pass])).toEqual([['summarize', 1]])
    const rework = api.getRework(1)
    if (!rework.ok) throw new Error(rework.error)
    expect(rework.rework.map((r) => r.compaction.kind)).toEqual(['pass', 'recorded', 'recorded'])
  })

  it('of an earlier compaction: only what the compactions up to it removed', async () => {
    const api = await opened()
    expect((await api.run(api.getDefaults(), 1)).ok).toBe(true)
    const first: RecordedRef = { compaction: 0, encoding: 'o200k_base' }
    // Not read yet: nothing to answer about.
    expect(await api.getFailureModes(1, first)).toBeNull()
    expect(api.getRework(1, first)).toEqual({ ok: false, error: 'The recorded compaction is not read yet.' })
    expect(await api.getRunTokens('o200k_base', first)).toBeNull()
    const recorded = await api.runRecorded('o200k_base', 0)
    if (!recorded.ok) throw new Error(recorded.error)
    expect(recorded.recorded.view.passes.map((p) => p.pass)).toEqual([1])
    const warnings = await api.getFailureModes(1, first)
    if (!warnings) throw new Error('expected warnings')
    // After compaction 1 the agent still has #12 on: the branch (#19) is in its context.
    const needed = neededByCompaction(warnings)
    expect(Object.keys(needed)).toEqual(['1'])
    expect(needed['1']).toEqual(expect.arrayContaining(['60311', 'ORD-77120']))
    // Another view than the last one made answers nothing.
    expect(await api.getFailureModes(1, LAST)).toBeNull()
    expect(await api.getFailureModes(1, { compaction: 0, encoding: 'cl100k_base' })).toBeNull()
  })
})
