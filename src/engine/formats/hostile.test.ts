/**
 * Hostile and huge inputs through the importers and the pipeline: nesting past the limit is
 * refused in one line naming where, inputs of hundreds of thousands of items import, and mutated
 * transcripts (fast-check) never make the import or the pipeline throw, nor change the input.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import {
  claudeCodeForks,
  deepAnthropicRequest,
  deepOpenAiChat,
  longChat,
  orphanToolResults,
} from '../../../test/hostile'
import type { PipelineConfig } from '../model'
import { DEFAULT_PIPELINE, runPipeline } from '../pipeline'
import { countCodePoints } from '../stages/test-helpers'
import { cacheCounter } from '../tokens/count'
import { importBytes, importTranscript } from './index'
import { MAX_NESTING } from '../util/nesting'

const counter = () => cacheCounter('o200k_base', countCodePoints)

const ALL_STAGES: PipelineConfig = {
  ...DEFAULT_PIPELINE,
  stages: DEFAULT_PIPELINE.stages.map((s) => ({ ...s, enabled: true })),
}

function importError(text: string, fileName = 'x.json'): string {
  const r = importTranscript(text, { fileName })
  if (r.ok) throw new Error('expected the import to fail')
  return r.error.message
}

describe('nesting limit', () => {
  it('is 1,000 levels', () => {
    expect(MAX_NESTING).toBe(1000)
  })

  // deepAnthropicRequest(n): root {, messages [, message {, content [ (4), then n × (tool_result
  // {, content [) (2n), then the innermost text block { (1): 2n + 5 levels. The path where the
  // limit is crossed starts messages[2].content[0].content[0]…, cut after 8 steps.
  it.each([
    [10_000, '20,005'],
    [100_000, '200,005'],
  ])('refuses an Anthropic request nesting %i tool_result blocks in one line', (n, levels) => {
    const r = importTranscript(deepAnthropicRequest(n), { fileName: 'x.json' })
    expect(r.ok).toBe(false)
    if (r.ok) return
    expect(r.error.message).toBe(
      `this file nests ${levels} levels deep at messages[2].content[0].content[0].content[0]…; ` +
        'the limit is 1,000',
    )
    expect(r.error.field).toBe('messages[2].content[0].content[0].content[0]')
  })

  // deepOpenAiChat(n): root {, messages [, message {, then n arrays under metadata: n + 3 levels.
  it('accepts exactly 1,000 levels and refuses 1,001', () => {
    expect(importTranscript(deepOpenAiChat(997)).ok).toBe(true)
    expect(importError(deepOpenAiChat(998))).toBe(
      'this file nests 1,001 levels deep at messages[0].metadata[0][0][0][0][0]…; the limit is 1,000',
    )
  })

  it('says "more than 1,000,000" when it stops counting', () => {
    expect(importError(deepOpenAiChat(1_000_000))).toBe(
      'this file nests more than 1,000,000 levels deep at messages[0].metadata[0][0][0][0][0]…; ' +
        'the limit is 1,000',
    )
  })

  // Line 3 of a three-message session: root { (1) + the nesting of `meta`.
  const withLine = (record: string) => {
    const lines = claudeCodeForks(0).trimEnd().split('\n')
    lines.splice(2, 0, record)
    return importTranscript(lines.join('\n'), { fileName: 'session.jsonl' })
  }

  it.each([
    ['1,500 arrays', `{"meta":${'['.repeat(1500)}${']'.repeat(1500)}}`, '1,501 levels deep at meta[0][0][0][0][0][0][0]…'],
    ['500 arrays each holding an object', `{"meta":${'[{"a":'.repeat(500)}0${'}]'.repeat(500)}}`, '1,001 levels deep at meta[0].a[0].a[0].a[0]…'],
  ])('names the JSONL line of a too-deep record (%s) and imports the others', (_, record, where) => {
    const r = withLine(record)
    expect(r.ok).toBe(true)
    if (!r.ok) return
    expect(r.transcript.messages.length).toBe(4)
    expect(r.transcript.warnings).toContain(`line 3: this line nests ${where}; the limit is 1,000, skipped`)
  })

  it('keeps a shallow line whose strings hold 3,000 brackets', () => {
    const r = withLine(`{"meta":{"text":"${'{['.repeat(1500)}"}}`)
    expect(r.ok).toBe(true)
    if (!r.ok) return
    expect(r.transcript.messages.length).toBe(4)
    expect(r.transcript.warnings.filter((w) => w.includes('nests'))).toEqual([])
  })
})

describe('a named array of the wrong type', () => {
  it.each([
    ['{"messages": "hi"}', '"messages" is a string, not an array'],
    ['{"messages": {}}', '"messages" is an object, not an array'],
    ['{"messages": null}', '"messages" is null, not an array'],
    ['{"messages": 3}', '"messages" is a number, not an array'],
  ])('%s names the field and its type', (text, expected) => {
    expect(importError(text)).toContain(expected)
  })
})

describe('huge inputs', () => {
  it('imports 200,000 orphan tool results; the pipeline runs and the checks report each', async () => {
    const r = importTranscript(orphanToolResults(200_000))
    expect(r.ok).toBe(true)
    if (!r.ok) return
    expect(r.transcript.messages.length).toBe(200_001)
    const run = await runPipeline(r.transcript, DEFAULT_PIPELINE, { counter: counter() })
    const orphans = run.checks.before.filter((p) => p.rule === 'orphan-tool-result')
    expect(orphans.length).toBe(200_000)
  }, 60_000)

  // claudeCodeForks(f): steps 0 … f+1 on the main line (f + 2 messages); steps 2 … f+1 each also
  // get a retry hanging off the previous main-line record: f branches of one message each.
  // Records are numbered in file order: step 0 = 1, step 1 = 2, step 2's retry = 3, its main = 4.
  it('imports 60,000 Claude Code forks: the main line and every branch', () => {
    const r = importTranscript(claudeCodeForks(60_000), { fileName: 'session.jsonl' })
    expect(r.ok).toBe(true)
    if (!r.ok) return
    const uuid = (n: number) => `00000000-0000-4000-8000-${n.toString(16).padStart(12, '0')}`
    expect(r.transcript.messages.length).toBe(60_002)
    expect(r.transcript.messages[2]?.id).toBe(uuid(4))
    const branches = r.transcript.branches ?? []
    expect(branches.length).toBe(60_000)
    expect(branches[0]).toEqual({
      id: uuid(3),
      fromMessageId: uuid(2),
      messageCount: 1,
      firstText: 'Step 2: run the tests again. (retry)',
    })
    // The last step (60,001, odd: assistant) retries off the main record of step 60,000.
    expect(branches[59_999]?.fromMessageId).toBe(uuid(2 + 2 * 59_999))
  }, 60_000)

  it('imports a chat of 1,000,000 messages', () => {
    const r = importTranscript(longChat(1_000_000))
    expect(r.ok).toBe(true)
    if (!r.ok) return
    expect(r.transcript.messages.length).toBe(1_000_000)
    expect(r.transcript.messages[999_999]?.role).toBe('assistant')
  }, 60_000)
})

/** Seeds the mutations start from: one small file of several formats. */
const SEEDS: string[] = [
  JSON.stringify({
    messages: [
      { role: 'system', content: 'You are terse.' },
      { role: 'user', content: 'list src' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'c1', type: 'function', function: { name: 'ls', arguments: '{"p":"src"}' } }],
      },
      { role: 'tool', tool_call_id: 'c1', content: 'a.ts\nb.ts' },
      { role: 'assistant', content: 'Two files: src/a.ts and src/b.ts.' },
    ],
  }),
  JSON.stringify({
    model: 'claude-sonnet-4-5',
    max_tokens: 100,
    messages: [
      { role: 'user', content: 'read it' },
      { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'read', input: { path: 'x' } }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: [{ type: 'text', text: 'ok' }] }] },
    ],
  }),
  claudeCodeForks(3),
  '# aider chat started at 2025-01-01 10:00:00\n\n#### fix the bug  \n\nDone.\n',
]

/** A value of a different JSON type than usual, for field-type mutations. */
const oddValue = fc.constantFrom<unknown>(null, 0, -1, 1e308, '', 'x', [], {}, [[]], true, JSON.parse('{"__proto__":1}'))

/** One mutation of a text: what hostile or damaged files do. */
const mutation = fc.oneof(
  fc.record({ kind: fc.constant('truncate' as const), at: fc.nat() }),
  fc.record({ kind: fc.constant('flip' as const), at: fc.nat(), code: fc.integer({ min: 0, max: 0xffff }) }),
  fc.record({ kind: fc.constant('insert' as const), at: fc.nat(), text: fc.constantFrom(
    '\u0000', '\ud800', '\udfff', '\ufeff', '\r\n', '"__proto__":{"role":"user"},', '{"__proto__":[]}',
    '[[[[[[[[', ']]]]', '{', '}', ',', '"', '\\', 'null', '\x1f\x8b\x08', '\x89PNG\r\n\x1a\n',
  ) }),
  fc.record({ kind: fc.constant('retype' as const), n: fc.nat(), value: oddValue }),
  fc.record({ kind: fc.constant('deep' as const), at: fc.nat(), depth: fc.integer({ min: 900, max: 3000 }) }),
  fc.record({ kind: fc.constant('huge' as const), at: fc.nat(), size: fc.integer({ min: 1, max: 200_000 }) }),
  fc.record({ kind: fc.constant('bom' as const) }),
  fc.record({ kind: fc.constant('crlf' as const) }),
)

type Mutation = typeof mutation extends fc.Arbitrary<infer M> ? M : never

/** Replaces the n-th JSON value after a `":` with `value` (a changed field type). */
function retype(text: string, n: number, value: unknown): string {
  const spots: number[] = []
  for (let i = text.indexOf('":'); i !== -1; i = text.indexOf('":', i + 2)) spots.push(i + 2)
  if (spots.length === 0) return text
  const at = spots[n % spots.length] as number
  // The old value runs to the next `,` or `}` at this level; approximate: the next `,"`.
  const end = text.indexOf(',"', at)
  return `${text.slice(0, at)}${JSON.stringify(value)}${end === -1 ? '}' : text.slice(end)}`
}

function apply(text: string, m: Mutation): string {
  const at = 'at' in m ? m.at % (text.length + 1) : 0
  switch (m.kind) {
    case 'truncate':
      return text.slice(0, at)
    case 'flip':
      return text.slice(0, at) + String.fromCharCode(m.code) + text.slice(at + 1)
    case 'insert':
      return text.slice(0, at) + m.text + text.slice(at)
    case 'retype':
      return retype(text, m.n, m.value)
    case 'deep':
      return `${text.slice(0, at)}${'['.repeat(m.depth)}${']'.repeat(m.depth)}${text.slice(at)}`
    case 'huge':
      return `${text.slice(0, at)}${'A'.repeat(m.size)}${text.slice(at)}`
    case 'bom':
      return `\ufeff${text}`
    case 'crlf':
      return text.replace(/\n/g, '\r\n')
  }
}

/** One line, non-empty: what the page and the CLI show. */
function expectOneLine(message: string): void {
  expect(message.trim()).not.toBe('')
  expect(message).not.toMatch(/[\r\n]/)
}

describe('fuzz: mutated transcripts', () => {
  const mutated = fc.tuple(
    fc.constantFrom(...SEEDS),
    fc.array(mutation, { minLength: 1, maxLength: 3 }),
    fc.constantFrom('x.json', 'x.jsonl', 'x.yaml', 'x.md', undefined),
  )

  it('importTranscript never throws, answers in one line and leaves its input alone', () => {
    fc.assert(
      fc.property(mutated, ([seed, ms, fileName]) => {
        const text = ms.reduce(apply, seed)
        const copy = `${text}`
        const r = importTranscript(text, fileName ? { fileName } : {})
        expect(text).toBe(copy)
        if (!r.ok) expectOneLine(r.error.message)
      }),
      { numRuns: 300, seed: 14 },
    )
  })

  it('importBytes never throws and leaves its bytes alone', () => {
    const encoder = new TextEncoder()
    fc.assert(
      fc.property(mutated, fc.constantFrom('none', 'gzip', 'png', 'zip', 'utf16'), ([seed, ms, fileName], magic) => {
        const body = encoder.encode(ms.reduce(apply, seed))
        const head: Record<string, number[]> = {
          none: [],
          gzip: [0x1f, 0x8b, 0x08, 0x00],
          png: [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a],
          zip: [0x50, 0x4b, 0x03, 0x04],
          utf16: [0xff, 0xfe],
        }
        const bytes = new Uint8Array([...(head[magic] ?? []), ...body])
        const copy = bytes.slice()
        const r = importBytes(bytes, fileName ? { fileName } : {})
        expect(bytes).toEqual(copy)
        if (!r.ok) expectOneLine(r.error.message)
      }),
      { numRuns: 60, seed: 14 },
    )
  })

  it('the pipeline never throws on what imports, with the default stages or all of them', async () => {
    await fc.assert(
      fc.asyncProperty(mutated, fc.boolean(), async ([seed, ms, fileName], all) => {
        const r = importTranscript(ms.reduce(apply, seed), fileName ? { fileName } : {})
        if (!r.ok) return
        const run = await runPipeline(r.transcript, all ? ALL_STAGES : DEFAULT_PIPELINE, {
          counter: counter(),
        })
        expect(run.after.totals.tokens).toBeLessThanOrEqual(run.before.totals.tokens)
      }),
      { numRuns: 60, seed: 14 },
    )
  }, 30_000)
})
