import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { checkValidity } from '../analysis/checks'
import { exportTranscript } from '../export'
import type { Part, Transcript } from '../model'
import { runImporter } from './failure'
import { anthropicImporter } from './anthropic'
import { importTranscript } from './index'
import { registryContractViolations } from './test-helpers'

/** The importer run on a parsed root: an ImportResult, its throws turned into errors. */
const importAnthropic = (root: unknown) => runImporter(anthropicImporter, root, {})

type Root = {
  system: { text: string }[]
  messages: { role: string; content: string | Record<string, unknown>[] }[]
}

function sample(): Root {
  return JSON.parse(
    readFileSync(
      new URL('../../../public/samples/anthropic-messages.json', import.meta.url),
      'utf8',
    ),
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
  const r = importAnthropic(root)
  if (!r.ok) throw new Error(r.error.message)
  return r.transcript
}

const parts = (t: Transcript): Part[] =>
  t.messages.flatMap((m) => (Array.isArray(m.content) ? m.content : []))

describe('importAnthropic on the bundled sample', () => {
  // Counted by reading anthropic-messages.json: top-level system + 30 messages; the 15 user
  // messages hold 14 tool_result blocks (one is_error) and 4 pieces of user text (one of them
  // after two tool_results); the 15 assistant messages hold 14 tool_use, 3 thinking and one
  // compaction block (in source message 17 → canonical index 21).
  const t = imported(sample())

  it('has the exact counts', () => {
    expect(t.format).toBe('anthropic-messages')
    expect(t.messages).toHaveLength(34)
    const byRole: Record<string, number> = {}
    for (const m of t.messages) byRole[m.role] = (byRole[m.role] ?? 0) + 1
    expect(byRole).toEqual({ system: 1, user: 4, assistant: 15, tool: 14 })
    expect(t.messages.flatMap((m) => m.toolCalls ?? [])).toHaveLength(14)
    expect(t.messages.filter((m) => m.isError).map((m) => m.index)).toEqual([20])
    expect(parts(t).filter((p) => p.type === 'thinking')).toHaveLength(3)
    expect(parts(t).filter((p) => p.type === 'image')).toHaveLength(1)
    expect(t.tools).toHaveLength(8)
    expect(t.warnings).toEqual([])
    t.messages.forEach((m, i) => expect(m.index).toBe(i))
  })

  it('puts the top-level system first, text blocks joined', () => {
    expect(t.messages[0]).toMatchObject({ role: 'system', content: sample().system[0]?.text })
  })

  it('splits tool_result blocks into tool messages before the user text of the same turn', () => {
    expect(t.messages.slice(10, 13).map((m) => m.role)).toEqual(['tool', 'tool', 'user'])
    expect(t.messages[10]?.toolCallId).toBe('toolu_01RJ4qb9c5othbiDk4tmraFn')
    expect(t.messages[11]?.toolCallId).toBe('toolu_01QYaleyb6Z4pYeDyWtkSHor')
    expect(t.messages[11]?.toolName).toBe('check_inventory')
    // The block-array result is text-only: it becomes the string itself.
    expect(t.messages[11]?.content).toBe(
      '{\n  "sku": "SKY-11BLU-42",\n  "warehouse": "BER-2",\n  "available": 6,\n  "next_restock": null\n}',
    )
    expect(t.messages[12]?.content).toBe(
      "If you send a replacement I'd actually prefer the blue one. Also, I'm not home on Thursday.",
    )
  })

  it('keeps thinking byte-identical and the image as an image part', () => {
    const source = sample().messages[1]?.content as { thinking?: string; signature?: string }[]
    const thinking = (t.messages[2]?.content as Part[])[0]
    expect(thinking).toEqual({
      type: 'thinking',
      variant: 'thinking',
      text: source[0]?.thinking,
      signature: source[0]?.signature,
    })
    const image = (t.messages[1]?.content as Part[])[1]
    // 96 base64 characters with "==" padding = 70 bytes.
    expect(image).toMatchObject({ type: 'image', mediaType: 'image/png', bytes: 70 })
    expect((t.messages[1]?.content as Part[])[0]?.type).toBe('text')
  })

  it('serializes tool_use input as the arguments', () => {
    expect(t.messages[2]?.toolCalls).toEqual([
      {
        id: 'toolu_012h0xxdr8hUMzPMO4FuGvo7',
        name: 'lookup_order',
        arguments: '{"order_id":"A-48213-KQ"}',
      },
      {
        id: 'toolu_01hol11w7oKdWmDr2o3Obgjx',
        name: 'get_tracking',
        arguments: '{"tracking_number":"DPX7730019452DE"}',
      },
    ])
  })

  it('records the beta compaction block as a RecordedCompaction at its message', () => {
    const block = (sample().messages[17]?.content as { content?: string }[])[0]
    expect(t.recordedCompactions).toEqual([
      {
        atIndex: 21,
        atMessageId: 'm21',
        summaryText: block?.content,
        source: 'anthropic-messages',
      },
    ])
    const first = (t.messages[21]?.content as Part[])[0]
    expect(first).toMatchObject({ type: 'opaque', kind: 'compaction' })
  })

  it('never modifies its (deep-frozen) input', () => {
    const root = deepFreeze(sample())
    const before = JSON.stringify(root)
    expect(importAnthropic(root).ok).toBe(true)
    expect(JSON.stringify(root)).toBe(before)
  })
})

describe('importAnthropic pitfalls', () => {
  it('keeps redacted thinking opaque and reports is_error', () => {
    const tr = imported({
      messages: [
        { role: 'user', content: 'q' },
        {
          role: 'assistant',
          content: [
            { type: 'redacted_thinking', data: 'EmwKAhgBEgy3' },
            { type: 'tool_use', id: 't1', name: 'run', input: { cmd: 'false' } },
          ],
        },
        {
          role: 'user',
          content: [{ type: 'tool_result', tool_use_id: 't1', content: 'exit 1', is_error: true }],
        },
      ],
    })
    expect(tr.messages[1]?.content).toEqual([
      { type: 'thinking', variant: 'redacted_thinking', encrypted: 'EmwKAhgBEgy3' },
    ])
    expect(tr.messages[2]).toMatchObject({
      role: 'tool',
      toolCallId: 't1',
      toolName: 'run',
      isError: true,
      content: 'exit 1',
    })
  })

  it('keeps images inside tool results as image parts and absent content as ""', () => {
    const tr = imported([
      { role: 'user', content: 'shot' },
      {
        role: 'assistant',
        content: [
          { type: 'tool_use', id: 'a', name: 'screenshot', input: {} },
          { type: 'tool_use', id: 'b', name: 'noop' },
        ],
      },
      {
        role: 'user',
        content: [
          {
            type: 'tool_result',
            tool_use_id: 'a',
            content: [
              { type: 'text', text: 'here' },
              { type: 'image', source: { type: 'base64', media_type: 'image/jpeg', data: 'AAAA' } },
            ],
          },
          { type: 'tool_result', tool_use_id: 'b' },
        ],
      },
    ])
    expect(tr.messages[1]?.content).toBeNull()
    expect(tr.messages[1]?.toolCalls?.[1]).toEqual({ id: 'b', name: 'noop', arguments: '{}' })
    expect(tr.messages[2]?.content).toEqual([
      { type: 'text', text: 'here' },
      { type: 'image', url: 'data:image/jpeg;base64,AAAA', mediaType: 'image/jpeg', bytes: 3 },
    ])
    expect(tr.messages[3]).toMatchObject({ role: 'tool', toolCallId: 'b', content: '' })
  })

  it('joins text-only assistant blocks with "\\n" and keeps unknown blocks raw', () => {
    const upload = { type: 'container_upload', file_id: 'file_011' }
    const tr = imported([
      { role: 'user', content: 'q' },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'one' },
          { type: 'text', text: 'two' },
        ],
      },
      { role: 'user', content: 'q2' },
      { role: 'assistant', content: [upload, { type: 'text', text: 'done' }] },
    ])
    expect(tr.messages[1]?.content).toBe('one\ntwo')
    expect(tr.messages[3]?.content).toEqual([
      { type: 'opaque', kind: 'container_upload', raw: upload },
      { type: 'text', text: 'done' },
    ])
  })

  it('a server tool call and its result in one message: a call, a tool message, the rest', () => {
    const server = { type: 'server_tool_use', id: 's', name: 'web_search', input: { query: 'x' } }
    const result = { type: 'web_search_tool_result', tool_use_id: 's', content: [] }
    const tr = imported([
      { role: 'user', content: 'q' },
      { role: 'assistant', content: [server, result, { type: 'text', text: 'done' }] },
    ])
    expect(tr.messages.map((m) => [m.role, m.content])).toEqual([
      ['user', 'q'],
      ['assistant', null],
      ['tool', ''],
      ['assistant', 'done'],
    ])
    expect(tr.messages[1]?.toolCalls).toEqual([
      {
        id: 's',
        name: 'web_search',
        arguments: '{"query":"x"}',
        native: { kind: 'server_tool_use', raw: server, hosted: true, result },
      },
    ])
    expect(tr.messages[2]).toMatchObject({ toolCallId: 's', toolName: 'web_search' })
  })

  it('treats a compaction block with null content as a failed no-op compaction', () => {
    const tr = imported({
      messages: [
        { role: 'user', content: 'q' },
        {
          role: 'assistant',
          content: [
            { type: 'compaction', content: null },
            { type: 'text', text: 'a' },
          ],
        },
      ],
    })
    expect(tr.recordedCompactions).toEqual([])
    expect(tr.warnings).toEqual([
      'messages[1]: compaction block with null content (a failed compaction), kept as is',
    ])
  })

  it('imports a single response message object', () => {
    const tr = imported({
      id: 'msg_1',
      type: 'message',
      role: 'assistant',
      content: [{ type: 'text', text: 'hi' }],
    })
    expect(tr.messages).toHaveLength(1)
    expect(tr.messages[0]).toMatchObject({ role: 'assistant', content: 'hi' })
  })

  it('reports no messages', () => {
    expect(importAnthropic({ system: 'x', messages: [] })).toEqual({
      ok: false,
      error: { message: 'no messages found in messages', field: 'messages' },
    })
  })
})

describe('one Messages API response object', () => {
  // test/fixtures/formats/anthropic-message-response.json: `type:"message"`, role assistant,
  // content thinking + text + one tool_use, `stop_reason:"tool_use"`.
  const text = readFileSync(
    new URL('../../../test/fixtures/formats/anthropic-message-response.json', import.meta.url),
    'utf8',
  )

  it('imports its one assistant message, and warns that the request is absent', () => {
    const r = importTranscript(text)
    if (!r.ok) throw new Error(r.error.message)
    const t = r.transcript
    expect(t.format).toBe('anthropic-messages')
    expect(t.model).toBe('claude-sonnet-4-5-20250929')
    expect(t.messages.map((m) => m.role)).toEqual(['assistant'])
    expect(t.messages[0]?.toolCalls?.map((c) => [c.id, c.name])).toEqual([
      ['toolu_01R7', 'lookup_order'],
    ])
    const parts = t.messages[0]?.content as Part[]
    expect(parts.map((p) => p.type)).toEqual(['thinking', 'text'])
    expect(checkValidity(t.messages)).toEqual([])
    expect(checkValidity(t.messages, { provider: 'anthropic' }).map((p) => p.rule)).toEqual([
      'first-not-user',
    ])
    expect(t.warnings).toEqual([
      "this is an API response, not a conversation: only the model's reply is in it, " +
        "the request's messages are not",
    ])
  })

  it('a request body gets no such warning', () => {
    const r = importAnthropic({ messages: [{ role: 'user', content: 'hi' }] })
    expect(r.ok && r.transcript.warnings).toEqual([])
  })
})

describe('citation-split text', () => {
  // The API returns one answer as several text blocks around its cited spans; read as written
  // they are one text: "Der Rhein steht bei " + "3,12 m." (cited) + " Tendenz fallend."
  const cited = {
    type: 'text',
    text: '3,12 m.',
    citations: [{ type: 'char_location', cited_text: 'Pegel Köln: 3,12 m', document_index: 0, start_char_index: 0, end_char_index: 18 }],
  }
  it('joins text blocks next to a cited one as they are, in assistant, user and tool_result content', () => {
    const t = imported({
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'Pegel? ' }, { ...cited, text: 'Köln' }] },
        {
          role: 'assistant',
          content: [
            { type: 'text', text: 'Der Rhein steht bei ', citations: null },
            cited,
            { type: 'text', text: ' Tendenz fallend.' },
            { type: 'tool_use', id: 'toolu_1', name: 'pegel', input: {} },
          ],
        },
        {
          role: 'user',
          content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: [{ type: 'text', text: 'Köln ' }, cited] }],
        },
      ],
    })
    expect(t.messages.map((m) => m.content)).toEqual([
      'Pegel? Köln',
      'Der Rhein steht bei 3,12 m. Tendenz fallend.',
      'Köln 3,12 m.',
    ])
    // Exported, the answer is the text the blocks spell, with nothing inserted.
    const body = exportTranscript(t, 'anthropic').body as { messages: { content: unknown }[] }
    expect(body.messages[1]!.content).toEqual([
      { type: 'text', text: 'Der Rhein steht bei 3,12 m. Tendenz fallend.' },
      { type: 'tool_use', id: 'toolu_1', name: 'pegel', input: {} },
    ])
  })

  it('keeps uncited adjacent text blocks on lines of their own', () => {
    const t = imported({
      messages: [{ role: 'user', content: [{ type: 'text', text: 'a' }, { type: 'text', text: 'b' }] }],
    })
    expect(t.messages[0]!.content).toBe('a\nb')
  })
})

it('meets the registry contract on its bundled sample', () => {
  const text = readFileSync(
    new URL('../../../public/samples/anthropic-messages.json', import.meta.url),
    'utf8',
  )
  expect(registryContractViolations(anthropicImporter, text)).toEqual([])
})

describe('Anthropic server tools of any name (the advisor)', () => {
  const root = JSON.parse(
    readFileSync(new URL('../../../test/fixtures/formats/anthropic-advisor.json', import.meta.url), 'utf8'),
  ) as unknown
  it('detects the file and keeps each server_tool_use / *_tool_result pair as a call and a result', () => {
    const r = importTranscript(JSON.stringify(root), { fileName: 'request.json' })
    if (!r.ok) throw new Error(r.error.message)
    const t = r.transcript
    expect(t.format).toBe('anthropic-messages')
    // system; user; assistant(advisor 1) + its result; assistant(text + run_sql call); the
    // run_sql result (the user message holds only it); assistant(advisor 2) + its result; a
    // call after a result opens a new message: assistant(advisor 3) + its error result; the text.
    expect(t.messages.map((m) => m.role)).toEqual([
      'system', 'user', 'assistant', 'tool', 'assistant', 'tool', 'assistant', 'tool', 'assistant', 'tool', 'assistant',
    ])
    expect(t.messages.flatMap((m) => (m.toolCalls ?? []).map((c) => `${c.name}:${c.id}`))).toEqual([
      'advisor:srvtoolu_01MigAdv1',
      'run_sql:toolu_01MigSql',
      'advisor:srvtoolu_01MigAdv2',
      'advisor:srvtoolu_01MigAdv3',
    ])
    const tools = t.messages.filter((m) => m.role === 'tool')
    expect(tools.map((m) => [m.toolCallId, m.toolName, m.isError ?? false])).toEqual([
      ['srvtoolu_01MigAdv1', 'advisor', false],
      ['toolu_01MigSql', 'run_sql', false],
      ['srvtoolu_01MigAdv2', 'advisor', false],
      ['srvtoolu_01MigAdv3', 'advisor', true],
    ])
    expect(tools[2]?.content).toEqual([
      { type: 'opaque', kind: 'advisor_result', raw: { type: 'advisor_result', text: '129 batches is fine; run them off-peak.' } },
    ])
    // Exported back, each message holds its blocks as they were.
    const body = exportTranscript(t, 'anthropic').body as { messages: unknown[] }
    expect(body.messages).toEqual((root as { messages: unknown[] }).messages)
  })
})
