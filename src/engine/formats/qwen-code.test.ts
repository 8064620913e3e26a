import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import type { Transcript } from '../model'
import { importTranscript } from './index'
import { parseJsonl } from './json'
import { qwenCodeImporter } from './qwen-code'
import { registryContractViolations } from './test-helpers'

const fixture = readFileSync(
  new URL('../../../test/fixtures/formats/qwen-code-session.jsonl', import.meta.url),
  'utf8',
)

function load(text: string): Transcript {
  const r = importTranscript(text, { fileName: 'session.jsonl' })
  if (!r.ok) throw new Error(r.error.message)
  expect(r.transcript.format).toBe('qwen-code')
  return r.transcript
}

describe('Qwen Code importer', () => {
  it('meets the registry contract (Claude Code, whose records look alike, runs after it)', () => {
    expect(registryContractViolations(qwenCodeImporter, fixture)).toEqual([])
  })

  it('rejects Claude Code records (Anthropic message content, no Gemini parts)', () => {
    const cc = JSON.stringify({
      uuid: 'u1', parentUuid: null, sessionId: 's', type: 'user',
      message: { role: 'user', content: 'hi' },
    })
    expect(qwenCodeImporter.detect(parseJsonl(cc).records)).toBe(
      'line 1: no uuid/sessionId record with a Gemini message (role "model", "parts")',
    )
  })

  it('reads the parentUuid chain from the last message record; pairs functionCall.id with functionResponse.id', () => {
    const t = load(fixture)
    expect(t.title).toBe('Date test fix')
    expect(t.model).toBe('qwen3-coder-plus')
    expect(t.agentVersion).toBe('0.0.14')
    expect(t.messages.map((m) => `${m.id} ${m.role}`)).toEqual([
      'q-001 user',
      'q-002 assistant',
      'q-003 tool',
      'q-005 assistant',
      'q-006 tool',
      'q-008 user',
      'q-009 assistant',
    ])
    expect(t.messages[1]?.content).toEqual([
      { type: 'thinking', variant: 'thinking', text: 'The user wants the test fixed.' },
      { type: 'text', text: "I'll run the tests first." },
    ])
    expect(t.messages.flatMap((m) => m.toolCalls ?? [])).toEqual([
      { id: 'call_1', name: 'run_shell_command', arguments: '{"command":"npm test"}' },
      { id: 'call_2', name: 'read_file', arguments: '{"absolute_path":"/home/dev/app/src/date.ts"}' },
    ])
    const tools = t.messages.filter((m) => m.role === 'tool')
    expect(tools.map((m) => [m.toolCallId, m.toolName, m.content, m.isError === true])).toEqual([
      ['call_1', 'run_shell_command', '1 failing: formatDate', false],
      ['call_2', 'read_file', 'File not found: /home/dev/app/src/date.ts', true],
    ])
    // A background notice is the agent's, not the human's.
    expect(t.messages[5]?.flags).toEqual({ injected: true })
    expect(t.messages[0]?.flags).toBeUndefined()
    expect(t.warnings).toEqual([
      '1 record(s) are not on the current branch (the parentUuid chain from the last message): rewound or retried turns, skipped',
    ])
  })

  it('metadata re-appended at the end (not linked to the conversation) does not cut the branch', () => {
    const tail = JSON.stringify({
      uuid: 'q-011', parentUuid: null, sessionId: '9f3c2a10-5b7e-4d21-8c44-1e2f3a4b5c6d', type: 'system',
      subtype: 'custom_title', systemPayload: { customTitle: 'Renamed' },
    })
    const t = load(`${fixture}${tail}\n`)
    expect(t.title).toBe('Renamed')
    expect(t.messages.map((m) => m.id)).toEqual(['q-001', 'q-002', 'q-003', 'q-005', 'q-006', 'q-008', 'q-009'])
  })

  it('usage: promptTokenCount is the context, candidates + thoughts the output, contextWindowSize the window', () => {
    const t = load(fixture)
    expect(t.usage).toEqual([
      { atIndex: 1, atMessageId: 'q-002', context: 1200, output: 50, window: 131072 },
      { atIndex: 3, atMessageId: 'q-005', context: 1500, output: 30 },
      { atIndex: 6, atMessageId: 'q-009', context: 500, output: 20 },
    ])
  })

  it('system/chat_compression is a recorded compaction whose after-side is the compressed history', () => {
    const t = load(fixture)
    expect(t.recordedCompactions).toHaveLength(1)
    const c = t.recordedCompactions[0]
    expect(c?.atIndex).toBe(5)
    expect(c?.atMessageId).toBe('q-008')
    expect(c?.summaryText).toBe('<state_snapshot>Goal: fix the formatDate test in src/dates.ts.</state_snapshot>')
    expect(c?.tokensBefore).toBe(1600)
    expect(c?.tokensAfter).toBe(400)
    expect(c?.replacementHistory?.map((m) => [m.id, m.role, m.content, m.flags ?? null])).toEqual([
      ['compressed-L8-0', 'user', '<state_snapshot>Goal: fix the formatDate test in src/dates.ts.</state_snapshot>', { compactSummary: true }],
      ['compressed-L8-1', 'assistant', 'Got it. Thanks for the additional context!', null],
    ])
  })

  it('rejoins the chain across an unreadable line in the middle; a retried turn stays off the branch', () => {
    const rec = (o: object) => JSON.stringify({ sessionId: 's-7', timestamp: '2026-02-01T10:00:00Z', ...o })
    const cut = '{"uuid":"d","parentUuid":"c","sessionId":"s-7","type":"assistant","message":{"role":"mod'
    const text = [
      rec({ uuid: 'a', parentUuid: null, type: 'user', message: { role: 'user', parts: [{ text: 'Make the build green' }] } }),
      rec({ uuid: 'r1', parentUuid: 'a', type: 'assistant', message: { role: 'model', parts: [{ text: 'First attempt' }] } }),
      rec({
        uuid: 'b', parentUuid: 'a', type: 'assistant',
        message: { role: 'model', parts: [{ functionCall: { id: 'k1', name: 'run_shell_command', args: { command: 'make' } } }] },
      }),
      rec({
        uuid: 'c', parentUuid: 'b', type: 'tool_result',
        message: { role: 'user', parts: [{ functionResponse: { id: 'k1', name: 'run_shell_command', response: { output: 'ok' } } }] },
      }),
      cut,
      rec({ uuid: 'e', parentUuid: 'd', type: 'user', message: { role: 'user', parts: [{ text: 'Also update the changelog' }] } }),
      rec({ uuid: 'f', parentUuid: 'e', type: 'assistant', message: { role: 'model', parts: [{ text: 'Done.' }] } }),
    ].join('\n')
    const t = load(text)
    expect(t.messages.map((m) => `${m.id} ${m.role}`)).toEqual([
      'a user', 'b assistant', 'c tool', 'e user', 'f assistant',
    ])
    expect(t.warnings).toEqual([
      `line 5: invalid JSON (the line ends unexpectedly after column ${cut.length}), skipped`,
      'line 6: parentUuid "d" is not in the file; the chain is rejoined across line 5 (not read) ' +
        'to line 4, the record before it in file order',
      '1 record(s) are not on the current branch (the parentUuid chain from the last message): rewound or retried turns, skipped',
    ])
  })

  it('unknown record types and system subtypes are counted in a warning; no message is an error', () => {
    const rec = (o: object) => JSON.stringify({ uuid: 'x', parentUuid: null, sessionId: 's', ...o })
    const text = [
      rec({ uuid: 'a', type: 'user', message: { role: 'user', parts: [{ text: 'hi' }] } }),
      rec({ uuid: 'b', parentUuid: 'a', type: 'system', subtype: 'brand_new' }),
      rec({ uuid: 'c', parentUuid: 'b', type: 'weird' }),
    ].join('\n')
    const t = load(text)
    expect(t.messages.map((m) => m.content)).toEqual(['hi'])
    expect(t.warnings).toEqual(['unknown record type(s) skipped: "system/brand_new" ×1, "weird" ×1'])
    const bad = importTranscript(rec({ type: 'tool_result', message: 'nope' }), { fileName: 's.jsonl' })
    expect(bad.ok).toBe(false)
    if (!bad.ok) expect(bad.error.message).toBe('no messages found in the session')
  })
})
