import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { checkValidity } from '../analysis/checks'
import type { Transcript } from '../model'
import { importTranscript } from './index'
import { openaiResponsesImporter } from './openai-responses'
import { registryContractViolations } from './test-helpers'

const read = (name: string) =>
  readFileSync(new URL(`../../../public/samples/${name}`, import.meta.url), 'utf8')

function load(root: unknown): Transcript {
  const r = importTranscript(JSON.stringify(root))
  if (!r.ok) throw new Error(r.error.message)
  expect(r.transcript.format).toBe('openai-responses')
  return r.transcript
}

describe('OpenAI Responses importer', () => {
  it('puts instructions first, reasoning + text + parallel calls in one assistant message, outputs on call_id', () => {
    const t = load({
      model: 'gpt-5',
      instructions: 'Be brief.',
      input: [
        { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Where is A-1?' }] },
        { type: 'reasoning', id: 'rs_1', summary: [{ type: 'summary_text', text: 'Look up' }], encrypted_content: 'gAAA' },
        { type: 'message', id: 'msg_1', role: 'assistant', content: [{ type: 'output_text', text: 'Checking.' }] },
        { type: 'function_call', id: 'fc_1', call_id: 'call_a', name: 'lookup', arguments: '{"id":"A-1"}' },
        { type: 'function_call', id: 'fc_2', call_id: 'call_b', name: 'track', arguments: '{' },
        { type: 'function_call_output', call_id: 'call_b', output: 'in transit' },
        { type: 'function_call_output', call_id: 'call_a', output: [{ type: 'input_text', text: 'shipped' }] },
        { role: 'user', content: 'Thanks!' },
      ],
    })
    expect(t.messages.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'tool', 'tool', 'user'])
    expect(t.messages[0]?.content).toBe('Be brief.')
    const a = t.messages[2]
    expect(a?.id).toBe('rs_1')
    expect(a?.content).toEqual([
      { type: 'thinking', variant: 'reasoning', text: 'Look up', encrypted: 'gAAA' },
      { type: 'text', text: 'Checking.' },
    ])
    // Pairing is on call_id, never on the fc_ item id; invalid JSON arguments are kept raw.
    expect(a?.toolCalls).toEqual([
      { id: 'call_a', name: 'lookup', arguments: '{"id":"A-1"}' },
      { id: 'call_b', name: 'track', arguments: '{' },
    ])
    expect(t.messages[3]).toMatchObject({ toolCallId: 'call_b', toolName: 'track', content: 'in transit' })
    expect(t.messages[4]).toMatchObject({ toolCallId: 'call_a', toolName: 'lookup', content: 'shipped' })
    expect(t.messages[5]?.content).toBe('Thanks!')
    expect(t.warnings).toEqual([])
  })

  it('starts a new assistant message when reasoning follows a call (the next model turn)', () => {
    const t = load({
      input: [
        { role: 'user', content: 'go' },
        { type: 'function_call', call_id: 'c1', name: 'f', arguments: '{}' },
        { type: 'reasoning', id: 'rs_2', summary: [], encrypted_content: 'x' },
        { type: 'function_call', call_id: 'c2', name: 'g', arguments: '{}' },
      ],
    })
    expect(t.messages.map((m) => m.toolCalls?.map((c) => c.id))).toEqual([undefined, ['c1'], ['c2']])
    expect(t.messages[2]?.content).toEqual([{ type: 'thinking', variant: 'reasoning', encrypted: 'x' }])
  })

  it('reads input_image as an image part sized from its base64, never as text', () => {
    // The 8-byte PNG signature.
    const png = 'iVBORw0KGgo='
    const t = load({
      input: [
        {
          role: 'user',
          content: [
            { type: 'input_text', text: 'see' },
            { type: 'input_image', image_url: `data:image/png;base64,${png}`, detail: 'low' },
          ],
        },
      ],
    })
    expect(t.messages[0]?.content).toEqual([
      { type: 'text', text: 'see' },
      { type: 'image', url: `data:image/png;base64,${png}`, mediaType: 'image/png', bytes: 8 },
    ])
  })

  it('reads a response object and a compact result; the compaction item is an opaque recorded compaction', () => {
    const t = load({ object: 'response', output: [{ type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Hi' }] }] })
    expect(t.messages.map((m) => [m.role, m.content])).toEqual([['assistant', 'Hi']])

    const r = importTranscript(read('openai-responses-compacted.json'))
    if (!r.ok) throw new Error(r.error.message)
    const c = r.transcript
    expect(c.messages.map((m) => m.role)).toEqual(['user', 'user', 'user', 'user', 'assistant'])
    const marker = c.messages[4]
    expect(marker?.flags).toEqual({ compactSummary: true })
    expect(Array.isArray(marker?.content) && marker.content[0]?.type).toBe('opaque')
    expect(c.recordedCompactions).toEqual([
      {
        atIndex: 4,
        atMessageId: marker?.id,
        summaryMessageId: marker?.id,
        summaryText: null,
        source: 'openai-responses',
      },
    ])
  })

  it('keeps the sample reasoning items encrypted and attached to the message carrying the next call', () => {
    const r = importTranscript(read('openai-responses.json'))
    if (!r.ok) throw new Error(r.error.message)
    const raw = JSON.parse(read('openai-responses.json')) as { input: { type?: string; id?: string; encrypted_content?: string }[] }
    const reasoning = raw.input.filter((i) => i.type === 'reasoning')
    const thinking = r.transcript.messages.flatMap((m) =>
      Array.isArray(m.content) ? m.content.filter((p) => p.type === 'thinking').map((p) => ({ m, p })) : [],
    )
    expect(thinking.map(({ p }) => p.type === 'thinking' && p.encrypted)).toEqual(
      reasoning.map((i) => i.encrypted_content),
    )
    // Each reasoning item of the sample precedes a function_call in the same turn.
    for (const { m } of thinking) expect(m.toolCalls?.length ?? 0).toBeGreaterThan(0)
  })

  it('warns about an output that answers no call and about server-side history', () => {
    const t = load({
      previous_response_id: 'resp_1',
      input: [{ type: 'function_call_output', call_id: 'zz', output: 'x' }],
    })
    expect(t.warnings).toEqual([
      'input[0]: function_call_output "zz" answers no earlier call',
      'previous_response_id/conversation: earlier history lives on the server; only this file is shown',
    ])
  })

  it('reports an empty request as an error, not an empty transcript', () => {
    const r = importTranscript('{"model": "gpt-5", "input": []}')
    expect(r).toEqual({ ok: false, error: { message: 'no items found in input/output', field: 'input' } })
  })
})

describe('one Responses API response object', () => {
  // test/fixtures/formats/openai-responses-response.json: `object:"response"` with the echoed
  // `instructions`, no `input`, output reasoning + message + one function_call, one tool.
  const text = readFileSync(
    new URL('../../../test/fixtures/formats/openai-responses-response.json', import.meta.url),
    'utf8',
  )

  it('imports instructions and the one output turn, and warns that the input is absent', () => {
    const t = load(JSON.parse(text))
    expect(t.messages.map((m) => m.role)).toEqual(['system', 'assistant'])
    expect(t.messages[1]?.toolCalls?.map((c) => [c.id, c.name])).toEqual([
      ['call_x1', 'lookup_order'],
    ])
    expect(t.tools?.map((x) => x.name)).toEqual(['lookup_order'])
    expect(checkValidity(t.messages)).toEqual([])
    expect(t.warnings).toEqual([
      "this is an API response, not a conversation: only the model's output is in it, " +
        "the request's input is not",
    ])
  })

  it('a compact result (the whole compacted context) gets no such warning', () => {
    expect(load(JSON.parse(read('openai-responses-compacted.json'))).warnings).toEqual([])
  })
})

describe('hosted items without id', () => {
  it('pair on a synthetic id from their position, without a warning', () => {
    const t = load({
      input: [
        { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Search twice.' }] },
        { type: 'web_search_call', status: 'completed', action: { type: 'search', query: 'a' } },
        { type: 'file_search_call', status: 'completed', queries: ['b'], results: [] },
        { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Done.' }] },
      ],
    })
    expect(t.warnings).toEqual([])
    expect(t.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant', 'tool', 'assistant'])
    const ids = t.messages.flatMap((m) => m.toolCalls ?? []).map((c) => c.id)
    expect(ids).toEqual(['web_search_call@input-1', 'file_search_call@input-2'])
    expect(t.messages.filter((m) => m.role === 'tool').map((m) => m.toolCallId)).toEqual(ids)
    expect(checkValidity(t.messages)).toEqual([])
  })
})

it('meets the registry contract on its bundled sample', () => {
  expect(
    registryContractViolations(openaiResponsesImporter, read('openai-responses.json')),
  ).toEqual([])
})
