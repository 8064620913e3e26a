import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { checkValidity } from '../checks'
import { aiderImporter, detectAider, importAiderText } from './aider'
import { importTranscript } from './index'
import { runImporter } from './registry'

const sampleText = (name: string) =>
  readFileSync(new URL(`../../../public/samples/${name}`, import.meta.url), 'utf8')

const HISTORY = [
  '',
  '# aider chat started at 2025-06-24 09:12:03',
  '',
  '> /usr/bin/aider --model sonnet  ',
  '> Aider v0.85.1  ',
  '',
  '#### /run pytest -q',
  '',
  '> 1 failed  ',
  '>',
  '> FAILED test_a  ',
  '',
  '> Add 0.1k tokens of command output to the chat? (Y)es/(N)o [Yes]: y  ',
  '',
  '#### Fix it.  ',
  '#### Keep the API.',
  '',
  'Edit:',
  '',
  'a.py',
  '```python',
  '<<<<<<< SEARCH',
  'x = 1',
  '=======',
  'x = 2',
  '>>>>>>> REPLACE',
  '```',
  '',
  '> Applied edit to a.py  ',
  '> Commit abc123 fix  ',
  '',
  '#### /exit',
  '',
].join('\n')

describe('importAiderText', () => {
  const t = importAiderText(HISTORY)

  it('splits launches, user inputs, assistant text and output blocks', () => {
    expect(t.messages.map((m) => m.role)).toEqual([
      'user',
      'user',
      'assistant',
      'tool',
      'user',
      'assistant',
      'tool',
      'user',
    ])
    expect(t.title).toBe('aider chat started at 2025-06-24 09:12:03')
    expect(t.warnings).toEqual([])
  })

  it('a launch is an injected user message holding the header and its banner', () => {
    expect(t.messages[0]).toMatchObject({
      content:
        'aider chat started at 2025-06-24 09:12:03\n\n/usr/bin/aider --model sonnet\nAider v0.85.1',
      flags: { injected: true },
    })
  })

  it('command output is a synthesized call named after the slash command and its result', () => {
    expect(t.messages[1]).toMatchObject({ content: '/run pytest -q', flags: { command: true } })
    expect(t.messages[2]).toMatchObject({
      content: null,
      toolCalls: [{ id: 'aider-call-1', name: 'run', arguments: '{"command":"/run pytest -q"}' }],
      flags: { command: true },
    })
    // Trailing double spaces stripped, a bare `>` is an empty line, blank-separated quotes of one
    // step are one output.
    expect(t.messages[3]).toMatchObject({
      role: 'tool',
      toolCallId: 'aider-call-1',
      toolName: 'run',
      content:
        '1 failed\n\nFAILED test_a\n' +
        'Add 0.1k tokens of command output to the chat? (Y)es/(N)o [Yes]: y',
    })
  })

  it('a multi-line input is one user message; SEARCH/REPLACE stays assistant text', () => {
    expect(t.messages[4]).toMatchObject({ content: 'Fix it.\nKeep the API.' })
    expect(t.messages[4]?.flags).toBeUndefined()
    expect(t.messages[5]?.content).toBe(
      'Edit:\n\na.py\n```python\n<<<<<<< SEARCH\nx = 1\n=======\nx = 2\n>>>>>>> REPLACE\n```',
    )
  })

  it("aider's reports after an answer answer an `aider` call added to that answer", () => {
    expect(t.messages[5]?.toolCalls).toEqual([
      { id: 'aider-call-2', name: 'aider', arguments: '{}' },
    ])
    expect(t.messages[5]?.flags).toBeUndefined()
    expect(t.messages[6]).toMatchObject({
      role: 'tool',
      toolCallId: 'aider-call-2',
      toolName: 'aider',
      content: 'Applied edit to a.py\nCommit abc123 fix',
      flags: { command: true },
    })
  })

  it('never puts two assistant messages in a row (one model turn each)', () => {
    const sample = importAiderText(sampleText('aider.chat.history.md'))
    for (const list of [t.messages, sample.messages])
      list.forEach((m, i) => {
        if (m.role === 'assistant') expect(list[i + 1]?.role).not.toBe('assistant')
      })
  })

  it('the validity checker finds nothing (every call answered by the next message)', () => {
    expect(checkValidity(t.messages)).toEqual([])
  })

  it('records the Markdown line of each block', () => {
    expect(t.messages.map((m) => m.source.line)).toEqual([2, 7, 9, 9, 15, 18, 29, 32])
  })

  it('CRLF line ends import the same', () => {
    const crlf = importAiderText(HISTORY.replace(/\n/g, '\r\n'))
    expect(crlf.messages.map((m) => m.content)).toEqual(t.messages.map((m) => m.content))
  })

  it('the sample: the first two /ls listings are byte-identical tool results (for dedupe)', () => {
    const sample = importAiderText(sampleText('aider.chat.history.md'))
    const ls = sample.messages.filter((m) => m.role === 'tool' && m.toolName === 'ls')
    expect(ls).toHaveLength(4)
    expect(ls[0]?.content).toBe(ls[1]?.content)
    expect(String(ls[0]?.content).length).toBeGreaterThanOrEqual(200)
    // The second launch's banner is folded into its message.
    const launches = sample.messages.filter((m) => m.flags?.injected)
    expect(launches.map((m) => String(m.content).split('\n')[0])).toEqual([
      'aider chat started at 2025-06-24 09:12:03',
      'aider chat started at 2025-06-24 10:02:47',
    ])
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
    const r = importTranscript(HISTORY)
    expect(r.ok && r.transcript.format).toBe('aider')
  })

  it('a history with only launches is a typed error', () => {
    const text = '# aider chat started at 2025-01-01 00:00:00\n\n> banner\n'
    const r = runImporter(aiderImporter, text, {})
    expect(r).toEqual({
      ok: false,
      error: { message: 'no "#### " user input and no assistant text found in the aider history' },
    })
  })
})
