/**
 * Child process of the bench for BENCH.md B6: imports a file through the worker's own API
 * (`engineApi.importFile` + a default `run`, the code the engine worker runs) and prints
 * `{ maxRssBytes }`. With `--baseline` it imports a tiny transcript instead, so the parent can
 * subtract what the runtime, the code and the rank tables cost whatever the file.
 */
import { readFileSync } from 'node:fs'
import { engineApi } from '../src/worker/engine-api'

const [file, flag] = process.argv.slice(2)
if (!file) throw new Error('usage: memory.ts <file.jsonl> [--baseline]')
const bytes = flag === '--baseline' ? readFileSync('public/samples/claude-code.jsonl') : readFileSync(file)
const imported = engineApi.importFile(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length), 'x.jsonl')
if (!imported.ok) throw new Error(imported.error.message)
const outcome = await engineApi.run(engineApi.getDefaults(), 1)
if (!outcome.ok) throw new Error(outcome.error)
process.stdout.write(`${JSON.stringify({ maxRssBytes: process.resourceUsage().maxRSS * 1024 })}\n`)
