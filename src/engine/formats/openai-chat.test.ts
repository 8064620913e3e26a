import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { checkValidity } from '../analysis/checks'
import type { Message, Transcript } from '../model'
import { importTranscript } from './index'
import { runImporter } from './failure'
import { openaiChatImporter } from './openai-chat'
import { registryContractViolations } from './test-helpers'

/** The importer run on a parsed root: an ImportResult, its throws turned into errors. */
const importOpenAIChat = (root: unknown) => runImporter(openaiChatImporter, root, {})

function sample(name: string): unknown {
  return JSON.parse(
    readFileSync(new URL(`../../../public/samples/${name}`, import.meta.url), 'utf8'),
  )
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null) {
    for (const v of Object.values(value)) deepFreeze(v)
    Object.freeze(value)
  }
  return value
}

function imported(root: unknown): Transcript {
  const r = importOpenAIChat(root)
  if (!r.ok) throw new Error(r.error.message)
  return r.transcript
}

function roles(t: Transcript): Record<string, number> {
  const out: Record<string, number> = {}
  for (const m of t.messages) out[m.role] = (out[m.role] ?? 0) + 1
  return out
}

const calls = (t: Transcript) => t.messages.flatMap((m) => m.toolCalls ?? [])
const results = (t: Transcript) => t.messages.filter((m) => m.role === 'tool')

describe('importOpenAIChat on the bundled samples', () => {
  // Counted by reading the files: openai-chat.json has 34 messages (1 system, 4 user,
  // 15 assistant, 14 tool) and 14 tool_calls; the legacy file has 7 messages with 2
  // function_call / 2 role-function results; both send the same 8 tool definitions.
  it.each([
    ['openai-chat.json', 34, { system: 1, user: 4, assistant: 15, tool: 14 }, 14, 14, 8],
    [
      'openai-chat-legacy-functions.json',
      7,
      { system: 1, user: 1, assistant: 3, tool: 2 },
      2,
      2,
      8,
    ],
  ])(
    '%s: %i messages, roles, tool calls, tool results, tools',
    (file, count, byRole, nCalls, nResults, nTools) => {
      const t = imported(sample(file))
      expect(t.format).toBe('openai-chat')
      expect(t.messages).toHaveLength(count)
      expect(roles(t)).toEqual(byRole)
      expect(calls(t)).toHaveLength(nCalls)
      expect(results(t)).toHaveLength(nResults)
      expect(t.tools).toHaveLength(nTools)
      expect(t.warnings).toEqual([])
      t.messages.forEach((m, i) => {
        expect(m.index).toBe(i)
        expect(m.id).toBe(`m${i}`)
        expect(m.source.line).toBe(i + 1)
      })
      // Every result names the call it answers, and its tool name is the call's.
      const byId = new Map(calls(t).map((c) => [c.id, c.name]))
      for (const r of results(t)) {
        expect(byId.has(r.toolCallId ?? '')).toBe(true)
        expect(r.toolName).toBe(byId.get(r.toolCallId ?? ''))
      }
    },
  )

  it('keeps the screenshot as an image part, never as text', () => {
    const t = imported(sample('openai-chat.json'))
    const first = t.messages[1] as Message
    expect(Array.isArray(first.content)).toBe(true)
    const parts = first.content as Exclude<Message['content'], string | null>
    expect(parts.map((p) => p.type)).toEqual(['text', 'image'])
    // 96 base64 characters with "==" padding encode 96 × 3/4 − 2 = 70 bytes.
    expect(parts[1]).toMatchObject({ type: 'image', mediaType: 'image/png', bytes: 70 })
    expect(parts[0]).toMatchObject({ type: 'text' })
    expect(JSON.stringify(parts[0])).not.toContain('iVBORw0')
  })

  it('turns the first tool definition into a schema', () => {
    const t = imported(sample('openai-chat.json'))
    expect(t.tools?.[0]).toEqual({
      name: 'lookup_order',
      description: 'Fetch an order by id, including items, address and payment summary.',
      parameters: {
        type: 'object',
        properties: { order_id: { type: 'string' } },
        required: ['order_id'],
      },
    })
  })

  it('pairs legacy function results with the preceding function_call by order (fc-<index> ids)', () => {
    const t = imported(sample('openai-chat-legacy-functions.json'))
    expect(t.messages[2]?.toolCalls).toEqual([
      { id: 'fc-2', name: 'lookup_order', arguments: '{\n  "order_id": "A-48213-KQ"\n}' },
    ])
    expect(t.messages[2]?.content).toBeNull()
    expect(t.messages[3]).toMatchObject({
      role: 'tool',
      toolCallId: 'fc-2',
      toolName: 'lookup_order',
    })
    expect(t.messages[4]?.toolCalls?.[0]).toMatchObject({ id: 'fc-4', name: 'get_tracking' })
    expect(t.messages[5]).toMatchObject({
      role: 'tool',
      toolCallId: 'fc-4',
      toolName: 'get_tracking',
    })
    expect(t.tools?.map((x) => x.name)).toContain('schedule_followup')
  })

  it('never modifies its (deep-frozen) input', () => {
    const root = deepFreeze(sample('openai-chat.json'))
    const before = JSON.stringify(root)
    expect(importOpenAIChat(root).ok).toBe(true)
    expect(JSON.stringify(root)).toBe(before)
  })
})

describe('importOpenAIChat pitfalls', () => {
  it('maps developer to system', () => {
    const t = imported({
      messages: [
        { role: 'developer', content: 'Be brief.' },
        { role: 'user', content: 'hi' },
      ],
    })
    expect(t.messages.map((m) => m.role)).toEqual(['system', 'user'])
    expect(t.messages[0]?.content).toBe('Be brief.')
  })

  it('keeps content null next to tool_calls, arguments raw even when invalid JSON', () => {
    const t = imported([
      { role: 'user', content: 'go' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 'call_a', type: 'function', function: { name: 'f', arguments: '{"x": 1' } },
          { id: 'call_b', type: 'function', function: { name: 'g', arguments: '' } },
        ],
      },
      { role: 'tool', tool_call_id: 'call_b', content: 'B' },
      { role: 'tool', tool_call_id: 'call_a', content: 'A' },
    ])
    expect(t.messages[1]?.content).toBeNull()
    expect(t.messages[1]?.toolCalls).toEqual([
      { id: 'call_a', name: 'f', arguments: '{"x": 1' },
      { id: 'call_b', name: 'g', arguments: '' },
    ])
    expect(t.messages[2]).toMatchObject({ toolCallId: 'call_b', toolName: 'g', content: 'B' })
    expect(t.messages[3]).toMatchObject({ toolCallId: 'call_a', toolName: 'f', content: 'A' })
  })

  it('uses custom.input as the arguments of a custom tool call', () => {
    const t = imported([
      { role: 'user', content: 'patch it' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 'c1', type: 'custom', custom: { name: 'apply_patch', input: '*** Begin Patch' } },
        ],
      },
      { role: 'tool', tool_call_id: 'c1', content: 'ok' },
    ])
    expect(t.messages[1]?.toolCalls).toEqual([
      { id: 'c1', name: 'apply_patch', arguments: '*** Begin Patch' },
    ])
    expect(t.messages[2]?.toolName).toBe('apply_patch')
  })

  it('joins text-only part arrays with "\\n" into a string', () => {
    const t = imported([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'a' },
          { type: 'text', text: 'b' },
        ],
      },
    ])
    expect(t.messages[0]?.content).toBe('a\nb')
  })

  it('keeps audio and file parts opaque and https images as URLs without bytes', () => {
    const audio = { type: 'input_audio', input_audio: { data: 'AAAA', format: 'wav' } }
    const file = { type: 'file', file: { file_id: 'file-1' } }
    const t = imported([
      {
        role: 'user',
        content: [{ type: 'image_url', image_url: { url: 'https://x.test/a.png' } }, audio, file],
      },
    ])
    expect(t.messages[0]?.content).toEqual([
      { type: 'image', url: 'https://x.test/a.png' },
      { type: 'opaque', kind: 'input_audio', raw: audio },
      { type: 'opaque', kind: 'file', raw: file },
    ])
  })

  it('turns reasoning_content and reasoning into a leading reasoning part', () => {
    const t = imported([
      { role: 'user', content: 'q' },
      { role: 'assistant', content: 'answer', reasoning_content: 'think A' },
      { role: 'user', content: 'q2' },
      {
        role: 'assistant',
        content: null,
        reasoning: 'think B',
        tool_calls: [{ id: 'c', type: 'function', function: { name: 'f', arguments: '{}' } }],
      },
    ])
    expect(t.messages[1]?.content).toEqual([
      { type: 'thinking', variant: 'reasoning', text: 'think A' },
      { type: 'text', text: 'answer' },
    ])
    expect(t.messages[3]?.content).toEqual([
      { type: 'thinking', variant: 'reasoning', text: 'think B' },
    ])
  })

  it('pairs legacy function results by name, else by order, and flags an orphan', () => {
    const t = imported([
      { role: 'user', content: 'q' },
      { role: 'assistant', content: null, function_call: { name: 'a', arguments: '{}' } },
      { role: 'assistant', content: null, function_call: { name: 'b', arguments: '{}' } },
      { role: 'function', name: 'b', content: 'B' },
      { role: 'function', name: 'zzz', content: 'A?' },
      { role: 'function', name: 'c', content: null },
    ])
    expect(t.messages[3]).toMatchObject({ toolCallId: 'fc-2', toolName: 'b' })
    expect(t.messages[4]).toMatchObject({ toolCallId: 'fc-1', toolName: 'a' })
    expect(t.messages[5]).toMatchObject({
      role: 'tool',
      toolCallId: 'fc-5',
      toolName: 'c',
      content: '',
    })
    expect(t.warnings).toEqual(['messages[5]: function result "c" follows no function_call'])
  })

  it('reads legacy functions and custom tools as schemas', () => {
    const t = imported({
      tools: [
        {
          type: 'custom',
          custom: { name: 'apply_patch', description: 'd', format: { type: 'text' } },
        },
      ],
      functions: [{ name: 'f', parameters: { type: 'object' } }],
      messages: [{ role: 'user', content: 'hi' }],
    })
    expect(t.tools).toEqual([
      { name: 'apply_patch', description: 'd', parameters: { type: 'text' } },
      { name: 'f', parameters: { type: 'object' } },
    ])
  })

  it('skips unknown roles and non-objects with a warning naming the field', () => {
    const t = imported([{ role: 'user', content: 'a' }, { role: 'model', content: 'b' }, 7])
    expect(t.messages).toHaveLength(1)
    expect(t.warnings).toEqual([
      'messages[1].role: "model" is not a chat role, skipped',
      'messages[2]: not an object, skipped',
    ])
  })

  it('reports an empty messages array and a missing one', () => {
    expect(importOpenAIChat({ messages: [] })).toEqual({
      ok: false,
      error: { message: 'no messages found in messages', field: 'messages' },
    })
    expect(importOpenAIChat({ prompt: 'x' }).ok).toBe(false)
  })
})

describe('one Chat Completions response object', () => {
  // test/fixtures/formats/openai-chat-completion-response.json: `object:"chat.completion"`, one
  // choice whose message has `content: null` and 2 `tool_calls` (finish_reason "tool_calls").
  const text = readFileSync(
    new URL('../../../test/fixtures/formats/openai-chat-completion-response.json', import.meta.url),
    'utf8',
  )

  it('imports its one assistant message, and warns that the request is absent', () => {
    const r = importTranscript(text)
    if (!r.ok) throw new Error(r.error.message)
    const t = r.transcript
    expect(t.format).toBe('openai-chat')
    expect(t.model).toBe('gpt-4.1-2025-04-14')
    expect(t.messages.map((m) => m.role)).toEqual(['assistant'])
    expect(t.messages[0]?.toolCalls?.map((c) => [c.id, c.name])).toEqual([
      ['call_r1', 'lookup_order'],
      ['call_r2', 'get_sla'],
    ])
    expect(t.messages.filter((m) => m.role === 'tool')).toHaveLength(0)
    // The calls await execution at the end: pending, not invalid; Anthropic wants a user first.
    expect(checkValidity(t.messages)).toEqual([])
    expect(checkValidity(t.messages, { provider: 'anthropic' }).map((p) => p.rule)).toEqual([
      'first-not-user',
    ])
    expect(t.warnings).toEqual([
      "this is an API response, not a conversation: only the model's reply " +
        "(choices[0].message) is in it, the request's messages are not",
    ])
  })

  it('several choices: the first, and a warning', () => {
    const root = JSON.parse(text) as { choices: unknown[] }
    const second = { index: 1, message: { role: 'assistant', content: 'other' } }
    const r = importOpenAIChat({ ...root, choices: [...root.choices, second] })
    if (!r.ok) throw new Error(r.error.message)
    expect(r.transcript.messages).toHaveLength(1)
    expect(r.transcript.warnings[1]).toBe('the response has 2 choices; imported choices[0]')
  })
})

it('meets the registry contract on its bundled sample', () => {
  const text = readFileSync(
    new URL('../../../public/samples/openai-chat.json', import.meta.url),
    'utf8',
  )
  expect(registryContractViolations(openaiChatImporter, text)).toEqual([])
})
