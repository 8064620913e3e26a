import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { checkValidity } from '../checks'
import { contentText } from '../content'
import type { Message, Transcript } from '../model'
import { aiderImporter, detectAider, importAiderText } from './aider'
import { importTranscript } from './index'
import { runImporter } from './registry'

const sampleText = (name: string) =>
  readFileSync(new URL(`../../../public/samples/${name}`, import.meta.url), 'utf8')
const fixtureText = (name: string) =>
  readFileSync(new URL(`../../../test/fixtures/formats/${name}`, import.meta.url), 'utf8')

const roles = (t: Transcript) => {
  const n = { system: 0, user: 0, assistant: 0, tool: 0 }
  for (const m of t.messages) n[m.role]++
  return n
}
const calls = (t: Transcript) => t.messages.reduce((n, m) => n + (m.toolCalls?.length ?? 0), 0)
const texts = (t: Transcript) => t.messages.map((m) => contentText(m.content))
const kinds = (list: readonly Message[]) =>
  list.map((m) =>
    m.role === 'user'
      ? m.flags?.command
        ? 'command'
        : m.flags?.injected
          ? 'injected'
          : 'user'
      : m.role,
  )

/** aider's Markdown line break: `user_input` and every log write end their lines with it. */
const BR = '  '

describe('aider: assistant headings, multi-line input, log, /run, two sessions', () => {
  // The fixture has three `# aider chat started at` headers (lines 2, 6, 106). Line 2 holds only
  // a command line (no input): left out. Session at line 6: one 3-line input, a reply with
  // `#### Summary` / `#### Plan` headings, a `> Note:` quote and a SEARCH/REPLACE edit, then log
  // (Tokens, Applied edit, a commit message with a body, /undo hint); `/run` with 3 output lines
  // added (`… [Yes]: y`); a question, its reply, then a lint report the person chose to fix
  // (`Attempt to fix lint errors? … y`) and the fix; `/run git status` not added (`: n`);
  // `<blank>`; `/exit`. Session at line 106 (architect mode, the newest with a conversation):
  // `/ask …` and its echo as input, a reply, a request, the architect's plan, the plan handed
  // to the editor as input, a malformed edit, the edit-format error aider reflects, the fixed
  // edit, `/test` whose output aider did not write, a reply.
  const t = importAiderText(fixtureText('aider-headings-and-log.chat.history.md'))
  const older = t.sidechains?.[0] as Transcript

  it('opens the newest session with a conversation; the other is a further conversation', () => {
    expect(t.title).toBe('aider chat started at 2025-07-03 09:40:27')
    expect(t.sidechains).toHaveLength(1)
    expect(older.title).toBe('aider chat started at 2025-07-02 14:05:11')
    expect(t.model).toBe('anthropic/claude-sonnet-4-20250514')
    expect(older.model).toBe('anthropic/claude-sonnet-4-20250514')
  })

  it('counts: no tool messages, no tool calls', () => {
    expect(roles(t)).toEqual({ system: 0, user: 6, assistant: 5, tool: 0 })
    expect(roles(older)).toEqual({ system: 0, user: 7, assistant: 3, tool: 0 })
    expect(calls(t) + calls(older)).toBe(0)
    expect(kinds(older.messages)).toEqual([
      'user',
      'assistant',
      'command',
      'command',
      'user',
      'assistant',
      'command',
      'assistant',
      'command',
      'command',
    ])
    expect(kinds(t.messages)).toEqual([
      'command',
      'user',
      'assistant',
      'user',
      'assistant',
      'injected',
      'assistant',
      'injected',
      'assistant',
      'command',
      'assistant',
    ])
  })

  it("a reply's `#### ` headings and `> ` quote stay in it; a 3-line input is one message", () => {
    expect(older.messages[0]).toMatchObject({
      role: 'user',
      content:
        'The CSV export drops the header row when the ledger is empty.\n\n' +
        'Keep the column order as it is.',
      source: { line: 16 },
    })
    const reply = contentText(older.messages[1]?.content ?? null)
    expect(reply.startsWith('#### Summary\n\nThe header is written inside the loop')).toBe(true)
    expect(reply).toContain('\n#### Plan\n')
    expect(reply).toContain('\n> Note: the column order stays `date,account,amount`.\n')
    expect(reply.endsWith('>>>>>>> REPLACE\n```')).toBe(true)
  })

  it("aider's log is no message: banner, tokens, edits, commits (with a body), questions", () => {
    const all = [...texts(t), ...texts(older)].join('\n')
    for (const log of [
      'Aider v0.86.1',
      'Repo-map',
      'Tokens:',
      'Applied edit',
      'Commit 3f9c2a1',
      'The header row is now written once',
      'You can use /undo',
      'Edit the files?',
      'Add 0.1k tokens',
      '<blank>',
    ])
      expect(all, log).not.toContain(log)
  })

  it('command output the person added is a user message flagged command, after its /run', () => {
    expect(older.messages[2]).toMatchObject({
      content: '/run python -m pytest -q tests/test_export.py',
    })
    expect(older.messages[3]).toMatchObject({
      role: 'user',
      flags: { command: true },
      source: { line: 51 },
      content:
        '..F                                                                      [100%]\n' +
        'FAILED tests/test_export.py::test_empty_ledger - ' +
        "AssertionError: assert '' == 'date,account,amount\\n'\n" +
        '1 failed, 2 passed in 0.12s',
    })
    // `/run git status` was answered `n`: nothing went to the model.
    expect(older.messages[8]).toMatchObject({ content: '/run git status --short' })
    expect(older.messages[9]).toMatchObject({ content: '/exit' })
  })

  it('a lint report the person chose to fix is sent as a user message before the fix', () => {
    expect(older.messages[6]).toMatchObject({
      role: 'user',
      flags: { command: true },
      source: { line: 75 },
      content:
        '# Fix any errors below, if possible.\n\n' +
        '## Running: python -m flake8 src/ledger/export.py\n\n' +
        "src/ledger/export.py:3:1: F401 'os' imported but unused",
    })
  })

  it('architect mode: the plan handed to the editor and the reflected edit error: injected', () => {
    expect(t.messages[0]).toMatchObject({
      content: '/ask Which function formats the amount column?',
    })
    expect(t.messages[1]).toMatchObject({ content: 'Which function formats the amount column?' })
    expect(t.messages[5]?.content).toBe(t.messages[4]?.content)
    expect(t.messages[7]).toMatchObject({
      content: 'No filename provided before ``` in file listing',
      source: { line: 140 },
    })
  })

  it('notes: sessions, the banner (line span), log blocks; a warning: output aider did not write', () => {
    expect(t.notes).toEqual([
      '2 aider sessions in this file: "aider chat started at 2025-07-03 09:40:27" is open; the ' +
        'other one is listed as a further conversation',
      '1 aider session with no input left out (line 2)',
      expect.stringMatching(
        new RegExp(
          "^line 106: aider chat started at 2025-07-03 09:40:27: aider's startup log " +
            '\\(lines 108–113\\), not a message: aider --architect --model sonnet; ' +
            'Aider v0\\.86\\.1; Main model: ',
        ),
      ),
      expect.stringMatching(
        /^6 blocks of aider's console output \(lines 121, 127, 137, 151, 157, 161\)/,
      ),
    ])
    expect(t.warnings).toEqual([
      expect.stringMatching(/^1 command output added to the chat but not in this file .*line 157/),
    ])
    expect(older.notes).toEqual([
      expect.stringMatching(
        /^line 6: aider chat started at 2025-07-02 14:05:11: aider's startup log \(lines 8–14\)/,
      ),
      expect.stringMatching(/^5 blocks of aider's console output \(lines 43, 51, 71, 95, 100\)/),
    ])
  })

  it('validity: nothing a provider would reject, in either session', () => {
    for (const s of [t, older]) {
      expect(checkValidity(s.messages)).toEqual([])
      expect(checkValidity(s.messages, { provider: 'anthropic' })).toEqual([])
    }
  })

  it('CRLF line ends import the same', () => {
    const crlf = importAiderText(
      fixtureText('aider-headings-and-log.chat.history.md').replace(/\n/g, '\r\n'),
    )
    expect(texts(crlf)).toEqual(texts(t))
    expect(texts(crlf.sidechains?.[0] as Transcript)).toEqual(texts(older))
  })
})

describe('aider: a session that used no tools', () => {
  // One header, a 5-line banner, two inputs, two replies (the first with `#### ` headings), a
  // Tokens line after each reply.
  const t = importAiderText(fixtureText('aider-no-tools.chat.history.md'))

  it('two inputs and two replies, no tool message, no call, no empty assistant message', () => {
    expect(roles(t)).toEqual({ system: 0, user: 2, assistant: 2, tool: 0 })
    expect(calls(t)).toBe(0)
    expect(t.messages.every((m) => contentText(m.content).trim() !== '')).toBe(true)
    expect(t.messages[1]?.content).toBe(
      '#### Journal\n\nEntries in the order they happened, each with its debit and credit.\n\n' +
        '#### Ledger\n\nThe same entries grouped by account, with a running balance per account.',
    )
    expect(t.sidechains).toBeUndefined()
    expect(t.model).toBe('gpt-4o')
    // aider's banner and console output are notes on the file, not problems.
    expect(t.warnings).toEqual([])
    expect(t.notes).toHaveLength(2)
  })

  it('is valid for every provider', () => {
    expect(checkValidity(t.messages)).toEqual([])
    expect(checkValidity(t.messages, { provider: 'anthropic' })).toEqual([])
  })
})

describe('aider: the bundled sample', () => {
  // Two sessions. The first (line 2): 18 `#### ` inputs — 6 requests and 12 commands (4 /ls,
  // 5 /run, 2 /add, /exit) — and 5 command outputs added to the chat (each /run output ends with
  // `… [Yes]: y`): 23 user messages; 7 replies. The second (line 703): `/run git log` (not added,
  // `: n`) and `/exit`: 2 user messages.
  const t = importAiderText(sampleText('aider.chat.history.md'))

  it('opens the first session (the second has only commands) and lists the second', () => {
    expect(roles(t)).toEqual({ system: 0, user: 23, assistant: 7, tool: 0 })
    expect(t.messages.filter((m) => m.flags?.command)).toHaveLength(17)
    expect(calls(t)).toBe(0)
    expect(t.title).toBe('aider chat started at 2025-06-24 09:12:03')
    const second = t.sidechains?.[0] as Transcript
    expect(texts(second)).toEqual(['/run git log --oneline -4', '/exit'])
    expect(checkValidity(t.messages)).toEqual([])
  })

  it('/ls listings and token reports are not messages; test runs the person added are', () => {
    const all = texts(t)
    expect(all.some((x) => x.includes('Repo files not in the chat'))).toBe(false)
    expect(all.some((x) => x.includes('Tokens:'))).toBe(false)
    const runs = t.messages.filter(
      (m) => m.flags?.command && contentText(m.content).startsWith('====='),
    )
    expect(runs).toHaveLength(5)
  })
})

describe('aider: other shapes of the file', () => {
  it('trailing spaces stripped: every `#### ` line is input, every `> ` line log (warned)', () => {
    const text = [
      '# aider chat started at 2025-06-24 09:12:03',
      '',
      '> Aider v0.85.1',
      '',
      '#### Fix it.',
      '#### Keep the API.',
      '',
      'Done.',
      '',
      '> Tokens: 1k sent, 10 received.',
      '',
    ].join('\n')
    const t = importAiderText(text)
    expect(t.messages.map((m) => [m.role, m.content])).toEqual([
      ['user', 'Fix it.\nKeep the API.'],
      ['assistant', 'Done.'],
    ])
    expect(t.warnings[0]).toMatch(/^no "#### " line ends with the two spaces aider writes/)
  })

  it('old /run: the output written once as a blob and again line by line is one message', () => {
    const text = [
      '',
      '# aider chat started at 2024-01-05 10:00:00',
      '',
      `> Aider v0.20.0${BR}`,
      '',
      `#### /run ls${BR}`,
      '> a.py',
      `b.py${BR}`,
      `> Add the output to the chat? y${BR}`,
      `> a.py${BR}`,
      `> b.py${BR}`,
      '',
      'Both files are Python.',
      '',
    ].join('\n')
    const t = importAiderText(text)
    expect(t.messages.map((m) => [m.role, m.content, m.flags])).toEqual([
      ['user', '/run ls', { command: true }],
      ['user', 'a.py\nb.py', { command: true }],
      ['assistant', 'Both files are Python.', undefined],
    ])
  })

  it('a leading editor mode line is not a message', () => {
    const text = [
      '<!-- vim: set ft=markdown: -->',
      '',
      '# aider chat started at 2025-01-01 00:00:00',
      '',
      `#### hi${BR}`,
      '',
      'hello',
      '',
    ].join('\n')
    expect(detectAider(text)).toBe(true)
    expect(texts(importAiderText(text))).toEqual(['hi', 'hello'])
  })

  it('keepRaw false leaves source.raw out', () => {
    const t = importAiderText(fixtureText('aider-no-tools.chat.history.md'), { keepRaw: false })
    expect(t.messages.every((m) => m.source.raw === undefined)).toBe(true)
  })
})

describe('aider detection and bad input', () => {
  it('detects the launch header, or #### and > lines', () => {
    expect(detectAider('\n\n# aider chat started at 2025-01-01 00:00:00\n')).toBe(true)
    expect(detectAider('#### hi\n\nhello\n\n> Tokens: 1k sent\n')).toBe(true)
    expect(detectAider('# Title\n\nSome notes.\n')).toBe(
      'no "# aider chat started at" header and no "#### " / "> " lines',
    )
    expect(detectAider({})).toBe('not a text file')
  })

  it('importTranscript picks aider for its text', () => {
    const r = importTranscript(fixtureText('aider-no-tools.chat.history.md'))
    expect(r.ok && r.transcript.format).toBe('aider')
  })

  it('a history with only launches is a typed error', () => {
    const text = `# aider chat started at 2025-01-01 00:00:00\n\n> banner${BR}\n`
    const r = runImporter(aiderImporter, text, {})
    expect(r).toEqual({
      ok: false,
      error: { message: 'no "#### " user input and no assistant text found in the aider history' },
    })
  })
})
