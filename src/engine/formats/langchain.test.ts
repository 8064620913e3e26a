import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { transcriptCounts } from '../../../test/fixtures'
import { checkValidity } from '../analysis/checks'
import type { Transcript } from '../model'
import { importTranscript } from './index'
import { detectLangChain, importLangChainRoot, langchainImporter } from './langchain'
import { runImporter } from './failure'
import { registryContractViolations } from './test-helpers'

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value)
    for (const key of Object.keys(value)) deepFreeze((value as Record<string, unknown>)[key])
  }
  return value
}

const human = (content: unknown, extra: Record<string, unknown> = {}) => ({
  type: 'human',
  data: {
    content,
    additional_kwargs: {},
    response_metadata: {},
    type: 'human',
    id: null,
    ...extra,
  },
})

const ai = (data: Record<string, unknown>) => ({
  type: 'ai',
  data: { content: '', additional_kwargs: {}, response_metadata: {}, type: 'ai', ...data },
})

const tool = (callId: string, content: string, extra: Record<string, unknown> = {}) => ({
  type: 'tool',
  data: { content, tool_call_id: callId, type: 'tool', status: 'success', ...extra },
})

describe('importLangChainRoot', () => {
  it('takes the parsed tool_calls (args → JSON text), not also the raw additional_kwargs', () => {
    const t = importLangChainRoot(
      deepFreeze([
        human('Where is A-1?'),
        ai({
          tool_calls: [{ name: 'lookup_order', args: { order_id: 'A-1' }, id: 'call_a' }],
          additional_kwargs: {
            tool_calls: [
              {
                id: 'call_a',
                type: 'function',
                function: { name: 'lookup_order', arguments: '{"order_id": "A-1"}' },
              },
            ],
          },
        }),
        tool('call_a', '{"status":"shipped"}', { name: 'lookup_order' }),
      ]),
    )
    expect(t.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool'])
    expect(t.messages[1]?.toolCalls).toEqual([
      { id: 'call_a', name: 'lookup_order', arguments: '{"order_id":"A-1"}' },
    ])
    expect(t.messages[2]).toMatchObject({ toolCallId: 'call_a', toolName: 'lookup_order' })
    expect(t.messages[2]?.isError).toBeUndefined()
  })

  it('falls back to the raw additional_kwargs.tool_calls, arguments kept as the raw string', () => {
    const t = importLangChainRoot([
      human('hi'),
      ai({
        additional_kwargs: {
          tool_calls: [{ id: 'c1', function: { name: 'f', arguments: '{"a": 1,}' } }],
        },
      }),
      tool('c1', 'ok'),
    ])
    expect(t.messages[1]?.toolCalls).toEqual([{ id: 'c1', name: 'f', arguments: '{"a": 1,}' }])
  })

  it('status "error" marks the tool result as an error', () => {
    const t = importLangChainRoot([
      human('go'),
      ai({ tool_calls: [{ name: 'f', args: {}, id: 'c1' }] }),
      tool('c1', 'boom', { status: 'error' }),
    ])
    expect(t.messages[2]?.isError).toBe(true)
    expect(t.messages[1]?.toolCalls?.[0]?.arguments).toBe('{}')
  })

  it('keeps invalid_tool_calls as calls with their raw args and warns', () => {
    const t = importLangChainRoot([
      human('go'),
      ai({ invalid_tool_calls: [{ name: 'f', args: '{"x":', id: 'c9', error: 'bad json' }] }),
      tool('c9', 'could not parse'),
    ])
    expect(t.messages[1]?.toolCalls).toEqual([{ id: 'c9', name: 'f', arguments: '{"x":' }])
    expect(t.warnings).toHaveLength(1)
    expect(t.warnings[0]).toMatch(/items\[1\]\.data\.invalid_tool_calls/)
  })

  it('drops Anthropic tool_use blocks from content when tool_calls carries them', () => {
    const t = importLangChainRoot([
      human('go'),
      ai({
        content: [
          { type: 'text', text: 'Checking.' },
          { type: 'tool_use', id: 'toolu_1', name: 'f', input: { q: 1 } },
        ],
        tool_calls: [{ name: 'f', args: { q: 1 }, id: 'toolu_1' }],
      }),
      tool('toolu_1', 'done'),
    ])
    expect(t.messages[1]?.content).toBe('Checking.')
    expect(t.messages[1]?.toolCalls).toHaveLength(1)
  })

  it('keeps images and thinking as parts, text-only lists as one string', () => {
    const t = importLangChainRoot([
      human([
        { type: 'text', text: 'see' },
        { type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } },
      ]),
      ai({
        content: [
          { type: 'thinking', thinking: 'hmm', signature: 'sig' },
          { type: 'text', text: 'ok' },
        ],
      }),
      human([{ type: 'text', text: 'a' }, 'b']),
    ])
    expect(t.messages[0]?.content).toEqual([
      { type: 'text', text: 'see' },
      { type: 'image', url: 'data:image/png;base64,AAAA', mediaType: 'image/png', bytes: 3 },
    ])
    expect(t.messages[1]?.content).toEqual([
      { type: 'thinking', variant: 'thinking', text: 'hmm', signature: 'sig' },
      { type: 'text', text: 'ok' },
    ])
    expect(t.messages[2]?.content).toBe('a\nb')
  })

  it('records a SummarizationMiddleware summary (lc_source) as a compaction at its message', () => {
    const t = importLangChainRoot([
      { type: 'system', data: { content: 'You are helpful.' } },
      human('Here is a summary of the conversation to date:\n\nOrder A-1 shipped.', {
        id: 'sum-1',
        additional_kwargs: { lc_source: 'summarization' },
      }),
      human('And now?'),
    ])
    expect(t.messages[1]?.flags).toEqual({ compactSummary: true })
    expect(t.recordedCompactions).toEqual([
      {
        atIndex: 1,
        atMessageId: 'sum-1',
        summaryMessageId: 'sum-1',
        summaryText: 'Order A-1 shipped.',
        source: 'langchain',
      },
    ])
  })

  it('recognizes the summary by its opening line alone too', () => {
    const t = importLangChainRoot([
      human([{ type: 'text', text: 'Here is a summary of the conversation to date: A-1.' }]),
      human('next'),
    ])
    expect(t.recordedCompactions).toHaveLength(1)
    expect(t.recordedCompactions[0]?.summaryText).toBe('A-1.')
    expect(t.messages[1]?.flags).toBeUndefined()
  })

  it('imports the dumpd constructor shape', () => {
    const lc = (cls: string, kwargs: Record<string, unknown>) => ({
      lc: 1,
      type: 'constructor',
      id: ['langchain', 'schema', 'messages', cls],
      kwargs,
    })
    const root = [
      lc('SystemMessage', { content: 'sys' }),
      lc('HumanMessage', { content: 'hi' }),
      lc('AIMessage', { content: '', tool_calls: [{ name: 'f', args: { a: 1 }, id: 'c1' }] }),
      lc('ToolMessage', { content: 'r', tool_call_id: 'c1' }),
    ]
    expect(detectLangChain(root)).toBe(true)
    const t = importLangChainRoot(root)
    expect(t.messages.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'tool'])
    expect(t.messages[3]).toMatchObject({ toolCallId: 'c1', toolName: 'f' })
  })

  it('pairs legacy function messages with additional_kwargs.function_call by order', () => {
    const t = importLangChainRoot([
      human('q'),
      ai({ additional_kwargs: { function_call: { name: 'f', arguments: '{}' } } }),
      { type: 'function', data: { content: 'r', name: 'f' } },
    ])
    expect(t.messages[1]?.toolCalls).toEqual([{ id: 'fc-1', name: 'f', arguments: '{}' }])
    expect(t.messages[2]).toMatchObject({ role: 'tool', toolCallId: 'fc-1', toolName: 'f' })
  })

  it('maps chat messages by their role; non-messages are skipped with a warning', () => {
    const t = importLangChainRoot([
      { type: 'chat', data: { content: 'x', role: 'assistant' } },
      { type: 'chat', data: { content: 'y', role: 'critic' } },
      { nope: true },
    ])
    expect(t.messages.map((m) => m.role)).toEqual(['assistant', 'user'])
    expect(t.warnings).toEqual([
      'items[2]: not a LangChain message ({type, data}, {type, content} or dumpd), skipped',
    ])
  })

  it('gives duplicate ids a suffix and missing ids m<index>', () => {
    const t = importLangChainRoot([human('a', { id: 'x' }), human('b', { id: 'x' }), human('c')])
    expect(t.messages.map((m) => m.id)).toEqual(['x', 'x-2', 'm2'])
  })
})

describe('LangChain bad input', () => {
  it('detect names the first mismatching item', () => {
    expect(detectLangChain({ a: 1 })).toMatch(/not an array/)
    expect(detectLangChain([{ type: 'human', data: {} }, { type: 'robot', data: {} }])).toBe(
      'items[1].type is "robot", not a LangChain message type (human/ai/tool/system/chat/' +
        'function, a *MessageChunk class, user/assistant/developer or remove)',
    )
    expect(detectLangChain([{ type: 'ai', data: 'x' }])).toBe(
      'items[0] has neither a "data" object nor "content"',
    )
  })

  it('a root without messages is a typed error naming the field, never an exception', () => {
    const r = runImporter(langchainImporter, { foo: 1 }, {})
    expect(r).toEqual({
      ok: false,
      error: {
        message: 'expected an array of LangChain messages ({type, data} or {type, content})',
        field: 'items',
      },
    })
    const empty = runImporter(langchainImporter, [{ x: 1 }], {})
    expect(empty.ok).toBe(false)
  })

  it('importTranscript detects a messages_to_dict dump', () => {
    const r = importTranscript(JSON.stringify([human('hi'), ai({ content: 'hello' })]))
    expect(r.ok && r.transcript.format).toBe('langchain')
  })
})

const counts = transcriptCounts

function fixture(name: string): Transcript {
  const text = readFileSync(new URL(`../../../test/fixtures/formats/${name}`, import.meta.url), 'utf8')
  const r = importTranscript(text, { fileName: name })
  if (!r.ok) throw new Error(r.error.message)
  return r.transcript
}

describe('LangChain flat message dicts (model_dump(), LangGraph state)', () => {
  it('langchain-model-dump.json: a list of model_dump() dicts', () => {
    // 6 items: system, human, ai with 2 `tool_calls` (its additional_kwargs copies are the same
    // calls), 2 tool (the second `status:"error"`), ai.
    const t = fixture('langchain-model-dump.json')
    expect(t.format).toBe('langchain')
    expect(counts(t)).toEqual({
      byRole: { system: 1, user: 1, assistant: 2, tool: 2 },
      calls: 2,
      results: 2,
      errors: 1,
    })
    expect(t.messages[2]?.toolCalls).toEqual([
      { id: 'call_a1', name: 'lookup_order', arguments: '{"order_id":"A-48213-KQ"}' },
      { id: 'call_a2', name: 'get_tracking', arguments: '{"tracking_number":"JD0148213DE"}' },
    ])
    expect(t.messages.map((m) => m.id)).toEqual([
      'sys-1',
      'hum-1',
      'run--7c1e2f0a-0',
      'tool-1',
      'tool-2',
      'run--7c1e2f0a-1',
    ])
    expect(checkValidity(t.messages)).toEqual([])
    expect(t.warnings).toEqual([])
  })

  it('langchain-langgraph-state.json: {messages} state after SummarizationMiddleware', () => {
    // 5 messages: the summary human (`lc_source:"summarization"`), human, ai whose content holds
    // the `tool_use` block its `tool_calls` also lists (one call), tool, ai.
    const t = fixture('langchain-langgraph-state.json')
    expect(t.format).toBe('langchain')
    expect(counts(t)).toEqual({
      byRole: { system: 0, user: 2, assistant: 2, tool: 1 },
      calls: 1,
      results: 1,
      errors: 0,
    })
    expect(t.messages[2]?.content).toBe('Writing the case notes now.')
    expect(t.recordedCompactions).toMatchObject([
      { atIndex: 0, summaryMessageId: 'sum-1', source: 'langchain' },
    ])
    expect(t.messages[0]?.flags).toEqual({ compactSummary: true })
    expect(checkValidity(t.messages)).toEqual([])
    expect(t.warnings).toEqual([])
  })

  it('flat and {type, data} items may be mixed; a flat item needs content', () => {
    const t = importLangChainRoot([human('q'), { type: 'ai', content: 'a', id: 'x' }])
    expect(t.messages.map((m) => [m.role, m.content])).toEqual([
      ['user', 'q'],
      ['assistant', 'a'],
    ])
    expect(detectLangChain([{ type: 'ai', id: 'x' }])).toBe(
      'items[0] has neither a "data" object nor "content"',
    )
  })

  it('langchain-langgraph-stream-chunks.json: LangGraph state holding streamed AIMessageChunks', () => {
    // 4 flat messages: human, AIMessageChunk with one tool call (plus its tool_call_chunks copy),
    // tool answering it, AIMessageChunk with the answer.
    const t = fixture('langchain-langgraph-stream-chunks.json')
    expect(t.format).toBe('langchain')
    expect(counts(t)).toEqual({
      byRole: { system: 0, user: 1, assistant: 2, tool: 1 },
      calls: 1,
      results: 1,
      errors: 0,
    })
    expect(t.messages[3]?.content).toBe('INV-2031 totals EUR 1,190.00.')
    expect(checkValidity(t.messages)).toEqual([])
    expect(t.warnings).toEqual([])
  })

  it('reads every chunk class and convert_to_messages type, {type, data} and flat alike', () => {
    const chunk = (type: string, extra: Record<string, unknown> = {}) => ({
      type,
      data: { content: `${type} text`, type, ...extra },
    })
    const list = [
      chunk('SystemMessageChunk'),
      { type: 'human', data: { content: 'Total of invoice INV-2031?', type: 'human' } },
      chunk('AIMessageChunk', {
        tool_calls: [{ name: 'get_invoice', args: {}, id: 'c1' }],
        invalid_tool_calls: [],
        tool_call_chunks: [],
      }),
      chunk('ToolMessageChunk', { tool_call_id: 'c1' }),
      chunk('HumanMessageChunk'),
      chunk('ChatMessageChunk', { role: 'assistant' }),
      chunk('FunctionMessageChunk', { name: 'f' }),
      { type: 'developer', content: 'developer text' },
      { type: 'user', content: 'user text' },
      { type: 'assistant', content: 'assistant text' },
    ]
    expect(detectLangChain(list)).toBe(true)
    const t = importLangChainRoot(list)
    expect(t.messages.map((m) => m.role)).toEqual([
      'system',
      'user',
      'assistant',
      'tool',
      'user',
      'assistant',
      'tool',
      'system',
      'user',
      'assistant',
    ])
    expect(t.messages[3]?.toolCallId).toBe('c1')
    expect(t.messages[2]?.toolCalls?.map((c) => c.id)).toEqual(['c1'])
  })

  it('accepts the QA repro of a {type, data} AIMessageChunk', () => {
    const list = [
      { type: 'human', data: { content: 'Total of invoice INV-2031?', type: 'human' } },
      {
        type: 'AIMessageChunk',
        data: {
          content: 'INV-2031 totals EUR 1,190.00.',
          type: 'AIMessageChunk',
          tool_calls: [],
          invalid_tool_calls: [],
          tool_call_chunks: [],
        },
      },
    ]
    const r = importTranscript(JSON.stringify(list), { fileName: 'state.json' })
    if (!r.ok) throw new Error(r.error.message)
    expect(r.transcript.format).toBe('langchain')
    expect(r.transcript.messages.map((m) => [m.role, m.content])).toEqual([
      ['user', 'Total of invoice INV-2031?'],
      ['assistant', 'INV-2031 totals EUR 1,190.00.'],
    ])
  })

  it('skips a RemoveMessage (not content) with a warning, flat, {type, data} and dumpd', () => {
    const list = [
      { type: 'remove', id: '__remove_all__' },
      { type: 'remove', data: { id: 'm-old', content: '', type: 'remove' } },
      { lc: 1, type: 'constructor', id: ['langchain', 'schema', 'messages', 'RemoveMessage'], kwargs: { id: 'm-2' } },
      human('Here is a summary of the conversation to date:\n\nInvoice INV-2031 was discussed.'),
    ]
    expect(detectLangChain(list)).toBe(true)
    const t = importLangChainRoot(list)
    expect(t.messages.map((m) => m.role)).toEqual(['user'])
    expect(t.warnings).toHaveLength(3)
    expect(t.warnings[0]).toContain('items[0]: a RemoveMessage')
  })
})

it('meets the registry contract on its bundled sample', () => {
  const text = readFileSync(
    new URL('../../../public/samples/langchain-messages.json', import.meta.url),
    'utf8',
  )
  expect(registryContractViolations(langchainImporter, text)).toEqual([])
})
