import { readdirSync, readFileSync } from 'node:fs'
import ts from 'typescript'
import { describe, expect, it } from 'vitest'
import { importTranscript } from '../engine/formats'
import type { PipelineConfig, Transcript } from '../engine/model'
import { createSummaryCache } from '../engine/summarizers/cache'
import { loadCounter } from '../engine/tokens/count'
import { createEngineApi } from './engine-api'
import { STAGE_ROW_PREFIX } from './protocol'
import { TranscriptSession, type SessionServices } from './session'

const read = (file: string) => readFileSync(`public/samples/${file}`, 'utf8')

/** The defaults with `summarize` folding early, so the Claude Code sample has passes. */
function summarizing(config: PipelineConfig): PipelineConfig {
  return {
    ...config,
    stages: config.stages.map((s) => (s.id === 'summarize' ? { ...s, params: { ...s.params, keep_last: 4, compact_after: 8 } } : s)),
  }
}

describe('the worker holds one transcript session, disposed when another transcript opens', () => {
  it('nothing made from the previous transcript is answered once another is imported', async () => {
    const api = createEngineApi()
    expect(api.importText(read('claude-code.jsonl'), 'claude-code.jsonl').ok).toBe(true)
    const config = summarizing(api.getDefaults())
    const run = await api.run(config, 1, { rowPage: 10 })
    if (!run.ok) throw new Error(run.error)
    const stage = await api.runUpTo(config, 'dedupe', 2)
    if (!stage.ok) throw new Error(stage.error)
    const stageRow = stage.view.after.rows[0]!.id
    const afterRow = run.view.after.rows.at(-1)!.id
    const pass = run.view.passes[0]!
    // All of it is there while the transcript is open.
    expect(api.getRows(1, 'before', 10, 10)).toHaveLength(10)
    expect(stageRow.startsWith(STAGE_ROW_PREFIX)).toBe(true)
    expect(api.getMessageDetail('after', stageRow)).not.toBeNull()
    expect(api.getMessageDetail('after', afterRow)).not.toBeNull()
    expect(api.getPassText(pass.pass, pass.stage)).not.toBeNull()
    expect((await api.searchFact('ORD-58213', false)).ok).toBe(true)
    expect((await api.getFactTable(1)).ok).toBe(true)
    expect((await api.runRecorded('o200k_base')).ok).toBe(true)
    expect(api.exportAfter('recorded', 'canonical').ok).toBe(true)
    expect(await api.getRunTokens('o200k_base')).not.toBeNull()

    expect(api.importText(read('openai-chat.json'), 'openai-chat.json').ok).toBe(true)
    expect(api.getRows(1, 'before', 10, 10)).toBeNull()
    expect(api.getMessageDetail('after', stageRow)).toBeNull()
    expect(api.getMessageDetail('after', afterRow)).toBeNull()
    expect(api.getPassText(pass.pass, pass.stage)).toBeNull()
    expect(await api.searchFact('ORD-58213', false)).toEqual({ ok: false, error: 'Nothing has run yet.' })
    expect(await api.getFactTable(1)).toEqual({ ok: false, error: 'Nothing has run yet.' })
    expect(api.exportAfter('after', 'canonical')).toEqual({ ok: false, error: 'nothing to export yet' })
    expect(api.exportAfter('recorded', 'canonical')).toEqual({ ok: false, error: 'nothing to export yet' })
    expect(await api.getRunTokens('o200k_base')).toBeNull()
    expect(api.cancelSummaries()).toBe(false)
    expect(api.cancelSweep()).toBe(false)
  })

  it('every call in flight over the previous transcript answers cancelled', async () => {
    const api = createEngineApi()
    api.importText(read('claude-code.jsonl'), 'claude-code.jsonl')
    const config = summarizing(api.getDefaults())
    const cancelled = { ok: false, error: 'cancelled', cancelled: true }
    const inFlight = [
      api.run(config, 1),
      api.runUpTo(config, 'summarize', 2),
      api.getTurnContext(config, 3, 1),
      api.runTimeline(config, 1),
      api.sweep(config, { param: 'keep_last', values: [2, 4] }, { param: 'compact_after', values: [8] }),
    ]
    // Every call awaits its counter first: the import lands while they wait.
    expect(api.importText(read('openai-chat.json'), 'openai-chat.json').ok).toBe(true)
    for (const outcome of await Promise.all(inFlight)) expect(outcome).toEqual(cancelled)
    // The new transcript runs as usual.
    expect((await api.run(api.getDefaults(), 4)).ok).toBe(true)
  })

  it('a newer run, turn or timeline request replaces the one in flight, which answers cancelled', async () => {
    const api = createEngineApi()
    api.importText(read('claude-code.jsonl'), 'claude-code.jsonl')
    const config = summarizing(api.getDefaults())
    const cancelled = { ok: false, error: 'cancelled', cancelled: true }
    const [oldRun, newRun] = await Promise.all([api.run(config, 1), api.run(config, 2)])
    expect(oldRun).toEqual(cancelled)
    expect(newRun.ok && newRun.view.runId).toBe(2)
    const [oldTurn, newTurn] = await Promise.all([api.getTurnContext(config, 2, 1), api.getTurnContext(config, 3, 2)])
    expect(oldTurn).toEqual(cancelled)
    expect(newTurn.ok && newTurn.view.requestId).toBe(2)
    const [oldLine, newLine] = await Promise.all([api.runTimeline(config, 1), api.runTimeline(config, 2)])
    expect(oldLine).toEqual(cancelled)
    expect(newLine.ok && newLine.view.timelineId).toBe(2)
    // The main run and the stage view are apart: one never cancels the other.
    const [full, stage] = await Promise.all([api.run(config, 3), api.runUpTo(config, 'dedupe', 4)])
    expect(full.ok && stage.ok).toBe(true)
  })

  it("the previous transcript's facts table is not reused, even for the same file imported again", async () => {
    const api = createEngineApi()
    const text = read('claude-code.jsonl')
    api.importText(text, 'a.jsonl')
    const config = summarizing(api.getDefaults())
    expect((await api.run(config, 1)).ok).toBe(true)
    const first = await api.getFactTable(1)
    if (!first.ok || !('table' in first)) throw new Error('a first table')
    api.importText(text, 'a.jsonl')
    expect((await api.run(config, 2)).ok).toBe(true)
    const again = await api.getFactTable(2, first.table.version)
    if (!again.ok || !('table' in again)) throw new Error('a table of the new transcript is made anew')
    expect(again.table.version).toBeGreaterThan(first.table.version)
    expect(again.table.rows).toEqual(first.table.rows)
  })
})

describe('TranscriptSession', () => {
  const transcript = (): Transcript => {
    const imported = importTranscript(read('openai-chat.json'), { fileName: 'openai-chat.json' })
    if (!imported.ok) throw new Error(imported.error.message)
    return imported.transcript
  }
  const services = (): SessionServices => {
    let version = 0
    return { summaryCache: createSummaryCache(), nextFactVersion: () => ++version }
  }

  it('keeps its turn summarizer while the settings stay the same; a new session makes its own', () => {
    const root = transcript()
    const shared = services()
    const config = createEngineApi().getDefaults()
    const a = new TranscriptSession(root, 'main', 'x.json', 'k1', shared)
    expect(a.turns.summarizers.of(config)).toBe(a.turns.summarizers.of(config))
    const b = new TranscriptSession(root, 'main', 'x.json', 'k2', shared)
    a.dispose(b)
    expect(b.turns.summarizers.of(config)).not.toBe(a.turns.summarizers.of(config))
    expect(b.factSearch).not.toBe(a.factSearch)
    expect(b.factTables).not.toBe(a.factTables)
    expect(b.sweep.memo).not.toBe(a.sweep.memo)
  })

  it('dispose drops its runs; the cached counts go only when the next session is of another file', async () => {
    const counter = await loadCounter('o200k_base')
    const root = transcript()
    const a = new TranscriptSession(root, 'main', 'x.json', 'k1', services())
    a.keepRun({} as never, 1)
    a.pagedRows = { runId: 1, before: [] }
    a.plannedCalls = { config: '{}', count: 1 }
    counter.count('a text only this test counts')
    const sameFile = new TranscriptSession(root, 'main', 'x.json', 'k2', services())
    a.dispose(sameFile)
    expect(a.disposed).toBe(true)
    expect([a.result, a.resultRunId, a.pagedRows, a.plannedCalls, a.stageResult, a.recorded]).toEqual([null, null, null, null, null, null])
    expect(counter.has?.('a text only this test counts')).toBe(true)
    sameFile.dispose(new TranscriptSession(transcript(), 'main', 'x.json', 'k3', services()))
    expect(counter.has?.('a text only this test counts')).toBe(false)
  })
})

describe('worker modules hold no state of their own', () => {
  // The tokenizer pool keeps its workers and counts ahead across transcripts (its own lifetime).
  const POOL = new Set(['token-pool.ts', 'token-pool.worker.ts'])
  // A WeakMap memo of a pure function of one message object: it answers what the function would,
  // and drops each entry with its message.
  const PURE_MEMOS = new Set(['perMessage'])

  /** Top-level declarations that hold mutable state: `let`/`var`, or a `const` made by `new`/a call/a literal. */
  function stateful(file: string, text = readFileSync(`src/worker/${file}`, 'utf8')): string[] {
    const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true)
    const found: string[] = []
    for (const statement of source.statements) {
      if (!ts.isVariableStatement(statement)) continue
      const list = statement.declarationList
      const isConst = (list.flags & ts.NodeFlags.Const) !== 0
      for (const d of list.declarations) {
        const name = d.name.getText(source)
        if (!isConst) {
          found.push(`${file}: ${name} (let)`)
          continue
        }
        let init = d.initializer
        while (init && (ts.isAsExpression(init) || ts.isSatisfiesExpression(init) || ts.isParenthesizedExpression(init))) {
          if (ts.isAsExpression(init) && init.type.getText(source) === 'const') break
          init = init.expression
        }
        if (!init) continue
        const readonlyType = d.type?.getText(source).startsWith('readonly ') ?? false
        const call = ts.isCallExpression(init) && !PURE_MEMOS.has(init.expression.getText(source))
        const literal = (ts.isObjectLiteralExpression(init) || ts.isArrayLiteralExpression(init)) && !readonlyType
        if (ts.isNewExpression(init) || call || literal) found.push(`${file}: ${name}`)
      }
    }
    return found
  }

  it('outside the session and the tokenizer pool', () => {
    const files = readdirSync('src/worker').filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts') && !POOL.has(f))
    expect(files).toContain('engine-api.ts')
    expect(files.flatMap((f) => stateful(f))).toEqual([])
  })

  it('catches a module-level let, a Map, a cache made by a call and a mutable literal', () => {
    const text = [
      'let a = 0',
      'const m = new Map()',
      'const c = createCache()',
      'const o = { n: 0 }',
      "const fine = 3",
      "const list: readonly string[] = ['x']",
      'const memo = perMessage((m) => m.id)',
      'export const f = () => new Map()',
    ].join('\n')
    expect(stateful('probe.ts', text)).toEqual(['probe.ts: a (let)', 'probe.ts: m', 'probe.ts: c', 'probe.ts: o'])
  })
})
