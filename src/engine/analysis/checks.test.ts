import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { loadCase } from '../../../test/fixtures'
import { checkValidity, findDanglingBackReferences, pendingToolCallIds } from './checks'
import { importTranscript } from '../formats/index'
import type { Message } from '../model'
import { DEFAULT_PIPELINE, providerOf, runPipeline } from '../pipeline'
import { backReferenceFor } from '../stages/dedupe'
import { placeholderFor } from '../stages/prune-tool-results'
import {
  assistant,
  countCodePoints,
  fromCaseChat,
  indexed,
  system,
  toolResult,
  user,
  type CaseChatMessage,
} from '../stages/test-helpers'
import { cacheCounter } from '../tokens/count'

const loadChatCase = (name: string) => loadCase<{ input: CaseChatMessage[] }>(name)

const rules = (messages: readonly Message[], provider?: 'openai' | 'anthropic') =>
  checkValidity(messages, provider ? { provider } : {}).map((p) => p.rule)

const load = (path: string) => {
  const text = readFileSync(new URL(path, import.meta.url), 'utf8')
  const r = importTranscript(text, { fileName: path.split('/').pop() })
  if (!r.ok) throw new Error(r.error.message)
  return r.transcript
}

const valid = indexed([
  system('s', 'You are a coding agent.'),
  user('u1', 'Fix the bug.'),
  assistant('a1', 'Looking.', [
    { id: 'c1', name: 'grep' },
    { id: 'c2', name: 'read' },
  ]),
  toolResult('t1', 'c1', 'hit'),
  toolResult('t2', 'c2', 'file text'),
  assistant('a2', 'Fixed.'),
  user('u2', 'Thanks.'),
])

describe('checkValidity', () => {
  it('finds nothing in a valid transcript, for every provider', () => {
    expect(checkValidity(valid)).toEqual([])
    expect(checkValidity(valid, { provider: 'openai' })).toEqual([])
    expect(checkValidity(valid, { provider: 'anthropic' })).toEqual([])
  })

  describe('orphan-tool-result', () => {
    it('fires for a result answering no earlier call', () => {
      const m = indexed([user('u', 'x'), toolResult('t', 'nope', 'r'), assistant('a', 'ok')])
      expect(checkValidity(m)).toEqual([
        {
          rule: 'orphan-tool-result',
          messageIds: ['t'],
          message: 'tool result t answers call nope, which no earlier assistant message made',
        },
      ])
    })

    it('fires for a result placed before its call (the call must be earlier)', () => {
      const m = indexed([
        user('u', 'x'),
        toolResult('t', 'c1', 'r'),
        assistant('a', null, [{ id: 'c1', name: 'grep' }]),
        toolResult('t2', 'c1', 'r'),
      ])
      expect(rules(m)).toEqual(['orphan-tool-result'])
    })

    it('fires for a result without tool_call_id and for a second answer to the same call', () => {
      const noId: Message = { ...toolResult('t0', 'x', 'r') }
      delete noId.toolCallId
      const m = indexed([
        user('u', 'x'),
        assistant('a', null, [{ id: 'c1', name: 'grep' }]),
        toolResult('t1', 'c1', 'r'),
        toolResult('t2', 'c1', 'r again'),
        noId,
      ])
      expect(checkValidity(m)).toEqual([
        {
          rule: 'orphan-tool-result',
          messageIds: ['t2', 't1'],
          message: 'tool result t2 answers call c1 again (already answered by t1)',
        },
        { rule: 'orphan-tool-result', messageIds: ['t0'], message: 'tool result t0 has no tool_call_id' },
      ])
    })
  })

  describe('missing-tool-result', () => {
    it('fires for a call with no result before the next user message', () => {
      const m = indexed([user('u', 'x'), assistant('a', null, [{ id: 'c1', name: 'grep' }]), user('u2', 'hello?')])
      expect(checkValidity(m)).toEqual([
        {
          rule: 'missing-tool-result',
          messageIds: ['a', 'u2'],
          message: 'call c1 (grep) in a has no result before the next turn (u2)',
        },
      ])
    })

    it('fires when the next assistant message comes before the result', () => {
      const m = indexed([
        user('u', 'x'),
        assistant('a', null, [{ id: 'c1', name: 'grep' }]),
        assistant('a2', 'moving on'),
        toolResult('t', 'c1', 'late'),
        user('u2', 'ok'),
      ])
      expect(rules(m)).toEqual(['missing-tool-result'])
    })

    it('fires for one unanswered call of a parallel batch, not for the answered one', () => {
      const m = indexed([
        user('u', 'x'),
        assistant('a', null, [
          { id: 'c1', name: 'grep' },
          { id: 'c2', name: 'read' },
        ]),
        toolResult('t1', 'c1', 'r'),
        assistant('a2', 'done'),
      ])
      expect(checkValidity(m).map((p) => p.message)).toEqual([
        'call c2 (read) in a has no result before the next turn (a2)',
      ])
    })

    it('does not fire for calls awaiting execution in the final assistant message (cases/01)', () => {
      // cases/01 in the canonical model (Anthropic tool_result blocks become tool messages).
      const m = indexed([
        user('m0', 'Rename the config key retry_limit to max_retries everywhere.'),
        assistant('m1', 'Searching for usages.', [{ id: 'toolu_a1', name: 'grep' }]),
        toolResult('m2', 'toolu_a1', 'src/net/client.py:14: retry_limit = 3'),
        assistant('m3', 'Two hits. Editing the first.', [{ id: 'toolu_a2', name: 'edit_file' }]),
      ])
      expect(pendingToolCallIds(m)).toEqual(['toolu_a2'])
      expect(checkValidity(m, { provider: 'anthropic' })).toEqual([])
    })

    it('a partly answered batch at the very end: the rest is pending', () => {
      const m = indexed([
        user('u', 'x'),
        assistant('a', null, [
          { id: 'c1', name: 'grep' },
          { id: 'c2', name: 'read' },
        ]),
        toolResult('t1', 'c1', 'r'),
      ])
      expect(pendingToolCallIds(m)).toEqual(['c2'])
      expect(checkValidity(m)).toEqual([])
    })

    it('nothing is pending when the transcript ends with a user or plain assistant message', () => {
      expect(pendingToolCallIds(valid)).toEqual([])
      expect(pendingToolCallIds([])).toEqual([])
    })

    it('cases/41: an unanswered call followed by more turns fires, unless declared long-running', () => {
      const m = fromCaseChat(loadChatCase('41-pending-call-not-compacted.json').input)
      expect(checkValidity(m)).toEqual([
        {
          rule: 'missing-tool-result',
          messageIds: ['m2', 'm3'],
          message: 'call conf-1 (confirm_action) in m2 has no result before the next turn (m3)',
        },
      ])
      expect(checkValidity(m, { pendingCallIds: ['conf-1'] })).toEqual([])
    })
  })

  describe('result-not-adjacent (anthropic)', () => {
    const late = indexed([
      user('u', 'x'),
      assistant('a', null, [{ id: 'c1', name: 'grep' }]),
      system('note', 'Reminder: be brief.'),
      toolResult('t', 'c1', 'r'),
      assistant('a2', 'ok'),
    ])

    it('fires when a non-tool message sits between the call and its result', () => {
      expect(checkValidity(late, { provider: 'anthropic' })).toEqual([
        {
          rule: 'result-not-adjacent',
          messageIds: ['t', 'a', 'note'],
          message: 'tool result t for call c1 is not directly after a: note (system) comes between',
        },
      ])
    })

    it('is an Anthropic rule only', () => {
      expect(checkValidity(late)).toEqual([])
      expect(checkValidity(late, { provider: 'openai' })).toEqual([])
    })

    it('does not fire for other results between (a parallel batch)', () => {
      expect(rules(valid, 'anthropic')).toEqual([])
    })

    it('a result after the next user turn is both missing and not adjacent', () => {
      const m = indexed([
        user('u', 'x'),
        assistant('a', null, [{ id: 'c1', name: 'grep' }]),
        user('u2', 'and?'),
        toolResult('t', 'c1', 'r'),
        assistant('a2', 'ok'),
      ])
      expect(rules(m, 'anthropic')).toEqual(['missing-tool-result', 'result-not-adjacent'])
      expect(rules(m)).toEqual(['missing-tool-result'])
    })
  })

  describe('first-not-user (anthropic)', () => {
    const m = indexed([system('s', 'prompt'), assistant('a', 'Hello, how can I help?'), user('u', 'hi')])

    it('fires when the first non-system message is not a user message', () => {
      expect(checkValidity(m, { provider: 'anthropic' })).toEqual([
        {
          rule: 'first-not-user',
          messageIds: ['a'],
          message: 'the first non-system message a is a assistant message, not a user message',
        },
      ])
    })

    it('does not fire for openai, nor when a user message comes first', () => {
      expect(checkValidity(m)).toEqual([])
      expect(rules(valid, 'anthropic')).toEqual([])
      expect(checkValidity([system('s', 'only a prompt')], { provider: 'anthropic' })).toEqual([])
    })
  })

  describe('empty-message', () => {
    it('cases/34: an empty text block and an empty content array fire', () => {
      const m = indexed([
        user('m0', 'Create the three stub files.'),
        assistant('m1', null, [{ id: 'toolu_e1', name: 'write_file' }]),
        toolResult('m2', 'toolu_e1', 'ok'),
        { ...assistant('m3', null), content: [{ type: 'text', text: '' }] },
        { ...assistant('m4', null), content: [] },
        assistant('m5', 'Created a.py; b.py and c.py next.'),
        user('m6', 'continue'),
      ])
      expect(checkValidity(m)).toEqual([
        { rule: 'empty-message', messageIds: ['m3'], message: 'assistant message m3 is empty' },
        { rule: 'empty-message', messageIds: ['m4'], message: 'assistant message m4 is empty' },
      ])
    })

    it('fires for whitespace-only user text and a null-content tool result', () => {
      const m = indexed([
        user('u', '  \n '),
        assistant('a', null, [{ id: 'c1', name: 'grep' }]),
        { ...toolResult('t', 'c1', ''), content: null },
        assistant('a2', 'ok'),
      ])
      expect(rules(m)).toEqual(['empty-message', 'empty-message'])
      expect(checkValidity(m).map((p) => p.messageIds[0])).toEqual(['u', 't'])
    })

    it('does not fire for a tool call with no text, an empty tool output, or a final assistant prefill', () => {
      const m = indexed([
        user('u', 'x'),
        assistant('a', null, [{ id: 'c1', name: 'grep' }]),
        toolResult('t', 'c1', ''),
        assistant('a2', ''),
      ])
      expect(checkValidity(m)).toEqual([])
    })
  })

  describe('duplicate-system-prompt (anthropic)', () => {
    it('fires for two system messages with the same text', () => {
      const m = indexed([system('s1', 'You are a coding agent.'), user('u', 'x'), system('s2', ' You are a coding agent.\n')])
      expect(checkValidity(m, { provider: 'anthropic' })).toEqual([
        {
          rule: 'duplicate-system-prompt',
          messageIds: ['s1', 's2'],
          message: 'system prompt duplicated: s1, s2 have the same text',
        },
      ])
    })

    it('fires for the leading system prompt repeated as a later message of another role', () => {
      const m = indexed([system('s', 'You are a coding agent.'), user('u', 'You are a coding agent.'), assistant('a', 'ok')])
      expect(checkValidity(m, { provider: 'anthropic' })).toEqual([
        {
          rule: 'duplicate-system-prompt',
          messageIds: ['s', 'u'],
          message: 'user message u repeats the system prompt s',
        },
      ])
    })

    it('fires for two leading system messages with the same text (the system field holds it twice)', () => {
      const m = indexed([system('s1', 'Be brief.'), system('s2', 'Be brief.'), user('u', 'x')])
      expect(rules(m, 'anthropic')).toEqual(['duplicate-system-prompt'])
    })

    it('cases/40: a mid-conversation system note with other text is not a duplicate', () => {
      const m = fromCaseChat([
        { role: 'user', content: 'Book a table for two at 7pm.' },
        { role: 'assistant', content: 'Which restaurant?' },
        { role: 'system', content: 'Reminder: no input received for 30 seconds.' },
        { role: 'user', content: 'The Thai place on Elm Street.' },
      ])
      expect(checkValidity(m, { provider: 'anthropic' })).toEqual([])
      expect(checkValidity([system('s', 'A'), system('s2', 'B'), ...m], { provider: 'anthropic' })).toEqual([])
    })

    it('two identical mid-conversation notes are not the system prompt sent twice', () => {
      const m = indexed([
        system('s', 'You are a coding agent.'),
        user('u', 'x'),
        system('n1', 'Reminder: tests must pass.'),
        assistant('a', 'ok'),
        system('n2', 'Reminder: tests must pass.'),
        user('u2', 'y'),
      ])
      expect(checkValidity(m, { provider: 'anthropic' })).toEqual([])
    })

    it('is not an OpenAI rule: Chat Completions and Responses accept system/developer messages again anywhere', () => {
      const m = indexed([
        system('s1', 'You are a coding agent.'),
        user('u', 'x'),
        assistant('a', 'ok'),
        system('s2', 'You are a coding agent.'),
        user('u2', 'You are a coding agent.'),
      ])
      expect(checkValidity(m)).toEqual([])
      expect(checkValidity(m, { provider: 'openai' })).toEqual([])
      expect(rules(m, 'anthropic')).toEqual(['duplicate-system-prompt', 'duplicate-system-prompt'])
    })
  })

  describe('reused tool-call ids (positional pairing)', () => {
    // SWE-agent-like: each result directly follows its call; ids repeat across steps.
    const reused = indexed([
      system('s', 'You are an autonomous programmer.'),
      user('u', 'Fix the failing test.'),
      assistant('a1', 'Look at the file.', [{ id: 'call_0', name: 'str_replace_editor' }]),
      toolResult('t1', 'call_0', 'OBSERVATION:\nfile text'),
      assistant('a2', 'Edit it.', [{ id: 'call_0', name: 'str_replace_editor' }]),
      toolResult('t2', 'call_0', 'OBSERVATION:\nedited'),
      assistant('a3', 'Run the tests.', [{ id: 'call_0', name: 'bash' }]),
      toolResult('t3', 'call_0', 'OBSERVATION:\n3 passed'),
      assistant('a4', 'Done.'),
    ])

    it('a reused id whose earlier call is answered starts a new pair: valid for OpenAI', () => {
      expect(checkValidity(reused)).toEqual([])
      expect(checkValidity(reused, { provider: 'openai' })).toEqual([])
    })

    it('a result matching no unanswered earlier call is still an orphan', () => {
      const m = indexed([...reused.slice(0, 8), toolResult('t4', 'call_0', 'again'), assistant('a4', 'Done.')])
      expect(checkValidity(m)).toEqual([
        {
          rule: 'orphan-tool-result',
          messageIds: ['t4', 't3'],
          message: 'tool result t4 answers call call_0 again (already answered by t3)',
        },
      ])
    })

    it('the new call with a reused id still needs its own result before the next turn', () => {
      const m = indexed([...reused.slice(0, 5), user('u2', 'well?'), ...reused.slice(6)])
      expect(checkValidity(m).map((p) => p.message)).toEqual([
        'call call_0 (str_replace_editor) in a2 has no result before the next turn (u2)',
      ])
    })

    it('a result before the reused call does not answer it', () => {
      const m = indexed([
        user('u', 'x'),
        assistant('a1', null, [{ id: 'c', name: 'grep' }]),
        toolResult('t1', 'c', 'r'),
        toolResult('t2', 'c', 'r2'),
        assistant('a2', null, [{ id: 'c', name: 'grep' }]),
        user('u2', 'and?'),
      ])
      expect(rules(m)).toEqual(['orphan-tool-result', 'missing-tool-result'])
    })

    it('Anthropic rejects a request whose tool_use ids are not unique: duplicate-tool-call-id', () => {
      const m = indexed(reused.slice(1))
      expect(checkValidity(m, { provider: 'anthropic' })).toEqual([
        {
          rule: 'duplicate-tool-call-id',
          messageIds: ['a1', 'a2'],
          message: 'call id call_0 in a2 was already used by a call in a1 (tool_use ids must be unique)',
        },
        {
          rule: 'duplicate-tool-call-id',
          messageIds: ['a1', 'a3'],
          message: 'call id call_0 in a3 was already used by a call in a1 (tool_use ids must be unique)',
        },
      ])
    })

    it('a parallel batch with one id twice: each result answers one call', () => {
      const m = indexed([
        user('u', 'x'),
        assistant('a', null, [
          { id: 'c', name: 'read' },
          { id: 'c', name: 'read' },
        ]),
        toolResult('t1', 'c', 'one'),
        toolResult('t2', 'c', 'two'),
        assistant('a2', 'ok'),
      ])
      expect(checkValidity(m)).toEqual([])
      expect(rules(m, 'anthropic')).toEqual(['duplicate-tool-call-id'])
    })
  })

  it('a SWE-agent .traj whose demonstration and run reuse call ids has no problem before', () => {
    // history: system prompt; demonstration (is_demo): its instance text and 4 steps that all
    // use call_demo_0; the task; 5 live steps, two reusing call_demo_0 and two toolu_01Lv8RkQ2wT3.
    const t = load('../../../test/fixtures/formats/swe-agent-reused-ids.traj')
    expect(t.format).toBe('swe-agent')
    expect(t.messages.map((m) => m.role[0]).join('')).toBe('su' + 'at'.repeat(4) + 'u' + 'at'.repeat(5))
    expect(t.messages.reduce((n, m) => n + (m.toolCalls?.length ?? 0), 0)).toBe(9)
    expect(checkValidity(t.messages, { provider: providerOf(t.format) })).toEqual([])
    // For Anthropic the ids would have to be unique: 6 uses of call_demo_0, 2 of toolu_01Lv8RkQ2wT3.
    expect(rules(t.messages, 'anthropic')).toEqual(Array(5 + 1).fill('duplicate-tool-call-id'))
  })

  describe('Codex rollouts re-send developer messages on later turns', () => {

    it('the multi-turn fixture imports as formats.md §4.5 says and its Before has no problem', async () => {
      // 53 lines: session_meta; the developer <permissions instructions> message, <user_instructions>
      // and <environment_context>; 4 turns (turn_context, the developer message again on turns
      // 2–4, a user message, function_call/function_call_output pairs, an assistant answer).
      const t = load('../../../test/fixtures/formats/codex-multi-turn-developer.jsonl')
      expect(t.format).toBe('codex-rollout')
      const count = (role: string) => t.messages.filter((m) => m.role === role).length
      // developer → system: once at the start and once on each of turns 2, 3 and 4.
      expect(count('system')).toBe(4)
      // 2 injected context messages + 4 typed messages.
      expect(count('user')).toBe(6)
      // Per turn one assistant message per call (the reasoning travels with its call) plus the answer: 2+2+3+2.
      expect(count('assistant')).toBe(9)
      expect(count('tool')).toBe(5)
      expect(t.messages.reduce((n, m) => n + (m.toolCalls?.length ?? 0), 0)).toBe(5)
      expect(t.messages.length).toBe(24)
      const systems = t.messages.filter((m) => m.role === 'system').map((m) => m.content)
      expect(new Set(systems).size).toBe(1)

      expect(providerOf(t.format)).toBe('openai')
      expect(checkValidity(t.messages, { provider: providerOf(t.format) })).toEqual([])
      const run = await runPipeline(t, DEFAULT_PIPELINE, { counter: cacheCounter('o200k_base', countCodePoints) })
      expect(run.checks.before).toEqual([])
      // The same list sent to Anthropic would carry its system prompt four times.
      expect(rules(t.messages, 'anthropic')).toContain('duplicate-system-prompt')
    })

    it('the bundled Codex sample has no problem before', async () => {
      const t = load('../../../public/samples/codex-rollout.jsonl')
      const run = await runPipeline(t, DEFAULT_PIPELINE, { counter: cacheCounter('o200k_base', countCodePoints) })
      expect(run.checks.before).toEqual([])
    })
  })

  it('reports rules in a fixed order and never mutates its input', () => {
    const m = Object.freeze(
      indexed([assistant('a', 'hi'), toolResult('t', 'zz', 'r'), user('u', ' ')]).map((x) => Object.freeze(x)),
    )
    expect(rules(m, 'anthropic')).toEqual(['orphan-tool-result', 'first-not-user', 'empty-message'])
  })
})

describe('findDanglingBackReferences (cases/47)', () => {
  const body = 'HEAD\n' + 'x'.repeat(300)
  const base = () =>
    indexed([
      assistant('a1', null, [{ id: 'c1', name: 'read' }]),
      toolResult('t1', 'c1', body),
      assistant('a2', null, [{ id: 'c2', name: 'read' }]),
      toolResult('t2', 'c2', backReferenceFor('HEAD')),
    ])

  it('finds nothing while the first occurrence holds its content', () => {
    expect(findDanglingBackReferences(base(), { t2: 't1' })).toEqual([])
    expect(findDanglingBackReferences(base())).toEqual([])
  })

  it('finds a back-reference whose first occurrence became a placeholder', () => {
    const m = base()
    m[1] = { ...m[1]!, content: placeholderFor('read') }
    expect(findDanglingBackReferences(m, { t2: 't1' })).toEqual([
      { id: 't2', firstId: 't1', message: 'back-reference t2 points at t1, which is no longer in context' },
    ])
    expect(findDanglingBackReferences(m)).toEqual([
      { id: 't2', message: 'back-reference t2 has no earlier result with the summary "HEAD" in context' },
    ])
  })

  it('finds a back-reference whose first occurrence was removed', () => {
    const m = base().filter((x) => x.id !== 't1')
    expect(findDanglingBackReferences(m, { t2: 't1' }).map((d) => d.id)).toEqual(['t2'])
  })

  it('ignores a mapped message that is no longer a back-reference', () => {
    const m = base()
    m[3] = { ...m[3]!, content: placeholderFor('read') }
    m[1] = { ...m[1]!, content: placeholderFor('read') }
    expect(findDanglingBackReferences(m, { t2: 't1' })).toEqual([])
  })
})

describe('a response without its request', () => {
  // Both fixtures are one API response: an assistant reply whose last message ends in a call
  // that the absent next request would answer (pending, not missing). Nothing the file holds is
  // invalid; what precedes the reply (the user turn) is in the request, not in the file.
  const counter = cacheCounter('o200k_base', countCodePoints)
  for (const file of ['anthropic-message-response.json', 'openai-chat-completion-response.json']) {
    it(`${file}: no problem before or after, and the transcript says it is a response`, async () => {
      const t = load(`../../../test/fixtures/formats/${file}`)
      expect(t.messages[0]!.role).toBe('assistant')
      const run = await runPipeline(t, DEFAULT_PIPELINE, { counter })
      expect(run.checks.before).toEqual([])
      expect(run.checks.after).toEqual([])
      if (t.format === 'anthropic-messages') expect(t.responseOnly).toBe(true)
    })
  }

  it('the same assistant-first list as a request is still first-not-user', () => {
    const m = indexed([assistant('a', 'hi'), user('u', 'x')])
    expect(checkValidity(m, { provider: 'anthropic' }).map((p) => p.rule)).toEqual(['first-not-user'])
    expect(checkValidity(m, { provider: 'anthropic', responseOnly: true })).toEqual([])
  })
})
