import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { transcriptCounts } from '../../../test/fixtures'
import { checkValidity } from '../analysis/checks'
import { importTranscript } from './index'
import {
  detectOpenHands,
  importOpenHandsRoot,
  openHandsEvalImporter,
  openHandsImporter,
} from './openhands'
import { runImporter } from './failure'
import { registryContractViolations } from './test-helpers'

const sampleText = (name: string) =>
  readFileSync(new URL(`../../../public/samples/${name}`, import.meta.url), 'utf8')

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value)
    for (const key of Object.keys(value)) deepFreeze((value as Record<string, unknown>)[key])
  }
  return value
}

const userMsg = (id: number, content: string) => ({
  id,
  source: 'user',
  action: 'message',
  message: content,
  args: { content, image_urls: [], file_urls: [] },
})

/** A model response with the given calls (`[id, name, arguments]`) and text. */
const response = (rid: string, text: string, calls: [string, string, string][]) => ({
  id: rid,
  choices: [
    {
      message: {
        role: 'assistant',
        content: text,
        tool_calls: calls.map(([id, name, args]) => ({
          id,
          type: 'function',
          function: { name, arguments: args },
        })),
      },
    },
  ],
})

const action = (
  id: number,
  kind: string,
  callId: string,
  name: string,
  model: ReturnType<typeof response>,
  args: Record<string, unknown>,
) => ({
  id,
  source: 'agent',
  action: kind,
  message: `Running ${kind}`,
  tool_call_metadata: {
    function_name: name,
    tool_call_id: callId,
    model_response: model,
    total_calls_in_response: model.choices[0]?.message.tool_calls.length,
  },
  args,
})

const observation = (
  id: number,
  cause: number,
  kind: string,
  content: string,
  extra: Record<string, unknown> = {},
) => ({ id, source: 'agent', cause, observation: kind, content, extras: {}, ...extra })

const stateChanged = (id: number) => ({
  id,
  source: 'environment',
  observation: 'agent_state_changed',
  content: '',
  extras: { agent_state: 'running' },
})

describe('importOpenHandsRoot', () => {
  const r1 = response('resp-1', 'Looking around.', [
    ['call_1', 'execute_bash', '{"command":"ls"}'],
    ['call_2', 'str_replace_editor', '{"command":"view","path":"a.py"}'],
  ])

  it('groups parallel calls of one model response into one assistant message', () => {
    const t = importOpenHandsRoot(
      deepFreeze([
        {
          id: 0,
          source: 'agent',
          action: 'system',
          args: {
            content: 'You are an agent.',
            tools: [{ type: 'function', function: { name: 'execute_bash' } }],
          },
        },
        stateChanged(1),
        userMsg(2, 'Fix the build'),
        action(3, 'run', 'call_1', 'execute_bash', r1, {
          command: 'ls',
          thought: 'Looking around.',
        }),
        action(4, 'read', 'call_2', 'str_replace_editor', r1, { path: 'a.py', thought: '' }),
        observation(5, 3, 'run', 'src\ntests', {
          tool_call_metadata: { tool_call_id: 'call_1', function_name: 'execute_bash' },
          success: true,
        }),
        observation(6, 4, 'read', 'print(1)', {
          tool_call_metadata: { tool_call_id: 'call_2', function_name: 'str_replace_editor' },
        }),
      ]),
    )
    expect(t.messages.map((m) => [m.id, m.role])).toEqual([
      ['event-0', 'system'],
      ['event-2', 'user'],
      ['event-3', 'assistant'],
      ['event-5', 'tool'],
      ['event-6', 'tool'],
    ])
    expect(t.messages[2]?.content).toBe('Looking around.')
    expect(t.messages[2]?.toolCalls).toEqual([
      { id: 'call_1', name: 'execute_bash', arguments: '{"command":"ls"}' },
      { id: 'call_2', name: 'str_replace_editor', arguments: '{"command":"view","path":"a.py"}' },
    ])
    expect(t.messages[4]).toMatchObject({ toolCallId: 'call_2', toolName: 'str_replace_editor' })
    expect(t.tools).toEqual([{ name: 'execute_bash' }])
    expect(t.warnings).toEqual([])
  })

  it('joins a later call of the same response even when the first result came in between', () => {
    const t = importOpenHandsRoot([
      userMsg(1, 'go'),
      action(2, 'run', 'call_1', 'execute_bash', r1, { command: 'ls' }),
      observation(3, 2, 'run', 'out1'),
      action(4, 'read', 'call_2', 'str_replace_editor', r1, { path: 'a.py' }),
      observation(5, 4, 'read', 'out2'),
    ])
    expect(t.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'tool'])
    expect(t.messages[1]?.toolCalls?.map((c) => c.id)).toEqual(['call_1', 'call_2'])
    expect(checkValidity(t.messages)).toEqual([])
  })

  it('pairs an observation by cause without tool_call_metadata; success:false is an error', () => {
    const r = response('resp-2', '', [['call_9', 'execute_bash', '{"command":"pytest"}']])
    const t = importOpenHandsRoot([
      userMsg(1, 'test'),
      action(2, 'run', 'call_9', 'execute_bash', r, { command: 'pytest', thought: 'Testing.' }),
      observation(3, 2, 'run', '1 failed', { success: false }),
    ])
    expect(t.messages[1]?.content).toBe('Testing.')
    expect(t.messages[2]).toMatchObject({
      role: 'tool',
      toolCallId: 'call_9',
      toolName: 'execute_bash',
      isError: true,
    })
  })

  it('without model_response arguments, the action args minus bookkeeping are used', () => {
    const t = importOpenHandsRoot([
      userMsg(1, 'go'),
      {
        id: 2,
        source: 'agent',
        action: 'run',
        tool_call_metadata: { function_name: 'execute_bash', tool_call_id: 'c1' },
        args: { command: 'ls', thought: 'x', hidden: false, blocking: false, is_input: false },
      },
      observation(3, 2, 'run', 'ok'),
    ])
    expect(t.messages[1]?.toolCalls).toEqual([
      { id: 'c1', name: 'execute_bash', arguments: '{"command":"ls"}' },
    ])
  })

  it('finish is assistant text; noise and unknown tool-less actions are skipped', () => {
    const t = importOpenHandsRoot([
      userMsg(1, 'go'),
      stateChanged(2),
      { id: 3, source: 'agent', action: 'recall', args: {} },
      { id: 4, source: 'agent', action: 'browse_interactive', args: {} },
      { id: 5, source: 'agent', action: 'finish', message: 'm', args: { final_thought: 'Done.' } },
    ])
    expect(t.messages.map((m) => [m.role, m.content])).toEqual([
      ['user', 'go'],
      ['assistant', 'Done.'],
    ])
    expect(t.warnings).toEqual([
      '1 action "browse_interactive" event(s) without a tool call skipped',
    ])
  })

  it('a condensation with forgotten_event_ids: summary message, compaction, kept ids', () => {
    const r = response('resp-3', 'a', [['c1', 'execute_bash', '{}']])
    const t = importOpenHandsRoot([
      { id: 0, source: 'agent', action: 'system', args: { content: 'sys' } },
      userMsg(1, 'task'),
      action(2, 'run', 'c1', 'execute_bash', r, {}),
      observation(3, 2, 'run', 'big output'),
      userMsg(4, 'also this'),
      {
        id: 5,
        source: 'agent',
        action: 'condensation',
        args: {
          forgotten_event_ids: [2, 3],
          summary: 'Ran ls; saw big output.',
          summary_offset: 1,
        },
      },
      userMsg(6, 'continue'),
    ])
    expect(t.messages.map((m) => m.id)).toEqual([
      'event-0',
      'event-1',
      'event-2',
      'event-3',
      'event-4',
      'event-5',
      'event-6',
    ])
    expect(t.messages[5]).toMatchObject({
      role: 'user',
      content: 'Ran ls; saw big output.',
      flags: { compactSummary: true },
    })
    expect(t.recordedCompactions).toEqual([
      {
        atIndex: 5,
        atMessageId: 'event-5',
        summaryMessageId: 'event-5',
        summaryText: 'Ran ls; saw big output.',
        keptMessageIds: ['event-0', 'event-1', 'event-4'],
        source: 'openhands',
      },
    ])
  })

  it('a condensation without summary records the boundary only', () => {
    const t = importOpenHandsRoot([
      userMsg(1, 'a'),
      {
        id: 2,
        source: 'agent',
        action: 'condensation',
        args: { forgotten_events_start_id: 1, forgotten_events_end_id: 1, summary: null },
      },
      userMsg(3, 'b'),
    ])
    expect(t.messages.map((m) => m.id)).toEqual(['event-1', 'event-3'])
    expect(t.recordedCompactions).toEqual([
      {
        atIndex: 1,
        atMessageId: 'event-3',
        summaryText: null,
        keptMessageIds: [],
        source: 'openhands',
      },
    ])
  })

  it('the bundled sample: the condensation forgets events 4–27, keeps the rest before it', () => {
    const root = JSON.parse(sampleText('openhands-events.json')) as unknown
    const t = importOpenHandsRoot(root)
    const c = t.recordedCompactions[0]
    // Messages before event 32: system (0), user (2), 10 assistant messages and 13 results from
    // events 4–31, and the user reminder (16): 26, so the summary is message 26.
    expect(c?.atIndex).toBe(26)
    expect(c?.summaryMessageId).toBe('event-32')
    expect(c?.summaryText).toMatch(/^1\. Primary Request and Intent:/)
    // Events 28/29 (one response) and their observations 30/31 are after the forgotten range.
    expect(c?.keptMessageIds).toEqual(['event-0', 'event-2', 'event-28', 'event-30', 'event-31'])
    expect(t.tools?.map((x) => x.name)).toEqual([
      'execute_bash',
      'str_replace_editor',
      'think',
      'finish',
    ])
  })
})

describe('OpenHands bad input', () => {
  it('detect names the first mismatching event', () => {
    expect(detectOpenHands({})).toBe('not an array of OpenHands events')
    expect(detectOpenHands([{ id: 1, source: 'user', action: 'message' }, { id: 2 }])).toBe(
      'items[1] has neither "action" nor "observation"',
    )
    expect(detectOpenHands([{ action: 'message', source: 'user' }])).toBe(
      'no event has a numeric "id"',
    )
  })

  it('only noise is a typed error, not an empty transcript', () => {
    const r = runImporter(openHandsImporter, [stateChanged(1)], {})
    expect(r).toEqual({
      ok: false,
      error: { message: 'no conversational OpenHands events found', field: 'items' },
    })
  })
})

const counts = transcriptCounts

describe('OpenHands evaluation output (output.jsonl)', () => {
  /*
   * test/fixtures/formats/openhands-output.jsonl, counted from the file:
   * - line 1, quote__rates-101: history of 9 events — the `system` action (2 tools), the user
   *   `message`, 2 `agent_state_changed` (skipped), a `run` and an `edit` action with their own
   *   `model_response` ids and tool_call_metadata (2 assistant messages, 1 call each), their 2
   *   observations (tool results, none failed) and `finish` (assistant): 7 messages.
   * - line 2, quote__rates-102: the older `[action, observation]` pairs — user `message` + null
   *   observation, `run` + its observation (by `cause`, no metadata), agent `message` + null
   *   observation: 4 messages; `error` says the run hit its iteration limit.
   * - line 3, quote__rates-103: `history: null` (the instance never ran): skipped.
   */
  const text = readFileSync(
    new URL('../../../test/fixtures/formats/openhands-output.jsonl', import.meta.url),
    'utf8',
  )

  it('each instance is a conversation titled by instance_id; the first is open', () => {
    for (const options of [{ fileName: 'output.jsonl' }, {}]) {
      const r = importTranscript(text, options)
      if (!r.ok) throw new Error(r.error.message)
      const t = r.transcript
      expect(t.format).toBe('openhands')
      expect(t.title).toBe('quote__rates-101')
      expect(counts(t)).toEqual({
        byRole: { system: 1, user: 1, assistant: 3, tool: 2 },
        calls: 2,
        results: 2,
        errors: 0,
      })
      expect(t.tools?.map((x) => x.name)).toEqual(['execute_bash', 'str_replace_editor'])
      expect(checkValidity(t.messages)).toEqual([])
      expect(t.warnings).toEqual([
        'line 3 (instance "quote__rates-103"): no history: Maximum retries (5) reached: ' +
          'AgentRuntimeTimeoutError: sandbox did not start, skipped',
      ])
      expect(t.notes).toEqual([
        '2 instances in this file: "quote__rates-101" is open; ' +
          'the other one is listed as a further conversation',
      ])
      const [second, ...none] = t.sidechains ?? []
      expect(none).toEqual([])
      if (!second) throw new Error('no second instance')
      expect(second.title).toBe('quote__rates-102')
      expect(counts(second)).toEqual({
        byRole: { system: 0, user: 1, assistant: 2, tool: 1 },
        calls: 1,
        results: 1,
        errors: 0,
      })
      expect(second.messages[2]).toMatchObject({ role: 'tool', toolCallId: 'toolu_11' })
      expect(checkValidity(second.messages)).toEqual([])
      expect(second.warnings).toEqual([
        'line 2 (instance "quote__rates-102"): the run ended with an error: RuntimeError: Agent ' +
          'reached maximum iteration in headless mode. Current iteration: 30, max iteration: 30',
      ])
    }
  })

  it('detection wants instance_id and history/test_result on every line', () => {
    const rec = (line: number, value: Record<string, unknown>) => ({ line, value })
    expect(openHandsEvalImporter.detect([rec(1, { instance_id: 'a', history: [] })])).toBe(true)
    expect(openHandsEvalImporter.detect([rec(1, { id: 'a', history: [] })])).toBe(
      'line 1: no "instance_id" (evaluation) nor "issue" (resolver)',
    )
    expect(
      openHandsEvalImporter.detect([
        rec(1, { instance_id: 7, history: null, test_result: {} }),
        rec(2, { instance_id: 8 }),
      ]),
    ).toBe('line 2: neither "history" nor "test_result"')
    expect(
      openHandsEvalImporter.detect([rec(3, { instance_id: 7, history: null, test_result: {} })]),
    ).toBe('line 3: no line has a "history" array')
  })

  it('no importable instance: the first reason, naming its line', () => {
    const r = runImporter(
      openHandsEvalImporter,
      [
        { line: 1, value: { instance_id: 'x', history: [stateChanged(1)], test_result: {} } },
        { line: 2, value: { instance_id: 'y', history: null, error: 'boom', test_result: {} } },
      ],
      {},
    )
    expect(r).toEqual({
      ok: false,
      error: {
        message: 'line 1 (instance "x"): no conversational OpenHands events found',
        line: 1,
      },
    })
  })
})

describe('OpenHands before function calling (actions without tool_call_metadata)', () => {
  const fixture = (name: string) =>
    readFileSync(new URL(`../../../test/fixtures/formats/${name}`, import.meta.url), 'utf8')

  /*
   * test/fixtures/formats/openhands-events-no-function-calling.json, counted from the file: a user
   * `message` (1), an agent `run` with `args.command` + `thought` and no metadata (1 assistant,
   * 1 call), its `run` observation naming it by `cause: 2` (1 tool result), and `finish`
   * (1 assistant): user 1, assistant 2, tool 1.
   */
  it('an action an observation answers by cause is a call under a synthetic id', () => {
    const r = importTranscript(fixture('openhands-events-no-function-calling.json'))
    if (!r.ok) throw new Error(r.error.message)
    const t = r.transcript
    expect(t.format).toBe('openhands')
    expect(counts(t)).toEqual({
      byRole: { system: 0, user: 1, assistant: 2, tool: 1 },
      calls: 1,
      results: 1,
      errors: 0,
    })
    expect(t.messages[1]).toMatchObject({
      role: 'assistant',
      content: 'Find the parser.',
      toolCalls: [
        {
          id: 'openhands-action-2',
          name: 'run',
          arguments: '{"command":"grep -n argparse cli.py","background":false}',
        },
      ],
    })
    expect(t.messages[2]).toMatchObject({
      role: 'tool',
      content: '3:import argparse',
      toolCallId: 'openhands-action-2',
      toolName: 'run',
    })
    expect(t.messages[2]?.flags?.injected).toBeUndefined()
    expect(t.messages[3]).toMatchObject({ role: 'assistant', content: 'Done: --verbose added.' })
    expect(checkValidity(t.messages)).toEqual([])
    expect(t.warnings).toEqual([])
  })

  /*
   * test/fixtures/formats/openhands-output-no-function-calling.jsonl, one instance in the old
   * `[action, observation]` pairs, none with metadata: user `message` + `null` observation (1
   * user); `read` (thought), `run_ipython` (thought) and `run` (empty thought), each answered by
   * `cause` (3 assistant, 3 calls, 3 results; none has `success:false`); agent `message` + `null`
   * observation (1 assistant).
   */
  it('older [action, observation] pairs keep every agent action as a call', () => {
    const r = importTranscript(fixture('openhands-output-no-function-calling.jsonl'), {
      fileName: 'output.jsonl',
    })
    if (!r.ok) throw new Error(r.error.message)
    const t = r.transcript
    expect(t.title).toBe('report__csv-7')
    expect(counts(t)).toEqual({
      byRole: { system: 0, user: 1, assistant: 4, tool: 3 },
      calls: 3,
      results: 3,
      errors: 0,
    })
    expect(t.messages.map((m) => m.toolCalls?.map((c) => [c.id, c.name]))).toEqual([
      undefined,
      [['openhands-action-3', 'read']],
      undefined,
      [['openhands-action-5', 'run_ipython']],
      undefined,
      [['openhands-action-7', 'run']],
      undefined,
      undefined,
    ])
    expect(t.messages.filter((m) => m.role === 'tool').map((m) => m.toolCallId)).toEqual([
      'openhands-action-3',
      'openhands-action-5',
      'openhands-action-7',
    ])
    expect(checkValidity(t.messages)).toEqual([])
  })

  /*
   * test/fixtures/formats/openhands-resolver-output-fields-only.jsonl: a resolver line whose
   * history is the events' dataclass fields only (no id, source, cause, args or extras), 16
   * events: the task `message` (wait_for_response false: user), a workspace_context `recall`
   * action (no message) and its observation (repo instructions, one host, a date: one injected
   * user message), `run` + `run` observation, `edit` (thought) + `edit` observation, `read` + an
   * `error` observation (the read's failed result), `run` + observation, the agent's `message`
   * (wait_for_response true: assistant), the fake user's `message` (user), a knowledge `recall`
   * with no observation, a last `run` nothing answers (skipped, warned) and `finish`.
   */
  it('a history of dataclass fields only: actions are calls, the next observation of their kind answers', () => {
    const r = importTranscript(fixture('openhands-resolver-output-fields-only.jsonl'), {
      fileName: 'output.jsonl',
    })
    if (!r.ok) throw new Error(r.error.message)
    const t = r.transcript
    expect(t.title).toBe('brightfern/hello-kit#3')
    expect(counts(t)).toEqual({
      byRole: { system: 0, user: 3, assistant: 6, tool: 4 },
      calls: 4,
      results: 4,
      errors: 1,
    })
    const m = t.messages
    expect(m.map((x) => x.role)).toEqual([
      'user',
      'user',
      'assistant',
      'tool',
      'assistant',
      'tool',
      'assistant',
      'tool',
      'assistant',
      'tool',
      'assistant',
      'user',
      'assistant',
    ])
    expect(m[0]?.content).toMatch(/^Please fix the following issue/)
    expect(m[0]?.flags?.injected).toBeUndefined()
    expect(m[1]).toMatchObject({
      role: 'user',
      flags: { injected: true },
      content:
        '<REPOSITORY_INSTRUCTIONS>\nRun the tests with make test.\n</REPOSITORY_INSTRUCTIONS>\n' +
        '<RUNTIME_INFORMATION>\nHosts: http://localhost:51000 (port 51000)\nDate: 2025-04-02\n' +
        '</RUNTIME_INFORMATION>',
    })
    expect(m[2]).toMatchObject({
      content: '',
      toolCalls: [
        { id: 'openhands-action-item-3', name: 'run', arguments: '{"command":"ls /workspace"}' },
      ],
    })
    expect(m[3]).toMatchObject({
      content: 'Makefile  greet',
      toolCallId: 'openhands-action-item-3',
      toolName: 'run',
    })
    expect(m[4]).toMatchObject({
      content: 'Add the helper.',
      toolCalls: [
        {
          id: 'openhands-action-item-5',
          name: 'edit',
          arguments: JSON.stringify({
            path: '/workspace/greet/__init__.py',
            command: 'create',
            file_text: "def greet(name):\n    return f'Hello, {name}!'\n",
            old_str: null,
            new_str: null,
            insert_line: null,
            content: '',
            start: 1,
            end: -1,
          }),
        },
      ],
    })
    expect(m[5]).toMatchObject({
      content: 'File created successfully at: /workspace/greet/__init__.py',
      toolCallId: 'openhands-action-item-5',
    })
    expect(m[6]?.toolCalls).toEqual([
      {
        id: 'openhands-action-item-7',
        name: 'read',
        arguments: '{"path":"/workspace/docs/usage.md","start":0,"end":-1,"view_range":null}',
      },
    ])
    expect(m[7]).toMatchObject({
      content: 'File not found: /workspace/docs/usage.md',
      toolCallId: 'openhands-action-item-7',
      toolName: 'read',
      isError: true,
    })
    expect(m[9]).toMatchObject({ content: '1 passed', toolCallId: 'openhands-action-item-9' })
    expect(m[10]).toMatchObject({ content: 'I added greet() and the tests pass.' })
    expect(m[11]?.content).toMatch(/^Please continue working on the task/)
    expect(m[12]?.content).toBe('greet() is in greet/__init__.py and make test passes.')
    expect(checkValidity(m)).toEqual([])
    expect(t.warnings).toEqual(['line 1: 1 action "run" event(s) without a tool call skipped'])
  })

  it('a recall observation is the context OpenHands adds for the model: a user message', () => {
    const knowledge = (id: number, cause: number, agents: Record<string, string>[]) => ({
      id,
      source: 'environment',
      cause,
      observation: 'recall',
      content: 'Retrieved knowledge from microagents',
      extras: { recall_type: 'knowledge', microagent_knowledge: agents },
    })
    const docker = { name: 'docker', trigger: 'container', content: 'Use podman here.' }
    const t = importOpenHandsRoot([
      userMsg(1, 'build the container'),
      { id: 2, source: 'user', action: 'recall', args: { recall_type: 'knowledge', query: 'x' } },
      knowledge(3, 2, [docker]),
      userMsg(4, 'and the container again'),
      { id: 5, source: 'user', action: 'recall', args: { recall_type: 'knowledge', query: 'y' } },
      knowledge(6, 5, [docker]),
      {
        id: 7,
        source: 'environment',
        cause: 1,
        observation: 'recall',
        content: 'Added workspace context',
        extras: {
          recall_type: 'workspace_context',
          repo_name: 'acme/api',
          repo_directory: 'api',
          repo_instructions: '',
          runtime_hosts: {},
          additional_agent_instructions: 'Never push.',
          date: '',
          microagent_knowledge: [],
        },
      },
    ])
    expect(t.messages.map((m) => [m.role, m.content, m.flags?.injected])).toEqual([
      ['user', 'build the container', undefined],
      [
        'user',
        '<EXTRA_INFO>\nKeyword "container" (docker)\n\nUse podman here.\n</EXTRA_INFO>',
        true,
      ],
      ['user', 'and the container again', undefined],
      [
        'user',
        '<REPOSITORY_INFO>\nRepository acme/api in api\n</REPOSITORY_INFO>\n' +
          '<RUNTIME_INFORMATION>\nNever push.\n</RUNTIME_INFORMATION>',
        true,
      ],
    ])
    expect(t.warnings).toEqual([])
  })

  it('wrong-typed recall fields add nothing rather than crash', () => {
    const t = importOpenHandsRoot([
      { action: 'message', content: 'hi', wait_for_response: false },
      {
        observation: 'recall',
        recall_type: 'knowledge',
        microagent_knowledge: [1, { name: 5, trigger: null, content: ['x'] }],
      },
      { observation: 'recall', runtime_hosts: 'x', date: 7, repo_name: {} },
    ])
    expect(t.messages.map((m) => [m.role, m.content])).toEqual([['user', 'hi']])
    expect(t.warnings).toEqual([])
  })

  it('an unanswered tool-less action and a user-side action stay skipped', () => {
    const t = importOpenHandsRoot([
      userMsg(1, 'go'),
      { id: 2, source: 'agent', action: 'run', args: { command: 'ls', thought: 'Look.' } },
      { id: 3, source: 'user', action: 'run', args: { command: 'pwd' } },
      { id: 4, source: 'user', cause: 3, observation: 'run', content: '/workspace' },
    ])
    expect(t.messages.map((m) => [m.role, m.content])).toEqual([
      ['user', 'go'],
      ['user', '/workspace'],
    ])
    expect(t.warnings).toEqual(['2 action "run" event(s) without a tool call skipped'])
  })
})

it('meets the registry contract on a file of each container', () => {
  const evalOutput = readFileSync(
    new URL('../../../test/fixtures/formats/openhands-output.jsonl', import.meta.url),
    'utf8',
  )
  expect(
    registryContractViolations(openHandsImporter, sampleText('openhands-events.json')),
  ).toEqual([])
  expect(registryContractViolations(openHandsEvalImporter, evalOutput)).toEqual([])
})
