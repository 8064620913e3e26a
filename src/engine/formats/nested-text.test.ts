/**
 * JSON nested inside a string — tool-call arguments, tool results, message text — at 10, 1,000
 * and 100,000 levels, through every importer that carries such strings, the whole pipeline (every
 * stage, `slim` included), re-work and export: nothing throws, and a value too deep to walk stays
 * the exact text it was.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { contentText } from '../content'
import { normalizeArguments, reworkAfterCompactions } from '../analysis/rework'
import { exportTranscript } from '../export'
import type { PipelineConfig, StageConfig, Transcript } from '../model'
import { DEFAULT_PIPELINE, runPipeline } from '../pipeline'
import { slimJsonList } from '../stages/slim'
import { countCodePoints } from '../stages/test-helpers'
import { cacheCounter } from '../tokens/count'
import { MAX_NESTING } from '../util/nesting'
import { importTranscript } from './index'

const counter = () => cacheCounter('o200k_base', countCodePoints)

/** Every stage on, with passes that fire on a short chat (keep 1, compact after 2). */
const ALL_STAGES: PipelineConfig = {
  ...DEFAULT_PIPELINE,
  stages: DEFAULT_PIPELINE.stages.map(
    (s): StageConfig =>
      s.id === 'summarize'
        ? { ...s, enabled: true, params: { ...s.params, keep_last: 1, compact_after: 2 } }
        : { ...s, enabled: true },
  ),
}

/** `depth` nested arrays holding a list of objects (a JSON list `slim` would cut when shallow). */
function nestedJson(depth: number): string {
  const items = Array.from({ length: 8 }, (_, i) => `{"id":${i},"name":"row ${i}"}`).join(',')
  return `${'['.repeat(depth - 1)}[${items}]${']'.repeat(depth - 1)}`
}

/** A long answer, so that folding a turn into a summary shrinks the context and a pass fires. */
const FILLER = 'The query returned the rows of the orders table, grouped by region and month. '.repeat(40)

/** The strings a transcript is built around: the call's arguments, its result, a user's text. */
interface Strings {
  args: string
  result: string
  text: string
}

/** One chat in each format that carries these strings verbatim, twice (so a pass and re-work fire). */
const FORMATS: Record<string, (s: Strings) => { text: string; fileName: string }> = {
  'openai-chat': (s) => {
    const turn = (n: number) => [
      { role: 'user', content: s.text },
      { role: 'assistant', content: null, tool_calls: [{ id: `c${n}`, type: 'function', function: { name: 'query', arguments: s.args } }] },
      { role: 'tool', tool_call_id: `c${n}`, content: s.result },
      { role: 'assistant', content: `answer ${n}: ${FILLER}` },
    ]
    return { text: JSON.stringify({ messages: [...turn(1), ...turn(2)] }), fileName: 'chat.json' }
  },
  anthropic: (s) => {
    const turn = (n: number) => [
      { role: 'user', content: [{ type: 'text', text: s.text }] },
      { role: 'assistant', content: [{ type: 'tool_use', id: `t${n}`, name: 'query', input: { sql: s.args } }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: `t${n}`, content: s.result }] },
      { role: 'assistant', content: [{ type: 'text', text: `answer ${n}: ${FILLER}` }] },
    ]
    return { text: JSON.stringify({ model: 'claude-x', messages: [...turn(1), ...turn(2)] }), fileName: 'req.json' }
  },
  'openai-responses': (s) => {
    const turn = (n: number) => [
      { type: 'message', role: 'user', content: [{ type: 'input_text', text: s.text }] },
      { type: 'function_call', call_id: `f${n}`, name: 'query', arguments: s.args },
      { type: 'function_call_output', call_id: `f${n}`, output: s.result },
      { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: `answer ${n}: ${FILLER}` }] },
    ]
    return { text: JSON.stringify({ input: [...turn(1), ...turn(2)] }), fileName: 'resp.json' }
  },
  'claude-code': (s) => {
    const lines: object[] = []
    let parent: string | null = null
    const add = (type: string, message: object) => {
      const uuid = `u${lines.length + 1}`
      lines.push({ type, sessionId: 's1', uuid, parentUuid: parent, timestamp: '2026-01-01T00:00:00Z', message })
      parent = uuid
    }
    for (const n of [1, 2]) {
      add('user', { role: 'user', content: s.text })
      add('assistant', { role: 'assistant', content: [{ type: 'tool_use', id: `k${n}`, name: 'Bash', input: { command: s.args } }] })
      add('user', { role: 'user', content: [{ type: 'tool_result', tool_use_id: `k${n}`, content: s.result }] })
      add('assistant', { role: 'assistant', content: [{ type: 'text', text: `answer ${n}: ${FILLER}` }] })
    }
    return { text: lines.map((l) => JSON.stringify(l)).join('\n') + '\n', fileName: 'session.jsonl' }
  },
}

/** The call arguments as the format stores them (Anthropic and Claude Code wrap them in an object). */
function expectedArgs(format: string, args: string): string {
  if (format === 'anthropic') return JSON.stringify({ sql: args })
  if (format === 'claude-code') return JSON.stringify({ command: args })
  return args
}

function imported(format: string, s: Strings): Transcript {
  const { text, fileName } = FORMATS[format]!(s)
  const r = importTranscript(text, { fileName })
  if (!r.ok) throw new Error(`${format}: ${r.error.message}`)
  return r.transcript
}

describe('JSON nested inside strings', () => {
  it('a too-deep argument is its own trimmed text for re-work; 10 and 1,000 levels are normalized', () => {
    const deep = ` ${nestedJson(100_000)} `
    expect(normalizeArguments(deep)).toBe(deep.trim())
    expect(normalizeArguments(`${'['.repeat(MAX_NESTING + 1)}${']'.repeat(MAX_NESTING + 1)}`)).toBe(
      `${'['.repeat(MAX_NESTING + 1)}${']'.repeat(MAX_NESTING + 1)}`,
    )
    expect(normalizeArguments('{"b": [1, {"d": 1, "c": 2}], "a": 0}')).toBe('{"a":0,"b":[1,{"c":2,"d":1}]}')
    const atLimit = `${'['.repeat(MAX_NESTING)}${']'.repeat(MAX_NESTING)}`
    expect(normalizeArguments(` ${atLimit} `)).toBe(atLimit)
  })

  it('slim leaves a JSON list nested past the limit as text, and cuts one within it', () => {
    expect(slimJsonList(nestedJson(100_000), 5)).toBeUndefined()
    expect(slimJsonList(nestedJson(MAX_NESTING + 1), 5)).toBeUndefined()
    // A bare list of 8 distinct rows keeps its total and first 5 items (seed 004 keep=5).
    expect(JSON.parse(slimJsonList(nestedJson(1), 5) ?? 'null')).toEqual({
      total: 8,
      items: [0, 1, 2, 3, 4].map((i) => ({ id: i, name: `row ${i}` })),
    })
  })

  it('property: import, every stage, re-work and export never throw; the strings stay the text they were', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...Object.keys(FORMATS)),
        fc.constantFrom(10, 1000, 100_000),
        fc.constantFrom('args', 'result', 'text') as fc.Arbitrary<keyof Strings>,
        async (format, depth, where) => {
          const s: Strings = { args: '{"q":1}', result: 'done', text: 'What is in the table?' }
          s[where] = nestedJson(depth)
          const t = imported(format, s)
          const calls = t.messages.flatMap((m) => m.toolCalls ?? [])
          expect(calls.map((c) => c.arguments)).toEqual([expectedArgs(format, s.args), expectedArgs(format, s.args)])
          const results = t.messages.filter((m) => m.role === 'tool').map((m) => contentText(m.content))
          expect(results).toEqual([s.result, s.result])
          expect(t.messages.filter((m) => m.role === 'user').map((m) => contentText(m.content))).toEqual([s.text, s.text])
          const run = await runPipeline(t, ALL_STAGES, { counter: counter() })
          expect(run.after.totals.tokens).toBeLessThanOrEqual(run.before.totals.tokens)
          // A summary pass fired, so re-work reads the calls' arguments.
          expect(run.passes.length).toBeGreaterThan(0)
          // A result too deep to read as a list is never slimmed: it stays its text.
          if (where === 'result' && depth > MAX_NESTING)
            expect(Object.values(run.fates).some((f) => f.kind === 'slimmed')).toBe(false)
          expect(() => reworkAfterCompactions(t, run)).not.toThrow()
          for (const target of ['canonical', 'openai-chat', 'anthropic', 'openai-responses'] as const)
            expect(() => exportTranscript(t, target, run.after.messages)).not.toThrow()
        },
      ),
      { numRuns: 36, seed: 31 },
    )
  }, 120_000)
})
