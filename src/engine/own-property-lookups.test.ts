/**
 * Names that come from input (sweep axes, chat roles, serialized class names, tool names) are
 * looked up as own properties only: `constructor`, `__proto__`, `toString` and `hasOwnProperty`
 * name nothing, exactly like any other unknown name. Records keyed by names from the input
 * (message ids in a run's fates and origins, XML parameters, JSON keys) hold such a name as an
 * entry like any other.
 */
import { describe, expect, it } from 'vitest'
import { recordedRunResult, recordedView } from './analysis/recorded'
import { normalizeArguments } from './analysis/rework'
import { parseSweepAxis, sweepParamOf } from './analysis/sweep-params'
import { importTranscript } from './formats/index'
import type { Message, PipelineConfig, RunResult, StageConfig, Transcript } from './model'
import { runPipeline } from './pipeline'
import { countCodePoints } from './stages/test-helpers'
import { cacheCounter } from './tokens/count'

const PROTOTYPE_NAMES = ['constructor', '__proto__', 'toString', 'hasOwnProperty']

describe('own-property lookups of names from input', () => {
  it.each(PROTOTYPE_NAMES)('sweep axis %s is an unknown parameter', (name) => {
    expect(sweepParamOf(name)).toBeUndefined()
    const parsed = parseSweepAxis(`${name}=1..3`)
    expect(parsed.ok).toBe(false)
    if (!parsed.ok) expect(parsed.error.startsWith(`unknown parameter "${name}"; one of: `)).toBe(true)
  })

  it.each(PROTOTYPE_NAMES)('an OpenAI chat message with role %s is refused like any unknown role', (role) => {
    const imported = (r: string) => {
      const text = JSON.stringify({ messages: [{ role: 'user', content: 'hi' }, { role: r, content: 'x' }, { role: 'assistant', content: 'ok' }] })
      return importTranscript(text, { fileName: 'chat.json' })
    }
    const unknown = imported('not-a-role')
    expect(unknown.ok).toBe(false)
    expect(imported(role)).toEqual(JSON.parse(JSON.stringify(unknown).replaceAll('not-a-role', role)))
  })

  it.each(PROTOTYPE_NAMES)('a serialized LangChain message of class %s is not a message', (cls) => {
    const msg = (c: string, content: string) => ({ lc: 1, type: 'constructor', id: ['langchain', 'schema', 'messages', c], kwargs: { content } })
    const text = JSON.stringify([msg('HumanMessage', 'hi'), msg(cls, 'x'), msg('AIMessage', 'ok')])
    const imported = importTranscript(text, { fileName: 'lc.json' })
    if (imported.ok) expect(imported.transcript.messages.map((m) => m.role)).toEqual(['user', 'assistant'])
    else expect(imported.error.message).not.toMatch(/TypeError|is not a function/)
  })
})

/** Ids that name something on `Object.prototype`, and one that does not. */
const ID_NAMES = ['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf', 'isPrototypeOf', 'plain']

/** Whether `record` holds exactly `ids` as its own keys, also after a JSON round trip and a structured clone. */
function holdsExactly(record: Record<string, unknown>, ids: readonly string[]): void {
  const sorted = [...ids].sort()
  expect(Object.keys(record).sort()).toEqual(sorted)
  for (const id of ids) expect(Object.hasOwn(record, id)).toBe(true)
  expect(Object.keys(JSON.parse(JSON.stringify(record)) as object).sort()).toEqual(sorted)
  expect(Object.keys(structuredClone(record)).sort()).toEqual(sorted)
}

describe('message ids that name Object.prototype members work like any other id', () => {
  /** Message ids and tool-call ids from `Object.prototype`, and the plain ids they stand for. */
  const NAMES = new Map([
    ['constructor', 'm0'], ['toString', 'm1'], ['__proto__', 'm2'], ['hasOwnProperty', 'm3'], ['valueOf', 'm4'], ['isPrototypeOf', 'm5'],
    ['propertyIsEnumerable', 'm6'], ['toLocaleString', 'c0'], ['__defineGetter__', 'c1'],
  ])
  const [m0, m1, m2, m3, m4, m5, m6, c0, c1] = [...NAMES.keys()] as [string, string, string, string, string, string, string, string, string]

  /**
   * A canonical transcript with message ids `ids` and tool-call ids `calls`: a user turn, a call
   * and its long output, the same call and output again (dedupe and prune see a repeat), a reply
   * and a last user turn.
   */
  function file(ids: readonly string[], calls: readonly string[]): string {
    const output = `rates.py\n${'def rate(weight): return round(weight * 1.15, 2)\n'.repeat(60)}`
    return JSON.stringify({
      format: 'canonical',
      messages: [
        { id: ids[0], role: 'user', content: 'Fix the rounding in rates.py for order ORD-58213.' },
        { id: ids[1], role: 'assistant', content: null, toolCalls: [{ id: calls[0], name: 'read', arguments: '{"path":"rates.py"}' }] },
        { id: ids[2], role: 'tool', toolCallId: calls[0], toolName: 'read', content: output },
        { id: ids[3], role: 'assistant', content: null, toolCalls: [{ id: calls[1], name: 'read', arguments: '{"path":"rates.py"}' }] },
        { id: ids[4], role: 'tool', toolCallId: calls[1], toolName: 'read', content: output },
        { id: ids[5], role: 'assistant', content: 'The multiplier is rounded before the surcharge.' },
        { id: ids[6], role: 'user', content: 'Go ahead.' },
      ],
    })
  }
  const DEDUPE: StageConfig = { id: 'dedupe', enabled: true, params: {} }
  const PRUNE: StageConfig = { id: 'prune-tool-results', enabled: true, params: { trigger: 1, target: 1, keep_steps: 1, min_tokens: 1 } }
  const SLIM: StageConfig = { id: 'slim', enabled: true, params: {} }
  // Folds the first messages (the __proto__ one among them) into a summary.
  const SUMMARIZE: StageConfig = { id: 'summarize', enabled: true, params: { keep_last: 2, compact_after: 3 } }

  async function run(ids: readonly string[], calls: readonly string[], stages: StageConfig[] = [DEDUPE, PRUNE]): Promise<RunResult> {
    const imported = importTranscript(file(ids, calls), { fileName: 'session.json' })
    if (!imported.ok) throw new Error(imported.error.message)
    expect(imported.transcript.messages.map((m) => m.id)).toEqual(ids)
    const config: PipelineConfig = { encoding: 'o200k_base', summarizer: 'extractive', stages }
    return runPipeline(imported.transcript, config, { counter: cacheCounter('o200k_base', countCodePoints) })
  }
  const named = (stages?: StageConfig[]) => run([m0, m1, m2, m3, m4, m5, m6], [c0, c1], stages)
  const plain = (stages?: StageConfig[]) => run(['m0', 'm1', 'm2', 'm3', 'm4', 'm5', 'm6'], ['c0', 'c1'], stages)

  it('the importer keeps them, and the run gives each Before message a fate and each After message an origin', async () => {
    const result = await named()
    holdsExactly(result.fates, result.before.messages.map((m) => m.id))
    holdsExactly(result.origins, result.after.messages.map((m) => m.id))
    holdsExactly(result.before.tokensById, result.before.messages.map((m) => m.id))
    holdsExactly(result.after.tokensById, result.after.messages.map((m) => m.id))
  })

  it.each([
    ['dedupe', [DEDUPE], ['dedupe']],
    ['prune-tool-results', [PRUNE], ['prune-tool-results']],
    ['dedupe, slim, prune-tool-results', [DEDUPE, SLIM, PRUNE], ['dedupe', 'slim']],
    ['summarize', [SUMMARIZE], ['summarize']],
  ] as const)('with %s, the run is the run of the same transcript with plain ids, id for id', async (_, stages, fired) => {
    const [a, b] = await Promise.all([named([...stages]), plain([...stages])])
    expect(b.stages.filter((s) => s.changed).map((s) => s.stage)).toEqual(fired)
    const renamed = JSON.stringify(a).replace(/\b(?:__proto__|__defineGetter__|[a-zA-Z]+)\b/g, (w) => NAMES.get(w) ?? w)
    expect(JSON.parse(renamed)).toEqual(JSON.parse(JSON.stringify(b)))
  })

  it("a recorded compaction's view and run give each id its own fate and origin", () => {
    const message = (id: string, role: Message['role'], content: string, index: number): Message => ({ id, index, role, content, source: { format: 'claude-code' } })
    const messages = ID_NAMES.map((id, i) => message(id, i % 2 === 0 ? 'user' : 'assistant', `turn ${i}`, i))
    const transcript: Transcript = {
      format: 'claude-code',
      messages,
      recordedCompactions: [{ atIndex: 4, summaryText: 'The first four turns.', trigger: 'auto', source: 'claude-code' }],
      warnings: [],
    }
    const view = recordedView(transcript)
    expect(view).not.toBeNull()
    holdsExactly(view!.fates, ID_NAMES)
    holdsExactly(view!.origins, view!.after.messages.map((m) => m.id))
    for (const id of ['__proto__', 'constructor', 'toString', 'hasOwnProperty']) expect(view!.fates[id]?.kind).toBe('summarized')
    const run = recordedRunResult(transcript, cacheCounter('o200k_base', countCodePoints))
    expect(run).not.toBeNull()
    holdsExactly(run!.fates, ID_NAMES)
    holdsExactly(run!.before.tokensById, ID_NAMES)
  })
})

describe('JSON keys that name Object.prototype members are kept', () => {
  it('a call\'s arguments keep a "__proto__" key when normalized: two calls differing only there differ', () => {
    expect(normalizeArguments('{"b":1,"__proto__":{"x":1}}')).toBe('{"__proto__":{"x":1},"b":1}')
    expect(normalizeArguments('{"__proto__":1}')).not.toBe(normalizeArguments('{"__proto__":2}'))
  })
})

describe('tool names that name Object.prototype members are tools like any other (Cline)', () => {
  const history = (name: string, input: object) =>
    JSON.stringify([
      { role: 'user', content: [{ type: 'text', text: '<task>\nFix rates.py\n</task>' }] },
      { role: 'assistant', content: [{ type: 'text', text: 'Calling.' }, { type: 'tool_use', id: 'toolu_01', name, input }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_01', content: [{ type: 'text', text: `[${name}] Result:` }, { type: 'text', text: 'done' }] }] },
      { role: 'assistant', content: [{ type: 'text', text: 'Finished.' }] },
    ])

  it.each(PROTOTYPE_NAMES)('a call of a tool named %s is a call, not a summary', (name) => {
    const imported = importTranscript(history(name, { context: 'not a summary' }), { fileName: 'api_conversation_history.json' })
    expect(imported.ok).toBe(true)
    if (!imported.ok) return
    expect(imported.transcript.format).toBe('cline')
    expect(imported.transcript.recordedCompactions).toEqual([])
    expect(imported.transcript.messages.flatMap((m) => m.toolCalls ?? []).map((c) => c.name)).toEqual([name])
  })

  it('an XML-era call keeps a <__proto__> parameter', () => {
    const text = JSON.stringify([
      { role: 'user', content: [{ type: 'text', text: '<task>\nFix rates.py\n</task>' }] },
      { role: 'assistant', content: [{ type: 'text', text: 'Reading.\n<read_file>\n<__proto__>x</__proto__>\n<path>rates.py</path>\n</read_file>' }] },
      { role: 'user', content: [{ type: 'text', text: "[read_file for 'rates.py'] Result:" }, { type: 'text', text: 'def rate(): pass' }] },
    ])
    const imported = importTranscript(text, { fileName: 'api_conversation_history.json' })
    expect(imported.ok).toBe(true)
    if (!imported.ok) return
    const call = imported.transcript.messages.flatMap((m) => m.toolCalls ?? [])[0]
    expect(call?.name).toBe('read_file')
    expect(JSON.parse(call!.arguments)).toEqual(JSON.parse('{"__proto__":"x","path":"rates.py"}'))
  })
})

describe('roles and types that name Object.prototype members are no role or type', () => {
  it.each(PROTOTYPE_NAMES)('an OpenAI Responses input item with role %s is skipped as not a message role', (role) => {
    const text = JSON.stringify({
      input: [
        { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'hi' }] },
        { type: 'message', role, content: [{ type: 'input_text', text: 'x' }] },
        { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'ok' }] },
      ],
    })
    const imported = importTranscript(text, { fileName: 'responses.json' })
    expect(imported.ok).toBe(true)
    if (!imported.ok) return
    expect(imported.transcript.format).toBe('openai-responses')
    expect(imported.transcript.messages.map((m) => m.role)).toEqual(['user', 'assistant'])
    expect(imported.transcript.warnings).toContain(`input[1].role: "${role}" is not a message role, skipped`)
  })

  it.each(PROTOTYPE_NAMES)('a LangChain message dict of type %s is not a message', (type) => {
    const text = JSON.stringify([{ type: 'human', data: { content: 'hi' } }, { type, data: { content: 'x' } }, { type: 'ai', data: { content: 'ok' } }])
    const imported = importTranscript(text, { fileName: 'lc.json' })
    if (imported.ok) expect(imported.transcript.messages.map((m) => m.role)).toEqual(['user', 'assistant'])
    else expect(imported.error.message).not.toMatch(/TypeError|is not a function/)
  })
})

describe('JSON keys named __proto__ in an Inspect AI sample are kept', () => {
  it("a tool call's arguments keep their __proto__ key through attachment resolution", () => {
    const args = JSON.parse('{"__proto__":{"x":1},"path":"a.py"}') as unknown
    const text = JSON.stringify({
      version: 2,
      eval: { task: 't' },
      samples: [{ id: 1, epoch: 1, messages: [
        { role: 'user', content: 'go' },
        { role: 'assistant', content: '', tool_calls: [{ id: 'c1', function: 'read', arguments: args }] },
        { role: 'tool', tool_call_id: 'c1', function: 'read', content: 'ok' },
      ] }],
    })
    const imported = importTranscript(text, { fileName: 'log.json' })
    expect(imported.ok).toBe(true)
    if (!imported.ok) return
    expect(imported.transcript.format).toBe('inspect-ai')
    const call = imported.transcript.messages.flatMap((m) => m.toolCalls ?? [])[0]
    expect(call?.arguments).toBe('{"__proto__":{"x":1},"path":"a.py"}')
  })
})
