import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { strToU8, zipSync } from 'fflate'
import { afterAll, describe, expect, it } from 'vitest'
import { runCli } from '../../../test/cli'
import { clineImporter } from './cline'
import { detectFormat } from './detect'
import { importBytes, importTranscript } from './index'
import { registryContractViolations } from './test-helpers'
import type { Message, Transcript } from '../model'

const fixture = (name: string) => readFileSync(new URL(`../../../test/fixtures/formats/${name}`, import.meta.url), 'utf8')
const sample = (name: string) => readFileSync(new URL(`../../../public/samples/${name}`, import.meta.url), 'utf8')

function load(text: string): Transcript {
  const r = importTranscript(text)
  if (!r.ok) throw new Error(r.error.message)
  return r.transcript
}

/** Each message as role, flags, call id / name and content, for exact comparison. */
const shape = (m: Message) => ({
  role: m.role,
  ...(m.flags ? { flags: m.flags } : {}),
  ...(m.toolCallId !== undefined ? { toolCallId: m.toolCallId, toolName: m.toolName } : {}),
  ...(m.toolCalls ? { toolCalls: m.toolCalls } : {}),
  content: m.content,
})

const ENV = (extra = '') =>
  `<environment_details>\n# VSCode Visible Files\nsrc/quote/rates.py\n\n${extra}# Current Time\n6/20/2025, 10:02:11 AM (UTC, UTC+0:00)\n</environment_details>`
const INJECTED = { role: 'user', flags: { injected: true }, content: ENV() }

describe('Cline task history: the registry contract', () => {
  it.each(['cline-xml-era.json', 'cline-native.json', 'roo-code-condense.json'])('%s', (name) => {
    expect(registryContractViolations(clineImporter, fixture(name))).toEqual([])
  })

  it('the Anthropic Messages sample and a plain Anthropic request still import as Anthropic Messages', () => {
    expect(load(sample('anthropic-messages.json')).format).toBe('anthropic-messages')
    const plain = JSON.stringify({
      messages: [
        { role: 'user', content: 'hi' },
        { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'ls', input: {} }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: 'a' }] },
      ],
    })
    const d = detectFormat(plain)
    expect(d.ok && d.format).toBe('anthropic-messages')
  })
})

describe('Cline XML era: calls in assistant text, results as labelled user text', () => {
  const t = load(fixture('cline-xml-era.json'))

  it('every call and result is a tool call and a tool message; the human is the task and the resumed instruction', () => {
    expect(t.format).toBe('cline')
    expect(t.model).toBe('claude-sonnet-4-20250514')
    expect(t.warnings).toEqual([])
    expect(t.messages.map(shape)).toEqual([
      { role: 'user', content: 'Fix the shipping rate rounding in src/quote/rates.py for order ORD-58213' },
      { ...INJECTED, content: ENV('# Current Working Directory (/home/dev/shop) Files\nsrc/\ntests/\n\n') },
      {
        role: 'assistant',
        toolCalls: [{ id: 'cline-1-0', name: 'read_file', arguments: '{"path":"src/quote/rates.py"}' }],
        content: '<thinking>\nI should read the rates module first.\n</thinking>',
      },
      { role: 'tool', toolCallId: 'cline-1-0', toolName: 'read_file', content: 'def rate(weight):\n    return round(weight * 1.15, 1)\n' },
      INJECTED,
      {
        role: 'assistant',
        toolCalls: [
          {
            id: 'cline-3-0',
            name: 'execute_command',
            arguments: '{"command":"pytest tests/test_rates.py","requires_approval":"false"}',
          },
        ],
        content: 'The rounding keeps one decimal. Let me run the tests.',
      },
      {
        role: 'tool',
        toolCallId: 'cline-3-0',
        toolName: 'execute_command',
        content: 'Command executed.\nOutput:\n1 failed: expected 11.52 for postal code 94107',
      },
      INJECTED,
      { role: 'assistant', content: 'I will fix the rounding.' },
      {
        ...INJECTED,
        content:
          "[ERROR] You did not use a tool in your previous response! Please retry with a tool use.\n\n# Next Steps\n\nIf you have completed the user's task, use the attempt_completion tool.\n" +
          ENV(),
      },
      {
        role: 'assistant',
        toolCalls: [
          {
            id: 'cline-7-0',
            name: 'replace_in_file',
            arguments: JSON.stringify({
              path: 'src/quote/rates.py',
              diff: '------- SEARCH\n    return round(weight * 1.15, 1)\n=======\n    return round(weight * 1.15, 2)\n+++++++ REPLACE',
            }),
          },
        ],
        content: null,
      },
      { role: 'tool', toolCallId: 'cline-7-0', toolName: 'replace_in_file', content: 'The content was successfully saved to src/quote/rates.py.' },
      INJECTED,
      {
        role: 'assistant',
        toolCalls: [{ id: 'cline-9-0', name: 'attempt_completion', arguments: '{"result":"Rates now round to cents."}' }],
        content: null,
      },
      {
        role: 'tool',
        toolCallId: 'cline-9-0',
        toolName: 'attempt_completion',
        content:
          'The user has provided feedback on the results. Consider their input to continue the task, and then attempt completion again.\n<feedback>\nAlso note the deadline 2025-06-27 in the changelog.\n</feedback>',
      },
      INJECTED,
      {
        role: 'assistant',
        toolCalls: [
          {
            id: 'cline-11-0',
            name: 'write_to_file',
            arguments: '{"path":"CHANGELOG.md","content":"- Shipping rates round to cents (deadline 2025-06-27)"}',
          },
        ],
        content: null,
      },
      { role: 'tool', toolCallId: 'cline-11-0', toolName: 'write_to_file', content: 'The content was successfully saved to CHANGELOG.md.' },
      INJECTED,
      { role: 'assistant', content: 'Changelog updated.' },
      {
        ...INJECTED,
        content:
          '[TASK RESUMPTION] This task was interrupted 3 minutes ago. It may or may not be complete, so please reassess the task context.\n\nNew instructions for task continuation:',
      },
      { role: 'user', content: 'Thanks, that is all.' },
      INJECTED,
    ])
    expect(t.recordedCompactions).toEqual([])
    expect(t.usage).toBeUndefined()
  })
})

describe('Cline native tool use', () => {
  const t = load(fixture('cline-native.json'))

  it('pairs tool_result by id (the Result: label Cline keeps inside dropped) and a labelled text result by order', () => {
    expect(t.messages.length).toBe(15)
    const tools = t.messages.filter((m) => m.role === 'tool').map(shape)
    expect(tools).toEqual([
      { role: 'tool', toolCallId: 'toolu_01', toolName: 'read_file', content: 'def rate(weight):\n    return round(weight * 1.15, 2)\n' },
      { role: 'tool', toolCallId: 'toolu_02', toolName: 'execute_command', content: 'Command executed.\nOutput:\n3 passed' },
      {
        role: 'tool',
        toolCallId: 'toolu_03',
        toolName: 'summarize_task',
        content:
          'This session is being continued from a previous conversation that ran out of context. The conversation is summarized below:\n1. Task: add a test for postal code 94107 (order ORD-58213).\n2. src/quote/rates.py read; the suite passes.',
      },
      { role: 'tool', toolCallId: 'toolu_04', toolName: 'write_to_file', content: 'The content was successfully saved to tests/test_rates.py.' },
    ])
    expect(t.messages[0]).toMatchObject({ role: 'user', content: 'Add a test for postal code 94107 in tests/test_rates.py' })
    expect(t.messages[0]?.flags).toBeUndefined()
  })

  it('summarize_task is a recorded compaction at its call, keeping the first user/assistant pair', () => {
    expect(t.recordedCompactions).toEqual([
      {
        atIndex: 8,
        atMessageId: 'm8',
        summaryMessageId: 'm8',
        summaryText: '1. Task: add a test for postal code 94107 (order ORD-58213).\n2. src/quote/rates.py read; the suite passes.',
        trigger: 'auto',
        keptMessageIds: ['m0', 'm1', 'm2'],
        source: 'cline',
      },
    ])
  })

  it('metrics.tokens on the assistant messages are the recorded usage (prompt includes cached)', () => {
    expect(t.usage).toEqual([
      { atIndex: 2, atMessageId: 'm2', context: 12000, output: 80 },
      { atIndex: 5, atMessageId: 'm5', context: 12500, output: 40 },
      { atIndex: 8, atMessageId: 'm8', context: 150000, output: 300 },
      { atIndex: 11, atMessageId: 'm11', context: 9000, output: 120 },
      { atIndex: 14, atMessageId: 'm14', context: 9300, output: 30 },
    ])
  })
})

describe('Roo Code condensing and truncation', () => {
  const t = load(fixture('roo-code-condense.json'))

  it('the summary and the truncation marker are recorded compactions keeping what no id hides', () => {
    expect(t.messages.length).toBe(11)
    expect(t.messages[6]).toMatchObject({ role: 'user', flags: { compactSummary: true } })
    expect(t.messages[9]).toMatchObject({ role: 'user', flags: { compactSummary: true } })
    expect(t.recordedCompactions).toEqual([
      {
        atIndex: 6,
        atMessageId: 'm6',
        summaryMessageId: 'm6',
        summaryText: '## Conversation Summary\n1. Renamed CARRIER to SHIPPING_CARRIER in src/quote/rates.py for order ORD-58213.',
        keptMessageIds: ['m0', 'm1'],
        source: 'cline',
      },
      {
        atIndex: 9,
        atMessageId: 'm9',
        summaryMessageId: 'm9',
        summaryText: '[Sliding window truncation: 2 messages hidden to reduce context]',
        trigger: 'truncation',
        keptMessageIds: ['m0', 'm1', 'm6'],
        source: 'cline',
      },
    ])
  })

  it('a role-less reasoning entry is an opaque part of the next assistant message', () => {
    const m = t.messages[4]
    expect(m?.role).toBe('assistant')
    expect(m?.content).toEqual([
      { type: 'opaque', kind: 'reasoning', raw: { type: 'reasoning', id: 'rs_1', encrypted_content: 'gAAAAB-opaque', summary: [], condenseParent: 'c1' } },
      { type: 'text', text: 'Applying the rename.' },
    ])
  })

  it('a legacy summary (assistant isSummary, no condenseId) keeps the first message', () => {
    const t2 = load(
      JSON.stringify([
        { role: 'user', content: '<task>\nA\n</task>', ts: 1 },
        { role: 'assistant', content: 'B', ts: 2 },
        { role: 'user', content: 'C', ts: 3 },
        { role: 'assistant', content: 'Summary of A to C', ts: 4, isSummary: true },
        { role: 'user', content: 'D', ts: 5 },
      ]),
    )
    expect(t2.messages.map((m) => m.content)).toEqual(['A', 'B', 'C', 'Summary of A to C', 'D'])
    expect(t2.recordedCompactions).toEqual([
      {
        atIndex: 3,
        atMessageId: 'm3',
        summaryMessageId: 'm3',
        summaryText: 'Summary of A to C',
        keptMessageIds: ['m0'],
        source: 'cline',
      },
    ])
  })
})

const t = (text: string) => ({ type: 'text', text })
const TASK_ENV = '<environment_details>\n# VSCode Visible Files\nsrc/quote/rates.py\n</environment_details>'
/** A small XML-era task: 3 calls and results, each message with its `ts`. */
const HISTORY = [
  { role: 'user', content: [t('<task>\nCheck the rates for postal code 94107\n</task>'), t(TASK_ENV)], ts: 1000 },
  { role: 'assistant', content: [t('<read_file>\n<path>src/quote/rates.py</path>\n</read_file>')], ts: 1100 },
  { role: 'user', content: [t("[read_file for 'src/quote/rates.py'] Result:"), t('RATE = 1.15'), t(TASK_ENV)], ts: 1200 },
  { role: 'assistant', content: [t('<list_files>\n<path>tests</path>\n</list_files>')], ts: 1300 },
  { role: 'user', content: [t("[list_files for 'tests'] Result:"), t('test_rates.py'), t(TASK_ENV)], ts: 1400 },
  { role: 'assistant', content: [t('<execute_command>\n<command>pytest</command>\n</execute_command>')], ts: 1500 },
  { role: 'user', content: [t("[execute_command for 'pytest'] Result:\nCommand executed.\nOutput:\n2 passed"), t(TASK_ENV)], ts: 1600 },
  { role: 'assistant', content: [t('The rates for 94107 are correct.')], ts: 1700 },
]
const request = (ts: number, tokensIn: number, tokensOut: number, cacheWrites: number, cacheReads: number) => ({
  ts,
  type: 'say',
  say: 'api_req_started',
  text: JSON.stringify({ request: '…', tokensIn, tokensOut, cacheWrites, cacheReads, cost: 0.01 }),
})
/** Its UI log: 4 requests, a retry, and a truncation of history messages 2..3 from the third request on. */
const UI = [
  { ts: 900, type: 'say', say: 'task', text: 'Check the rates for postal code 94107' },
  request(1050, 10, 50, 4000, 0),
  { ts: 1090, type: 'say', say: 'text', text: 'Reading.' },
  request(1250, 12, 40, 300, 4000),
  { ...request(1450, 8, 30, 200, 1500), conversationHistoryDeletedRange: [2, 3] },
  { ts: 1460, type: 'say', say: 'error_retry', text: '{"attempt":1}' },
  { ...request(1650, 5, 10, 0, 1700), conversationHistoryDeletedRange: [2, 3] },
  { ts: 1800, type: 'say', say: 'completion_result', text: 'The rates for 94107 are correct.' },
]
const METADATA = {
  files_in_context: [{ path: 'src/quote/rates.py', record_state: 'active', record_source: 'read_tool' }],
  model_usage: [{ ts: 1000, model_id: 'claude-3-7-sonnet-20250219', model_provider_id: 'anthropic', mode: 'act' }],
}
const TASK_FILES: Record<string, unknown> = {
  'api_conversation_history.json': HISTORY,
  'ui_messages.json': UI,
  'task_metadata.json': METADATA,
}

/** What the task above imports as with its UI log and metadata. */
function expectTask(task: Transcript) {
  expect(task.format).toBe('cline')
  expect(task.title).toBe('1750413600000')
  expect(task.model).toBe('claude-3-7-sonnet-20250219')
  // 8 history messages: 4 assistant, 3 results, the task, 3 environment details, no text after the last.
  expect(task.messages.map((m) => `${m.role}${m.flags?.injected ? '*' : ''}`)).toEqual([
    'user', 'user*', 'assistant', 'tool', 'user*', 'assistant', 'tool', 'user*', 'assistant', 'tool', 'user*', 'assistant',
  ])
  // Each request's usage at the first assistant message written at or after it.
  expect(task.usage).toEqual([
    { atIndex: 2, atMessageId: 'm2', context: 4010, output: 50 },
    { atIndex: 5, atMessageId: 'm5', context: 4312, output: 40 },
    { atIndex: 8, atMessageId: 'm8', context: 1708, output: 30 },
    { atIndex: 11, atMessageId: 'm11', context: 1705, output: 10 },
  ])
  // The deleted range [2, 3] once: history message 4 (draft 6) is the first kept after it.
  expect(task.recordedCompactions).toEqual([
    { atIndex: 6, atMessageId: 'm6', summaryText: null, trigger: 'truncation', keptMessageIds: ['m0', 'm1', 'm2'], source: 'cline' },
  ])
  expect(task.warnings).toEqual([])
}

describe('a Cline task folder or zip (bundle)', () => {
  it('a zip of two task folders: the first opens with its UI log usage, truncation and model; the other is a conversation', () => {
    const files: Record<string, Uint8Array> = {}
    for (const [name, value] of Object.entries(TASK_FILES)) files[`tasks/1750413600000/${name}`] = strToU8(JSON.stringify(value))
    files['tasks/1750413700000/api_conversation_history.json'] = strToU8(JSON.stringify(HISTORY.slice(0, 2)))
    const r = importBytes(zipSync(files), { fileName: 'tasks.zip' })
    if (!r.ok) throw new Error(r.error.message)
    const task = r.transcript
    const notes = task.notes ?? []
    expect(notes[0]).toBe('2 tasks in this file: "1750413600000" is open; the other one is listed as a further conversation')
    expectTask(task)
    const other = task.sidechains?.[0]
    expect(other?.title).toBe('1750413700000')
    expect(other?.warnings).toEqual([
      "no ui_messages.json beside tasks/1750413700000/api_conversation_history.json: Cline's deleted ranges are not known (usage and truncations come from the history's metrics.tokens when it has them)",
    ])
    expect(other?.messages.length).toBe(3)
  })

  it('a broken history in a zip names the entry', () => {
    const r = importBytes(zipSync({ 'api_conversation_history.json': strToU8('{"x": 1}') }), { fileName: 'task.zip' })
    expect(r.ok).toBe(false)
    if (!r.ok) expect(r.error.message).toContain('api_conversation_history.json: expected an array of messages')
  })

  const dirs: string[] = []
  afterAll(() => {
    for (const d of dirs) rmSync(d, { recursive: true, force: true })
  })

  it('the CLI reads a task folder', async () => {
    const root = mkdtempSync(join(tmpdir(), 'cline-task-'))
    dirs.push(root)
    const dir = join(root, '1750413600000')
    mkdirSync(dir)
    for (const [name, value] of Object.entries(TASK_FILES)) writeFileSync(join(dir, name), JSON.stringify(value))
    const { code, stdout, stderr } = await runCli(['inspect', dir])
    expect(stderr).toBe('')
    expect(code).toBe(0)
    expect(stdout).toMatch(/: cline\n/)
    expect(stdout).toMatch(/^messages {14}12 \(system 0, user 5, assistant 4, tool 3\)$/m)
    expect(stdout).toMatch(/^tool calls {12}3$/m)
    expect(stdout).toMatch(/^tool results {10}3$/m)
    expect(stdout).toMatch(/^recorded compactions {2}1$/m)
    expect(stdout).toMatch(/^recorded usage {8}4 requests/m)
  })
})

describe('a request body Cline sent ({system, tools, messages})', () => {
  it('keeps the system prompt and the tools, and still reads the text-label results', () => {
    const t2 = load(
      JSON.stringify({
        model: 'claude-sonnet-4-20250514',
        system: [{ type: 'text', text: 'You are Cline.' }],
        tools: [{ name: 'read_file', description: 'Read a file', input_schema: { type: 'object' } }],
        messages: [
          { role: 'user', content: [t('<task>\nRead a.ts\n</task>'), t(TASK_ENV)] },
          { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_9', name: 'read_file', input: { path: 'a.ts' } }] },
          { role: 'user', content: [t("[read_file for 'a.ts'] Result:\nexport {}"), t(TASK_ENV)] },
        ],
      }),
    )
    expect(t2.format).toBe('cline')
    expect(t2.model).toBe('claude-sonnet-4-20250514')
    expect(t2.tools).toEqual([{ name: 'read_file', description: 'Read a file', parameters: { type: 'object' } }])
    expect(t2.messages.map(shape)).toEqual([
      { role: 'system', content: 'You are Cline.' },
      { role: 'user', content: 'Read a.ts' },
      { role: 'user', flags: { injected: true }, content: TASK_ENV },
      { role: 'assistant', toolCalls: [{ id: 'toolu_9', name: 'read_file', arguments: '{"path":"a.ts"}' }], content: null },
      { role: 'tool', toolCallId: 'toolu_9', toolName: 'read_file', content: 'export {}' },
      { role: 'user', flags: { injected: true }, content: TASK_ENV },
    ])
  })
})

describe('Cline detection and refusals', () => {
  it("a task's ui_messages.json alone is refused naming the history file to open", () => {
    const r = importTranscript(JSON.stringify(UI))
    expect(r.ok).toBe(false)
    if (!r.ok) expect(r.error.message).toContain('open api_conversation_history.json or the task folder')
  })

  it('a history holding a non-object message is refused by detection, not crashed', () => {
    expect(clineImporter.detect([{ role: 'user', content: '<task>\nx\n</task>' }, 3])).toBe('[1] is not an object')
  })

  it('an unknown role is skipped with a warning naming the message', () => {
    const t2 = clineImporter.importParsed(
      [
        { role: 'user', content: '<task>\nA\n</task>', ts: 1 },
        { role: 'tool', content: 'x', ts: 2 },
        { role: 'assistant', content: 'B', ts: 3 },
      ],
      {},
    )
    expect(t2.warnings).toEqual(['[1].role: "tool" is not user or assistant, skipped'])
    expect(t2.messages.map((m) => m.content)).toEqual(['A', 'B'])
  })
})

/**
 * A Cline 3.x native-tool task (invented): history message 0 is the task, then step k is an
 * assistant message (history index 2k+1: a `read_file` call, `metrics.tokens` from `recorded[k]`)
 * and, except after the last step, its labelled result (2k+2) of `rows[k]` table rows with the
 * environment details. Each history user message imports as two messages (the result or the task,
 * then the injected environment details), each assistant message as one.
 */
function steps(rows: number[], recorded: { prompt: number; completion?: number; cached?: number }[]): unknown[] {
  const out: unknown[] = [{ role: 'user', content: [t('<task>\nCheck every postal code in data/\n</task>'), t(TASK_ENV)], ts: 1000 }]
  recorded.forEach((r, k) => {
    const path = `data/part${String(k).padStart(2, '0')}.csv`
    const last = k === recorded.length - 1
    out.push({
      role: 'assistant',
      content: last ? [t('All postal codes checked.')] : [t('Reading the next part.'), { type: 'tool_use', id: `toolu_${k}`, name: 'read_file', input: { path } }],
      modelInfo: { modelId: 'claude-sonnet-4-5-20250929', providerId: 'openai', mode: 'act' },
      metrics: { tokens: { prompt: r.prompt, completion: r.completion ?? 100, cached: r.cached ?? 0 } },
      ts: 2000 + 2 * k,
    })
    if (!last) {
      const table = Array.from({ length: rows[k] ?? 0 }, (_, j) => `row ${String(j).padStart(4, '0')}: postal 94107, rate 1.15`).join('\n')
      out.push({ role: 'user', content: [t(`[read_file for '${path}'] Result:`), t(table), t(TASK_ENV)], ts: 2001 + 2 * k })
    }
  })
  return out
}

/** `m<a>`..`m<b>` inclusive. */
const ids = (a: number, b: number) => Array.from({ length: b - a + 1 }, (_, k) => `m${a + k}`)

describe('Cline usage and truncations read from metrics.tokens', () => {
  it('cached above prompt (Anthropic: input_tokens excludes the cache) adds to it; cached within prompt is a part of it', () => {
    const task = clineImporter.importParsed(
      steps([40], [
        { prompt: 10, completion: 300, cached: 9500 },
        { prompt: 4200, completion: 40, cached: 4000 },
      ]),
      {},
    )
    expect(task.usage).toEqual([
      { atIndex: 2, atMessageId: 'm2', context: 9510, output: 300 },
      { atIndex: 5, atMessageId: 'm5', context: 4200, output: 40 },
    ])
  })

  // Each ordinary step adds 4,000 recorded tokens; step 7's result (history 16) is six times as long.
  const rows = [50, 50, 50, 50, 50, 50, 50, 300, 50]
  const growing = [5000, 9000, 13000, 17000, 21000, 25000, 29000].map((prompt) => ({ prompt }))

  it('without ui_messages.json a fall in the recorded context is a truncation with the range Cline would choose, accumulated', () => {
    // Request 15 (after 29,000 + 100 out): 29,000 + 4,000 − 12,000 → Cline's "half" from message 2 of 15
    // messages removes [2, 7]. Request 19 (after 45,000 + 100 ≥ the 29,100 that made Cline truncate):
    // 45,000 + 4,000 − 8,000, a 9% fall → "half" of the rest from 8 of 19 messages, [2, 11].
    const task = clineImporter.importParsed(steps(rows, [...growing, { prompt: 21000 }, { prompt: 45000 }, { prompt: 41000 }]), {})
    expect(task.recordedCompactions).toEqual([
      // History 15 is draft 23; kept: history 0–1 (drafts 0–2) and 8–14 (drafts 12–22).
      { atIndex: 23, atMessageId: 'm23', summaryText: null, trigger: 'truncation', keptMessageIds: [...ids(0, 2), ...ids(12, 22)], source: 'cline' },
      // History 19 is draft 29; kept: history 0–1 and 12–18 (drafts 18–28).
      { atIndex: 29, atMessageId: 'm29', summaryText: null, trigger: 'truncation', keptMessageIds: [...ids(0, 2), ...ids(18, 28)], source: 'cline' },
    ])
    expect(task.notes).toEqual([
      "2 truncations inferred from the recorded usage (the context falls at history messages 15, 19): ui_messages.json, where Cline records the range it deleted, was not given",
    ])
  })

  it('the "quarter" range when the recorded context fell by three quarters of the pairs', () => {
    // 29,000 + 4,000 − 16,000: "quarter" from message 2 of 15 messages removes [2, 9].
    const task = clineImporter.importParsed(steps(rows, [...growing, { prompt: 17000 }]), {})
    expect(task.recordedCompactions).toEqual([
      { atIndex: 23, atMessageId: 'm23', summaryText: null, trigger: 'truncation', keptMessageIds: [...ids(0, 2), ...ids(15, 22)], source: 'cline' },
    ])
  })

  it('a context that only grows, or falls by less than a fifth, infers nothing', () => {
    const task = clineImporter.importParsed(steps(rows, [...growing, { prompt: 25000 }]), {})
    expect(task.recordedCompactions).toEqual([])
    expect(task.notes).toBeUndefined()
  })
})

describe("a deleted range in Cline's UI log placed by conversationHistoryIndex", () => {
  it('sits at the request it was first sent with, keeping messages 0–1 and those after the range before that request', () => {
    // Entries carry the history length − 1 when they were added; an api_req_started is added before its
    // user message (its request's assistant message is history index + 2), the others while the
    // response streams (index + 1). The range [2, 3] first rides on the text of request 5.
    const ui = [
      { ts: 900, type: 'say', say: 'task', text: 'Check the rates for postal code 94107', conversationHistoryIndex: -1 },
      { ...request(1050, 10, 50, 4000, 0), conversationHistoryIndex: -1 },
      { ts: 1090, type: 'say', say: 'text', text: 'Reading.', conversationHistoryIndex: 0 },
      { ...request(1250, 12, 40, 300, 4000), conversationHistoryIndex: 1 },
      { ...request(1450, 8, 30, 200, 4300), conversationHistoryIndex: 3 },
      { ts: 1460, type: 'say', say: 'text', text: 'Running the tests.', conversationHistoryIndex: 4, conversationHistoryDeletedRange: [2, 3] },
      { ...request(1650, 5, 10, 0, 1700), conversationHistoryIndex: 5, conversationHistoryDeletedRange: [2, 3] },
    ]
    const files: Record<string, Uint8Array> = {
      'api_conversation_history.json': strToU8(JSON.stringify(HISTORY)),
      'ui_messages.json': strToU8(JSON.stringify(ui)),
    }
    const r = importBytes(zipSync(files), { fileName: 'task.zip' })
    if (!r.ok) throw new Error(r.error.message)
    // History 5 is message 8; kept: history 0–1 (messages 0–2) and 4 (messages 6–7).
    expect(r.transcript.recordedCompactions).toEqual([
      { atIndex: 8, atMessageId: 'm8', summaryText: null, trigger: 'truncation', keptMessageIds: ['m0', 'm1', 'm2', 'm6', 'm7'], source: 'cline' },
    ])
  })
})
