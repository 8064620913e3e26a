/**
 * The CLI as a person runs it: a real process (`npx tsx src/cli/main.ts …`, what `npm run cli --`
 * starts), reading standard input with `-`, the API key from the environment, the sweep's JSON
 * grid on stdout. The in-process tests of main.test.ts and sweep.test.ts cover the behaviour;
 * these check the process boundary (argv, stdin, env, exit status, stdout).
 */
import { spawn, spawnSync } from 'node:child_process'
import { closeSync, mkdtempSync, openSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startLlmServer, type LlmServer } from '../../test/llm-server'
import { longChat } from '../../test/hostile'
import { LARGE_INPUT_BYTES } from './heap'

const ROOT = join(__dirname, '../..')
const SAMPLES = join(ROOT, 'public/samples')
const TWO_MESSAGES = JSON.stringify({
  messages: [
    { role: 'user', content: 'hello' },
    { role: 'assistant', content: 'hi' },
  ],
})

/** Runs the CLI to completion; `input` goes to its standard input. */
function cli(args: string[], input?: string) {
  return spawnSync('npx', ['tsx', 'src/cli/main.ts', ...args], { cwd: ROOT, input, encoding: 'utf8' })
}

describe('cli as a process', () => {
  it('compact reads standard input with -', () => {
    const r = cli(['compact', '-', '--json', '--stages', 'dedupe'], TWO_MESSAGES)
    expect(r.status).toBe(0)
    const out = JSON.parse(r.stdout)
    expect(out.before.messages).toHaveLength(2)
    expect(out.after.messages).toHaveLength(2)
  })

  it('inspect reads standard input with -', () => {
    const r = cli(['inspect', '-', '--json'], TWO_MESSAGES)
    expect(r.status).toBe(0)
    expect(JSON.parse(r.stdout)).toMatchObject({ format: 'openai-chat', messages: 2, byRole: { user: 1, assistant: 1 } })
  })

  it('sweep prints the JSON grid', () => {
    const r = cli(['sweep', join(SAMPLES, 'openai-chat.json'), '--x', 'keep_last=5..10:5', '--y', 'threshold=3000,6000', '--json'])
    expect(r.stderr).toBe('')
    expect(r.status).toBe(0)
    const out = JSON.parse(r.stdout)
    expect(out.x).toEqual({ param: 'keep_last', values: [5, 10] })
    expect(out.y).toEqual({ param: 'threshold_tokens', values: [3000, 6000] })
    // threshold_tokens belongs to insert-then-compress, off by default: the sweep switched it on.
    expect(out.enabledStages).toEqual(['insert-then-compress'])
    expect(out.cells.flat()).toHaveLength(4)
  })
})

describe('cli as a process: a failed write of the output', () => {
  it('a full disk (> /dev/full) ends with one line on stderr and exit 1, no stack trace', () => {
    const full = openSync('/dev/full', 'w')
    try {
      const r = spawnSync('npx', ['tsx', 'src/cli/main.ts', 'inspect', join(SAMPLES, 'openai-chat.json')], {
        cwd: ROOT,
        stdio: ['ignore', full, 'pipe'],
        encoding: 'utf8',
      })
      expect(r.status).toBe(1)
      expect(r.stderr).toBe('error: cannot write the output (ENOSPC: no space left on device, write)\n')
    } finally {
      closeSync(full)
    }
  })

  it('a reader that closes the pipe early (| head -1) ends it quietly', () => {
    const r = spawnSync('sh', ['-c', `npx tsx src/cli/main.ts compact ${join(SAMPLES, 'openai-chat.json')} | head -1`], { cwd: ROOT, encoding: 'utf8' })
    expect(r.status).toBe(0)
    expect(r.stdout).toBe(`${join(SAMPLES, 'openai-chat.json')}: openai-chat\n`)
    expect(r.stderr).toBe('')
  })
})

describe('cli as a process: a large input', () => {
  const dir = mkdtempSync(join(tmpdir(), 'ci-large-'))
  afterAll(() => rmSync(dir, { recursive: true, force: true }))

  it('runs in a child with a larger heap and writes its whole output through a slow pipe', () => {
    const file = join(dir, 'long.json')
    writeFileSync(file, longChat(450_000))
    expect(statSync(file).size).toBeGreaterThanOrEqual(LARGE_INPUT_BYTES)
    // The reader starts late, so the pipe is full while the CLI (the child) writes.
    const r = spawnSync('bash', ['-o', 'pipefail', '-c', `npx tsx src/cli/main.ts export ${file} --to openai-chat --stages dedupe | (sleep 2; wc -c)`], {
      cwd: ROOT,
      encoding: 'utf8',
    })
    expect(r.stderr).not.toContain('error')
    expect(r.status).toBe(0)
    // Every message written back: more bytes than the input holds.
    expect(Number(r.stdout.trim())).toBeGreaterThan(statSync(file).size)
  })
})

describe('cli as a process with an LLM summarizer (local test server)', () => {
  let server: LlmServer
  beforeAll(async () => {
    server = await startLlmServer({ apiKey: 'sk-cli-test' })
  })
  afterAll(() => server.close())

  it('reads the key from the environment', async () => {
    const args = ['compact', join(SAMPLES, 'openai-chat.json'), '--stages', 'summarize', '--keep-last', '4', '--compact-after', '8']
    const llm = ['--summarizer', 'openai-compatible', '--base-url', server.openaiBaseUrl, '--model', 'test-model', '--json']
    const child = spawn('npx', ['tsx', 'src/cli/main.ts', ...args, ...llm], {
      cwd: ROOT,
      env: { ...process.env, OPENAI_API_KEY: 'sk-cli-test' },
    })
    let stdout = ''
    child.stdout.on('data', (d) => (stdout += d))
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve))
    expect(code).toBe(0)
    expect(server.requests.length).toBeGreaterThan(0)
    expect(JSON.parse(stdout).passes.length).toBe(server.requests.length)
    expect(server.requests[0]?.headers.authorization).toBe('Bearer sk-cli-test')
    expect(stdout).not.toContain('sk-cli-test')
  })
})
