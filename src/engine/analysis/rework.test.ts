import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { importBytes } from '../formats/index'
import type { Message, PipelineConfig, RunResult, Transcript } from '../model'
import { DEFAULT_PIPELINE, runPipeline } from '../pipeline'
import { countMessageTokens, loadCounter } from '../tokens/count'
import { normalizeArguments, reworkAfterCompactions, reworkSentence, type CompactionRework } from './rework'

function load(path: string): Transcript {
  const url = new URL(`../../../${path}`, import.meta.url)
  const r = importBytes(new Uint8Array(readFileSync(url)), { fileName: path })
  if (!r.ok) throw new Error(r.error.message)
  return r.transcript
}

const at = (t: Transcript, index: number): Message => t.messages[index] as Message

/** Summarize only, small enough to fire on the fixture: 18 conversation messages, keep 4, compact after 10. */
const SUMMARIZE_ONLY: PipelineConfig = {
  encoding: 'o200k_base',
  summarizer: 'extractive',
  stages: [{ id: 'summarize', enabled: true, params: { keep_last: 4, compact_after: 10 } }],
}

async function runOf(t: Transcript, config: PipelineConfig): Promise<{ run: RunResult; tokens: (m: Message) => number }> {
  const counter = await loadCounter(config.encoding)
  const run = await runPipeline(t, config, { counter })
  return { run, tokens: (m) => countMessageTokens(m, counter.count) }
}

describe('normalizeArguments', () => {
  it('spells equal JSON arguments one way (key order, spaces) and trims other text', () => {
    expect(normalizeArguments('{"b": [1, {"d":2, "c":3}], "a": "x"}')).toBe('{"a":"x","b":[1,{"c":3,"d":2}]}')
    expect(normalizeArguments('  ls -la \n')).toBe('ls -la')
  })
})

describe('re-work after a simulated pass (OpenAI chat fixture)', () => {
  // Turn ends: #4, #6, #10, #14, #18. At #14 the 14 conversation messages exceed compact_after 10:
  // pass 1 folds #1–#10 (the read of src/settings.py and its result #3, the port question #5 and its
  // answer #6) and keeps #11–#14. The agent then reads src/settings.py again at #16 (arguments
  // spelled with a space) and the user asks the port question again at #15.
  const t = load('test/fixtures/rework/openai-chat-reread-after-summarize.json')

  it('lists the repeated read and the question asked again after pass 1, with their tokens', async () => {
    const { run, tokens } = await runOf(t, SUMMARIZE_ONLY)
    const pass1 = run.passes.find((p) => p.stage === 'summarize' && p.pass === 1)
    expect(pass1).toMatchObject({ atMessage: 14, from: 1, upto: 11 })
    const rework = reworkAfterCompactions(t, run)
    const entry = rework.find((r) => r.compaction.kind === 'pass' && r.compaction.pass === 1) as CompactionRework
    expect(entry.compaction).toEqual({ kind: 'pass', stage: 'summarize', pass: 1, atMessage: 14 })
    expect(entry.calls).toEqual([
      {
        tool: 'read_file',
        arguments: '{"path":"src/settings.py"}',
        first: { callId: 'call_read_1', call: { id: 'm2', index: 2 }, result: { id: 'm3', index: 3 }, fate: 'summarized' },
        repeat: { callId: 'call_read_2', call: { id: 'm16', index: 16 }, result: { id: 'm17', index: 17 } },
        tokens: tokens(at(t, 17)),
      },
    ])
    expect(entry.questions).toEqual([
      {
        text: 'Log a warning when the sqlite fallback is used. And what is the default port in settings.py again?',
        first: { question: { id: 'm5', index: 5 }, answer: { id: 'm6', index: 6 } },
        repeat: { question: { id: 'm15', index: 15 }, answer: { id: 'm18', index: 18 } },
        tokens: tokens(at(t, 18)),
      },
    ])
    const total = tokens(at(t, 17)) + tokens(at(t, 18))
    expect(entry.tokens).toBe(total)
    expect(entry.sentence).toBe(
      `after pass 1 of summarize at message 14: it repeated 1 tool call (read_file) and was asked 1 question again: ${total.toLocaleString('en-US')} tokens`,
    )
    // The edit and the test run were made once: nothing else repeats, and no recorded compaction.
    expect(rework.every((r) => r.compaction.kind === 'pass')).toBe(true)
    expect(rework.flatMap((r) => r.calls)).toHaveLength(1)
  })

  it('lists nothing when the first read stays verbatim (no pass fires before the re-read)', async () => {
    const { run } = await runOf(t, DEFAULT_PIPELINE)
    // keep_last 20 / compact_after 40 never fire on 18 conversation messages.
    expect(run.passes).toEqual([])
    expect(reworkAfterCompactions(t, run)).toEqual([])
  })
})

describe('re-work after a recorded compaction (Claude Code fixture)', () => {
  // The fixture's /compact: #10 caveat, #11 the command echo, #12 the isCompactSummary record (the
  // boundary's first message). Before it: the Read of convert.py (#1 → result #2) and the question
  // "Which base currency does convert.py use?" (#4, answered at #5). After it: the same Read (#15 →
  // #16) and the same question (#18, answered at #19).
  const t = load('test/fixtures/rework/claude-code-reread-after-compact.jsonl')

  it('lists the re-read and the re-asked question after the agent’s own compaction', async () => {
    expect(t.recordedCompactions).toHaveLength(1)
    expect(t.recordedCompactions[0]).toMatchObject({ atIndex: 12, trigger: 'manual', tokensBefore: 18250 })
    const { run, tokens } = await runOf(t, DEFAULT_PIPELINE)
    const recorded = reworkAfterCompactions(t, run).filter((r) => r.compaction.kind === 'recorded')
    expect(recorded).toHaveLength(1)
    const entry = recorded[0] as CompactionRework
    expect(entry.compaction).toEqual({ kind: 'recorded', compaction: 1, atIndex: 12, trigger: 'manual', tokensBefore: 18250 })
    expect(entry.from).toBe(12)
    expect(entry.to).toBe(t.messages.length - 1)
    expect(entry.calls).toHaveLength(1)
    expect(entry.calls[0]).toMatchObject({
      tool: 'Read',
      arguments: '{"file_path":"/home/dev/ledger/src/fx/convert.py"}',
      first: { callId: 'toolu_01LedgerRead1', call: { index: 1 }, result: { index: 2 }, fate: 'summarized' },
      repeat: { callId: 'toolu_01LedgerRead2', call: { index: 15 }, result: { index: 16 } },
      tokens: tokens(at(t, 16)),
    })
    expect(entry.questions).toHaveLength(1)
    expect(entry.questions[0]).toMatchObject({
      text: 'Which base currency does convert.py use?',
      first: { question: { index: 4 }, answer: { index: 5 } },
      repeat: { question: { index: 18 }, answer: { index: 19 } },
      tokens: tokens(at(t, 19)),
    })
    const total = tokens(at(t, 16)) + tokens(at(t, 19))
    expect(entry.callTokens).toBe(tokens(at(t, 16)))
    expect(entry.tokens).toBe(total)
    expect(entry.sentence).toBe(
      `after the agent's compaction 1 (message 12, manual, 18,250 tokens): it repeated 1 tool call (Read) and was asked 1 question again: ${total.toLocaleString('en-US')} tokens`,
    )
  })
})

describe('re-work on the bundled Claude Code sample', () => {
  // After the manual /compact (boundary at #28) the agent re-reads data/carriers.csv (first read #9,
  // result #10) at #31 and lists the root again (`ls -la` at #1 and #12) at #34; the verbose pytest
  // run (#31) and `git diff --stat` (#34) have other arguments than anything before.
  it('lists the two repeated calls of the agent’s /compact', async () => {
    const t = load('public/samples/claude-code.jsonl')
    // Raw counts: the seeds' numbers on our own count (the sample records usage, auto would calibrate).
    const { run, tokens } = await runOf(t, { ...DEFAULT_PIPELINE, calibration: { mode: 'off' } })
    const entry = reworkAfterCompactions(t, run).find((r) => r.compaction.kind === 'recorded') as CompactionRework
    expect(entry.calls.map((c) => [c.tool, c.first.call.index, c.repeat.call.index])).toEqual([
      ['Read', 9, 31],
      ['Bash', 12, 34],
    ])
    expect(entry.calls.map((c) => c.tokens)).toEqual([tokens(at(t, 33)), tokens(at(t, 35))])
    expect(entry.questions).toEqual([])
  })
})

describe('what is not re-work', () => {
  const base = (messages: Omit<Message, 'index' | 'source'>[]): Transcript => ({
    format: 'openai-chat',
    messages: messages.map((m, index) => ({ ...m, index, source: { format: 'openai-chat' } })),
    recordedCompactions: [{ atIndex: 4, summaryText: 'Earlier: read a.txt.', source: 'openai-chat' }],
    warnings: [],
  })
  const read = (id: string, callId: string): Omit<Message, 'index' | 'source'> => ({
    id,
    role: 'assistant',
    content: null,
    toolCalls: [{ id: callId, name: 'read', arguments: '{"p":"a.txt"}' }],
  })
  const result = (id: string, callId: string): Omit<Message, 'index' | 'source'> => ({
    id,
    role: 'tool',
    toolCallId: callId,
    content: 'alpha beta gamma',
  })

  it('counts only the first repeat after a boundary, and a short or non-question message never', async () => {
    const t = base([
      { id: 'u0', role: 'user', content: 'run it' },
      read('a1', 'c1'),
      result('t2', 'c1'),
      { id: 'a3', role: 'assistant', content: 'Done.' },
      { id: 'u4', role: 'user', content: 'run it' },
      read('a5', 'c2'),
      result('t6', 'c2'),
      read('a7', 'c3'),
      result('t8', 'c3'),
      { id: 'a9', role: 'assistant', content: 'Done again.' },
    ])
    const { run, tokens } = await runOf(t, DEFAULT_PIPELINE)
    const [entry] = reworkAfterCompactions(t, run)
    expect(entry?.calls.map((c) => c.repeat.call.id)).toEqual(['a5'])
    expect(entry?.calls[0]?.tokens).toBe(tokens(at(t, 6)))
    // "run it" is two words and no question.
    expect(entry?.questions).toEqual([])
  })

  it('says "no re-work" for a compaction after which nothing repeats', () => {
    expect(
      reworkSentence({ compaction: { kind: 'recorded', compaction: 2, atIndex: 40 }, calls: [], questions: [], tokens: 0 }),
    ).toBe("after the agent's compaction 2 (message 40): no re-work")
  })
})
