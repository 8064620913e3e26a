/**
 * The clear-tool-uses params of `prune-tool-results`: `exclude_tools`,
 * `clear_at_least`, `keep_tool_uses`. Source: Anthropic context editing `clear_tool_uses`.
 */
import { describe, expect, it } from 'vitest'
import type { Message } from '../model'
import { normalizeClearParams, pruneToolResults } from './prune-tool-results'
import { assistant, countCodePoints, indexed, makeContext, toolResult, user, type CallSpec } from './test-helpers'

const ctx = makeContext(countCodePoints) // tokens = code points, no per-message overhead
const total = (messages: readonly Message[]) => messages.reduce((a, m) => a + ctx.countMessage(m), 0)
const prunedIds = (out: { fates: Record<string, unknown> }) => Object.keys(out.fates).sort()

/**
 * u0 "go" (2) · one step per tool name: an assistant calling it with "{}" (4 + 2 = 6 tokens for
 * the 4-letter names used here) + a 300-code-point result · a5 "done" (4). Four steps total
 * 2 + 4 × 306 + 4 = 1230 tokens. A placeholder for a 4-letter name is 69 code points, so each
 * replacement saves 300 − 69 = 231: 1230 → 999 → 768 → 537.
 */
function steps(names: readonly string[]): Message[] {
  const out: Message[] = [user('u0', 'go')]
  names.forEach((name, k) => {
    const n = k + 1
    out.push(assistant(`a${n}`, null, [{ id: `c${n}`, name }]))
    out.push(toolResult(`t${n}`, `c${n}`, 'ABCDEFGH'[k]!.repeat(300), name))
  })
  out.push(assistant('a9', 'done'))
  return indexed(out)
}

describe('normalizeClearParams', () => {
  it('keeps the trimmed, non-empty, distinct tool names of an array; anything else is none', () => {
    const odd = [' read ', '', 5, 'read', 'grep'] as unknown as string[]
    expect(normalizeClearParams({ exclude_tools: odd }).exclude_tools).toEqual(['read', 'grep'])
    expect(normalizeClearParams({ exclude_tools: 'read' as unknown as string[] }).exclude_tools).toEqual([])
    expect(normalizeClearParams(undefined)).toEqual({ exclude_tools: [], clear_at_least: 0, keep_tool_uses: 0 })
  })

  it('clear_at_least and keep_tool_uses: finite ≥ 0, truncated, else 0', () => {
    expect(normalizeClearParams({ clear_at_least: 12.7, keep_tool_uses: 3 })).toMatchObject({
      clear_at_least: 12,
      keep_tool_uses: 3,
    })
    expect(normalizeClearParams({ clear_at_least: -5, keep_tool_uses: Number.NaN })).toMatchObject({
      clear_at_least: 0,
      keep_tool_uses: 0,
    })
  })
})

describe('prune-tool-results exclude_tools', () => {
  it('the fixture totals 1230 tokens', () => {
    expect(total(steps(['grep', 'read', 'read', 'read']))).toBe(1230)
  })

  it('skips results of an excluded tool and prunes the next oldest instead', () => {
    const input = steps(['grep', 'read', 'read', 'read'])
    // Without exclusion the oldest (t1, grep) goes: 1230 → 999 ≤ 999.
    expect(prunedIds(pruneToolResults(input, { target: 999 }, ctx))).toEqual(['t1'])
    const out = pruneToolResults(input, { target: 999, exclude_tools: ['grep'] }, ctx)
    expect(prunedIds(out)).toEqual(['t2'])
    expect(out.messages[2]).toBe(input[2]) // t1 passes through by reference
    expect(total(out.messages)).toBe(999)
  })

  it('matches the name of the call a result answers, not the result message field', () => {
    const input = indexed([
      user('u0', 'go'),
      assistant('a1', null, [{ id: 'c1', name: 'grep' }]),
      toolResult('t1', 'c1', 'A'.repeat(300), 'misnamed'),
      assistant('a2', null, [{ id: 'c2', name: 'read' }]),
      toolResult('t2', 'c2', 'B'.repeat(300), 'read'),
      assistant('a3', 'done'),
    ])
    expect(prunedIds(pruneToolResults(input, { target: 0, exclude_tools: ['grep'] }, ctx))).toEqual([])
    expect(prunedIds(pruneToolResults(input, { target: 0, exclude_tools: ['misnamed'] }, ctx))).toEqual(['t1'])
  })

  it('every candidate excluded: no change, and the note names exclusion', () => {
    const input = steps(['grep', 'read', 'read', 'read'])
    const out = pruneToolResults(input, { target: 0, exclude_tools: ['read', 'grep'] }, ctx)
    expect(out.changed).toBe(false)
    expect(out.messages).toBe(input)
    expect(out.note).toBe(
      'nothing to prune: 1230 > 0 tokens, but every tool result is guarded, excluded, under min_tokens or already replaced',
    )
  })

  it('an original whose back-reference belongs to an excluded tool is kept', () => {
    const long = 'X'.repeat(300)
    const backRef = 'back-reference text that stands for t1'
    const input = indexed([
      user('u0', 'go'),
      assistant('a1', null, [{ id: 'c1', name: 'read' }]),
      toolResult('t1', 'c1', long, 'read'),
      assistant('a2', null, [{ id: 'c2', name: 'grep' }]),
      toolResult('t2', 'c2', backRef, 'grep'),
      assistant('a3', null, [{ id: 'c3', name: 'read' }]),
      toolResult('t3', 'c3', 'Y'.repeat(300), 'read'),
      assistant('a4', 'done'),
    ])
    const params = { target: 0, min_tokens: 0, backReferences: { t2: 't1' } }
    expect(prunedIds(pruneToolResults(input, params, ctx))).toEqual(['t1', 't2'])
    expect(prunedIds(pruneToolResults(input, { ...params, exclude_tools: ['grep'] }, ctx))).toEqual([])
  })
})

describe('prune-tool-results clear_at_least', () => {
  const input = steps(['read', 'read', 'read', 'read'])

  it('goes on past target until at least clear_at_least tokens are cleared', () => {
    // t1 alone reaches target 999 but clears 231 < 400; t2 makes it 462 ≥ 400.
    const out = pruneToolResults(input, { target: 999, clear_at_least: 400 }, ctx)
    expect(prunedIds(out)).toEqual(['t1', 't2'])
    expect(total(out.messages)).toBe(768)
  })

  it('exactly clear_at_least is enough: three replacements clear 693', () => {
    const out = pruneToolResults(input, { target: 999, clear_at_least: 693 }, ctx)
    expect(prunedIds(out)).toEqual(['t1', 't2', 't3'])
    expect(total(out.messages)).toBe(537)
  })

  it('when the walk cannot clear that many, nothing changes and the note says why', () => {
    // t4 is guarded (keep_steps 1): at most 3 × 231 = 693 can be cleared.
    const out = pruneToolResults(input, { target: 999, clear_at_least: 694 }, ctx)
    expect(out.changed).toBe(false)
    expect(out.messages).toBe(input)
    expect(out.fates).toEqual({})
    expect(out.note).toBe(
      'no change: pruning could clear only 693 of the 694 tokens clear_at_least asks for; a smaller edit is not worth breaking the prompt cache',
    )
    expect(out.error).toBeUndefined()
  })

  it('does not make pruning fire under target', () => {
    const out = pruneToolResults(input, { target: 1230, clear_at_least: 500 }, ctx)
    expect(out.changed).toBe(false)
    expect(out.note).toBe('under target: 1230 ≤ 1230 tokens')
  })
})

describe('prune-tool-results keep_tool_uses', () => {
  /** Steps: c1 · c2, c3, c4 in parallel · c5; every result 300 code points. */
  function parallel(): Message[] {
    const call = (id: string): CallSpec => ({ id, name: 'read' })
    return indexed([
      user('u0', 'go'),
      assistant('a1', null, [call('c1')]),
      toolResult('t1', 'c1', 'A'.repeat(300), 'read'),
      assistant('a2', null, [call('c2'), call('c3'), call('c4')]),
      toolResult('t2', 'c2', 'B'.repeat(300), 'read'),
      toolResult('t3', 'c3', 'C'.repeat(300), 'read'),
      toolResult('t4', 'c4', 'D'.repeat(300), 'read'),
      assistant('a3', null, [call('c5')]),
      toolResult('t5', 'c5', 'E'.repeat(300), 'read'),
      assistant('a4', 'done'),
    ])
  }

  it('guards the results of the newest N calls, counting parallel calls one by one', () => {
    // keep_steps 1 guards only t5; the 3 newest tool uses are c3, c4, c5.
    expect(prunedIds(pruneToolResults(parallel(), { target: 0 }, ctx))).toEqual(['t1', 't2', 't3', 't4'])
    expect(prunedIds(pruneToolResults(parallel(), { target: 0, keep_tool_uses: 3 }, ctx))).toEqual(['t1', 't2'])
  })

  it('adds to keep_steps: the guarded set is the union', () => {
    // keep_steps 2 guards t2–t5 whatever keep_tool_uses says; keep_tool_uses 1 adds nothing to keep_steps 1.
    expect(prunedIds(pruneToolResults(parallel(), { target: 0, keep_steps: 2, keep_tool_uses: 1 }, ctx))).toEqual(['t1'])
    expect(prunedIds(pruneToolResults(parallel(), { target: 0, keep_tool_uses: 1 }, ctx))).toEqual([
      't1',
      't2',
      't3',
      't4',
    ])
  })

  it('one call per step: keep_tool_uses 3 keeps the three newest results', () => {
    const out = pruneToolResults(steps(['read', 'read', 'read', 'read']), { target: 0, keep_tool_uses: 3 }, ctx)
    expect(prunedIds(out)).toEqual(['t1'])
  })
})
