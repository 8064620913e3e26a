import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { configWith } from './analysis/sweep'
import { importTranscript } from './formats/index'
import type { Message, PipelineConfig, StageConfig, Transcript } from './model'
import { DEFAULT_PIPELINE, providerOf, runPipeline } from './pipeline'
import { backReferenceFor } from './stages/dedupe'
import { COMPRESSED_SUMMARY_ID } from './stages/insert-then-compress'
import { KEEP_STEPS_ERROR, placeholderFor } from './stages/prune-tool-results'
import {
  assistant,
  countCodePoints,
  deepFreeze,
  indexed,
  system,
  toolResult,
  user,
} from './stages/test-helpers'
import type { SummaryRequest } from './stages/types'
import {
  cacheCounter,
  loadCounter,
  MESSAGE_OVERHEAD_TOKENS,
  REPLY_PRIMING_TOKENS,
} from './tokens/count'

const counter = () => cacheCounter('o200k_base', countCodePoints)
/** The default pipeline with prune-tool-results' target set to `target` tokens. */
const withTarget = (target: number): PipelineConfig => configWith(DEFAULT_PIPELINE, { param: 'target', value: target })

function scripted(...answers: string[]) {
  const requests: SummaryRequest[] = []
  return {
    requests,
    fn: (r: SummaryRequest) => {
      requests.push(r)
      return Promise.resolve(answers[Math.min(requests.length - 1, answers.length - 1)] ?? '')
    },
  }
}

function transcriptOf(messages: Message[], extra: Partial<Transcript> = {}): Transcript {
  return deepFreeze({
    format: 'openai-chat',
    messages,
    recordedCompactions: [],
    warnings: [],
    ...extra,
  })
}

function config(...stages: StageConfig[]): PipelineConfig {
  return { encoding: 'o200k_base', summarizer: 'extractive', stages }
}

const catalog = 'CATALOG page 1\n' + 'row of the catalog\n'.repeat(20) // 15 + 20 × 19 = 395 code points
const other = 'LOG\n' + 'line of a log\n'.repeat(20)

// 0 sys | 1 u1, 2 a2(c1), 3 t3 catalog, 4 a4 | 5 u5, 6 a6(c2), 7 t7 catalog again, 8 a8 |
// 9 u9, 10 a10(c3), 11 t11 other, 12 a12 | 13 u13
const messages = indexed([
  system('sys', 'You are a shop assistant.'),
  user('u1', 'Show the catalog.'),
  assistant('a2', null, [{ id: 'c1', name: 'catalog' }]),
  toolResult('t3', 'c1', catalog, 'catalog'),
  assistant('a4', 'Here it is.'),
  user('u5', 'Show it again.'),
  assistant('a6', null, [{ id: 'c2', name: 'catalog' }]),
  toolResult('t7', 'c2', catalog, 'catalog'),
  assistant('a8', 'Same page.'),
  user('u9', 'Now the log.'),
  assistant('a10', null, [{ id: 'c3', name: 'read_log' }]),
  toolResult('t11', 'c3', other, 'read_log'),
  assistant('a12', 'Done.'),
  user('u13', 'Thanks.'),
])

const dedupeStage: StageConfig = { id: 'dedupe', enabled: true, params: {} }

describe('runPipeline: provenance composition', () => {
  it('a later stage wins; the final summary covers earlier passes; untouched messages are kept', async () => {
    const s = scripted('S1', 'S2')
    const result = await runPipeline(
      transcriptOf(messages),
      config(dedupeStage, {
        id: 'summarize',
        enabled: true,
        params: { keep_last: 4, compact_after: 6 },
      }),
      { counter: counter(), summarizer: s.fn },
    )
    // Turn ends (conv positions) 3, 7, 11, 12: at 7 → plan {0, 4}; at 11 → plan {4, 8}.
    expect(result.after.messages.map((m) => m.id)).toEqual([
      'sys',
      'summary:summarize:2',
      'u9',
      'a10',
      't11',
      'a12',
      'u13',
    ])
    // The back-reference t7 went into pass 2: its summarized fate wins over back-referenced.
    const pass = (n: number) => ({
      kind: 'summarized',
      stage: 'summarize',
      pass: n,
      summaryId: 'summary:summarize:2',
    })
    const kept = { kind: 'kept', changed: false }
    expect(result.fates).toEqual({
      sys: kept,
      u1: pass(1),
      a2: pass(1),
      t3: pass(1),
      a4: pass(1),
      u5: pass(2),
      a6: pass(2),
      t7: pass(2),
      a8: pass(2),
      u9: kept,
      a10: kept,
      t11: kept,
      a12: kept,
      u13: kept,
    })
    expect(result.origins['summary:summarize:2']).toEqual({
      kind: 'summary',
      stage: 'summarize',
      pass: 2,
      fromIndex: 1,
      toIndex: 8,
      coveredIds: ['u1', 'a2', 't3', 'a4', 'u5', 'a6', 't7', 'a8'],
    })
    for (const id of ['sys', 'u9', 'a10', 't11', 'a12', 'u13']) {
      expect(result.origins[id]).toEqual({ kind: 'original', beforeId: id, changed: false })
    }
    expect(result.passes.map((p) => [p.pass, p.from, p.upto, p.atMessage])).toEqual([
      [1, 1, 5, 8],
      [2, 5, 9, 12],
    ])
    // Pass 2's prompt shows the back-reference dedupe wrote, not the catalog again.
    expect(s.requests[1]?.prompt).toContain(`[7] tool: ${backReferenceFor('CATALOG page 1')}`)
    expect(result.checks.after).toEqual([])
  })

  it('after messages are re-indexed; originals keep their id and content', async () => {
    const result = await runPipeline(
      transcriptOf(messages),
      config({ id: 'summarize', enabled: true, params: { keep_last: 4, compact_after: 6 } }),
      { counter: counter(), summarizer: scripted('S').fn },
    )
    result.after.messages.forEach((m, i) => expect(m.index).toBe(i))
    const u9 = result.after.messages.find((m) => m.id === 'u9')
    expect(u9).toEqual({ ...messages[9], index: 2 })
  })

  it('back-reference kept, original summarized: it stands alone (seed 000) and a warning says so', async () => {
    const result = await runPipeline(
      transcriptOf(messages),
      config(dedupeStage, {
        id: 'summarize',
        enabled: true,
        params: { keep_last: 8, compact_after: 9 },
      }),
      { counter: counter(), summarizer: scripted('S').fn },
    )
    // Turn end 11: 12 > 9 → plan {0, 4}: t3 (the original) is summarized, t7 stays.
    expect(result.after.messages.find((m) => m.id === 't7')?.content).toBe(
      backReferenceFor('CATALOG page 1'),
    )
    expect(result.fates.t3).toMatchObject({ kind: 'summarized', pass: 1 })
    expect(result.fates.t7).toEqual({ kind: 'back-referenced', stage: 'dedupe', firstId: 't3' })
    expect(result.warnings).toEqual([
      'summarize: back-reference t7 now stands alone: its first occurrence t3 is no longer in context (its one-line summary remains)',
    ])
    expect(result.checks.after).toEqual([])
  })

  it('back-reference with its original kept: fate and origin say back-reference', async () => {
    const result = await runPipeline(transcriptOf(messages), config(dedupeStage), {
      counter: counter(),
    })
    expect(result.fates.t7).toEqual({ kind: 'back-referenced', stage: 'dedupe', firstId: 't3' })
    expect(result.origins.t7).toEqual({
      kind: 'back-reference',
      beforeId: 't7',
      firstId: 't3',
      stage: 'dedupe',
    })
    expect(result.after.messages[7]?.content).toBe(backReferenceFor('CATALOG page 1'))
  })

  it('a summary over an earlier summary maps through to the original before ids', async () => {
    const result = await runPipeline(
      transcriptOf(messages),
      config(
        {
          id: 'insert-then-compress',
          enabled: true,
          params: { threshold_tokens: 0, keep_recent: 9 },
        },
        { id: 'summarize', enabled: true, params: { keep_last: 2, compact_after: 3 } },
      ),
      { counter: counter(), summarizer: scripted('C', 'S').fn },
    )
    // insert-then-compress: recent = 5..13, compressed = u1 a2 t3 a4.
    // summarize then sees [C, u5, a6, t7, a8, u9, a10, t11, a12, u13].
    const finalSummary = result.after.messages[1]
    expect(finalSummary?.id).toMatch(/^summary:summarize:/)
    const origin = result.origins[finalSummary?.id ?? '']
    expect(origin?.kind).toBe('summary')
    if (origin?.kind !== 'summary') return
    expect(origin.coveredIds.slice(0, 4)).toEqual(['u1', 'a2', 't3', 'a4'])
    expect(origin.coveredIds).not.toContain(COMPRESSED_SUMMARY_ID)
    expect(origin.fromIndex).toBe(1)
    // The later stage's fate wins for what insert-then-compress had covered.
    expect(result.fates.u1).toMatchObject({ kind: 'summarized', stage: 'summarize' })
    expect(result.fates[COMPRESSED_SUMMARY_ID]).toBeUndefined()
    expect(Object.keys(result.fates)).toEqual(messages.map((m) => m.id))
    expect(result.checks.after).toEqual([])
  })

  it('prune placeholders are reported as placeholder origins and pruned fates', async () => {
    const result = await runPipeline(
      transcriptOf(messages),
      config({
        id: 'prune-tool-results',
        enabled: true,
        params: { target: 0, keep_steps: 1, min_tokens: 1 },
      }),
      { counter: counter() },
    )
    expect(result.fates.t3).toMatchObject({ kind: 'pruned', stage: 'prune-tool-results' })
    expect(result.origins.t3).toEqual({
      kind: 'placeholder',
      beforeId: 't3',
      stage: 'prune-tool-results',
    })
    // The newest step (c3) is guarded.
    expect(result.fates.t11).toEqual({ kind: 'kept', changed: false })
  })
})

describe('runPipeline: totals, reports, errors', () => {
  it('totals count every message, tool schemas and reply priming; overhead = system + schemas (cases/28)', async () => {
    const tools = [{ name: 't', description: 'd', parameters: { type: 'object' } }]
    const small = indexed([system('s', 'sys'), user('u', 'hello'), assistant('a', 'hi')])
    const result = await runPipeline(transcriptOf(small, { tools }), config(), {
      counter: counter(),
    })
    const schema = JSON.stringify({
      name: 't',
      description: 'd',
      parameters: { type: 'object' },
    }).length
    const o = MESSAGE_OVERHEAD_TOKENS
    expect(result.before.totals).toEqual({
      messages: 3,
      tokens: 3 + o + 5 + o + 2 + o + schema + REPLY_PRIMING_TOKENS,
      overheadTokens: 3 + o + schema,
    })
    expect(result.before.tokensById).toEqual({ s: 3 + o, u: 5 + o, a: 2 + o })
    expect(result.after.totals).toEqual(result.before.totals)
    expect(result.stages).toEqual([])
  })

  it('a stage report per enabled stage, in config order, with before/after tokens and notes', async () => {
    const result = await runPipeline(
      transcriptOf(messages),
      config(
        dedupeStage,
        {
          id: 'prune-tool-results',
          enabled: false,
          params: { target: 0, keep_steps: 1, min_tokens: 1 },
        },
        {
          id: 'summarize',
          enabled: true,
          params: { keep_last: 20, compact_after: 40 },
        },
      ),
      { counter: counter() },
    )
    expect(result.stages.map((s) => s.stage)).toEqual(['dedupe', 'summarize'])
    const [d, sum] = result.stages
    expect(d?.changed).toBe(true)
    expect(d?.messagesBefore).toBe(14)
    expect(d?.tokensBefore).toBe(result.before.totals.tokens)
    expect((d?.tokensBefore ?? 0) - (d?.tokensAfter ?? 0)).toBe(
      395 - backReferenceFor('CATALOG page 1').length,
    )
    expect(sum).toMatchObject({
      changed: false,
      note: 'nothing to compact',
      tokensBefore: d?.tokensAfter,
      tokensAfter: d?.tokensAfter,
    })
    expect(result.after.totals.tokens).toBe(d?.tokensAfter)
  })

  it('stage errors become reports; the input passes through; nothing throws', async () => {
    const result = await runPipeline(
      transcriptOf(messages),
      config(
        {
          id: 'prune-tool-results',
          enabled: true,
          params: { target: 0, keep_steps: 0, min_tokens: 1 },
        },
        { id: 'summarize', enabled: true, params: { keep_last: 2, compact_after: 3 } },
      ),
      { counter: counter(), summarizer: () => Promise.reject(new Error('offline')) },
    )
    expect(result.stages[0]?.error).toBe(KEEP_STEPS_ERROR)
    expect(result.stages[1]?.error).toBe('summarizer failed at pass 1: offline')
    expect(result.after.messages.map((m) => m.id)).toEqual(messages.map((m) => m.id))
    expect(result.passes).toEqual([])
  })

  it('a cancelled run passes everything through with "cancelled" reports', async () => {
    const result = await runPipeline(transcriptOf(messages), DEFAULT_PIPELINE, {
      counter: counter(),
      signal: { aborted: true },
    })
    expect(result.stages.map((s) => s.error)).toEqual(['cancelled', 'cancelled', 'cancelled'])
    expect(result.after.messages).toEqual(messages)
  })

  it('uses Anthropic rules for Anthropic formats', async () => {
    expect(providerOf('anthropic-messages')).toBe('anthropic')
    expect(providerOf('claude-code')).toBe('anthropic')
    expect(providerOf('openai-chat')).toBe('openai')
    const firstAssistant = indexed([assistant('a', 'hello'), user('u', 'hi')])
    const result = await runPipeline(
      transcriptOf(firstAssistant, { format: 'anthropic-messages' }),
      config(),
      { counter: counter() },
    )
    expect(result.checks.before.map((p) => p.rule)).toEqual(['first-not-user'])
  })

  it('insert-then-compress on an Anthropic transcript keeps a user turn first', async () => {
    const result = await runPipeline(
      transcriptOf(messages, { format: 'anthropic-messages' }),
      config({
        id: 'insert-then-compress',
        enabled: true,
        params: { threshold_tokens: 0, keep_recent: 3 },
      }),
      { counter: counter(), summarizer: scripted('<summary>S</summary>').fn },
    )
    expect(result.after.messages[1]).toMatchObject({ id: COMPRESSED_SUMMARY_ID, role: 'user' })
    expect(result.checks.after).toEqual([])
  })

  it('an unavailable summarizer falls back to extractive with a warning', async () => {
    const result = await runPipeline(
      transcriptOf(messages),
      { ...config(), summarizer: 'anthropic' },
      { counter: counter() },
    )
    expect(result.warnings).toEqual([
      'summarizer "anthropic" is not available here: it needs a base URL and a model; the offline extractive summarizer was used',
    ])
  })
})

describe('DEFAULT_PIPELINE', () => {
  it('has the seed defaults, in the SPEC order, insert-then-compress, slim and pin-facts off', () => {
    expect(DEFAULT_PIPELINE.encoding).toBe('o200k_base')
    expect(DEFAULT_PIPELINE.summarizer).toBe('extractive')
    // The seeds' values; a param added later may sit beside them. target 26,000: counts include
    // what every request carries (16,180 tokens fitted on the Claude Code sample), and 26,000 on
    // that sample's calibrated count is what 12,000 was on its raw count (SEED_STAGES).
    expect(DEFAULT_PIPELINE.stages).toMatchObject([
      { id: 'dedupe', enabled: true, params: {} },
      // seed 004: slim before pruning (keep 5), pin-facts last (it pins what the others took out).
      { id: 'slim', enabled: false, params: { keep: 5 } },
      {
        id: 'prune-tool-results',
        enabled: true,
        params: { target: 26000, keep_steps: 1, min_tokens: 200 },
      },
      { id: 'summarize', enabled: true, params: { keep_last: 20, compact_after: 40 } },
      {
        id: 'insert-then-compress',
        enabled: false,
        params: { threshold_tokens: 5000, keep_recent: 10 },
      },
      { id: 'pin-facts', enabled: false, params: { max_facts: 40 } },
    ])
  })

  it('on the Claude Code sample: deterministic, never mutates, valid, smaller, complete provenance', async () => {
    const text = readFileSync(
      new URL('../../public/samples/claude-code.jsonl', import.meta.url),
      'utf8',
    )
    const imported = importTranscript(text, { fileName: 'claude-code.jsonl' })
    expect(imported.ok).toBe(true)
    if (!imported.ok) return
    const transcript = deepFreeze(imported.transcript)
    const deps = { counter: await loadCounter('o200k_base') }
    // Raw counts: the seeds' numbers on our own count (the sample records usage, auto would calibrate).
    // Raw counts with the old seed target: the numbers below are derived from it.
    const raw: PipelineConfig = { ...withTarget(12000), calibration: { mode: 'off' } }
    const first = await runPipeline(transcript, raw, deps)
    const second = await runPipeline(transcript, raw, deps)
    expect(second).toEqual(first)

    expect(first.checks.after).toEqual([])
    expect(first.after.totals.tokens).toBeLessThan(first.before.totals.tokens)
    expect(first.stages.map((s) => [s.stage, s.changed])).toEqual([
      ['dedupe', true],
      ['prune-tool-results', true],
      ['summarize', true],
    ])
    expect(first.passes.length).toBeGreaterThan(0)
    expect(Object.keys(first.fates).sort()).toEqual(transcript.messages.map((m) => m.id).sort())
    expect(Object.keys(first.origins).sort()).toEqual(first.after.messages.map((m) => m.id).sort())
    // Every summarized before message points at a summary that is in the after transcript.
    const afterIds = new Set(first.after.messages.map((m) => m.id))
    for (const fate of Object.values(first.fates)) {
      if (fate.kind === 'summarized') expect(afterIds.has(fate.summaryId)).toBe(true)
    }
    // Every kind of change shows (on the raw count 12,000 does what the default does on the calibrated one: SEED_STAGES).
    const kinds = new Set(Object.values(first.origins).map((o) => o.kind))
    expect([...kinds].sort()).toEqual(['back-reference', 'original', 'placeholder', 'summary'])
  })
})

describe('runPipeline: one token basis for triggers, reports and totals (cases/28)', () => {
  it('prune and the pass figures count tool schemas and reply priming like the totals do', async () => {
    const text = readFileSync(
      new URL('../../public/samples/openai-chat.json', import.meta.url),
      'utf8',
    )
    const imported = importTranscript(text)
    if (!imported.ok) throw new Error(imported.error.message)
    const t = imported.transcript
    expect(t.tools?.length).toBeGreaterThan(0)
    const deps = { counter: await loadCounter('o200k_base') }
    const only = (stage: StageConfig): PipelineConfig => ({ ...DEFAULT_PIPELINE, stages: [stage] })
    const total = (await runPipeline(t, only({ id: 'dedupe', enabled: false, params: {} }), deps))
      .before.totals.tokens
    // Target one token below the total the user sees: prune must find the context over it.
    const over = await runPipeline(
      t,
      only({ id: 'prune-tool-results', enabled: true, params: { target: total - 1, keep_steps: 1, min_tokens: 200 } }),
      deps,
    )
    expect(over.stages[0]?.tokensBefore).toBe(total)
    expect(over.stages[0]?.changed).toBe(true)
    // Target equal to it: under target, and the note quotes that same total.
    const under = await runPipeline(
      t,
      only({ id: 'prune-tool-results', enabled: true, params: { target: total, keep_steps: 1, min_tokens: 200 } }),
      deps,
    )
    expect(under.stages[0]?.changed).toBe(false)
    expect(under.stages[0]?.note).toBe(`under target: ${total} ≤ ${total} tokens`)

    const summarized = await runPipeline(
      t,
      only({ id: 'summarize', enabled: true, params: { keep_last: 4, compact_after: 8 } }),
      deps,
    )
    const first = summarized.passes[0]
    if (!first) throw new Error('expected a pass')
    // Pass 1's "before" is the raw prefix up to its turn end: the run's before total minus the
    // messages that came later — on one basis, schemas and priming included.
    const later = t.messages
      .filter((m) => m.index > first.atMessage)
      .reduce((n, m) => n + (summarized.before.tokensById[m.id] ?? NaN), 0)
    expect(first.tokensBefore).toBe(summarized.before.totals.tokens - later)
  })
})

describe('runPipeline: tool-call ids reused across steps (SWE-agent demonstrations)', () => {
  // SWE-agent's history: a demonstration whose steps all reuse one call id, then the live run,
  // which reuses it again; each result directly follows the call that made it (formats.md §4.11).
  const observation = (step: number) =>
    `OBSERVATION:\n[File: /repo/src/tide.py (400 lines total)]\n` +
    Array.from({ length: 40 }, (_, k) => `${step * 100 + k}: line ${k} seen at step ${step}`).join('\n')
  const step = (n: number, callId: string, name: string): Message[] => [
    assistant(`a${n}`, `Step ${n}: ${name === 'bash' ? 'run it' : 'look at the file'}.`, [
      { id: callId, name, arguments: `{"command":"step ${n}"}` },
    ]),
    toolResult(`t${n}`, callId, observation(n)),
  ]
  const demo = [1, 2, 3, 4, 5, 6].flatMap((n) => step(n, 'call_demo', n % 2 ? 'str_replace_editor' : 'bash'))
  const live = Array.from({ length: 18 }, (_, k) => k + 7).flatMap((n) =>
    step(n, n % 3 === 0 ? 'call_demo' : `call_${n}`, n % 2 ? 'str_replace_editor' : 'bash'),
  )
  const messages = indexed([
    system('sys', 'You are an autonomous programmer working in a terminal. Use one tool call per step.'),
    { ...user('demo', 'Here is a demonstration of how to solve an issue.'), flags: { injected: true } },
    ...demo.map((m) => ({ ...m, flags: { injected: true } })),
    user('task', 'Now fix the leap-day offset in src/tide.py.'),
    ...live,
    assistant('done', 'Submitted.'),
  ])

  it('the default pipeline pairs them by position: valid before and after, and compaction passes the demo', async () => {
    const transcript = transcriptOf(messages, { format: 'swe-agent' })
    // Raw counts with the old seed target: the numbers below are derived from it.
    const result = await runPipeline(transcript, withTarget(12000), { counter: counter() })
    expect(result.checks.before).toEqual([])
    expect(result.checks.after).toEqual([])
    expect(result.stages.map((s) => [s.stage, s.changed])).toEqual([
      ['dedupe', false],
      ['prune-tool-results', true],
      ['summarize', true],
    ])
    // The summary reaches past every demonstration step (calls with the id used before it).
    const lastDemoCall = messages.findIndex((m) => m.id === 'a6')
    expect(Math.max(...result.passes.map((p) => p.upto))).toBeGreaterThan(lastDemoCall)
    // A pruned result's placeholder names the call it answers (paired by position).
    const pruned = Object.entries(result.fates).filter(([, f]) => f.kind === 'pruned')
    expect(pruned.length).toBeGreaterThan(0)
    for (const [id, fate] of pruned) {
      const at = messages.findIndex((m) => m.id === id)
      const name = messages[at - 1]!.toolCalls![0]!.name
      expect(fate).toEqual({ kind: 'pruned', stage: 'prune-tool-results', placeholder: placeholderFor(name) })
    }
  })
})

describe('runPipeline: the send-ready cleanup says what it dropped', () => {
  const blank = transcriptOf(indexed([user('u1', ' '.repeat(50)), assistant('a2', 'ok')]))
  // The same blank message in a chat whose old tool result prune replaces.
  const pruned = transcriptOf(
    indexed([
      user('u0', 'Fix it.'),
      user('u1', ' '.repeat(50)),
      assistant('a2', null, [{ id: 'c1', name: 'read' }]),
      toolResult('t3', 'c1', 'x'.repeat(300), 'read'),
      assistant('a4', null, [{ id: 'c2', name: 'read' }]),
      toolResult('t5', 'c2', 'ok', 'read'),
      assistant('a6', 'Done.'),
    ]),
  )
  const prune = (target: number): StageConfig => ({
    id: 'prune-tool-results',
    enabled: true,
    params: { target, keep_steps: 1, min_tokens: 200 },
  })

  it('once a stage changed the context, the blank message goes, and the run reports it', async () => {
    const r = await runPipeline(pruned, config(prune(10)), { counter: counter() })
    expect(r.stages.map((s) => s.changed)).toEqual([true])
    expect(r.after.messages.map((m) => m.id)).toEqual(['u0', 'a2', 't3', 'a4', 't5', 'a6'])
    expect(r.fates.u1).toEqual({ kind: 'dropped', stage: 'pipeline', reason: 'empty message: providers reject empty content' })
    // 50 spaces counted one token per code point by the test counter, plus the message framing.
    const tokens = 50 + MESSAGE_OVERHEAD_TOKENS
    expect(r.cleanup).toEqual({ messages: 1, tokens })
    expect(r.warnings).toContain(
      `send-ready cleanup: 1 empty message(s) dropped before sending (empty message: providers reject empty content), ${tokens} tokens`,
    )
  })

  it('over budget with nothing to prune, nothing fired: the blank message stays, and there is no cleanup', async () => {
    const r = await runPipeline(blank, config(prune(10)), { counter: counter() })
    expect(r.stages.map((s) => s.changed)).toEqual([false])
    expect(r.after.messages).toEqual(blank.messages)
    expect(r.fates.u1).toEqual({ kind: 'kept', changed: false })
    expect(r.cleanup).toBeUndefined()
  })

  it('under budget nothing fires: the context stays as it came, and there is no cleanup', async () => {
    const r = await runPipeline(blank, config(prune(1000)), { counter: counter() })
    expect(r.after.messages).toEqual(blank.messages)
    expect(r.cleanup).toBeUndefined()
  })
})
