import { readFileSync } from 'node:fs'
import { strToU8, zipSync } from 'fflate'
import { describe, expect, it } from 'vitest'
import type { Transcript } from '../model'
import { claudeAiExportImporter } from './claude-ai-export'
import { chatgptExportImporter } from './chatgpt-export'
import { importBytes, importTranscript } from './index'
import { registryContractViolations } from './test-helpers'

const fixture = readFileSync(
  new URL('../../../test/fixtures/formats/claude-ai-conversations.json', import.meta.url),
  'utf8',
)

function load(text: string): Transcript {
  const r = importTranscript(text, { fileName: 'conversations.json' })
  if (!r.ok) throw new Error(r.error.message)
  expect(r.transcript.format).toBe('claude-ai-export')
  return r.transcript
}

/** The `uuid` of the fixture's conversation at `i`, read from the file as the export writes it. */
const fixtureUuid = (i: number): string => (JSON.parse(fixture) as { uuid: string }[])[i]!.uuid

describe('claude.ai data export importer', () => {
  it('meets the registry contract; the ChatGPT export detector rejects it and it rejects ChatGPT', () => {
    expect(registryContractViolations(claudeAiExportImporter, fixture)).toEqual([])
    expect(chatgptExportImporter.detect(JSON.parse(fixture))).toBe(
      'item 0 has no "mapping" with "current_node" or "title"',
    )
    const chatgpt = [{ title: 'x', mapping: {}, current_node: 'a' }]
    expect(claudeAiExportImporter.detect(chatgpt)).toBe(
      'item 0 has no "chat_messages" with "uuid" or "name"',
    )
  })

  it('reads the newest branch; calls and results split the assistant message into call, result, continuation', () => {
    const t = load(fixture)
    expect(t.title).toBe('Berlin trip budget')
    expect(t.messages.map((m) => `${m.id} ${m.role}`)).toEqual([
      'c1-h1 user',
      'c1-a1 assistant',
      'c1-a1-result1 tool',
      'c1-a1-cont1 assistant',
      'c1-a1-result2 tool',
      'c1-a1-cont2 assistant',
      'c1-h2b user',
      'c1-a2b assistant',
    ])
    // The attachment's extracted text was part of the prompt.
    expect(t.messages[0]?.content).toBe(
      'Summarize the attached notes and check the weather in Berlin.\nBudget: 1200 EUR',
    )
    expect(t.messages[1]?.content).toEqual([
      { type: 'thinking', variant: 'thinking', text: 'The user wants the notes summarized and the weather.' },
      { type: 'text', text: 'Let me check the weather.' },
    ])
    expect(t.messages.flatMap((m) => m.toolCalls ?? [])).toEqual([
      { id: 'c1-a1-call1', name: 'web_search', arguments: '{"query":"Berlin weather"}' },
      { id: 'c1-a1-call2', name: 'web_search', arguments: '{"query":"Berlin forecast"}' },
    ])
    const tools = t.messages.filter((m) => m.role === 'tool')
    expect(tools.map((m) => [m.toolCallId, m.toolName, m.content, m.isError === true])).toEqual([
      ['c1-a1-call1', 'web_search', 'Sunny, 21 C', false],
      ['c1-a1-call2', 'web_search', 'Search quota exceeded', true],
    ])
    expect(t.messages[3]?.content).toBe('Now the forecast.')
    expect(t.messages[5]?.content).toBe('Berlin is sunny today. Your budget is 1200 EUR.')
    expect(t.branches).toEqual([
      { id: 'c1-h2a', fromMessageId: 'c1-a1', messageCount: 2, firstText: 'Thanks. Now in French?' },
    ])
    expect(t.warnings).toEqual([
      '1 branch(es) (edited messages or retried answers) are not on the newest branch; 2 message(s) there are listed as branches',
    ])
    expect(t.recordedCompactions).toEqual([])
    expect(t.usage).toBeUndefined()
  })

  it('lists every conversation with messages for the picker, titled by name', () => {
    const t = load(fixture)
    expect(t.notes).toEqual([
      '2 conversations in this file: "Berlin trip budget" is open; the other one is listed as a further conversation',
      '1 conversation(s) without messages are not listed',
    ])
    expect(t.sidechains).toHaveLength(1)
    expect(t.sidechainKind).toBe('conversation')
    const second = t.sidechains?.[0] as Transcript
    expect(second.title).toBe('Untitled conversation 2')
    // Each conversation's uuid is its id (the CLI's --conversation ID).
    expect([t.conversationId, second.conversationId]).toEqual([fixtureUuid(0), fixtureUuid(1)])
    // Empty `content` falls back to `text`; the uploaded image is named but not exported.
    expect(second.messages.map((m) => [m.id, m.role, m.content])).toEqual([
      ['c2-h1', 'user', 'What is in this diagram?'],
      ['c2-a1', 'assistant', "I cannot see the diagram's content here."],
    ])
    expect(second.warnings).toEqual([
      '1 uploaded file(s) are named without their content in the export',
    ])
  })

  it('pairs a result with the nearest earlier unpaired tool_use of the same name; an unanswerable result is said', () => {
    const conv = {
      uuid: 'u',
      name: 'n',
      chat_messages: [
        { uuid: 'h', sender: 'human', content: [{ type: 'text', text: 'go' }] },
        {
          uuid: 'a',
          sender: 'assistant',
          content: [
            { type: 'tool_use', name: 'repl', input: { code: '1' } },
            { type: 'tool_use', name: 'search', input: { q: 'x' } },
            { type: 'tool_result', name: 'repl', content: [{ type: 'text', text: 'one' }] },
            { type: 'tool_result', name: 'search', content: 'hits' },
            { type: 'tool_result', name: 'drive', content: [] },
            { type: 'mystery', x: 1 },
          ],
        },
      ],
    }
    const t = load(JSON.stringify([conv]))
    expect(t.messages.map((m) => [m.id, m.role, m.toolCallId ?? null])).toEqual([
      ['h', 'user', null],
      ['a', 'assistant', null],
      ['a-result1', 'tool', 'a-call1'],
      ['a-result2', 'tool', 'a-call2'],
      ['a-result3', 'tool', 'a-result3'],
      ['a-cont1', 'assistant', null],
    ])
    expect(t.warnings).toEqual([
      '[0].chat_messages[1].content[4]: tool_result "drive" follows no tool_use of that name',
      'content kept as opaque parts (unknown block type): "mystery" ×1',
    ])
  })

  it('never crashes on hostile input: a broken conversation is skipped, none readable is an error', () => {
    const t = load(JSON.stringify([{ uuid: 'x', chat_messages: 'no' }, { uuid: 'y', name: 'ok', chat_messages: [{ uuid: 'h', sender: 'human', text: 'hi' }, 7] }]))
    expect(t.title).toBe('ok')
    expect(t.warnings).toEqual([
      '[0].chat_messages is not an array; skipped',
      '[1].chat_messages[1] is not an object, skipped',
    ])
    const r = importTranscript(JSON.stringify([{ uuid: 'x', name: 'n', chat_messages: [{ uuid: 'h', sender: 'robot', text: 'hi' }] }]))
    expect(r.ok).toBe(false)
    if (!r.ok) expect(r.error.message).toBe('[0] has no messages with content')
  })

  it('a zip of the export (conversations.json, users.json, projects.json) opens its conversations.json', () => {
    const zip = zipSync({
      'conversations.json': strToU8(fixture),
      'users.json': strToU8('[{"uuid":"acc-1","full_name":"A"}]'),
      'projects.json': strToU8('[]'),
    })
    const r = importBytes(zip, { fileName: 'data-export.zip' })
    if (!r.ok) throw new Error(r.error.message)
    expect(r.transcript.format).toBe('claude-ai-export')
    expect(r.transcript.messages).toHaveLength(8)
    expect(r.transcript.sidechains).toHaveLength(1)
  })
})
