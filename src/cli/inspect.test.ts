import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { inspectText, type InspectReport } from './inspect'
import { main } from './main'

const SAMPLES = join(__dirname, '../../public/samples')

describe('inspect text form', () => {
  it('starts every value in one column, two spaces after the longest label ("recorded compactions")', () => {
    const report: InspectReport = {
      format: 'openai-chat',
      messages: 5,
      byRole: { system: 1, user: 2, assistant: 1, tool: 1 },
      toolCalls: 1,
      toolResults: 1,
      images: 0,
      thinkingBlocks: 0,
      tools: 2,
      recordedCompactions: [{ atIndex: 3, trigger: 'auto', tokensBefore: 900, tokensAfter: 120, summaryChars: 40, source: 'x' }],
      branches: 0,
      sidechains: [{ title: 'helper', messages: 4 }],
      conversations: [],
      warnings: ['w1'],
      notes: ['n1'],
      usage: null,
    }
    // "recorded compactions" is 20 characters: the values start at column 22.
    expect(inspectText('chat.json', report).split('\n')).toEqual([
      'chat.json: openai-chat',
      'messages              5 (system 1, user 2, assistant 1, tool 1)',
      'tool calls            1',
      'tool results          1',
      'images                0',
      'thinking blocks       0',
      'tool schemas          2',
      'recorded compactions  1',
      "  at message 3 (auto): summary 40 chars, 900 → 120 tokens (agent's count)",
      'branches              0',
      'sidechains            1',
      '  helper: 4 messages',
      'note: n1',
      'warning: w1',
    ])
  })

  it('prints the Claude Code sample with its values in one column', async () => {
    const file = join(SAMPLES, 'claude-code.jsonl')
    // The summary is the compact-summary user record after the compact_boundary (line 48).
    const summaryRecord = readFileSync(file, 'utf8')
      .split('\n')
      .filter((l) => l.trim() !== '')
      .map((l) => JSON.parse(l) as { isCompactSummary?: boolean; message?: { content: string } })
      .find((r) => r.isCompactSummary)
    const summaryChars = summaryRecord?.message?.content.length
    expect(summaryChars).toBeGreaterThan(0)
    let stdout = ''
    const code = await main(['inspect', file], (s) => (stdout += s + '\n'), () => {})
    expect(code).toBe(0)
    // Counts of the file, as in main.test.ts's --json test of the same sample; our calibrated
    // figures (its own test: main.test.ts) read as numbers in the same column.
    const lines = stdout.split('\n')
    expect(lines.slice(0, 9)).toEqual([
      `${file}: claude-code — Fix zone 8 quote rounding (ORD-58213, postal code 94107)`,
      'messages              44 (system 0, user 8, assistant 17, tool 19)',
      'tool calls            19',
      'tool results          19',
      'images                0',
      'thinking blocks       3',
      'tool schemas          0',
      'recorded compactions  1',
      expect.stringMatching(new RegExp(`^  at message 28 \\(manual\\): summary ${summaryChars} chars, 24376 tokens \\(agent's count; ours \\d+ before\\)$`)),
    ])
    expect(lines.slice(9)).toEqual([
      expect.stringMatching(/^recorded usage {8}17 requests; calibrated to the file's usage: ±/),
      'agent version         2.0.76',
      'branches              0',
      'sidechains            0',
      '',
    ])
  })
})
