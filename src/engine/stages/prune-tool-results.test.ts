import { describe, expect, it } from 'vitest'
import { loadCase } from '../../../test/fixtures'
import { checkValidity, findDanglingBackReferences } from '../analysis/checks'
import type { Message } from '../model'
import { backReferenceFor, dedupe } from './dedupe'
import {
  DEFAULT_KEEP_STEPS,
  DEFAULT_MIN_TOKENS,
  KEEP_STEPS_ERROR,
  PLACEHOLDER_TEMPLATE,
  backReferencesFromOrigins,
  isPlaceholderText,
  placeholderFor,
  pruneToolResults,
} from './prune-tool-results'
import {
  assistant,
  countCodePoints,
  deepFreeze,
  fromCaseChat,
  indexed,
  makeContext,
  toolResult,
  user,
  type CaseChatMessage,
} from './test-helpers'

const ctx = makeContext(countCodePoints) // tokens = code points, no per-message overhead
const loadChatCase = (name: string) => loadCase<{ input: CaseChatMessage[] }>(name)

const READ_PLACEHOLDER = 'Result dropped to free context. Call read again if you still need it.'

/**
 * u0 "go" (2) · four steps: assistant calling `read` with "{}" (4 + 2 = 6) + a 300-code-point
 * result · a5 "done" (4). Total 2 + 4 × 306 + 4 = 1230 tokens. The `read` placeholder is
 * 69 code points, so each replacement saves 300 − 69 = 231.
 */
function fourSteps(resultLengths: [number, number, number, number] = [300, 300, 300, 300]): Message[] {
  const out: Message[] = [user('u0', 'go')]
  resultLengths.forEach((length, k) => {
    const n = k + 1
    out.push(assistant(`a${n}`, null, [{ id: `c${n}`, name: 'read' }]))
    out.push(toolResult(`t${n}`, `c${n}`, 'ABCD'[k]!.repeat(length), 'read'))
  })
  out.push(assistant('a5', 'done'))
  return indexed(out)
}

const total = (messages: readonly Message[]) => messages.reduce((a, m) => a + ctx.countMessage(m), 0)
const prunedIds = (out: { fates: Record<string, unknown> }) => Object.keys(out.fates).sort()

describe('prune-tool-results constants (seed 002)', () => {
  it('placeholder text, defaults and the keep_steps reason are the seed values', () => {
    expect(PLACEHOLDER_TEMPLATE).toBe('Result dropped to free context. Call %s again if you still need it.')
    expect(placeholderFor('read')).toBe(READ_PLACEHOLDER)
    expect([...READ_PLACEHOLDER].length).toBe(69) // 37 + "read" + 28
    expect(DEFAULT_KEEP_STEPS).toBe(1)
    expect(DEFAULT_MIN_TOKENS).toBe(200)
    expect(KEEP_STEPS_ERROR).toBe(
      'keep_steps must be at least 1: the model has not acted on the newest results yet',
    )
  })

  it('isPlaceholderText recognises a placeholder for any tool name only', () => {
    expect(isPlaceholderText(placeholderFor('grep'))).toBe(true)
    expect(isPlaceholderText('Result dropped to free context. Call  again if you still need it.')).toBe(false)
    expect(isPlaceholderText('Result dropped to free context.')).toBe(false)
    expect(isPlaceholderText(null)).toBe(false)
  })
})

describe('pruneToolResults', () => {
  it('the fixture totals 1230 tokens', () => {
    expect(total(fourSteps())).toBe(1230)
  })

  it('replaces the oldest result with the exact placeholder, keeping every other field', () => {
    const input = fourSteps()
    const out = pruneToolResults(input, { target: 1000 }, ctx)
    expect(out.changed).toBe(true)
    expect(out.messages[2]).toEqual({ ...input[2], content: READ_PLACEHOLDER })
    expect(out.messages[2]!.toolCallId).toBe('c1')
    expect(out.fates).toEqual({
      t1: { kind: 'pruned', stage: 'prune-tool-results', placeholder: READ_PLACEHOLDER },
    })
    expect(out.origins).toEqual({ t1: { kind: 'placeholder', beforeId: 't1', stage: 'prune-tool-results' } })
    out.messages.forEach((m, i) => {
      if (i !== 2) expect(m).toBe(input[i])
    })
    expect(out.warnings).toEqual([])
  })

  it('stops as soon as the running total is ≤ target', () => {
    // 1230 → 999 after one replacement, → 768 after two, → 537 after three.
    expect(prunedIds(pruneToolResults(fourSteps(), { target: 999 }, ctx))).toEqual(['t1'])
    expect(prunedIds(pruneToolResults(fourSteps(), { target: 998 }, ctx))).toEqual(['t1', 't2'])
    expect(prunedIds(pruneToolResults(fourSteps(), { target: 768 }, ctx))).toEqual(['t1', 't2'])
    expect(prunedIds(pruneToolResults(fourSteps(), { target: 767 }, ctx))).toEqual(['t1', 't2', 't3'])
    const out = pruneToolResults(fourSteps(), { target: 999 }, ctx)
    expect(total(out.messages)).toBe(999)
  })

  it('guards the newest step (keep_steps 1): t4 survives even with target 0', () => {
    const out = pruneToolResults(fourSteps(), { target: 0 }, ctx)
    expect(prunedIds(out)).toEqual(['t1', 't2', 't3'])
    expect(total(out.messages)).toBe(537)
    // Target 0 asks for every eligible result: what stays is by design, not a shortfall.
    expect(out.warnings).toEqual([])
    // A target above zero that the guarded rest keeps out of reach is one.
    const over = pruneToolResults(fourSteps(), { target: 100 }, ctx)
    expect(over.warnings).toEqual([
      'still over target after pruning: 537 > 100 tokens; the rest is guarded, under min_tokens or already replaced',
    ])
  })

  it('keep_steps 2 guards the two newest steps', () => {
    const out = pruneToolResults(fourSteps(), { target: 0, keep_steps: 2 }, ctx)
    expect(prunedIds(out)).toEqual(['t1', 't2'])
  })

  it('keep_steps covering every step: no change', () => {
    const input = fourSteps()
    const out = pruneToolResults(input, { target: 0, keep_steps: 4 }, ctx)
    expect(out.changed).toBe(false)
    expect(out.messages).toBe(input)
    expect(out.note).toBe(
      'nothing to prune: 1230 > 0 tokens, but every tool result is guarded, under min_tokens or already replaced',
    )
  })

  it('a step is the assistant message with calls plus all its results (parallel batch)', () => {
    const input = indexed([
      user('u0', 'go'),
      assistant('a1', null, [{ id: 'c1', name: 'read' }]),
      toolResult('t1', 'c1', 'A'.repeat(300)),
      assistant('a2', null, [
        { id: 'c2', name: 'read' },
        { id: 'c3', name: 'read' },
      ]),
      toolResult('t2', 'c2', 'B'.repeat(300)),
      toolResult('t3', 'c3', 'C'.repeat(300)),
    ])
    expect(prunedIds(pruneToolResults(input, { target: 0 }, ctx))).toEqual(['t1'])
  })

  it('skips results under min_tokens; a result of exactly min_tokens is eligible', () => {
    // t2 = 199 tokens < 200: skipped; t3 = 200: replaced.
    const out = pruneToolResults(fourSteps([300, 199, 200, 300]), { target: 0 }, ctx)
    expect(prunedIds(out)).toEqual(['t1', 't3'])
    const lowered = pruneToolResults(fourSteps([300, 199, 200, 300]), { target: 0, min_tokens: 100 }, ctx)
    expect(prunedIds(lowered)).toEqual(['t1', 't2', 't3'])
  })

  it('skips results already replaced: a placeholder or a back-reference', () => {
    const input = fourSteps()
    input[2] = { ...input[2]!, content: placeholderFor('read') }
    input[4] = { ...input[4]!, content: backReferenceFor('x'.repeat(160)) } // 261 tokens
    const out = pruneToolResults(input, { target: 0 }, ctx)
    expect(prunedIds(out)).toEqual(['t3'])
  })

  it('never replaces when the placeholder would not be smaller (min_tokens 0)', () => {
    const input = fourSteps([5, 300, 300, 300])
    const out = pruneToolResults(input, { target: 0, min_tokens: 0 }, ctx)
    expect(prunedIds(out)).toEqual(['t2', 't3'])
  })

  it('names the tool from the call it answers, not the result message', () => {
    const input = indexed([
      assistant('a1', null, [{ id: 'c1', name: 'grep' }]),
      toolResult('t1', 'c1', 'G'.repeat(300), 'stale-name'),
      assistant('a2', null, [{ id: 'c2', name: 'read' }]),
      toolResult('t2', 'c2', 'R'.repeat(300)),
    ])
    const out = pruneToolResults(input, { target: 0 }, ctx)
    expect(out.messages[1]!.content).toBe('Result dropped to free context. Call grep again if you still need it.')
    expect(out.messages[1]!.toolName).toBe('stale-name')
  })

  it('no change under target: changed false, the input array itself, a note', () => {
    const input = fourSteps()
    const out = pruneToolResults(input, { target: 1230 }, ctx)
    expect(out.changed).toBe(false)
    expect(out.messages).toBe(input)
    expect(out.fates).toEqual({})
    expect(out.origins).toEqual({})
    expect(out.note).toBe('under target: 1230 ≤ 1230 tokens')
  })

  it('keep_steps < 1 is an error with the seed reason; the input passes unchanged', () => {
    const input = fourSteps()
    for (const keep_steps of [0, -1, 0.5, Number.NaN]) {
      const out = pruneToolResults(input, { target: 0, keep_steps }, ctx)
      expect(out.error).toBe(KEEP_STEPS_ERROR)
      expect(out.changed).toBe(false)
      expect(out.messages).toBe(input)
    }
  })

  it('a non-finite target is an error', () => {
    const out = pruneToolResults(fourSteps(), { target: Number.NaN }, ctx)
    expect(out.error).toBe('target must be a finite number of tokens')
    expect(out.changed).toBe(false)
  })

  it('never mutates its input, is deterministic, and keeps every call paired', () => {
    const input = deepFreeze(fourSteps())
    const a = pruneToolResults(input, { target: 0 }, ctx)
    const b = pruneToolResults(input, { target: 0 }, ctx)
    expect(a).toEqual(b)
    expect(input[2]!.content).toBe('A'.repeat(300))
    expect(checkValidity(a.messages)).toEqual([])
  })

  it('cases/43 shape: the keep window is the trailing step, the last message untouched', () => {
    const input = indexed([
      user('u0', 'Help me plan my vegetable bed.'),
      assistant('a1', 'Checking your saved plot.', [{ id: 'tc-1', name: 'LoadPlot' }]),
      toolResult('t1', 'tc-1', 'north bed 2x4 m, full sun '.repeat(10)),
      assistant('a2', null, [{ id: 'tc-2', name: 'Search' }]),
      toolResult('t2', 'tc-2', '45-60 cm '.repeat(30)),
      assistant('a3', 'Space tomatoes 45-60 cm apart.'),
    ])
    const out = pruneToolResults(input, { target: 0, keep_steps: 1, min_tokens: 20 }, ctx)
    expect(prunedIds(out)).toEqual(['t1'])
    expect(out.messages[1]).toBe(input[1])
    expect(out.messages[5]).toBe(input[5])
  })

  it('cases/32: only tool messages are touched; the thinking block stays byte-identical', () => {
    const thinking = 'Step: consider the cache layer. '.repeat(120)
    const input = indexed([
      user('u0', 'Why is p99 latency high?'),
      {
        ...assistant('a1', null, [{ id: 'toolu_k1', name: 'metrics', arguments: '{"q":"p99 by route"}' }]),
        content: [{ type: 'thinking', variant: 'thinking', text: thinking, signature: 'EqQBCkYIBxgCKkBfake' }],
      },
      toolResult('t1', 'toolu_k1', '/search p99=2.4s; /home p99=180ms '.repeat(4)),
      assistant('a2', '/search is slow.'),
      user('u1', 'Dig into /search.'),
      assistant('a3', null, [{ id: 'toolu_k2', name: 'trace', arguments: '{"route":"/search"}' }]),
      toolResult('t2', 'toolu_k2', 'span db.query 2.1s'),
    ])
    const out = pruneToolResults(input, { target: 600, keep_steps: 1, min_tokens: 20 }, ctx)
    expect(prunedIds(out)).toEqual(['t1'])
    expect(out.messages[1]).toBe(input[1])
    expect(out.messages[6]).toBe(input[6])
    expect(checkValidity(out.messages, { provider: 'anthropic' })).toEqual([])
  })
})

describe('pruneToolResults and dedupe back-references (cases/47)', () => {
  const case47 = () => fromCaseChat(loadChatCase('47-dedupe-backref-marked-and-not-dangling.json').input)
  const y1 = 'Result dropped to free context. Call read_file again if you still need it.'

  it('case params: the back-reference m7 is in the guarded newest step, so its original m3 is kept', () => {
    const deduped = dedupe(case47())
    const backReferences = backReferencesFromOrigins(deduped.origins)
    expect(backReferences).toEqual({ m7: 'm3' })
    for (const params of [{ backReferences }, {}]) {
      const out = pruneToolResults(
        deduped.messages,
        { target: 250, keep_steps: 1, min_tokens: 20, ...params },
        ctx,
      )
      // m5 "no changes" is 10 tokens < 20; m3 is guarded through m7; m7 is a back-reference.
      expect(out.changed).toBe(false)
      expect(findDanglingBackReferences(out.messages, backReferences)).toEqual([])
      expect(checkValidity(out.messages)).toEqual([])
    }
  })

  it('when the back-reference is not guarded, pruning the original rewrites it into its placeholder too', () => {
    const messages = indexed([
      ...case47(),
      assistant('a9', null, [{ id: 'call_y4', name: 'run_tests' }]),
      toolResult('t10', 'call_y4', 'all tests passed'),
    ])
    const deduped = dedupe(messages)
    const backReferences = backReferencesFromOrigins(deduped.origins)
    for (const params of [{ backReferences }, {}]) {
      const out = pruneToolResults(deduped.messages, { target: 250, ...params }, ctx)
      // m3 (609 tokens ≥ 200) is pruned; m7 (a 119-token back-reference, under min_tokens)
      // goes with it rather than dangle.
      expect(prunedIds(out)).toEqual(['m3', 'm7'])
      expect(out.messages[3]!.content).toBe(y1)
      expect(out.messages[7]!.content).toBe(y1)
      expect(out.messages[7]!.toolCallId).toBe('call_y3')
      expect(out.origins['m7']).toEqual({ kind: 'placeholder', beforeId: 'm7', stage: 'prune-tool-results' })
      expect(findDanglingBackReferences(out.messages, backReferences)).toEqual([])
      expect(findDanglingBackReferences(out.messages)).toEqual([])
      expect(checkValidity(out.messages)).toEqual([])
    }
  })

  it('the running total counts the back-reference rewrite: one unit may reach the target', () => {
    // 'HEAD' + 300 × 'x' (305) twice; the repeat becomes a 105-token back-reference.
    const body = 'HEAD\n' + 'x'.repeat(300)
    const input = indexed([
      assistant('a1', null, [{ id: 'c1', name: 'read' }]), // 6
      toolResult('t1', 'c1', body), // 305
      assistant('a2', null, [{ id: 'c2', name: 'read' }]), // 6
      toolResult('t2', 'c2', body), // → 105 after dedupe
      assistant('a3', null, [{ id: 'c3', name: 'read' }]), // 6
      toolResult('t3', 'c3', 'y'.repeat(300)), // 300
      assistant('a4', null, [{ id: 'c4', name: 'read' }]), // 6
      toolResult('t4', 'c4', 'z'.repeat(10)), // 10, newest step
    ])
    const deduped = dedupe(input)
    expect(total(deduped.messages)).toBe(744)
    // Unit t1 + t2: (305 − 69) + (105 − 69) = 272 saved → 472.
    const out = pruneToolResults(deduped.messages, { target: 472 }, ctx)
    expect(prunedIds(out)).toEqual(['t1', 't2'])
    expect(total(out.messages)).toBe(472)
    expect(prunedIds(pruneToolResults(deduped.messages, { target: 471 }, ctx))).toEqual(['t1', 't2', 't3'])
  })

  it('the explicit map is exact; the text fallback ties a back-reference to every same-summary result', () => {
    const first = 'HEAD\n' + 'x'.repeat(300)
    const second = 'HEAD\n' + 'y'.repeat(300) // different output, same first line
    const input = indexed([
      assistant('a1', null, [{ id: 'c1', name: 'read' }]),
      toolResult('t1', 'c1', first),
      assistant('a2', null, [{ id: 'c2', name: 'read' }]),
      toolResult('t2', 'c2', second),
      assistant('a3', null, [{ id: 'c3', name: 'read' }]),
      toolResult('t3', 'c3', second),
      assistant('a4', null, [{ id: 'c4', name: 'read' }]),
      toolResult('t4', 'c4', 'z'.repeat(10)),
    ])
    const deduped = dedupe(input)
    const backReferences = backReferencesFromOrigins(deduped.origins)
    expect(backReferences).toEqual({ t3: 't2' })
    // 6 + 305 + 6 + 305 + 6 + 105 + 6 + 10 = 749; pruning t1 alone saves 236 → 513.
    const exact = pruneToolResults(deduped.messages, { target: 513, backReferences }, ctx)
    expect(prunedIds(exact)).toEqual(['t1'])
    const fallback = pruneToolResults(deduped.messages, { target: 513 }, ctx)
    expect(prunedIds(fallback)).toEqual(['t1', 't3'])
    expect(findDanglingBackReferences(exact.messages, backReferences)).toEqual([])
    expect(findDanglingBackReferences(fallback.messages)).toEqual([])
  })
})
