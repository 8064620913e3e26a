/**
 * Properties every tool-result stage must keep, over random transcripts with valid tool
 * pairs: no input mutation, determinism, no split tool pairs (the validity checker finds
 * nothing), no token growth, replaced messages keep id/role/toolCallId, and no dangling
 * back-reference after dedupe → prune (cases/47).
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { checkValidity, findDanglingBackReferences } from '../analysis/checks'
import type { Message } from '../model'
import type { TextCounter } from '../tokens/count'
import { dedupe } from './dedupe'
import { backReferencesFromOrigins, pruneToolResults } from './prune-tool-results'
import { assistant, countCodePoints, countWords, deepFreeze, makeContext, system, toolResult, user } from './test-helpers'
import type { StageOutput } from './types'

/** Tool outputs chosen so that repeats, the MIN_LENGTH edge and the 200–261 band all occur. */
const BODIES: readonly (string | (() => Message['content']))[] = [
  'catalog page 1\n' + 'row of items\n'.repeat(40),
  'catalog page 2\n' + 'row of items\n'.repeat(40),
  'x'.repeat(261), // back-reference not shorter: kept
  'x'.repeat(262),
  'ok',
  '',
  '😀'.repeat(199), // 199 code points, 398 UTF-16 units
  'ok\n' + '😀'.repeat(197), // 200 code points
  '\n\n  second line  \n' + 'z'.repeat(300),
  'build log line\n'.repeat(30),
  () => [{ type: 'text', text: 'catalog page 1\n' + 'row of items\n'.repeat(40) }],
  () => [{ type: 'text', text: 'see image' }, { type: 'image', mediaType: 'image/png', bytes: 1000 }],
]
const TOOL_NAMES = ['read', 'grep', 'run_tests', 'a_tool_with_a_rather_long_name_for_its_placeholder']

interface StepSpec {
  calls: { name: number; body: number }[]
  text: boolean
}
interface TurnSpec {
  steps: StepSpec[]
  reply: boolean
}

const stepArb: fc.Arbitrary<StepSpec> = fc.record({
  calls: fc.array(
    fc.record({ name: fc.nat(TOOL_NAMES.length - 1), body: fc.nat(BODIES.length - 1) }),
    { minLength: 1, maxLength: 3 },
  ),
  text: fc.boolean(),
})
const transcriptArb = fc
  .record({
    system: fc.boolean(),
    turns: fc.array(
      fc.record({ steps: fc.array(stepArb, { maxLength: 3 }), reply: fc.boolean() }),
      { minLength: 1, maxLength: 5 },
    ),
    pending: fc.option(stepArb, { nil: undefined }),
  })
  .map(build)

/** Builds a valid transcript: every call answered right after its message, but a pending tail. */
function build(spec: { system: boolean; turns: TurnSpec[]; pending: StepSpec | undefined }): Message[] {
  const out: Message[] = []
  let call = 0
  const push = (m: Message) => out.push({ ...m, id: `m${out.length}`, index: out.length })
  const callsOf = (step: StepSpec) =>
    step.calls.map((c) => ({ id: `c${call++}`, name: TOOL_NAMES[c.name]!, body: BODIES[c.body]! }))

  if (spec.system) push(system('', 'You are a coding agent.'))
  spec.turns.forEach((turn, t) => {
    push(user('', `request ${t}`))
    for (const step of turn.steps) {
      const calls = callsOf(step)
      push(assistant('', step.text ? 'Working on it.' : null, calls))
      for (const c of calls) {
        const result = toolResult('', c.id, '', c.name)
        result.content = typeof c.body === 'string' ? c.body : c.body()
        push(result)
      }
    }
    if (turn.reply) push(assistant('', `Answer ${t}.`))
  })
  if (spec.pending) push(assistant('', null, callsOf(spec.pending)))
  return out
}

const total = (messages: readonly Message[], count: TextCounter) => {
  const ctx = makeContext(count)
  return messages.reduce((a, m) => a + ctx.countMessage(m), 0)
}

/** The shared per-output properties: shape kept, pairs valid, no growth, untouched by reference. */
function expectSound(input: readonly Message[], out: StageOutput, count: TextCounter) {
  expect(out.messages.length).toBe(input.length)
  out.messages.forEach((m, i) => {
    const before = input[i]!
    expect(m.id).toBe(before.id)
    expect(m.role).toBe(before.role)
    expect(m.toolCallId).toBe(before.toolCallId)
    expect(m.toolName).toBe(before.toolName)
    if (!(before.id in out.fates)) expect(m).toBe(before)
    else expect(m.role).toBe('tool')
  })
  expect(Object.keys(out.origins).sort()).toEqual(Object.keys(out.fates).sort())
  expect(out.changed).toBe(Object.keys(out.fates).length > 0)
  if (!out.changed) expect(out.messages).toBe(input)
  expect(checkValidity(out.messages, { provider: 'anthropic' })).toEqual([])
  expect(total(out.messages, count)).toBeLessThanOrEqual(total(input, count))
}

const counters: [string, TextCounter][] = [
  ['code points', countCodePoints],
  ['words', countWords],
]

describe('stage properties over random valid transcripts', () => {
  it('the generator makes valid transcripts', () => {
    fc.assert(
      fc.property(transcriptArb, (messages) => {
        expect(checkValidity(messages, { provider: 'anthropic' })).toEqual([])
      }),
    )
  })

  for (const [label, count] of counters) {
    it(`dedupe (${label}): pure, deterministic, valid pairs, never grows`, () => {
      const ctx = makeContext(count)
      fc.assert(
        fc.property(transcriptArb, (messages) => {
          const input = deepFreeze(messages)
          const snapshot = structuredClone(input)
          const out = dedupe(input, {}, ctx)
          expect(input).toEqual(snapshot)
          expect(dedupe(input, {}, ctx)).toEqual(out)
          expectSound(input, out, count)
        }),
      )
    })

    it(`prune-tool-results (${label}): pure, deterministic, valid pairs, never grows`, () => {
      const ctx = makeContext(count)
      fc.assert(
        fc.property(
          transcriptArb,
          fc.integer({ min: -10, max: 3000 }),
          fc.integer({ min: 1, max: 3 }),
          fc.integer({ min: 0, max: 300 }),
          (messages, target, keep_steps, min_tokens) => {
            const input = deepFreeze(messages)
            const snapshot = structuredClone(input)
            const params = { target, keep_steps, min_tokens }
            const out = pruneToolResults(input, params, ctx)
            expect(input).toEqual(snapshot)
            expect(pruneToolResults(input, params, ctx)).toEqual(out)
            expect(out.error).toBeUndefined()
            expectSound(input, out, count)
          },
        ),
      )
    })

    it(`dedupe → prune-tool-results (${label}): no back-reference is left dangling`, () => {
      const ctx = makeContext(count)
      fc.assert(
        fc.property(
          transcriptArb,
          fc.integer({ min: -10, max: 3000 }),
          fc.integer({ min: 1, max: 3 }),
          fc.integer({ min: 0, max: 300 }),
          fc.boolean(),
          (messages, target, keep_steps, min_tokens, explicit) => {
            const deduped = dedupe(deepFreeze(messages), {}, ctx)
            const backReferences = backReferencesFromOrigins(deduped.origins)
            const params = { target, keep_steps, min_tokens, ...(explicit ? { backReferences } : {}) }
            const out = pruneToolResults(deepFreeze(deduped.messages), params, ctx)
            expectSound(deduped.messages, out, count)
            expect(findDanglingBackReferences(out.messages, backReferences)).toEqual([])
            expect(findDanglingBackReferences(out.messages)).toEqual([])
          },
        ),
      )
    })
  }
})
