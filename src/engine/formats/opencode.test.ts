import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join, relative, sep } from 'node:path'
import { zipSync } from 'fflate'
import { describe, expect, it } from 'vitest'
import { recordedView } from '../analysis/recorded'
import type { Transcript } from '../model'
import { importBytes, importTranscript } from './index'
import { openCodeImporter } from './opencode'
import { registryContractViolations } from './test-helpers'

const FIXTURES = new URL('../../../test/fixtures/', import.meta.url)
const exportText = readFileSync(new URL('formats/opencode-export.json', FIXTURES), 'utf8')
const STORAGE = new URL('opencode-storage', FIXTURES).pathname

/** The message and part ids of the export fixture: `msg_<12 hex>Q7wRt2Zp9LmXc4`, ascending. */
const msg = (n: number) => `msg_${(0x19b7a2c0000 + n * 0x100).toString(16).padStart(12, '0')}Q7wRt2Zp9LmXc4`
const prt = (n: number) => `prt_${(0x19b7a2c0000 + n * 0x10).toString(16).padStart(12, '0')}Hk3Vn8Ds1Fq6Wy`

function load(text: string): Transcript {
  const r = importTranscript(text, { fileName: 'session.json' })
  if (!r.ok) throw new Error(r.error.message)
  expect(r.transcript.format).toBe('opencode')
  return r.transcript
}

/** Every file under `dir`, keyed by its path relative to `dir` with `/` separators. */
function filesUnder(dir: string): Record<string, Uint8Array> {
  const out: Record<string, Uint8Array> = {}
  const walk = (d: string) => {
    for (const name of readdirSync(d)) {
      const p = join(d, name)
      if (statSync(p).isDirectory()) walk(p)
      else out[relative(dir, p).split(sep).join('/')] = new Uint8Array(readFileSync(p))
    }
  }
  walk(dir)
  return out
}

describe('OpenCode importer: opencode export JSON', () => {
  it('meets the registry contract', () => {
    expect(registryContractViolations(openCodeImporter, exportText)).toEqual([])
  })

  it('splits assistant messages at their LLM steps and sends each tool part as a call and a result', () => {
    const t = load(exportText)
    // msg 9 failed (APIError, no output) and msgs 11–12 are reverted; msg 2 has three steps.
    // Tool messages take their part's id: parts 6, 9, 16 and 19 are the tool parts.
    expect(t.messages.map((m) => [m.id, m.role])).toEqual([
      [msg(1), 'user'],
      [msg(2), 'assistant'],
      [prt(6), 'tool'],
      [`${msg(2)}-step2`, 'assistant'],
      [prt(9), 'tool'],
      [`${msg(2)}-step3`, 'assistant'],
      [msg(3), 'user'],
      [msg(4), 'assistant'],
      [prt(16), 'tool'],
      [msg(5), 'assistant'],
      [prt(19), 'tool'],
      [msg(6), 'user'],
      [msg(7), 'assistant'],
      [msg(8), 'user'],
      [msg(10), 'assistant'],
    ])
    expect(t.title).toBe('Add --dry-run to deploy script')
    expect(t.model).toBe('claude-sonnet-4-5')
    expect(t.agentVersion).toBe('1.14.2')
    expect(t.warnings).toEqual([])
    expect(t.notes).toEqual([
      '1 assistant response(s) that failed with an error are left out, as OpenCode leaves them out of the context',
      'the session was reverted: its last 2 message(s) are undone and left out',
    ])
  })

  it('reads completed, error and interrupted tool states as OpenCode sends them', () => {
    const t = load(exportText)
    const calls = t.messages.flatMap((m) => m.toolCalls ?? [])
    expect(calls.map((c) => [c.id, c.name, c.arguments])).toEqual([
      ['toolu_a1', 'read', '{"filePath":"/home/dev/infra/scripts/deploy.sh"}'],
      ['toolu_a2', 'bash', '{"command":"sh scripts/deploy.sh --help"}'],
      ['toolu_a3', 'edit', '{"filePath":"/home/dev/infra/scripts/deploy.sh","oldString":"set -e","newString":"set -e\\n[ \\"$1\\" = --dry-run ] && DRY=echo"}'],
      ['toolu_a4', 'bash', '{"command":"sh scripts/deploy.sh --dry-run"}'],
    ])
    const tools = t.messages.filter((m) => m.role === 'tool')
    expect(tools.map((m) => [m.toolCallId, m.toolName, m.content, m.isError === true])).toEqual([
      ['toolu_a1', 'read', '1\t#!/bin/sh\n2\tset -e\n3\trsync -a build/ prod:/srv/app/', false],
      ['toolu_a2', 'bash', 'exit status 1: unknown option --help', true],
      ['toolu_a3', 'edit', 'Edit applied successfully.', false],
      ['toolu_a4', 'bash', '[Tool execution was interrupted]', true],
    ])
  })

  it('keeps reasoning as thinking, images as images, and flags the synthetic continue prompt', () => {
    const t = load(exportText)
    expect(t.messages[1]?.content).toEqual([
      { type: 'thinking', variant: 'reasoning', text: 'Read the script before editing it.' },
      { type: 'text', text: 'Reading the script.' },
    ])
    const first = t.messages[0]?.content
    expect(Array.isArray(first) && first.map((p) => p.type)).toEqual(['text', 'image'])
    expect(t.messages[11]?.content).toBe('What did we do so far?')
    expect(t.messages[13]?.content).toBe('Continue if you have next steps')
    expect(t.messages[13]?.flags).toEqual({ injected: true })
    expect(t.messages[12]?.flags).toEqual({ compactSummary: true })
  })

  it('records the compaction: the summary answers the compaction request, which stays in the context', () => {
    const t = load(exportText)
    expect(t.recordedCompactions).toEqual([
      {
        atIndex: 12,
        atMessageId: msg(7),
        summaryMessageId: msg(7),
        summaryText:
          'Goal: add --dry-run to scripts/deploy.sh. Done: flag parsing added with DRY=echo. Next: run the dry run (the last run was interrupted).',
        trigger: 'auto',
        keptMessageIds: [msg(6)],
        source: 'opencode',
      },
    ])
    // filterCompacted: from the compaction request on.
    expect(recordedView(t)?.after.messages.map((m) => m.id)).toEqual([msg(6), msg(7), msg(8), msg(10)])
  })

  it('lists the pruned read output as a cleared tool result from the first message after the pruning', () => {
    const t = load(exportText)
    // time.compacted is 30.5 s in; msg 6 (31 s) is the first message created after it.
    expect(t.clearedToolResults).toEqual([
      { atIndex: 11, toolCallIds: ['toolu_a1'], trigger: 'prune', placeholder: '[Old tool result content cleared]' },
    ])
  })

  it('reads usage per step-finish (else per message): context = input + cache read + write, output + reasoning', () => {
    const t = load(exportText)
    expect(t.usage?.map((u) => [u.atMessageId, u.context, u.output])).toEqual([
      [msg(2), 2540, 40],
      [`${msg(2)}-step2`, 2660, 20],
      [`${msg(2)}-step3`, 2730, 12],
      [msg(4), 2850, 45],
      [msg(7), 3100, 48],
      [msg(10), 200, 18],
    ])
  })

  it('never crashes on hostile exports: bad messages are warned, an empty export is an error', () => {
    const root = JSON.parse(exportText) as { info: unknown; messages: unknown[] }
    const bad = { info: root.info, messages: [42, { info: { id: 'msg_x', role: 'robot' }, parts: [{ type: 'text', text: 'x' }] }, ...root.messages] }
    const t = load(JSON.stringify(bad))
    expect(t.warnings).toEqual([
      'messages[0]: not an {info, parts} object, skipped',
      'messages[1].info.role: "robot" is not user or assistant, skipped',
    ])
    const empty = importTranscript(JSON.stringify({ info: { id: 'ses_1' }, messages: [] }))
    expect(empty.ok).toBe(false)
    if (!empty.ok) expect(empty.error.message).toBe('messages has no messages')
  })
})

describe('OpenCode importer: storage folder or zip', () => {
  const expectStorage = (t: Transcript) => {
    expect(t.format).toBe('opencode')
    // The newest main session (no parentID) is opened; the older one and the sub-agent's follow.
    expect(t.title).toBe('Fix broken links')
    expect(t.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant', 'tool', 'assistant'])
    expect(t.messages.flatMap((m) => m.toolCalls ?? []).map((c) => c.name)).toEqual(['task', 'edit'])
    expect(t.messages[2]?.content).toBe('docs/setup.md:12 -> /install (404)')
    expect(t.sidechains?.map((s) => [s.title, s.messages.length])).toEqual([
      ['Old: bump eslint', 2],
      ['Find broken links (@explore subagent)', 4],
    ])
    expect(t.notes?.[0]).toBe('3 sessions in this file: "Fix broken links" is open; the other 2 are listed as further conversations')
    expect(t.usage?.map((u) => u.context)).toEqual([1200, 1300, 1410])
    expect(t.warnings).toEqual([])
  }

  it('reads a zip of the storage (session/, message/, part/ entries)', () => {
    const zip = zipSync(filesUnder(STORAGE))
    const r = importBytes(zip, { fileName: 'opencode-storage.zip' })
    if (!r.ok) throw new Error(r.error.message)
    expectStorage(r.transcript)
  })

  it('reads the storage without its session files, messages only', () => {
    const files = Object.fromEntries(Object.entries(filesUnder(STORAGE)).filter(([n]) => !n.includes('/session/')))
    const r = importBytes(zipSync(files))
    if (!r.ok) throw new Error(r.error.message)
    // No session info: no titles and no parent links; sessions in id order.
    expect(r.transcript.title).toBe('ses_3f2e1d0c9bffAb1Cd2Ef3Gh4Ij')
    expect(r.transcript.sidechains?.map((s) => s.title)).toEqual(['ses_3f2e1d0c9c00Kl5Mn6Op7Qr8St', 'ses_3f2e1d0d0000Uv9Wx0Yz1Ab2Cd'])
  })

  it('reads the earliest layout (session/info/, session/message/<ses>/, session/part/<ses>/<msg>/)', () => {
    const files: Record<string, Uint8Array> = {}
    for (const [name, data] of Object.entries(filesUnder(STORAGE))) {
      const info = /^storage\/session\/[^/]+\/(ses_[^/]+\.json)$/.exec(name)
      const message = /^storage\/message\/(.+)$/.exec(name)
      const part = /^storage\/part\/(msg_[^/]+)\/(.+)$/.exec(name)
      if (info) files[`storage/session/info/${info[1]}`] = data
      else if (message) files[`storage/session/message/${message[1]}`] = data
      else if (part) {
        const owner = JSON.parse(new TextDecoder().decode(data)) as { sessionID: string }
        files[`storage/session/part/${owner.sessionID}/${part[1]}/${part[2]}`] = data
      }
    }
    const r = importBytes(zipSync(files))
    if (!r.ok) throw new Error(r.error.message)
    expectStorage(r.transcript)
  })

  it('skips an unreadable entry with a warning naming it', () => {
    const files = filesUnder(STORAGE)
    const name = Object.keys(files).find((n) => n.includes('/part/')) as string
    files[name] = new TextEncoder().encode('{not json')
    const r = importBytes(zipSync(files))
    if (!r.ok) throw new Error(r.error.message)
    expect(r.transcript.warnings).toHaveLength(1)
    expect(r.transcript.warnings[0]).toMatch(new RegExp(`^${name}: .*skipped$`))
  })
})
