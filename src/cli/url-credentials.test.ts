/**
 * A `--base-url` carrying credentials (a `user:pass@`, a key in the query) is never printed: not
 * in usage errors, summarizer errors, the report or `--json`.
 */
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startLlmServer, type LlmServer } from '../../test/llm-server'
import { main } from './main'

const sample = join(__dirname, '../../public/samples/openai-chat.json')

let server: LlmServer
beforeAll(async () => {
  server = await startLlmServer()
})
afterAll(() => server.close())

async function run(args: string[]) {
  let stdout = ''
  let stderr = ''
  const code = await main(args, (s) => (stdout += s + '\n'), (s) => (stderr += s + '\n'), { env: { OPENAI_API_KEY: 'sk-cli-test' } })
  return { code, stdout, stderr }
}

const llm = (baseUrl: string, ...extra: string[]) => [
  'compact',
  sample,
  '--stages',
  'summarize',
  '--keep-last',
  '4',
  '--compact-after',
  '8',
  '--summarizer',
  'openai-compatible',
  '--base-url',
  baseUrl,
  '--model',
  'test-model',
  ...extra,
]

describe('cli: credentials in --base-url', () => {
  it('a base URL that is not http(s) is quoted masked in the usage error', async () => {
    const { code, stderr } = await run(llm('ftp://ana:pw-s3cret-9@files.example/v1?key=q-s3cret-8'))
    expect(code).toBe(2)
    expect(stderr).toContain('--base-url must be an http(s) URL, got "ftp://***@files.example/v1?key=***"')
    expect(stderr).not.toContain('s3cret')
  })

  it('a user:pass the fetch refuses: the error names the host and the URL masked, never the password', async () => {
    const url = server.openaiBaseUrl.replace('http://', 'http://ana:pw-s3cret-9@')
    const { code, stdout, stderr } = await run(llm(url, '--json'))
    expect(code).toBe(1)
    expect(stderr).toContain(`could not reach 127.0.0.1:${server.port}`)
    expect(stdout + stderr).not.toContain('s3cret')
    expect(stdout + stderr).not.toContain('ana:')
  })

  it('a key in the query: --json names the host only, and nothing prints the key', async () => {
    const { stdout, stderr } = await run(llm(`${server.openaiBaseUrl}?api_key=q-s3cret-8`, '--json'))
    expect(JSON.parse(stdout).summarizer).toEqual({ id: 'openai-compatible', model: 'test-model', host: `127.0.0.1:${server.port}` })
    expect(stdout + stderr).not.toContain('s3cret')
  })
})
