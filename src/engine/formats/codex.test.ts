import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import type { Transcript } from '../model'
import { importTranscript } from './index'
import { unwrapCodexOutput } from './codex'
import { codexRolloutImporter } from './codex'
import { registryContractViolations } from './test-helpers'

const sample = readFileSync(
  new URL('../../../public/samples/codex-rollout.jsonl', import.meta.url),
  'utf8',
)

function load(text: string, fileName = 'rollout.jsonl'): Transcript {
  const r = importTranscript(text, { fileName })
  if (!r.ok) throw new Error(r.error.message)
  expect(r.transcript.format).toBe('codex-rollout')
  return r.transcript
}

const line = (type: string, payload: unknown) =>
  JSON.stringify({ timestamp: '2025-06-24T09:12:03.740Z', type, payload })
const meta = line('session_meta', { id: 'S', cwd: '/w', originator: 'codex_cli_rs' })
const user = (text: string) =>
  line('response_item', { type: 'message', role: 'user', content: [{ type: 'input_text', text }] })
const say = (text: string) =>
  line('response_item', {
    type: 'message',
    role: 'assistant',
    content: [{ type: 'output_text', text }],
  })

describe('Codex rollout importer', () => {
  it('imports the response_item view once: event duplicates are never extra messages', () => {
    const t = load(
      [
        meta,
        user('Fix it'),
        line('event_msg', { type: 'user_message', message: 'Fix it', images: [] }),
        line('event_msg', { type: 'agent_reasoning', text: 'think' }),
        line('response_item', { type: 'reasoning', summary: [{ type: 'summary_text', text: 'think' }], encrypted_content: 'E' }),
        line('event_msg', { type: 'agent_message', message: 'Looking.' }),
        say('Looking.'),
        line('response_item', { type: 'function_call', name: 'shell', arguments: '{"command":["ls"]}', call_id: 'c1' }),
        line('event_msg', { type: 'token_count', info: null }),
        line('response_item', { type: 'function_call_output', call_id: 'c1', output: '{"output":"src\\n","metadata":{"exit_code":0}}' }),
        line('turn_context', { cwd: '/w', model: 'gpt-5-codex' }),
      ].join('\n'),
    )
    expect(t.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool'])
    expect(t.messages[1]?.content).toEqual([
      { type: 'thinking', variant: 'reasoning', text: 'think', encrypted: 'E' },
      { type: 'text', text: 'Looking.' },
    ])
    // The JSON-in-string wrapper is unwrapped to the output text (exit code 0: no suffix).
    expect(t.messages[2]).toMatchObject({ toolCallId: 'c1', toolName: 'shell', content: 'src\n' })
    expect(t.model).toBe('gpt-5-codex')
    expect(t.warnings).toEqual([])
  })

  it('unwraps JSON-in-string tool outputs to their text, with a non-zero exit code after it', () => {
    expect(unwrapCodexOutput('{"output":"src\\n","metadata":{"exit_code":0,"duration_seconds":0.4}}')).toBe(
      'src\n',
    )
    expect(unwrapCodexOutput('{"output":"1 failed\\n","metadata":{"exit_code":1,"duration_seconds":0.3}}')).toBe(
      '1 failed\n[exit code 1]',
    )
    expect(unwrapCodexOutput('{"output":"no newline","metadata":{"exit_code":2}}')).toBe('no newline\n[exit code 2]')
    expect(unwrapCodexOutput('{"output":"Success."}')).toBe('Success.')
    // Anything else stays as it is: other JSON a tool printed, newer plain-text outputs, non-strings.
    expect(unwrapCodexOutput('{"output":"x","status":"ok"}')).toBeUndefined()
    expect(unwrapCodexOutput('{"output":42}')).toBeUndefined()
    expect(unwrapCodexOutput('{"output":"x","metadata":"m"}')).toBeUndefined()
    expect(unwrapCodexOutput('Exit code: 0\nWall time: 0.1 seconds\nOutput:\nsrc\n')).toBeUndefined()
    expect(unwrapCodexOutput('{"output": "cut')).toBeUndefined()
    expect(unwrapCodexOutput([{ type: 'input_text', text: 'x' }])).toBeUndefined()
  })

  it('gives the bundled rollout its output texts: repeated outputs become byte-identical', () => {
    const t = load(readFileSync('public/samples/codex-rollout.jsonl', 'utf8'))
    const tools = t.messages.filter((m) => m.role === 'tool')
    expect(tools.every((m) => typeof m.content === 'string' && !m.content.startsWith('{"output"'))).toBe(true)
    // The `ls -la` of the repo runs three times (0.41 s, 0.18 s, 0.4 s): one text now, no duration in it.
    const ls = tools.filter((m) => typeof m.content === 'string' && m.content.startsWith('total 96\n'))
    expect(ls).toHaveLength(3)
    expect(new Set(ls.map((m) => m.content)).size).toBe(1)
    // The first pytest run exits 1; its text ends with the summary line and the exit code.
    const pytest = tools.find((m) => typeof m.content === 'string' && m.content.includes('4 failed, 8 passed'))
    expect(typeof pytest?.content === 'string' && pytest.content.endsWith(
      '========================= 4 failed, 8 passed in 0.31s ==========================\n[exit code 1]',
    )).toBe(true)
  })

  it('marks injected instructions/environment messages and pairs apply_patch custom calls on call_id', () => {
    const t = load(
      [
        meta,
        user('<user_instructions>\n# AGENTS.md\n</user_instructions>'),
        user('<environment_context>\n  <cwd>/w</cwd>\n</environment_context>'),
        user('Patch it'),
        line('response_item', { type: 'custom_tool_call', status: 'completed', call_id: 'p1', name: 'apply_patch', input: '*** Begin Patch\n*** End Patch' }),
        line('response_item', { type: 'custom_tool_call_output', call_id: 'p1', output: 'Success.' }),
      ].join('\n'),
    )
    expect(t.messages.map((m) => m.flags?.injected ?? false)).toEqual([true, true, false, false, false])
    expect(t.messages[3]?.toolCalls).toEqual([
      { id: 'p1', name: 'apply_patch', arguments: '*** Begin Patch\n*** End Patch' },
    ])
    expect(t.messages[4]).toMatchObject({ role: 'tool', toolCallId: 'p1', content: 'Success.' })
  })

  it('records the sample compaction with its summary and replacement history', () => {
    const t = load(sample)
    const [c] = t.recordedCompactions
    expect(t.recordedCompactions).toHaveLength(1)
    if (!c) return
    expect(c.source).toBe('codex-rollout')
    expect(c.summaryText).toMatch(/^Goal: fix wrong shipping quotes for postal code 94107\./)
    // The boundary sits before the first message written after the compacted line.
    const at = t.messages[c.atIndex]
    expect(at?.id).toBe(c.atMessageId)
    expect(at?.content).toMatch(/^Continuing after the context summary/)
    const history = c.replacementHistory ?? []
    expect(history.map((m) => m.role)).toEqual(['user', 'user', 'user', 'user', 'user'])
    expect(history.map((m) => m.flags ?? {})).toEqual([
      { injected: true },
      { injected: true },
      {},
      {},
      { compactSummary: true },
    ])
    expect(history.map((m) => m.index)).toEqual([0, 1, 2, 3, 4])
    const ids = new Set(t.messages.map((m) => m.id))
    for (const m of history) expect(ids.has(m.id)).toBe(false)
    expect(history[4]?.content).toMatch(/^Another language model started to solve this problem/)
  })

  it('reads the legacy pre-envelope layout', () => {
    const t = load(
      [
        JSON.stringify({ id: 'S', timestamp: '2025-05-01T10:00:00Z', instructions: 'Be careful.' }),
        JSON.stringify({ record_type: 'state' }),
        JSON.stringify({ type: 'message', role: 'user', content: [{ type: 'input_text', text: 'hi' }] }),
        JSON.stringify({ type: 'function_call', name: 'shell', arguments: '{}', call_id: 'c' }),
        JSON.stringify({ type: 'function_call_output', call_id: 'c', output: 'ok' }),
        JSON.stringify({ record_type: 'state' }),
      ].join('\n'),
    )
    expect(t.messages.map((m) => [m.role, m.content])).toEqual([
      ['system', 'Be careful.'],
      ['user', 'hi'],
      ['assistant', null],
      ['tool', 'ok'],
    ])
  })

  it('falls back to event messages only when there are no message items', () => {
    const t = load(
      [
        meta,
        line('event_msg', { type: 'user_message', message: 'hello' }),
        line('event_msg', { type: 'agent_message', message: 'hi there' }),
      ].join('\n'),
    )
    expect(t.messages.map((m) => [m.role, m.content])).toEqual([
      ['user', 'hello'],
      ['assistant', 'hi there'],
    ])
    expect(t.warnings).toEqual([
      'no response_item messages: imported from event_msg records (no tool calls)',
    ])
  })

  describe('messy JSONL', () => {
    const lines = [meta, user('caf\u00e9 \u2028 line'), say('ok')]

    it('accepts a BOM and CRLF line ends', () => {
      const t = load(`\ufeff${lines.join('\r\n')}\r\n`)
      expect(t.messages.map((m) => m.content)).toEqual(['caf\u00e9 \u2028 line', 'ok'])
      expect(t.warnings).toEqual([])
    })

    it('keeps a raw U+2028 inside a string on its line', () => {
      // JSON.stringify leaves U+2028 raw; the line must not be split there.
      expect(lines[1]).toContain('\u2028')
      const t = load(lines.join('\n'))
      expect(t.messages[0]?.content).toBe('caf\u00e9 \u2028 line')
    })

    it('skips a half-written last line with a warning and keeps the rest', () => {
      const t = load(`${lines.join('\n')}\n${say('partial').slice(0, 40)}`)
      expect(t.messages.map((m) => m.content)).toEqual(['caf\u00e9 \u2028 line', 'ok'])
      expect(t.warnings).toHaveLength(1)
      expect(t.warnings[0]).toMatch(/^line 4: half-written last line \(.+\), skipped$/)
    })

    it('imports a lone surrogate escape without breaking the line', () => {
      const broken = say('emoji \\ud83d cut').replace('\\\\ud83d', '\\ud83d')
      const t = load([meta, user('q'), broken].join('\n'))
      expect(t.messages[1]?.content).toBe('emoji \ud83d cut')
      expect(t.warnings).toEqual([])
    })
  })
})

describe('hosted items without id and injected context', () => {
  // codex-rs skips serializing a WebSearchCall's id: every rollout web search has none.
  const search = (query: string) =>
    line('response_item', {
      type: 'web_search_call',
      status: 'completed',
      action: { type: 'search', query },
    })

  it('a web_search_call without id gets a stable id per position, no warning', () => {
    const text = [meta, user('find it'), search('express health endpoint'), search('koa health'), say('done')].join('\n')
    const t = load(text)
    expect(t.warnings).toEqual([])
    const calls = t.messages.flatMap((m) => m.toolCalls ?? [])
    expect(calls.map((c) => c.id)).toEqual(['web_search_call@line-3', 'web_search_call@line-4'])
    const results = t.messages.filter((m) => m.role === 'tool')
    expect(results.map((m) => m.toolCallId)).toEqual(['web_search_call@line-3', 'web_search_call@line-4'])
    expect(load(text).messages.flatMap((m) => m.toolCalls ?? []).map((c) => c.id)).toEqual(calls.map((c) => c.id))
  })

  it('flags every context wrapper Codex injects as a user message', () => {
    const injected = [
      '# AGENTS.md instructions for /w\n\n<INSTRUCTIONS>\nUse pnpm.\n</INSTRUCTIONS>',
      '# AGENTS.md instructions\n\n<INSTRUCTIONS>\nUse pnpm.\n</INSTRUCTIONS>',
      '<environment_context>\n  <cwd>/w</cwd>\n</environment_context>',
      '<skill>\n<name>tdd</name>\n</skill>',
      '<user_shell_command>\n<command>ls</command>\n</user_shell_command>',
      '<turn_aborted>\nThe user interrupted.\n</turn_aborted>',
      '<subagent_notification>{}</subagent_notification>',
      '<user_instructions>\nBe brief.\n</user_instructions>',
      '  <ENVIRONMENT_CONTEXT>x</ENVIRONMENT_CONTEXT>',
    ]
    const t = load([meta, ...injected.map(user), user('Add a health endpoint'), say('ok')].join('\n'))
    const users = t.messages.filter((m) => m.role === 'user')
    expect(users.filter((m) => m.flags?.injected).length).toBe(9)
    expect(users.filter((m) => !m.flags?.injected).map((m) => m.content)).toEqual(['Add a health endpoint'])
  })
})

it('meets the registry contract on its bundled sample', () => {
  expect(registryContractViolations(codexRolloutImporter, sample)).toEqual([])
})

describe('Codex rollout recorded usage and version', () => {
  // test/fixtures/formats/usage-codex-token-count.jsonl, messages in order: 0 environment
  // context, 1 user, 2 assistant (reasoning + shell call), 3 tool, 4 assistant (reasoning +
  // answer), 5 user, 6 assistant.
  const t = load(
    readFileSync(
      new URL('../../../test/fixtures/formats/usage-codex-token-count.jsonl', import.meta.url),
      'utf8',
    ),
  )

  it('reads last_token_usage per token_count: info null skipped, a repeat counted once, window read', () => {
    expect(t.messages.map((m) => m.role)).toEqual([
      'user',
      'user',
      'assistant',
      'tool',
      'assistant',
      'user',
      'assistant',
    ])
    expect(t.usage).toEqual([
      { atMessageId: 'm2', atIndex: 2, context: 5000, output: 120, window: 272000 },
      { atMessageId: 'm4', atIndex: 4, context: 5400, output: 90, window: 272000 },
      { atMessageId: 'm6', atIndex: 6, context: 5600, output: 50, window: 258400 },
    ])
  })

  it('reads the CLI version from session_meta', () => {
    expect(t.agentVersion).toBe('0.47.0')
  })

  it('places a response that left no message at the next message, and drops it when none follows', () => {
    const count = (input: number) =>
      line('event_msg', {
        type: 'token_count',
        info: {
          total_token_usage: { input_tokens: input, output_tokens: 0 },
          last_token_usage: { input_tokens: input, output_tokens: 0 },
          model_context_window: 1000,
        },
      })
    const r = load([meta, user('a'), count(7), user('b'), say('c'), count(9)].join('\n'))
    // The first count follows a user message: its response left nothing, the next message is 'b'.
    expect(r.usage).toEqual([
      { atMessageId: 'm1', atIndex: 1, context: 7, output: 0, window: 1000 },
      { atMessageId: 'm2', atIndex: 2, context: 9, output: 0, window: 1000 },
    ])
    const none = load([meta, user('a'), say('b'), user('c'), count(7)].join('\n'))
    expect(none.usage).toBeUndefined()
    expect(none.agentVersion).toBeUndefined()
  })
})

describe('Codex 0.147: world state, agents talking to each other', () => {
  const t = load(
    readFileSync(new URL('../../../test/fixtures/formats/codex-0.147-agents.jsonl', import.meta.url), 'utf8'),
  )

  it('reads the record types of today’s Codex without an unknown-type warning', () => {
    expect(t.warnings).toEqual([])
    expect(t.agentVersion).toBe('0.147.0')
    expect(t.model).toBe('gpt-5.5-codex')
  })

  it('a message from another agent is injected context, not the human', () => {
    expect(t.messages.map((m) => [m.role, m.content, m.flags])).toEqual([
      ['user', 'Make the dusk fade smoother.', undefined],
      ['assistant', 'I asked the reviewer agent to check the fade curve.', undefined],
      ['user', 'The curve is linear; an ease-out over 3 s looks smoother.', { injected: true }],
      ['assistant', 'Switched dusk to an ease-out over 3 seconds.', undefined],
    ])
  })
})

it('Codex: an older inter_agent_communication record is a message from another agent too', () => {
  const t = load(
    [
      meta,
      user('Check the fade.'),
      line('inter_agent_communication', {
        author: '/root/reviewer',
        recipient: '/root',
        content: 'Fade looks fine.',
        trigger_turn: true,
      }),
      say('Done.'),
    ].join('\n'),
  )
  expect(t.warnings).toEqual([])
  expect(t.messages.map((m) => [m.role, m.content, m.flags])).toEqual([
    ['user', 'Check the fade.', undefined],
    ['user', 'Fade looks fine.', { injected: true }],
    ['assistant', 'Done.', undefined],
  ])
  expect(t.messages[1]?.source.raw).toEqual({
    author: '/root/reviewer',
    recipient: '/root',
    content: 'Fade looks fine.',
    trigger_turn: true,
  })
})
