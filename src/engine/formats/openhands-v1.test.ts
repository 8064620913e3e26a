import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { importBytes, importTranscript } from './index'
import { openHandsEvalImporter, openHandsImporter } from './openhands'
import { detectOpenHandsV1, importOpenHandsV1Events, v1UsageByResponse } from './openhands-v1'
import { runImporter } from './failure'
import { registryContractViolations } from './test-helpers'

const fixture = (name: string) =>
  readFileSync(new URL(`../../../test/fixtures/formats/${name}`, import.meta.url))

/*
 * test/fixtures/formats/openhands-v1-events.json, read from the file (18 events, software agent
 * SDK shapes, docs/formats.md "OpenHands V1"):
 *  0 SystemPromptEvent (2 tools: terminal, file_editor)      → system
 *  1 MessageEvent user                                       → user
 *  2 ConversationStateUpdateEvent                            → skipped (not for the model)
 *  3,4 ActionEvent toolu_01 + toolu_02, llm_response_id chatcmpl-a11 (parallel: one message,
 *      text = the first's thought, reasoning_content as thinking)
 *  5,6 ObservationEvent toolu_01, toolu_02                   → 2 tool messages
 *  7 ActionEvent toolu_03 (chatcmpl-b22), 8 UserRejectObservation → error result
 *  9 ActionEvent toolu_04 (chatcmpl-c33), 10 ObservationEvent
 * 11 Condensation forgetting events 3–6, with a summary      → user summary + recorded compaction
 * 12 ActionEvent toolu_05 (action null), 13 AgentErrorEvent  → error result
 * 14 ActionEvent toolu_06 (no thought), 15 ObservationEvent
 * 16 MessageEvent agent (chatcmpl-f66)                       → assistant
 * 17 ConversationStateUpdateEvent                            → skipped
 * = 15 messages, 6 calls, 6 results (2 errors from rejection/agent error).
 */
const EVENT_IDS = {
  system: '0b7c2d1e-4f3a-4e6b-9a1d-2c3e4f5a6b70',
  user: '1c8d3e2f-5a4b-4f7c-8b2e-3d4f5a6b7c81',
  a1: '3eaf5a4b-7c6d-4b9e-8d4a-5f6b7c8d9ea3',
  a3: '72e39e8f-b0a1-4fd2-8b8e-9dafb0c1d2e7',
  reject: '83f4af90-c1b2-40e3-9c9f-aeb0c1d2e3f8',
  a4: '9405b0a1-d2c3-41f4-8da0-bfc1d2e3f409',
  o4: 'a516c1b2-e3d4-4205-9eb1-c0d2e3f4051a',
  condensation: 'b627d2c3-f4e5-4316-8fc2-d1e3f405162b',
  a5: 'c738e3d4-05f6-4427-90d3-e2f40516273c',
  a6: 'e95a05f6-2718-4649-92f5-04162738495e',
  final: '0b7c2718-493a-486b-94b7-263849506170',
}

/** The fixture's messages as (role, calls, answered call, error) rows. */
const EXPECTED_ROWS = [
  ['system', '', '', false],
  ['user', '', '', false],
  ['assistant', 'toolu_01:terminal,toolu_02:file_editor', '', false],
  ['tool', '', 'toolu_01', false],
  ['tool', '', 'toolu_02', false],
  ['assistant', 'toolu_03:file_editor', '', false],
  ['tool', '', 'toolu_03', true],
  ['assistant', 'toolu_04:file_editor', '', false],
  ['tool', '', 'toolu_04', false],
  ['user', '', '', false],
  ['assistant', 'toolu_05:terminal', '', false],
  ['tool', '', 'toolu_05', true],
  ['assistant', 'toolu_06:terminal', '', false],
  ['tool', '', 'toolu_06', false],
  ['assistant', '', '', false],
]

type Rowed = {
  role: string
  toolCalls?: { id: string; name: string }[]
  toolCallId?: string
  isError?: boolean
}
const rows = (messages: Rowed[]) =>
  messages.map((m) => [
    m.role,
    (m.toolCalls ?? []).map((c) => `${c.id}:${c.name}`).join(','),
    m.toolCallId ?? '',
    m.isError === true,
  ])

describe('OpenHands V1 event lists (software agent SDK)', () => {
  const text = fixture('openhands-v1-events.json').toString('utf8')

  it('imports a JSON array of events: messages, parallel calls, results, errors', () => {
    const r = importTranscript(text, { fileName: 'events.json' })
    if (!r.ok) throw new Error(r.error.message)
    const t = r.transcript
    expect(t.format).toBe('openhands')
    expect(t.warnings).toEqual([])
    expect(rows(t.messages)).toEqual(EXPECTED_ROWS)
    expect(t.messages[0]?.content).toBe(
      'You are a careful coding agent working in /workspace. Keep changes minimal and run the tests.',
    )
    expect(t.tools?.map((s) => s.name)).toEqual(['terminal', 'file_editor'])
    expect(t.messages[2]?.id).toBe(EVENT_IDS.a1)
    expect(t.messages[2]?.content).toEqual([
      { type: 'thinking', variant: 'reasoning', text: 'Start from the failure output, then the code.' },
      { type: 'text', text: 'I will run the failing test and read the converter at the same time.' },
    ])
    expect(t.messages[2]?.toolCalls?.[0]?.arguments).toBe(
      '{"command":"pytest -q tests/test_convert.py","security_risk":"LOW"}',
    )
    expect(t.messages[6]?.content).toBe(
      'Action rejected: Edit the one line instead of recreating the file.',
    )
    expect(t.messages[12]?.content).toBe('')
    expect(t.messages[14]?.content).toBe(
      'Fixed: convert() now rounds the converted amount, and tests/test_convert.py passes.',
    )
  })

  it('a Condensation is a recorded compaction keeping what it did not forget', () => {
    const r = importTranscript(text)
    if (!r.ok) throw new Error(r.error.message)
    const t = r.transcript
    const summary = t.messages[9]
    expect(summary?.id).toBe(EVENT_IDS.condensation)
    expect(summary?.flags).toEqual({ compactSummary: true })
    expect(t.recordedCompactions).toHaveLength(1)
    const c = t.recordedCompactions[0]
    expect(c?.atMessageId).toBe(EVENT_IDS.condensation)
    expect(c?.summaryMessageId).toBe(EVENT_IDS.condensation)
    expect(c?.summaryText).toBe(
      'USER_CONTEXT: fix the currency test without touching fixtures. DONE: test failed because ' +
        'convert() rounded before multiplying; convert.py line 2 now rounds the product.',
    )
    // Events 3–6 (the parallel calls and their two results) are forgotten.
    expect(c?.keptMessageIds).toEqual([
      EVENT_IDS.system,
      EVENT_IDS.user,
      EVENT_IDS.a3,
      EVENT_IDS.reject,
      EVENT_IDS.a4,
      EVENT_IDS.o4,
    ])
  })

  it('imports the same events one per line (JSONL)', () => {
    const r = importTranscript(fixture('openhands-v1-events.jsonl').toString('utf8'), {
      fileName: 'events.jsonl',
    })
    if (!r.ok) throw new Error(r.error.message)
    // The first 11 events: up to the observation of toolu_04.
    expect(r.transcript.format).toBe('openhands')
    expect(rows(r.transcript.messages)).toEqual(EXPECTED_ROWS.slice(0, 9))
  })

  it('unknown kinds and non-events are skipped with a counted warning', () => {
    const t = importOpenHandsV1Events([
      { kind: 'MessageEvent', id: 'e1', source: 'user', llm_message: { role: 'user', content: [{ type: 'text', text: 'hi' }] } },
      { kind: 'FutureEvent', id: 'e2', source: 'agent' },
      { kind: 'FutureEvent', id: 'e3', source: 'agent' },
      'garbage',
      { kind: 'PauseEvent', id: 'e4', source: 'user' },
    ])
    expect(t.messages.map((m) => m.content)).toEqual(['hi'])
    expect(t.warnings).toEqual([
      '2 "FutureEvent" event(s) skipped',
      '1 item that is not an event (no string kind and id)(s) skipped',
    ])
  })

  it('detection names the first event without kind/id/source; noise only is an error', () => {
    expect(detectOpenHandsV1([{ kind: 'MessageEvent', id: 'a', source: 'user' }, { kind: 'ActionEvent', source: 'agent' }])).toBe(
      'items[1] has no string "id"',
    )
    expect(detectOpenHandsV1([{ kind: 'PauseEvent', id: 'a', source: 'user' }])).toBe(
      'no SystemPromptEvent/MessageEvent/ActionEvent/ObservationEvent event',
    )
    const r = runImporter(openHandsImporter, [
      { kind: 'ConversationStateUpdateEvent', id: 'a', source: 'environment' },
      { kind: 'MessageEvent', id: 'b', source: 'user', llm_message: null },
    ], {})
    expect(r.ok).toBe(true)
    expect(() => importOpenHandsV1Events([{ kind: 'PauseEvent', id: 'a', source: 'user' }])).toThrow(
      'no conversational OpenHands events found',
    )
  })

  it('holds the registry contract on V1 events', () => {
    expect(registryContractViolations(openHandsImporter, text)).toEqual([])
  })
})

describe('OpenHands V1 conversation folder (base_state.json + events/)', () => {
  it('imports the zipped folder in event-index order, with usage from base_state.json', () => {
    const r = importBytes(fixture('openhands-v1-conversation.zip'), { fileName: 'conversation.zip' })
    if (!r.ok) throw new Error(r.error.message)
    const t = r.transcript
    expect(t.format).toBe('openhands')
    expect(t.title).toBe('5e0c7a9b2d4f4e1a8c3b6d9e0f1a2b3c')
    expect(t.warnings).toEqual([])
    expect(rows(t.messages)).toEqual(EXPECTED_ROWS)
    expect(t.recordedCompactions).toHaveLength(1)
    // base_state.json stats.usage_to_metrics.agent.token_usages, joined on llm_response_id; the
    // condenser's response (chatcmpl-cond1) made no message and is not the agent's context.
    expect(t.usage).toEqual([
      { atIndex: 2, atMessageId: EVENT_IDS.a1, context: 5210, output: 180, window: 200000 },
      { atIndex: 5, atMessageId: EVENT_IDS.a3, context: 5980, output: 150, window: 200000 },
      { atIndex: 7, atMessageId: EVENT_IDS.a4, context: 6240, output: 95, window: 200000 },
      { atIndex: 10, atMessageId: EVENT_IDS.a5, context: 5430, output: 120, window: 200000 },
      { atIndex: 12, atMessageId: EVENT_IDS.a6, context: 5610, output: 60, window: 200000 },
      { atIndex: 14, atMessageId: EVENT_IDS.final, context: 5790, output: 70, window: 200000 },
    ])
  })

  it('reads token usages by response id, the first entry of an id winning', () => {
    const usage = v1UsageByResponse({
      stats: {
        usage_to_metrics: {
          agent: {
            token_usages: [
              { prompt_tokens: 10, completion_tokens: 2, context_window: 0, response_id: 'r1' },
              { prompt_tokens: 99, completion_tokens: 9, response_id: 'r1' },
              { prompt_tokens: 5, response_id: '' },
              { completion_tokens: 5, response_id: 'r2' },
            ],
          },
        },
      },
    })
    expect([...usage]).toEqual([['r1', { context: 10, output: 2 }]])
  })
})

describe('OpenHands resolver output.jsonl', () => {
  /*
   * test/fixtures/formats/openhands-resolver-output.jsonl, read from the file:
   * - line 1, issue tallyhq/ledger#412: user message, recall action + agent_state_changed
   *   (skipped), the recall observation (a date: the workspace context OpenHands adds as a user
   *   message), two parallel `run` actions (chatcmpl-x1) and their observations, one `edit` +
   *   observation, one `run` + observation, `finish`: 10 messages, 4 calls, 4 results.
   * - line 2, issue tallyhq/ledger#415: user message, the recalled workspace context (user), one
   *   `run` that failed (success:false), `finish`: 5 messages.
   */
  const text = fixture('openhands-resolver-output.jsonl').toString('utf8')

  it('each line is a conversation titled by its issue; the first is open', () => {
    const r = importTranscript(text, { fileName: 'output.jsonl' })
    if (!r.ok) throw new Error(r.error.message)
    const t = r.transcript
    expect(t.format).toBe('openhands')
    expect(t.title).toBe('tallyhq/ledger#412')
    expect(t.notes).toEqual([
      '2 issues in this file: "tallyhq/ledger#412" is open; the other one is listed as a further conversation',
    ])
    expect(rows(t.messages)).toEqual([
      ['user', '', '', false],
      ['user', '', '', false],
      ['assistant', 'toolu_a1:execute_bash,toolu_a2:execute_bash', '', false],
      ['tool', '', 'toolu_a1', false],
      ['tool', '', 'toolu_a2', false],
      ['assistant', 'toolu_a3:str_replace_editor', '', false],
      ['tool', '', 'toolu_a3', false],
      ['assistant', 'toolu_a4:execute_bash', '', false],
      ['tool', '', 'toolu_a4', false],
      ['assistant', '', '', false],
    ])
    expect(t.sidechains?.map((s) => s.title)).toEqual(['tallyhq/ledger#415'])
    expect(rows(t.sidechains?.[0]?.messages ?? [])).toEqual([
      ['user', '', '', false],
      ['user', '', '', false],
      ['assistant', 'toolu_b1:execute_bash', '', false],
      ['tool', '', 'toolu_b1', true],
      ['assistant', '', '', false],
    ])
  })

  it('detection takes an issue in place of instance_id', () => {
    const rec = (line: number, value: Record<string, unknown>) => ({ line, value })
    expect(
      openHandsEvalImporter.detect([rec(1, { issue: { owner: 'o', repo: 'r', number: 1 }, history: [] })]),
    ).toBe(true)
    expect(openHandsEvalImporter.detect([rec(1, { issue: 'o/r#1', history: [] })])).toBe(
      'line 1: no "instance_id" (evaluation) nor "issue" (resolver)',
    )
  })

  it('holds the registry contract on resolver output', () => {
    expect(registryContractViolations(openHandsEvalImporter, text)).toEqual([])
  })
})

describe('OpenHands V1 hostile input', () => {
  it('wrong-typed fields never crash: each event still gives its message', () => {
    const t = importOpenHandsV1Events([
      { kind: 'SystemPromptEvent', id: 's', source: 'agent', system_prompt: 'x', tools: 'y' },
      { kind: 'MessageEvent', id: 'm', source: 'user', llm_message: 'hi', extended_content: 5 },
      { kind: 'ActionEvent', id: 'a', source: 'agent', thought: 5, tool_call: null, tool_call_id: 7 },
      { kind: 'ObservationEvent', id: 'o', source: 'environment', observation: [], tool_call_id: 'a' },
      { kind: 'Condensation', id: 'c', source: 'environment', forgotten_event_ids: 'm', summary: 3 },
    ])
    expect(t.messages.map((m) => [m.role, m.content])).toEqual([
      ['system', ''],
      ['user', ''],
      ['assistant', ''],
      ['tool', ''],
    ])
    // The action had no call id: the event id stands in, and the observation answers it.
    expect(t.messages[2]?.toolCalls).toEqual([{ id: 'a', name: '', arguments: '' }])
    expect(t.recordedCompactions).toHaveLength(1)
    expect(t.recordedCompactions[0]?.summaryText).toBeNull()
  })

  it('an event file of a zipped folder that is not JSON is an error naming the file', async () => {
    const { zipSync, strToU8 } = await import('fflate')
    const bytes = zipSync({
      'c1/events/event-00000-0b7c2d1e-4f3a.json': strToU8('{"kind":'),
    })
    const r = importBytes(bytes, { fileName: 'c1.zip' })
    expect(r.ok).toBe(false)
    if (!r.ok) expect(r.error.message).toContain('c1/events/event-00000-0b7c2d1e-4f3a.json')
  })
})

describe('OpenHands V1 conversation tree (parent_id)', () => {
  const ev = (kind: string, id: string, parent: string, extra: Record<string, unknown> = {}) => ({
    kind,
    id,
    source: kind === 'MessageEvent' ? 'user' : 'agent',
    parent_id: parent,
    ...extra,
  })
  const user = (id: string, parent: string, text: string) =>
    ev('MessageEvent', id, parent, { llm_message: { role: 'user', content: [{ type: 'text', text }] } })
  const act = (id: string, parent: string, call: string, thought: string) =>
    ev('ActionEvent', id, parent, {
      thought: [{ type: 'text', text: thought }],
      tool_name: 'terminal',
      tool_call_id: call,
      tool_call: { id: call, name: 'terminal', arguments: '{}' },
      llm_response_id: `r-${id}`,
    })
  const obs = (id: string, parent: string, call: string) =>
    ev('ObservationEvent', id, parent, {
      tool_name: 'terminal',
      tool_call_id: call,
      observation: { content: [{ type: 'text', text: 'ok' }], is_error: false },
    })
  // u1 has two continuations: a1 → o1 (the first try) and u2 → a2 → o2 (an edit, written later).
  const events = [
    ev('SystemPromptEvent', 's', '__root__', { system_prompt: { type: 'text', text: 'sys' }, tools: [] }),
    user('u1', 's', 'list files'),
    act('a1', 'u1', 'c1', 'Listing.'),
    obs('o1', 'a1', 'c1'),
    user('u2', 'u1', 'list only python files'),
    act('a2', 'u2', 'c2', 'Listing python files.'),
    obs('o2', 'a2', 'c2'),
  ]

  it('imports the branch ending at the last event and lists the other as a branch', () => {
    const t = importOpenHandsV1Events(events)
    expect(t.messages.map((m) => m.id)).toEqual(['s', 'u1', 'u2', 'a2', 'o2'])
    expect(t.branches).toEqual([{ id: 'a1', fromMessageId: 'u1', messageCount: 2, firstText: 'Listing.' }])
    expect(t.warnings).toEqual(['1 branch(es) off the active one (2 events) are not on the main line'])
  })

  it("follows base_state.json's leaf_event_id", () => {
    const t = importOpenHandsV1Events(events, {}, { leafEventId: 'o1' })
    expect(t.messages.map((m) => m.id)).toEqual(['s', 'u1', 'a1', 'o1'])
    expect(t.branches).toEqual([
      { id: 'u2', fromMessageId: 'u1', messageCount: 3, firstText: 'list only python files' },
    ])
  })

  it('a parent that is not in the file keeps the file order', () => {
    const t = importOpenHandsV1Events([user('u1', 'gone', 'a'), user('u2', 'u1', 'b')])
    expect(t.messages.map((m) => m.id)).toEqual(['u1', 'u2'])
    expect(t.branches).toBeUndefined()
  })
})

describe('OpenHands V1 source lines on a branched list', () => {
  it('each message names its event line in the whole file', () => {
    const msg = (id: string, parent: string) => ({
      kind: 'MessageEvent',
      id,
      source: 'user',
      parent_id: parent,
      llm_message: { role: 'user', content: [{ type: 'text', text: id }] },
    })
    const t = importOpenHandsV1Events([msg('a', '__root__'), msg('b', 'a'), msg('c', 'a')])
    expect(t.messages.map((m) => [m.id, m.source.line])).toEqual([
      ['a', 1],
      ['c', 3],
    ])
  })
})
