/**
 * The facts table and the finder against the agent's own recorded compaction: each fact judged
 * against what the agent kept, the loss named as its record states it; Recorded vs simulated
 * lists the facts only one of them kept.
 */
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { createEngineApi } from './engine-api'

// Our fixture: the user states postal code 80331 in message 0; the auto compaction (preTokens
// 150000) before message 6 summarizes messages 0–5 without it.
const source = readFileSync('test/fixtures/facts-why/claude-code-auto-compact.jsonl', 'utf8')

describe('the Recorded After in the facts table and the finder', () => {
  it("judges each fact against what the agent kept, and lists what only the simulation kept", async () => {
    const api = createEngineApi()
    const imported = api.importText(source, 'auto-compact.jsonl')
    if (!imported.ok) throw new Error(imported.error.message)
    const run = await api.run(api.getDefaults(), 1)
    if (!run.ok) throw new Error(run.error)
    expect(await api.getFactTable(1, undefined, [], 'recorded')).toEqual({ ok: false, error: 'The recorded compaction is not read yet.' })
    const recorded = await api.runRecorded('o200k_base')
    if (!recorded.ok) throw new Error(recorded.error)

    const out = await api.getFactTable(1, undefined, [], 'recorded')
    if (!out.ok || !('table' in out)) throw new Error('expected a table')
    const postal = out.table.rows.find((r) => r.fact === '80331')
    expect(postal?.final).toBe('lost')
    expect(postal?.lostAt).toEqual({ stage: 'recorded', pass: 1, beforeId: postal?.firstSeen.id })
    // The simulation (nothing fires on 9 messages) keeps it.
    const simulated = await api.getFactTable(1, undefined, [], 'after')
    if (!simulated.ok || !('table' in simulated)) throw new Error('expected a table')
    expect(simulated.table.rows.find((r) => r.fact === '80331')?.final).toBe('verbatim')

    const search = await api.searchFact('80331', false, 'recorded')
    if (!search.ok) throw new Error(search.error)
    expect(search.search.against).toBe('recorded')
    // Lost at the agent's compaction, then asked for by "Ship it to the postal code I gave you."
    // (message 7, after the summary the compaction left as message 6), named as the page names it.
    expect(search.search.verdict.explanation).toBe(
      "lost at the agent's compaction 1 (message 6, auto, 150,000 tokens) — its summary omits it; " +
        'asked for at Before #7 (referred back to)',
    )

    expect(recorded.recorded.factsKept?.recordedOnly).toEqual([])
    expect(recorded.recorded.factsKept?.simulatedOnly).toContain('80331')
  })
})
