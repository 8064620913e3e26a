import { readdirSync, readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { checkValidity } from '../analysis/checks'
import type { Transcript } from '../model'
import { detectFormat } from './detect'
import { importTranscript } from './index'
import { copilotCliImporter } from './copilot-cli'
import { registryContractViolations } from './test-helpers'

const fixture = readFileSync(
  new URL('../../../test/fixtures/formats/copilot-cli-session.jsonl', import.meta.url),
  'utf8',
)

function load(text: string, fileName = 'events.jsonl'): Transcript {
  const r = importTranscript(text, { fileName })
  if (!r.ok) throw new Error(r.error.message)
  expect(r.transcript.format).toBe('copilot-cli')
  return r.transcript
}

let seq = 0
/** One event line in the on-disk envelope. */
const ev = (type: string, data: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
  JSON.stringify({
    type,
    data,
    id: `ev-${++seq}`,
    timestamp: '2025-10-21T08:14:02.000Z',
    parentId: seq > 1 ? `ev-${seq - 1}` : null,
    ...extra,
  })
const start = () => ev('session.start', { sessionId: 'S', version: 1, producer: 'copilot-agent', copilotVersion: '0.0.354' })
const user = (content: string) => ev('user.message', { content, attachments: [] })
const say = (content: string, toolRequests: unknown[] = [], more: Record<string, unknown> = {}) =>
  ev('assistant.message', { messageId: `m-${seq}`, content, toolRequests, ...more })
const request = (toolCallId: string, name: string, args: unknown = {}) => ({ toolCallId, name, arguments: args })
const done = (toolCallId: string, content: string, extra: Record<string, unknown> = {}) =>
  ev('tool.execution_complete', { toolCallId, success: true, result: { content }, ...extra })

describe('GitHub Copilot CLI importer', () => {
  it('imports the fixture with the counts read from its 27 lines', () => {
    const t = load(fixture)
    const roles = t.messages.map((m) => m.role)
    // user.message ×2, assistant.message ×5, tool.execution_complete ×5; no system.message.
    expect(roles.filter((r) => r === 'user')).toHaveLength(2)
    expect(roles.filter((r) => r === 'assistant')).toHaveLength(5)
    expect(roles.filter((r) => r === 'tool')).toHaveLength(5)
    expect(roles.filter((r) => r === 'system')).toHaveLength(0)
    // toolRequests: 2 (parallel, line 5) + 1 + 1 + 1; the last assistant.message has none.
    expect(t.messages.reduce((n, m) => n + (m.toolCalls?.length ?? 0), 0)).toBe(5)
    // Line 12 is the one success:false.
    expect(t.messages.filter((m) => m.isError).map((m) => m.source.line)).toEqual([12])
    expect(t.branches ?? []).toHaveLength(0)
    expect(t.sidechains ?? []).toHaveLength(0)
    expect(t.model).toBe('gpt-5') // session.model_change, then assistant.message model
    expect(t.warnings).toEqual([])
    // Every call answered before the next turn, no empty message: valid as recorded.
    expect(checkValidity(t.messages)).toEqual([])
  })

  it('maps parallel toolRequests to one assistant message and pairs results on toolCallId', () => {
    const t = load(fixture)
    const first = t.messages[1]
    expect(first?.source.line).toBe(5)
    expect(first?.content).toBe('I will read the rates module and run the failing test at the same time.')
    expect(first?.toolCalls).toEqual([
      { id: 'toolu_vrtx_01HkQ3pRatesView', name: 'view', arguments: '{"path":"/home/dev/quote-service/src/quote/rates.py"}' },
      {
        id: 'toolu_vrtx_01HkQ3pRatesTest',
        name: 'bash',
        arguments: '{"command":"python -m pytest tests/test_rates.py -q","description":"Run the rates tests","sessionId":"main","async":false}',
      },
    ])
    expect(t.messages.slice(2, 4).map((m) => [m.toolCallId, m.toolName])).toEqual([
      ['toolu_vrtx_01HkQ3pRatesView', 'view'],
      ['toolu_vrtx_01HkQ3pRatesTest', 'bash'],
    ])
    const failed = t.messages.find((m) => m.isError)
    expect(failed).toMatchObject({
      toolCallId: 'toolu_vrtx_01HkQ3pRatesEdit1',
      toolName: 'edit',
      content: 'No match found for old_str in /home/dev/quote-service/src/quote/rates.py',
    })
    // reasoningText becomes a thinking part before the (empty) text.
    const withThinking = t.messages.find((m) => m.source.line === 22)
    expect(withThinking?.content).toEqual([
      { type: 'thinking', variant: 'thinking', text: 'Run the full suite once; report failures only if any.' },
    ])
  })

  it('shows the compaction the log records where it started, with its tokens and summary', () => {
    const t = load(fixture)
    expect(t.recordedCompactions).toHaveLength(1)
    const c = t.recordedCompactions[0]
    // compaction_start (line 17) comes after 8 messages; the next is the user.message of line 20.
    expect(c).toMatchObject({
      atIndex: 8,
      atMessageId: '5f0c1e2a-9b7d-4c3e-8a1f-000000000020',
      tokensBefore: 57400,
      tokensAfter: 12100,
      source: 'copilot-cli',
    })
    expect(c?.summaryText).toMatch(/^<overview>Fixing the 10 kg band edge for order ORD-58213/)
  })

  it('records a truncation as a compaction that dropped the oldest messages', () => {
    seq = 0
    const t = load(
      [
        start(),
        ev('system.message', { role: 'system', content: 'You are the GitHub Copilot CLI.' }),
        user('one'),
        say('first'),
        user('two'),
        say('second'),
        ev('session.truncation', {
          tokenLimit: 128000,
          preTruncationTokensInMessages: 130500,
          preTruncationMessagesLength: 5,
          postTruncationTokensInMessages: 90200,
          postTruncationMessagesLength: 3,
          tokensRemovedDuringTruncation: 40300,
          messagesRemovedDuringTruncation: 2,
          performedBy: 'BasicTruncator',
        }),
        user('three'),
      ].join('\n'),
    )
    expect(t.messages.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'user', 'assistant', 'user'])
    expect(t.recordedCompactions).toEqual([
      {
        atIndex: 5,
        atMessageId: 'ev-8',
        trigger: 'truncation',
        tokensBefore: 130500,
        tokensAfter: 90200,
        summaryText: null,
        // The system prompt always stays; "one" and "first" went.
        keptMessageIds: ['ev-5', 'ev-6'],
        source: 'copilot-cli',
      },
    ])
  })

  it('warns about failed or unfinished compactions and names unknown event types', () => {
    seq = 0
    const t = load(
      [
        start(),
        user('go'),
        ev('session.compaction_start', { conversationTokens: 100 }),
        ev('session.compaction_complete', { success: false, error: 'model unavailable' }),
        ev('session.frobnicated', { x: 1 }),
        say('ok'),
        ev('session.frobnicated', { x: 2 }),
        ev('assistant.sparkle', {}),
        ev('session.compaction_start', {}),
      ].join('\n'),
    )
    expect(t.recordedCompactions).toEqual([])
    expect(t.warnings).toEqual([
      'line 4: a compaction failed (model unavailable); the context was not changed there',
      'line 9: a compaction started but the log records no session.compaction_complete for it',
      'events of unknown type skipped: "session.frobnicated" ×2, "assistant.sparkle" ×1',
    ])
  })

  it('puts sub-agent events in their own transcripts, titled from subagent.started', () => {
    seq = 0
    const t = load(
      [
        start(),
        user('Review the diff'),
        say('', [request('task-1', 'task', { prompt: 'review' })]),
        ev('tool.execution_start', { toolCallId: 'task-1', toolName: 'task' }),
        ev('subagent.started', { toolCallId: 'task-1', agentName: 'code-review', agentDisplayName: 'Code Review Agent', agentDescription: 'Reviews' }),
        ev('user.message', { content: 'review', parentToolCallId: 'task-1' }, { agentId: 'ag-1' }),
        ev('assistant.message', { messageId: 's1', content: '', toolRequests: [request('sub-1', 'view', { path: 'a.py' })] }, { agentId: 'ag-1' }),
        ev('tool.execution_complete', { toolCallId: 'sub-1', success: true, result: { content: 'x = 1' } }, { agentId: 'ag-1' }),
        ev('assistant.message', { messageId: 's2', content: 'Looks fine.', parentToolCallId: 'task-2' }),
        done('task-1', 'Looks fine.'),
        say('The review found nothing.'),
      ].join('\n'),
    )
    expect(t.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant'])
    expect(checkValidity(t.messages)).toEqual([])
    expect(t.sidechains?.map((s) => [s.title, s.messages.map((m) => m.role)])).toEqual([
      ['Sub-agent Code Review Agent', ['user', 'assistant', 'tool']],
      ['Sub-agent task-2', ['assistant']],
    ])
    expect(t.warnings).toEqual([
      '4 sub-agent event(s) are in 2 separate sub-agent transcript(s), not in the main line',
    ])
  })

  it('merges chunks of one API call, drops rewound events and flags results without a request', () => {
    seq = 0
    const t = load(
      [
        start(),
        user('a'),
        say('part one', [], { apiCallId: 'chatcmpl-1' }),
        say('part two', [request('c1', 'bash', { command: 'ls' })], { apiCallId: 'chatcmpl-1' }),
        done('c1', 'src'),
        user('b'), // ev-6: rewound
        say('gone'),
        ev('session.snapshot_rewind', { upToEventId: 'ev-6', eventsRemoved: 2 }),
        done('user-run', '$ date\nTue', { isUserRequested: true }),
        user('c'),
      ].join('\n'),
    )
    expect(t.messages.map((m) => m.content)).toEqual(['a', 'part one\npart two', 'src', '$ date\nTue', 'c'])
    expect(t.messages[1]?.toolCalls?.map((c) => c.id)).toEqual(['c1'])
    // The rewound user message and its answer (ev-6, ev-7) are a branch forking after ev-5.
    expect(t.branches).toEqual([{ id: 'ev-6', fromMessageId: 'ev-5', messageCount: 2, firstText: 'b' }])
    expect(t.warnings).toEqual([
      '1 tool result(s) answer no toolRequest of an assistant message (user-requested tools or a lost line)',
      'line 8: session.snapshot_rewind removed 2 event(s) from ev-6 on (2 message(s)); they are listed as a branch',
    ])
  })

  it('lists every rewound part as its own branch; a rewind of no message adds only a warning', () => {
    seq = 0
    const t = load(
      [
        start(), // ev-1
        user('first question'), // ev-2
        say('answer one', [request('c1', 'view', { path: 'a.py' })]), // ev-3
        done('c1', 'print(1)'), // ev-4
        say('done'), // ev-5: rewound by the first rewind
        ev('session.snapshot_rewind', { upToEventId: 'ev-5', eventsRemoved: 1 }), // ev-6
        user('second try'), // ev-7
        say('second answer'), // ev-8
        ev('session.info', { infoType: 'x', message: 'y' }), // ev-9
        ev('session.snapshot_rewind', { upToEventId: 'ev-7', eventsRemoved: 3 }), // ev-10
        ev('session.info', { infoType: 'x', message: 'y' }), // ev-11
        ev('session.snapshot_rewind', { upToEventId: 'ev-11', eventsRemoved: 1 }), // ev-12
        user('third try'), // ev-13
      ].join('\n'),
    )
    expect(t.messages.map((m) => m.id)).toEqual(['ev-2', 'ev-3', 'ev-4', 'ev-13'])
    expect(t.branches).toEqual([
      { id: 'ev-5', fromMessageId: 'ev-4', messageCount: 1, firstText: 'done' },
      { id: 'ev-7', fromMessageId: 'ev-4', messageCount: 2, firstText: 'second try' },
    ])
    expect(t.warnings).toEqual([
      'line 6: session.snapshot_rewind removed 1 event(s) from ev-5 on (1 message(s)); they are listed as a branch',
      'line 10: session.snapshot_rewind removed 3 event(s) from ev-7 on (2 message(s)); they are listed as a branch',
      'line 12: session.snapshot_rewind removed 1 event(s) from ev-11 on (0 message(s)); none was a message',
    ])
    expect(checkValidity(t.messages)).toEqual([])
  })

  it('imports the transformedContent the model got, the typed content when there is none', () => {
    seq = 0
    const wrapped = '<current_datetime>2025-10-21T08:14:05Z</current_datetime>\n\nFix the rates test'
    const t = load(
      [
        start(),
        ev('user.message', { content: 'Fix the rates test', transformedContent: wrapped, attachments: [] }),
        say('On it.'),
        ev('user.message', { content: 'Thanks', transformedContent: '', attachments: [] }),
        user('Bye'),
      ].join('\n'),
    )
    expect(t.messages.map((m) => m.content)).toEqual([wrapped, 'On it.', 'Thanks', 'Bye'])
    // The fixture's first user.message (line 3) carries a <current_datetime> transformedContent.
    const f = load(fixture)
    expect(f.messages[0]?.content).toMatch(
      /^<current_datetime>2025-10-21T08:14:05Z<\/current_datetime>\n\ntests\/test_rates\.py fails/,
    )
  })

  it('fails with a clear error when the log has no messages', () => {
    seq = 0
    const r = importTranscript([start(), ev('session.info', { infoType: 'x', message: 'y' })].join('\n'), {
      fileName: 'events.jsonl',
    })
    expect(r).toEqual({
      ok: false,
      error: { message: 'no user or assistant messages found in the Copilot CLI log (2 events read)' },
    })
  })

  it('is detected as its format, and no bundled sample is taken for it', () => {
    expect(detectFormat(fixture)).toMatchObject({ ok: true, format: 'copilot-cli' })
    expect(detectFormat(fixture, { fileName: 'events.jsonl' })).toMatchObject({ ok: true, format: 'copilot-cli' })
    const dir = new URL('../../../public/samples/', import.meta.url)
    const gallery = JSON.parse(readFileSync(new URL('index.json', dir), 'utf8')) as { file: string; format: string }[]
    const own = new Set(gallery.filter((s) => s.format === 'copilot-cli').map((s) => s.file))
    const samples = readdirSync(dir).filter((f) => f !== 'index.json' && !own.has(f))
    expect(samples.length).toBeGreaterThan(10)
    for (const file of samples) {
      const d = detectFormat(readFileSync(new URL(file, dir), 'utf8'), { fileName: file })
      expect(d.ok ? d.format : 'error', file).not.toBe('copilot-cli')
    }
  })
})

it('meets the registry contract on its bundled sample', () => {
  const text = readFileSync(
    new URL('../../../public/samples/copilot-cli-events.jsonl', import.meta.url),
    'utf8',
  )
  expect(registryContractViolations(copilotCliImporter, text)).toEqual([])
})

describe('GitHub Copilot CLI version', () => {
  it('reads the CLI version from session.start (copilotVersion), the newest resume winning', () => {
    expect(load(fixture).agentVersion).toBe('0.0.354')
    const resumed = [
      ev('session.start', { sessionId: 'S', copilotVersion: '0.0.350', selectedModel: 'gpt-5' }),
      ev('user.message', { content: 'hi' }),
      ev('session.resume', { copilotVersion: '0.0.361' }),
      ev('assistant.message', { messageId: 'm', content: 'hello' }),
    ].join('\n')
    expect(load(resumed).agentVersion).toBe('0.0.361')
  })
})

describe('GitHub Copilot CLI: a tool the person ran', () => {
  // `!ls presets` runs bash without a toolRequest: only tool.execution_start (name, arguments)
  // and tool.execution_complete (`isUserRequested`) are written.
  const t = load(
    readFileSync(new URL('../../../test/fixtures/formats/copilot-cli-user-tools.jsonl', import.meta.url), 'utf8'),
  )

  it('the execution start makes the call its result answers, no orphan warning', () => {
    expect(t.messages.map((m) => [m.role, m.content])).toEqual([
      ['user', 'Why is dusk.toml ignored?'],
      ['assistant', 'Reading the preset loader.'],
      ['tool', "1. export const PRESET_GLOB = 'presets/*.yaml'"],
      ['assistant', 'The loader only reads .yaml files, so dusk.toml is skipped.'],
      ['user', '!ls presets'],
      ['assistant', null],
      ['tool', 'dawn.yaml\ndusk.toml'],
      ['user', 'Rename it then.'],
      ['assistant', 'Renamed presets/dusk.toml to presets/dusk.yaml.'],
    ])
    expect(t.messages[5]?.toolCalls).toEqual([
      { id: 'user-shell-1', name: 'bash', arguments: '{"command":"ls presets","description":"ls presets"}' },
    ])
    // Run by the CLI for the person, not asked for by the model.
    expect(t.messages[5]?.flags).toEqual({ injected: true })
    expect(t.messages[6]).toMatchObject({ toolCallId: 'user-shell-1', toolName: 'bash' })
    expect(t.messages.reduce((n, m) => n + (m.toolCalls?.length ?? 0), 0)).toBe(2)
    expect(t.warnings).toEqual([])
    expect(checkValidity(t.messages)).toEqual([])
  })
})
