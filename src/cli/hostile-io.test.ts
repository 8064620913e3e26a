/**
 * The CLI's input and output boundaries against hostile and huge inputs: control sequences from
 * a transcript are shown, never sent to the terminal; `--out` never overwrites the input; the
 * input size budget (`--max-size`, a folder's files); the regex time guard of `find --regex`.
 */
import { linkSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, relative } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { runCli } from '../../test/cli'
import { visibleControls } from './output'

const SAMPLES = join(__dirname, '../../public/samples')

const dirs: string[] = []
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'ci-hostile-'))
  dirs.push(dir)
  return dir
}
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
})

/**
 * A window title (OSC 0 … BEL), a clear screen (CSI 2J), a clipboard write (OSC 52, base64 of
 * "echo owned") and a one-character C1 CSI (U+009B) setting red.
 */
const HOSTILE = '\x1b]0;owned\x07\x1b[2J\x1b]52;c;ZWNobyBvd25lZA==\x07\u009b31m'
/** The same, as the CLI prints it: each control as its \uXXXX escape. */
const SHOWN = '\\u001b]0;owned\\u0007\\u001b[2J\\u001b]52;c;ZWNobyBvd25lZA==\\u0007\\u009b31m'
/** Any character a terminal acts on, but line feed and tab. */
// eslint-disable-next-line no-control-regex -- matching control characters is its purpose
const RAW_CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/

describe('control characters in what the CLI prints are shown, not run', () => {
  it('visibleControls escapes C0 (not LF, tab), DEL, C1 and U+2028/2029, and leaves other text alone', () => {
    expect(visibleControls(`a\tb\nc${HOSTILE}`)).toBe(`a\tb\nc${SHOWN}`)
    expect(visibleControls('\r\b\x7f\u0085\u2028\u2029')).toBe('\\u000d\\u0008\\u007f\\u0085\\u2028\\u2029')
    expect(visibleControls('größe — 日本 🙂')).toBe('größe — 日本 🙂')
  })

  it('a session title: in the heading, and in --json as escapes that parse back to the title', async () => {
    const conversations = JSON.parse(readFileSync(join(SAMPLES, 'chatgpt-export-conversations.json'), 'utf8'))
    conversations[0].title = `Order ${HOSTILE}\u2028next`
    const file = join(tempDir(), 'conversations.json')
    writeFileSync(file, JSON.stringify(conversations))
    const text = await runCli(['inspect', file])
    expect(text.code).toBe(0)
    expect(text.stdout.split('\n')[0]).toBe(`${file}: chatgpt-export — Order ${SHOWN}\\u2028next`)
    expect(text.stdout).not.toMatch(RAW_CONTROL)
    const json = await runCli(['inspect', file, '--json'])
    expect(json.code).toBe(0)
    expect(json.stdout).not.toMatch(RAW_CONTROL)
    expect(json.stdout).not.toMatch(/[\u2028\u2029]/)
    expect(json.stdout).toContain('\\u009b31m')
    expect(JSON.parse(json.stdout).title).toBe(`Order ${HOSTILE}\u2028next`)
  })

  it('a warning quoting the transcript', async () => {
    const lines = readFileSync(join(SAMPLES, 'codex-rollout.jsonl'), 'utf8').split('\n')
    lines.splice(1, 0, JSON.stringify({ timestamp: '2025-01-01T00:00:00Z', type: `x${HOSTILE}`, payload: {} }))
    const file = join(tempDir(), 'rollout.jsonl')
    writeFileSync(file, lines.join('\n'))
    const { code, stdout } = await runCli(['inspect', file])
    expect(code).toBe(0)
    expect(stdout).toContain(`\nwarning: 1 line(s) of unknown type "x${SHOWN}" skipped\n`)
    expect(stdout).not.toMatch(RAW_CONTROL)
  })

  it("an invalid JSON error's snippet of the input", async () => {
    const file = join(tempDir(), 'bad.json')
    writeFileSync(file, `{"messages": ${HOSTILE}]}`)
    const { code, stderr } = await runCli(['inspect', file])
    expect(code).toBe(1)
    expect(stderr).toBe(`error: ${file}: invalid JSON at line 1, column 14: Unexpected token '\\u001b', ..."essages": \\u001b]0;owned\\u0007"... is not valid JSON\n`)
  })

  it('a file name, in the heading and in an error', async () => {
    const dir = tempDir()
    const file = join(dir, `chat${HOSTILE}.json`)
    writeFileSync(file, readFileSync(join(SAMPLES, 'openai-chat.json')))
    const shownFile = join(dir, `chat${SHOWN}.json`)
    const ok = await runCli(['inspect', file])
    expect(ok.stdout.split('\n')[0]).toBe(`${shownFile}: openai-chat`)
    const missing = await runCli(['compact', join(dir, `gone${HOSTILE}.json`)])
    expect(missing.code).toBe(1)
    expect(missing.stderr).toBe(`error: ${join(dir, `gone${SHOWN}.json`)}: cannot read the file (ENOENT)\n`)
  })
})

describe('report --out never overwrites the input', () => {
  const input = join(SAMPLES, 'openai-chat.json')

  it.each([
    ['the same path', (_dir: string, file: string) => file],
    ['a relative spelling', (_dir: string, file: string) => relative(process.cwd(), file)],
    ['a path through ..', (dir: string) => join(dir, 'sub', '..', 'in.json')],
    [
      'a symbolic link to it',
      (dir: string, file: string) => {
        symlinkSync(file, join(dir, 'link.json'))
        return join(dir, 'link.json')
      },
    ],
    [
      'a hard link to it',
      (dir: string, file: string) => {
        linkSync(file, join(dir, 'hard.json'))
        return join(dir, 'hard.json')
      },
    ],
  ])('%s: exit 2, one line naming both, the input unchanged', async (_, outOf) => {
    const dir = tempDir()
    mkdirSync(join(dir, 'sub'))
    const file = join(dir, 'in.json')
    const bytes = readFileSync(input)
    writeFileSync(file, bytes)
    const out = outOf(dir, file)
    const { code, stdout, stderr } = await runCli(['report', file, '--out', out])
    expect(code).toBe(2)
    expect(stdout).toBe('')
    expect(stderr.split('\n')[0]).toBe(`error: --out ${out} is the input file ${file}: writing it would overwrite the input; write it elsewhere`)
    expect(readFileSync(file)).toEqual(bytes)
  })

  it('a file inside the input folder is refused; a new file beside the input is written', async () => {
    const dir = tempDir()
    const folder = join(dir, 'task')
    mkdirSync(folder)
    writeFileSync(join(folder, 'api_conversation_history.json'), readFileSync(join(SAMPLES, 'cline-task-history.json')))
    const inside = join(folder, 'api_conversation_history.json')
    const refused = await runCli(['report', folder, '--out', inside])
    expect(refused.code).toBe(2)
    expect(refused.stderr.split('\n')[0]).toBe(`error: --out ${inside} is a file of the input folder ${folder}: write it elsewhere`)
    const beside = join(dir, 'report.html')
    const written = await runCli(['report', input, '--out', beside])
    expect(written.code).toBe(0)
    expect(readFileSync(beside, 'utf8')).toMatch(/^<!doctype html>/i)
  })
})

describe('the input size budget', () => {
  it('a file over --max-size is refused by its size before it is read', async () => {
    const file = join(tempDir(), 'chat.json')
    writeFileSync(file, JSON.stringify({ messages: [{ role: 'user', content: 'x'.repeat(3000) }] }))
    const { code, stderr } = await runCli(['inspect', file, '--max-size', '2K'])
    expect(code).toBe(1)
    expect(stderr).toBe(`error: ${file}: 3 KB is over the --max-size limit of 2 KB; give a larger --max-size to read it\n`)
  })

  it('a device with no end (/dev/zero) is read up to --max-size and stopped with one line', async () => {
    const { code, stdout, stderr } = await runCli(['inspect', '/dev/zero', '--max-size', '1M'])
    expect(code).toBe(1)
    expect(stdout).toBe('')
    expect(stderr).toBe('error: /dev/zero: more than 1 MB, reading stopped at the --max-size limit; give a larger --max-size to read it\n')
  })

  it('--max-size takes bytes or K/M/G; anything else is a usage error', async () => {
    const file = join(SAMPLES, 'openai-chat.json')
    expect((await runCli(['inspect', file, '--max-size', '1048576'])).code).toBe(0)
    expect((await runCli(['inspect', file, '--max-size', '0.5M'])).code).toBe(0)
    const bad = await runCli(['inspect', file, '--max-size', 'lots'])
    expect(bad.code).toBe(2)
    expect(bad.stderr.split('\n')[0]).toBe('error: --max-size takes a size in bytes, or with K, M or G (512K, 2G), got "lots"')
  })

  it("a folder's JSON files over --max-size together are refused before any is read", async () => {
    const folder = join(tempDir(), 'task')
    mkdirSync(folder)
    writeFileSync(join(folder, 'api_conversation_history.json'), '[]'.padEnd(3072))
    writeFileSync(join(folder, 'ui_messages.json'), '[]'.padEnd(2048))
    writeFileSync(join(folder, 'screenshot.png'), new Uint8Array(8192))
    const { code, stderr } = await runCli(['inspect', folder, '--max-size', '4K'])
    expect(code).toBe(1)
    expect(stderr).toBe(`error: ${folder}: its JSON files hold 5 KB in all; the limit for one input is 4 KB\n`)
  })
})

describe('find --regex under a time guard', () => {
  it('(a+)+$ over 40 KB of "a" answers with one line saying the pattern took too long', async () => {
    const file = join(tempDir(), 'chat.json')
    writeFileSync(file, JSON.stringify({ messages: [{ role: 'user', content: `${'a'.repeat(40_000)}b` }, { role: 'assistant', content: 'ok' }] }))
    const { code, stdout, stderr } = await runCli(['find', file, '--regex', '(a+)+$'])
    expect(code).toBe(1)
    expect(stdout).toBe('')
    expect(stderr).toBe(
      'error: --regex "(a+)+$": this regular expression took over 2 s on this transcript and was stopped ' +
        '(it likely backtracks catastrophically, like nested quantifiers (a+)+); simplify it\n',
    )
  })

  it('a regex that finishes gives its verdict', async () => {
    const { code, stdout } = await runCli(['find', join(SAMPLES, 'openai-chat.json'), '--regex', 'A-\\d+'])
    expect(code).toBe(0)
    expect(stdout.split('\n')[1]).toMatch(/^\/A-\\d\+\/: /)
  })
})
