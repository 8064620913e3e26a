import { createHash } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { importBytes } from '../../engine/formats'
import { transcriptFingerprint } from '../../engine/formats/fingerprint'
import { MAX_NESTING } from '../../engine/util/nesting'
import {
  isSessionFile,
  parseSessionFile,
  sessionFileName,
  transcriptBytes,
  transcriptData,
  writeSessionFile,
  type SessionFile,
} from './session-file'

const TABS = ['compare', 'table', 'facts']

/** A session of our own: a two-message OpenAI chat with invented content. */
const CHAT = '\uFEFF{"messages":[{"role":"user","content":"Ship order ORD-58213 to 94107 — café"},{"role":"assistant","content":"Done."}]}'

function session(bytes: Uint8Array, fileName = 'orders.json'): Omit<SessionFile, 'kind' | 'version'> {
  return {
    transcript: { fileName, ...transcriptData(bytes), conversation: 'main' },
    settings: 'v1;e=o200k_base;s=extractive;summarize:keep_last=12',
    watched: ['ORD-58213', 'postal code 94107'],
    tab: 'facts',
    message: 1,
  }
}

/** A stored file with one field replaced (`undefined` removes it). */
function withField(path: string[], value: unknown): string {
  const file = JSON.parse(writeSessionFile(session(new TextEncoder().encode(CHAT)))) as Record<string, unknown>
  let at = file
  for (const key of path.slice(0, -1)) at = at[key] as Record<string, unknown>
  const last = path[path.length - 1] as string
  if (value === undefined) delete at[last]
  else at[last] = value
  return JSON.stringify(file)
}

describe('session files', () => {
  it('hold UTF-8 text as it is (BOM included) and give the same bytes back', () => {
    const bytes = new TextEncoder().encode(CHAT)
    const text = writeSessionFile(session(bytes))
    expect(text.startsWith('{"kind":"compaction-inspector-session","version":1,')).toBe(true)
    const parsed = parseSessionFile(text, TABS)
    if (!parsed.ok) throw new Error(parsed.error)
    expect(parsed.session.transcript.encoding).toBe('utf-8')
    expect(parsed.session.transcript.data).toBe(CHAT)
    expect(transcriptBytes(parsed.session)).toEqual(bytes)
    expect(parsed.session.settings).toBe('v1;e=o200k_base;s=extractive;summarize:keep_last=12')
    expect(parsed.session.watched).toEqual(['ORD-58213', 'postal code 94107'])
    expect(parsed.session.tab).toBe('facts')
    expect(parsed.session.message).toBe(1)
  })

  it('hold a zip (an Inspect .eval log) in base64 and reopen it as the same transcript', () => {
    const bytes = new Uint8Array(readFileSync('test/fixtures/formats/inspect-ai-sample.eval'))
    const parsed = parseSessionFile(writeSessionFile(session(bytes, 'run.eval')), TABS)
    if (!parsed.ok) throw new Error(parsed.error)
    expect(parsed.session.transcript.encoding).toBe('base64')
    expect(parsed.session.transcript.data).toBe(Buffer.from(bytes).toString('base64'))
    const back = transcriptBytes(parsed.session)
    expect(back).toEqual(bytes)
    const before = importBytes(bytes, { fileName: 'run.eval' })
    const after = importBytes(back, { fileName: parsed.session.transcript.fileName })
    if (!before.ok || !after.ok) throw new Error('the .eval fixture did not import')
    expect(transcriptFingerprint(after.transcript)).toBe(transcriptFingerprint(before.transcript))
  })

  it('are told by their name or their kind header, not by a mention of the kind', () => {
    expect(isSessionFile('demo.session.json', '')).toBe(true)
    expect(isSessionFile('pasted', ' {\n  "kind": "compaction-inspector-session", "version": 1')).toBe(true)
    expect(isSessionFile('chat.json', '{"messages":[{"role":"user","content":"kind compaction-inspector-session"}]}')).toBe(false)
    expect(isSessionFile('chat.json', '{"version":1,"kind":"compaction-inspector-session"}')).toBe(false)
  })

  it('are named after the transcript', () => {
    expect(sessionFileName('claude-code.jsonl')).toBe('claude-code.session.json')
    expect(sessionFileName('run.eval')).toBe('run.session.json')
    expect(sessionFileName('pasted text')).toBe('pasted text.session.json')
    expect(sessionFileName('.json')).toBe('transcript.session.json')
  })

  it.each([
    [['version'], 2, '"version" 2: this page reads session files of version 1'],
    [['version'], undefined, '"version" is missing: this page reads session files of version 1'],
    [['kind'], 'other', '"kind" is "other", expected "compaction-inspector-session"'],
    [['transcript'], undefined, '"transcript" is missing or not an object'],
    [['transcript', 'fileName'], 7, '"transcript.fileName" is missing or not a string'],
    [['transcript', 'encoding'], 'hex', '"transcript.encoding" must be "utf-8" or "base64"'],
    [['transcript', 'data'], undefined, '"transcript.data" is missing or not a string'],
    [['transcript', 'conversation'], -1, '"transcript.conversation" must be "main" or a sub-agent index'],
    [['settings'], 42, '"settings" is missing or not a settings text'],
    [['watched'], 'ORD-1', '"watched" must be a list of strings'],
    [['tab'], 'nope', '"tab" "nope" is not one of compare, table, facts'],
    [['message'], 1.5, '"message" must be a message position (a whole number ≥ 0) or null'],
  ])('refuse a file whose %j is %j, naming the field', (path, value, error) => {
    expect(parseSessionFile(withField(path, value), TABS)).toEqual({ ok: false, error })
  })

  it('refuse base64 that is not base64 and text that is not JSON', () => {
    const bad = withField(['transcript', 'encoding'], 'base64')
    expect(parseSessionFile(bad, TABS)).toEqual({ ok: false, error: '"transcript.data" is not base64' })
    const notJson = parseSessionFile('{"kind":"compaction-inspector-session",', TABS)
    expect(notJson.ok).toBe(false)
    expect(!notJson.ok && notJson.error.startsWith('not valid JSON (')).toBe(true)
    expect(parseSessionFile('[1]', TABS)).toEqual({ ok: false, error: 'not a session file: expected a JSON object' })
  })

  it('refuse a file nested past MAX_NESTING unparsed, and quote a long kind cut to one short line', () => {
    const deep = `{"kind":"compaction-inspector-session","x":${'['.repeat(MAX_NESTING + 1)}${']'.repeat(MAX_NESTING + 1)}}`
    expect(parseSessionFile(deep, TABS)).toEqual({ ok: false, error: `not a session file: nested deeper than ${MAX_NESTING.toLocaleString('en-US')} levels` })
    const long = parseSessionFile(JSON.stringify({ kind: 'k\n'.repeat(100_000) }), TABS)
    expect(long.ok).toBe(false)
    if (!long.ok) {
      expect(long.error.length).toBeLessThan(300)
      expect(long.error).not.toContain('\n')
      expect(long.error).toContain('200,000')
    }
  })

  it('default an absent conversation, watched list, tab and message', () => {
    let text = withField(['transcript', 'conversation'], undefined)
    for (const key of ['watched', 'tab', 'message']) {
      const file = JSON.parse(text) as Record<string, unknown>
      delete file[key]
      text = JSON.stringify(file)
    }
    const parsed = parseSessionFile(text, TABS)
    if (!parsed.ok) throw new Error(parsed.error)
    expect(parsed.session.transcript.conversation).toBe('main')
    expect(parsed.session.watched).toEqual([])
    expect(parsed.session.tab).toBe('compare')
    expect(parsed.session.message).toBeNull()
  })
})

describe('transcript fingerprints', () => {
  it('are the first 12 hex digits of the SHA-256 of the canonical transcript, whatever the file name', () => {
    const bytes = new TextEncoder().encode(CHAT)
    const a = importBytes(bytes, { fileName: 'a.json' })
    const b = importBytes(bytes, { fileName: 'copy of a.json' })
    if (!a.ok || !b.ok) throw new Error('the chat did not import')
    const expected = createHash('sha256').update(JSON.stringify(a.transcript), 'utf8').digest('hex').slice(0, 12)
    expect(transcriptFingerprint(a.transcript)).toBe(expected)
    expect(transcriptFingerprint(b.transcript)).toBe(expected)
    const changed = importBytes(new TextEncoder().encode(CHAT.replace('94107', '94108')), { fileName: 'a.json' })
    if (!changed.ok) throw new Error('the changed chat did not import')
    expect(transcriptFingerprint(changed.transcript)).not.toBe(expected)
  })
})
