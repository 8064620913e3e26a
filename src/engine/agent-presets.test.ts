/**
 * Each agent preset against its published rule (docs/agent-presets.md and the preset's own
 * source text): on a transcript whose per-message tokens the test sets, the check point where
 * the preset fires, the level it compares with and what it keeps are worked out by hand in the
 * comments and asserted as literals — never taken from the engine's output.
 *
 * Tokens: the counter counts code points, so a message's tokens are MESSAGE_OVERHEAD_TOKENS (3)
 * + the code points of its content (+ each tool call's name and arguments); `sized` builders
 * pad the content so a message is exactly the tokens asked for. A context's tokens are the sum
 * of its messages + REPLY_PRIMING_TOKENS (3); no tool schemas. The summarizer answers 'S'.
 */
import { describe, expect, it } from 'vitest'
import type { Message, RunResult, TriggerDecision } from './model'
import { DEFAULT_PIPELINE, runPipeline } from './pipeline'
import { applyPreset, presetById } from './presets'
import { assistant, countCodePoints, indexed, toolResult, user } from './stages/test-helpers'
import { describeDecision } from './stages/triggers'
import { cacheCounter, MESSAGE_OVERHEAD_TOKENS, REPLY_PRIMING_TOKENS } from './tokens/count'

/** Reply priming added to every context total (tokens/count.ts). */
const PRIMING = 3
/** Per-message overhead (tokens/count.ts). */
const OVERHEAD = 3
/** The counts as the comments work them out: raw, without the overhead an agent preset sets for calibration. */
const RAW = { calibration: { mode: 'off' as const } }

/** Content of exactly `tokens − OVERHEAD` code points, starting with `label`. */
function fill(label: string, tokens: number): string {
  return `${label} ${'x'.repeat(tokens - OVERHEAD - label.length - 1)}`
}
const U = (id: string, tokens: number) => user(id, fill(id, tokens))
const A = (id: string, tokens: number) => assistant(id, fill(id, tokens))
/** An assistant message of `tokens` tokens calling `read` once per id (arguments `{"p":"x…"}`). */
function CALL(id: string, callIds: readonly string[], tokens: number): Message {
  // Per call: name 'read' (4) + `{"p":"` (6) + padding + `"}` (2).
  const each = (tokens - OVERHEAD) / callIds.length - 12
  return assistant(id, null, callIds.map((c) => ({ id: c, name: 'read', arguments: JSON.stringify({ p: 'x'.repeat(each) }) })))
}
const R = (id: string, callId: string, tokens: number) => toolResult(id, callId, fill(id, tokens), 'read')

/** Turn `t`: user `u<t>`, a `read` call `c<t>`, its result `r<t>`, the reply `a<t>` (4 messages). */
function toolTurn(t: number, sizes: { u: number; c: number; r: number; a: number }): Message[] {
  return [U(`u${t}`, sizes.u), CALL(`c${t}`, [`call${t}`], sizes.c), R(`r${t}`, `call${t}`, sizes.r), A(`a${t}`, sizes.a)]
}
function toolTurns(n: number, sizes: (t: number) => { u: number; c: number; r: number; a: number }): Message[] {
  return Array.from({ length: n }, (_, i) => toolTurn(i + 1, sizes(i + 1))).flat()
}
/** Turn `t` without tools: `u<t>`, `a<t>`. */
function chatTurns(n: number, sizes: (t: number) => { u: number; a: number }): Message[] {
  return Array.from({ length: n }, (_, i) => [U(`u${i + 1}`, sizes(i + 1).u), A(`a${i + 1}`, sizes(i + 1).a)]).flat()
}

/** Tokens of the summary message of a pass whose header is `header` (content `header\nS`). */
const summaryTokens = (header: string) => OVERHEAD + [...`${header}\nS`].length

const counter = cacheCounter('o200k_base', countCodePoints)

/** Runs preset `id` (applied to the default pipeline) over `messages` with the 'S' summarizer. */
async function runPreset(id: string, messages: Message[], answer = 'S'): Promise<RunResult> {
  const preset = presetById(id)
  if (!preset) throw new Error(`no preset ${id}`)
  // Raw counts: the agent's documented overhead the preset sets is calibration's (presets.test.ts).
  const config = { ...DEFAULT_PIPELINE, ...applyPreset(preset, DEFAULT_PIPELINE), ...RAW }
  const transcript = { format: 'openai-chat' as const, messages: indexed(messages), recordedCompactions: [], warnings: [] }
  const result = await runPipeline(transcript, config, { counter, summarizer: () => Promise.resolve(answer), skipChecks: true })
  expect(result.stages.filter((s) => s.error !== undefined)).toEqual([])
  return result
}

const of = (r: RunResult, stage: TriggerDecision['stage']) => (r.decisions ?? []).filter((d) => d.stage === stage)
const fired = (r: RunResult, stage: TriggerDecision['stage']) => of(r, stage).filter((d) => d.fired)
const ids = (ms: readonly Message[]) => ms.map((m) => m.id)
/** The before ids whose fate is `kind`. */
const withFate = (r: RunResult, kind: string) => Object.keys(r.fates).filter((id) => r.fates[id]!.kind === kind)

describe('the fixtures count what the comments say', () => {
  it('overhead, priming and the sized builders', () => {
    expect(MESSAGE_OVERHEAD_TOKENS).toBe(OVERHEAD)
    expect(REPLY_PRIMING_TOKENS).toBe(PRIMING)
    const t = toolTurn(1, { u: 2_000, c: 1_000, r: 20_000, a: 1_000 })
    const parallel = CALL('c', ['x', 'y'], 1_003)
    const count = (m: Message) => {
      let n = OVERHEAD + (typeof m.content === 'string' ? [...m.content].length : 0)
      for (const c of m.toolCalls ?? []) n += [...c.name].length + [...c.arguments].length
      return n
    }
    expect(t.map(count)).toEqual([2_000, 1_000, 20_000, 1_000])
    expect(count(parallel)).toBe(1_003)
  })
})

/** A preset that makes one summarize pass on a transcript of `turns` tool turns of `shape`. */
interface OnePass {
  name: string
  preset: string
  turns: number
  shape: (turn: number) => { u: number; c: number; r: number; a: number }
  /** The check point just before the pass: its tokens and the gap the log words. */
  short: { atMessage: number; tokens: number; gap: string }
  fire: Partial<TriggerDecision>
  /** The pass's [from, upto) (before indices). */
  span: [number, number]
  after: string[]
  /** Further assertions of the entry. */
  extra?: (r: RunResult) => void
}

/** Claude Code 200K turn (4 messages from index 4(t−1)): 24,000 tokens. */
const claude200k = () => ({ u: 2_000, c: 1_000, r: 20_000, a: 1_000 })
/** Codex turn t: its user message's tokens. */
const codexUsers = [9_000, 5_000, 8_000, 6_000, 3_000]

const ONE_PASS: OnePass[] = [
  // Check points (before a model request): each u (followed by its call) and each r (followed
  // by the reply); the last message, a reply, leaves no request pending: 2 × 10 = 20 decisions.
  // u7 (24): 6 × 24,000 + 2,000 + 3 = 146,003; r7 (26): 6 × 24,000 + 23,000 + 3 = 167,003 ≥
  // 167,000. Nothing before the check point stays verbatim: the summary, then what came after.
  {
    name: 'Claude Code 200K: fires at the result of turn 7 (167,003 ≥ 200,000 − 33,000 = 167,000), not at turn 7’s user message',
    preset: 'claude-code-200k',
    turns: 10,
    shape: claude200k,
    short: { atMessage: 24, tokens: 146_003, gap: '20,997 tokens short' },
    fire: {
      turn: 7,
      atMessage: 26,
      tokens: 167_003,
      threshold: 167_000,
      op: '≥',
      thresholdSource: '200,000 window − 33,000 reserve',
      pass: 1,
      tokensAfter: summaryTokens('[Summary of messages 0–26 (pass 1)]') + PRIMING,
    },
    span: [0, 27],
    after: ['summary:summarize:1', 'a7', ...ids(toolTurns(10, claude200k).slice(28))],
    extra: (r) => {
      expect(of(r, 'summarize')).toHaveLength(20)
      expect(r.passes[0]!.atMessage).toBe(26)
      expect(withFate(r, 'summarized')).toHaveLength(27)
    },
  },
  // Codex: turn t: u codexUsers[t−1], c 1,000, r 60,000, a 1,000. Ends: t1 71,000, t2 138,000,
  // t3 208,000. u4 (12): 208,000 + 6,000 + 3 = 214,003; r4 (14): 214,000 + 61,000 + 3 = 275,003
  // ≥ 244,800. Users newest first within 20,000: u4 6,000, u3 14,000, u2 19,000; u1 would make
  // 28,000. They come first, in their order, then the summary of every other message.
  {
    name: 'Codex local: 90% of 272,000 = 244,800; fires at turn 4’s result; keeps u2, u3, u4 before the summary',
    preset: 'codex-local',
    turns: 5,
    shape: (t) => ({ u: codexUsers[t - 1]!, c: 1_000, r: 60_000, a: 1_000 }),
    short: { atMessage: 12, tokens: 214_003, gap: '30,797 tokens short' },
    fire: {
      turn: 4,
      atMessage: 14,
      tokens: 275_003,
      threshold: 244_800,
      thresholdSource: '90% of 272,000 window',
      tokensAfter: 19_000 + summaryTokens('[Summary of messages 0–14 (pass 1)]') + PRIMING,
    },
    span: [0, 15],
    after: ['u2', 'u3', 'u4', 'summary:summarize:1', 'a4', 'u5', 'c5', 'r5', 'a5'],
    extra: (r) => {
      expect(r.passes[0]!.kept).toEqual([4, 8, 12])
      expect(withFate(r, 'summarized').sort()).toEqual(['a1', 'a2', 'a3', 'c1', 'c2', 'c3', 'c4', 'r1', 'r2', 'r3', 'r4', 'u1'])
    },
  },
  // Turn: u 2,000, c 1,000, r 120,000, a 1,000 = 124,000. u8 (28): 7 × 124,000 + 2,000 + 3 =
  // 870,003; r8 (30): 7 × 124,000 + 123,000 + 3 = 991,003 ≥ 1,000,000 − 33,000.
  {
    name: 'Claude Code 1M: the preset sets the window; fires at 1,000,000 − 33,000 = 967,000 (turn 8’s result)',
    preset: 'claude-code-1m',
    turns: 9,
    shape: () => ({ u: 2_000, c: 1_000, r: 120_000, a: 1_000 }),
    short: { atMessage: 28, tokens: 870_003, gap: '96,997 tokens short' },
    fire: { turn: 8, atMessage: 30, tokens: 991_003, threshold: 967_000, thresholdSource: '1,000,000 window − 33,000 reserve' },
    span: [0, 31],
    after: ['summary:summarize:1', 'a8', 'u9', 'c9', 'r9', 'a9'],
  },
  // Turn: u 10,000, c 1,000, r 100,000, a 150,000 = 261,000. r2 (6): 261,000 + 111,000 + 3 =
  // 372,003 < 524,288; u3 (8): 522,000 + 10,000 + 3 = 532,003 ≥ 524,288. Budget 0.3 × 532,003 =
  // 159,600.9: u3 10,000 fits, a2 (150,000) would make 160,000. Gemini's split (first user
  // message after ≥ 70% of the history, 0.7 × 532,000 = 372,400; u2 starts at 261,000, u3 at
  // 522,000) is u3 as well.
  {
    name: 'Gemini CLI: 50% of 1,048,576 = 524,288; fires at u3 (532,003) and keeps u3 alone (a2 would make 160,000 > 30%)',
    preset: 'gemini-cli',
    turns: 3,
    shape: () => ({ u: 10_000, c: 1_000, r: 100_000, a: 150_000 }),
    short: { atMessage: 6, tokens: 372_003, gap: '152,285 tokens short' },
    fire: { turn: 3, atMessage: 8, tokens: 532_003, threshold: 524_288, thresholdSource: '50% of 1,048,576 window' },
    span: [0, 8],
    after: ['summary:summarize:1', 'u3', 'c3', 'r3', 'a3'],
  },
  // Turn: u 2,000, c 1,000, r 20,000, a 27,000 = 50,000. r3 (10): 100,000 + 23,000 + 3 =
  // 123,003; u4 (12): 150,000 + 2,000 + 3 = 152,003 ≥ 150,000: u4 is summarized with the rest
  // (nothing before the compaction block is sent again).
  {
    name: 'Anthropic API compaction: fires before turn 4’s request (152,003 ≥ 150,000), summarizing u4 and all before it',
    preset: 'anthropic-compaction',
    turns: 5,
    shape: () => ({ u: 2_000, c: 1_000, r: 20_000, a: 27_000 }),
    short: { atMessage: 10, tokens: 123_003, gap: '26,997 tokens short' },
    fire: { turn: 4, atMessage: 12, tokens: 152_003, threshold: 150_000, thresholdSource: 'trigger_tokens 150,000' },
    span: [0, 13],
    after: ['summary:summarize:1', 'c4', 'r4', 'a4', 'u5', 'c5', 'r5', 'a5'],
  },
  // Turn: u 1,000, c 1,000, r 30,000, a 2,000 = 34,000. r5 (18): 136,000 + 32,000 + 3 =
  // 168,003; u6 (20): 170,000 + 1,000 + 3 = 171,003 ≥ 85% of 200,000. Tail within 20,000: u6
  // 1,000, a5 3,000; r5 would make 33,000.
  {
    name: 'Deep Agents: 85% of 200,000 = 170,000; fires before turn 6’s request (171,003); keeps a5 and u6 (r5 does not fit 20,000)',
    preset: 'deep-agents',
    turns: 6,
    shape: () => ({ u: 1_000, c: 1_000, r: 30_000, a: 2_000 }),
    short: { atMessage: 18, tokens: 168_003, gap: '1,997 tokens short' },
    fire: { turn: 6, atMessage: 20, tokens: 171_003, threshold: 170_000, thresholdSource: '85% of 200,000 window' },
    span: [0, 19],
    after: ['summary:summarize:1', 'a5', 'u6', 'c6', 'r6', 'a6'],
  },
]

describe('the presets that fire once here: where, at what level, and what they keep', () => {
  it.each(ONE_PASS)('$name', async (c) => {
    const r = await runPreset(c.preset, toolTurns(c.turns, c.shape))
    const short = of(r, 'summarize').find((d) => d.atMessage === c.short.atMessage)!
    expect(short).toMatchObject({ tokens: c.short.tokens, reached: false })
    expect(describeDecision(short)).toContain(c.short.gap)
    expect(fired(r, 'summarize')).toEqual([expect.objectContaining(c.fire)])
    expect(r.passes.map((p) => [p.from, p.upto])).toEqual([c.span])
    expect(ids(r.after.messages)).toEqual(c.after)
    const summary = r.after.messages.find((m) => m.id === 'summary:summarize:1')!
    expect(summary.content).toBe(`[Summary of messages 0–${c.span[1] - 1} (pass 1)]\nS`)
    c.extra?.(r)
  })
})

describe('Gemini CLI: a compression that does not shrink the context is rejected', () => {
  it('refuses a summary not smaller than what it replaces (on a 2,000-token window: level 1,000)', async () => {
    // u1 600, a1 300, u2 300 → u2 (2): 1,200 + 3 ≥ 1,000; budget 0.3 × 1,203 = 360.9 keeps u2; the
    // slice u1 + a1 is 900 tokens; a 1,000-code-point summary is larger → no pass.
    const preset = presetById('gemini-cli')!
    const config = { ...applyPreset(preset, DEFAULT_PIPELINE), window: 2_000, ...RAW }
    const messages = indexed([U('u1', 600), A('a1', 300), U('u2', 300), A('a2', 100)])
    const transcript = { format: 'openai-chat' as const, messages, recordedCompactions: [], warnings: [] }
    const r = await runPipeline(transcript, config, { counter, summarizer: () => Promise.resolve('y'.repeat(1_000)) })
    const held = of(r, 'summarize').find((d) => d.atMessage === 2)!
    expect(held).toMatchObject({ tokens: 1_203, threshold: 1_000, reached: true, fired: false })
    expect(held.held).toContain('refuse_larger')
    expect(r.passes).toEqual([])
    expect(ids(r.after.messages)).toEqual(['u1', 'a1', 'u2', 'a2'])
  })
})

describe('Anthropic clear_tool_uses: at ≥ 100,000 input tokens, all but the newest 3 tool uses’ results cleared', () => {
  // Turns 1–5: u 1,000, c 500, r 20,000, a 500 = 22,000. Turn 6: u 1,000, two parallel calls
  // (1,003), results 20,000 each, a 500.
  const sixTurns = () => [
    ...toolTurns(5, () => ({ u: 1_000, c: 500, r: 20_000, a: 500 })),
    U('u6', 1_000),
    CALL('c6', ['call6a', 'call6b'], 1_003),
    R('r6a', 'call6a', 20_000),
    R('r6b', 'call6b', 20_000),
    A('a6', 500),
  ]
  const PLACEHOLDER = 'Result dropped to free context. Call read again if you still need it.'

  it('152,506 tokens: r1–r4 become the placeholder; r5, r6a, r6b (the newest 3 tool uses) stay', async () => {
    const r = await runPreset('anthropic-clear-tool-uses', sixTurns())
    expect(withFate(r, 'pruned').sort()).toEqual(['r1', 'r2', 'r3', 'r4'])
    for (const id of ['r1', 'r2', 'r3', 'r4']) expect(r.after.messages.find((m) => m.id === id)!.content).toBe(PLACEHOLDER)
    for (const id of ['r5', 'r6a', 'r6b']) expect(r.after.messages.find((m) => m.id === id)!.content).toBe(fill(id, 20_000))
    // One decision per turn end: 22,000t + 3 for t ≤ 5; turn 6: 110,000 + 1,000 + 1,003 + 40,000 + 500 + 3.
    const log = of(r, 'prune-tool-results')
    expect(log.map((d) => [d.turn, d.tokens, d.reached])).toEqual([
      [1, 22_003, false],
      [2, 44_003, false],
      [3, 66_003, false],
      [4, 88_003, false],
      [5, 110_003, true],
      [6, 152_506, true],
    ])
    expect(log[5]).toMatchObject({ fired: true, threshold: 100_000, op: '≥', thresholdSource: 'trigger 100,000' })
    expect(describeDecision(log[3]!)).toContain('11,997 tokens short')
  })

  it('under the trigger nothing is cleared, though its target is 0', async () => {
    const r = await runPreset('anthropic-clear-tool-uses', toolTurns(4, () => ({ u: 1_000, c: 500, r: 20_000, a: 500 })))
    expect(withFate(r, 'pruned')).toEqual([])
    expect(r.stages.find((s) => s.stage === 'prune-tool-results')!.changed).toBe(false)
    expect(of(r, 'prune-tool-results').map((d) => d.reached)).toEqual([false, false, false, false])
  })
})

describe('OpenHands LLM condenser: more than 98 unsummarized messages → the newest 48 kept; the goal pinned', () => {
  it('fires at u50 (99 messages), summarizes m0–m50, keeps m51 on, and pins the first user message', async () => {
    // 55 turns u/a of 20 tokens each (u<t> at 2(t−1)); check points: every user message (before
    // the reply); the last message is a reply (no request pending). At u49 (96): 97 messages ≤ 98 (2 more needed); u50 (98): 99 > 98.
    // Tail: 99 − 48 = 51 → m0..m50 summarized.
    const messages = chatTurns(55, () => ({ u: 20, a: 20 }))
    messages[0] = user('u1', 'Fix the flaky build.')
    const r = await runPreset('openhands-condenser', messages)
    const log = of(r, 'summarize')
    expect(log).toHaveLength(55)
    const u49 = log.find((d) => d.atMessage === 96)!
    expect(u49).toMatchObject({ unsummarized: 97, threshold: 98, op: '>', reached: false })
    expect(describeDecision(u49)).toContain('2 more messages needed')
    expect(fired(r, 'summarize')).toEqual([
      expect.objectContaining({ turn: 50, atMessage: 98, unsummarized: 99, threshold: 98, thresholdSource: 'compact_after 98' }),
    ])
    expect(r.passes.map((p) => [p.from, p.upto])).toEqual([[0, 51]])
    expect(ids(r.after.messages.slice(0, 2))).toEqual(['summary:summarize:1', 'pinned:facts'])
    expect(r.after.messages[1]!.content).toContain('Fix the flaky build.')
    expect(ids(r.after.messages.slice(2))).toEqual(ids(indexed(messages).slice(51)))
  })
})

describe('OpenHands observation masking: the newest 50 tool steps unmasked', () => {
  it('55 steps: the results of steps 1–5 become the placeholder, 6–55 stay', async () => {
    const r = await runPreset('openhands-masking', toolTurns(55, () => ({ u: 20, c: 20, r: 200, a: 20 })))
    expect(withFate(r, 'pruned').sort()).toEqual(['r1', 'r2', 'r3', 'r4', 'r5'])
    expect(r.after.messages.find((m) => m.id === 'r6')!.content).toBe(fill('r6', 200))
  })
})

describe('aider: after each reply, above 8,192 tokens (≥ 8,193); the tail under 4,096 (≤ 4,095) from the end, the head ending at an assistant message', () => {
  it('two passes: turn 6 (9,003) keeps u5–a6; turn 8 keeps u7–a8', async () => {
    // Turns 1–4: u 500, a 500; turns 5–8: u 2,000, a 500. Turn ends: t4 4,003, t5 6,503
    // (1,690 short of 8,193), t6 (index 11) 9,003 > 8,192. Tail walk from a6: 500, u6 2,500, a5 3,000,
    // u5 5,000 ≥ 4,096 → split before a5 (9); the head must end with an assistant message (aider
    // history.py), so the split moves back to u5 (8): m0–m7 summarized, u5–a6 (5,000) kept.
    // After: S1 + 5,000 + 3; t7: S1 + 7,503 ≤ 8,192; t8 (15): S1 + 10,003 > 8,192 → the same walk
    // gives u7 (12): m8–m11 folded into pass 2.
    const r = await runPreset('aider', chatTurns(8, (t) => (t <= 4 ? { u: 500, a: 500 } : { u: 2_000, a: 500 })))
    const log = of(r, 'summarize')
    expect(log.map((d) => d.turn)).toEqual([1, 2, 3, 4, 5, 6, 7, 8])
    expect(describeDecision(log[4]!)).toContain('1,690 tokens short')
    const s1 = summaryTokens('[Summary of messages 0–7 (pass 1)]')
    expect(fired(r, 'summarize').map((d) => [d.turn, d.atMessage, d.tokens, d.threshold])).toEqual([
      [6, 11, 9_003, 8_193],
      [8, 15, s1 + 10_003, 8_193],
    ])
    expect(r.passes.map((p) => [p.from, p.upto])).toEqual([
      [0, 8],
      [8, 12],
    ])
    expect(ids(r.after.messages)).toEqual(['summary:summarize:2', 'u7', 'a7', 'u8', 'a8'])
  })
})

describe('Seed defaults: more than 40 unsummarized messages at a turn end → the newest 20 kept', () => {
  it('35 turns: passes at turn 21 (42 messages → m0–m21) and turn 32 (64 − 22 = 42 → m22–m43)', async () => {
    // u/a of 10 tokens: 703 tokens in all, under prune's 26,000 default target (prune never reached).
    // Turn t ends at index 2t − 1 with 2t messages; pass 1: 2t > 40 → t = 21, upto 42 − 20 = 22.
    // Then 2t − 22 > 40 → t = 32, upto 64 − 20 = 44.
    const r = await runPreset('seed-defaults', chatTurns(35, () => ({ u: 10, a: 10 })))
    const log = of(r, 'summarize')
    expect(log).toHaveLength(35)
    expect(describeDecision(log[19]!)).toContain('1 more message needed')
    expect(fired(r, 'summarize').map((d) => [d.turn, d.atMessage, d.unsummarized, d.threshold])).toEqual([
      [21, 41, 42, 40],
      [32, 63, 42, 40],
    ])
    expect(r.passes.map((p) => [p.from, p.upto])).toEqual([
      [0, 22],
      [22, 44],
    ])
    expect(r.after.messages).toHaveLength(1 + 26)
    const prune = of(r, 'prune-tool-results')
    expect(prune).toHaveLength(35)
    expect(prune.every((d) => !d.reached && d.threshold === 26_000)).toBe(true)
    expect(prune[34]!.tokens).toBe(70 * 10 + PRIMING)
  })
})
