import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { recordedView } from '../analysis/recorded'
import { contentText } from '../content'
import type { Transcript } from '../model'
import { importTranscript } from './index'
import { piCodingAgentImporter } from './pi-coding-agent'
import { registryContractViolations } from './test-helpers'

const read = (name: string) =>
  readFileSync(new URL(`../../../test/fixtures/formats/${name}`, import.meta.url), 'utf8')
const pi = read('pi-session.jsonl')
const omp = read('omp-session.jsonl')

function load(text: string): Transcript {
  const r = importTranscript(text, { fileName: 'session.jsonl' })
  if (!r.ok) throw new Error(r.error.message)
  expect(r.transcript.format).toBe('pi-coding-agent')
  return r.transcript
}

const header = JSON.stringify({ type: 'session', version: 3, id: 'u-1', timestamp: '2026-01-01T00:00:00Z', cwd: '/x' })
const entry = (id: string, parentId: string | null, message: unknown) =>
  JSON.stringify({ type: 'message', id, parentId, timestamp: '2026-01-01T00:00:01Z', message })

describe('pi-coding-agent importer', () => {
  it('meets the registry contract on the pi and the Oh My Pi fixtures', () => {
    expect(registryContractViolations(piCodingAgentImporter, pi)).toEqual([])
    expect(registryContractViolations(piCodingAgentImporter, omp)).toEqual([])
  })

  it('reads the path from the last entry to the root, with the abandoned branch listed', () => {
    const t = load(pi)
    // model_change and custom carry no message; b0000001/b0000002 are off the path.
    expect(t.messages.map((m) => m.id)).toEqual([
      'a0000002', 'a0000003', 'a0000004', 'a0000005', 'a0000006', 'a0000007', 'a0000008',
      'a0000009', 'a000000a', 'a000000b', 'a000000c', 'a000000e', 'a000000f',
    ])
    expect(t.messages.map((m) => m.role).join(' ')).toBe(
      'user assistant tool assistant tool user user assistant tool user user user assistant',
    )
    expect(t.branches).toEqual([
      { id: 'b0000001', fromMessageId: 'a0000006', messageCount: 2, firstText: 'No, use integer cents instead.' },
    ])
    expect(t.model).toBe('claude-sonnet-4-5')
    expect(t.warnings).toEqual([])
  })

  it('pairs toolCall blocks with toolResult messages, thinking kept as thinking', () => {
    const t = load(pi)
    const calls = t.messages.flatMap((m) => m.toolCalls ?? [])
    expect(calls.map((c) => [c.id, c.name, c.arguments])).toEqual([
      ['toolu_01', 'read', '{"path":"src/cart/total.ts"}'],
      ['toolu_02', 'bash', '{"command":"npm test"}'],
      ['toolu_03', 'edit', '{"path":"src/cart/total.ts","oldText":"i.price","newText":"i.cents"}'],
    ])
    const tools = t.messages.filter((m) => m.role === 'tool')
    expect(tools.map((m) => [m.toolCallId, m.toolName, m.isError === true])).toEqual([
      ['toolu_01', 'read', false],
      ['toolu_02', 'bash', true],
      ['toolu_03', 'edit', false],
    ])
    expect(t.messages[1]?.content).toEqual([
      { type: 'thinking', variant: 'thinking', text: 'Read the file before changing it.' },
      { type: 'text', text: 'Looking at the file.' },
    ])
  })

  it('sends the branch summary, the bash execution and the compaction summary in pi wording', () => {
    const t = load(pi)
    const byId = new Map(t.messages.map((m) => [m.id, m]))
    expect(byId.get('a0000007')?.content).toBe(
      'The following is a summary of a branch that this conversation came back from:\n\n<summary>\n' +
        'Tried Math.round; the user asked for integer cents instead.</summary>',
    )
    expect(byId.get('a0000007')?.flags).toEqual({ injected: true })
    expect(byId.get('a000000c')?.content).toBe('Ran `npm test`\n```\n12 passing\n```')
    expect(byId.get('a000000c')?.flags).toEqual({ command: true })
    expect(byId.get('a000000b')?.content).toBe(
      'The conversation history before this point was compacted into the following summary:\n\n<summary>\n' +
        'Goal: fix rounding in src/cart/total.ts using integer cents. Edited total.ts; tests not rerun.\n</summary>',
    )
    expect(byId.get('a000000b')?.flags).toEqual({ compactSummary: true })
  })

  it('records the compaction with the kept messages from firstKeptEntryId after the summary', () => {
    const t = load(pi)
    expect(t.recordedCompactions).toEqual([
      {
        atIndex: 6,
        atMessageId: 'a0000008',
        summaryMessageId: 'a000000b',
        summaryText: 'Goal: fix rounding in src/cart/total.ts using integer cents. Edited total.ts; tests not rerun.',
        tokensBefore: 2650,
        source: 'pi-coding-agent',
      },
    ])
    // buildSessionContext: summary, a0000008…a000000a (kept), then what follows the compaction.
    const view = recordedView(t)
    expect(view?.after.messages.map((m) => m.id)).toEqual([
      'a000000b', 'a0000008', 'a0000009', 'a000000a', 'a000000c', 'a000000e', 'a000000f',
    ])
  })

  it('reads usage as input + cacheRead + cacheWrite per assistant message on the path', () => {
    const t = load(pi)
    expect(t.usage).toEqual([
      { atIndex: 1, atMessageId: 'a0000003', context: 1500, output: 80 },
      { atIndex: 3, atMessageId: 'a0000005', context: 1520, output: 40 },
      { atIndex: 7, atMessageId: 'a0000009', context: 2330, output: 120 },
      { atIndex: 12, atMessageId: 'a000000f', context: 900, output: 30 },
    ])
  })

  it('reads Oh My Pi: title slot, /clear boundary, aborted response and !! command left out', () => {
    const t = load(omp)
    expect(t.title).toBe('Rename config loader')
    expect(t.messages.map((m) => m.id)).toEqual(['c0000005', 'c0000009', 'c000000a', 'c000000b', 'c000000c'])
    expect(t.model).toBe('gpt-5')
    expect(t.notes).toEqual([
      '1 shell command(s) run with !! were not sent to the model: left out',
      '1 errored or aborted assistant response(s) are left out, as pi leaves them out of the context',
      'the context was cleared (/clear) on the way: the 2 message(s) before it are left out',
    ])
    expect(t.recordedCompactions).toEqual([
      {
        atIndex: 1,
        atMessageId: 'c0000009',
        summaryMessageId: 'c000000b',
        summaryText: 'Renaming loadCfg; it is defined in src/cfg.ts.',
        tokensBefore: 900,
        tokensAfter: 120,
        source: 'pi-coding-agent',
      },
    ])
    // model_usage (a side call) is no request of the conversation.
    expect(t.usage?.map((u) => [u.atMessageId, u.context])).toEqual([['c0000009', 800], ['c000000c', 300]])
    expect(t.warnings).toEqual([])
  })

  it('reads a version 1 file (no ids) as a linear sequence and warns about unknown entries', () => {
    const text = [
      JSON.stringify({ type: 'session', id: 'u-0', timestamp: '2025-01-01T00:00:00Z', cwd: '/x' }),
      JSON.stringify({ type: 'message', timestamp: 't', message: { role: 'user', content: 'hi' } }),
      JSON.stringify({ type: 'message', timestamp: 't', message: { role: 'assistant', content: [{ type: 'text', text: 'hello' }], stopReason: 'stop' } }),
      JSON.stringify({ type: 'hologram', timestamp: 't' }),
    ].join('\n')
    const t = load(text)
    expect(t.messages.map((m) => [m.id, m.role, contentText(m.content)])).toEqual([
      ['line2', 'user', 'hi'],
      ['line3', 'assistant', 'hello'],
    ])
    expect(t.warnings).toEqual(['1 entry of unknown type "hologram" skipped'])
  })

  it('never crashes on hostile entries: a cycle, missing parents, bad messages', () => {
    const text = [
      header,
      entry('e1', 'e3', { role: 'user', content: 'loop' }),
      entry('e2', 'e1', 'not an object'),
      entry('e3', 'e2', { role: 'wizard', content: 'x' }),
    ].join('\n')
    const t = load(text)
    expect(t.messages.map((m) => m.id)).toEqual(['e1'])
    expect(t.warnings).toEqual([
      'line 3: message entry without a message object, skipped',
      'line 4: message role "wizard" is not one pi writes, skipped',
    ])
    const none = importTranscript([header, entry('e1', null, { role: 'wizard' })].join('\n'))
    expect(none.ok).toBe(false)
    if (!none.ok) expect(none.error.message).toBe("no messages on the session's conversation (1 entries read)")
  })

  // An unreadable line in the middle (cut short, or refused for nesting too deep) loses one entry:
  // the entry naming it as its parent joins the entry before it in file order, so the user's goal
  // and everything before stay on the conversation; the abandoned branch off e1 stays a branch.
  const brokenInMiddle = (bad: string) =>
    [
      header,
      entry('e1', null, { role: 'user', content: 'Find the slow query in reports.sql' }),
      entry('b1', 'e1', { role: 'user', content: 'Never mind, show me the schema' }),
      entry('b2', 'b1', { role: 'assistant', content: [{ type: 'text', text: 'Here is the schema.' }] }),
      entry('e2', 'e1', {
        role: 'assistant',
        content: [
          { type: 'toolCall', id: 'c1', name: 'read', arguments: { path: 'reports.sql' } },
          { type: 'toolCall', id: 'c2', name: 'bash', arguments: { command: 'wc -l reports.sql' } },
        ],
      }),
      bad,
      JSON.stringify({ type: 'message', id: 'e4', parentId: 'e3', timestamp: 't', message: { role: 'toolResult', toolCallId: 'c2', toolName: 'bash', content: [{ type: 'text', text: '412 reports.sql' }] } }),
      entry('e5', 'e4', { role: 'assistant', content: [{ type: 'text', text: 'The report query scans the whole table.' }] }),
    ].join('\n')
  const rejoined =
    'line 7: parentId "e3" is not in the file; the chain is rejoined across line 6 (not read) ' +
    'to line 5, the record before it in file order'

  it('rejoins the chain across a line cut short in the middle: nothing before it is lost', () => {
    const t = load(brokenInMiddle('{"type":"message","id":"e3","parentId":"e2","timestamp":"2026-01-01T0'))
    expect(t.messages.map((m) => [m.id, m.role])).toEqual([
      ['e1', 'user'], ['e2', 'assistant'], ['e4', 'tool'], ['e5', 'assistant'],
    ])
    expect(t.branches).toEqual([
      { id: 'b1', fromMessageId: 'e1', messageCount: 2, firstText: 'Never mind, show me the schema' },
    ])
    expect(t.warnings).toEqual([
      'line 6: invalid JSON (the line ends unexpectedly after column 69), skipped',
      rejoined,
    ])
  })

  it('rejoins the chain across a line refused for nesting too deep', () => {
    const deep = `{"type":"message","id":"e3","parentId":"e2","message":{"role":"toolResult","content":${'['.repeat(1200)}${']'.repeat(1200)}}}`
    const t = load(brokenInMiddle(deep))
    expect(t.messages.map((m) => m.id)).toEqual(['e1', 'e2', 'e4', 'e5'])
    expect(t.branches).toHaveLength(1)
    expect(t.warnings[0]).toMatch(/^line 6: this line .*, skipped$/)
    expect(t.warnings.slice(1)).toEqual([rejoined])
  })

  it('an entry whose parent is missing before any other entry starts the conversation', () => {
    const text = [
      header,
      '{"type":"message","id":"e1","parentId":null,"timest',
      entry('e2', 'e1', { role: 'user', content: 'Second try at the goal' }),
      entry('e3', 'e2', { role: 'assistant', content: [{ type: 'text', text: 'On it.' }] }),
    ].join('\n')
    const t = load(text)
    expect(t.messages.map((m) => m.id)).toEqual(['e2', 'e3'])
    expect(t.warnings.slice(1)).toEqual([
      'line 3: parentId "e1" is not in the file; line 2 before it was not read and no record precedes it: it starts the chain',
    ])
  })

  it('warns when firstKeptEntryId is not on the conversation', () => {
    const text = [
      header,
      entry('e1', null, { role: 'user', content: 'a' }),
      JSON.stringify({ type: 'compaction', id: 'e2', parentId: 'e1', timestamp: 't', summary: 'S', firstKeptEntryId: 'zz', tokensBefore: 10 }),
    ].join('\n')
    const t = load(text)
    expect(t.recordedCompactions.map((c) => [c.atIndex, c.summaryMessageId])).toEqual([[1, 'e2']])
    expect(t.warnings).toEqual([
      'line 3: compaction firstKeptEntryId "zz" is not on the conversation before it; nothing before it counts as kept',
    ])
  })
})
