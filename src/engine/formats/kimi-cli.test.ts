import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import type { Transcript } from '../model'
import { importTranscript } from './index'
import { parseJsonl } from './json'
import { kimiCliImporter } from './kimi-cli'
import { registryContractViolations } from './test-helpers'

const fixture = readFileSync(
  new URL('../../../test/fixtures/formats/kimi-cli-context.jsonl', import.meta.url),
  'utf8',
)

function load(text: string): Transcript {
  const r = importTranscript(text, { fileName: 'context.jsonl' })
  if (!r.ok) throw new Error(r.error.message)
  expect(r.transcript.format).toBe('kimi-cli')
  return r.transcript
}

describe('Kimi CLI importer', () => {
  it('meets the registry contract', () => {
    expect(registryContractViolations(kimiCliImporter, fixture)).toEqual([])
  })

  it('needs a Kimi bookkeeping line: plain chat JSONL is not Kimi', () => {
    const chat = '{"role":"user","content":"hi"}\n{"role":"assistant","content":"hello"}\n'
    expect(kimiCliImporter.detect(parseJsonl(chat).records)).toBe(
      'line 1: no "_system_prompt" / "_checkpoint" / "_usage" line',
    )
    const other = '{"role":"_usage","token_count":1}\n{"type":"x"}\n'
    expect(kimiCliImporter.detect(parseJsonl(other).records)).toBe(
      'line 2: role null is not a Kimi CLI context role',
    )
  })

  it('reads messages, think parts as thinking, tool calls paired on tool_call_id', () => {
    const t = load(fixture)
    expect(t.messages.map((m) => `${m.id} ${m.role}`)).toEqual([
      'L1 system',
      'L3 user',
      'L4 user',
      'L5 assistant',
      'L8 user',
      'L10 assistant',
      'L11 tool',
      'L12 tool',
      'L14 assistant',
      'L16 user',
    ])
    expect(t.messages[0]?.content).toBe('You are Kimi CLI, an interactive coding agent. Work in /home/dev/parser.')
    expect(t.messages[5]?.content).toEqual([
      { type: 'thinking', variant: 'thinking', text: 'Run pytest, then read the error fixture.' },
      { type: 'text', text: 'Running the tests and reading the fixture.' },
    ])
    expect(t.messages[5]?.toolCalls).toEqual([
      { id: 'Shell:0', name: 'Shell', arguments: '{"command": "pytest tests/test_parse.py"}' },
      { id: 'ReadFile:1', name: 'ReadFile', arguments: '{"path": "tests/fixtures/bad.txt"}' },
    ])
    const tools = t.messages.filter((m) => m.role === 'tool')
    expect(tools.map((m) => [m.toolCallId, m.toolName, m.content, m.isError === true])).toEqual([
      ['Shell:0', 'Shell', '<system>Command executed successfully.</system>\n3 passed', false],
      ['ReadFile:1', 'ReadFile', '<system>ERROR</system>\n<system>File not found</system>', true],
    ])
    // The checkpoint's own user message is the agent's, not the human's.
    expect(t.messages[9]?.flags).toEqual({ injected: true })
    expect(t.messages[4]?.flags).toBeUndefined()
    expect(t.warnings).toEqual([])
  })

  it('the compaction user message is a recorded compaction with its summary', () => {
    const t = load(fixture)
    expect(t.messages[1]?.flags).toEqual({ compactSummary: true })
    expect(t.recordedCompactions).toEqual([
      {
        atIndex: 1,
        atMessageId: 'L3',
        summaryMessageId: 'L3',
        summaryText: '## Summary\nThe user is fixing the parser in src/parse.py.',
        source: 'kimi-cli',
      },
    ])
  })

  it('_usage is the input tokens of the step whose assistant message follows it', () => {
    const t = load(fixture)
    expect(t.usage).toEqual([
      { atIndex: 5, atMessageId: 'L10', context: 1400 },
      { atIndex: 8, atMessageId: 'L14', context: 1900 },
    ])
  })

  it('unknown roles and parts are said; a file of bookkeeping only is an error', () => {
    const text = [
      '{"role":"_checkpoint","id":0}',
      '{"role":"user","content":[{"type":"video_url","video_url":{"url":"x"}}]}',
      '{"role":"_mystery"}',
    ].join('\n')
    const t = load(text)
    expect(t.messages.map((m) => m.role)).toEqual(['user'])
    expect(t.warnings).toEqual([
      'line(s) with an unknown role skipped: "_mystery" ×1',
      'content kept as opaque parts (unknown part type): "video_url" ×1',
    ])
    const bad = importTranscript('{"role":"_checkpoint","id":0}\n{"role":"_usage","token_count":5}\n', { fileName: 'context.jsonl' })
    expect(bad.ok).toBe(false)
    if (!bad.ok) expect(bad.error.message).toBe('no messages found in the context file')
  })
})
