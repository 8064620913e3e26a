import { beforeAll, describe, expect, it, vi } from 'vitest'
import { importTranscript } from '../engine/formats'
import type { PipelineConfig, RunResult } from '../engine/model'
import { DEFAULT_PIPELINE, runPipeline } from '../engine/pipeline'
import { loadCounter } from '../engine/tokens/count'
import { createEngineApi } from './engine-api'
import { searchFactGuarded, type RegexProbe } from './fact-search'
import type { FactSearch } from './protocol'

const engineApi = createEngineApi()

/**
 * An OpenAI chat transcript of 12 messages (ids are `m<index>` in the canonical model):
 * - 0 user: the goal, naming ORD-777 twice;
 * - 1 assistant: a tool call whose arguments hold the postal code 94107 and a file path;
 * - 2 tool: the lookup result;
 * - 3 assistant: "the warehouse is in Lisbon" — plain words, no fact pattern, so the offline
 *   extractive summary does not copy them;
 * - 4–10 small talk; 11 user: ORD-777 again, and ORD-12.
 */
function transcript(): string {
  const messages: unknown[] = [
    { role: 'user', content: 'Please track order ORD-777 for me. Order ORD-777 is late.' },
    {
      role: 'assistant',
      content: null,
      tool_calls: [
        { id: 'call_1', type: 'function', function: { name: 'lookup', arguments: '{"zip":"94107","log":"logs/ship.txt"}' } },
      ],
    },
    { role: 'tool', tool_call_id: 'call_1', content: 'order found, status: shipped' },
    { role: 'assistant', content: 'Good news: the warehouse is in Lisbon and it has shipped.' },
  ]
  for (let i = 4; i < 11; i++) {
    messages.push({ role: i % 2 === 0 ? 'user' : 'assistant', content: `small talk number ${i}` })
  }
  messages.push({ role: 'user', content: 'Any news on ORD-777? Also check ORD-12 please.' })
  return JSON.stringify({ messages })
}

/** Only `summarize`, folding all but the last 4 messages once more than 8 are uncompacted. */
function summarizeOnly(): PipelineConfig {
  const config = engineApi.getDefaults()
  return {
    ...config,
    stages: config.stages.map((s) =>
      s.id === 'summarize'
        ? { ...s, enabled: true, params: { ...s.params, keep_last: 4, compact_after: 8 } }
        : { ...s, enabled: false },
    ),
  }
}

async function ok(query: string, regex = false): Promise<FactSearch> {
  const out = await engineApi.searchFact(query, regex)
  if (!out.ok) throw new Error(out.error)
  // It crosses postMessage: plain data only.
  expect(structuredClone(out.search)).toEqual(out.search)
  return out.search
}

describe('engineApi.searchFact', () => {
  beforeAll(async () => {
    const imported = engineApi.importText(transcript(), 'facts.json')
    if (!imported.ok) throw new Error(imported.error.message)
    const run = await engineApi.run(summarizeOnly(), 7)
    if (!run.ok) throw new Error(run.error)
  })

  it('counts a string per row on each side, in column order, and echoes the run id', async () => {
    const s = await ok('ORD-777')
    expect(s.runId).toBe(7)
    expect(s.before.rows).toEqual([
      { rowId: 'm0', count: 2 },
      { rowId: 'm11', count: 1 },
    ])
    expect(s.before.messages).toBe(2)
    expect(s.before.occurrences).toBe(3)
    // Message 11 is in the kept tail; the goal is copied verbatim into the summary.
    expect(s.after.rows.map((r) => r.rowId)).toContain('m11')
    expect(s.verdict.verdict).toBe('survives')
  })

  it('searches tool-call arguments too', async () => {
    const s = await ok('94107')
    expect(s.before.rows).toEqual([{ rowId: 'm1', count: 1 }])
  })

  it('takes a regular expression: every non-empty match counts', async () => {
    const s = await ok('ORD-\\d+', true)
    expect(s.before.rows).toEqual([
      { rowId: 'm0', count: 2 },
      { rowId: 'm11', count: 2 },
    ])
    expect(s.regex).toBe(true)
  })

  it('is case-sensitive for a string, as the engine matches facts', async () => {
    expect((await ok('ord-777')).before.messages).toBe(0)
  })

  it('names the summarize pass that lost a fact and what replaced it', async () => {
    const s = await ok('Lisbon')
    expect(s.before.rows).toEqual([{ rowId: 'm3', count: 1 }])
    expect(s.after.rows).toEqual([])
    expect(s.verdict.verdict).toBe('lost')
    // Pass 1 fires at the 9th message and folds messages 0..4 (all but the last 4), message 3
    // among them; the extractive summary copies fact patterns, not these plain words.
    expect(s.verdict.lost?.stage).toBe('summarize')
    expect(s.verdict.lost?.pass).toBe(1)
    expect(s.verdict.lost?.replacedBy.kind).toBe('summary')
    expect(s.verdict.copiesLost).toBe(1)
    expect(s.against).toBe('after')
  })

  it('tells why: the prompt line of pass 1 that carried the fact, which the summary lacks', async () => {
    const r = (await ok('Lisbon')).verdict.lost?.replacedBy
    if (r?.kind !== 'summary') throw new Error('expected a summary replacement')
    // Message 3's line in the summarizer prompt, as seed 001 writes it: `[index] role: text`.
    expect(r.promptLine).toBe('[3] assistant: Good news: the warehouse is in Lisbon and it has shipped.')
    expect(r.inPrompt).toBe(true)
    expect(r.text).not.toContain('Lisbon')
  })

  it('says never present for a fact no Before message holds', async () => {
    const s = await ok('Porto')
    expect(s.verdict.verdict).toBe('never-present')
    expect(s.before.rows).toEqual([])
    expect(s.after.rows).toEqual([])
  })

  it('answers an invalid regex with ok: false and a clear message instead of throwing', async () => {
    const out = await engineApi.searchFact('ORD-(', true)
    expect(out.ok).toBe(false)
    if (!out.ok) expect(out.error).toMatch(/^Not a valid regular expression: .+/)
    // As a plain string the same text is fine.
    expect((await engineApi.searchFact('ORD-(', false)).ok).toBe(true)
  })

  it('refuses an empty query and a regex matching empty text', async () => {
    expect((await engineApi.searchFact('', false)).ok).toBe(false)
    const out = await engineApi.searchFact('x*', true)
    expect(out.ok).toBe(false)
    if (!out.ok) expect(out.error).toMatch(/matches empty text/)
  })

  it('follows a new run: a fact folded away comes back when summarize is off', async () => {
    const config = summarizeOnly()
    const off = { ...config, stages: config.stages.map((s) => ({ ...s, enabled: false })) }
    const run = await engineApi.run(off, 8)
    expect(run.ok).toBe(true)
    const s = await ok('Lisbon')
    expect(s.runId).toBe(8)
    expect(s.verdict.verdict).toBe('survives')
    expect(s.after.rows).toEqual([{ rowId: 'm3', count: 1 }])
  })

  it('returns the facts of a message with its detail, for "click a fact"', async () => {
    expect(engineApi.getMessageDetail('before', 'm11')?.facts).toEqual(['ORD-777', 'ORD-12'])
    // A bare 5-digit number is no fact pattern (postal codes need a label or a 5-4 form).
    expect(engineApi.getMessageDetail('before', 'm1')?.facts).toEqual(['logs/ship.txt'])
  })
})

describe('searchFactGuarded: a regex runs where it can be stopped first', () => {
  async function result(): Promise<RunResult> {
    const imported = importTranscript(
      JSON.stringify({ messages: [{ role: 'user', content: `order ORD-9 ${'a'.repeat(40)}b` }] }),
    )
    if (!imported.ok) throw new Error('import failed')
    const config = { ...DEFAULT_PIPELINE, stages: DEFAULT_PIPELINE.stages.map((s) => ({ ...s, enabled: false })) }
    return runPipeline(imported.transcript, config, { counter: await loadCounter('o200k_base') })
  }

  it('answers "too slow" when the probe stops the regex, and never runs it here', async () => {
    const probe = vi.fn<RegexProbe>(async () => 'timeout')
    const out = await searchFactGuarded(await result(), '(a+)+$', true, 3, probe, { deadlineMs: 2_000 })
    expect(out).toEqual({
      ok: false,
      error:
        'This regular expression took over 2 s on this transcript and was stopped (it likely backtracks ' +
        'catastrophically, like nested quantifiers (a+)+). Simplify it.',
    })
    // The probe saw every text the search tests: the one Before and the one After message.
    expect(probe.mock.calls[0]?.[1]).toEqual([`order ORD-9 ${'a'.repeat(40)}b`, `order ORD-9 ${'a'.repeat(40)}b`])
  })

  it('searches as usual when the probe finished or cannot run, and never probes a string or an invalid regex', async () => {
    const r = await result()
    for (const answer of ['ok', 'unavailable'] as const) {
      const out = await searchFactGuarded(r, 'ORD-\\d', true, 3, async () => answer)
      expect(out.ok && out.search.before.occurrences).toBe(1)
    }
    const probe = vi.fn<RegexProbe>(async () => 'timeout')
    expect((await searchFactGuarded(r, '(a+)+$', false, 3, probe)).ok).toBe(true)
    const invalid = await searchFactGuarded(r, 'ORD-(', true, 3, probe)
    expect(invalid.ok === false && invalid.error).toMatch(/^Not a valid regular expression/)
    expect(probe).not.toHaveBeenCalled()
  })
})
