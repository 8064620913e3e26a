/**
 * The fault cases of test/fixtures/cases in formats beyond OpenAI chat and Anthropic (43: Vercel
 * ModelMessage, 45: OpenAI Responses), imported through the real importer and run through the real pipeline; each
 * asserts the case's `expect` and that `checkValidity` finds nothing wrong in the result. The
 * kind is tested beyond the file: keep windows over longer chains (43), and reasoning/call pairs
 * through every stage and a sweep of summarize settings (45).
 *
 * Mapping onto our stages: `strategy: prune` → prune-tool-results with the case's `keep_steps`.
 * Case 43's `mode: before-last-message` (Vercel `pruneMessages`) has no exact counterpart: our
 * keep window is the newest `keep_steps` steps (assistant message with calls + its results), a
 * window at the end of the transcript, which is what the case's fault kind is about. Case 45's
 * `keep_steps: 0` is refused by the seed ("keep_steps must be at least 1", seed 002), so that run
 * reports the stage error and passes the transcript through; the pairing is then checked with
 * keep_steps 1 and every other stage.
 */
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { loadCase } from '../../test/fixtures'
import { checkValidity } from './analysis/checks'
import { importTranscript } from './formats/index'
import type { Message, PipelineConfig, RunResult, StageConfig, Transcript } from './model'
import { runPipeline } from './pipeline'
import { KEEP_STEPS_ERROR, placeholderFor } from './stages/prune-tool-results'
import { loadCounter } from './tokens/count'


function importRoot(root: unknown, format: string): Transcript {
  const r = importTranscript(JSON.stringify(root))
  if (!r.ok) throw new Error(`did not import: ${r.error.message}`)
  expect(r.transcript.format).toBe(format)
  return r.transcript
}

const config = (...stages: StageConfig[]): PipelineConfig => ({
  encoding: 'o200k_base',
  summarizer: 'extractive',
  stages,
})
const prune = (target: number, keep_steps: number, min_tokens = 1): StageConfig => ({
  id: 'prune-tool-results',
  enabled: true,
  params: { target, keep_steps, min_tokens },
})

async function run(t: Transcript, c: PipelineConfig): Promise<RunResult> {
  return runPipeline(t, c, { counter: await loadCounter('o200k_base') })
}

const byCall = (ms: readonly Message[], callId: string) =>
  ms.find((m) => m.role === 'tool' && m.toolCallId === callId)

describe('fault case 43 (vercel-modelmessage): the keep window is the trailing steps', () => {
  const c = loadCase('43-prune-before-last-message.json')

  it('imports as ModelMessages; the last message stays untouched, the result valid', async () => {
    const t = importRoot(c.input, 'vercel-model')
    expect(t.messages.map((m) => m.role)).toEqual([
      'user',
      'assistant',
      'tool',
      'assistant',
      'tool',
      'assistant',
    ])
    // The case's placeholder is ours ({tool} = the tool name).
    expect(placeholderFor('LoadPlot')).toBe(
      (c.params.placeholder as string).replace('{tool}', 'LoadPlot'),
    )
    const result = await run(t, config(prune(0, c.params.keep_steps as number)))
    const last = result.after.messages.at(-1)
    expect(last).toBe(t.messages.at(-1))
    expect(checkValidity(result.after.messages)).toEqual([])
    // Both results are a few tokens: a placeholder would be longer, so the context never grows.
    expect(result.after.totals.tokens).toBeLessThanOrEqual(result.before.totals.tokens)
  })

  it('with results worth pruning: all before the guarded trailing step is pruned', async () => {
    // The case's shape with outputs long enough that a placeholder saves tokens.
    const long = (s: string) => `${s}\n${'detail row, '.repeat(400)}`
    const input = structuredClone(c.input) as { role: string; content: unknown }[]
    for (const m of input) {
      if (m.role !== 'tool' || !Array.isArray(m.content)) continue
      for (const p of m.content as { output: { value: string } }[])
        p.output.value = long(p.output.value)
    }
    const t = importRoot(input, 'vercel-model')
    const result = await run(t, config(prune(0, 1)))
    const after = result.after.messages
    expect(byCall(after, 'tc-1')?.content).toBe(placeholderFor('LoadPlot'))
    // keep_steps 1 guards the newest step (tc-2), never the leading one.
    expect(byCall(after, 'tc-2')?.content).toBe(byCall(t.messages, 'tc-2')?.content)
    expect(after.at(-1)).toBe(t.messages.at(-1))
    expect(checkValidity(after)).toEqual([])
  })

  it('for the whole kind: over n steps, keep_steps k guards exactly the last k steps', async () => {
    const n = 5
    const input: unknown[] = [{ role: 'user', content: [{ type: 'text', text: 'Plan the bed.' }] }]
    for (let s = 1; s <= n; s++) {
      input.push({
        role: 'assistant',
        content: [{ type: 'tool-call', toolCallId: `tc-${s}`, toolName: 'Search', input: { s } }],
      })
      input.push({
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId: `tc-${s}`,
            toolName: 'Search',
            output: { type: 'text', value: `step ${s}: ${'row, '.repeat(300)}` },
          },
        ],
      })
    }
    input.push({ role: 'assistant', content: [{ type: 'text', text: 'Done.' }] })
    const t = importRoot(input, 'vercel-model')
    for (let k = 1; k <= n; k++) {
      const result = await run(t, config(prune(0, k)))
      const pruned = Array.from({ length: n }, (_, s) => s + 1).filter(
        (s) => byCall(result.after.messages, `tc-${s}`)?.content === placeholderFor('Search'),
      )
      expect(pruned).toEqual(Array.from({ length: n - k }, (_, s) => s + 1))
      expect(checkValidity(result.after.messages)).toEqual([])
    }
  })
})

/** For each assistant message of `before` that carries reasoning: the reasoning parts and calls. */
function reasoningPairs(messages: readonly Message[]) {
  return messages
    .filter((m) => Array.isArray(m.content) && m.content.some((p) => p.type === 'thinking'))
    .map((m) => ({
      id: m.id,
      reasoning: (m.content as Exclude<Message['content'], string | null>).filter(
        (p) => p.type === 'thinking',
      ),
      calls: (m.toolCalls ?? []).map((call) => call.id),
    }))
}

/**
 * The linked-pair invariant (cases/45): in `after`, every reasoning part sits in a message with
 * exactly the calls it travelled with before, and every call of such a message is either kept
 * next to its reasoning or gone together with it.
 */
function expectReasoningWithCalls(before: readonly Message[], after: readonly Message[]): void {
  const callHome = new Map<string, Message>()
  for (const m of after) for (const call of m.toolCalls ?? []) callHome.set(call.id, m)
  for (const pair of reasoningPairs(before)) {
    const kept = after.find((m) => m.id === pair.id)
    if (kept) {
      expect(reasoningPairs([kept])[0]).toEqual(pair)
    } else {
      for (const id of pair.calls) expect(callHome.has(id)).toBe(false)
    }
  }
}

describe('fault case 45 (openai-responses): a reasoning item stays with its function_call', () => {
  const c = loadCase('45-reasoning-item-paired-with-call.json')

  it('imports rs_1 and fc_1 as one assistant message (linked by construction)', () => {
    const t = importRoot(c.input, 'openai-responses')
    const roles = ['user', 'assistant', 'tool', 'assistant', 'user']
    expect(t.messages.map((m) => m.role)).toEqual(roles)
    const a = t.messages[1]
    expect(a?.id).toBe('rs_1')
    expect(a?.content).toEqual([
      { type: 'thinking', variant: 'reasoning', encrypted: 'opaque-blob-1' },
    ])
    expect(a?.toolCalls).toEqual([{ id: 'c1', name: 'fx_rate', arguments: '{"pair":"USDEUR"}' }])
    expect(t.messages[2]).toMatchObject({ toolCallId: 'c1', content: '0.92' })
  })

  it('keep_steps 0 is refused as in the seed; the transcript passes through valid', async () => {
    const t = importRoot(c.input, 'openai-responses')
    const result = await run(t, config(prune(0, c.params.keep_steps as number)))
    expect(result.stages[0]?.error).toBe(KEEP_STEPS_ERROR)
    expect(result.after.messages).toEqual(t.messages)
    expect(checkValidity(result.after.messages)).toEqual([])
  })

  it('pruning may replace c1 output, never split rs_1 from fc_1', async () => {
    const input = structuredClone(c.input) as { type?: string; output?: string }[]
    // An output long enough to be worth a placeholder, then a newer step that keep_steps guards.
    for (const item of input) {
      if (item.type === 'function_call_output') item.output = `0.92 ${'x '.repeat(400)}`
    }
    input.push(
      { type: 'reasoning', id: 'rs_2', summary: [], encrypted_content: 'opaque-blob-2' } as never,
      {
        type: 'function_call',
        id: 'fc_2',
        call_id: 'c2',
        name: 'fx_rate',
        arguments: '{}',
      } as never,
      { type: 'function_call_output', call_id: 'c2', output: '0.92' } as never,
    )
    const t = importRoot(input, 'openai-responses')
    const result = await run(t, config(prune(0, 1)))
    expect(byCall(result.after.messages, 'c1')?.content).toBe(placeholderFor('fx_rate'))
    expectReasoningWithCalls(t.messages, result.after.messages)
    expect(checkValidity(result.after.messages)).toEqual([])
  })

  it('whole kind: every stage and summarize setting keeps reasoning with its calls', async () => {
    const sample = readFileSync(
      new URL('../../public/samples/openai-responses.json', import.meta.url),
      'utf8',
    )
    const transcripts = [
      importRoot(c.input, 'openai-responses'),
      importRoot(JSON.parse(sample), 'openai-responses'),
    ]
    const stages: StageConfig[] = [
      { id: 'dedupe', enabled: true, params: {} },
      prune(0, 1, 50),
      {
        id: 'insert-then-compress',
        enabled: true,
        params: { threshold_tokens: 0, keep_recent: 3 },
      },
    ]
    for (const keep_last of [1, 2, 3, 5, 8]) {
      for (const compact_after of [keep_last + 1, keep_last + 4]) {
        stages.push({ id: 'summarize', enabled: true, params: { keep_last, compact_after } })
      }
    }
    const fired = new Set<string>()
    for (const t of transcripts) {
      for (const stage of stages) {
        const result = await run(t, config(stage))
        if (result.stages[0]?.changed) fired.add(stage.id)
        expectReasoningWithCalls(t.messages, result.after.messages)
        const before = new Set(checkValidity(t.messages).map((p) => p.rule))
        expect(checkValidity(result.after.messages).filter((p) => !before.has(p.rule))).toEqual([])
      }
    }
    // The sweep really compacted: otherwise it would prove nothing.
    expect(fired).toEqual(
      new Set(['dedupe', 'prune-tool-results', 'summarize', 'insert-then-compress']),
    )
  })
})
