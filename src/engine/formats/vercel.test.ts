import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import type { Transcript } from '../model'
import { importTranscript } from './index'
import { vercelUiImporter } from './vercel-ui'
import { vercelModelImporter } from './vercel-model'
import { registryContractViolations } from './test-helpers'

function load(root: unknown, format: string): Transcript {
  const r = importTranscript(JSON.stringify(root))
  if (!r.ok) throw new Error(r.error.message)
  expect(r.transcript.format).toBe(format)
  return r.transcript
}

describe('Vercel UIMessage importer', () => {
  it('splits a multi-step assistant message so each step is followed by its own results', () => {
    const t = load(
      [
        {
          id: 'u1',
          role: 'user',
          parts: [
            { type: 'text', text: 'Where is A-1?' },
            { type: 'file', mediaType: 'image/png', url: 'data:image/png;base64,iVBORw0KGgo=' },
          ],
        },
        {
          id: 'a1',
          role: 'assistant',
          parts: [
            { type: 'step-start' },
            { type: 'reasoning', text: 'Need the order.', state: 'done' },
            { type: 'tool-lookup_order', toolCallId: 'c1', state: 'output-available', input: { id: 'A-1' }, output: { status: 'shipped' } },
            { type: 'tool-get-tracking', toolCallId: 'c2', state: 'output-error', input: { n: 'T' }, errorText: 'timeout' },
            { type: 'step-start' },
            { type: 'text', text: 'It shipped.', state: 'done' },
            { type: 'data-weather', data: {} },
          ],
        },
      ],
      'vercel-ui',
    )
    expect(t.messages.map((m) => [m.id, m.role])).toEqual([
      ['u1', 'user'],
      ['a1', 'assistant'],
      ['m2', 'tool'],
      ['m3', 'tool'],
      ['a1-step2', 'assistant'],
    ])
    expect(t.messages[0]?.content).toEqual([
      { type: 'text', text: 'Where is A-1?' },
      { type: 'image', url: 'data:image/png;base64,iVBORw0KGgo=', mediaType: 'image/png', bytes: 8 },
    ])
    expect(t.messages[1]?.content).toEqual([
      { type: 'thinking', variant: 'reasoning', text: 'Need the order.' },
    ])
    // Tool names may contain '-': everything after the 'tool-' prefix.
    expect(t.messages[1]?.toolCalls).toEqual([
      { id: 'c1', name: 'lookup_order', arguments: '{"id":"A-1"}' },
      { id: 'c2', name: 'get-tracking', arguments: '{"n":"T"}' },
    ])
    expect(t.messages[2]).toMatchObject({ toolCallId: 'c1', content: '{"status":"shipped"}' })
    expect(t.messages[3]).toMatchObject({ toolCallId: 'c2', content: 'timeout', isError: true })
    expect(t.messages[4]?.content).toBe('It shipped.')
    expect(t.warnings).toEqual(['1 source-*/data-* part(s) skipped: UI only, not sent to the model'])
  })

  it('leaves a call without output pending (no invented result)', () => {
    const t = load(
      [
        { id: 'u', role: 'user', parts: [{ type: 'text', text: 'go' }] },
        { id: 'a', role: 'assistant', parts: [{ type: 'tool-run', toolCallId: 'c', state: 'input-available', input: {} }] },
      ],
      'vercel-ui',
    )
    expect(t.messages.map((m) => m.role)).toEqual(['user', 'assistant'])
    expect(t.messages[1]?.toolCalls?.map((c) => c.id)).toEqual(['c'])
  })
})

describe('Vercel ModelMessage importer', () => {
  it('maps tool-call parts and batched tool-result parts with every output type', () => {
    const t = load(
      {
        messages: [
          { role: 'system', content: 'Be kind.' },
          { role: 'user', content: [{ type: 'text', text: 'q' }, { type: 'image', image: 'iVBORw0KGgo=', mediaType: 'image/png' }] },
          {
            role: 'assistant',
            content: [
              { type: 'text', text: 'Checking.' },
              { type: 'tool-call', toolCallId: 'a', toolName: 'f', input: { x: 1 } },
              { type: 'tool-call', toolCallId: 'b', toolName: 'g', input: {} },
              { type: 'tool-call', toolCallId: 'c', toolName: 'h', input: {} },
              { type: 'tool-call', toolCallId: 'd', toolName: 'i', input: {} },
            ],
          },
          {
            role: 'tool',
            content: [
              { type: 'tool-result', toolCallId: 'a', toolName: 'f', output: { type: 'text', value: 'plain' } },
              { type: 'tool-result', toolCallId: 'b', toolName: 'g', output: { type: 'json', value: { ok: true } } },
              { type: 'tool-result', toolCallId: 'c', toolName: 'h', output: { type: 'error-text', value: 'boom' } },
              { type: 'tool-result', toolCallId: 'd', toolName: 'i', output: { type: 'error-json', value: { code: 7 } } },
            ],
          },
        ],
      },
      'vercel-model',
    )
    expect(t.messages.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'tool', 'tool', 'tool', 'tool'])
    expect(t.messages[1]?.content).toEqual([
      { type: 'text', text: 'q' },
      { type: 'image', url: 'data:image/png;base64,iVBORw0KGgo=', mediaType: 'image/png', bytes: 8 },
    ])
    expect(t.messages[2]?.toolCalls?.[0]).toEqual({ id: 'a', name: 'f', arguments: '{"x":1}' })
    expect(t.messages.slice(3).map((m) => [m.toolCallId, m.content, m.isError ?? false])).toEqual([
      ['a', 'plain', false],
      ['b', '{"ok":true}', false],
      ['c', 'boom', true],
      ['d', '{"code":7}', true],
    ])
  })
})

it('meets the registry contract on a file of each container', () => {
  const read = (name: string) =>
    readFileSync(new URL(`../../../public/samples/${name}`, import.meta.url), 'utf8')
  expect(
    registryContractViolations(vercelUiImporter, read('vercel-ai-ui-messages.json')),
  ).toEqual([])
  expect(
    registryContractViolations(vercelModelImporter, read('vercel-ai-model-messages.json')),
  ).toEqual([])
})
