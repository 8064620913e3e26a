import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { recordedRunResult } from '../analysis/recorded'
import { importClaudeCode } from '../formats/claude-code'
import { DEFAULT_PIPELINE, runPipeline } from '../pipeline'
import { countCodePoints } from '../stages/test-helpers'
import { cacheCounter } from '../tokens/count'
import { factsKeptBy } from './kept-by'
import { messageFactText } from './patterns'
import { indexFacts, isImportantFact } from './table'

describe('factsKeptBy: recorded vs simulated, fact by fact', () => {
  it("lists the facts only the simulation kept: the agent's summary dropped the postal code", async () => {
    const source = readFileSync(new URL('../../../test/fixtures/facts-why/claude-code-auto-compact.jsonl', import.meta.url), 'utf8')
    const imported = importClaudeCode(source)
    if (!imported.ok) throw new Error(imported.error.message)
    const t = imported.transcript
    const counter = cacheCounter('o200k_base', countCodePoints)
    const recorded = recordedRunResult(t, counter)
    if (!recorded) throw new Error('the fixture records a compaction')
    // Nine messages never reach the default compact_after (40): the simulation keeps every one.
    const simulated = await runPipeline(t, DEFAULT_PIPELINE, { counter })
    expect(simulated.after.messages.length).toBe(t.messages.length)
    const index = indexFacts(t.messages)
    const kept = factsKeptBy(index, recorded, simulated)
    expect(kept.recordedOnly).toEqual([])
    expect(kept.neither).toBe(0)
    // The postal code was stated only in message 0, which the agent summarized without it.
    expect(kept.simulatedOnly).toContain('80331')
    const recordedTexts = recorded.after.messages.map(messageFactText)
    for (const fact of kept.simulatedOnly) expect(recordedTexts.some((x) => x.includes(fact))).toBe(false)
    const important = index.facts.filter(isImportantFact).length
    expect(kept.both + kept.simulatedOnly.length).toBe(important)
    expect(kept.both).toBeGreaterThan(0)
  })
})
