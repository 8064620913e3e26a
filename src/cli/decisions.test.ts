import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { runCli } from '../../test/cli'
import type { TriggerDecision } from '../engine/model'
import { PRESETS } from '../engine/presets'

// Five turns (system, then user/assistant × 5: Before #0–#10) and one tool schema; no tool calls,
// so the turn ends are the assistant messages #2, #4, #6, #8 and #10.
const FIXTURE = join(__dirname, '../../test/fixtures/cli/five-turns-chat.json')

interface MessageTokens {
  id: string
  index: number
  role: string
  tokens: number
}
interface Side {
  messages: { id: string }[]
  tokens: number
  messageTokens: MessageTokens[]
  toolSchemaTokens: number
  replyPrimingTokens: number
  /** What every request carries that the file does not show, by the run's calibration. */
  calibrationOverheadTokens: number
  overheadTokens: number
}
/** A decision of `compact --json`: the engine's, with its wording. */
type Decision = TriggerDecision & { reason: string }
interface CompactJson {
  config: { window: number; stages: { id: string; enabled: boolean; params: Record<string, unknown> }[] }
  before: Side
  after: Side
  passes: { pass: number; from: number; upto: number; atMessage: number }[]
  decisions: Decision[]
}

async function compactJson(...flags: string[]): Promise<{ out: CompactJson; stderr: string }> {
  const { code, stdout, stderr } = await runCli(['compact', FIXTURE, ...flags, '--json'])
  expect(code).toBe(0)
  return { out: JSON.parse(stdout) as CompactJson, stderr }
}

const sum = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0)
/** The context's tokens up to Before #i with nothing compacted: its messages + schemas + priming. */
const prefixTokens = (side: Side, i: number) =>
  sum(side.messageTokens.slice(0, i + 1).map((m) => m.tokens)) + side.toolSchemaTokens + side.replyPrimingTokens + side.calibrationOverheadTokens
const stageOf = (out: CompactJson, id: string) => out.config.stages.find((s) => s.id === id)!

describe('compact --json: every message’s tokens, and the decision log', () => {
  it('each side lists every message’s tokens, which with the tool schemas and the reply priming add up to its total', async () => {
    const { out } = await compactJson('--stages', 'summarize', '--keep-last', '2', '--compact-after', '4')
    for (const side of [out.before, out.after]) {
      expect(side.messageTokens.map((m) => m.id)).toEqual(side.messages.map((m) => m.id))
      expect(side.messageTokens.map((m) => m.index)).toEqual(side.messages.map((_, i) => i))
      expect(side.tokens).toBe(prefixTokens(side, side.messageTokens.length - 1))
      expect(side.replyPrimingTokens).toBe(3)
      // The leading system message and the one tool schema are the overhead.
      expect(side.overheadTokens).toBe(side.messageTokens[0]!.tokens + side.toolSchemaTokens)
    }
    expect(out.before.messageTokens.map((m) => m.role)).toEqual(['system', ...Array(5).fill(['user', 'assistant']).flat()])
    expect(out.before.toolSchemaTokens).toBeGreaterThan(0)
    expect(out.after.toolSchemaTokens).toBe(out.before.toolSchemaTokens)
  })

  it('seed 001 with keep_last 2, compact_after 4: a decision per turn end, passes at #6 and #10 (more than 4 unsummarized)', async () => {
    const { out } = await compactJson('--stages', 'summarize', '--keep-last', '2', '--compact-after', '4')
    // #2: 2 unsummarized; #4: 4 (not more than 4); #6: 6 → pass 1 over #1–#4, keeping #5–#6;
    // #8: #5–#8 = 4; #10: #5–#10 = 6 → pass 2 over #5–#8.
    expect(out.decisions.map((d) => [d.turn, d.atMessage, d.unsummarized, d.reached, d.fired, d.pass])).toEqual([
      [1, 2, 2, false, false, undefined],
      [2, 4, 4, false, false, undefined],
      [3, 6, 6, true, true, 1],
      [4, 8, 4, false, false, undefined],
      [5, 10, 6, true, true, 2],
    ])
    expect(out.passes.map((p) => [p.pass, p.atMessage, p.from, p.upto])).toEqual([
      [1, 6, 1, 5],
      [2, 10, 5, 9],
    ])
    const [d1, d2, d3, , d5] = out.decisions
    expect(d1!.reason).toBe('2 unsummarized messages ≤ 4 (compact_after 4): 3 more messages needed, no compaction')
    expect(d2!.reason).toBe('4 unsummarized messages ≤ 4 (compact_after 4): 1 more message needed, no compaction')
    // Before the first pass the context is the Before's prefix.
    expect(d3!.tokens).toBe(prefixTokens(out.before, 6))
    expect(d3!.reason).toBe(`6 unsummarized messages > 4 (compact_after 4) → pass 1 fired (${d3!.tokens.toLocaleString('en-US')} → ${d3!.tokensAfter!.toLocaleString('en-US')} tokens)`)
    // The last pass leaves the After: system, the summary, #9 and #10.
    expect(out.after.messageTokens.map((m) => m.role)).toEqual(['system', 'user', 'user', 'assistant'])
    expect(d5!.tokensAfter).toBe(out.after.tokens)
  })

  it('the text report puts the decision under its pass and counts the check points', async () => {
    const flags = ['--stages', 'summarize', '--keep-last', '2', '--compact-after', '4']
    const { out } = await compactJson(...flags)
    const { code, stdout } = await runCli(['compact', FIXTURE, ...flags])
    expect(code).toBe(0)
    const [d3, d5] = [out.decisions[2]!, out.decisions[4]!]
    const n = (x: number) => x.toLocaleString('en-US')
    expect(stdout).toContain(
      [
        'passes   2',
        '  pass 1 (summarize) at message 6: messages 1–4 → summary',
        `    decision: turn 3 (#6): 6 unsummarized messages > 4 (compact_after 4) → pass 1 fired (${n(d3.tokens)} → ${n(d3.tokensAfter!)} tokens)`,
        '  pass 2 (summarize) at message 10: messages 5–8 → summary',
        `    decision: turn 5 (#10): 6 unsummarized messages > 4 (compact_after 4) → pass 2 fired (${n(d5.tokens)} → ${n(d5.tokensAfter!)} tokens)`,
        'decisions summarize: 5 check points, 2 fired, 0 reached but held, 3 not reached',
      ].join('\n'),
    )
  })

  it('--trigger-share 0.5 --window 1000: fires at the first turn end whose context reaches 500 tokens; --compact-after is reported unused', async () => {
    const { out, stderr } = await compactJson('--stages', 'summarize', '--trigger-share', '0.5', '--window', '1000', '--keep-tokens', '100', '--compact-after', '3')
    expect(stderr).toBe('warning: --compact-after: not used: the token trigger (trigger_share) replaces it\n')
    expect(out.config.window).toBe(1000)
    const first = out.decisions.findIndex((d) => d.fired)
    expect(first).toBeGreaterThan(0)
    // Until the first pass the context is the Before's prefix; each check compares it with 500.
    for (const d of out.decisions.slice(0, first + 1)) {
      expect(d.threshold).toBe(500)
      expect(d.thresholdSource).toBe('50% of 1,000 window')
      expect(d.tokens).toBe(prefixTokens(out.before, d.atMessage))
      expect(d.reached).toBe(d.tokens >= 500)
    }
    const short = out.decisions[first - 1]!
    expect(short.reason).toBe(
      `${short.tokens.toLocaleString('en-US')} tokens < 500 (50% of 1,000 window): ${(500 - short.tokens).toLocaleString('en-US')} tokens short, no compaction`,
    )
  })
})

describe('compact --preset and --window', () => {
  it('claude-code-200k: window 200,000, checked before every request, 167,000 = 200,000 − 33,000; short by the difference', async () => {
    const { out } = await compactJson('--preset', 'claude-code-200k')
    expect(out.config.window).toBe(200000)
    expect(stageOf(out, 'summarize')).toEqual({ id: 'summarize', enabled: true, params: { trigger_reserve: 33000, keep_tokens: 0, check: 'request' } })
    // Before every model request: after the user message of each turn (#1, #3, …, #9); the
    // fixture has no tool steps, and its last message (#10, an answer) leaves no request pending.
    expect(out.decisions.map((d) => d.atMessage)).toEqual([1, 3, 5, 7, 9])
    // The fixture records no usage: the preset's measured overhead is what every request adds.
    expect(out.before.calibrationOverheadTokens).toBe(20000)
    for (const d of out.decisions) {
      expect(d.threshold).toBe(167000)
      expect(d.tokens).toBe(prefixTokens(out.before, d.atMessage))
      expect(d.reason).toBe(
        `${d.tokens.toLocaleString('en-US')} tokens < 167,000 (200,000 window − 33,000 reserve): ${(167000 - d.tokens).toLocaleString('en-US')} tokens short, no compaction`,
      )
    }
  })

  it('--window after a preset replaces its window, by tokens or by model: 1M − 33,000 = 967,000', async () => {
    const { out } = await compactJson('--preset', 'claude-code-200k', '--window', 'claude-1m')
    expect(out.config.window).toBe(1000000)
    expect(out.decisions[0]!.threshold).toBe(967000)
    const text = await runCli(['compact', FIXTURE, '--preset', 'claude-code-200k', '--window', '272000'])
    expect(text.stdout).toMatch(/^window {3}272,000 tokens$/m)
  })

  it('claude-code-200k on a session recording Claude Code 2.1.19: the trigger of versions before 2.1.21, 200,000 − 45,000 = 155,000', async () => {
    const file = join(__dirname, '../../test/fixtures/formats/claude-code-2.1-parallel-tools.jsonl')
    const { code, stdout } = await runCli(['compact', file, '--preset', 'claude-code-200k', '--json'])
    expect(code).toBe(0)
    const out = JSON.parse(stdout) as CompactJson
    expect(stageOf(out, 'summarize').params).toEqual({ trigger_reserve: 45000, keep_tokens: 0, check: 'request' })
    expect(out.decisions[0]!.threshold).toBe(155000)
  })

  it('flags after a preset change its params; a stage flag switches its stage on', async () => {
    const { out } = await compactJson('--preset', 'codex-local', '--keep-tokens', '100', '--target', '8000')
    expect(stageOf(out, 'summarize').params).toEqual({ trigger_share: 0.9, keep_user_only: true, keep_tokens: 100, check: 'request' })
    expect(stageOf(out, 'prune-tool-results')).toMatchObject({ enabled: true, params: { target: 8000 } })
  })

  it('flag params are on by themselves and off with --no-; choice and share params take their values', async () => {
    const on = await compactJson('--min-progress', '--refuse-larger', '--keep-user-only', '--check', 'request', '--tail-start', 'user', '--trigger-share', '0.9', '--prune-trigger', '5000')
    expect(stageOf(on.out, 'summarize').params).toMatchObject({
      min_progress: true,
      refuse_larger: true,
      keep_user_only: true,
      check: 'request',
      tail_start: 'user',
      trigger_share: 0.9,
    })
    expect(stageOf(on.out, 'prune-tool-results').params).toMatchObject({ trigger: 5000 })
    const off = await compactJson('--preset', 'openhands-condenser', '--no-min-progress')
    expect(stageOf(off.out, 'summarize').params).toMatchObject({ min_progress: false, keep_last: 48, compact_after: 98 })
  })

  it('bad values are usage errors (exit 2) naming what is accepted', async () => {
    const preset = await runCli(['compact', FIXTURE, '--preset', 'claude'])
    expect(preset.code).toBe(2)
    expect(preset.stderr).toContain(`error: unknown preset "claude"; presets: ${PRESETS.map((p) => p.id).join(', ')}\n`)
    const cases: [string[], string][] = [
      [['--window', 'gpt-9'], '--window takes a number of tokens or a model: claude-200k, claude-1m,'],
      [['--window', '500'], '--window must be at least 1000 tokens, got 500'],
      [['--check', 'hourly'], '--check must be one of turn, request, got "hourly"'],
      [['--tail-start', 'tool'], '--tail-start must be one of any, user, user_within, got "tool"'],
      [['--trigger-share', '1.5'], '--trigger-share must be at most 1, got 1.5'],
      [['--min-progress', '--no-min-progress'], '--min-progress and --no-min-progress contradict each other: give one'],
      [['--stages', 'summarize', '--target', '8000'], '--target is a prune-tool-results param, and --stages leaves prune-tool-results out'],
    ]
    for (const [flags, message] of cases) {
      const r = await runCli(['compact', FIXTURE, ...flags])
      expect(r.code).toBe(2)
      expect(r.stderr).toContain(`error: ${message}`)
    }
  })
})

describe('sweep with a parameter alone: the default grid around the current value', () => {
  it('--x keep_last --y compact_after with keep_last 3 / compact_after 4: 1…8 each (steps of 1, from the minimum 1)', async () => {
    const { code, stdout } = await runCli(['sweep', FIXTURE, '--stages', 'summarize', '--keep-last', '3', '--compact-after', '4', '--x', 'keep_last', '--y', 'compact_after', '--json'])
    expect(code).toBe(0)
    const out = JSON.parse(stdout)
    expect(out.x).toEqual({ param: 'keep_last', values: [1, 2, 3, 4, 5, 6, 7, 8] })
    expect(out.y).toEqual({ param: 'compact_after', values: [1, 2, 3, 4, 5, 6, 7, 8] })
  })

  it('the seed defaults (20 / 40) give the page’s default grid: 5…40 step 5 × 10…80 step 10', async () => {
    const { code, stdout } = await runCli(['sweep', FIXTURE, '--x', 'keep_last', '--y', 'compact_after', '--json'])
    expect(code).toBe(0)
    const out = JSON.parse(stdout)
    expect(out.x.values).toEqual([5, 10, 15, 20, 25, 30, 35, 40])
    expect(out.y.values).toEqual([10, 20, 30, 40, 50, 60, 70, 80])
  })

  it('an unset token param is scaled to the transcript: steps of its tokens / 8, rounded up to 100', async () => {
    const { out } = await compactJson('--stages', 'summarize')
    const { code, stdout } = await runCli(['sweep', FIXTURE, '--x', 'trigger_tokens', '--y', 'keep_last=2,4', '--json'])
    expect(code).toBe(0)
    const step = Math.max(100, Math.ceil(out.before.tokens / 8 / 100) * 100)
    expect(JSON.parse(stdout).x.values).toEqual([1, 2, 3, 4, 5, 6, 7, 8].map((k) => k * step))
  })
})
