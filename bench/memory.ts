/**
 * Child process of the bench for BENCH.md B6: imports a file the way the page does — a Blob
 * streamed through the worker's own API (`engineApi.importBlob`, JSONL parsed incrementally, with
 * a progress callback) — then a default `run` with paged Before rows, as the page's first run
 * (with the failure-mode checks the page asks for next when the run leaves them out), and
 * prints `{ maxRssBytes }` (its peak RSS, `peakRssBytes`). The Blob comes from `fs.openAsBlob`, so
 * the file is never read whole into this process first. With `--baseline` it imports a tiny
 * transcript by the same path instead, so the parent can subtract what the runtime, the code and
 * the rank tables cost whatever the file. With `--phases` it also prints, to stderr, the heap
 * and RSS after each phase (for finding what is alive at the peak). Also prints the wall time of
 * the import (`importMs`, from opening the Blob) and of the first run after it with its checks (`runMs`), in ms
 * (BENCH.md B14).
 */
import { openAsBlob, readFileSync } from 'node:fs'
import { createEngineApi } from '../src/worker/engine-api'

/**
 * Peak resident memory of this process in bytes: Linux's VmHWM (the high-water mark of this
 * process's own address space). Not `resourceUsage().maxRSS`: on Linux that survives `execve`,
 * so a child spawned by a large parent (the bench after its browser runs, ~190 MB) reports the
 * parent's RSS at the fork and file and baseline both read the same. maxRSS only where there is
 * no /proc.
 */
function peakRssBytes(): number {
  try {
    const hwm = /^VmHWM:\s+(\d+) kB$/m.exec(readFileSync('/proc/self/status', 'utf8'))
    if (hwm) return Number(hwm[1]) * 1024
  } catch {
    // no procfs: fall through
  }
  return process.resourceUsage().maxRSS * 1024
}

const args = process.argv.slice(2)
const file = args.find((a) => !a.startsWith('--'))
if (!file) throw new Error('usage: memory.ts <file.jsonl> [--baseline] [--phases]')
const phases = args.includes('--phases')
const MB = 1024 * 1024
const probe = (phase: string) => {
  if (!phases) return
  const m = process.memoryUsage()
  const peak = peakRssBytes() / MB
  const line = [
    `rss ${(m.rss / MB).toFixed(0)}`,
    `heapUsed ${(m.heapUsed / MB).toFixed(0)}`,
    `external ${(m.external / MB).toFixed(0)}`,
    `arrayBuffers ${(m.arrayBuffers / MB).toFixed(0)}`,
    `peak ${peak.toFixed(0)}`,
  ]
  process.stderr.write(`${phase.padEnd(8)} ${line.join('  ')} (MB)\n`)
}

const path = args.includes('--baseline') ? 'public/samples/claude-code.jsonl' : file
probe('start')
const started = performance.now()
const blob = await openAsBlob(path)
const engineApi = createEngineApi()
// The page passes a progress callback, which also makes a large file's head import run (B10).
const imported = await engineApi.importBlob(blob, 'x.jsonl', () => {})
if (!imported.ok) throw new Error(imported.error.message)
const importMs = performance.now() - started
probe('import')
// The page's first run asks for the Before rows in pages (src/state/slices/run.ts ROW_PAGE).
const outcome = await engineApi.run(engineApi.getDefaults(), 1, { rowPage: 1000 })
if (!outcome.ok) throw new Error(outcome.error)
// A long session's run leaves its failure-mode checks out; the page asks for them once it shows the run.
if (outcome.view.checks.failureModesPending) engineApi.getFailureModes(1)
const runMs = performance.now() - started - importMs
probe('run')
process.stdout.write(`${JSON.stringify({ maxRssBytes: peakRssBytes(), importMs, runMs })}\n`)
