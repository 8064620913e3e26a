import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { contentText } from '../content'
import { importInspectAIRoot, inspectAIImporter, resolveAttachments } from './inspect-ai'
import { runImporter } from './registry'

const sampleText = (name: string) =>
  readFileSync(new URL(`../../../public/samples/${name}`, import.meta.url), 'utf8')

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value)
    for (const key of Object.keys(value)) deepFreeze((value as Record<string, unknown>)[key])
  }
  return value
}

const log = (sample: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  version: 2,
  status: 'success',
  eval: { task: 'demo_task' },
  samples: [{ id: 1, epoch: 1, ...sample }],
  ...extra,
})

const sys = { id: 's', role: 'system', content: 'Be careful.' }
const user = { id: 'u', role: 'user', content: 'Fix it.', source: 'input' }

describe('importInspectAIRoot', () => {
  it('maps content lists, dict arguments, tool_call_id and function', () => {
    const t = importInspectAIRoot(
      deepFreeze(
        log({
          messages: [
            sys,
            user,
            {
              id: 'a',
              role: 'assistant',
              content: [
                { type: 'reasoning', reasoning: 'think', signature: 'sig', redacted: false },
                { type: 'text', text: 'Listing.' },
              ],
              tool_calls: [{ id: 'c1', function: 'bash', arguments: { cmd: 'ls' } }],
            },
            { id: 't', role: 'tool', content: 'a\nb', tool_call_id: 'c1', function: 'bash' },
          ],
        }),
      ),
    )
    expect(t.title).toBe('demo_task')
    expect(t.messages.map((m) => m.id)).toEqual(['s', 'u', 'a', 't'])
    expect(t.messages[2]?.content).toEqual([
      { type: 'thinking', variant: 'reasoning', text: 'think', signature: 'sig' },
      { type: 'text', text: 'Listing.' },
    ])
    expect(t.messages[2]?.toolCalls).toEqual([
      { id: 'c1', name: 'bash', arguments: '{"cmd":"ls"}' },
    ])
    expect(t.messages[3]).toMatchObject({ role: 'tool', toolCallId: 'c1', toolName: 'bash' })
    expect(t.warnings).toEqual([])
  })

  it('error (and the old tool_error) marks a tool result as an error', () => {
    const t = importInspectAIRoot(
      log({
        messages: [
          user,
          {
            role: 'assistant',
            content: '',
            tool_calls: [
              { id: 'c1', function: 'f', arguments: {} },
              { id: 'c2', function: 'f', arguments: {} },
            ],
          },
          {
            role: 'tool',
            content: '',
            tool_call_id: 'c1',
            error: { type: 'timeout', message: 'took too long' },
          },
          { role: 'tool', content: 'x', tool_call_id: 'c2', tool_error: 'permission denied' },
        ],
      }),
    )
    expect(t.messages.map((m) => m.isError)).toEqual([undefined, undefined, true, true])
    // Null ids become m<index>.
    expect(t.messages.map((m) => m.id)).toEqual(['u', 'm1', 'm2', 'm3'])
  })

  it('resolves attachment:// references through sample.attachments, in strings and parts', () => {
    const t = importInspectAIRoot(
      log({
        messages: [
          { id: 'u', role: 'user', content: 'attachment://aaa' },
          {
            id: 'a',
            role: 'assistant',
            content: [{ type: 'text', text: 'attachment://bbb' }],
            tool_calls: [{ id: 'c1', function: 'f', arguments: { code: 'attachment://ccc' } }],
          },
          { id: 't', role: 'tool', content: 'attachment://zzz', tool_call_id: 'c1' },
        ],
        attachments: { aaa: 'long prompt', bbb: 'long answer', ccc: 'print(1)' },
      }),
    )
    expect(t.messages[0]?.content).toBe('long prompt')
    expect(t.messages[1]?.content).toBe('long answer')
    expect(t.messages[1]?.toolCalls?.[0]?.arguments).toBe('{"code":"print(1)"}')
    expect(t.messages[2]?.content).toBe('attachment://zzz')
    expect(t.warnings).toEqual([
      '1 attachment:// reference(s) not found in samples[0].attachments, kept as is',
    ])
  })

  it('resolveAttachments copies, never mutates', () => {
    const value = deepFreeze({ a: ['attachment://h', 1, null], b: 'plain' })
    const missing = new Set<string>()
    expect(resolveAttachments(value, { h: 'text' }, missing)).toEqual({
      a: ['text', 1, null],
      b: 'plain',
    })
    expect(missing.size).toBe(0)
  })

  it('several samples: the first is imported and the warning says how many', () => {
    const root = log({ messages: [user] })
    const t = importInspectAIRoot({
      ...root,
      samples: [...root.samples, { id: 2, epoch: 1, messages: [sys] }, { id: 3, messages: [] }],
    })
    expect(t.messages.map((m) => m.id)).toEqual(['u'])
    expect(t.warnings).toEqual(['the log has 3 samples; imported the first (id 1, epoch 1)'])
  })

  it('places a compaction event after the last message an earlier event refers to', () => {
    const t = importInspectAIRoot(
      log({
        messages: [
          user,
          {
            id: 'a1',
            role: 'assistant',
            content: 'x',
            tool_calls: [{ id: 'c1', function: 'f', arguments: {} }],
          },
          { id: 't1', role: 'tool', content: 'r', tool_call_id: 'c1' },
          { id: 'a2', role: 'assistant', content: 'after' },
        ],
        events: [
          {
            event: 'model',
            input: [{ id: 'u' }],
            output: { choices: [{ message: { id: 'a1' } }] },
          },
          { event: 'tool', id: 'c1', message_id: 't1' },
          {
            event: 'compaction',
            type: 'summary',
            tokens_before: 9000,
            tokens_after: 1200,
            source: 'inspect',
          },
          {
            event: 'model',
            input: [{ id: 'u' }],
            output: { choices: [{ message: { id: 'a2' } }] },
          },
        ],
      }),
    )
    expect(t.recordedCompactions).toEqual([
      {
        atIndex: 3,
        atMessageId: 'a2',
        trigger: 'summary',
        tokensBefore: 9000,
        tokensAfter: 1200,
        summaryText: null,
        source: 'inspect-ai',
      },
    ])
  })

  it('the sample: no attachment reference is left; the compaction is before message 26', () => {
    const root = JSON.parse(sampleText('inspect-ai-eval.json')) as unknown
    const t = importInspectAIRoot(root)
    for (const m of t.messages) expect(contentText(m.content)).not.toContain('attachment://')
    // The last tool event before the compaction event returns message 25 (the second edit
    // result); the next model event produces message 26.
    expect(t.recordedCompactions[0]).toMatchObject({
      atIndex: 26,
      tokensBefore: 12506,
      tokensAfter: 3704,
      trigger: 'summary',
      summaryText: null,
    })
  })
})

describe('Inspect AI bad input', () => {
  it('a header-only log names samples', () => {
    const r = runImporter(inspectAIImporter, { version: 2, eval: {}, results: {} }, {})
    expect(r.ok).toBe(false)
    if (!r.ok) {
      expect(r.error.field).toBe('samples')
      expect(r.error.message).toMatch(/no samples/)
    }
  })

  it('messages that are not an array name the field', () => {
    const r = runImporter(inspectAIImporter, log({ messages: 'x' }), {})
    expect(r).toEqual({
      ok: false,
      error: { message: 'samples[0].messages is not an array', field: 'samples[0].messages' },
    })
  })

  it('detect names the first missing key', () => {
    expect(inspectAIImporter.detect({ version: '2', eval: {}, samples: [] })).toBe(
      'no numeric "version" at the top level',
    )
    expect(inspectAIImporter.detect({ version: 2, samples: [] })).toBe(
      'no "eval" object at the top level',
    )
    expect(inspectAIImporter.detect(log({ messages: [] }))).toBe(true)
  })

  it('messages with an unknown role are skipped with a warning naming them', () => {
    const t = importInspectAIRoot(log({ messages: [user, { role: 'critic', content: 'x' }] }))
    expect(t.messages).toHaveLength(1)
    expect(t.warnings).toEqual([
      'samples[0].messages[1].role: "critic" is not system/user/assistant/tool, skipped',
    ])
  })
})
