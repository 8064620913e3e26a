import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { importClaudeCode } from '../formats/claude-code'
import type { FormatId, Message, Part, RecordedCompaction, Transcript } from '../model'
import { DEFAULT_PIPELINE, runPipeline } from '../pipeline'
import {
  compareRecordedVsSimulated,
  OPAQUE_SUMMARY_MARKER,
  recordedRunResult,
  recordedView,
} from './recorded'
import { cacheCounter, REPLY_PRIMING_TOKENS } from '../tokens/count'
import { countCodePoints } from '../stages/test-helpers'

const SAMPLE = readFileSync(
  new URL('../../../public/samples/claude-code.jsonl', import.meta.url),
  'utf8',
)

function sample(): Transcript {
  const r = importClaudeCode(SAMPLE)
  if (!r.ok) throw new Error(r.error.message)
  return r.transcript
}

function msg(id: string, role: Message['role'], content: Message['content'], extra: Partial<Message> = {}): Message {
  return { id, index: 0, role, content, source: { format: 'canonical' }, ...extra }
}

function transcript(
  format: FormatId,
  messages: Message[],
  compactions: RecordedCompaction[],
): Transcript {
  return {
    format,
    messages: messages.map((m, index) => ({ ...m, index })),
    recordedCompactions: compactions,
    warnings: [],
  }
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object') {
    for (const v of Object.values(value)) deepFreeze(v)
    Object.freeze(value)
  }
  return value
}

const counter = cacheCounter('o200k_base', countCodePoints)

describe('recordedView on the Claude Code sample', () => {
  // The sample's manual /compact: the isCompactSummary record is message 28; messages 0–27
  // (the work before, the caveat and the /compact echo) are what it summarized; 29–43 came after.
  const t = deepFreeze(sample())
  const view = recordedView(t)

  it('keeps the summary and the messages after the boundary, in order', () => {
    expect(view).not.toBeNull()
    if (!view) return
    const ids = t.messages.map((m) => m.id)
    expect(view.after.messages.map((m) => m.id)).toEqual(ids.slice(28))
    view.after.messages.forEach((m, i) => expect(m.index).toBe(i))
    expect(view.pass).toBe(1)
    expect(view.compaction.trigger).toBe('manual')
  })

  it('marks the summary with a recorded origin covering messages 0–27, which are summarized', () => {
    if (!view) throw new Error('no view')
    const summaryId = t.messages[28]!.id
    expect(view.origins[summaryId]).toEqual({
      kind: 'summary',
      stage: 'recorded',
      pass: 1,
      fromIndex: 0,
      toIndex: 27,
      coveredIds: t.messages.slice(0, 28).map((m) => m.id),
    })
    for (const m of t.messages.slice(0, 28))
      expect(view.fates[m.id]).toEqual({ kind: 'summarized', stage: 'recorded', pass: 1, summaryId })
    for (const m of t.messages.slice(28)) expect(view.fates[m.id]).toEqual({ kind: 'kept', changed: false })
    for (const m of t.messages.slice(29))
      expect(view.origins[m.id]).toEqual({ kind: 'original', beforeId: m.id, changed: false })
  })

  it('is valid for the provider: no tool result lost its call across the boundary', () => {
    if (!view) throw new Error('no view')
    expect(view.checks.after).toEqual([])
    expect(view.warnings).toEqual([])
  })
})

describe('recordedView per format', () => {
  it('Codex: uses replacement_history, matching kept messages verbatim and naming the summary', () => {
    const t = transcript(
      'codex-rollout',
      [
        msg('env', 'user', '<environment_context>cwd</environment_context>'),
        msg('task', 'user', 'Fix the build'),
        msg('w1', 'assistant', 'Working.'),
        msg('more', 'user', 'Also the docs'),
        msg('w2', 'assistant', 'Done.'),
        msg('next', 'user', 'Thanks'),
      ],
      [
        {
          atIndex: 5,
          summaryText: 'SUMMARY: build fixed',
          source: 'codex-rollout',
          replacementHistory: [
            msg('r0', 'user', '<environment_context>cwd</environment_context>'),
            msg('r1', 'user', 'Fix the build'),
            msg('r2', 'user', 'Also the docs'),
            msg('r3', 'user', '<permissions>workspace-write</permissions>'),
            msg('r4', 'user', 'Another language model started…\nSUMMARY: build fixed'),
          ],
        },
      ],
    )
    const view = recordedView(deepFreeze(t))
    if (!view) throw new Error('no view')
    expect(view.after.messages.map((m) => m.id)).toEqual(['env', 'task', 'more', 'r3', 'r4', 'next'])
    expect(view.origins.r3).toEqual({ kind: 'instruction', stage: 'recorded' })
    expect(view.origins.r4).toMatchObject({
      kind: 'summary',
      stage: 'recorded',
      fromIndex: 2,
      toIndex: 4,
      coveredIds: ['w1', 'w2'],
    })
    expect(view.fates.w1).toEqual({ kind: 'summarized', stage: 'recorded', pass: 1, summaryId: 'r4' })
    expect(view.fates.env).toEqual({ kind: 'kept', changed: false })
    expect(view.fates.next).toEqual({ kind: 'kept', changed: false })
  })

  it('Responses: keeps the user messages and the opaque compaction item, summarizing the rest', () => {
    const compaction: Part[] = [{ type: 'opaque', kind: 'compaction', raw: { type: 'compaction' } }]
    const t = transcript(
      'openai-responses',
      [
        msg('sys', 'system', 'You are a support agent.'),
        msg('u1', 'user', 'Where is A-1?'),
        msg('a1', 'assistant', 'Looking.'),
        msg('u2', 'user', 'Thanks'),
        msg('cmp', 'assistant', compaction, { flags: { compactSummary: true } }),
        msg('u3', 'user', 'And B-2?'),
      ],
      [{ atIndex: 4, summaryMessageId: 'cmp', summaryText: null, source: 'openai-responses' }],
    )
    const view = recordedView(t)
    if (!view) throw new Error('no view')
    expect(view.after.messages.map((m) => m.id)).toEqual(['sys', 'u1', 'u2', 'cmp', 'u3'])
    expect(view.fates.a1).toMatchObject({ kind: 'summarized', summaryId: 'cmp' })
    expect(view.origins.cmp).toMatchObject({ kind: 'summary', coveredIds: ['a1'] })
    expect(view.warnings).toEqual([])
  })

  it('Anthropic: the assistant message holding the compaction block is the summary', () => {
    const t = transcript(
      'anthropic-messages',
      [
        msg('q1', 'user', 'Question one'),
        msg('a1', 'assistant', 'Answer one'),
        msg('q2', 'user', 'Question two'),
        msg('c', 'assistant', [
          { type: 'opaque', kind: 'compaction', raw: { type: 'compaction', content: 'S' } },
          { type: 'text', text: 'Answer two' },
        ]),
      ],
      [{ atIndex: 3, summaryText: 'S', source: 'anthropic-messages' }],
    )
    const view = recordedView(t)
    if (!view) throw new Error('no view')
    expect(view.after.messages.map((m) => m.id)).toEqual(['c'])
    expect(view.origins.c).toMatchObject({ kind: 'summary', coveredIds: ['q1', 'a1', 'q2'] })
    // The checker still says what a provider would say about this context on its own.
    expect(view.checks.after.map((p) => p.rule)).toEqual(['first-not-user'])
    expect(view.warnings).toEqual([
      'recorded compaction 1: the API drops the messages before a compaction block itself; ' +
        'a request holding only this context would need a user turn first',
    ])
  })

  it('keeps keptMessageIds when the importer names them (OpenHands: events not forgotten)', () => {
    const t = transcript(
      'openhands',
      [msg('m1', 'user', 'Fix it'), msg('m2', 'assistant', 'ok'), msg('m3', 'user', 'go')],
      [{ atIndex: 2, summaryText: 'did m2', keptMessageIds: ['m1'], source: 'openhands' }],
    )
    const view = recordedView(t)
    if (!view) throw new Error('no view')
    expect(view.after.messages.map((m) => [m.id, m.content])).toEqual([
      ['m1', 'Fix it'],
      ['recorded-summary-1', 'did m2'],
      ['m3', 'go'],
    ])
    expect(view.after.messages[1]).toMatchObject({ role: 'user', flags: { compactSummary: true } })
  })

  it('stands a marker for a summary the source did not keep, and says so', () => {
    const t = transcript(
      'inspect-ai',
      [msg('m1', 'user', 'a'), msg('m2', 'assistant', 'b'), msg('m3', 'user', 'c')],
      [{ atIndex: 2, summaryText: null, source: 'inspect-ai' }],
    )
    const view = recordedView(t)
    if (!view) throw new Error('no view')
    expect(view.after.messages[0]).toMatchObject({ id: 'recorded-summary-1', content: OPAQUE_SUMMARY_MARKER })
    expect(view.warnings).toEqual([
      'recorded compaction 1: its summary is not in the source (encrypted or not saved); a marker stands for it',
    ])
  })

  it('is null without a recorded compaction; options.compaction picks an earlier one', () => {
    const plain = transcript('openai-chat', [msg('m', 'user', 'hi')], [])
    expect(recordedView(plain)).toBeNull()
    const two = transcript(
      'claude-code',
      [msg('a', 'user', 'x'), msg('s1', 'user', 'S1'), msg('b', 'user', 'y'), msg('s2', 'user', 'S2')],
      [
        { atIndex: 1, summaryMessageId: 's1', summaryText: 'S1', source: 'claude-code' },
        { atIndex: 3, summaryMessageId: 's2', summaryText: 'S2', source: 'claude-code' },
      ],
    )
    expect(recordedView(two)?.after.messages.map((m) => m.id)).toEqual(['s2'])
    expect(recordedView(two, { compaction: 0 })?.after.messages.map((m) => m.id)).toEqual([
      's1',
      'b',
      's2',
    ])
    expect(recordedView(two, { compaction: 2 })).toBeNull()
  })
})

describe('recordedRunResult and compareRecordedVsSimulated', () => {
  it('counts tokens like a run: messages + reply priming, per id', () => {
    const t = sample()
    const run = recordedRunResult(t, counter)
    if (!run) throw new Error('no run')
    const sum = Object.values(run.after.tokensById).reduce((a, b) => a + b, 0)
    expect(run.after.totals).toEqual({
      messages: 16,
      tokens: sum + REPLY_PRIMING_TOKENS,
      overheadTokens: 0,
    })
    expect(run.before.totals.messages).toBe(44)
    expect(run.after.totals.tokens).toBeLessThan(run.before.totals.tokens)
    // The sample records one compaction, before message 28: one recorded pass over messages 0–27.
    expect(run.passes.map((p) => [p.stage, p.pass, p.from, p.upto, p.atMessage])).toEqual([['recorded', 1, 0, 28, 27]])
  })

  it('compares what the agent kept with a simulation of the same transcript', async () => {
    const t = sample()
    const recorded = recordedRunResult(t, counter)
    if (!recorded) throw new Error('no run')
    const simulated = await runPipeline(t, DEFAULT_PIPELINE, { counter })
    const cmp = compareRecordedVsSimulated(recorded, simulated)
    expect(cmp.recorded).toEqual({ messages: 16, tokens: recorded.after.totals.tokens })
    expect(cmp.simulated).toEqual({
      messages: simulated.after.totals.messages,
      tokens: simulated.after.totals.tokens,
    })
    const keptBy = (fates: Record<string, { kind: string }>) =>
      t.messages.filter((m) => fates[m.id]?.kind === 'kept').map((m) => m.id)
    const r = keptBy(recorded.fates)
    const s = keptBy(simulated.fates)
    expect(cmp.keptVerbatim.both).toEqual(r.filter((id) => s.includes(id)))
    expect(cmp.keptVerbatim.recordedOnly).toEqual(r.filter((id) => !s.includes(id)))
    expect(cmp.keptVerbatim.simulatedOnly).toEqual(s.filter((id) => !r.includes(id)))
    // The agent kept the 16 messages from its summary on.
    expect(r).toEqual(t.messages.slice(28).map((m) => m.id))
  })
})
