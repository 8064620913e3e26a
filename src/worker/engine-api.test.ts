import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import type { PipelineConfig } from '../engine/model'
import { createEngineApi } from './engine-api'
import { IMPORT_SUPERSEDED } from './stream-import'
import { lineBlob } from '../../test/line-blob'
import { PASS_SUMMARIES_SENT, restoreBeforePreviews, type ImportProgress, type RunView } from './protocol'

const engineApi = createEngineApi()

interface SampleEntry {
  file: string
  format: string
}

const samples = JSON.parse(readFileSync('public/samples/index.json', 'utf8')) as SampleEntry[]
const read = (file: string) => readFileSync(`public/samples/${file}`, 'utf8')

/** Only the named stages enabled, the rest of the defaults kept. */
function only(...ids: string[]): PipelineConfig {
  const config = engineApi.getDefaults()
  return { ...config, stages: config.stages.map((s) => ({ ...s, enabled: ids.includes(s.id) })) }
}

async function runOk(config: PipelineConfig, runId = 1): Promise<RunView> {
  const out = await engineApi.run(config, runId)
  if (!out.ok) throw new Error(`run failed: ${out.error}`)
  return out.view
}

describe('engineApi', () => {
  it('a new transcript drops the previous one\'s cached counts; a re-plan of one transcript counts nothing again', async () => {
    const calls = async () => (await engineApi.tokenStats('o200k_base')).tokenizerCalls
    const a = read('openai-chat.json')
    const b = read('anthropic-messages.json')
    expect(engineApi.importText(a, 'a.json').ok).toBe(true)
    const c0 = await calls()
    await runOk(engineApi.getDefaults(), 1)
    const firstRunOfA = (await calls()) - c0
    expect(firstRunOfA).toBeGreaterThan(0)
    // Warm caches: the same run again tokenizes nothing.
    await runOk(engineApi.getDefaults(), 2)
    expect((await calls()) - c0).toBe(firstRunOfA)
    expect(engineApi.importText(b, 'b.json').ok).toBe(true)
    await runOk(engineApi.getDefaults(), 3)
    // Back to A: its texts were forgotten with it, so its run tokenizes them as the first did.
    expect(engineApi.importText(a, 'a.json').ok).toBe(true)
    const c1 = await calls()
    await runOk(engineApi.getDefaults(), 4)
    expect((await calls()) - c1).toBe(firstRunOfA)
  })

  it.each(samples.map((s) => [s.file, s.format]))('imports and runs %s (%s); every result survives postMessage', async (file, format) => {
    const imported = engineApi.importText(read(file), file)
    expect(structuredClone(imported)).toEqual(imported)
    if (!imported.ok) throw new Error(imported.error.message)
    expect(imported.info.format).toBe(format)
    expect(imported.info.fileName).toBe(file)

    const out = await engineApi.run(engineApi.getDefaults(), 3)
    expect(structuredClone(out)).toEqual(out)
    if (!out.ok) throw new Error(out.error)
    const { view } = out
    expect(view.runId).toBe(3)
    expect(view.before.rows.length).toBe(imported.info.messageCount)
    for (const row of [...view.before.rows, ...view.after.rows]) {
      expect([...row.preview].length).toBeLessThanOrEqual(200)
    }
    // Counterparts always name rows that exist on the other side.
    const beforeIds = new Set(view.before.rows.map((r) => r.id))
    const afterIds = new Set(view.after.rows.map((r) => r.id))
    for (const r of view.before.rows) for (const id of r.counterpartIds) expect(afterIds.has(id)).toBe(true)
    for (const r of view.after.rows) for (const id of r.counterpartIds) expect(beforeIds.has(id)).toBe(true)
  })

  it('imports file bytes the same as text', () => {
    const text = read('openai-chat.json')
    const bytes = new TextEncoder().encode(text).buffer
    const fromBytes = engineApi.importFile(bytes, 'openai-chat.json')
    const fromText = engineApi.importText(text, 'openai-chat.json')
    expect(fromBytes).toEqual(fromText)
  })

  it('returns a typed error for bad input and keeps the previous transcript', async () => {
    const good = engineApi.importText(read('openai-chat.json'), 'openai-chat.json')
    if (!good.ok) throw new Error(good.error.message)

    for (const [text, name] of [
      ['{"messages": [', 'truncated.json'],
      ['', 'empty.json'],
      ['\u0000\u0001\u0002binary\u0000', 'blob.bin'],
      ['{"hello": "world"}', 'unknown.json'],
    ] as const) {
      const bad = engineApi.importText(text, name)
      expect(bad.ok).toBe(false)
      if (!bad.ok) expect(bad.error.message.length).toBeGreaterThan(0)
      expect(structuredClone(bad)).toEqual(bad)
    }
    const view = await runOk(only('dedupe'))
    expect(view.before.rows.length).toBe(good.info.messageCount)
  })

  it('marks the repeated catalog page of openai-chat.json as back-referenced on both sides', async () => {
    engineApi.importText(read('openai-chat.json'), 'openai-chat.json')
    const view = await runOk(only('dedupe'))
    const backrefs = view.after.rows.filter((r) => r.origin?.kind === 'back-reference')
    expect(backrefs.length).toBeGreaterThan(0)
    for (const after of backrefs) {
      expect(after.preview.startsWith('[repeated tool output — byte-identical to an earlier result')).toBe(true)
      const before = view.before.rows.find((r) => r.id === after.counterpartIds[0])
      expect(before?.fate?.kind).toBe('back-referenced')
      expect(before?.counterpartIds).toEqual([after.id])
    }
  })

  it('shows images as a size label, never base64', async () => {
    engineApi.importText(read('openai-chat.json'), 'openai-chat.json')
    const view = await runOk(only('dedupe'))
    const withImage = view.before.rows.find((r) => r.images > 0)
    expect(withImage).toBeDefined()
    const detail = engineApi.getMessageDetail('before', withImage!.id)
    expect(detail?.blocks.some((b) => b.kind === 'image' && /^\[image(, \d+ (B|KB))?\]$/.test(b.label))).toBe(true)
    expect(JSON.stringify(detail)).not.toContain('base64')
    expect(withImage!.preview).not.toContain('base64')
  })

  it('shows thinking as text with its signature kept', async () => {
    engineApi.importText(read('anthropic-messages.json'), 'anthropic-messages.json')
    const view = await runOk(only('dedupe'))
    const thinkingRow = view.before.rows.find((r) => r.thinking > 0)
    expect(thinkingRow).toBeDefined()
    const detail = engineApi.getMessageDetail('before', thinkingRow!.id)
    const block = detail?.blocks.find((b) => b.kind === 'thinking')
    expect(block?.kind === 'thinking' && block.note.includes('signature kept')).toBe(true)
  })

  it('a run of more than PASS_SUMMARIES_SENT passes sends none of their summaries, each served on demand', async () => {
    // keep_last 2, compact_after 3: a pass every other turn of a 4,000-message chat.
    const messages = Array.from({ length: 4000 }, (_, i) => ({ role: i % 2 === 0 ? 'user' : 'assistant', content: `Step ${i}: noted.` }))
    const imported = engineApi.importText(JSON.stringify({ messages }), 'long.json')
    if (!imported.ok) throw new Error(imported.error.message)
    const config = only('summarize')
    const view = await runOk({ ...config, stages: config.stages.map((s) => (s.id === 'summarize' ? { ...s, params: { keep_last: 2, compact_after: 3 } } : s)) })
    expect(view.passes.length).toBeGreaterThan(PASS_SUMMARIES_SENT)
    for (const p of view.passes) expect(p.summary).toBeUndefined()
    const last = view.passes.at(-1)!
    const summary = engineApi.getPassText(last.pass, last.stage, 'summary')
    expect(summary).not.toBeNull()
    expect([...summary!].length).toBe(last.summaryLength)
    // The last pass's summary is the After's summary message, under its header line.
    const row = view.after.rows.find((r) => r.origin?.kind === 'summary')
    expect(engineApi.getMessageDetail('after', row!.id)?.blocks.some((b) => b.kind === 'text' && b.text.endsWith(summary!))).toBe(true)
  })

  it('reports passes without prompts and serves each prompt on demand (claude-code.jsonl)', async () => {
    const imported = engineApi.importText(read('claude-code.jsonl'), 'claude-code.jsonl')
    if (!imported.ok) throw new Error(imported.error.message)
    expect(imported.info.recordedCompactions.length).toBe(1)
    // 44 messages > compact_after 5 at the first turn end after message 5: summarize fires.
    const config = only('summarize')
    const view = await runOk({
      ...config,
      stages: config.stages.map((s) => (s.id === 'summarize' ? { ...s, params: { keep_last: 4, compact_after: 5 } } : s)),
    })
    expect(view.passes.length).toBeGreaterThan(0)
    const first = view.passes[0]!
    expect('prompt' in first).toBe(false)
    const prompt = engineApi.getPassText(first.pass, first.stage)
    expect(prompt).not.toBeNull()
    expect([...prompt!].length).toBe(first.promptLength)

    // A few passes: each summary crosses with the view.
    expect(first.summary).toBe(engineApi.getPassText(first.pass, first.stage, 'summary'))
    expect([...first.summary!].length).toBe(first.summaryLength)

    const summaries = view.after.rows.filter((r) => r.origin?.kind === 'summary')
    expect(summaries.length).toBe(1)
    const summarized = view.before.rows.filter((r) => r.fate?.kind === 'summarized')
    expect(summarized.length).toBeGreaterThan(0)
    for (const r of summarized) expect(r.counterpartIds).toEqual([summaries[0]!.id])
  })

  it('returns null for an unknown row', () => {
    expect(engineApi.getMessageDetail('after', 'no-such-id')).toBeNull()
  })
})

describe('engineApi: streamed files, recorded compactions, sub-agents, export', () => {
  const fixture = (name: string) => readFileSync(`e2e/fixtures/${name}`, 'utf8')

  it('imports a Blob with progress and offers the source request format for export', async () => {
    const reports: ImportProgress[] = []
    const out = await engineApi.importBlob(new Blob([read('claude-code.jsonl')]), 'claude-code.jsonl', (p) => reports.push(p))
    expect(structuredClone(out)).toEqual(out)
    if (!out.ok) throw new Error(out.error.message)
    expect(out.info).toMatchObject({ format: 'claude-code', open: 'main', exportTargets: ['canonical', 'anthropic'] })
    expect(reports.at(-1)?.phase).toBe('building')
    const targets = (file: string) => {
      const r = engineApi.importText(read(file), file)
      return r.ok ? r.info.exportTargets : []
    }
    expect(targets('openai-chat.json')).toEqual(['canonical', 'openai-chat'])
    expect(targets('anthropic-messages.json')).toEqual(['canonical', 'anthropic'])
    expect(targets('openai-responses.json')).toEqual(['canonical', 'openai-responses'])
    expect(targets('codex-rollout.jsonl')).toEqual(['canonical', 'openai-responses'])
    expect(targets('langchain-messages.json')).toEqual(['canonical'])
  })

  it('shows what the agent kept after its recorded compaction (claude-code.jsonl)', async () => {
    const imported = engineApi.importText(read('claude-code.jsonl'), 'claude-code.jsonl')
    if (!imported.ok) throw new Error(imported.error.message)
    const [compaction] = imported.info.recordedCompactions
    if (!compaction) throw new Error('the sample records a compaction')
    const out = await engineApi.runRecorded('o200k_base')
    expect(structuredClone(out)).toEqual(out)
    if (!out.ok) throw new Error(out.error)
    const { view, comparison } = out.recorded
    expect(out.recorded.compaction).toBe(0)
    expect(comparison).toBeNull() // no simulation yet
    // Claude Code keeps nothing before the boundary but its summary: the summary, then the rest.
    const summaries = view.after.rows.filter((r) => r.origin?.kind === 'summary')
    expect(summaries).toHaveLength(1)
    expect(summaries[0]?.origin).toMatchObject({ stage: 'recorded', pass: 1 })
    expect(summaries[0]?.flags.compactSummary).toBe(true)
    expect(view.after.rows[0]?.id).toBe(summaries[0]?.id)
    expect(view.after.rows.length).toBe(imported.info.messageCount - compaction.atIndex)
    for (const r of view.before.rows) {
      const kind = r.index < compaction.atIndex ? 'summarized' : 'kept'
      expect(r.fate?.kind).toBe(kind)
    }
    // The agent's compaction is the view's one pass: it folded 0..atIndex-1, the last message it had was atIndex-1.
    expect(view.passes).toMatchObject([{ stage: 'recorded', pass: 1, atMessage: compaction.atIndex - 1, from: 0, upto: compaction.atIndex }])
    expect(view.after.totals.tokens).toBeLessThan(view.before.totals.tokens)
    // Full text of a recorded row comes from the recorded view.
    expect(engineApi.getMessageDetail('recorded', summaries[0]!.id)?.role).toBe(summaries[0]?.role)

    const sim = await runOk(engineApi.getDefaults())
    const again = await engineApi.runRecorded('o200k_base', 0)
    if (!again.ok) throw new Error(again.error)
    expect(again.recorded.comparison?.recorded.tokens).toBe(view.after.totals.tokens)
    expect(again.recorded.comparison?.simulated.tokens).toBe(sim.after.totals.tokens)
  })

  it('says so when the transcript records no compaction', async () => {
    engineApi.importText(read('openai-chat.json'), 'openai-chat.json')
    expect(await engineApi.runRecorded('o200k_base')).toEqual({
      ok: false,
      error: 'this transcript records no compaction',
    })
  })

  it('exports the simulated and the recorded After, leaving the Before untouched', async () => {
    engineApi.importText(read('claude-code.jsonl'), 'claude-code.jsonl')
    const sim = await runOk(engineApi.getDefaults())
    const firstBefore = engineApi.getMessageDetail('before', sim.before.rows[0]!.id)

    const canonical = engineApi.exportAfter('after', 'canonical')
    if (!canonical.ok) throw new Error(canonical.error)
    expect(canonical.fileName).toBe('claude-code.after.canonical.json')
    const file = JSON.parse(await canonical.blob.text()) as { format: string; messages: { id: string }[] }
    expect(file.format).toBe('canonical')
    expect(file.messages.map((m) => m.id)).toEqual(sim.after.rows.map((r) => r.id))

    const anthropic = engineApi.exportAfter('after', 'anthropic')
    if (!anthropic.ok) throw new Error(anthropic.error)
    expect(anthropic.fileName).toBe('claude-code.after.anthropic.json')
    const body = JSON.parse(await anthropic.blob.text()) as { messages: { role: string }[] }
    expect(body.messages.every((m) => m.role === 'user' || m.role === 'assistant')).toBe(true)

    expect(engineApi.exportAfter('recorded', 'canonical')).toEqual({ ok: false, error: 'nothing to export yet' })
    const rec = await engineApi.runRecorded('o200k_base')
    if (!rec.ok) throw new Error(rec.error)
    const recorded = engineApi.exportAfter('recorded', 'canonical')
    if (!recorded.ok) throw new Error(recorded.error)
    const recordedFile = JSON.parse(await recorded.blob.text()) as { messages: { id: string }[] }
    expect(recordedFile.messages.map((m) => m.id)).toEqual(rec.recorded.view.after.rows.map((r) => r.id))

    // The Before is what was imported, before and after exporting.
    expect(engineApi.getMessageDetail('before', sim.before.rows[0]!.id)).toEqual(firstBefore)
    expect((await runOk(engineApi.getDefaults())).before).toEqual(sim.before)
  })

  it('lists branches and opens a sub-agent as its own transcript (Claude Code)', async () => {
    const out = await engineApi.importBlob(new Blob([fixture('claude-code-forks.jsonl')]), 'forks.jsonl')
    if (!out.ok) throw new Error(out.error.message)
    expect(out.info.messageCount).toBe(8)
    expect(out.info.branches).toEqual([
      {
        id: 'a2x',
        fromMessageId: 'r1',
        messageCount: 1,
        firstText: 'I will rename it to read_config everywhere, including the public API.',
      },
    ])
    expect(out.info.sidechains).toEqual([
      { index: 0, title: 'Sub-agent agent7: Find every caller of load_config', messageCount: 4 },
    ])

    const sub = engineApi.openConversation(0)
    if (!sub.ok) throw new Error(sub.error.message)
    expect(sub.info).toMatchObject({ open: 0, messageCount: 4, format: 'claude-code', fileName: 'forks.jsonl' })
    expect(sub.info.sidechains).toHaveLength(1) // still listed, to go back or switch
    const view = await runOk(only('dedupe'))
    expect(view.before.rows.map((r) => r.role)).toEqual(['user', 'assistant', 'tool', 'assistant'])

    const main = engineApi.openConversation('main')
    expect(main.ok && main.info.messageCount).toBe(8)
    expect(engineApi.openConversation(3)).toEqual({ ok: false, error: { message: 'no sub-agent transcript 3' } })
  })
})

describe('an Inspect AI .eval log (a zip) dropped on the page', () => {
  // test/fixtures/formats/inspect-ai-sample.eval: two samples (formats/inspect-ai.test.ts counts
  // them): sample 1 has 10 messages, sample 2 has 6.
  const evalBytes = () => readFileSync('test/fixtures/formats/inspect-ai-sample.eval')

  it('importBlob reads it whole and lists the second sample as a conversation to open', async () => {
    const out = await engineApi.importBlob(new Blob([evalBytes()]), 'inspect-ai-sample.eval')
    expect(structuredClone(out)).toEqual(out)
    if (!out.ok) throw new Error(out.error.message)
    expect(out.info).toMatchObject({
      format: 'inspect-ai',
      fileName: 'inspect-ai-sample.eval',
      title: 'fix_rates: sample 1 (epoch 1)',
      messageCount: 10,
      sidechains: [{ index: 0, title: 'sample 2 (epoch 1)', messageCount: 6 }],
    })
    expect(out.info.recordedCompactions).toHaveLength(1)
    const second = engineApi.openConversation(0)
    expect(second.ok && second.info.messageCount).toBe(6)
    const view = await runOk(only('dedupe'))
    expect(view.before.rows.map((r) => r.role)).toEqual(['user', 'assistant', 'tool', 'assistant', 'user', 'assistant'])
  })

  it('importFile (transferred bytes) gives the same; a zip of no format is a clear error', () => {
    const bytes = evalBytes()
    const out = engineApi.importFile(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length), 'x.eval')
    expect(out.ok && [out.info.format, out.info.messageCount]).toEqual(['inspect-ai', 10])
    // An empty zip archive: the end-of-central-directory record alone.
    const empty = new Uint8Array(22)
    empty.set([0x50, 0x4b, 0x05, 0x06])
    const out2 = engineApi.importFile(empty.buffer, 'export.zip')
    expect(out2.ok).toBe(false)
    if (!out2.ok) {
      expect(out2.error.message).toMatch(/^a zip archive of no format this version reads \(it is empty\); looked for /)
      expect(out2.error.message).toContain('header.json (Inspect AI eval log)')
    }
  })
})

describe('run without the Before previews the client already holds', () => {
  it('leaves them out for the same transcript, and restoreBeforePreviews puts them back', async () => {
    const imported = engineApi.importText(read('claude-code.jsonl'), 'claude-code.jsonl')
    if (!imported.ok) throw new Error(imported.error.message)
    const first = await runOk(engineApi.getDefaults(), 1)
    expect(first.transcriptKey).toBeTruthy()
    expect(first.beforePreviewsOmitted).toBeUndefined()

    const out = await engineApi.run(only('dedupe'), 2, { previewsOf: first.transcriptKey })
    if (!out.ok) throw new Error(out.error)
    const slim = structuredClone(out.view)
    expect(slim.beforePreviewsOmitted).toBe(true)
    expect(slim.before.rows.every((r) => r.preview === undefined && r.role === undefined)).toBe(true)
    expect(restoreBeforePreviews(slim, first)).toBe(true)
    expect(slim.beforePreviewsOmitted).toBeUndefined()
    // Static fields from the held view, per-run fields (fates: dedupe only now) from this run.
    const full = await runOk(only('dedupe'), 3)
    expect(slim.before.rows).toEqual(full.before.rows)
    expect(slim.before.rows.some((r) => r.fate?.kind === 'summarized')).toBe(false)
  })

  it('keeps the held row object where a run changed none of its fields, and makes a new one where it did', async () => {
    const imported = engineApi.importText(read('claude-code.jsonl'), 'claude-code.jsonl')
    if (!imported.ok) throw new Error(imported.error.message)
    const first = await runOk(engineApi.getDefaults(), 1)
    const held = structuredClone(first.before.rows)
    const out = await engineApi.run(only('dedupe'), 2, { previewsOf: first.transcriptKey })
    if (!out.ok) throw new Error(out.error)
    const slim = structuredClone(out.view)
    expect(restoreBeforePreviews(slim, first)).toBe(true)
    const rows = slim.before.rows
    const same = rows.filter((r, i) => r === first.before.rows[i])
    const changed = rows.filter((r, i) => r !== first.before.rows[i])
    // The default pipeline summarizes some messages that dedupe alone leaves: those rows change.
    expect(same.length).toBeGreaterThan(0)
    expect(changed.length).toBeGreaterThan(0)
    for (const r of changed) {
      const i = rows.indexOf(r)
      expect(r.fate?.kind !== held[i]?.fate?.kind || r.tokens !== held[i]?.tokens || r.counterpartIds.join() !== held[i]?.counterpartIds.join()).toBe(true)
    }
    // The held view is never touched.
    expect(first.before.rows).toEqual(held)
  })

  it('sends them again once another transcript is open, and refuses a view of another transcript', async () => {
    engineApi.importText(read('claude-code.jsonl'), 'claude-code.jsonl')
    const old = await runOk(engineApi.getDefaults(), 1)
    engineApi.importText(read('claude-code.jsonl'), 'again.jsonl')
    const out = await engineApi.run(engineApi.getDefaults(), 2, { previewsOf: old.transcriptKey })
    if (!out.ok) throw new Error(out.error)
    expect(out.view.transcriptKey).not.toBe(old.transcriptKey)
    expect(out.view.beforePreviewsOmitted).toBeUndefined()
    expect(out.view.before.rows.some((r) => r.preview !== '')).toBe(true)

    const slim = structuredClone(out.view)
    slim.beforePreviewsOmitted = true
    expect(restoreBeforePreviews(slim, old)).toBe(false)
    expect(restoreBeforePreviews(slim, null)).toBe(false)
  })
})

describe('run with the Before rows in pages (B5)', () => {
  it('sends the first rowPage rows with the view and the rest through getRows', async () => {
    const imported = engineApi.importText(read('claude-code.jsonl'), 'claude-code.jsonl')
    if (!imported.ok) throw new Error(imported.error.message)
    const whole = await runOk(engineApi.getDefaults(), 1)
    const out = await engineApi.run(engineApi.getDefaults(), 2, { rowPage: 10 })
    if (!out.ok) throw new Error(out.error)
    const view = structuredClone(out.view)
    // The sample has 44 messages: 10 with the view, then pages of 10, 10, 10 and 4.
    expect(view.beforeRowsTotal).toBe(44)
    expect(view.before.rows).toHaveLength(10)
    const rows = [...view.before.rows]
    for (let from = 10; from < 44; from += 10) rows.push(...(engineApi.getRows(2, 'before', from, 10) ?? []))
    expect(rows).toEqual(whole.before.rows)
    // Another run's id, or after a newer paged run, the rows are gone: the page asks again.
    expect(engineApi.getRows(1, 'before', 10, 10)).toBeNull()
    await engineApi.run(engineApi.getDefaults(), 3, { rowPage: 10 })
    expect(engineApi.getRows(2, 'before', 10, 10)).toBeNull()
  })

  it('pages slim Before rows and the After rows too; a side that fits goes whole', async () => {
    engineApi.importText(read('claude-code.jsonl'), 'claude-code.jsonl')
    const first = await runOk(engineApi.getDefaults(), 1)
    const slim = await engineApi.run(engineApi.getDefaults(), 2, { previewsOf: first.transcriptKey, rowPage: 10 })
    if (!slim.ok) throw new Error(slim.error)
    expect(slim.view.beforePreviewsOmitted).toBe(true)
    expect(slim.view.beforeRowsTotal).toBe(44)
    expect(slim.view.before.rows).toHaveLength(10)
    const slimRows = [...slim.view.before.rows]
    for (let from = 10; from < 44; from += 10) slimRows.push(...(engineApi.getRows(2, 'before', from, 10) ?? []))
    expect(slimRows.map((r) => [r.id, r.tokens, r.counterpartIds])).toEqual(first.before.rows.map((r) => [r.id, r.tokens, r.counterpartIds]))
    expect(slimRows.every((r) => r.preview === undefined)).toBe(true)

    const afterCount = first.after.rows.length
    const paged = await engineApi.run(engineApi.getDefaults(), 3, { rowPage: afterCount - 1 })
    if (!paged.ok) throw new Error(paged.error)
    expect(paged.view.afterRowsTotal).toBe(afterCount)
    expect(paged.view.after.rows).toEqual(first.after.rows.slice(0, afterCount - 1))
    expect(engineApi.getRows(3, 'after', afterCount - 1, afterCount)).toEqual(first.after.rows.slice(afterCount - 1))

    const fits = await engineApi.run(engineApi.getDefaults(), 4, { rowPage: 44 })
    if (!fits.ok) throw new Error(fits.error)
    expect(fits.view.beforeRowsTotal).toBeUndefined()
    expect(fits.view.afterRowsTotal).toBeUndefined()
    expect(fits.view.before.rows).toHaveLength(44)
    expect(engineApi.getRows(4, 'before', 0, 10)).toBeNull()
  })
})

describe('engineApi.getRework', () => {
  it('answers the re-work of the last run with the page\'s runId, the recorded compaction included', async () => {
    const api = createEngineApi()
    expect(api.getRework(1)).toEqual({ ok: false, error: 'Nothing has run yet.' })
    expect(api.importText(read('claude-code.jsonl'), 'claude-code.jsonl').ok).toBe(true)
    const run = await api.run(api.getDefaults(), 7)
    expect(run.ok).toBe(true)
    const out = api.getRework(7)
    if (!out.ok) throw new Error(out.error)
    expect(out.runId).toBe(7)
    // The sample's /compact (boundary at #28) is followed by a re-read of data/carriers.csv and `ls -la`.
    const recorded = out.rework.find((r) => r.compaction.kind === 'recorded')
    expect(recorded?.calls.map((c) => c.tool)).toEqual(['Read', 'Bash'])
    expect(structuredClone(out)).toEqual(out)
  })
})

describe('engineApi: a streamed import superseded', () => {
  /**
   * The Claude Code sample as a Blob read one line per read; the second read waits for `release`,
   * so the test can act while the import is mid-file (`atGate`).
   */
  function gatedBlob() {
    let release = () => {}
    const gate = new Promise<void>((resolve) => (release = resolve))
    let waiting = () => {}
    const atGate = new Promise<void>((resolve) => (waiting = resolve))
    const lines = read('claude-code.jsonl').split(/(?<=\n)/)
    const { blob, seen } = lineBlob(lines, async (n) => {
      if (n !== 2) return
      waiting()
      await gate
    })
    return { blob, seen, atGate, release }
  }

  it('abortImport stops the read mid-file, opens nothing of it, and leaves the open transcript', async () => {
    expect(engineApi.importText(read('openai-chat.json'), 'open.json').ok).toBe(true)
    const { blob, seen, atGate, release } = gatedBlob()
    const importing = engineApi.importBlob(blob, 'claude-code.jsonl')
    await atGate
    engineApi.abortImport()
    release()
    expect(await importing).toEqual({ ok: false, error: { message: IMPORT_SUPERSEDED } })
    expect(seen).toEqual({ pulls: 2, cancelled: true })
    const open = engineApi.openConversation('main')
    expect(open.ok && open.info.fileName).toBe('open.json')
  })

  it('a newer text import supersedes a streamed one in flight: the newer one stays open', async () => {
    const { blob, atGate, release } = gatedBlob()
    const importing = engineApi.importBlob(blob, 'claude-code.jsonl')
    await atGate
    expect(engineApi.importText(read('anthropic-messages.json'), 'newer.json').ok).toBe(true)
    release()
    expect(await importing).toEqual({ ok: false, error: { message: IMPORT_SUPERSEDED } })
    const open = engineApi.openConversation('main')
    expect(open.ok && open.info.fileName).toBe('newer.json')
  })
})
