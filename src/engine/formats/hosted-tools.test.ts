import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { checkValidity } from '../analysis/checks'
import { exportTranscript } from '../export'
import type { Message, Transcript } from '../model'
import { DEFAULT_PIPELINE, providerOf, runPipeline } from '../pipeline'
import { placeholderFor } from '../stages/prune-tool-results'
import { countCodePoints } from '../stages/test-helpers'
import { cacheCounter } from '../tokens/count'
import { importTranscript } from './index'

type Json = Record<string, unknown>

const fixture = (name: string) =>
  readFileSync(new URL(`../../../test/fixtures/formats/${name}`, import.meta.url), 'utf8')

function load(text: string, fileName?: string): Transcript {
  const r = importTranscript(text, fileName ? { fileName } : {})
  if (!r.ok) throw new Error(r.error.message)
  return r.transcript
}

const roles = (t: Transcript) => t.messages.map((m) => m.role)
const callCount = (t: Transcript) => t.messages.reduce((n, m) => n + (m.toolCalls?.length ?? 0), 0)
const results = (t: Transcript) => t.messages.filter((m) => m.role === 'tool')
const valid = (t: Transcript | Message[], format?: Transcript['format']) => {
  const messages = Array.isArray(t) ? t : t.messages
  return checkValidity(messages, { provider: providerOf(format ?? (t as Transcript).format) })
}
/** A copy of `t` whose tool messages `ids` hold the prune placeholder of their tool instead. */
const pruned = (t: Transcript, ids: readonly string[]): Message[] =>
  t.messages.map((m) =>
    ids.includes(m.id) ? { ...m, content: placeholderFor(m.toolName ?? 'tool') } : m,
  )

describe('Anthropic server tools (test/fixtures/formats/anthropic-server-tools.json)', () => {
  const text = fixture('anthropic-server-tools.json')
  const source = JSON.parse(text) as { messages: { role: string; content: unknown }[] }
  const t = load(text, 'anthropic-server-tools.json')

  it('counts server_tool_use as tool calls and their result blocks as tool results', () => {
    expect(t.format).toBe('anthropic-messages')
    // system; user; assistant [text, server_tool_use, web_search_tool_result, text, text, tool_use]
    // → assistant (text + web_search call), tool (its results), assistant (text + read_changelog
    // call); user tool_result → tool; assistant text; user; assistant [server_tool_use, error
    // result, text] → assistant (call), tool (error), assistant (text).
    expect(roles(t)).toEqual([
      'system',
      'user',
      'assistant',
      'tool',
      'assistant',
      'tool',
      'assistant',
      'user',
      'assistant',
      'tool',
      'assistant',
    ])
    expect(callCount(t)).toBe(3)
    expect(results(t).length).toBe(3)
    const calls = t.messages.flatMap((m) => m.toolCalls ?? [])
    expect(calls.map((c) => [c.name, c.native?.kind, c.native?.hosted])).toEqual([
      ['web_search', 'server_tool_use', true],
      ['read_changelog', undefined, undefined],
      ['web_search', 'server_tool_use', true],
    ])
    expect(calls[0]!.arguments).toBe('{"query":"tidecalc latest release"}')
    // Each result answers its call; the max_uses_exceeded result is an error.
    expect(results(t).map((m) => [m.toolCallId, m.toolName, m.isError === true])).toEqual([
      [calls[0]!.id, 'web_search', false],
      [calls[1]!.id, 'read_changelog', false],
      [calls[2]!.id, 'web_search', true],
    ])
    // The two web_search_result blocks stay opaque parts (encrypted_content counted, never shown).
    const first = results(t)[0]!.content as { type: string; kind?: string }[]
    expect(first.map((p) => [p.type, p.kind])).toEqual([
      ['opaque', 'web_search_result'],
      ['opaque', 'web_search_result'],
    ])
    expect(t.warnings).toEqual([])
  })

  it("no validity problem before: a result in its call's own message is no orphan", async () => {
    expect(valid(t)).toEqual([])
    const run = await runPipeline(t, DEFAULT_PIPELINE, {
      counter: cacheCounter('o200k_base', countCodePoints),
    })
    expect(run.checks.before).toEqual([])
    expect(run.checks.after).toEqual([])
  })

  it('exports back to Anthropic with the server blocks byte-identical, in place', () => {
    type Body = { messages: { role: string; content: unknown }[] }
    const body = exportTranscript(t, 'anthropic').body as Body
    expect(body.messages.map((m) => m.role)).toEqual(source.messages.map((m) => m.role))
    const blocks = (m: { content: unknown }) =>
      Array.isArray(m.content) ? (m.content as Json[]) : []
    const serverBlocks = (list: { content: unknown }[]) =>
      list
        .flatMap(blocks)
        .filter((b) => b.type === 'server_tool_use' || b.type === 'web_search_tool_result')
    expect(serverBlocks(body.messages)).toEqual(serverBlocks(source.messages))
    expect(serverBlocks(body.messages).length).toBe(4)
    // The last assistant message (no citations, one text block) comes back exactly.
    expect(body.messages[5]).toEqual(source.messages[5])
    // Adjacent text blocks join with "\n" in the canonical model: one text block less.
    expect(blocks(body.messages[1]!).map((b) => b.type)).toEqual([
      'text',
      'server_tool_use',
      'web_search_tool_result',
      'text',
      'tool_use',
    ])
    // And it reads back as the same transcript.
    const again = load(JSON.stringify(body))
    expect(again.messages.map((m) => [m.role, m.content, m.toolCalls, m.toolCallId])).toEqual(
      t.messages.map((m) => [m.role, m.content, m.toolCalls, m.toolCallId]),
    )
  })

  it('a pruned server result is exported as text in place of the pair, warned', () => {
    const searchResult = results(t)[0]!
    const after = pruned(t, [searchResult.id])
    const out = exportTranscript(t, 'anthropic', after)
    const body = out.body as { messages: { content: unknown }[] }
    const second = body.messages[1]!.content as Json[]
    expect(second.map((b) => b.type)).toEqual(['text', 'text', 'text', 'tool_use'])
    expect(second[1]).toEqual({ type: 'text', text: placeholderFor('web_search') })
    expect(out.warnings).toEqual([
      '1 server tool result(s) replaced by a stage sent as text with their call dropped ' +
        '(a web_search_tool_result block has no place for it)',
    ])
    expect(valid(load(JSON.stringify(body)))).toEqual([])
  })

  it('MCP connector and code execution pair the same way; mcp_tool_result takes text', () => {
    const body = {
      model: 'claude-sonnet-4-5',
      max_tokens: 1024,
      messages: [
        { role: 'user', content: 'Open issues about leap days? Then count them in Python.' },
        {
          role: 'assistant',
          content: [
            {
              type: 'mcp_tool_use',
              id: 'mcptoolu_01A',
              name: 'search_issues',
              server_name: 'issues',
              input: { q: 'leap day' },
            },
            {
              type: 'mcp_tool_result',
              tool_use_id: 'mcptoolu_01A',
              is_error: false,
              content: [{ type: 'text', text: '#412 High tide an hour late on 29 February' }],
            },
            {
              type: 'server_tool_use',
              id: 'srvtoolu_01B',
              name: 'code_execution',
              input: { code: 'print(len(["#412"]))' },
            },
            {
              type: 'code_execution_tool_result',
              tool_use_id: 'srvtoolu_01B',
              content: {
                type: 'code_execution_result',
                stdout: '1\n',
                stderr: '',
                return_code: 0,
                content: [],
              },
            },
            { type: 'text', text: 'One open issue: #412.' },
          ],
        },
      ],
    }
    const sent = body.messages[1]!.content as Json[]
    const m = load(JSON.stringify(body))
    expect(roles(m)).toEqual(['user', 'assistant', 'tool', 'assistant', 'tool', 'assistant'])
    expect(callCount(m)).toBe(2)
    expect(results(m).map((r) => r.content)).toEqual([
      '#412 High tide an hour late on 29 February',
      [{ type: 'opaque', kind: 'code_execution_result', raw: sent[3]!.content }],
    ])
    expect(valid(m)).toEqual([])
    const back = exportTranscript(m, 'anthropic').body as { messages: unknown[] }
    expect(back.messages).toEqual(body.messages)
    const after = pruned(m, [results(m)[0]!.id])
    const edited = exportTranscript(m, 'anthropic', after).body as {
      messages: { content: Json[] }[]
    }
    expect(edited.messages[1]!.content[1]).toEqual({
      ...sent[1],
      content: placeholderFor('search_issues'),
    })
  })

  it('exported to OpenAI chat, a server tool is an ordinary call and result', () => {
    const body = exportTranscript(t, 'openai-chat').body as { messages: Json[] }
    const calls = body.messages.flatMap((m) => (m.tool_calls as Json[] | undefined) ?? [])
    expect(calls.length).toBe(3)
    expect(body.messages.filter((m) => m.role === 'tool').length).toBe(3)
  })
})

describe('Responses hosted tools (fixtures/formats/openai-responses-hosted-tools.json)', () => {
  const text = fixture('openai-responses-hosted-tools.json')
  const source = JSON.parse(text) as { input: Json[] }
  const t = load(text, 'openai-responses-hosted-tools.json')

  it('counts mcp_call, web_search_call and function_call as calls, each with its result', () => {
    expect(t.format).toBe('openai-responses')
    // instructions; user; [mcp_list_tools, reasoning, mcp_call] → assistant + tool (its output);
    // web_search_call → assistant + tool (no output recorded: ''); [message, function_call] →
    // assistant; function_call_output → tool; message → assistant.
    expect(roles(t)).toEqual([
      'system',
      'user',
      'assistant',
      'tool',
      'assistant',
      'tool',
      'assistant',
      'tool',
      'assistant',
    ])
    expect(callCount(t)).toBe(3)
    const calls = t.messages.flatMap((m) => m.toolCalls ?? [])
    expect(calls.map((c) => [c.id, c.name, c.arguments, c.native?.kind])).toEqual([
      ['mcp_68f1c2a9e4b08190a7d3c5e1f2b4a6c8', 'search_issues', '{"q":"leap day"}', 'mcp_call'],
      [
        'ws_68f1c2b3d5e08190b2c4d6e8f0a1b3c5',
        'web_search',
        '{"type":"search","query":"tidecalc 4.2.0 release"}',
        'web_search_call',
      ],
      ['call_Rk2mX9vQ4tLp', 'read_changelog', '{"version":"4.2.0"}', undefined],
    ])
    expect(results(t).map((m) => [m.toolCallId, m.content])).toEqual([
      [
        'mcp_68f1c2a9e4b08190a7d3c5e1f2b4a6c8',
        '#412 High tide an hour late on 29 February (open, label: bug)',
      ],
      ['ws_68f1c2b3d5e08190b2c4d6e8f0a1b3c5', ''],
      ['call_Rk2mX9vQ4tLp', '## 4.2.0\n- Leap-day offsets fixed for zone 8 stations (#412).'],
    ])
    expect(t.warnings).toEqual([])
  })

  it('has no validity problem before', () => {
    expect(valid(t)).toEqual([])
  })

  it('exports back to Responses with the hosted items byte-identical, in order', () => {
    const body = exportTranscript(t, 'openai-responses').body as { input: Json[] }
    expect(body.input.map((x) => x.type)).toEqual(source.input.map((x) => x.type))
    for (const type of ['mcp_list_tools', 'mcp_call', 'web_search_call']) {
      const item = (list: Json[]) => list.find((x) => x.type === type)
      expect(item(body.input)).toEqual(item(source.input))
    }
  })

  it('a pruned mcp_call output goes into its output field; the pair stays one item', () => {
    const mcp = results(t)[0]!
    const out = exportTranscript(t, 'openai-responses', pruned(t, [mcp.id]))
    const body = out.body as { input: Json[] }
    expect(body.input.filter((x) => x.type === 'mcp_call')).toEqual([
      { ...source.input[3], output: placeholderFor('search_issues'), error: null },
    ])
    expect(body.input.length).toBe(source.input.length)
  })

  it('computer_call and its screenshot: a call and its result, exported as they were', () => {
    const items = [
      {
        type: 'message',
        role: 'user',
        content: [{ type: 'input_text', text: 'Open the tide chart.' }],
      },
      {
        type: 'computer_call',
        id: 'cu_68f1d0a1',
        call_id: 'call_cU7pQ2',
        action: { type: 'click', button: 'left', x: 412, y: 229 },
        pending_safety_checks: [],
        status: 'completed',
      },
      {
        type: 'computer_call_output',
        call_id: 'call_cU7pQ2',
        output: { type: 'computer_screenshot', image_url: 'data:image/png;base64,iVBORw0KGgo=' },
        acknowledged_safety_checks: [],
      },
      {
        type: 'message',
        role: 'assistant',
        content: [{ type: 'output_text', text: 'The chart is open.' }],
      },
    ]
    const c = load(JSON.stringify({ model: 'computer-use-preview', input: items }))
    expect(roles(c)).toEqual(['user', 'assistant', 'tool', 'assistant'])
    expect(callCount(c)).toBe(1)
    expect(c.messages[2]!.content).toEqual([
      {
        type: 'image',
        url: 'data:image/png;base64,iVBORw0KGgo=',
        mediaType: 'image/png',
        bytes: 8,
      },
    ])
    expect(valid(c)).toEqual([])
    const body = exportTranscript(c, 'openai-responses').body as { input: Json[] }
    expect(body.input.slice(1, 3)).toEqual(items.slice(1, 3))
  })

  it('a Codex rollout web_search_call is a call and its (empty) result too', () => {
    const line = (type: string, payload: unknown) =>
      JSON.stringify({ timestamp: '2025-11-04T14:00:00.000Z', type, payload })
    const rollout = [
      line('session_meta', { id: 'S', cwd: '/w', originator: 'codex_cli_rs', cli_version: '0.58' }),
      line('response_item', {
        type: 'message',
        role: 'user',
        content: [{ type: 'input_text', text: 'Latest tidecalc?' }],
      }),
      line('response_item', {
        type: 'web_search_call',
        status: 'completed',
        action: { type: 'search', query: 'tidecalc release' },
      }),
      line('response_item', {
        type: 'message',
        role: 'assistant',
        content: [{ type: 'output_text', text: '4.2.0.' }],
      }),
    ].join('\n')
    const c = load(rollout, 'rollout-2025-11-04T14-00-00-S.jsonl')
    expect(c.format).toBe('codex-rollout')
    expect(roles(c)).toEqual(['user', 'assistant', 'tool', 'assistant'])
    expect(valid(c)).toEqual([])
  })
})
