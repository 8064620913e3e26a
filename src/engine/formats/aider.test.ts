import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { checkValidity } from '../analysis/checks'
import { contentText } from '../content'
import type { Message, Transcript } from '../model'
import { aiderImporter, detectAider, importAiderText } from './aider'
import { importTranscript } from './index'
import { runImporter } from './failure'
import { registryContractViolations } from './test-helpers'

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
    // Commands (`/run` ×2, `/exit`; `/ask`, `/test`) are notes, not messages.
    expect(roles(t)).toEqual({ system: 0, user: 4, assistant: 5, tool: 0 })
    expect(roles(older)).toEqual({ system: 0, user: 4, assistant: 3, tool: 0 })
    expect(calls(t) + calls(older)).toBe(0)
    expect(kinds(older.messages)).toEqual([
      'user',
      'assistant',
      'command',
      'user',
      'assistant',
      'command',
      'assistant',
    ])
    expect(kinds(t.messages)).toEqual([
      'user',
      'assistant',
      'user',
      'assistant',
      'injected',
      'assistant',
      'injected',
      'assistant',
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
      role: 'user',
      flags: { command: true },
      source: { line: 51 },
      content:
        '..F                                                                      [100%]\n' +
        'FAILED tests/test_export.py::test_empty_ledger - ' +
        "AssertionError: assert '' == 'date,account,amount\\n'\n" +
        '1 failed, 2 passed in 0.12s',
    })
    // `/run git status` was answered `n`: nothing went to the model; the commands are a note.
    expect(texts(older).some((x) => /^\/|git status/.test(x))).toBe(false)
    expect(older.notes).toContainEqual(
      expect.stringMatching(/^3 aider commands \(\/run, \/exit; lines 50, 99, 104\) — handled by aider/),
    )
  })

  it('a lint report the person chose to fix is sent as a user message before the fix', () => {
    expect(older.messages[5]).toMatchObject({
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
    // `/ask X` is followed by X as its own input: X is the message, once.
    expect(t.messages[0]).toMatchObject({
      content: 'Which function formats the amount column?',
      source: { line: 117 },
    })
    expect(t.messages[4]?.content).toBe(t.messages[3]?.content)
    expect(t.messages[6]).toMatchObject({
      content: 'No filename provided before ``` in file listing',
      source: { line: 140 },
    })
  })

  it('notes: sessions, the banner (line span), log blocks; a warning: output aider did not write', () => {
    expect(t.notes).toEqual([
      '2 aider sessions in this file: "aider chat started at 2025-07-03 09:40:27" is open; the ' +
        'other one is listed as a further conversation',
      '1 aider session with no message (no input, or only aider commands) left out (line 2)',
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
      expect.stringMatching(/^2 aider commands \(\/ask, \/test; lines 115, 156\)/),
    ])
    expect(t.warnings).toEqual([
      expect.stringMatching(/^1 command output added to the chat but not in this file .*line 157/),
    ])
    expect(older.notes).toEqual([
      expect.stringMatching(
        /^line 6: aider chat started at 2025-07-02 14:05:11: aider's startup log \(lines 8–14\)/,
      ),
      expect.stringMatching(/^5 blocks of aider's console output \(lines 43, 51, 71, 95, 100\)/),
      expect.stringMatching(/^3 aider commands/),
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
  // Two sessions. The first (line 2): 19 `#### ` inputs — 7 requests and 12 commands (4 /ls,
  // 5 /run, 2 /add, /exit: a note, not messages) — and 5 command outputs added to the chat (each
  // /run output ends with `… [Yes]: y`): 12 user messages; 8 replies. The second (line 709):
  // `/run git log` (not added, `: n`) and `/exit`: no message, left out.
  const t = importAiderText(sampleText('aider.chat.history.md'))

  it('opens the first session; the second (only commands) is left out', () => {
    expect(roles(t)).toEqual({ system: 0, user: 12, assistant: 8, tool: 0 })
    expect(t.messages.filter((m) => m.flags?.command)).toHaveLength(5)
    expect(calls(t)).toBe(0)
    expect(t.title).toBe('aider chat started at 2025-06-24 09:12:03')
    expect(t.sidechains).toBeUndefined()
    expect(t.notes).toEqual([
      '1 aider session with no message (no input, or only aider commands) left out (line 709)',
      expect.stringMatching(/^line 2: aider chat started at 2025-06-24 09:12:03: aider's startup/),
      expect.stringMatching(/^\d+ blocks of aider's console output/),
      expect.stringMatching(
        /^12 aider commands \(\/ls, \/run, \/add, \/exit; lines 13, 47, 155, 177, 203, 332, 437, 463, …\)/,
      ),
    ])
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

describe('aider: questions, commands, /clear, headings under a reply', () => {
  it('aider 0.5x /run: the question wraps, the added output follows it', () => {
    const text = [
      '# aider chat started at 2025-03-10 08:03:40',
      '',
      `> Aider v0.59.1${BR}`,
      '',
      `#### /run pytest -q${BR}`,
      '> Add the output to the chat?',
      `(Y)es/(n)o/message with instructions:${BR}`,
      `> FAILED test_lager.py::test_abgang_zu_viel - KeyError${BR}`,
      `> 1 failed, 1 passed in 0.05s${BR}`,
      '',
      'The test fails with `KeyError`; use `bestand.get(sku, 0)`.',
      '',
    ].join('\n')
    const t = importAiderText(text)
    expect(t.messages.map((m) => [m.role, m.content, m.source.line])).toEqual([
      ['user', 'FAILED test_lager.py::test_abgang_zu_viel - KeyError\n1 failed, 1 passed in 0.05s', 8],
      ['assistant', 'The test fails with `KeyError`; use `bestand.get(sku, 0)`.', 11],
    ])
    expect(t.messages[0]?.flags).toEqual({ command: true })
    expect(t.warnings).toEqual([])
    expect(t.notes).toContainEqual(expect.stringMatching(/^1 aider command \(\/run; line 5\)/))
  })

  it.each([
    ['Add the output to the chat?\n(Y)es/(n)o/message with instructions: n', false],
    ['Add 0.1k tokens of command output to the chat? (Y)es/(N)o [Yes]: n', false],
    ['Add the output to the chat? (y)es/(n)o [yes]: No', false],
    ['Add the output to the chat? (y/n) [y]: n', false],
    ['Add the output to the chat? n', false],
    ['Add the output to the chat? (Y)es/(N)o/(A)ll/(S)kip all/(D)on\'t ask again [Yes]: s', false],
    ['Add the output to the chat? (Y)es/(N)o [Yes]: y', true],
    ['Add the output to the chat? (Y)es/(N)o/(A)ll/(S)kip all [Yes]: a', true],
  ])('answer %j: output sent = %s', (question, sent) => {
    const [first, ...rest] = question.split('\n')
    const qLines = rest.length === 0 ? [`> ${first}${BR}`] : [`> ${first}`, `${rest.join('\n')}${BR}`]
    const text = [
      '# aider chat started at 2025-03-10 08:03:40',
      '',
      `#### /run ls${BR}`,
      `> a.py${BR}`,
      ...qLines,
      '',
      `#### Which files?${BR}`,
      '',
      'Only a.py.',
      '',
    ].join('\n')
    const t = importAiderText(text)
    expect(texts(t)).toEqual([...(sent ? ['a.py'] : []), 'Which files?', 'Only a.py.'])
    expect(t.warnings).toEqual([])
  })

  it('/clear is a note naming its line and what left the context; /ask without echo sends its text', () => {
    const text = [
      '# aider chat started at 2025-03-10 08:03:40',
      '',
      `#### Rename the helper.${BR}`,
      '',
      'Renamed.',
      '',
      `#### /tokens${BR}`,
      `> Tokens: 1k${BR}`,
      '',
      `#### /clear${BR}`,
      '',
      `#### /ask Is it used anywhere else?${BR}`,
      '',
      'No.',
      '',
      `#### /drop helper.py${BR}`,
      `> Removed helper.py from the chat${BR}`,
      '',
    ].join('\n')
    const t = importAiderText(text)
    expect(t.messages.map((m) => [m.role, m.content, m.source.line])).toEqual([
      ['user', 'Rename the helper.', 3],
      ['assistant', 'Renamed.', 5],
      ['user', 'Is it used anywhere else?', 12],
      ['assistant', 'No.', 14],
    ])
    expect(t.notes).toContainEqual(
      expect.stringMatching(/^4 aider commands \(\/tokens, \/clear, \/ask, \/drop; lines 7, 10, 12, 16\)/),
    )
    expect(t.notes).toContainEqual(
      "line 10: /clear — aider emptied its chat history here: the 2 messages before it were no " +
        "longer in the model's context",
    )
  })

  it('a `#### ` line with a break right under a line of the reply is the reply’s heading', () => {
    const text = [
      '# aider chat started at 2025-03-10 08:03:40',
      '',
      `#### Plan the fix.${BR}`,
      '',
      'Two steps:',
      `#### Fix the test helper${BR}`,
      'Then rerun the suite.',
      '',
    ].join('\n')
    const t = importAiderText(text)
    expect(t.messages.map((m) => [m.role, m.content])).toEqual([
      ['user', 'Plan the fix.'],
      ['assistant', `Two steps:\n#### Fix the test helper${BR}\nThen rerun the suite.`],
    ])
  })
})

it('meets the registry contract on its bundled sample', () => {
  expect(registryContractViolations(aiderImporter, sampleText('aider.chat.history.md'))).toEqual([])
})

describe('aider: reasoning a model streamed', () => {
  // aider wraps the reasoning it streams in `<thinking-content-…>` tags (aider/reasoning_tags.py
  // REASONING_TAG) and writes the reply with them to the history.
  const t = importAiderText(fixtureText('aider-reasoning.chat.history.md'))

  it('the tagged block is a thinking part, the rest the reply', () => {
    expect(roles(t)).toEqual({ system: 0, user: 2, assistant: 2, tool: 0 })
    expect(t.messages[1]?.content).toEqual([
      {
        type: 'thinking',
        variant: 'reasoning',
        text:
          'The lamp reads dusk.toml at sunset.\n' +
          'A fade of 0 switches the level in one step, which looks like a flicker.',
      },
      {
        type: 'text',
        text:
          'The flicker comes from `fade = 0` in dusk.toml: the level jumps in one step.\n' +
          'Set `fade = 3` to ramp over three seconds.',
      },
    ])
    expect(t.messages[3]?.content).toBe('dawn.toml already fades over five seconds, so it needs no change.')
    expect(t.warnings).toEqual([])
    expect(checkValidity(t.messages)).toEqual([])
  })

  it('a reply cut off inside its reasoning keeps it as thinking', () => {
    const tag = 'thinking-content-7bbeb8e1441453ad999a0bbba8a46d4b'
    const cut = importAiderText(`#### Why?${BR}\n\n<${tag}>\n\nStill weighing fade values.\n`)
    expect(cut.messages[1]?.content).toEqual([
      { type: 'thinking', variant: 'reasoning', text: 'Still weighing fade values.' },
    ])
  })
})

describe('aider: notes and warnings made from the file are one line', () => {
  /** Line breaks a note or warning must not hold. */
  const LINE_BREAK = /[\r\n\u0085\u2028\u2029]/

  /** A session whose header and startup log carry CR, NEL, U+2028 and U+2029 inside their lines. */
  const history = (header: string) =>
    [
      `# aider chat started at 2025-06-24 09:12:03 ${header}`,
      '',
      `> /usr/bin/aider --model sonnet\rsrc/a.py${BR}`,
      `> Aider v0.85.1\u2028Main model: sonnet\u0085x\u2029y${BR}`,
      '',
      `#### fix the bug${BR}`,
      '',
      'Done.',
      '',
      `#### /run make test\r${BR}`,
      '',
      `> Added 3 lines of output to the chat.${BR}`,
      '',
    ].join('\n')

  it('the startup-log note and every other note and warning hold no line break', () => {
    const t = importAiderText(history('a\rb\u2028c'))
    const messages = [...t.warnings, ...(t.notes ?? [])]
    expect(messages.some((n) => n.includes("aider's startup log"))).toBe(true)
    expect(messages.filter((n) => LINE_BREAK.test(n))).toEqual([])
  })

  it('a 5,000-character header is cut in its note', () => {
    const t = importAiderText(history('h'.repeat(5_000)))
    const banner = (t.notes ?? []).find((n) => n.includes("aider's startup log"))
    expect(banner).toBeDefined()
    expect(banner!.length).toBeLessThanOrEqual(1_000)
  })
})
