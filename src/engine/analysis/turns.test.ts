import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { exportMessages } from '../export'
import { importTranscript } from '../formats/index'
import type { Message, PipelineConfig, Transcript } from '../model'
import { DEFAULT_PIPELINE, runPipeline } from '../pipeline'
import { assistant, countCodePoints, deepFreeze, indexed, system, toolResult, user } from '../stages/test-helpers'
import type { SummaryRequest } from '../stages/types'
import { extractiveSummarizer } from '../summarizers/extractive'
import { cacheCounter, loadCounter } from '../tokens/count'
import {
  ANTHROPIC_DEFAULT_MAX_TOKENS,
  contextAtTurn,
  memoizeSummarizer,
  requestBody,
  tokenTimeline,
  turnEnds,
} from './turns'

const counter = () => cacheCounter('o200k_base', countCodePoints)

function transcriptOf(messages: Message[]): Transcript {
  return deepFreeze({ format: 'openai-chat', messages, recordedCompactions: [], warnings: [] })
}

function summarizeOnly(keep_last: number, compact_after: number): PipelineConfig {
  return {
    encoding: 'o200k_base',
    summarizer: 'extractive',
    stages: [{ id: 'summarize', enabled: true, params: { keep_last, compact_after } }],
  }
}

/** A summarizer that always answers `S` and counts its calls. */
function answersS() {
  const calls: SummaryRequest[] = []
  return {
    calls,
    fn: (r: SummaryRequest) => {
      calls.push(r)
      return Promise.resolve('S')
    },
  }
}

// Six messages of 50 code points: with one token per code point and 3 per message, 53 tokens each.
// Turn ends: a1 (turn 1), a3 (turn 2), a5 (turn 3).
const x50 = (c: string) => c.repeat(50)
const sixMessages = indexed([
  user('u0', x50('a')),
  assistant('a1', x50('b')),
  user('u2', x50('c')),
  assistant('a3', x50('d')),
  user('u4', x50('e')),
  assistant('a5', x50('f')),
])

describe('turnEnds', () => {
  it('ends a turn at every assistant message without tool calls, and at the last message', () => {
    const messages = indexed([
      system('s', 'sys'),
      user('u1', 'q'),
      assistant('a2', null, [{ id: 'c1', name: 'get' }]),
      toolResult('t3', 'c1', 'r'),
      assistant('a4', 'done'),
      user('u5', 'more'),
      assistant('a6', 'ok'),
      user('u7', 'cut off here'),
    ])
    // a2 calls a tool: not an end. u7 is the transcript's end: the last (unfinished) turn ends there.
    expect(turnEnds(messages)).toEqual([4, 6, 7])
  })

  it('counts the last message once when it already ends a turn; no messages, no turns', () => {
    expect(turnEnds(indexed([user('u', 'q'), assistant('a', 'x')]))).toEqual([1])
    expect(turnEnds([])).toEqual([])
    // Only system messages: the transcript's end still closes turn 1.
    expect(turnEnds(indexed([system('s', 'sys')]))).toEqual([0])
  })
})

describe('contextAtTurn', () => {
  it('is the rolling replay stopped at the turn: passes, summary and tail, with exact tokens', async () => {
    const t = transcriptOf(sixMessages)
    const config = summarizeOnly(2, 2)
    const deps = { counter: counter(), summarizer: answersS().fn }

    // Turn 1: 2 messages, not more than compact_after 2 → nothing fires. 53 + 53 + 3 reply priming.
    const one = await contextAtTurn(t, config, 1, deps)
    expect(one.endIndex).toBe(1)
    expect(one.turns).toBe(3)
    expect(one.messages.map((m) => m.id)).toEqual(['u0', 'a1'])
    expect(one.tokens).toBe(109)
    expect(one.passes).toEqual([])

    // Turn 2: 4 > 2 → pass 1 folds 0–1. Summary "[Summary of messages 0–1 (pass 1)]\nS" is 36 code
    // points → 39 tokens; context 39 + 53 + 53 + 3 = 148; the prefix was 4 × 53 + 3 = 215.
    const two = await contextAtTurn(t, config, 2, deps)
    expect(two.messages.map((m) => m.id)).toEqual(['summary:summarize:1', 'u2', 'a3'])
    expect(two.messages[0]?.content).toBe('[Summary of messages 0–1 (pass 1)]\nS')
    expect(two.origins['summary:summarize:1']).toMatchObject({ kind: 'summary', fromIndex: 0, toIndex: 1 })
    expect(two.tokens).toBe(148)
    expect(two.tokensBefore).toBe(215)
    expect(two.passes.map((p) => [p.pass, p.atMessage, p.from, p.upto])).toEqual([[1, 3, 0, 2]])

    // Turn 3: pass 1 again at a3, then pass 2 at a5 folds 2–3 with the previous summary.
    const three = await contextAtTurn(t, config, 3, deps)
    expect(three.messages.map((m) => m.id)).toEqual(['summary:summarize:2', 'u4', 'a5'])
    expect(three.tokens).toBe(148)
    expect(three.tokensBefore).toBe(321)
    expect(three.passes.map((p) => [p.pass, p.atMessage, p.from, p.upto])).toEqual([
      [1, 3, 0, 2],
      [2, 5, 2, 4],
    ])
  })

  it('equals runPipeline on the prefix that ends at the turn, for every turn of a sample', async () => {
    const text = readFileSync('public/samples/openai-chat.json', 'utf8')
    const imported = importTranscript(text, { fileName: 'openai-chat.json' })
    if (!imported.ok) throw new Error(imported.error.message)
    const t = imported.transcript
    const config: PipelineConfig = {
      ...DEFAULT_PIPELINE,
      stages: DEFAULT_PIPELINE.stages.map((s) =>
        s.id === 'summarize' ? { ...s, params: { keep_last: 4, compact_after: 8 } } : s,
      ),
    }
    const c = counter()
    const ends = turnEnds(t.messages)
    expect(ends.length).toBeGreaterThan(2)
    for (let turn = 1; turn <= ends.length; turn++) {
      const end = ends[turn - 1] as number
      const context = await contextAtTurn(t, config, turn, { counter: c })
      const prefix = await runPipeline({ ...t, messages: t.messages.slice(0, end + 1) }, config, { counter: c })
      expect(context.messages).toEqual(prefix.after.messages)
      expect(context.tokens).toBe(prefix.after.totals.tokens)
      expect(context.passes).toEqual(prefix.passes)
    }
    // The last turn is the whole transcript: its context is the ordinary run's After.
    const whole = await runPipeline(t, config, { counter: c })
    const last = await contextAtTurn(t, config, ends.length, { counter: c })
    expect(last.messages).toEqual(whole.after.messages)
  })

  it('rejects a turn outside 1..T with a RangeError naming the range', async () => {
    const t = transcriptOf(sixMessages)
    const deps = { counter: counter(), summarizer: answersS().fn }
    await expect(contextAtTurn(t, summarizeOnly(2, 2), 0, deps)).rejects.toThrow('turns 1–3')
    await expect(contextAtTurn(t, summarizeOnly(2, 2), 4, deps)).rejects.toThrow(RangeError)
    await expect(contextAtTurn(t, summarizeOnly(2, 2), 1.5, deps)).rejects.toThrow(RangeError)
  })

  it('scrubbing again neither re-tokenizes nor re-summarizes (cached counts, memoized summaries)', async () => {
    const t = transcriptOf(sixMessages)
    const inner = answersS()
    const c = counter()
    const deps = { counter: c, summarizer: memoizeSummarizer(inner.fn, t.messages) }
    await contextAtTurn(t, summarizeOnly(2, 2), 3, deps)
    // Turn 3 replays pass 1 and pass 2.
    expect(inner.calls).toHaveLength(2)
    const tokenizerCalls = c.tokenizerCalls
    await contextAtTurn(t, summarizeOnly(2, 2), 2, deps)
    await contextAtTurn(t, summarizeOnly(2, 2), 3, deps)
    expect(inner.calls).toHaveLength(2)
    expect(c.tokenizerCalls).toBe(tokenizerCalls)
  })
})

describe('memoizeSummarizer', () => {
  it('asks again for a different slice content and after a failure', async () => {
    let n = 0
    const inner = (r: SummaryRequest) =>
      ++n === 1 ? Promise.reject(new Error('down')) : Promise.resolve(`ok ${r.slice.length}`)
    const originals = indexed([user('u0', 'a'), assistant('a1', 'b')])
    const memo = memoizeSummarizer(inner, originals)
    const request: SummaryRequest = { stage: 'summarize', prompt: 'P', slice: originals }
    await expect(memo(request)).rejects.toThrow('down')
    expect(await memo(request)).toBe('ok 2')
    expect(await memo(request)).toBe('ok 2')
    expect(n).toBe(2)
    // Same prompt, but a message a stage rewrote (not one of the originals): a different request.
    const changed = { ...request, slice: [originals[0] as Message, { ...(originals[1] as Message), content: 'c' }] }
    await memo(changed)
    expect(n).toBe(3)
    // An equal rewrite made by another run shares the answer.
    await memo({ ...request, slice: [originals[0] as Message, { ...(originals[1] as Message), content: 'c' }] })
    expect(n).toBe(3)
  })
})

describe('tokenTimeline', () => {
  it('gives before (prefix sums), after (context at each turn), passes and the compact_after turn', async () => {
    const t = transcriptOf(sixMessages)
    const progress: number[] = []
    const timeline = await tokenTimeline(
      t,
      summarizeOnly(2, 2),
      { counter: counter(), summarizer: answersS().fn },
      { onProgress: (done) => progress.push(done) },
    )
    expect(timeline.turns).toBe(3)
    expect(timeline.endIndex).toEqual([1, 3, 5])
    expect(timeline.before).toEqual([109, 215, 321])
    expect(timeline.after).toEqual([109, 148, 148])
    expect(timeline.passesByTurn).toEqual([0, 1, 2])
    expect(timeline.sampled).toBe(false)
    expect(timeline.evaluated).toEqual([1, 2, 3])
    expect(timeline.passes.map((p) => [p.turn, p.pass, p.from, p.upto])).toEqual([
      [2, 1, 0, 2],
      [3, 2, 2, 4],
    ])
    // compact_after 2: turn 1 has 2 messages (not more), turn 2 has 4.
    expect(timeline.thresholds).toEqual([
      { kind: 'messages', stage: 'summarize', param: 'compact_after', messages: 2, turn: 2 },
    ])
    expect(progress).toEqual([1, 2, 3])
  })

  it('samples evenly spaced turns plus every turn where a pass fires when there are too many', async () => {
    // Ten turns of two messages; summarize fires first at turn 6 (12 messages > compact_after 10).
    const messages: Message[] = []
    for (let k = 0; k < 10; k++) messages.push(user(`u${k}`, x50('q')), assistant(`a${k}`, x50('r')))
    const t = transcriptOf(indexed(messages))
    const timeline = await tokenTimeline(
      t,
      summarizeOnly(10, 10),
      { counter: counter(), summarizer: answersS().fn },
      { maxEvaluated: 2 },
    )
    expect(timeline.sampled).toBe(true)
    const fired = timeline.passes.map((p) => p.turn)
    expect(fired[0]).toBe(6)
    // Two evenly spaced turns (the first and the last) plus the turns where passes fire.
    expect(timeline.evaluated).toEqual([...new Set([1, ...fired, 10])].sort((a, b) => a - b))
    for (let turn = 1; turn <= 10; turn++) {
      const wanted = timeline.evaluated.includes(turn)
      expect(timeline.after[turn - 1] === null).toBe(!wanted)
    }
    // before is never sampled: 2 × 53 tokens per turn, plus 3.
    expect(timeline.before).toEqual(Array.from({ length: 10 }, (_, i) => (i + 1) * 106 + 3))
  })

  it('stops at the next turn when cancelled', async () => {
    const t = transcriptOf(sixMessages)
    const signal = { aborted: false }
    const run = tokenTimeline(
      t,
      summarizeOnly(2, 2),
      { counter: counter(), summarizer: answersS().fn, signal },
      { onProgress: () => (signal.aborted = true) },
    )
    await expect(run).rejects.toThrow('cancelled')
  })

  it('after never exceeds before at any turn of the bundled samples (default pipeline, extractive)', async () => {
    const index = JSON.parse(readFileSync('public/samples/index.json', 'utf8')) as { file: string }[]
    const c = await loadCounter('o200k_base')
    for (const { file } of index) {
      const imported = importTranscript(readFileSync(`public/samples/${file}`, 'utf8'), { fileName: file })
      if (!imported.ok) throw new Error(`${file}: ${imported.error.message}`)
      const summarizer = memoizeSummarizer(extractiveSummarizer, imported.transcript.messages)
      const timeline = await tokenTimeline(imported.transcript, DEFAULT_PIPELINE, { counter: c, summarizer })
      expect(timeline.sampled, file).toBe(false)
      timeline.after.forEach((after, i) => {
        expect(after, `${file} turn ${i + 1}`).not.toBeNull()
        expect(after as number, `${file} turn ${i + 1}`).toBeLessThanOrEqual(timeline.before[i] as number)
      })
    }
  })
})

describe('requestBody', () => {
  const messages = indexed([
    system('s', 'S'),
    user('u', 'U'),
    assistant('a1', null, [{ id: 'c1', name: 'get', arguments: '{"a":1}' }]),
    toolResult('t', 'c1', 'R', 'get'),
    assistant('a2', 'A'),
  ])

  it('makes an OpenAI Chat Completions body: tool_calls on the assistant, results as tool messages', () => {
    const { body, warnings } = requestBody(messages, 'openai', { model: 'gpt-4o' })
    expect(body).toEqual({
      model: 'gpt-4o',
      messages: [
        { role: 'system', content: 'S' },
        { role: 'user', content: 'U' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'c1', type: 'function', function: { name: 'get', arguments: '{"a":1}' } }],
        },
        { role: 'tool', tool_call_id: 'c1', content: 'R' },
        { role: 'assistant', content: 'A' },
      ],
    })
    expect(warnings).toEqual([])
  })

  it('makes an Anthropic Messages body: system on top, tool_use blocks, tool_result in a user message', () => {
    const { body } = requestBody(messages, 'anthropic', { model: 'claude-x' })
    expect(body).toEqual({
      model: 'claude-x',
      max_tokens: ANTHROPIC_DEFAULT_MAX_TOKENS,
      system: 'S',
      messages: [
        { role: 'user', content: 'U' },
        { role: 'assistant', content: [{ type: 'tool_use', id: 'c1', name: 'get', input: { a: 1 } }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'c1', content: 'R' }] },
        { role: 'assistant', content: 'A' },
      ],
    })
    expect(Object.keys(body).slice(0, 2)).toEqual(['model', 'max_tokens'])
  })

  it('invents no model when none is given (the export keeps its own), and never mutates the messages', () => {
    const frozen = deepFreeze(messages.map((m) => ({ ...m })))
    const exported = exportMessages(frozen, 'openai-chat').body as Record<string, unknown>
    expect(requestBody(frozen, 'openai').body.model).toBe(exported.model)
    expect(requestBody(frozen, 'anthropic').body).toMatchObject({ max_tokens: ANTHROPIC_DEFAULT_MAX_TOKENS })
  })
})
