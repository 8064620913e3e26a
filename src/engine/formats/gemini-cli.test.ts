import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import type { Transcript } from '../model'
import { importTranscript } from './index'
import { geminiCliImporter, geminiCliJsonlImporter } from './gemini-cli'
import { registryContractViolations } from './test-helpers'

function load(text: string, fileName?: string): Transcript {
  const r = importTranscript(text, fileName ? { fileName } : {})
  if (!r.ok) throw new Error(r.error.message)
  expect(r.transcript.format).toBe('gemini-cli')
  return r.transcript
}

const head = { sessionId: 'S', projectHash: 'H', startTime: '2025-06-24T09:12:03.000Z' }
const call = (id: string, name: string, response: unknown, status = 'success') => ({
  id,
  name,
  args: { path: '/w' },
  result: [{ functionResponse: { id, name, response } }],
  status,
})

describe('Gemini CLI importer', () => {
  it('turns gemini records into assistant messages followed by their embedded results', () => {
    const t = load(
      JSON.stringify({
        ...head,
        messages: [
          { id: 'u1', type: 'user', content: 'List files' },
          { id: 'i1', type: 'info', content: 'Model switched' },
          {
            id: 'g1',
            type: 'gemini',
            content: 'Looking.',
            thoughts: [{ subject: 'Plan', description: 'List, then read.' }],
            toolCalls: [
              call('ls-1', 'list_directory', { output: 'src\ntests' }),
              call('rd-1', 'read_file', { error: 'File not found' }, 'error'),
            ],
          },
          { id: 'w1', type: 'warning', content: 'Slow' },
          { id: 'g2', type: 'gemini', content: [{ text: 'Done.' }] },
        ],
      }),
    )
    expect(t.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'tool', 'assistant'])
    expect(t.messages[1]?.content).toEqual([
      { type: 'thinking', variant: 'thinking', text: '**Plan**\n\nList, then read.' },
      { type: 'text', text: 'Looking.' },
    ])
    expect(t.messages[1]?.toolCalls).toEqual([
      { id: 'ls-1', name: 'list_directory', arguments: '{"path":"/w"}' },
      { id: 'rd-1', name: 'read_file', arguments: '{"path":"/w"}' },
    ])
    expect(t.messages[2]).toMatchObject({ toolCallId: 'ls-1', content: 'src\ntests' })
    expect(t.messages[2]?.isError).toBeUndefined()
    expect(t.messages[3]).toMatchObject({ toolCallId: 'rd-1', content: 'File not found', isError: true })
    expect(t.messages[4]?.content).toBe('Done.')
    expect(t.warnings).toEqual([
      '1 "info" record(s) skipped: UI notes, not model context',
      '1 "warning" record(s) skipped: UI notes, not model context',
    ])
  })

  it('folds the JSONL op-log: upserts by id, $set replaces, $rewindTo truncates', () => {
    const lines = [
      head,
      { id: 'u1', type: 'user', content: 'one' },
      { id: 'g1', type: 'gemini', content: 'draft' },
      { id: 'g1', type: 'gemini', content: 'final' },
      { id: 'u2', type: 'user', content: 'two' },
      { id: 'g2', type: 'gemini', content: 'answer two' },
      { $rewindTo: 'u2' },
      { id: 'u3', type: 'user', content: 'three' },
    ]
    const text = lines.map((l) => JSON.stringify(l)).join('\r\n')
    const t = load(`\ufeff${text}`, 'session.jsonl')
    expect(t.messages.map((m) => m.content)).toEqual(['one', 'final', 'three'])
    const reset = load(
      [head, { id: 'u1', type: 'user', content: 'old' }, { $set: { messages: [{ id: 'u9', type: 'user', content: 'new' }] } }]
        .map((l) => JSON.stringify(l))
        .join('\n'),
    )
    expect(reset.messages.map((m) => m.content)).toEqual(['new'])
  })

  it('survives a half-written last line, raw U+2028 and a lone surrogate in the JSONL log', () => {
    const text = [
      JSON.stringify(head),
      JSON.stringify({ id: 'u1', type: 'user', content: 'a\u2028b' }),
      '{"id":"g1","type":"gemini","content":"cut \\ud83d here"}',
      '{"id":"u2","type":"us',
    ].join('\n')
    const t = load(text)
    expect(t.messages.map((m) => m.content)).toEqual(['a\u2028b', 'cut \ud83d here'])
    expect(t.warnings).toHaveLength(1)
    expect(t.warnings[0]).toMatch(/^line 4: half-written last line/)
  })
})

it('meets the registry contract on a file of each container', () => {
  const session = readFileSync(
    new URL('../../../public/samples/gemini-cli-session.json', import.meta.url),
    'utf8',
  )
  const jsonl = [
    { sessionId: 's', projectHash: 'p', startTime: '2025-01-01T00:00:00Z' },
    { id: 'u1', type: 'user', content: 'hi' },
    { id: 'g1', type: 'gemini', content: 'hello' },
  ]
    .map((l) => JSON.stringify(l))
    .join('\n')
  expect(registryContractViolations(geminiCliImporter, session)).toEqual([])
  expect(registryContractViolations(geminiCliJsonlImporter, jsonl)).toEqual([])
})

describe('Gemini CLI recorded usage', () => {
  // test/fixtures/formats/usage-gemini-cli-tokens.json, messages in order: 0 g1 user, 1 g2
  // assistant (a list_directory call), 2 its tool result, 3 g3 assistant, 4 g5 user (the info
  // record g4 is a UI note), 5 g6 assistant (no tokens recorded).
  const t = load(
    readFileSync(
      new URL('../../../test/fixtures/formats/usage-gemini-cli-tokens.json', import.meta.url),
      'utf8',
    ),
  )

  it('reads each model message’s tokens: context = input, output = output + thoughts', () => {
    expect(t.messages.map((m) => m.id)).toEqual(['g1', 'g2', 'm2', 'g3', 'g5', 'g6'])
    expect(t.usage).toEqual([
      { atMessageId: 'g2', atIndex: 1, context: 8600, output: 40 + 120 },
      { atMessageId: 'g3', atIndex: 3, context: 8900, output: 25 },
    ])
  })
})
