import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { checkValidity } from './analysis/checks'
import { exportMessages, exportTranscript, EXPORT_TARGETS, type ExportTarget } from './export'
import { importTranscript } from './formats/index'
import type { Message, Part, Transcript } from './model'
import { DEFAULT_PIPELINE, providerOf, runPipeline } from './pipeline'
import { countCodePoints } from './stages/test-helpers'
import { cacheCounter } from './tokens/count'
import { MAX_NESTING } from './util/nesting'

const SAMPLES = new URL('../../public/samples/', import.meta.url)
const gallery = JSON.parse(readFileSync(new URL('index.json', SAMPLES), 'utf8')) as {
  file: string
}[]
const counter = cacheCounter('o200k_base', countCodePoints)

function load(file: string): Transcript {
  const r = importTranscript(readFileSync(new URL(file, SAMPLES), 'utf8'), { fileName: file })
  if (!r.ok) throw new Error(`${file}: ${r.error.message}`)
  return r.transcript
}

function reimport(body: unknown): Transcript {
  const r = importTranscript(JSON.stringify(body))
  if (!r.ok) throw new Error(r.error.message)
  return r.transcript
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value)
    for (const v of Object.values(value)) deepFreeze(v)
  }
  return value
}

/** What can survive the trip through `target`: the fields that format has a place for. */
function comparable(m: Message, target: ExportTarget, sourceFamily: boolean) {
  if (target === 'canonical') {
    const { index: _index, source: _source, ...rest } = m
    return rest
  }
  // Content as a list of kinds, adjacent texts joined (formats that join text blocks with "\n").
  const parts: Part[] =
    m.content == null
      ? []
      : typeof m.content === 'string'
        ? m.content === ''
          ? []
          : [{ type: 'text', text: m.content }]
        : m.content
  const content: unknown[] = []
  for (const p of parts) {
    if (p.type === 'text') {
      const prev = content[content.length - 1] as { text?: string } | undefined
      if (prev && prev.text !== undefined) prev.text += `\n${p.text}`
      else content.push({ text: p.text })
    } else if (p.type === 'image') content.push({ image: p.url })
    else if (p.type === 'thinking') {
      if (m.role !== 'assistant') continue
      if (target === 'anthropic') {
        if (p.variant !== 'reasoning') content.push({ ...p })
      } else content.push({ thinking: p.text ?? '' })
    } else if (sourceFamily) content.push({ opaque: p.kind })
  }
  const args = (a: string) => {
    if (target !== 'anthropic') return a
    try {
      return JSON.stringify(JSON.parse(a))
    } catch {
      return '{}'
    }
  }
  return {
    role: m.role,
    content,
    toolCalls: (m.toolCalls ?? []).map((c) => ({ id: c.id, name: c.name, arguments: args(c.arguments) })),
    toolCallId: m.toolCallId,
    toolName: m.toolName,
    isError: target === 'anthropic' ? m.isError === true : undefined,
  }
}

const FAMILY: Record<ExportTarget, string[]> = {
  canonical: [],
  'openai-chat': ['openai-chat'],
  anthropic: ['anthropic-messages', 'claude-code'],
  'openai-responses': ['openai-responses', 'codex-rollout'],
}

/** Problems by rule, as a sorted list (to compare multisets). */
const rules = (messages: readonly Message[], provider: 'openai' | 'anthropic') =>
  checkValidity(messages, { provider })
    .map((p) => p.rule)
    .sort()

describe('export round-trips every bundled sample', () => {
  for (const { file } of gallery) {
    describe(file, () => {
      const before = deepFreeze(load(file))
      for (const target of EXPORT_TARGETS) {
        it(`${target}: the Before re-imports as the same messages, with no new validity problem`, () => {
          const exported = exportTranscript(before, target)
          const again = reimport(exported.body)
          const family = FAMILY[target].includes(before.format)
          expect(again.messages.map((m) => comparable(m, target, family))).toEqual(
            before.messages.map((m) => comparable(m, target, family)),
          )
          const provider = providerOf(again.format)
          // Every rule fires at most as often after the trip as before it.
          const was = rules(before.messages, provider)
          const now = rules(again.messages, provider)
          for (const rule of new Set(now))
            expect(now.filter((x) => x === rule).length).toBeLessThanOrEqual(
              was.filter((x) => x === rule).length,
            )
        })
      }
      it('every target: the After of the default pipeline re-imports as the same messages', async () => {
        const run = deepFreeze(await runPipeline(before, DEFAULT_PIPELINE, { counter }))
        for (const target of EXPORT_TARGETS) {
          const again = reimport(exportTranscript(before, target, run.after.messages).body)
          const family = FAMILY[target].includes(before.format)
          expect(again.messages.map((m) => comparable(m, target, family))).toEqual(
            run.after.messages.map((m) => comparable(m, target, family)),
          )
          expect(checkValidity(again.messages, { provider: providerOf(again.format) })).toEqual(
            checkValidity(run.after.messages, { provider: providerOf(again.format) }),
          )
        }
      })
    })
  }
})

describe('exportMessages details', () => {
  const cc = load('claude-code.jsonl')

  it('anthropic: arguments nested past the nesting limit are said to be too deeply nested, not "not a JSON object"', () => {
    const call = (id: string, args: string): Message => ({
      id: `a-${id}`, index: 0, role: 'assistant', content: null, toolCalls: [{ id, name: 'f', arguments: args }], source: { format: 'canonical' },
    })
    const result = (id: string): Message => ({ id: `t-${id}`, index: 0, role: 'tool', content: 'ok', toolCallId: id, source: { format: 'canonical' } })
    const deep = `{"x":${'['.repeat(MAX_NESTING)}${']'.repeat(MAX_NESTING)}}`
    const messages = [
      { id: 'u', index: 0, role: 'user', content: 'go', source: { format: 'canonical' } } as Message,
      call('deep', deep), result('deep'),
      call('list', '[1,2]'), result('list'),
    ].map((m, index) => ({ ...m, index }))
    const exported = exportMessages(messages, 'anthropic')
    const inputs = (exported.body as { messages: { content: unknown }[] }).messages
      .flatMap((m) => (Array.isArray(m.content) ? (m.content as { type: string; input?: unknown }[]) : []))
      .filter((b) => b.type === 'tool_use')
      .map((b) => b.input)
    expect(inputs).toEqual([{}, {}])
    expect(exported.warnings).toEqual(
      expect.arrayContaining([
        `1 tool call argument(s) nested deeper than ${MAX_NESTING.toLocaleString('en-US')} levels: sent as {} (Anthropic needs an object)`,
        '1 tool call argument(s) not a JSON object: sent as {} (Anthropic needs an object)',
      ]),
    )
  })

  it('never modifies the Before transcript', () => {
    const t = load('anthropic-messages.json')
    const snapshot = JSON.stringify(t)
    deepFreeze(t)
    for (const target of EXPORT_TARGETS) exportTranscript(t, target)
    expect(JSON.stringify(t)).toBe(snapshot)
  })

  it('anthropic: thinking blocks byte-identical with signatures; results open the next user turn', () => {
    const body = exportTranscript(cc, 'anthropic').body as {
      system?: unknown
      messages: { role: string; content: unknown }[]
    }
    const line4 = JSON.parse(
      readFileSync(new URL('claude-code.jsonl', SAMPLES), 'utf8').split('\n')[3] as string,
    )
    const first = body.messages[1]?.content as unknown[]
    expect(first[0]).toEqual(line4.message.content[0])
    // The two parallel calls' results share one user message, tool_result blocks only.
    const results = body.messages[2]?.content as { type: string }[]
    expect(body.messages[2]?.role).toBe('user')
    expect(results.map((b) => b.type)).toEqual(['tool_result', 'tool_result'])
    expect(body.system).toBeUndefined()
  })

  it('anthropic: a tool result followed by user text goes in one user message, results first', () => {
    const msgs: Message[] = [
      { id: 'u', index: 0, role: 'user', content: 'go', source: { format: 'canonical' } },
      {
        id: 'a',
        index: 1,
        role: 'assistant',
        content: null,
        toolCalls: [{ id: 't1', name: 'f', arguments: '{"x":1}' }],
        source: { format: 'canonical' },
      },
      { id: 't', index: 2, role: 'tool', content: 'boom', toolCallId: 't1', isError: true, source: { format: 'canonical' } },
      { id: 'u2', index: 3, role: 'user', content: 'and?', source: { format: 'canonical' } },
    ]
    const body = exportMessages(msgs, 'anthropic').body
    expect(body).toEqual({
      model: 'MODEL_NOT_RECORDED',
      max_tokens: 4096,
      messages: [
        { role: 'user', content: 'go' },
        { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'f', input: { x: 1 } }] },
        {
          role: 'user',
          content: [
            { type: 'tool_result', tool_use_id: 't1', content: 'boom', is_error: true },
            { type: 'text', text: 'and?' },
          ],
        },
      ],
    })
  })

  it('keeps image data URLs in every target', () => {
    const t = load('openai-chat.json')
    const image = t.messages
      .flatMap((m) => (Array.isArray(m.content) ? m.content : []))
      .find((p) => p.type === 'image')
    expect(image?.type === 'image' && image.url?.startsWith('data:image/')).toBe(true)
    const payload = image?.type === 'image' ? (image.url ?? '').split(',')[1] ?? '' : ''
    expect(payload.length).toBeGreaterThan(0)
    for (const target of EXPORT_TARGETS)
      expect(JSON.stringify(exportTranscript(t, target).body)).toContain(payload)
  })

  it('says what a target cannot carry: signatures in OpenAI chat, error flags', () => {
    const { warnings } = exportTranscript(cc, 'openai-chat')
    expect(warnings.some((w) => /thinking signature/.test(w))).toBe(true)
    // The sample has 3 failing tool results (is_error).
    expect(warnings).toContain(
      '3 tool error flag(s) not representable in OpenAI chat (the error text stays)',
    )
    expect(exportTranscript(cc, 'anthropic').warnings).toEqual([])
  })

  it('canonical: carries flags, errors and ids, and no API key field exists anywhere', () => {
    const body = exportTranscript(cc, 'canonical').body as { format: string; sourceFormat: string }
    expect(body.format).toBe('canonical')
    expect(body.sourceFormat).toBe('claude-code')
    const text = JSON.stringify(body)
    expect(text).not.toMatch(/"(api_?key|authorization|x-api-key)"/i)
    const again = reimport(body)
    expect(again.messages.map((m) => m.id)).toEqual(cc.messages.map((m) => m.id))
    expect(again.title).toBe(cc.title)
  })
})

describe('request bodies name a model', () => {
  // Models as the sample files state them (`model` of the request, the session's assistant
  // records, Codex's turn_context).
  it.each([
    ['anthropic-messages.json', 'anthropic', 'claude-sonnet-4-5-20250929'],
    ['claude-code.jsonl', 'anthropic', 'claude-sonnet-4-5-20250929'],
    ['openai-chat.json', 'openai-chat', 'gpt-4.1-2025-04-14'],
    ['openai-responses.json', 'openai-responses', 'gpt-5-2025-08-07'],
    ['codex-rollout.jsonl', 'openai-responses', 'gpt-5-codex'],
  ] as const)('%s → %s: the source model, which imports back', (file, target, model) => {
    const before = load(file)
    expect(before.model).toBe(model)
    const exported = exportTranscript(before, target)
    expect(exported.body).toMatchObject({ model })
    expect(exported.warnings.filter((w) => w.includes('MODEL_NOT_RECORDED'))).toEqual([])
    expect(reimport(exported.body).model).toBe(model)
  })

  it('an Anthropic body carries max_tokens, a valid request body with model first', () => {
    const body = exportTranscript(load('anthropic-messages.json'), 'anthropic').body as Record<string, unknown>
    expect(Object.keys(body).slice(0, 2)).toEqual(['model', 'max_tokens'])
    expect(body.max_tokens).toBe(4096)
  })

  it('a source naming no model gets the placeholder, said once per export', () => {
    const before = load('vercel-ai-ui-messages.json')
    expect(before.model).toBeUndefined()
    for (const target of ['openai-chat', 'anthropic', 'openai-responses'] as const) {
      const exported = exportTranscript(before, target)
      expect(exported.body).toMatchObject({ model: 'MODEL_NOT_RECORDED' })
      expect(exported.warnings).toContain(
        '1 source naming no model: "model" is MODEL_NOT_RECORDED, set one before sending',
      )
    }
    // Canonical is not a request: no model, no warning.
    const canonical = exportTranscript(before, 'canonical')
    expect(canonical.body).not.toHaveProperty('model')
    expect(canonical.warnings).toEqual([])
  })

  it('canonical keeps the model for the next import', () => {
    const canonical = exportTranscript(load('claude-code.jsonl'), 'canonical')
    expect(canonical.body).toMatchObject({ model: 'claude-sonnet-4-5-20250929' })
    expect(reimport(canonical.body).model).toBe('claude-sonnet-4-5-20250929')
  })
})
