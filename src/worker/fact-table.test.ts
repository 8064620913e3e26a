import { readFileSync } from 'node:fs'
import { describe, expect, it, vi } from 'vitest'
import { factTable, indexFacts } from '../engine/facts/table'
import { extractFacts, messageFactText } from '../engine/facts/patterns'
import { importTranscript } from '../engine/formats'
import type { PipelineConfig, RunResult } from '../engine/model'
import { runPipeline } from '../engine/pipeline'
import { loadCounter } from '../engine/tokens/count'
import { createEngineApi } from './engine-api'
import { defaultFactOrder, queryFactRows } from '../engine/fact-query'
import { FactTables, sameFactInputs, withWatched } from './fact-table'
import { FACT_VIEW_LIMIT, type FactTableView } from './protocol'

const engineApi = createEngineApi()

const read = (file: string) => readFileSync(`public/samples/${file}`, 'utf8')

function withSummarize(keepLast: number, compactAfter: number): PipelineConfig {
  const config = engineApi.getDefaults()
  return {
    ...config,
    stages: config.stages.map((s) =>
      s.id === 'summarize' ? { ...s, params: { ...s.params, keep_last: keepLast, compact_after: compactAfter } } : s,
    ),
  }
}

async function table(runId: number, known?: number): Promise<FactTableView | 'unchanged'> {
  const out = await engineApi.getFactTable(runId, known)
  expect(structuredClone(out)).toEqual(out)
  if (!out.ok) throw new Error(out.error)
  return 'unchanged' in out ? 'unchanged' : out.table
}

describe('getFactTable: the facts table rows for the page', () => {
  it('says why there is no table before any run', async () => {
    expect(await createEngineApi().getFactTable(1)).toEqual({ ok: false, error: 'Nothing has run yet.' })
  })

  it('rows of the Claude Code sample: the engine table, light; unchanged runs cost nothing; a new fate a new version', async () => {
    const imported = engineApi.importText(read('claude-code.jsonl'), 'claude-code.jsonl')
    if (!imported.ok) throw new Error(imported.error.message)
    const run1 = await engineApi.run(withSummarize(4, 8), 1)
    if (!run1.ok) throw new Error(run1.error)
    const first = await table(1)
    if (first === 'unchanged') throw new Error('a first table is never unchanged')
    expect(first.runId).toBe(1)
    expect(first.passes.length).toBe(run1.view.passes.length)
    // Each row's runs cover every pass once, in order.
    for (const r of first.rows) {
      expect(r.passRuns[0]?.from).toBe(0)
      expect(r.passRuns.at(-1)?.to).toBe(first.passes.length - 1)
      r.passRuns.forEach((run, i) => i > 0 && expect(run.from).toBe((r.passRuns[i - 1]?.to ?? -2) + 1))
    }
    // The totals count the at-risk rows; the noise rows apart.
    expect(first.totals.survive + first.totals.lost + first.totals.noise).toBe(first.rows.length)
    expect(first.totals.text).toBe(`${first.totals.survive} of ${first.totals.facts} facts survive`)
    const ids = new Set(run1.view.before.rows.map((r) => r.id))
    for (const row of first.rows) {
      expect(ids.has(row.firstSeen.id)).toBe(true)
      expect(run1.view.before.rows.find((r) => r.id === row.firstSeen.id)?.index).toBe(row.firstSeen.index)
      expect([...row.fact].length).toBeLessThanOrEqual(FACT_VIEW_LIMIT)
    }
    // A lost scenario fact names the step that dropped its last copy, as the finder does.
    const lost = first.rows.find((r) => r.verdict === 'lost')
    expect(lost?.lostAt).toBeDefined()
    expect(lost?.explanation).toMatch(/^lost (?:in|at) /)

    // The same config again: a new RunResult, nothing changed → same version, nothing sent.
    const run2 = await engineApi.run(withSummarize(4, 8), 2)
    if (!run2.ok) throw new Error(run2.error)
    expect(await table(2, first.version)).toBe('unchanged')
    const again = await table(2)
    if (again === 'unchanged') throw new Error('asked without a version')
    expect(again).toEqual({ ...first, runId: 2 })

    // Other settings fold other messages: recomputed under a new version.
    const run3 = await engineApi.run(withSummarize(40, 60), 3)
    if (!run3.ok) throw new Error(run3.error)
    const third = await table(3, first.version)
    if (third === 'unchanged') throw new Error('fates changed, the table must be recomputed')
    expect(third.version).toBeGreaterThan(first.version)
    expect(third.passes.length).toBe(run3.view.passes.length)
  })
})

describe('sameFactInputs', () => {
  const base = (): RunResult => ({
    before: { messages: [], totals: { messages: 0, tokens: 0, overheadTokens: 0 }, tokensById: {} },
    after: { messages: [], totals: { messages: 0, tokens: 0, overheadTokens: 0 }, tokensById: {} },
    fates: {},
    origins: {},
    passes: [],
    stages: [],
    checks: { before: [], after: [] },
    warnings: [],
  })

  it('is false for another transcript, another fate or another summary; true for equal runs', () => {
    const a = base()
    const b = { ...base(), before: a.before }
    expect(sameFactInputs(a, b)).toBe(true)
    expect(sameFactInputs(a, base())).toBe(false) // other Before messages
    expect(sameFactInputs(a, { ...b, fates: { m1: { kind: 'kept', changed: false } } })).toBe(false)
    const pass = {
      pass: 1,
      stage: 'summarize' as const,
      atMessage: 3,
      from: 0,
      upto: 2,
      prompt: 'p',
      summary: 'S',
      summaryId: 'summary:summarize:1',
      tokensBefore: 10,
      tokensAfter: 5,
    }
    const withPass = { ...b, passes: [pass] }
    // Prompt and token figures do not decide a fact's fate; the summary does.
    expect(sameFactInputs({ ...a, passes: [pass] }, { ...withPass, passes: [{ ...pass, prompt: 'q', tokensAfter: 4 }] })).toBe(true)
    expect(sameFactInputs({ ...a, passes: [pass] }, { ...withPass, passes: [{ ...pass, summary: 'T' }] })).toBe(false)
  })

})

describe('the watched facts on the transcript\'s fact index (withWatched)', () => {
  // A fact twice (kept once), one with spaces around it (trimmed), one the transcript lacks.
  const watched = ['94107', 'ORD-58213', '  ORD-58213 ', 'not in this transcript']

  async function sampleRun(): Promise<RunResult> {
    const imported = importTranscript(read('claude-code.jsonl'), { fileName: 'claude-code.jsonl' })
    if (!imported.ok) throw new Error(imported.error.message)
    return runPipeline(imported.transcript, withSummarize(4, 8), { counter: await loadCounter('o200k_base') })
  }

  it('is the index and the table built from scratch with the watched facts', async () => {
    const run = await sampleRun()
    const messages = run.before.messages
    const scratch = indexFacts(messages, extractFacts(messages, watched))
    const composed = withWatched(indexFacts(messages), extractFacts([], watched))
    expect(composed.facts.slice(0, 3).map((f) => f.fact)).toEqual(['94107', 'ORD-58213', 'not in this transcript'])
    expect(composed.facts).toEqual(scratch.facts)
    expect(composed.holders).toEqual(scratch.holders)
    expect(composed.byMessage).toEqual(scratch.byMessage)
    expect(composed.holders[2]).toEqual([])
    // The matcher answers alike on every text the table asks about: After texts and summaries.
    for (const text of [...run.after.messages.map(messageFactText), ...run.passes.map((p) => p.summary)]) {
      expect(composed.matcher.find(text)).toEqual(scratch.matcher.find(text))
    }
    expect(factTable(run, composed)).toEqual(factTable(run, scratch))
  })

  it('a session\'s tables as the watched facts change: each equals one made without the cached index', async () => {
    const run = await sampleRun()
    let version = 0
    const tables = new FactTables(() => ++version)
    const uncached = (w: readonly string[]) => {
      const out = new FactTables(() => 0).outcome(run, 1, undefined, w)
      if (!out.ok || !('table' in out)) throw new Error('no table')
      return out.table.rows
    }
    for (const w of [[], watched, ['94107'], []]) {
      const out = tables.outcome({ ...run }, 1, undefined, w)
      if (!out.ok || !('table' in out)) throw new Error('no table')
      expect(out.table.rows).toEqual(uncached(w))
      expect(out.table.rows.filter((r) => r.kind === 'watched').map((r) => r.fact)).toEqual(
        w.length === 0 ? [] : [...new Set(w.map((f) => f.trim()))],
      )
    }
  })

  it('the table built ahead after the first run is the one the page then gets; once, and never for a run no longer wanted', async () => {
    const run = await sampleRun()
    const idle = () => new Promise((resolve) => setTimeout(resolve, 5))
    let version = 0
    const tables = new FactTables(() => ++version)
    tables.buildAhead(run, 1, () => false, 0)
    await idle()
    expect(version).toBe(0)
    tables.buildAhead(run, 1, () => true, 0)
    await idle()
    expect(version).toBe(1)
    const out = tables.outcome(run, 1)
    if (!out.ok || !('table' in out)) throw new Error('no table')
    expect(out.table.version).toBe(1)
    expect(out.table.rows).toEqual(
      (() => {
        const fresh = new FactTables(() => 0).outcome(run, 1)
        if (!fresh.ok || !('table' in fresh)) throw new Error('no table')
        return fresh.table.rows
      })(),
    )
    // Once per transcript: a later run's table waits for the page's request.
    const later = { ...run, fates: {} }
    tables.buildAhead(later, 2, () => true, 0)
    await idle()
    expect(version).toBe(1)
    // A run cancelled before the page was idle: nothing built.
    const other = new FactTables(() => ++version)
    other.buildAhead(run, 1, () => true, 0)
    other.cancelAhead()
    await idle()
    expect(version).toBe(1)
  })

  /**
   * Runs `steps` with fake timers on a FactTables whose build ahead of the sample's run is due in
   * 1,000 ms; `built()` is how many tables it has built.
   */
  async function withBuildAhead(steps: (tables: FactTables, built: () => number) => void) {
    const run = await sampleRun()
    vi.useFakeTimers()
    try {
      let version = 0
      const tables = new FactTables(() => ++version)
      tables.buildAhead(run, 1, () => true, 1_000)
      steps(tables, () => version)
    } finally {
      vi.useRealTimers()
    }
  }

  it('a build ahead waits until nothing was asked for its whole delay: each call postpones it', () =>
    withBuildAhead((tables, built) => {
      vi.advanceTimersByTime(900)
      tables.postponeAhead()
      vi.advanceTimersByTime(900)
      expect(built()).toBe(0)
      vi.advanceTimersByTime(100)
      expect(built()).toBe(1)
      // Nothing pending: a later call has nothing to move.
      tables.postponeAhead()
      vi.advanceTimersByTime(2_000)
      expect(built()).toBe(1)
    }))

  it('a build ahead never starts while a call of the page is being answered; its delay starts again after', () =>
    withBuildAhead((tables, built) => {
      const release = tables.hold()
      vi.advanceTimersByTime(5_000)
      expect(built()).toBe(0)
      release()
      // Released twice: counted once.
      release()
      vi.advanceTimersByTime(900)
      expect(built()).toBe(0)
      vi.advanceTimersByTime(100)
      expect(built()).toBe(1)
    }))

  it('rows that say the same thing share one first-seen and lost-at object (a structured clone sends each once)', async () => {
    const run = await sampleRun()
    const out = new FactTables(() => 1).outcome(run, 1)
    if (!out.ok || !('table' in out)) throw new Error('no table')
    const byId = new Map<string, object>()
    for (const r of out.table.rows) {
      const seen = byId.get(r.firstSeen.id)
      if (seen) expect(r.firstSeen).toBe(seen)
      else byId.set(r.firstSeen.id, r.firstSeen)
    }
    expect(byId.size).toBeLessThan(out.table.rows.length)
  })

  it('another transcript opened: its table is its own, nothing of the previous one reused', async () => {
    const api = createEngineApi()
    const first = api.importText(read('claude-code.jsonl'), 'claude-code.jsonl')
    if (!first.ok) throw new Error(first.error.message)
    if (!(await api.run(withSummarize(4, 8), 1)).ok) throw new Error('run')
    expect((await api.getFactTable(1, undefined, watched)).ok).toBe(true)
    const fresh = createEngineApi()
    for (const e of [api, fresh]) {
      const second = e.importText(read('openai-chat.json'), 'openai-chat.json')
      if (!second.ok) throw new Error(second.error.message)
      if (!(await e.run(e.getDefaults(), 2)).ok) throw new Error('run')
    }
    const rows = async (e: typeof api) => {
      const out = await e.getFactTable(2, undefined, watched)
      if (!out.ok || !('table' in out)) throw new Error('no table')
      return out.table.rows
    }
    expect(await rows(api)).toEqual(await rows(fresh))
  })
})

describe('getFactRows: a table listed in the worker', () => {
  it('answers the rows of a query by position, in its order, and refuses a version it no longer holds', async () => {
    const api = createEngineApi()
    const imported = api.importText(read('claude-code.jsonl'), 'claude-code.jsonl')
    if (!imported.ok) throw new Error(imported.error.message)
    const run = await api.run(withSummarize(4, 8), 1)
    if (!run.ok) throw new Error(run.error)
    const out = await api.getFactTable(1)
    if (!out.ok || 'unchanged' in out) throw new Error('no table')
    const all = out.table.rows
    expect(out.table.count).toBe(all.length)
    expect(out.table.noise).toBe(out.table.totals.noise)
    const query = { text: '', kind: '' as const, showNoise: false, onlyLost: false, sorting: [{ id: 'fact' as const, desc: true }] }
    const expected = queryFactRows(defaultFactOrder(all), query)
    expect(expected.length).toBe(all.length - out.table.totals.noise)
    const page = api.getFactRows(out.table.version, query, 1, 2)
    expect(page).toEqual({ ok: true, version: out.table.version, from: 1, matching: expected.length, rows: expected.slice(1, 3) })
    expect(api.getFactRows(out.table.version + 1, query, 0, 10)).toEqual({ ok: false, error: 'This facts table is no longer held.' })
  })
})
