import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import type { Part, Transcript } from '../model'
import { importClaudeCode } from './claude-code'
import { importTranscript } from './index'

const SAMPLE = readFileSync(
  new URL('../../../public/samples/claude-code.jsonl', import.meta.url),
  'utf8',
)

function imported(text: string): Transcript {
  const r = importClaudeCode(text)
  if (!r.ok) throw new Error(r.error.message)
  return r.transcript
}

const base = {
  isSidechain: false,
  userType: 'external',
  cwd: '/w',
  sessionId: 'S',
  version: '2.0.76',
}
let counter = 0
function user(content: unknown, extra: Record<string, unknown> = {}): string {
  counter++
  return JSON.stringify({
    parentUuid: null,
    ...base,
    type: 'user',
    message: { role: 'user', content },
    uuid: `u${counter}`,
    ...extra,
  })
}
function assistant(messageId: string, block: unknown, extra: Record<string, unknown> = {}): string {
  counter++
  return JSON.stringify({
    parentUuid: null,
    ...base,
    type: 'assistant',
    message: {
      id: messageId,
      type: 'message',
      role: 'assistant',
      content: [block],
      usage: { output_tokens: 5 },
    },
    uuid: `a${counter}`,
    ...extra,
  })
}
const toolUse = (id: string, name: string, input: unknown = {}) => ({
  type: 'tool_use',
  id,
  name,
  input,
})
const toolResult = (id: string, content: unknown, extra: Record<string, unknown> = {}) => [
  { type: 'tool_result', tool_use_id: id, content, ...extra },
]

describe('importClaudeCode on the bundled sample', () => {
  // Counted by reading claude-code.jsonl (69 lines): a summary and a file-history-snapshot
  // head; 42 assistant lines sharing 17 message.ids; 19 tool_use blocks answered by 19
  // tool_result user records (3 with is_error); 8 user records with text: the task, a
  // reminder, the /compact caveat (isMeta) and echo, the isCompactSummary summary, the ANSI
  // local-command-stdout, "continue" and a CHANGELOG request; one manual compact_boundary
  // (preTokens 24376) on line 47.
  const t = imported(SAMPLE)

  it('has the exact counts and no warnings', () => {
    expect(t.format).toBe('claude-code')
    expect(t.messages).toHaveLength(44)
    const byRole: Record<string, number> = {}
    for (const m of t.messages) byRole[m.role] = (byRole[m.role] ?? 0) + 1
    expect(byRole).toEqual({ user: 8, assistant: 17, tool: 19 })
    expect(t.messages.flatMap((m) => m.toolCalls ?? [])).toHaveLength(19)
    expect(t.messages.filter((m) => m.isError).map((m) => m.index)).toEqual([7, 17, 21])
    expect(t.title).toBe('Fix zone 8 quote rounding (ORD-58213, postal code 94107)')
    expect(t.warnings).toEqual([])
    t.messages.forEach((m, i) => expect(m.index).toBe(i))
  })

  it('merges the four lines of the first response into one assistant message', () => {
    const m = t.messages[1]
    expect(m?.id).toBe('c6acc255-ee74-457a-9096-937cdc0a3483')
    expect(m?.source.line).toBe(4)
    expect((m?.content as Part[]).map((p) => p.type)).toEqual(['thinking', 'text'])
    expect(m?.toolCalls).toHaveLength(2)
    expect(Array.isArray(m?.source.raw) && m.source.raw.length).toBe(4)
    // Both results of the parallel calls follow, named after their calls.
    expect(t.messages[2]).toMatchObject({
      role: 'tool',
      toolCallId: m?.toolCalls?.[0]?.id,
      toolName: m?.toolCalls?.[0]?.name,
    })
    expect(t.messages[3]).toMatchObject({
      role: 'tool',
      toolCallId: m?.toolCalls?.[1]?.id,
      toolName: m?.toolCalls?.[1]?.name,
    })
  })

  it('keeps thinking signatures byte-identical', () => {
    const line4 = JSON.parse(SAMPLE.split('\n')[3] as string)
    const block = line4.message.content[0]
    expect((t.messages[1]?.content as Part[])[0]).toEqual({
      type: 'thinking',
      variant: 'thinking',
      text: block.thinking,
      signature: block.signature,
    })
  })

  it('marks the /compact caveat, echo and stdout, and records the compaction', () => {
    expect(t.messages[26]?.flags).toEqual({ injected: true, command: true })
    expect(t.messages[27]?.flags).toEqual({ command: true })
    expect(t.messages[28]?.flags).toEqual({ compactSummary: true })
    expect(t.messages[29]?.flags).toEqual({ command: true })
    expect(t.messages[30]).toMatchObject({ content: 'continue' })
    expect(t.messages[30]?.flags).toBeUndefined()
    expect(t.recordedCompactions).toHaveLength(1)
    const c = t.recordedCompactions[0]
    expect(c).toMatchObject({
      atIndex: 28,
      atMessageId: 'ba88d541-f539-419a-b313-1425721c476a',
      summaryMessageId: 'ba88d541-f539-419a-b313-1425721c476a',
      trigger: 'manual',
      tokensBefore: 24376,
      source: 'claude-code',
    })
    expect(c?.summaryText).toBe(t.messages[28]?.content)
    expect(
      c?.summaryText?.startsWith('This session is being continued from a previous conversation'),
    ).toBe(true)
    // Records before the boundary stay.
    expect(t.messages[0]?.id).toBe('12280a12-0f62-45c3-8e24-9f65c1da97e5')
  })
})

describe('importClaudeCode pitfalls', () => {
  it('merges blocks by message.id in file order, even across interleaved tool results', () => {
    const text = [
      user('go'),
      assistant('msg_1', { type: 'text', text: 'Checking.' }),
      assistant('msg_1', toolUse('t1', 'Bash', { command: 'ls' })),
      user(toolResult('t1', 'a\nb')),
      assistant('msg_1', toolUse('t2', 'Read', { file_path: 'x' })),
      user(toolResult('t2', 'content')),
      assistant('msg_2', { type: 'text', text: 'Done.' }),
    ].join('\n')
    const tr = imported(text)
    expect(tr.messages.map((m) => m.role)).toEqual([
      'user',
      'assistant',
      'tool',
      'tool',
      'assistant',
    ])
    expect(tr.messages[1]?.content).toBe('Checking.')
    expect(tr.messages[1]?.toolCalls).toEqual([
      { id: 't1', name: 'Bash', arguments: '{"command":"ls"}' },
      { id: 't2', name: 'Read', arguments: '{"file_path":"x"}' },
    ])
    expect(tr.messages[3]).toMatchObject({ toolCallId: 't2', toolName: 'Read' })
  })

  it('turns tool_result array content, is_error and images into tool message fields', () => {
    const text = [
      user('go'),
      assistant('m1', toolUse('t1', 'Shot')),
      assistant('m1', toolUse('t2', 'Bash')),
      user(
        toolResult('t1', [
          { type: 'text', text: 'line 1' },
          { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'AAAAAA==' } },
        ]),
      ),
      user(
        toolResult(
          't2',
          [
            { type: 'text', text: 'Exit code 1' },
            { type: 'text', text: 'boom' },
          ],
          { is_error: true },
        ),
      ),
    ].join('\n')
    const tr = imported(text)
    expect(tr.messages[2]?.content).toEqual([
      { type: 'text', text: 'line 1' },
      { type: 'image', url: 'data:image/png;base64,AAAAAA==', mediaType: 'image/png', bytes: 4 },
    ])
    expect(tr.messages[3]).toMatchObject({
      content: 'Exit code 1\nboom',
      isError: true,
      toolName: 'Bash',
    })
  })

  it('gives several tool results of one record unique ids', () => {
    const text = [
      user('go'),
      assistant('m1', toolUse('t1', 'A')),
      assistant('m1', toolUse('t2', 'B')),
      user(
        [...toolResult('t1', 'x'), ...toolResult('t2', 'y'), { type: 'text', text: 'and more' }],
        { uuid: 'R' },
      ),
    ].join('\n')
    const tr = imported(text)
    expect(tr.messages.map((m) => m.id).slice(2)).toEqual(['R', 'R-2', 'R-3'])
    expect(tr.messages.map((m) => m.role).slice(2)).toEqual(['tool', 'tool', 'user'])
  })

  it('skips malformed lines with a warning naming the line, and a half-written last line', () => {
    const text = [
      user('one'),
      '{"type": "user", oops',
      '[1, 2]',
      user('two'),
      '{"parentUuid":null,"type":"assi',
    ].join('\n')
    const tr = imported(text)
    expect(tr.messages.map((m) => m.content)).toEqual(['one', 'two'])
    expect(tr.warnings).toHaveLength(3)
    expect(tr.warnings[0]).toMatch(/^line 2: invalid JSON \(.+\), skipped$/)
    expect(tr.warnings[1]).toBe('line 3: not a JSON object, skipped')
    expect(tr.warnings[2]).toMatch(/^line 5: half-written last line \(.+\), skipped$/)
  })

  it('accepts a BOM, CRLF line ends, raw U+2028 and lone surrogate escapes', () => {
    const lone = user('cut emoji \\ud83d here').replace('\\\\ud83d', '\\ud83d')
    const text = '\ufeff' + [user('first\u2028line'), lone, user('last')].join('\r\n') + '\r\n'
    const r = importTranscript(text)
    expect(r.ok).toBe(true)
    if (!r.ok) return
    expect(r.transcript.format).toBe('claude-code')
    expect(r.transcript.messages.map((m) => m.content)).toEqual([
      'first\u2028line',
      'cut emoji \ud83d here',
      'last',
    ])
    expect(r.transcript.messages.map((m) => m.source.line)).toEqual([1, 2, 3])
    expect(r.transcript.warnings).toEqual([])
  })

  it('turns an auto compact_boundary + isCompactSummary into a RecordedCompaction, keeping earlier records', () => {
    const text = [
      user('old work', { uuid: 'u-old' }),
      assistant('m1', { type: 'text', text: 'did it' }, { uuid: 'a-old' }),
      JSON.stringify({
        parentUuid: null,
        logicalParentUuid: 'a-old',
        ...base,
        type: 'system',
        subtype: 'compact_boundary',
        content: 'Conversation compacted',
        uuid: 'b1',
        compactMetadata: { trigger: 'auto', preTokens: 155012, postTokens: 9001 },
      }),
      JSON.stringify({ type: 'file-history-snapshot', messageId: 'x', snapshot: {} }),
      user('This session is being continued… Summary: old work done.', {
        uuid: 'sum',
        isCompactSummary: true,
        isVisibleInTranscriptOnly: true,
      }),
      user('next'),
    ].join('\n')
    const tr = imported(text)
    expect(tr.messages.map((m) => m.id).slice(0, 3)).toEqual(['u-old', 'a-old', 'sum'])
    expect(tr.recordedCompactions).toEqual([
      {
        atIndex: 2,
        atMessageId: 'sum',
        summaryMessageId: 'sum',
        trigger: 'auto',
        tokensBefore: 155012,
        tokensAfter: 9001,
        summaryText: 'This session is being continued… Summary: old work done.',
        source: 'claude-code',
      },
    ])
    expect(tr.messages[2]).toMatchObject({ role: 'user', flags: { compactSummary: true } })
  })

  it('records a boundary without a summary with summaryText null, at the next message', () => {
    const text = [
      user('a'),
      JSON.stringify({
        parentUuid: null,
        ...base,
        type: 'system',
        subtype: 'compact_boundary',
        uuid: 'b',
        compactMetadata: { trigger: 'auto', preTokens: 10 },
      }),
      user('b', { uuid: 'next' }),
    ].join('\n')
    const tr = imported(text)
    expect(tr.recordedCompactions).toEqual([
      {
        atIndex: 1,
        atMessageId: 'next',
        summaryText: null,
        trigger: 'auto',
        tokensBefore: 10,
        source: 'claude-code',
      },
    ])
    expect(tr.warnings).toEqual([
      'line 2: compact_boundary not followed by a compact summary record',
    ])
  })

  it('excludes sidechains and duplicate records, counting them in warnings; other records are no messages', () => {
    const dup = user('hello', { uuid: 'same' })
    const text = [
      JSON.stringify({ type: 'summary', summary: 'Other title', leafUuid: 'elsewhere' }),
      JSON.stringify({ type: 'summary', summary: 'My title', leafUuid: 'same' }),
      dup,
      dup,
      user('subagent prompt', { isSidechain: true }),
      assistant('ms', { type: 'text', text: 'subagent' }, { isSidechain: true }),
      JSON.stringify({
        parentUuid: null,
        ...base,
        type: 'system',
        subtype: 'turn_duration',
        durationMs: 5,
        uuid: 'td',
      }),
      JSON.stringify({ type: 'queue-operation', operation: 'enqueue' }),
    ].join('\n')
    const tr = imported(text)
    expect(tr.messages).toHaveLength(1)
    expect(tr.title).toBe('My title')
    expect(tr.warnings).toEqual([
      '2 sidechain record(s) (isSidechain: true, subagent work) not imported',
      '1 duplicate record(s) (same uuid as an earlier line) skipped',
    ])
  })

  it('marks isMeta, system reminders, interrupts and API error records', () => {
    const text = [
      user('real question'),
      user('<system-reminder>todo list is empty</system-reminder>'),
      user('Caveat', { isMeta: true }),
      user([{ type: 'text', text: '[Request interrupted by user]' }]),
      assistant('m', { type: 'text', text: 'API Error: 529' }, { isApiErrorMessage: true }),
    ].join('\n')
    const tr = imported(text)
    expect(tr.messages.map((m) => m.flags ?? null)).toEqual([
      null,
      { injected: true },
      { injected: true },
      { injected: true },
      { apiError: true },
    ])
  })

  it('fails with a clear message when no line is usable or no record is a message', () => {
    const bad = importClaudeCode('nope\n{also bad\n')
    expect(bad.ok).toBe(false)
    if (!bad.ok)
      expect(bad.error.message).toMatch(/^none of the 2 lines could be read \(line 1: invalid JSON/)
    const none = importClaudeCode(
      JSON.stringify({ type: 'summary', summary: 't', leafUuid: 'x' }) + '\n',
    )
    expect(none).toEqual({
      ok: false,
      error: { message: "no messages found in the file's user/assistant records (1 records read)" },
    })
  })
})
