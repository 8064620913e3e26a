import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { contentText } from '../content'
import { importTranscript } from './index'
import { runImporter } from './failure'
import { detectSweAgent, importSweAgentRoot, sweAgentImporter } from './swe-agent'
import { registryContractViolations } from './test-helpers'

const sampleText = (name: string) =>
  readFileSync(new URL(`../../../public/samples/${name}`, import.meta.url), 'utf8')
const fixtureText = (name: string) =>
  readFileSync(new URL(`../../../test/fixtures/formats/${name}`, import.meta.url), 'utf8')

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value)
    for (const key of Object.keys(value)) deepFreeze((value as Record<string, unknown>)[key])
  }
  return value
}

const traj = (history: unknown[], trajectory: unknown[] = []) => ({
  trajectory,
  history,
  info: { exit_status: 'submitted' },
  replay_config: '{}',
  environment: 'main',
})

const bashCall = (id: string, command: string) => ({
  id,
  type: 'function',
  function: { name: 'bash', arguments: JSON.stringify({ command }) },
})

describe('importSweAgentRoot', () => {
  it('imports history, not the quadratic trajectory[].query copies', () => {
    const t = importSweAgentRoot(
      deepFreeze(
        traj(
          [
            { role: 'system', content: 'You are an engineer.', message_type: 'system_prompt' },
            {
              role: 'user',
              content: [{ type: 'text', text: '<issue>fix</issue>' }],
              message_type: 'observation',
            },
            {
              role: 'assistant',
              content: 'Listing.',
              thought: 'Listing.',
              action: 'ls',
              tool_calls: [bashCall('toolu_1', 'ls')],
              message_type: 'action',
              thinking_blocks: [],
            },
            {
              role: 'tool',
              content: [{ type: 'text', text: 'OBSERVATION:\nsrc' }],
              tool_call_ids: ['toolu_1'],
              message_type: 'observation',
            },
          ],
          [
            {
              action: 'ls',
              observation: 'src',
              query: [{ role: 'system', content: 'ONLY IN QUERY' }],
            },
          ],
        ),
      ),
    )
    expect(t.messages.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'tool'])
    expect(t.messages[1]?.content).toBe('<issue>fix</issue>')
    expect(t.messages[2]?.toolCalls).toEqual([
      { id: 'toolu_1', name: 'bash', arguments: '{"command":"ls"}' },
    ])
    expect(t.messages[3]).toMatchObject({
      content: 'OBSERVATION:\nsrc',
      toolCallId: 'toolu_1',
      toolName: 'bash',
    })
    expect(t.messages.some((m) => contentText(m.content).includes('ONLY IN QUERY'))).toBe(false)
    expect(t.warnings).toEqual([])
  })

  it('keeps thinking_blocks as opaque thinking parts before the text', () => {
    const t = importSweAgentRoot(
      traj([
        {
          role: 'assistant',
          content: 'Done.',
          thinking_blocks: [
            { type: 'thinking', thinking: 'hmm', signature: 'sig' },
            { type: 'redacted_thinking', data: 'ENC' },
          ],
          message_type: 'action',
        },
      ]),
    )
    expect(t.messages[0]?.content).toEqual([
      { type: 'thinking', variant: 'thinking', text: 'hmm', signature: 'sig' },
      { type: 'thinking', variant: 'redacted_thinking', encrypted: 'ENC' },
      { type: 'text', text: 'Done.' },
    ])
  })

  it('flags demonstrations, warns on several or missing tool_call_ids', () => {
    const t = importSweAgentRoot(
      traj([
        { role: 'user', content: 'demo', is_demo: true, message_type: 'observation' },
        {
          role: 'assistant',
          content: '',
          tool_calls: [bashCall('a', 'x'), bashCall('b', 'y')],
          message_type: 'action',
        },
        { role: 'tool', content: 'r', tool_call_ids: ['a', 'b'], message_type: 'observation' },
        { role: 'tool', content: 'r2', message_type: 'observation' },
      ]),
    )
    expect(t.messages[0]?.flags).toEqual({ injected: true })
    expect(t.messages[2]?.toolCallId).toBe('a')
    expect(t.messages[3]?.toolCallId).toBe('')
    expect(t.warnings).toEqual([
      'history[2].tool_call_ids: 2 ids, the first is used',
      'history[3].tool_call_ids: missing',
    ])
  })

  it('the bundled sample: every tool message answers the call right before it', () => {
    const root = JSON.parse(sampleText('swe-agent.traj')) as unknown
    const t = importSweAgentRoot(root)
    t.messages.forEach((m, i) => {
      if (m.role !== 'tool') return
      expect(t.messages[i - 1]?.toolCalls?.map((c) => c.id)).toEqual([m.toolCallId])
      expect(contentText(m.content).startsWith('OBSERVATION:')).toBe(true)
    })
  })
})

describe('SWE-agent history only (a demonstration, or a .traj without steps)', () => {
  // The fixture is `{history: [...]}`: 1 system_prompt, 1 instance observation (user), then 4
  // action/observation pairs (find_file, open, edit, submit). Like SWE-agent's demonstrations it
  // reuses call ids across steps: call_demo_1, call_demo_2, call_demo_1, call_demo_2.
  const text = fixtureText('swe-agent-history-only.traj')
  const root = JSON.parse(text) as unknown

  it('is detected and imported through the registry', () => {
    expect(detectSweAgent(root)).toBe(true)
    const r = importTranscript(text)
    expect(r.ok && r.transcript.format).toBe('swe-agent')
  })

  it('counts: 1 system, 1 user, 4 assistant with one call each, 4 tool results', () => {
    const t = importSweAgentRoot(deepFreeze(root))
    expect(t.messages.map((m) => m.role)).toEqual([
      'system',
      'user',
      'assistant',
      'tool',
      'assistant',
      'tool',
      'assistant',
      'tool',
      'assistant',
      'tool',
    ])
    expect(t.messages.flatMap((m) => m.toolCalls ?? []).map((c) => c.name)).toEqual([
      'find_file',
      'open',
      'edit',
      'submit',
    ])
    expect(t.warnings).toEqual([])
  })

  it('keeps reused call ids as written; each result names the call right before it', () => {
    const t = importSweAgentRoot(root)
    const results = t.messages.filter((m) => m.role === 'tool')
    expect(results.map((m) => m.toolCallId)).toEqual([
      'call_demo_1',
      'call_demo_2',
      'call_demo_1',
      'call_demo_2',
    ])
    expect(results.map((m) => m.toolName)).toEqual(['find_file', 'open', 'edit', 'submit'])
    t.messages.forEach((m, i) => {
      if (m.role !== 'tool') return
      expect(t.messages[i - 1]?.toolCalls?.map((c) => c.id)).toEqual([m.toolCallId])
    })
    // A `[{type:"text"}]` observation is text.
    expect(contentText(results[1]?.content ?? null).startsWith('[File: src/ledger/export.py')).toBe(
      true,
    )
  })
})

describe('SWE-agent demonstration in YAML (sweagent traj-to-demo)', () => {
  // The fixture: `history:` with 1 system_prompt, 1 user observation, 2 action/observation pairs
  // (open, submit), each call with its id.
  const text = fixtureText('swe-agent-demo.demo.yaml')

  it('imports with and without its file name: 1 system, 1 user, 2 assistant calls, 2 results', () => {
    for (const options of [{ fileName: 'fix-rates.demo.yaml' }, {}]) {
      const r = importTranscript(text, options)
      if (!r.ok) throw new Error(r.error.message)
      const t = r.transcript
      expect(t.format).toBe('swe-agent')
      expect(t.messages.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'tool', 'assistant', 'tool'])
      expect(t.messages.flatMap((m) => m.toolCalls ?? []).map((c) => c.name)).toEqual(['open', 'submit'])
      expect(contentText(t.messages[3]?.content ?? '')).toContain('1:ZONE_RATES = {1: 4.10, 2: 4.85}')
      expect(t.warnings).toEqual([])
    }
  })

  it('a cut-off JSON file still says so; YAML that is no transcript is an unknown format', () => {
    const cut = importTranscript('{"history": [{"role": "user",', { fileName: 'x.traj' })
    expect(cut.ok).toBe(false)
    if (!cut.ok) expect(cut.error.message).toMatch(/ends unexpectedly|truncated/)
    const other = importTranscript('name: build\nsteps:\n  - run: make\n', { fileName: 'ci.yml' })
    expect(other.ok).toBe(false)
  })
})

describe('SWE-agent bad input', () => {
  it('detect names the first mismatch', () => {
    const notItems =
      'no "trajectory" array, and the "history" items are not SWE-agent history items ' +
      '(role with message_type or agent)'
    expect(detectSweAgent({ history: [], info: {} })).toBe(notItems)
    expect(detectSweAgent({ history: [{ role: 'user', content: 'hi' }] })).toBe(notItems)
    expect(detectSweAgent({ history: [{ role: 'user', parts: [], agent: 'x' }] })).toBe(notItems)
    expect(detectSweAgent({ trajectory: [], info: {} })).toBe('no "history" array at the top level')
    expect(detectSweAgent({ trajectory: [], history: [] })).toBe(
      'no "info", and the "history" items are not SWE-agent history items ' +
        '(role with message_type or agent)',
    )
    expect(detectSweAgent(traj([]))).toBe(true)
    expect(detectSweAgent({ history: [{ role: 'user', content: 'hi', agent: 'main' }] })).toBe(true)
  })

  it('an empty history is a typed error naming history', () => {
    expect(runImporter(sweAgentImporter, traj([]), {})).toEqual({
      ok: false,
      error: { message: 'the trajectory has no history messages', field: 'history' },
    })
  })

  it('unknown roles are skipped with a warning naming the item', () => {
    const t = importSweAgentRoot(
      traj([
        { role: 'user', content: 'a' },
        { role: 'x', content: 'b' },
      ]),
    )
    expect(t.messages).toHaveLength(1)
    expect(t.warnings).toEqual(['history[1].role: "x" is not system/user/assistant/tool, skipped'])
  })
})

it('meets the registry contract on its bundled sample', () => {
  expect(registryContractViolations(sweAgentImporter, sampleText('swe-agent.traj'))).toEqual([])
})
