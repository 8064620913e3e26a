import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import type { PipelineConfig } from '../engine/model'
import { loadCounter } from '../engine/tokens/count'
import { createEngineApi } from './engine-api'
import { STAGE_ROW_PREFIX, type RunView } from './protocol'

const engineApi = createEngineApi()

const read = (file: string) => readFileSync(`public/samples/${file}`, 'utf8')

function ok(out: Awaited<ReturnType<typeof engineApi.run>>): RunView {
  if (!out.ok) throw new Error(out.error)
  return out.view
}

/** dedupe → prune-tool-results → summarize on, the rest off (the defaults' enabled stages, pinned here). */
function threeStages(): PipelineConfig {
  const config = engineApi.getDefaults()
  const on = ['dedupe', 'prune-tool-results', 'summarize']
  return { ...config, stages: config.stages.map((s) => ({ ...s, enabled: on.includes(s.id) })) }
}

describe('engineApi.runUpTo (stage by stage)', () => {
  it('shows the After as of each stage: totals follow the full run stage reports, nothing is re-tokenized', async () => {
    const imported = engineApi.importText(read('claude-code.jsonl'), 'claude-code.jsonl')
    if (!imported.ok) throw new Error(imported.error.message)
    const config = threeStages()
    const full = ok(await engineApi.run(config, 1))
    const counter = await loadCounter(config.encoding)
    const calls = counter.tokenizerCalls

    const reports = full.stages
    expect(reports.map((r) => r.stage)).toEqual(['dedupe', 'prune-tool-results', 'summarize'])
    for (const report of reports) {
      const view = ok(await engineApi.runUpTo(config, report.stage, 2))
      // The prefix run's own reports are the full run's, up to this stage.
      expect(view.stages).toEqual(reports.slice(0, reports.indexOf(report) + 1))
      expect(view.after.totals.tokens).toBe(report.tokensAfter)
      expect(view.after.totals.messages).toBe(report.messagesAfter)
      expect(view.before.totals).toEqual(full.before.totals)
    }
    expect(counter.tokenizerCalls).toBe(calls)

    // After the last stage it is the full run's After, row for row (ids carry the prefix).
    const last = ok(await engineApi.runUpTo(config, 'summarize', 3))
    expect(last.after.rows.map((r) => r.id)).toEqual(full.after.rows.map((r) => `${STAGE_ROW_PREFIX}${r.id}`))
    expect(last.after.totals).toEqual(full.after.totals)
  })

  it('keeps its rows apart from the full run: a prefixed id reads the prefix run, a Before row points at it', async () => {
    const imported = engineApi.importText(read('claude-code.jsonl'), 'claude-code.jsonl')
    if (!imported.ok) throw new Error(imported.error.message)
    const config = threeStages()
    const full = ok(await engineApi.run(config, 1))
    const dedupe = ok(await engineApi.runUpTo(config, 'dedupe', 2))
    // After dedupe alone nothing is summarized yet: every message is still there.
    expect(dedupe.after.rows.some((r) => r.origin?.kind === 'summary')).toBe(false)
    expect(dedupe.after.rows.length).toBe(full.before.rows.length)
    const backRef = dedupe.after.rows.find((r) => r.origin?.kind === 'back-reference')
    if (!backRef) throw new Error('the Claude Code sample has a repeated tool output')
    const detail = engineApi.getMessageDetail('after', backRef.id)
    expect(detail?.blocks.some((b) => b.kind === 'text' && b.text.length > 0)).toBe(true)
    const beforeId = backRef.id.slice(STAGE_ROW_PREFIX.length)
    const beforeRow = dedupe.before.rows.find((r) => r.id === beforeId)
    expect(beforeRow?.counterpartIds).toEqual([backRef.id])
    expect(beforeRow?.fate?.kind).toBe('back-referenced')
  })

  it('fails for a stage that is off', async () => {
    engineApi.importText(read('openai-chat.json'), 'openai-chat.json')
    const config = threeStages()
    expect(await engineApi.runUpTo(config, 'pin-facts', 1)).toEqual({ ok: false, error: 'pin-facts is not an enabled stage' })
  })
})

describe('engineApi.runUpTo with rows in pages', () => {
  it('sends the first rowPage rows of each side and the rest through getRows(…, stage), apart from the run’s pages', async () => {
    const imported = engineApi.importText(read('claude-code.jsonl'), 'claude-code.jsonl')
    if (!imported.ok) throw new Error(imported.error.message)
    const config = threeStages()
    const whole = ok(await engineApi.runUpTo(config, 'dedupe', 1))
    const run = ok(await engineApi.run(config, 2, { rowPage: 10 }))
    const view = structuredClone(ok(await engineApi.runUpTo(config, 'dedupe', 2, { rowPage: 10 })))
    // The sample has 44 messages; after dedupe alone every one is still in the After.
    expect(view.beforeRowsTotal).toBe(44)
    expect(view.afterRowsTotal).toBe(44)
    for (const side of ['before', 'after'] as const) {
      expect(view[side].rows).toHaveLength(10)
      const rows = [...view[side].rows]
      for (let from = 10; from < 44; from += 10) rows.push(...(engineApi.getRows(2, side, from, 10, 'stage') ?? []))
      expect(rows).toEqual(whole[side].rows)
    }
    // The run's own pages are still its own: unprefixed After ids.
    expect(run.afterRowsTotal).toBeDefined()
    expect(engineApi.getRows(2, 'after', 10, 1)?.[0]?.id.startsWith(STAGE_ROW_PREFIX)).toBe(false)
    expect(engineApi.getRows(1, 'after', 10, 1, 'stage')).toBeNull()
  })
})
