import { ALL_PARAMS } from '../stages/definitions'
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { extractFacts } from '../facts/patterns'
import { isNoiseFact } from '../facts/importance'
import { defaultIndexOf, factTable } from '../facts/table'
import { importTranscript } from '../formats/index'
import type { PipelineConfig, Transcript } from '../model'
import { DEFAULT_PIPELINE, runPipeline } from '../pipeline'
import { KEEP_STEPS_ERROR } from '../stages/prune-tool-results'
import type { Summarizer } from '../stages/types'
import { extractiveSummarizer } from '../summarizers/extractive'
import {
  checkAxes,
  createSummaryMemo,
  configWith,
  factsLostCounter,
  parseSweepAxis,
  sweep,
  type SweepAxis,
  type SweepCell,
  type SweepProgress,
} from './sweep'
import { cacheCounter, loadCounter } from '../tokens/count'
import { postalCodeTranscript } from '../../../test/postal-code-needed'
import { longChat } from '../../../test/hostile'

function sample(file: string): Transcript {
  const text = readFileSync(new URL(`../../../public/samples/${file}`, import.meta.url), 'utf8')
  const imported = importTranscript(text, { fileName: file })
  if (!imported.ok) throw new Error(imported.error.message)
  return imported.transcript
}

describe('parseSweepAxis', () => {
  const values = (text: string) => {
    const r = parseSweepAxis(text)
    if (!r.ok) throw new Error(r.error)
    return r.axis
  }

  it('reads an inclusive range with a step (the issue’s examples)', () => {
    expect(values('keep_last=5..40:5')).toEqual({ param: 'keep_last', values: [5, 10, 15, 20, 25, 30, 35, 40] })
    expect(values('compact_after=10..80:10').values).toEqual([10, 20, 30, 40, 50, 60, 70, 80])
  })

  it('a step that does not land on the end stops before it; no step means 1', () => {
    expect(values('target=10..20:3').values).toEqual([10, 13, 16, 19])
    expect(values('keep_steps=0..3').values).toEqual([0, 1, 2, 3])
    expect(values('min_tokens=7..7').values).toEqual([7])
  })

  it('reads a list, and the alias threshold for threshold_tokens', () => {
    expect(values('threshold=4000,2000,8000')).toEqual({ param: 'threshold_tokens', values: [4000, 2000, 8000] })
    expect(values(' keep_recent = 2 , 4 ')).toEqual({ param: 'keep_recent', values: [2, 4] })
  })

  it('says what is wrong in one line', () => {
    const error = (text: string) => {
      const r = parseSweepAxis(text)
      return r.ok ? 'ok' : r.error
    }
    expect(error('keep_last')).toBe('"keep_last" is not name=from..to:step or name=a,b,c')
    // Every count param whose definition has a sweep range, in the default pipeline's stage order.
    const sweepable = ALL_PARAMS.filter(({ param }) => param.sweep).map(({ param }) => param.key)
    expect(sweepable).toEqual(expect.arrayContaining(['keep_last', 'compact_after', 'target', 'keep', 'max_facts']))
    expect(error('nope=1..2')).toBe(`unknown parameter "nope"; one of: ${sweepable.join(', ')}`)
    expect(error('keep_last=40..5:5')).toBe('keep_last: the range 40..5 runs backwards')
    expect(error('keep_last=1..5:0')).toBe('keep_last: the step must be a whole number ≥ 1')
    expect(error('keep_last=1..5:x')).toBe('keep_last: the step must be a whole number ≥ 1')
    expect(error('keep_last=1..51')).toBe('keep_last: 51 values; at most 50 per axis')
    expect(error('keep_last=-3,4')).toBe('keep_last: "-3,4" is not from..to:step or a list of whole numbers ≥ 0 (a,b,c)')
    expect(error('keep_last=2.5')).toBe('keep_last: "2.5" is not from..to:step or a list of whole numbers ≥ 0 (a,b,c)')
    expect(error('keep_last=')).toBe('keep_last: "" is not from..to:step or a list of whole numbers ≥ 0 (a,b,c)')
    expect(error('keep_last=3,3')).toBe('keep_last: a value is listed twice')
  })
})

describe('checkAxes / configWith', () => {
  it('refuses the same parameter twice, an empty axis and non-whole values', () => {
    const a: SweepAxis = { param: 'keep_last', values: [5] }
    expect(checkAxes(a, { param: 'compact_after', values: [10] })).toBeNull()
    expect(checkAxes(a, a)).toBe('x and y are both keep_last: choose two different parameters')
    expect(checkAxes(a, { param: 'target', values: [] })).toBe('y: target has no values')
    expect(checkAxes({ param: 'keep_last', values: [1.5] }, { param: 'target', values: [1] })).toBe(
      'x: keep_last values must be whole numbers ≥ 0',
    )
  })

  it('sets both params, switches their stages on and leaves the base untouched', () => {
    const base: PipelineConfig = JSON.parse(JSON.stringify(DEFAULT_PIPELINE)) as PipelineConfig
    base.stages.find((s) => s.id === 'insert-then-compress')!.enabled = false
    const out = configWith(base, { param: 'keep_last', value: 7 }, { param: 'threshold_tokens', value: 900 })
    expect(out.stages.find((s) => s.id === 'summarize')).toEqual({
      id: 'summarize',
      enabled: true,
      params: { keep_last: 7, compact_after: 40 },
    })
    expect(out.stages.find((s) => s.id === 'insert-then-compress')).toEqual({
      id: 'insert-then-compress',
      enabled: true,
      params: { threshold_tokens: 900, keep_recent: 10 },
    })
    expect(base.stages.find((s) => s.id === 'insert-then-compress')!.enabled).toBe(false)
    expect(out.stages.map((s) => s.id)).toEqual(base.stages.map((s) => s.id))
  })
})

describe('sweep on the Claude Code sample', () => {
  const transcript = sample('claude-code.jsonl')

  it('every cell equals a single runPipeline with the same settings (tokens after, passes, facts lost)', async () => {
    const counter = await loadCounter('o200k_base')
    const x: SweepAxis = { param: 'keep_last', values: [5, 10, 20] }
    const y: SweepAxis = { param: 'compact_after', values: [12, 30, 40] }
    // Raw counts: the seeds' numbers on our own count (the sample records usage, auto would calibrate).
    // Raw counts with the old seed target: the numbers below are derived from it.
    const base: PipelineConfig = { ...configWith(DEFAULT_PIPELINE, { param: 'target', value: 12000 }), calibration: { mode: 'off' } }
    const result = await sweep(transcript, base, x, y, { counter })
    expect(result.complete).toBe(true)
    expect(result.cells.length).toBe(3)
    expect(result.factsTotal).toBe(extractFacts(transcript.messages).filter((f) => !isNoiseFact(f)).length)
    for (const [yi, yv] of y.values.entries()) {
      for (const [xi, xv] of x.values.entries()) {
        const cell = result.cells[yi]![xi] as SweepCell
        const config = configWith(base, { param: 'keep_last', value: xv }, { param: 'compact_after', value: yv })
        const single = await runPipeline(transcript, config, { counter })
        expect(cell).toMatchObject({
          ok: true,
          x: xv,
          y: yv,
          tokensAfter: single.after.totals.tokens,
          tokensSaved: single.before.totals.tokens - single.after.totals.tokens,
          passes: single.passes.length,
          factsLost: factTable(single).totals.lost,
          neededLost: factTable(single).totals.needed,
        })
        expect(result.tokensBefore).toBe(single.before.totals.tokens)
      }
    }
    // The cell (20, 40) is the seeds' run on the raw count with target 12,000: 19,526 → 6,249 tokens, one pass,
    // less the 43-token signed thinking block of a kept earlier turn, which Anthropic requires gone
    // after a summary (stages/thinking.ts): 6,206.
    expect(result.cells[2]![2]).toMatchObject({ tokensAfter: 6206, tokensSaved: 13320, percentSaved: 68.2, passes: 1 })
  })

  it('a compact_after under keep_last is clamped by the engine: the cell says so and equals compact_after = keep_last', async () => {
    const counter = await loadCounter('o200k_base')
    const result = await sweep(
      transcript,
      DEFAULT_PIPELINE,
      { param: 'keep_last', values: [20] },
      { param: 'compact_after', values: [10, 20] },
      { counter },
    )
    const [clamped, same] = [result.cells[0]![0]!, result.cells[1]![0]!]
    expect(clamped).toMatchObject({ ok: true, note: 'compact_after 10 < keep_last 20: the engine clamps it up to 20' })
    expect(same.ok && same.note).toBe(undefined)
    expect(clamped.ok && same.ok && clamped.tokensAfter === same.tokensAfter && clamped.passes === same.passes).toBe(true)
  })

  it('target × keep_steps: keep_steps 0 cells are invalid with the seed’s reason; the others match single runs', async () => {
    const counter = await loadCounter('o200k_base')
    const base: PipelineConfig = JSON.parse(JSON.stringify(DEFAULT_PIPELINE)) as PipelineConfig
    base.stages.find((s) => s.id === 'prune-tool-results')!.enabled = false
    const result = await sweep(
      transcript,
      base,
      { param: 'target', values: [4000, 12000] },
      { param: 'keep_steps', values: [0, 2] },
      { counter },
    )
    expect(result.enabledStages).toEqual(['prune-tool-results'])
    expect(result.cells[0]).toEqual([
      { ok: false, x: 4000, y: 0, reason: `prune-tool-results: ${KEEP_STEPS_ERROR}` },
      { ok: false, x: 12000, y: 0, reason: `prune-tool-results: ${KEEP_STEPS_ERROR}` },
    ])
    for (const [xi, target] of [4000, 12000].entries()) {
      const single = await runPipeline(
        transcript,
        configWith(base, { param: 'target', value: target }, { param: 'keep_steps', value: 2 }),
        { counter },
      )
      expect(result.cells[1]![xi]).toMatchObject({ tokensAfter: single.after.totals.tokens, passes: single.passes.length })
    }
  })

  it('no cell re-tokenizes: each text is tokenized once for the whole grid; a repeat sweep tokenizes nothing and asks no summary', async () => {
    const real = await loadCounter('o200k_base')
    const calls = new Map<string, number>()
    const counter = cacheCounter('o200k_base', (text) => {
      calls.set(text, (calls.get(text) ?? 0) + 1)
      return real.count(text)
    })
    let asked = 0
    const counting: Summarizer = (request) => {
      asked++
      return extractiveSummarizer(request)
    }
    const memo = createSummaryMemo()
    const x: SweepAxis = { param: 'keep_last', values: [5, 10, 15, 20] }
    const y: SweepAxis = { param: 'compact_after', values: [20, 30, 40, 50] }
    const first = await sweep(transcript, DEFAULT_PIPELINE, x, y, { counter, summarizer: counting, memo })
    expect(first.tokenizerCalls).toBe(counter.tokenizerCalls)
    expect(Math.max(...calls.values())).toBe(1)
    // 16 cells ran, yet each message text of the transcript went through the tokenizer once.
    for (const m of transcript.messages) {
      if (typeof m.content === 'string' && m.content !== '') expect(calls.get(m.content)).toBe(1)
    }
    const askedFirst = asked
    expect(askedFirst).toBeGreaterThan(0)
    const second = await sweep(transcript, DEFAULT_PIPELINE, x, y, { counter, summarizer: counting, memo })
    expect(second.tokenizerCalls).toBe(0)
    expect(asked).toBe(askedFirst)
    expect(second.cells).toEqual(first.cells)
  })

  it('reports progress after every cell and stops on cancel, leaving the cells not run null', async () => {
    const counter = await loadCounter('o200k_base')
    const seen: SweepProgress[] = []
    const signal = { aborted: false }
    const result = await sweep(
      transcript,
      DEFAULT_PIPELINE,
      { param: 'keep_last', values: [5, 10, 15] },
      { param: 'compact_after', values: [20, 40] },
      { counter },
      (p) => {
        seen.push(p)
        if (p.done === 4) signal.aborted = true
      },
      signal,
    )
    expect(seen.map((p) => [p.done, p.total, p.xi, p.yi])).toEqual([
      [1, 6, 0, 0],
      [2, 6, 1, 0],
      [3, 6, 2, 0],
      [4, 6, 0, 1],
    ])
    expect(result.complete).toBe(false)
    expect(result.cells[1]![0]).not.toBeNull()
    expect(result.cells[1]!.slice(1)).toEqual([null, null])
  })

  it('throws the axes problem before running anything', async () => {
    const counter = await loadCounter('o200k_base')
    const a: SweepAxis = { param: 'target', values: [1000] }
    await expect(sweep(transcript, DEFAULT_PIPELINE, a, a, { counter })).rejects.toThrow(
      'x and y are both target: choose two different parameters',
    )
  })
})

describe('sweep metrics: important facts lost and needed facts lost', () => {
  it('each cell equals the single run, on the postal code the assistant read before compaction', async () => {
    const transcript = postalCodeTranscript()
    const counter = await loadCounter('o200k_base')
    const base: PipelineConfig = {
      encoding: 'o200k_base',
      summarizer: 'extractive',
      stages: [{ id: 'summarize', enabled: true, params: {} }],
    }
    const x: SweepAxis = { param: 'keep_last', values: [2, 6] }
    const y: SweepAxis = { param: 'compact_after', values: [4, 8] }
    const result = await sweep(transcript, base, x, y, { counter })
    for (const [yi, yv] of y.values.entries()) {
      for (const [xi, xv] of x.values.entries()) {
        const single = await runPipeline(
          transcript,
          configWith(base, { param: 'keep_last', value: xv }, { param: 'compact_after', value: yv }),
          { counter },
        )
        const table = factTable(single)
        expect(result.cells[yi]![xi]).toMatchObject({ ok: true, factsLost: table.totals.lost, neededLost: table.totals.needed })
      }
    }
    // keep_last 2 / compact_after 4 (test/postal-code-needed.ts): pass 1 (turn end 6) folds 1–4 and
    // its 40-fact cap leaves out LMP-1041 and LMP-1042; pass 2 (turn end 10) folds 5–8 behind pass
    // 1's 40 lamp ids and leaves out the postal code the assistant read at message 6, the 41st
    // fact. 3 lost; message 11 ("the postal code from earlier") needs only the postal code.
    expect(result.cells[0]![0]).toMatchObject({ factsLost: 3, neededLost: 1 })
    // keep_last 2 / compact_after 8: one pass at turn end 10 (1–10 unsummarized, > 8) folds 1–8.
    // LMP-1007, which the user typed at message 5, is on the `User stated` line; the other 41 lamp
    // ids and then the postal code (all of the same importance tier, in order of first appearance)
    // fill the `Facts` line: the cap keeps LMP-1001…LMP-1041 but LMP-1007, and leaves out LMP-1042
    // and the postal code, which message 11 needs.
    expect(result.cells[1]![0]).toMatchObject({ factsLost: 2, neededLost: 1 })
    // keep_last 6 / compact_after 8: one pass at turn end 10 folds 1–4 (LMP-1041 and LMP-1042 left
    // out); the postal code (message 6) stays verbatim, so nothing lost is needed.
    expect(result.cells[1]![1]).toMatchObject({ factsLost: 2, neededLost: 0 })
  })
})

describe('factsLostCounter', () => {
  it('agrees with the facts table on a pruned and summarized OpenAI sample', async () => {
    const transcript = sample('openai-chat.json')
    const counter = await loadCounter('o200k_base')
    const count = factsLostCounter(defaultIndexOf(transcript.messages))
    for (const [keep, after] of [[4, 8], [10, 20], [20, 40]] as const) {
      const config = configWith(
        DEFAULT_PIPELINE,
        { param: 'keep_last', value: keep },
        { param: 'compact_after', value: after },
        { param: 'target', value: 3000 },
      )
      const run = await runPipeline(transcript, config, { counter })
      expect(count(run)).toBe(factTable(run).totals.lost)
    }
    // Nothing compacted → nothing lost.
    const none = await runPipeline(transcript, { ...DEFAULT_PIPELINE, stages: [] }, { counter })
    expect(count(none)).toBe(0)
  })
})

describe('sweep cells over the model window', () => {
  it('a trigger_tokens above the window on a context that grows past it: the cell is over the window', async () => {
    const imported = importTranscript(longChat(400), { fileName: 'long.json' })
    if (!imported.ok) throw new Error(imported.error.message)
    const transcript = imported.transcript
    // The smallest usable window (models.ts windowOf: 1,000 tokens), far below the chat's context.
    const base: PipelineConfig = { ...structuredClone(DEFAULT_PIPELINE), window: 1_000 }
    const counter = await loadCounter('o200k_base')
    const result = await sweep(
      transcript,
      base,
      { param: 'trigger_tokens', values: [500, 50_000] },
      { param: 'keep_tokens', values: [0] },
      { counter, summarizer: extractiveSummarizer },
    )
    expect(result.window).toBe(1_000)
    expect(result.tokensBefore).toBeGreaterThan(1_000)
    const [low, high] = result.cells[0]!
    if (!low?.ok || !high?.ok) throw new Error('a cell failed')
    // 50,000 is never reached: no pass, the context grows to the whole Before, over the window.
    expect(high.passes).toBe(0)
    expect(high.peakTokens).toBe(result.tokensBefore)
    expect(high.overWindow).toBe(true)
    // The same settings on a window the whole chat fits: no cell is over it.
    const wide = await sweep(
      transcript,
      { ...base, window: 1_000_000 },
      { param: 'trigger_tokens', values: [500, 50_000] },
      { param: 'keep_tokens', values: [0] },
      { counter, summarizer: extractiveSummarizer },
    )
    expect(wide.window).toBe(1_000_000)
    for (const cell of wide.cells[0]!) expect(cell?.ok && cell.overWindow).toBeFalsy()
    expect(low.passes).toBeGreaterThan(0)
    expect(low.overWindow === true).toBe(low.peakTokens > 1_000)
  })
})
