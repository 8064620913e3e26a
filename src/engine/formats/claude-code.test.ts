import { readFileSync } from 'node:fs'
import { beforeEach, describe, expect, it } from 'vitest'
import { checkValidity } from '../analysis/checks'
import { goalMessage, latestRequest } from '../facts/classify'
import { contentText } from '../content'
import { exportTranscript } from '../export'
import type { Part, Transcript } from '../model'
import { importClaudeCode, importClaudeCodeStream } from './claude-code'
import { createJsonlParser } from './jsonl-stream'
import { importTranscript } from './index'
import { claudeCodeImporter, claudeCodeWebImporter } from './claude-code'
import { registryContractViolations } from './test-helpers'

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
/** The last uuid written per chain (main / sidechain): each helper record hangs from it. */
const last: { main: string | null; side: string | null } = { main: null, side: null }
beforeEach(() => {
  last.main = null
  last.side = null
})
/** A record chained to the previous one (`parentUuid`), unless `extra` says otherwise. */
function record(type: string, body: Record<string, unknown>, extra: Record<string, unknown>) {
  const chain = extra.isSidechain === true ? 'side' : 'main'
  const r: Record<string, unknown> = { parentUuid: last[chain], ...base, type, ...body, ...extra }
  last[chain] = r.uuid as string
  return JSON.stringify(r)
}
function user(content: unknown, extra: Record<string, unknown> = {}): string {
  counter++
  return record('user', { message: { role: 'user', content }, uuid: `u${counter}` }, extra)
}
function assistant(messageId: string, block: unknown, extra: Record<string, unknown> = {}): string {
  counter++
  const message = {
    id: messageId,
    type: 'message',
    role: 'assistant',
    content: [block],
    usage: { output_tokens: 5 },
  }
  return record('assistant', { message, uuid: `a${counter}` }, extra)
}
/** A system record (compact_boundary, turn_duration …), chained like the others. */
function system(body: Record<string, unknown>, extra: Record<string, unknown> = {}): string {
  counter++
  return record('system', { uuid: `s${counter}`, ...body }, extra)
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
    const first = user('first\u2028line')
    const lone = user('cut emoji \\ud83d here').replace('\\\\ud83d', '\\ud83d')
    const text = '\ufeff' + [first, lone, user('last')].join('\r\n') + '\r\n'
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
      system(
        {
          subtype: 'compact_boundary',
          content: 'Conversation compacted',
          compactMetadata: { trigger: 'auto', preTokens: 155012, postTokens: 9001 },
        },
        { parentUuid: null, logicalParentUuid: 'a-old', uuid: 'b1' },
      ),
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
      user('a', { uuid: 'ua' }),
      system(
        { subtype: 'compact_boundary', compactMetadata: { trigger: 'auto', preTokens: 10 } },
        { parentUuid: null, logicalParentUuid: 'ua', uuid: 'b' },
      ),
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

  it('skips duplicate records, counting them in warnings; other records are no messages', () => {
    const dup = user('hello', { uuid: 'same' })
    const text = [
      JSON.stringify({ type: 'summary', summary: 'Other title', leafUuid: 'elsewhere' }),
      JSON.stringify({ type: 'summary', summary: 'My title', leafUuid: 'same' }),
      dup,
      dup,
      system({ subtype: 'turn_duration', durationMs: 5 }),
      JSON.stringify({ type: 'queue-operation', operation: 'enqueue' }),
    ].join('\n')
    const tr = imported(text)
    expect(tr.messages).toHaveLength(1)
    expect(tr.title).toBe('My title')
    expect(tr.warnings).toEqual(['1 duplicate record(s) (same uuid as an earlier line) skipped'])
  })

  it('marks isMeta, system reminders and interrupts as injected', () => {
    const text = [
      user('real question'),
      user('<system-reminder>todo list is empty</system-reminder>'),
      user('Caveat', { isMeta: true }),
      user([{ type: 'text', text: '[Request interrupted by user]' }]),
    ].join('\n')
    const tr = imported(text)
    expect(tr.messages.map((m) => m.flags ?? null)).toEqual([
      null,
      { injected: true },
      { injected: true },
      { injected: true },
    ])
  })

  it('leaves isApiErrorMessage records out of the messages and exports, with a note', () => {
    // A prompt, Claude Code's synthetic "API Error: 529" record (model <synthetic>, never model
    // output), the human's retry and the real answer: 2 user + 1 assistant messages remain.
    const synthetic = { model: '<synthetic>', stop_reason: 'stop_sequence' }
    const text = jsonl([
      say('u1', null, 'Summarize the README.'),
      rec('assistant', 'e1', 'u1', {
        message: {
          id: 'f0e1d2c3-0000-4000-8000-000000000001',
          type: 'message',
          role: 'assistant',
          content: [{ type: 'text', text: 'API Error: 529 {"type":"overloaded_error"}' }],
          ...synthetic,
        },
        isApiErrorMessage: true,
        error: 'unknown',
      }),
      say('u2', 'e1', 'try again'),
      part('a1', 'u2', 'msg_1', { type: 'text', text: 'The README explains the build.' }),
    ])
    const tr = imported(text)
    expect(tr.messages.map((m) => [m.role, m.id])).toEqual([
      ['user', 'u1'],
      ['user', 'u2'],
      ['assistant', 'a1'],
    ])
    expect(tr.warnings).toEqual([])
    expect(tr.notes).toEqual([
      '1 API error notice(s) Claude Code wrote in place of a response ' +
        '(isApiErrorMessage: true; not model output, never sent to the model) are left out of the messages',
    ])
    const body = exportTranscript(tr, 'anthropic').body as { messages: { role: string }[] }
    expect(JSON.stringify(body)).not.toContain('API Error')
    expect(body.messages.filter((m) => m.role === 'assistant')).toHaveLength(1)
  })

  it('treats records of any type that carry no message as metadata, warning only about others', () => {
    // Real 2.1.98 metadata (permission-mode, last-prompt) and a made-up future type without a
    // message are silent; an unknown type that carries a message is warned about, once.
    const text = [
      '{"type":"permission-mode","permissionMode":"default","sessionId":"s1"}',
      '{"parentUuid":null,"isSidechain":false,"type":"user","message":{"role":"user","content":"hi"},"uuid":"u1","timestamp":"2026-04-02T10:00:00.000Z","userType":"external","cwd":"/w","sessionId":"s1","version":"2.1.98"}',
      '{"parentUuid":"u1","isSidechain":false,"message":{"model":"claude-opus-4-6","id":"msg_1","type":"message","role":"assistant","content":[{"type":"text","text":"hello"}],"stop_reason":"end_turn"},"type":"assistant","uuid":"a1","timestamp":"2026-04-02T10:00:01.000Z","userType":"external","cwd":"/w","sessionId":"s1","version":"2.1.98"}',
      '{"type":"last-prompt","lastPrompt":"hi","sessionId":"s1"}',
      '{"type":"worktree-state","worktree":{"path":"/w"},"sessionId":"s1"}',
    ].join('\n')
    const tr = imported(text)
    expect(counts(tr).byRole).toEqual({ user: 1, assistant: 1 })
    expect(tr.warnings).toEqual([])
    const withContent = imported(
      text +
        '\n{"type":"assistant-draft","message":{"role":"assistant","content":"x"},"uuid":"d1","parentUuid":"a1","sessionId":"s1"}',
    )
    expect(withContent.warnings).toEqual(['records of unknown type ignored: "assistant-draft" ×1'])
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

describe('importClaudeCode as a graph', () => {
  const text = (t: string) => ({ type: 'text', text: t })

  it('keeps the main line through the last leaf and lists edits and retries as branches', () => {
    const lines = [
      user('start', { uuid: 'u1' }),
      assistant('m1', text('hi'), { uuid: 'a1' }),
      user('first try', { uuid: 'u2' }),
      assistant('m2', text('answer 1'), { uuid: 'a2' }),
      // The human edits u2: a new user record hanging from a1 again.
      user('edited try', { uuid: 'u3', parentUuid: 'a1' }),
      assistant('m3', text('answer 2, first attempt'), { uuid: 'a3x' }),
      // A retry of the answer: a second child of u3.
      assistant('m4', text('answer 2'), { uuid: 'a3', parentUuid: 'u3' }),
    ]
    const tr = imported(lines.join('\n'))
    expect(tr.messages.map((m) => m.id)).toEqual(['u1', 'a1', 'u3', 'a3'])
    expect(tr.messages.map((m) => m.content)).toEqual(['start', 'hi', 'edited try', 'answer 2'])
    expect(tr.branches).toEqual([
      { id: 'u2', fromMessageId: 'a1', messageCount: 2, firstText: 'first try' },
      { id: 'a3x', fromMessageId: 'u3', messageCount: 1, firstText: 'answer 2, first attempt' },
    ])
    expect(tr.warnings).toEqual([
      '2 branch(es) (edits or retries) are not on the main line; 3 message(s) there are listed as branches',
    ])
  })

  it('splices a compaction root to its logicalParentUuid, even when a fork came in between', () => {
    const lines = [
      user('old work', { uuid: 'u-old' }),
      assistant('m1', text('did it'), { uuid: 'a-old' }),
      // A retried answer written after a-old: the boundary still hangs from a-old.
      assistant('m2', text('did it again'), { uuid: 'a-retry', parentUuid: 'u-old' }),
      system(
        { subtype: 'compact_boundary', compactMetadata: { trigger: 'auto', preTokens: 900 } },
        { parentUuid: null, logicalParentUuid: 'a-old', uuid: 'b1' },
      ),
      user('This session is being continued from a previous conversation…', {
        uuid: 'sum',
        isCompactSummary: true,
      }),
      user('next', { uuid: 'n' }),
    ]
    const tr = imported(lines.join('\n'))
    expect(tr.messages.map((m) => m.id)).toEqual(['u-old', 'a-old', 'sum', 'n'])
    expect(tr.recordedCompactions).toHaveLength(1)
    expect(tr.recordedCompactions[0]).toMatchObject({ atIndex: 2, summaryMessageId: 'sum' })
    expect(tr.branches).toEqual([
      { id: 'a-retry', fromMessageId: 'u-old', messageCount: 1, firstText: 'did it again' },
    ])
  })

  it('joins a compaction whose logical parent is in another file to the record before it', () => {
    const lines = [
      user('before', { uuid: 'x1' }),
      system({ subtype: 'compact_boundary' }, { parentUuid: null, logicalParentUuid: 'gone' }),
      user('Summary…', { isCompactSummary: true }),
    ]
    const tr = imported(lines.join('\n'))
    expect(tr.messages.map((m) => m.content)).toEqual(['before', 'Summary…'])
    expect(tr.warnings).toEqual([
      'line 2: logicalParentUuid "gone" is not in this file; joined to the record before it in file order',
    ])
  })

  it('returns sidechains as their own transcripts, grouped by agentId or by sidechain root', () => {
    const lines = [
      user('main task', { uuid: 'm-u1' }),
      assistant('mm1', toolUse('task1', 'Task', { prompt: 'look' }), { uuid: 'm-a1' }),
      // Agent ab12, written inline between the call and its result (older Claude Code).
      user('Sub-task: look around', { isSidechain: true, agentId: 'ab12', parentUuid: null }),
      assistant('sa1', toolUse('s-t1', 'Bash'), { isSidechain: true, agentId: 'ab12' }),
      user(toolResult('s-t1', 'files'), { isSidechain: true, agentId: 'ab12' }),
      assistant('sa2', text('found it'), { isSidechain: true, agentId: 'ab12' }),
      user(toolResult('task1', 'found it'), { uuid: 'm-r1' }),
      // A sidechain without agentId: grouped by its root.
      user('Other sub-task', { isSidechain: true, parentUuid: null, uuid: 'side-root' }),
      assistant('sb1', text('done'), { isSidechain: true }),
      assistant('mm2', text('all done'), { uuid: 'm-a2', parentUuid: 'm-r1' }),
    ]
    const tr = imported(lines.join('\n'))
    expect(tr.messages.map((m) => m.id)).toEqual(['m-u1', 'm-a1', 'm-r1', 'm-a2'])
    expect(tr.sidechains).toHaveLength(2)
    const [agent, other] = tr.sidechains ?? []
    expect(agent?.title).toBe('Sub-agent ab12: Sub-task: look around')
    expect(agent?.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant'])
    expect(agent?.messages[2]).toMatchObject({ toolCallId: 's-t1', toolName: 'Bash' })
    expect(other?.title).toBe('Sub-agent: Other sub-task')
    expect(other?.messages.map((m) => m.content)).toEqual(['Other sub-task', 'done'])
    expect(tr.warnings).toEqual([
      '6 sidechain record(s) (isSidechain: true, sub-agent work) are in 2 separate sub-agent transcript(s), not in the main line',
    ])
  })

  it('imports a sub-agent file (only sidechain records) as the transcript', () => {
    const lines = [
      user('Sub-task', { isSidechain: true, agentId: 'z' }),
      assistant('s', text('ok'), { isSidechain: true, agentId: 'z' }),
    ]
    const tr = imported(lines.join('\n'))
    expect(tr.messages.map((m) => m.content)).toEqual(['Sub-task', 'ok'])
    expect(tr.sidechains).toBeUndefined()
    expect(tr.warnings).toEqual([
      'every record is a sidechain (a sub-agent file): imported as the transcript',
    ])
  })

  it('warns about an orphan (its parent line is missing) and keeps it, joined in file order', () => {
    const lines = [
      user('one', { uuid: 'o1' }),
      assistant('m1', text('two'), { uuid: 'o2' }),
      // o3's parent was on a line that never made it to disk.
      user('three', { uuid: 'o3', parentUuid: 'lost' }),
      assistant('m2', text('four'), { uuid: 'o4' }),
    ]
    const tr = imported(lines.join('\n'))
    expect(tr.messages.map((m) => m.content)).toEqual(['one', 'two', 'three', 'four'])
    expect(tr.warnings).toEqual([
      'line 3: parentUuid "lost" is not in this file (a skipped or missing record); joined to the record before it in file order',
    ])
  })

  it('keeps the chain across a bad line in the middle', () => {
    const good = [user('a'), assistant('m', text('b')), user('c'), assistant('n', text('d'))]
    const lines = [good[0], good[1], '{"broken', good[2], good[3]] as string[]
    // Drop the record the third one hangs from, as if its line had been cut.
    lines.splice(1, 1)
    const tr = imported(lines.join('\n'))
    expect(tr.messages.map((m) => m.content)).toEqual(['a', 'c', 'd'])
    expect(tr.warnings).toHaveLength(2)
    expect(tr.warnings[0]).toMatch(/^line 2: invalid JSON/)
    expect(tr.warnings[1]).toMatch(/^line 3: parentUuid "a\d+" is not in this file/)
  })

  it('reads a file whose records name no parent in file order, saying so', () => {
    const lines = [user('a', { parentUuid: null }), user('b', { parentUuid: null })]
    const tr = imported(lines.join('\n'))
    expect(tr.messages.map((m) => m.content)).toEqual(['a', 'b'])
    expect(tr.warnings).toEqual(['no record of 2 has a parentUuid: records joined in file order'])
  })

  it('gives the bundled sample the same 44 messages in file order, one recorded compaction, no forks', () => {
    const tr = imported(SAMPLE)
    expect(tr.messages).toHaveLength(44)
    // Each message's record line: the graph walk gives the file order back (the boundary's new
    // root is spliced to the record before the /compact echo).
    const lines = tr.messages.map((m) => m.source.line ?? 0)
    expect(lines).toEqual([...lines].sort((a, b) => a - b))
    expect(lines[0]).toBe(3)
    expect(lines[lines.length - 1]).toBe(69)
    expect(tr.recordedCompactions).toHaveLength(1)
    expect(tr.branches).toBeUndefined()
    expect(tr.sidechains).toBeUndefined()
    expect(tr.warnings).toEqual([])
  })
})

describe('importClaudeCodeStream', () => {
  it('gives the same transcript from chunks pushed as bytes as importClaudeCode from the text', () => {
    const bytes = new TextEncoder().encode(SAMPLE)
    const parser = createJsonlParser()
    for (let i = 0; i < bytes.length; i += 1000) parser.push(bytes.subarray(i, i + 1000))
    const r = importClaudeCodeStream(parser.end())
    expect(r).toEqual(importClaudeCode(SAMPLE))
  })

  it('keeps the skipped lines as warnings and fails when no line is readable', () => {
    const parser = createJsonlParser()
    parser.push(`${user('one')}\n{"broken\n${assistant('m', { type: 'text', text: 'two' })}`)
    const r = importClaudeCodeStream(parser.end())
    expect(r.ok && r.transcript.messages.map((m) => m.content)).toEqual(['one', 'two'])
    expect(r.ok && r.transcript.warnings[0]).toMatch(/^line 2: invalid JSON/)
    const none = createJsonlParser()
    none.push('nope\n')
    expect(importClaudeCodeStream(none.end())).toMatchObject({ ok: false, error: { line: 1 } })
  })
})

describe('importClaudeCode with a pasted screenshot of megabytes', () => {
  it('keeps the base64 as an image part (a data URL, its size in bytes), never as text', () => {
    const data = 'QUJD'.repeat(750_000) // 3 MB of base64 for 2.25 MB of image bytes
    const text = [
      user([
        { type: 'text', text: 'what is wrong here?' },
        { type: 'image', source: { type: 'base64', media_type: 'image/png', data } },
      ]),
      assistant('m', { type: 'text', text: 'The total is off.' }),
    ].join('\n')
    const parser = createJsonlParser()
    for (let i = 0; i < text.length; i += 65536) parser.push(text.slice(i, i + 65536))
    const r = importClaudeCodeStream(parser.end())
    if (!r.ok) throw new Error(r.error.message)
    const content = r.transcript.messages[0]?.content as Part[]
    expect(content.map((p) => p.type)).toEqual(['text', 'image'])
    expect(content[1]).toMatchObject({ mediaType: 'image/png', bytes: 2_250_000 })
    expect((content[1] as { url: string }).url).toBe(`data:image/png;base64,${data}`)
    expect(contentText(content)).toBe('what is wrong here?')
  })
})

// ---------------------------------------------------------------------------
// Claude Code 2.1: one record per tool_use block, results hanging off their own call's record
// ---------------------------------------------------------------------------

const fixture = (name: string) =>
  readFileSync(new URL(`../../../test/fixtures/formats/${name}`, import.meta.url), 'utf8')

/** Messages per role, tool calls and tool results of a transcript. */
function counts(t: Transcript) {
  const byRole: Record<string, number> = {}
  for (const m of t.messages) byRole[m.role] = (byRole[m.role] ?? 0) + 1
  return {
    byRole,
    toolCalls: t.messages.flatMap((m) => m.toolCalls ?? []).length,
    toolResults: t.messages.filter((m) => m.role === 'tool').length,
    branches: t.branches?.length ?? 0,
  }
}

/** Validity problems of the imported messages, with the shared rules and Anthropic's own. */
const problems = (t: Transcript) => [
  ...checkValidity(t.messages),
  ...checkValidity(t.messages, { provider: 'anthropic' }),
]

/** A Claude Code 2.1 record with explicit uuid and parent (the shape of formats.md §4.4). */
function rec(
  type: string,
  uuid: string,
  parentUuid: string | null,
  body: Record<string, unknown>,
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    parentUuid,
    isSidechain: false,
    userType: 'external',
    cwd: '/w',
    sessionId: 'S',
    version: '2.1.19',
    type,
    uuid,
    ...body,
    ...extra,
  }
}
const say = (
  uuid: string,
  parent: string | null,
  content: unknown,
  extra: Record<string, unknown> = {},
) => rec('user', uuid, parent, { message: { role: 'user', content } }, extra)
const part = (
  uuid: string,
  parent: string | null,
  id: string,
  block: unknown,
  extra: Record<string, unknown> = {},
) =>
  rec(
    'assistant',
    uuid,
    parent,
    {
      message: {
        id,
        type: 'message',
        role: 'assistant',
        content: [block],
        usage: { output_tokens: 9 },
      },
      requestId: `req_${id}`,
    },
    extra,
  )
const answer = (uuid: string, parent: string | null, callId: string, text: string) =>
  say(uuid, parent, [{ type: 'tool_result', tool_use_id: callId, content: text }])
const progress = (uuid: string, parent: string | null, toolUseID: string) =>
  rec('progress', uuid, parent, {
    data: { type: 'hook_progress', hookEvent: 'PostToolUse' },
    toolUseID,
    parentToolUseID: toolUseID,
  })
const jsonl = (records: readonly Record<string, unknown>[]) =>
  records.map((r) => JSON.stringify(r)).join('\n') + '\n'

/** A deterministic pseudo-random generator (LCG) for the shape variants below. */
function lcg(seed: number) {
  let s = seed >>> 0
  return (n: number) => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0
    return s % n
  }
}

describe('importClaudeCode on Claude Code 2.1 parallel tool calls', () => {
  it('keeps sibling calls and their results on the main line (the shape of 2.1)', () => {
    // The records of the shape described in formats.md §4.4 for 2.1: a2 hangs off a1, each
    // result off its own call's record, the next turn off the result that came last.
    const text = jsonl([
      say('u1', null, 'run two agents'),
      part('a1', 'u1', 'msg_A', toolUse('t1', 'Agent', { p: 'one' })),
      part('a2', 'a1', 'msg_A', toolUse('t2', 'Agent', { p: 'two' })),
      answer('r2', 'a2', 't2', 'two done'),
      answer('r1', 'a1', 't1', 'one done'),
      part('a3', 'r1', 'msg_B', { type: 'text', text: 'Both agents returned.' }),
    ])
    const tr = imported(text)
    expect(tr.messages.map((m) => m.id)).toEqual(['u1', 'a1', 'r2', 'r1', 'a3'])
    expect(tr.messages[1]?.toolCalls?.map((c) => c.id)).toEqual(['t1', 't2'])
    expect(counts(tr)).toEqual({
      byRole: { user: 1, assistant: 2, tool: 2 },
      toolCalls: 2,
      toolResults: 2,
      branches: 0,
    })
    expect(problems(tr)).toEqual([])
    expect(tr.warnings).toEqual([])
  })

  it('imports the 2.1 fixture with parallel calls, progress, thinking and out-of-order results', () => {
    // Read from claude-code-2.1-parallel-tools.jsonl (29 lines): two prompts; six responses
    // (msg_…A1 thinking + text + Read + Grep; B2 text + Bash + Read + Grep; C3 Edit; D4 text;
    // E5 Bash + Bash; F6 text) = 8 tool_use blocks, each answered by its own result record
    // (results of A1, B2 and E5 written out of call order; the Bash result of B2 hangs off a
    // bash_progress record, is_error); 2 progress, 2 turn_duration, 2 file-history-snapshot.
    const tr = imported(fixture('claude-code-2.1-parallel-tools.jsonl'))
    expect(counts(tr)).toEqual({
      byRole: { user: 2, assistant: 6, tool: 8 },
      toolCalls: 8,
      toolResults: 8,
      branches: 0,
    })
    expect(tr.messages.map((m) => m.role).join(' ')).toBe(
      'user assistant tool tool assistant tool tool tool assistant tool assistant user assistant tool tool assistant',
    )
    const first = tr.messages[1]
    expect((first?.content as Part[]).map((p) => p.type)).toEqual(['thinking', 'text'])
    expect(first?.toolCalls?.map((c) => c.name)).toEqual(['Read', 'Grep'])
    expect(tr.messages[4]?.toolCalls?.map((c) => c.name)).toEqual(['Bash', 'Read', 'Grep'])
    expect(tr.messages.filter((m) => m.isError).map((m) => m.toolCallId)).toEqual([
      'toolu_03BashTest',
    ])
    expect(tr.model).toBe('claude-sonnet-4-5-20250929')
    expect(problems(tr)).toEqual([])
    expect(tr.warnings).toEqual([])
  })

  it('still lists a real edit as a branch in the 2.1 fixture, and nothing else', () => {
    // claude-code-2.1-edit-retry.jsonl: the second prompt is sent, answered (Edit + text), then
    // re-sent edited from the same turn_duration record. Main line: the first prompt, its
    // response with two parallel calls (results out of order), an Edit response (tool_use
    // record first, text after) and its result, "Done.", the edited prompt, an Edit response
    // and its result, the last text: 2 user, 5 assistant, 4 calls, 4 results. The first version
    // (prompt, text + Edit response, its result, text) is the branch.
    const tr = imported(fixture('claude-code-2.1-edit-retry.jsonl'))
    expect(counts(tr)).toEqual({
      byRole: { user: 2, assistant: 5, tool: 4 },
      toolCalls: 4,
      toolResults: 4,
      branches: 1,
    })
    expect(tr.messages.filter((m) => m.role === 'user').map((m) => m.content)).toEqual([
      'Add a --dry-run flag to scripts/deploy.sh.',
      'Now make it print the rsync command and exit without copying when DRY_RUN is set.',
    ])
    expect(tr.branches).toEqual([
      {
        id: '5a000000-0000-4000-8000-000000000002',
        fromMessageId: '6b000000-0000-4000-8000-0000000000a6',
        messageCount: 4,
        firstText: 'Now make it print the rsync command.',
      },
    ])
    expect(problems(tr)).toEqual([])
    expect(tr.warnings).toEqual([
      '1 branch(es) (edits or retries) are not on the main line; 4 message(s) there are listed as branches',
    ])
  })

  it('opens the session with the most messages and lists the other as a further conversation', () => {
    // claude-code-two-sessions.jsonl: session c1d2… (2 prompts, 4 responses, 3 results: 9
    // messages), then a short session d5e6… written after it (a prompt and an answer).
    const tr = imported(fixture('claude-code-two-sessions.jsonl'))
    expect(counts(tr)).toEqual({
      byRole: { user: 2, assistant: 4, tool: 3 },
      toolCalls: 3,
      toolResults: 3,
      branches: 0,
    })
    expect(tr.messages[0]?.content).toBe('Why does the RSS feed list posts in the wrong order?')
    expect(problems(tr)).toEqual([])
    expect(tr.warnings).toEqual([])
    expect(tr.notes).toEqual([
      '1 other session(s) in this file (sessionId "d5e6f7a8-0000-4bbb-8bbb-00000000bbbb": 2 message(s)) ' +
        'are listed as further conversations; the open one is session ' +
        '"c1d2e3f4-0000-4aaa-8aaa-00000000aaaa", the one with the most messages',
    ])
    expect(tr.sidechains).toHaveLength(1)
    const other = tr.sidechains?.[0] as Transcript
    expect(other.title).toBe(
      'Session d5e6f7a8-0000-4bbb-8bbb-00000000bbbb: Which Node version does this repo use?',
    )
    expect(counts(other)).toEqual({
      byRole: { user: 1, assistant: 1 },
      toolCalls: 0,
      toolResults: 0,
      branches: 0,
    })
    expect(other.messages.map((m) => contentText(m.content))).toEqual([
      'Which Node version does this repo use?',
      'Node 22, per the engines field in package.json.',
    ])
    expect(other.warnings).toEqual([])
    expect(problems(other)).toEqual([])
  })

  it('lists every other session, each with its own edits as branches', () => {
    // Session A (3 messages) is opened; B (a prompt, an answer, then the prompt re-sent edited
    // and answered: 2 messages on its line, a 2-message branch) and C (1 prompt, 1 answer).
    const text = jsonl([
      say('a1', null, 'A first', { sessionId: 'A' }),
      part('a2', 'a1', 'mA1', { type: 'text', text: 'A answer' }, { sessionId: 'A' }),
      say('a3', 'a2', 'A second', { sessionId: 'A' }),
      say('b1', null, 'B first', { sessionId: 'B' }),
      part('b2', 'b1', 'mB1', { type: 'text', text: 'B answer' }, { sessionId: 'B' }),
      say('b3', null, 'B first, edited', { sessionId: 'B' }),
      part('b4', 'b3', 'mB2', { type: 'text', text: 'B answer 2' }, { sessionId: 'B' }),
      say('c1', null, 'C only', { sessionId: 'C' }),
      part('c2', 'c1', 'mC1', { type: 'text', text: 'C answer' }, { sessionId: 'C' }),
    ])
    const tr = imported(text)
    expect(tr.messages.map((m) => m.id)).toEqual(['a1', 'a2', 'a3'])
    expect(tr.warnings).toEqual([])
    expect(tr.sidechains?.map((s) => [s.title, s.messages.map((m) => m.id)])).toEqual([
      ['Session B: B first, edited', ['b3', 'b4']],
      ['Session C: C only', ['c1', 'c2']],
    ])
    expect(tr.sidechains?.[0]?.branches).toEqual([
      { id: 'b1', fromMessageId: null, messageCount: 2, firstText: 'B first' },
    ])
    expect(tr.notes).toEqual([
      '2 other session(s) in this file (sessionId "B": 2 message(s), "C": 2 message(s)) ' +
        'are listed as further conversations; the open one is session "A", the one with the most messages',
    ])
  })

  it('keeps one line across sessionIds when a resumed session continues the old one', () => {
    const text = jsonl([
      say('u1', null, 'first', { sessionId: 'OLD' }),
      part('a1', 'u1', 'm1', { type: 'text', text: 'one' }, { sessionId: 'OLD' }),
      say('u2', 'a1', 'again', { sessionId: 'NEW' }),
      part('a2', 'u2', 'm2', { type: 'text', text: 'two' }, { sessionId: 'NEW' }),
    ])
    const tr = imported(text)
    expect(tr.messages.map((m) => m.id)).toEqual(['u1', 'a1', 'u2', 'a2'])
    expect(tr.warnings).toEqual([])
  })

  it('imports a Claude Code web session export ({"loglines": […]}) as Claude Code', () => {
    // claude-code-web-loglines.json: one prompt; a response with text + Grep + Glob (results
    // out of order: items 4 and 5 answer items 3 and 2), a response with text + Edit and its
    // result, a last text: 7 messages; `source.line` is the 1-based item.
    const text = fixture('claude-code-web-loglines.json')
    const r = importTranscript(text, { fileName: 'claude-code-web-loglines.json' })
    if (!r.ok) throw new Error(r.error.message)
    const tr = r.transcript
    expect(tr.format).toBe('claude-code')
    expect(counts(tr)).toEqual({
      byRole: { user: 1, assistant: 3, tool: 3 },
      toolCalls: 3,
      toolResults: 3,
      branches: 0,
    })
    expect(tr.messages.map((m) => m.source.line)).toEqual([1, 2, 5, 6, 7, 9, 10])
    expect(problems(tr)).toEqual([])
    expect(tr.warnings).toEqual([])
    // The same records as JSONL give the same messages.
    const records = (JSON.parse(text) as { loglines: unknown[] }).loglines
    const asJsonl = imported(records.map((x) => JSON.stringify(x)).join('\n'))
    expect(asJsonl.messages).toEqual(tr.messages)
  })

  it('names loglines items in warnings and errors of a web export', () => {
    const lines = [say('u1', null, 'hi'), 7, part('a1', 'gone', 'm1', { type: 'text', text: 'yo' })]
    const r = importTranscript(JSON.stringify({ loglines: lines }))
    if (!r.ok) throw new Error(r.error.message)
    expect(r.transcript.messages.map((m) => m.content)).toEqual(['hi', 'yo'])
    expect(r.transcript.warnings).toEqual([
      'loglines[1]: not a JSON object, skipped',
      'loglines[2]: parentUuid "gone" is not in this file (a skipped or missing record); joined to the record before it in file order',
    ])
    expect(importTranscript('{"loglines": []}')).toMatchObject({
      ok: false,
      error: { message: 'the "loglines" array is empty', field: 'loglines' },
    })
  })

  it('gives the same transcript streamed as from the text, for every 2.1 fixture', () => {
    for (const name of [
      'claude-code-2.1-parallel-tools.jsonl',
      'claude-code-2.1-edit-retry.jsonl',
      'claude-code-two-sessions.jsonl',
    ]) {
      const text = fixture(name)
      const bytes = new TextEncoder().encode(text)
      const parser = createJsonlParser()
      for (let i = 0; i < bytes.length; i += 333) parser.push(bytes.subarray(i, i + 333))
      expect(importClaudeCodeStream(parser.end())).toEqual(importClaudeCode(text))
    }
  })
})

describe('importClaudeCode on every shape of parallel calls (kinds)', () => {
  /**
   * One prompt, one response of `n` parallel calls (optionally after a thinking and a text
   * record), each call its own record hanging off the one before; results in a random order,
   * each hanging off a random call record of the response (or a progress record under it); the
   * next turn off a random result (or a progress record under it). Expected by construction: 1
   * user, 2 assistant messages, `n` calls and `n` results, no branch, valid.
   */
  function parallelShape(n: number, seed: number, lead: boolean) {
    const pick = lcg(seed)
    const records: Record<string, unknown>[] = [say('u1', null, 'go')]
    const callRecords: string[] = []
    let prev = 'u1'
    if (lead) {
      records.push(
        part('th', prev, 'msg_A', { type: 'thinking', thinking: 'plan', signature: 'sig' }),
      )
      records.push(part('tx', 'th', 'msg_A', { type: 'text', text: 'Running them all.' }))
      prev = 'tx'
    }
    for (let i = 1; i <= n; i++) {
      records.push(part(`a${i}`, prev, 'msg_A', toolUse(`t${i}`, 'Bash', { i })))
      callRecords.push(`a${i}`)
      prev = `a${i}`
      // Progress records interleaved between the call records.
      if (pick(3) === 0) records.push(progress(`p${i}`, `a${i}`, `t${i}`))
    }
    const order = Array.from({ length: n }, (_, i) => i + 1)
    for (let i = order.length - 1; i > 0; i--) {
      const j = pick(i + 1)
      ;[order[i], order[j]] = [order[j] as number, order[i] as number]
    }
    const resultRecords: string[] = []
    for (const i of order) {
      let parent = callRecords[pick(callRecords.length)] as string
      if (pick(4) === 0) {
        records.push(progress(`q${i}`, parent, `t${i}`))
        parent = `q${i}`
      }
      records.push(answer(`r${i}`, parent, `t${i}`, `out ${i}`))
      resultRecords.push(`r${i}`)
    }
    let from = resultRecords[pick(resultRecords.length)] as string
    if (pick(2) === 0) {
      records.push(progress('pn', from, 'none'))
      from = 'pn'
    }
    records.push(part('b1', from, 'msg_B', { type: 'text', text: 'All done.' }))
    return records
  }

  const expectOneResponse = (tr: Transcript, n: number) => {
    expect(counts(tr)).toEqual({
      byRole: { user: 1, assistant: 2, tool: n },
      toolCalls: n,
      toolResults: n,
      branches: 0,
    })
    expect(tr.messages[1]?.toolCalls?.map((c) => c.id)).toEqual(
      Array.from({ length: n }, (_, i) => `t${i + 1}`),
    )
    expect(tr.messages[tr.messages.length - 1]?.content).toBe('All done.')
    expect(problems(tr)).toEqual([])
    expect(tr.warnings).toEqual([])
  }

  for (const n of [2, 3, 5, 10]) {
    for (const seed of [1, 2, 3, 4, 5, 6]) {
      it(`${n} calls, seed ${seed}: results anywhere under the response stay with it`, () => {
        const records = parallelShape(n, seed * 7919 + n, seed % 2 === 0)
        expectOneResponse(imported(jsonl(records)), n)
      })
    }
  }

  it('keeps a result written after the next turn started with its call', () => {
    const text = jsonl([
      say('u1', null, 'go'),
      part('a1', 'u1', 'msg_A', toolUse('t1', 'Bash')),
      part('a2', 'a1', 'msg_A', toolUse('t2', 'Bash')),
      part('a3', 'a2', 'msg_A', toolUse('t3', 'Bash')),
      answer('r2', 'a2', 't2', 'two'),
      answer('r3', 'a3', 't3', 'three'),
      part('b1', 'r3', 'msg_B', { type: 'text', text: 'All done.' }),
      // The first call's result comes last, hanging off its call.
      answer('r1', 'a1', 't1', 'one'),
    ])
    const tr = imported(text)
    expect(tr.messages.map((m) => m.id)).toEqual(['u1', 'a1', 'r2', 'r3', 'r1', 'b1'])
    expectOneResponse(tr, 3)
  })

  it('keeps all results of a record answering several calls at once (older shape)', () => {
    const text = jsonl([
      say('u1', null, 'go'),
      part('a1', 'u1', 'msg_A', toolUse('t1', 'Bash')),
      part('a2', 'a1', 'msg_A', toolUse('t2', 'Bash')),
      say('r', 'a2', [
        { type: 'tool_result', tool_use_id: 't2', content: 'two' },
        { type: 'tool_result', tool_use_id: 't1', content: 'one' },
      ]),
      part('b1', 'r', 'msg_B', { type: 'text', text: 'All done.' }),
    ])
    const tr = imported(text)
    // The two results of record r share its uuid: the later one is renamed (one warning).
    expect(tr.warnings).toEqual([
      '1 message id(s) occurred twice; later copies got a -2, -3 … suffix',
    ])
    expectOneResponse({ ...tr, warnings: [] }, 2)
  })

  it('records a compact_boundary right after parallel calls, whichever record it names', () => {
    for (const logical of ['r1', 'a2']) {
      const text = jsonl([
        say('u1', null, 'go'),
        part('a1', 'u1', 'msg_A', toolUse('t1', 'Bash')),
        part('a2', 'a1', 'msg_A', toolUse('t2', 'Bash')),
        answer('r2', 'a2', 't2', 'two'),
        answer('r1', 'a1', 't1', 'one'),
        rec(
          'system',
          'b',
          null,
          {
            subtype: 'compact_boundary',
            content: 'Conversation compacted',
            compactMetadata: { trigger: 'auto', preTokens: 170000 },
          },
          { logicalParentUuid: logical },
        ),
        say('sum', 'b', 'This session is being continued from a previous conversation…', {
          isCompactSummary: true,
          isVisibleInTranscriptOnly: true,
        }),
        say('u2', 'sum', 'continue'),
      ])
      const tr = imported(text)
      expect(tr.messages.map((m) => m.id)).toEqual(['u1', 'a1', 'r2', 'r1', 'sum', 'u2'])
      expect(tr.recordedCompactions).toHaveLength(1)
      expect(tr.recordedCompactions[0]).toMatchObject({ atIndex: 4, tokensBefore: 170000 })
      expect(problems(tr)).toEqual([])
      expect(tr.warnings).toEqual([])
    }
  })

  it('keeps inline sub-agent records of parallel Agent calls in their own transcripts', () => {
    const side = { isSidechain: true }
    const text = jsonl([
      say('u1', null, 'two agents'),
      part('a1', 'u1', 'msg_A', toolUse('t1', 'Agent', { prompt: 'x' })),
      part('a2', 'a1', 'msg_A', toolUse('t2', 'Agent', { prompt: 'y' })),
      say('x1', null, 'Sub-task x', { ...side, agentId: 'ax' }),
      say('y1', null, 'Sub-task y', { ...side, agentId: 'ay' }),
      part('x2', 'x1', 'msg_X', { type: 'text', text: 'x found' }, { ...side, agentId: 'ax' }),
      part('y2', 'y1', 'msg_Y', { type: 'text', text: 'y found' }, { ...side, agentId: 'ay' }),
      answer('r2', 'a2', 't2', 'y found'),
      answer('r1', 'a1', 't1', 'x found'),
      part('b1', 'r1', 'msg_B', { type: 'text', text: 'All done.' }),
    ])
    const tr = imported(text)
    expect(counts(tr)).toEqual({
      byRole: { user: 1, assistant: 2, tool: 2 },
      toolCalls: 2,
      toolResults: 2,
      branches: 0,
    })
    expect(tr.sidechains?.map((s) => s.messages.length)).toEqual([2, 2])
    expect(problems(tr)).toEqual([])
  })

  it('lists a re-sent prompt and a regenerated response as branches, parallel calls or not', () => {
    const text = jsonl([
      say('u1', null, 'go'),
      part('a1', 'u1', 'msg_A', toolUse('t1', 'Bash')),
      part('a2', 'a1', 'msg_A', toolUse('t2', 'Bash')),
      answer('r2', 'a2', 't2', 'two'),
      answer('r1', 'a1', 't1', 'one'),
      part('b1', 'r1', 'msg_B', { type: 'text', text: 'Both ran.' }),
      // First version of the next prompt and its answer with parallel calls…
      say('u2', 'b1', 'now deploy'),
      part('c1', 'u2', 'msg_C', toolUse('t3', 'Bash')),
      part('c2', 'c1', 'msg_C', toolUse('t4', 'Bash')),
      answer('r4', 'c2', 't4', 'four'),
      answer('r3', 'c1', 't3', 'three'),
      part('d1', 'r3', 'msg_D', { type: 'text', text: 'Deployed.' }),
      // …then the prompt re-sent from the same point, and its answer regenerated once.
      say('u3', 'b1', 'now deploy to staging'),
      part('e1', 'u3', 'msg_E', { type: 'text', text: 'Deploying to staging (first try).' }),
      part('f1', 'u3', 'msg_F', { type: 'text', text: 'Deployed to staging.' }),
    ])
    const tr = imported(text)
    expect(tr.messages.map((m) => m.id)).toEqual(['u1', 'a1', 'r2', 'r1', 'b1', 'u3', 'f1'])
    expect(tr.branches).toEqual([
      { id: 'u2', fromMessageId: 'b1', messageCount: 5, firstText: 'now deploy' },
      {
        id: 'e1',
        fromMessageId: 'u3',
        messageCount: 1,
        firstText: 'Deploying to staging (first try).',
      },
    ])
    expect(tr.warnings).toEqual([
      '2 branch(es) (edits or retries) are not on the main line; 6 message(s) there are listed as branches',
    ])
    expect(problems(tr)).toEqual([])
  })

  it('skips a second result of an answered call off the main line, saying what it is', () => {
    const text = jsonl([
      say('u1', null, 'go'),
      part('a1', 'u1', 'msg_A', toolUse('t1', 'Bash')),
      part('a2', 'a1', 'msg_A', toolUse('t2', 'Bash')),
      answer('r2', 'a2', 't2', 'two'),
      answer('r1', 'a1', 't1', 'one'),
      answer('r1again', 'a1', 't1', 'one, written twice'),
      part('b1', 'r1', 'msg_B', { type: 'text', text: 'All done.' }),
    ])
    const tr = imported(text)
    expectOneResponse({ ...tr, warnings: [] }, 2)
    expect(tr.branches).toBeUndefined()
    expect(tr.warnings).toEqual([
      '1 tool result(s) off the main line answer no call waiting there (answered already, or made elsewhere): skipped',
    ])
  })

  it('keeps a resumed copy of the history apart from the original (same message.ids, new uuids)', () => {
    const history = (suffix: string, root: string | null) => [
      say(`u1${suffix}`, root, 'go', { sessionId: 'OLD' }),
      part(`a1${suffix}`, `u1${suffix}`, 'msg_A', toolUse('t1', 'Bash'), { sessionId: 'OLD' }),
      part(`a2${suffix}`, `a1${suffix}`, 'msg_A', toolUse('t2', 'Bash'), { sessionId: 'OLD' }),
      answer(`r2${suffix}`, `a2${suffix}`, 't2', 'two'),
      answer(`r1${suffix}`, `a1${suffix}`, 't1', 'one'),
      part(
        `b1${suffix}`,
        `r1${suffix}`,
        'msg_B',
        { type: 'text', text: 'All done.' },
        { sessionId: 'OLD' },
      ),
    ]
    const text = jsonl([
      ...history('', null),
      // The resumed session: the same records again under new uuids, then a new turn.
      ...history('-copy', null),
      say('u2', 'b1-copy', 'and now?', { sessionId: 'NEW' }),
      part('c1', 'u2', 'msg_C', { type: 'text', text: 'Nothing left.' }, { sessionId: 'NEW' }),
    ])
    const tr = imported(text)
    expect(tr.messages.map((m) => m.id)).toEqual([
      'u1-copy',
      'a1-copy',
      'r2-copy',
      'r1-copy',
      'b1-copy',
      'u2',
      'c1',
    ])
    expect(tr.messages[1]?.toolCalls?.map((c) => c.id)).toEqual(['t1', 't2'])
    expect(problems(tr)).toEqual([])
    // The original is a second root of the session the main line starts in.
    expect(tr.branches).toEqual([
      { id: 'u1', fromMessageId: null, messageCount: 5, firstText: 'go' },
    ])
  })

  it('ends the main line at the last message, not at a system record hanging off an earlier one', () => {
    const text = jsonl([
      say('u1', null, 'go'),
      part('a1', 'u1', 'msg_A', toolUse('t1', 'Bash')),
      part('a2', 'a1', 'msg_A', toolUse('t2', 'Bash')),
      answer('r2', 'a2', 't2', 'two'),
      answer('r1', 'a1', 't1', 'one'),
      part('b1', 'r1', 'msg_B', { type: 'text', text: 'All done.' }),
      rec('system', 's1', 'a1', { subtype: 'stop_hook_summary', level: 'info' }),
    ])
    expectOneResponse(imported(text), 2)
  })
})

it('meets the registry contract on a file of each container', () => {
  expect(registryContractViolations(claudeCodeImporter, SAMPLE)).toEqual([])
  expect(
    registryContractViolations(claudeCodeWebImporter, fixture('claude-code-web-loglines.json')),
  ).toEqual([])
})

describe('Claude Code recorded usage and version', () => {
  // test/fixtures/formats/usage-claude-code-parallel-synthetic-compact.jsonl, messages in order:
  // 0 u1 user, 1 a1 assistant (msg_01UsageA: a1 text, a2 tool_use, a3 tool_use), 2 u2 tool,
  // 3 u3 tool, 4 a4 assistant (msg_01UsageB), 5 u4 user, 6 s1 <synthetic>, 7 u5 summary,
  // 8 u6 user, 9 a5 assistant (msg_01UsageC), 10 u7 tool, 11 a6 assistant (msg_01UsageD).
  const tr = imported(fixture('usage-claude-code-parallel-synthetic-compact.jsonl'))

  it('places the messages the usage points at as the fixture orders them', () => {
    expect(tr.messages.map((m) => `${m.id}:${m.role}`)).toEqual([
      'u1:user',
      'a1:assistant',
      'u2:tool',
      'u3:tool',
      'a4:assistant',
      'u4:user',
      's1:assistant',
      'u5:user',
      'u6:user',
      'a5:assistant',
      'u7:tool',
      'a6:assistant',
    ])
    expect(tr.recordedCompactions.map((c) => c.atMessageId)).toEqual(['u5'])
  })

  it('gives one entry per message.id: parallel calls interleaved with results and an attachment are one response', () => {
    // msg_01UsageA: input 10 + cache creation 200 + cache read 3000 on every record (never
    // summed); output_tokens 5, 40, 80 → the max.
    expect(tr.usage?.[0]).toEqual({ atMessageId: 'a1', atIndex: 1, context: 3210, output: 80 })
  })

  it('skips the <synthetic> record and indexes the usage after the compaction by its own message', () => {
    expect(tr.usage).toEqual([
      { atMessageId: 'a1', atIndex: 1, context: 10 + 200 + 3000, output: 80 },
      { atMessageId: 'a4', atIndex: 4, context: 6 + 150 + 3210, output: 30 },
      { atMessageId: 'a5', atIndex: 9, context: 4 + 900 + 1100, output: 12 },
      { atMessageId: 'a6', atIndex: 11, context: 3 + 60 + 2000, output: 9 },
    ])
  })

  it('puts a sub-agent’s usage on its sidechain transcript, not on the main line', () => {
    const side = tr.sidechains?.find((s) => s.messages.some((m) => m.id === 'side2'))
    expect(side?.usage).toEqual([{ atMessageId: 'side2', atIndex: 1, context: 50, output: 7 }])
    expect(tr.usage?.some((u) => u.atMessageId === 'side2')).toBe(false)
  })

  it('reads the newest version on the main line (the session was resumed by a newer build)', () => {
    expect(tr.agentVersion).toBe('2.1.37')
  })

  it('records no usage when no record carries any', () => {
    const t = imported(
      [
        JSON.stringify({ ...base, type: 'user', uuid: 'x1', parentUuid: null, message: { role: 'user', content: 'hi' } }),
        JSON.stringify({
          ...base,
          type: 'assistant',
          uuid: 'x2',
          parentUuid: 'x1',
          message: { id: 'msg_x', role: 'assistant', model: 'claude-sonnet-4-5', content: [{ type: 'text', text: 'hello' }] },
        }),
      ].join('\n'),
    )
    expect(t.usage).toBeUndefined()
    expect(t.agentVersion).toBe('2.0.76')
  })
})

describe('Claude Code 1.0.x compactions, command notes, task notices, server tools, web exports', () => {
  const ids = (t: Transcript) => t.messages.map((m) => m.id)
  const uid = (p: string, n: number) => `${p}0000000-0000-4000-8000-${String(n).padStart(12, '0')}`

  it('reads each 1.0.x compact-summary root as a recorded compaction on one main line', () => {
    // 15 lines: a title, then three segments; the 2nd and 3rd start with a user record that has
    // parentUuid null and isCompactSummary true (no compact_boundary before 1.0.9x); an inline
    // sub-agent (isSidechain true, its own root) sits between a Task call and its result.
    const tr = imported(fixture('claude-code-1.0-compactions.jsonl'))
    expect(ids(tr)).toEqual([
      uid('u', 1), uid('a', 1), uid('u', 2), uid('a', 2),
      uid('c', 1), uid('u', 3), uid('a', 3), uid('u', 4), uid('a', 4),
      uid('c', 2), uid('u', 5), uid('a', 9),
    ])
    const sum1 = tr.messages[4]?.content as string
    const sum2 = tr.messages[9]?.content as string
    expect(sum1.startsWith('This session is being continued from a previous conversation')).toBe(true)
    expect(tr.recordedCompactions).toEqual([
      { atIndex: 4, atMessageId: uid('c', 1), summaryMessageId: uid('c', 1), summaryText: sum1, source: 'claude-code' },
      { atIndex: 9, atMessageId: uid('c', 2), summaryMessageId: uid('c', 2), summaryText: sum2, source: 'claude-code' },
    ])
    expect(tr.messages[4]?.flags).toEqual({ compactSummary: true })
    expect(tr.branches).toBeUndefined()
    expect(tr.sidechains?.map((s) => s.messages.length)).toEqual([2])
    expect(tr.title).toBe('Release script dry-run flag')
    expect(tr.agentVersion).toBe('1.0.81')
    expect(tr.warnings).toEqual([
      '2 sidechain record(s) (isSidechain: true, sub-agent work) are in 1 separate sub-agent transcript(s), not in the main line',
    ])
  })

  it('keeps slash-command leftovers as notes, never as branches (/exit + resume, raw /compact, !bash)', () => {
    const tr = imported(fixture('claude-code-2.1-commands.jsonl'))
    // Off the main line: the /exit echo + stdout (the resume hangs off the caveat) and the raw
    // "/compact keep the test count" record written before the boundary.
    expect(ids(tr)).toEqual([
      uid('e', 1), uid('f', 1), uid('e', 2), uid('f', 2), uid('e', 5), uid('f', 3),
      uid('e', 8), uid('e', 9), uid('e', 10), uid('e', 11), uid('e', 12), uid('f', 4),
      uid('e', 13), uid('e', 14), uid('e', 16), uid('f', 5),
    ])
    expect(tr.branches).toBeUndefined()
    expect(tr.warnings).toEqual([])
    expect(tr.notes).toEqual([
      '3 slash-command record(s) off the main line (command echoes, their output, a typed /command) ' +
        'are left out: notes of the terminal, not edits or retries',
    ])
    expect(tr.recordedCompactions).toHaveLength(1)
    expect(tr.recordedCompactions[0]).toMatchObject({ atIndex: 6, summaryMessageId: uid('e', 8), trigger: 'manual', tokensBefore: 18250 })
    expect(tr.messages.map((m) => m.flags ?? {})).toEqual([
      {}, {}, { injected: true, command: true }, {}, {}, {}, { compactSummary: true },
      { injected: true, command: true }, { command: true }, { command: true }, {}, {},
      { command: true }, { command: true }, {}, {},
    ])
    expect(goalMessage(tr.messages)?.id).toBe(uid('e', 1))
    expect(latestRequest(tr.messages)?.id).toBe(uid('e', 16))
  })

  it('takes background-task notices (origin task-notification) as notices, not the human', () => {
    const tr = imported(fixture('claude-code-2.1-task-notifications.jsonl'))
    expect(tr.messages.map((m) => m.role)).toEqual([
      'user', 'assistant', 'tool', 'assistant', 'user', 'assistant', 'user', 'assistant', 'user', 'assistant',
    ])
    expect(tr.messages[4]?.flags).toEqual({ injected: true })
    expect(tr.messages[8]?.flags).toEqual({ injected: true })
    // The current request when the notice is answered is still the human's first prompt.
    expect(latestRequest(tr.messages.slice(0, 6))?.id).toBe(uid('g', 1))
    expect(latestRequest(tr.messages)?.id).toBe(uid('g', 4))
    // A resumed session whose first user record is a notice: the goal is the human's prompt.
    const resumed = [
      user('<task-notification>\n<task-id>q1</task-id>\n<status>completed</status>\n<summary>Build finished</summary>\n</task-notification>', {
        uuid: 'n1',
        origin: { kind: 'task-notification' },
        promptSource: 'system',
      }),
      assistant('mr1', { type: 'text', text: 'The build finished.' }, { uuid: 'r1' }),
      user('Deploy it to staging.', { uuid: 'h1', origin: { kind: 'human' }, promptSource: 'typed' }),
    ].join('\n')
    const rt = imported(resumed)
    expect(goalMessage(rt.messages)?.id).toBe('h1')
    // Any prompt Claude Code sourced itself (promptSource "system") is no human prompt either.
    const sourced = imported(user('Background work finished.', { uuid: 's1', promptSource: 'system' }))
    expect(sourced.messages[0]?.flags).toEqual({ injected: true })
  })

  it('keeps every server tool call and its *_tool_result (advisor) as a call and a result', () => {
    const tr = imported(fixture('claude-code-2.1-advisor.jsonl'))
    expect(ids(tr)).toEqual([uid('i', 1), uid('j', 1), uid('j', 2), uid('j', 3), uid('i', 2), uid('j', 5), uid('j', 6), uid('j', 7)])
    expect(tr.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant', 'tool', 'assistant', 'tool', 'assistant'])
    const redacted = { type: 'advisor_redacted_result', encrypted_content: 'RW5jcnlwdGVkQWR2aWNlQmxvYjAx' }
    const advice = { type: 'advisor_result', text: 'The cap is right; also log the final failure.' }
    expect(tr.messages[1]?.toolCalls).toEqual([
      {
        id: 'srvtoolu_01AdvQ1',
        name: 'advisor',
        arguments: '{}',
        native: {
          kind: 'server_tool_use',
          hosted: true,
          raw: { type: 'server_tool_use', id: 'srvtoolu_01AdvQ1', name: 'advisor', input: {} },
          result: { type: 'advisor_tool_result', tool_use_id: 'srvtoolu_01AdvQ1', content: redacted },
        },
      },
    ])
    expect(tr.messages[2]).toMatchObject({ toolCallId: 'srvtoolu_01AdvQ1', toolName: 'advisor', content: [{ type: 'opaque', kind: 'advisor_redacted_result', raw: redacted }] })
    expect(tr.messages[3]?.content).toBe('Retries never stop on a 4xx; capping them at 3 and skipping 4xx.')
    expect(tr.messages[3]?.toolCalls?.map((c) => c.id)).toEqual(['toolu_01AdvEdit'])
    expect(tr.messages[6]).toMatchObject({ toolCallId: 'srvtoolu_01AdvQ2', toolName: 'advisor', content: [{ type: 'opaque', kind: 'advisor_result', raw: advice }] })
    expect(checkValidity(tr.messages, { provider: 'anthropic' })).toEqual([])
    // Usage of each response sits at its first message.
    expect(tr.usage?.map((u) => u.atIndex)).toEqual([1, 5])
    const body = exportTranscript(tr, 'anthropic').body as { messages: { role: string; content: unknown }[] }
    expect(body.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant'])
    expect(body.messages[1]?.content).toEqual([
      { type: 'server_tool_use', id: 'srvtoolu_01AdvQ1', name: 'advisor', input: {} },
      { type: 'advisor_tool_result', tool_use_id: 'srvtoolu_01AdvQ1', content: redacted },
      { type: 'text', text: 'Retries never stop on a 4xx; capping them at 3 and skipping 4xx.' },
      {
        type: 'tool_use',
        id: 'toolu_01AdvEdit',
        name: 'Edit',
        input: { file_path: '/home/dev/queue/src/worker.ts', old_string: 'while (true)', new_string: 'for (let i = 0; i < 3; i++)' },
      },
    ])
    expect(body.messages[3]?.content).toEqual([
      { type: 'server_tool_use', id: 'srvtoolu_01AdvQ2', name: 'advisor', input: {} },
      { type: 'advisor_tool_result', tool_use_id: 'srvtoolu_01AdvQ2', content: advice },
      { type: 'text', text: 'Done: retries stop after 3 attempts and 4xx responses are not retried.' },
    ])
  })

  it('imports a web export whose loglines carry no uuid/sessionId, warning about the summary record', () => {
    const r = importTranscript(fixture('claude-code-web-no-uuid.json'), { fileName: 'session.json' })
    if (!r.ok) throw new Error(r.error.message)
    const tr = r.transcript
    expect(tr.format).toBe('claude-code')
    expect(tr.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant', 'user', 'assistant'])
    expect(tr.messages.map((m) => m.source.line)).toEqual([1, 2, 3, 4, 6, 7])
    expect(tr.messages[2]).toMatchObject({ toolCallId: 'toolu_01WebPRs', toolName: 'Bash' })
    expect(tr.warnings).toEqual([
      'loglines[4]: summary record naming no leaf (no leafUuid): not a title; its text "Compressed release context." is in no message',
    ])
  })
})
