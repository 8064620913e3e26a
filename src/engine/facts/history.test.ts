/**
 * A fact's history through the compactions the agent recorded (and a simulation's passes): the
 * loss blamed on the first compaction after the fact's last occurrence, a later mention bringing
 * it back, a later compaction losing it again — the same story in `findFact`, the facts table and
 * `find --json` (`history`, the lost event's `pass`).
 */
import { describe, expect, it } from 'vitest'
import { claudeCodeSession, type SessionStep } from '../../../test/claude-code-session'
import { recordedRunResult } from '../analysis/recorded'
import { importTranscript } from '../formats/index'
import type { Transcript } from '../model'
import { cacheCounter, REPLY_PRIMING_TOKENS } from '../tokens/count'
import { findFact } from './finder'
import { factTable } from './table'
import type { FactEvent } from './verdict'

const countCodePoints = (text: string) => [...text].length

function transcriptOf(steps: readonly SessionStep[]): Transcript {
  const r = importTranscript(claudeCodeSession(steps))
  if (!r.ok) throw new Error(r.error.message)
  return r.transcript
}

const recordedRun = (t: Transcript, compaction?: number) => {
  const run = recordedRunResult(t, cacheCounter('o200k_base', countCodePoints), compaction === undefined ? {} : { compaction })
  if (!run) throw new Error('no recorded compaction')
  return run
}

/** The events of a history without the message ids (indices say where). */
const story = (events: readonly FactEvent[] | undefined) =>
  (events ?? []).map((e) =>
    e.kind === 'lost'
      ? `lost at ${e.stage} ${e.pass ?? ''}`.trim()
      : `${e.kind} at #${e.index} (${e.role}${e.kind === 'needed' ? `, ${e.how}` : ''})`,
  )

// Messages (Before indices): 0 user states the path and the hash, 1 assistant, 2 user, 3 assistant;
// compaction 1 (its summary at #4) keeps the hash, not the path; 5 assistant, 6 user;
// compaction 2 (summary #7) keeps neither; 8 assistant + 9 tool result re-reading the hash; 10
// assistant; compaction 3 (summary #11) keeps neither; 12 assistant.
const SESSION: SessionStep[] = [
  { user: 'Deploy with config/billing/invoice_rules.yaml, built from commit 17015f9a.' },
  { assistant: 'Understood, I will use that file.' },
  { user: 'Start with the totals.' },
  { assistant: 'Totals are fixed.' },
  { compact: 'The user wants invoices deployed from commit 17015f9a.', preTokens: 166_311 },
  { assistant: 'Continuing with the invoices.' },
  { user: 'Now the taxes.' },
  { compact: 'Invoices and taxes are being fixed.', trigger: 'manual', preTokens: 120_000 },
  { tool: 'Bash', input: { command: 'git log -1' }, output: 'commit 17015f9a\nAuthor: dev' },
  { assistant: 'The build is on the right commit.' },
  { compact: 'Invoices and taxes are fixed.', preTokens: 150_500 },
  { assistant: 'All done.' },
]

describe('recorded compactions blame the compaction that dropped a fact', () => {
  const t = transcriptOf(SESSION)

  it('the recorded run carries every compaction up to the one shown as a pass, each message folded by the first that left it behind', () => {
    const run = recordedRun(t)
    expect(run.passes.map((p) => [p.stage, p.pass, p.from, p.upto, p.atMessage])).toEqual([
      ['recorded', 1, 0, 4, 3],
      ['recorded', 2, 4, 7, 6],
      ['recorded', 3, 7, 11, 10],
    ])
    // Context tokens counted like the run's totals: before a compaction, what the previous one left
    // (its summary) and the messages up to the boundary; after it, the agent's summary (Claude Code
    // keeps nothing else). The agent's own figures stay on its records.
    const tok = (...at: number[]) => at.reduce((n, i) => n + (run.before.tokensById[t.messages[i]!.id] ?? 0), 0) + REPLY_PRIMING_TOKENS
    expect(run.passes.map((p) => [p.tokensBefore, p.tokensAfter])).toEqual([
      [tok(0, 1, 2, 3), tok(4)],
      [tok(4, 5, 6), tok(7)],
      [tok(7, 8, 9, 10), tok(11)],
    ])
    expect(run.compactions.map((c) => c.tokensBefore)).toEqual([166_311, 120_000, 150_500])
    const fate = (i: number) => run.fates[t.messages[i]!.id]
    expect(fate(0)).toMatchObject({ kind: 'summarized', stage: 'recorded', pass: 1 })
    expect(fate(5)).toMatchObject({ kind: 'summarized', stage: 'recorded', pass: 2 })
    expect(fate(9)).toMatchObject({ kind: 'summarized', stage: 'recorded', pass: 3 })
    expect(fate(12)).toEqual({ kind: 'kept', changed: false })
  })

  it('a path stated before the first compaction and never again is lost at compaction 1, whichever compaction is shown', () => {
    for (const shown of [0, 1, 2]) {
      const v = findFact(recordedRun(t, shown), 'config/billing/invoice_rules.yaml')
      expect(v.verdict).toBe('lost')
      expect(v.lost?.pass).toBe(1)
      expect(v.lost?.stage).toBe('recorded')
      expect(story(v.history)).toEqual(['entered at #0 (user)', 'lost at recorded 1'])
      expect(v.explanation).toBe("lost in the agent's compaction 1 (message 4, auto, 166,311 tokens) — its summary omits it")
    }
  })

  it('a fact a summary kept is lost at the first compaction whose summary omits it; a tool result re-reading it brings it back; a later one loses it again', () => {
    const v = findFact(recordedRun(t), '17015f9a')
    expect(v.verdict).toBe('lost')
    expect(v.lost?.pass).toBe(3)
    expect(story(v.history)).toEqual(['entered at #0 (user)', 'lost at recorded 2', 'back at #9 (tool)', 'lost at recorded 3'])
    // The engine's sentence names messages by position, as the page and the CLI do.
    expect(v.explanation).toBe(
      "lost at the agent's compaction 2 (message 7, manual, 120,000 tokens); back at Before #9 (a tool result); " +
        "lost again at the agent's compaction 3 (message 11, auto, 150,500 tokens) — its summary omits it",
    )
  })

  it('a fact lost and read again after the last compaction survives, and its history still tells the loss', () => {
    // Shown: compaction 2; the hash comes back at #9, after it.
    const v = findFact(recordedRun(t, 1), '17015f9a')
    expect(v.verdict).toBe('survives')
    expect(story(v.history)).toEqual(['entered at #0 (user)', 'lost at recorded 2', 'back at #9 (tool)'])
    expect(v.explanation).toMatch(/^survives in 1 message after \(.+\) — lost at the agent's compaction 2 \(message 7, manual, 120,000 tokens\); back at .+ \(a tool result\)$/)
  })

  it('the facts table tells each row the same history and the same losing compaction as the finder', () => {
    const run = recordedRun(t)
    const table = factTable(run)
    for (const fact of ['config/billing/invoice_rules.yaml', '17015f9a']) {
      const row = table.rows.find((r) => r.fact === fact)
      const v = findFact(run, fact)
      expect(row?.verdict.lost?.pass).toBe(v.lost?.pass)
      expect(story(row?.verdict.history)).toEqual(story(v.history))
      expect(row?.verdict.explanation).toBe(v.explanation)
    }
    expect(table.passes.map((p) => `${p.stage} ${p.pass}`)).toEqual(['recorded 1', 'recorded 2', 'recorded 3'])
  })
})

describe('a user who asks for a value a compaction removed', () => {
  const t = transcriptOf([
    { user: 'Ship my order ORD-58213 to postal code 80331.' },
    { assistant: 'Noted.' },
    { compact: 'The user has an order to ship.' },
    { user: 'Ship it to the postal code I gave you.' },
    { assistant: 'Which postal code should I use?' },
    { user: 'postal code 80331' },
    { assistant: 'Shipping now.' },
  ])

  it('the history says it was lost at compaction 1, asked for, and restated', () => {
    const run = recordedRun(t)
    const table = factTable(run)
    const row = table.rows.find((r) => r.kind === 'postal-code' && r.fact.endsWith('80331'))
    expect(row?.neededAfterLoss?.pass).toBe(1)
    expect(row?.neededAfterLoss?.messageIndex).toBe(3)
    expect(row?.verdict.verdict).toBe('survives')
    expect(story(row?.verdict.history)).toEqual([
      'entered at #0 (user)',
      'lost at recorded 1',
      'needed at #3 (user, back-reference)',
      'back at #5 (user)',
    ])
  })
})

describe('a value lost twice and asked for after each loss', () => {
  // 0 user states the order; compaction 1 (summary #2) drops it; 3 user restates it; 4
  // assistant; compaction 2 (summary #5) drops it again; 6 user asks for it.
  const t = transcriptOf([
    { user: 'Ship order 4471923 to Lyon.' },
    { assistant: 'On it.' },
    { compact: 'The user wants an order shipped to Lyon.' },
    { user: 'The order is 4471923, by the way.' },
    { assistant: 'Thanks.' },
    { compact: 'Shipping to Lyon is in progress.' },
    { user: 'What was the order number again?' },
  ])

  it('tells both losses and who asked for it after each', () => {
    const run = recordedRun(t)
    const row = factTable(run).rows.find((r) => r.fact === '4471923' && r.kind === 'id')
    expect(story(row?.verdict.history)).toEqual([
      'entered at #0 (user)',
      'lost at recorded 1',
      'needed at #3 (user, verbatim)',
      'lost at recorded 2',
      'needed at #6 (user, back-reference)',
    ])
  })
})
