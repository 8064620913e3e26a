import { readFileSync } from 'node:fs'
import { beforeEach, describe, expect, it } from 'vitest'
import { contentText } from '../content'
import type { Part, Transcript } from '../model'
import { importClaudeCode, importClaudeCodeStream } from './claude-code'
import { createJsonlParser } from './jsonl-stream'
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
    expect(tr.warnings).toEqual([
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
      'line 2: logicalParentUuid gone is not in this file; joined to the record before it in file order',
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
      'line 3: parentUuid lost is not in this file (a skipped or missing record); joined to the record before it in file order',
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
    expect(tr.warnings[1]).toMatch(/^line 3: parentUuid a\d+ is not in this file/)
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
