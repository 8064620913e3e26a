/**
 * `npm run bench`: measures every row of docs/BENCH.md against its reference in the
 * same run, prints one row per target and writes bench/results.json. Not part of `npm test`.
 *
 *   npm run bench                      # 1, 10 and 50 MB, 3 runs each (50 MB: --runs50, default 3)
 *   npm run bench -- --quick           # 1 and 10 MB only (the 50 MB rows use the 10 MB file)
 *   npm run bench -- --runs=5 --runs50=1 --sweeps=2   # repetitions (B9's 64-run sweep: --sweeps)
 *
 * Inputs: Claude Code sessions from scripts/gen-large-claude-code.mjs with --seed=42,
 * cached in bench/out by size and seed. Browser rows run in Chromium (Playwright library API,
 * /usr/bin/chromium) against a production build served by `vite preview` on 127.0.0.1:4308
 * (`E2E_PORT` overrides), the page opened with `?bench` (src/app/bench-hook.ts).
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process'
import { copyFileSync, existsSync, mkdirSync, openAsBlob, readdirSync, readFileSync, rmSync, statfsSync, statSync, symlinkSync, writeFileSync } from 'node:fs'
import { cpus, freemem, tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { Tiktoken } from 'js-tiktoken/lite'
import o200k_base from 'js-tiktoken/ranks/o200k_base'
import { chromium, type Browser, type Page } from '@playwright/test'
import { build } from 'vite'
import { importBytes, importTranscript } from '../src/engine/formats'
import type { PipelineConfig, Transcript } from '../src/engine/model'
import { DEFAULT_PIPELINE, runPipeline } from '../src/engine/pipeline'
import { cacheCounter, loadTextCounter, textsToCount } from '../src/engine/tokens/count'
import { generateLargeSession } from '../test/fixtures'
import { base64Text, chatWithToolOutput, claudeCodeForks, findOutput, longChat, orphanToolResults, proseText } from '../test/hostile'
import { factTable } from '../src/engine/facts/table'
import { createEngineApi } from '../src/worker/engine-api'
import { mainThreadChunks } from './bundle'

// ------------------------------------------------------------------ options
const argv = process.argv.slice(2)
const flag = (name: string) => argv.includes(`--${name}`)
const num = (name: string, def: number) => {
  const hit = argv.find((a) => a.startsWith(`--${name}=`))
  return hit ? Number(hit.slice(name.length + 3)) : def
}
const QUICK = flag('quick')
const RUNS = num('runs', 3)
const RUNS_BIG = num('runs50', QUICK ? RUNS : 3)
const SWEEPS = num('sweeps', 1)
/** Only the browser rows (B1, B3–B5, B7, B10), written to bench/out/results-dev.json: for development. */
const BROWSER_ONLY = flag('browser-only')
/** Only these rows (`--only=B11,B12`, see `onlyRows`), written to bench/out/results-dev.json. */
const ONLY = argv.find((a) => a.startsWith('--only='))?.slice(7).split(',').filter(Boolean) ?? null
const SEED = 42
const PORT = Number(process.env.E2E_PORT) || 4308
const ROOT = resolve(import.meta.dirname, '..')
const OUT = join(ROOT, 'bench/out')
/** The built site; `BENCH_DIST` (a folder name under bench/out) keeps concurrent bench runs apart. */
const DIST = join(OUT, process.env.BENCH_DIST || 'dist')
const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium'
const SIZES = QUICK ? [1, 10] : [1, 10, 50]
const BIG = QUICK ? 10 : 50
const MB = 1024 * 1024

const log = (s: string) => process.stderr.write(`bench: ${s}\n`)

// ------------------------------------------------------------------ stats and rows
interface Stat {
  median: number
  min: number
  max: number
  samples: number[]
}

function stat(samples: number[]): Stat {
  const s = [...samples].sort((a, b) => a - b)
  const mid = Math.floor(s.length / 2)
  const median = s.length % 2 ? (s[mid] as number) : ((s[mid - 1] as number) + (s[mid] as number)) / 2
  return { median, min: s[0] as number, max: s[s.length - 1] as number, samples }
}

interface Row {
  id: string
  what: string
  unit: string
  measured: Stat
  reference: Stat | null
  /** measured / reference (or the measured count itself for counts). */
  ratio: number
  target: string
  pass: boolean
  note?: string
}

const rows: Row[] = []
const extra: Record<string, unknown> = {}

// ------------------------------------------------------------------ inputs
function input(mb: number): string {
  const file = join(OUT, `cc-${mb}mb-seed${SEED}.jsonl`)
  if (!existsSync(file)) {
    log(`generating ${mb} MB → ${file}`)
    generateLargeSession(mb, file, [`--seed=${SEED}`])
  }
  return file
}

function importFile(file: string): Transcript {
  const r = importBytes(readFileSync(file), { fileName: file })
  if (!r.ok) throw new Error(`${file}: ${r.error.message}`)
  return r.transcript
}

function withKeepLast(config: PipelineConfig, keepLast: number, compactAfter?: number): PipelineConfig {
  const c = structuredClone(config)
  const s = c.stages.find((x) => x.id === 'summarize')
  if (s) {
    s.params.keep_last = keepLast
    if (compactAfter !== undefined) s.params.compact_after = compactAfter
  }
  return c
}

// ------------------------------------------------------------------ Node rows
/** B2: every distinct text of every sample and bench input, gpt-tokenizer vs js-tiktoken. */
async function b2(files: string[]): Promise<void> {
  log('B2: counts vs js-tiktoken')
  const fast = await loadTextCounter('o200k_base')
  const ref = new Tiktoken(o200k_base)
  let differ = 0
  const examples: string[] = []
  // One set over all files: the seeded inputs share much of their text, each is counted once.
  const seen = new Set<string>()
  for (const file of files) {
    const transcript = importFile(file)
    for (const text of textsToCount(transcript.messages, transcript.tools)) {
      if (seen.has(text)) continue
      seen.add(text)
      if (fast(text) !== ref.encode(text, [], []).length) {
        differ++
        if (examples.length < 5) examples.push(`${file}: ${JSON.stringify(text.slice(0, 60))}`)
      }
    }
  }
  const texts = seen.size
  extra.b2 = { files: files.map((f) => f.replace(`${ROOT}/`, '')), texts, examples }
  rows.push({
    id: 'B2',
    what: `texts whose count differs from js-tiktoken (${texts} distinct texts, ${files.length} files)`,
    unit: 'texts',
    measured: stat([differ]),
    reference: null,
    ratio: differ,
    target: 'identical (0)',
    pass: differ === 0,
  })
}

/**
 * B13: the counter on 1 MB of one repeated character, 1 MB of base64 and 1 MB of prose, side by
 * side (fresh strings each run, so the counter's merge cache starts cold on every text).
 */
async function b13(): Promise<void> {
  log('B13: counting 1 MB of one character / base64 / prose')
  const count = await loadTextCounter('o200k_base')
  const size = 1 << 20
  const inputs = {
    'one character': (i: number) => String.fromCharCode(0x41 + i).repeat(size),
    base64: (i: number) => base64Text(size, 3 + i),
    prose: (i: number) => proseText(size, 5 + i),
  }
  const ms: Record<string, number[]> = {}
  for (const [name, make] of Object.entries(inputs)) {
    ms[name] = []
    for (let i = 0; i < RUNS; i++) {
      const text = make(i)
      const t = performance.now()
      count(text)
      ms[name].push(performance.now() - t)
    }
  }
  const prose = stat(ms.prose as number[])
  for (const name of ['one character', 'base64']) {
    const measured = stat(ms[name] as number[])
    const ratio = measured.median / prose.median
    rows.push({
      id: 'B13',
      what: `token counting of 1 MB of ${name} vs 1 MB of prose`,
      unit: 'ms',
      measured,
      reference: prose,
      ratio,
      target: '≤ 2×',
      pass: ratio <= 2,
    })
  }
}

/**
 * B16, B17: fact extraction + facts table (totals and verdicts; the per-pass states are computed when
 * a row's `passes` is read) over `find .` output, and the default pipeline (rolling summarize
 * replay) + facts table over plain chats, each per unit at a large size vs a size 10× smaller.
 */
async function b16(): Promise<void> {
  log('B16, B17: facts over find output, rolling replay + facts over long chats')
  const counter = cacheCounter('o200k_base', await loadTextCounter('o200k_base'))
  const transcriptOf = (text: string) => {
    const r = importBytes(new TextEncoder().encode(text), { fileName: 'bench.json' })
    if (!r.ok) throw new Error(r.error.message)
    return r.transcript
  }
  const facts = (paths: number) => {
    const t = transcriptOf(chatWithToolOutput(findOutput(paths)))
    return async () => {
      const run = await runPipeline(t, DEFAULT_PIPELINE, { counter })
      const start = performance.now()
      factTable(run)
      return performance.now() - start
    }
  }
  const replay = (messages: number) => {
    const t = transcriptOf(longChat(messages))
    return async () => {
      const start = performance.now()
      factTable(await runPipeline(t, DEFAULT_PIPELINE, { counter }))
      return performance.now() - start
    }
  }
  const cases = [
    { id: 'B16', what: 'facts table of a `find .` output of 40,000 paths in one tool result', unit: 'ms per 1,000 paths', big: facts(40_000), small: facts(4_000), n: 40 },
    { id: 'B17', what: 'default pipeline (rolling summarize replay) + facts table, 100,000-message chat', unit: 'ms per 1,000 messages', big: replay(100_000), small: replay(10_000), n: 100 },
  ]
  for (const c of cases) {
    const big: number[] = []
    const small: number[] = []
    for (let i = 0; i < Math.min(RUNS, 2); i++) {
      big.push((await c.big()) / c.n)
      small.push((await c.small()) / (c.n / 10))
    }
    const measured = stat(big)
    const reference = stat(small)
    const ratio = measured.median / reference.median
    rows.push({ id: c.id, what: c.what, unit: c.unit, measured, reference, ratio, target: '≤ 1.5× (linear)', pass: ratio <= 1.5 })
  }
}

/**
 * B19: the Facts tab's table after the first run, as the page asks for it: a fresh engine
 * (`createEngineApi`, the worker's code) imports the file the page's way (`importBlob`), runs the
 * default pipeline (Before rows in pages, as the page's first run), then `getFactTable` is timed
 * — fact index (extraction, matcher, scan of the Before), table and rows — with, for a table
 * too long to cross whole, the first page of rows the tab asks for (`getFactRows`). Each repetition is a
 * fresh engine, so nothing of an earlier table is reused. The first run is printed for reference.
 */
async function b19(file: string): Promise<void> {
  log('B19: Facts tab after the run (engine API, Node)')
  const tables: number[] = []
  const runs: number[] = []
  let facts = 0
  for (let i = 0; i < RUNS; i++) {
    const api = createEngineApi()
    const imported = await api.importBlob(await openAsBlob(file), 'bench.jsonl', () => {})
    if (!imported.ok) throw new Error(`B19: ${imported.error.message}`)
    const t0 = performance.now()
    const run = await api.run(api.getDefaults(), 1, { rowPage: 1000 })
    if (!run.ok) throw new Error(`B19: ${run.error}`)
    const t1 = performance.now()
    const out = await api.getFactTable(1)
    if (!out.ok || !('table' in out)) throw new Error(`B19: ${out.ok ? 'no table' : out.error}`)
    // A long table comes as its header: the tab then asks for the rows it shows, the first page.
    if (out.table.rows.length < out.table.count) {
      const page = api.getFactRows(out.table.version, { text: '', kind: '', showNoise: false, onlyLost: false, sorting: [] }, 0, 100)
      if (!page.ok) throw new Error(`B19: ${page.error}`)
    }
    tables.push(performance.now() - t1)
    runs.push(t1 - t0)
    facts = out.table.count
  }
  const measured = stat(tables)
  const reference = stat(runs)
  rows.push({
    id: 'B19',
    what: `Facts tab after the run, ${sizeOf(file)} MB Claude Code session (${facts.toLocaleString('en-US')} facts; engine API, Node; reference: the first run)`,
    unit: 'ms',
    measured,
    reference,
    ratio: measured.median / reference.median,
    target: '≤ 1 s',
    pass: measured.median <= 1000,
  })
}

/**
 * B18: import (parse + normalize) of 60,000 Claude Code forks and of a 1,000,000-message JSON
 * chat against 10 × the import of a tenth of each: linear time means a ratio near 1.
 */
function b18(): void {
  log('B18: import of 60,000 forks / 1,000,000 messages vs a tenth of each')
  const cases = [
    { name: 'Claude Code forks', full: 60_000, make: (n: number) => claudeCodeForks(n), fileName: 'session.jsonl' },
    { name: 'JSON chat messages', full: 1_000_000, make: (n: number) => longChat(n), fileName: 'chat.json' },
  ]
  for (const c of cases) {
    const times = (n: number, runs: number) => {
      const text = c.make(n)
      const ms: number[] = []
      for (let i = 0; i < runs; i++) {
        const t = performance.now()
        const r = importTranscript(text, { fileName: c.fileName })
        ms.push(performance.now() - t)
        if (!r.ok) throw new Error(`B18 ${c.name}: ${r.error.message}`)
      }
      return ms
    }
    const reference = stat(times(c.full / 10, 3).map((m) => m * 10))
    const measured = stat(times(c.full, 1))
    const ratio = measured.median / reference.median
    rows.push({
      id: 'B18',
      what: `import of ${c.full.toLocaleString('en-US')} ${c.name} (Node) vs 10 × the import of a tenth`,
      unit: 'ms',
      measured,
      reference,
      ratio,
      target: '≤ 1.5× (linear)',
      pass: ratio <= 1.5,
    })
  }
}

/** B4 (Node share) and B9: re-plans and an 8×8 sweep with one warm counter; tokenizer calls per text. */
async function b9(file: string): Promise<void> {
  log('B9: 8×8 sweep vs 64 × one re-plan (Node)')
  const transcript = importFile(file)
  const own = textsToCount(transcript.messages, transcript.tools)
  const raw = await loadTextCounter('o200k_base')
  let ownCalls = 0
  const counter = cacheCounter('o200k_base', (t) => {
    if (own.has(t)) ownCalls++
    return raw(t)
  })
  await runPipeline(transcript, DEFAULT_PIPELINE, { counter })
  const firstCalls = ownCalls
  const replans: number[] = []
  for (let i = 0; i < RUNS; i++) {
    const t = performance.now()
    await runPipeline(transcript, withKeepLast(DEFAULT_PIPELINE, 11 + i), { counter })
    replans.push(performance.now() - t)
  }
  const sweeps: number[] = []
  // A sweep is 64 runs: `--sweeps` repetitions (default 1) keep the bench's wall time sane.
  for (let r = 0; r < SWEEPS; r++) {
    const t = performance.now()
    for (let k = 0; k < 8; k++) {
      for (let c = 0; c < 8; c++) {
        await runPipeline(transcript, withKeepLast(DEFAULT_PIPELINE, 4 + 4 * k, 40 + 10 * c + r), { counter })
      }
    }
    sweeps.push(performance.now() - t)
  }
  const one = stat(replans)
  const sweep = stat(sweeps)
  const sweepOwnCalls = ownCalls - firstCalls
  extra.b9 = { file: `${file.replace(`${ROOT}/`, '')}`, transcriptTexts: own.size, firstRunCalls: firstCalls, sweepCallsOnTranscriptTexts: sweepOwnCalls }
  rows.push({
    id: 'B9',
    what: `8×8 sweep (keep_last × compact_after), ${sizeOf(file)} MB, Node; transcript texts re-tokenized: ${sweepOwnCalls}`,
    unit: 'ms',
    measured: sweep,
    reference: { ...one, median: one.median * 64, min: one.min * 64, max: one.max * 64 },
    ratio: sweep.median / (one.median * 64),
    target: '≤ 1.2× (no cell re-tokenizes)',
    pass: sweep.median / (one.median * 64) <= 1.2 && sweepOwnCalls === 0,
  })
}

/** One size of B14: wall time and peak RSS of bench/memory.ts (import, first run, its checks) on it. */
interface ScalePoint {
  mb: number
  /** import, first run and its checks, ms, minus the small sample's (the fixed cost: runtime, code, rank tables). */
  ms: number
  /** peak RSS above the small sample's, MB. */
  peakMB: number
}

/** The bench/memory.ts child on `file` (or its small-sample baseline): peak RSS and the two times. */
function memoryChild(file: string, baseline = false): { maxRssBytes: number; importMs: number; runMs: number } {
  const args = ['--import', 'tsx', 'bench/memory.ts', file, ...(baseline ? ['--baseline'] : [])]
  const out = execFileSync(process.execPath, args, { cwd: ROOT, encoding: 'utf8', maxBuffer: 1 << 20 })
  return JSON.parse(out.trim().split('\n').pop() as string) as { maxRssBytes: number; importMs: number; runMs: number }
}

/**
 * The 200 MB input of B14, generated on first use when the disk and memory allow it: the file
 * needs its size on disk, the run about 5× its size in memory (B6 measures ~3×). Undefined, with
 * the reason logged, when it cannot fit.
 */
function scaleInput(mb: number): string | undefined {
  const file = join(OUT, `cc-${mb}mb-seed${SEED}.jsonl`)
  if (existsSync(file)) return file
  const fs = statfsSync(OUT)
  const freeDisk = fs.bavail * fs.bsize
  if (freeDisk < 2 * mb * MB) {
    log(`B14: skipping ${mb} MB: ${Math.round(freeDisk / MB)} MB free on disk, need ${2 * mb}`)
    return undefined
  }
  if (freemem() < 5 * mb * MB) {
    log(`B14: skipping ${mb} MB: ${Math.round(freemem() / MB)} MB free memory, need ${5 * mb}`)
    return undefined
  }
  return input(mb)
}

/**
 * B14: how the cost grows with the session. For 1, 10, 50 and 200 MB (200 generated when it
 * fits), one child process per size and run runs the worker's code as B6 does (streamed
 * `importBlob`, then the page's first run) and gives its time and peak RSS, both minus the small
 * sample's; each per MB of input. Two rows, time and memory: the largest size's per-MB figure
 * against 10 MB's, ≤ 1.2× (linear). The `what` lists every size's figures.
 */
async function b14(): Promise<void> {
  log('B14: how cost grows (load → full analysis per MB, Node, worker code)')
  const base = memoryChild(input(1), true)
  const baseMs = base.importMs + base.runMs
  const points: ScalePoint[] = []
  for (const mb of [1, 10, 50, 200]) {
    const file = mb === 200 ? scaleInput(mb) : input(mb)
    if (!file) continue
    const size = (await openAsBlob(file)).size / MB
    // The large sizes run once (200 MB takes minutes on 2 cores); the others as B6 does.
    const n = mb >= 50 ? 1 : Math.min(RUNS_BIG, 2)
    const runs = Array.from({ length: n }, () => memoryChild(file))
    log(`B14: ${mb} MB: ${runs.map((r) => `import ${Math.round(r.importMs)} ms + run ${Math.round(r.runMs)} ms, peak ${Math.round(r.maxRssBytes / MB)} MB`).join('; ')}`)
    points.push({
      mb: size,
      ms: stat(runs.map((r) => r.importMs + r.runMs - baseMs)).median,
      peakMB: stat(runs.map((r) => (r.maxRssBytes - base.maxRssBytes) / MB)).median,
    })
  }
  const ref = points.find((p) => Math.round(p.mb) === 10)
  const last = points[points.length - 1]
  if (!ref || !last) return
  extra.b14 = { baseline: { ms: baseMs, rssMB: base.maxRssBytes / MB }, points }
  const sizes = points.map((p) => `${Math.round(p.mb)}`).join('/')
  for (const [unit, of, name] of [
    ['ms/MB', (p: ScalePoint) => p.ms / p.mb, 'time'],
    ['MB/MB', (p: ScalePoint) => p.peakMB / p.mb, 'peak memory'],
  ] as const) {
    const per = points.map((p) => fmt(of(p))).join(' / ')
    rows.push({
      id: 'B14',
      what: `how cost grows: ${name} per MB, load → full analysis (import, first run, its checks) at ${sizes} MB: ${per} ${unit} (Node, worker code, minus the small sample)`,
      unit,
      measured: stat([of(last)]),
      reference: stat([of(ref)]),
      ratio: of(last) / of(ref),
      target: `≤ 1.2× (${Math.round(last.mb)} MB vs 10 MB per MB: linear)`,
      pass: of(last) / of(ref) <= 1.2,
    })
  }
}

/** B6: peak memory of the worker's code on the big file, as a Node process (maxRSS − baseline). */
function b6(file: string): void {
  log('B6: peak memory (Node process running the worker code)')
  const rss = (baseline: boolean) => {
    const args = ['--import', 'tsx', 'bench/memory.ts', file, ...(baseline ? ['--baseline'] : [])]
    const out = execFileSync(process.execPath, args, { cwd: ROOT, encoding: 'utf8', maxBuffer: 1 << 20 })
    return (JSON.parse(out.trim().split('\n').pop() as string) as { maxRssBytes: number }).maxRssBytes
  }
  const peaks: number[] = []
  const n = Math.min(RUNS_BIG, 2)
  const base = rss(true)
  for (let i = 0; i < n; i++) peaks.push(rss(false) - base)
  const size = readFileSync(file).length
  const m = stat(peaks.map((b) => b / MB))
  extra.b6 = { baselineRssMB: base / MB }
  rows.push({
    id: 'B6',
    what: `peak memory above baseline, streamed import + default run, ${sizeOf(file)} MB (Node, worker code)`,
    unit: 'MB',
    measured: m,
    reference: stat([size / MB]),
    ratio: m.median / (size / MB),
    target: '≤ 3×',
    pass: m.median / (size / MB) <= 3,
  })
}

/** B8: `cli inspect --json` vs ccusage's `session --json --offline` on the same file. */
function b8(file: string): void {
  log('B8: CLI inspect vs ccusage session')
  const home = join(tmpdir(), `bench-ccusage-${process.pid}`)
  rmSync(home, { recursive: true, force: true })
  mkdirSync(join(home, 'projects', 'bench'), { recursive: true })
  symlinkSync(file, join(home, 'projects', 'bench', 'session.jsonl'))
  const time = (args: string[], env: NodeJS.ProcessEnv = process.env) => {
    const t = performance.now()
    execFileSync(process.execPath, args, { cwd: ROOT, env, stdio: ['ignore', 'ignore', 'inherit'], maxBuffer: 1 << 28 })
    return performance.now() - t
  }
  const ours: number[] = []
  const theirs: number[] = []
  const cli = ['--import', 'tsx', 'src/cli/main.ts', 'inspect', file, '--json']
  const ccusage = ['node_modules/ccusage/dist/index.js', 'session', '--json', '--offline']
  // Alternate, so machine noise hits both alike; one untimed warm-up each (tsx's transpile cache).
  time(cli)
  time(ccusage, { ...process.env, CLAUDE_CONFIG_DIR: home })
  for (let i = 0; i < RUNS_BIG; i++) {
    ours.push(time(cli))
    theirs.push(time(ccusage, { ...process.env, CLAUDE_CONFIG_DIR: home }))
  }
  rmSync(home, { recursive: true, force: true })
  const m = stat(ours)
  const r = stat(theirs)
  rows.push({
    id: 'B8',
    what: `CLI \`inspect --json\` (parse + normalize), ${sizeOf(file)} MB, wall time incl. Node start`,
    unit: 'ms',
    measured: m,
    reference: r,
    ratio: m.median / r.median,
    target: '≤ 1.0× (ccusage 18.0.11 `session --json --offline`)',
    pass: m.median / r.median <= 1,
  })
}

function sizeOf(file: string): number {
  return Math.round(readFileSync(file).length / MB)
}

// ------------------------------------------------------------------ browser rows
async function buildSite(): Promise<void> {
  log('building the app (vite build) and the naive reference worker')
  execFileSync('npx', ['vite', 'build', '--outDir', DIST, '--emptyOutDir', '--logLevel', 'warn'], { cwd: ROOT, stdio: 'inherit' })
  await build({
    configFile: false,
    root: ROOT,
    logLevel: 'warn',
    build: {
      outDir: join(DIST, 'bench'),
      emptyOutDir: false,
      lib: { entry: join(ROOT, 'bench/naive.worker.ts'), formats: ['es'], fileName: () => 'naive.js' },
    },
  })
  mkdirSync(join(DIST, 'bench-inputs'), { recursive: true })
  for (const mb of SIZES) copyFileSync(input(mb), join(DIST, 'bench-inputs', `cc-${mb}mb.jsonl`))
}

async function startPreview(): Promise<ChildProcess> {
  const child = spawn('npx', ['vite', 'preview', '--outDir', DIST, '--host', '127.0.0.1', '--port', String(PORT), '--strictPort'], {
    cwd: ROOT,
    stdio: 'ignore',
    detached: true,
  })
  for (let i = 0; i < 300; i++) {
    try {
      const r = await fetch(`http://127.0.0.1:${PORT}/`)
      if (r.ok) return child
    } catch {
      // not up yet
    }
    await new Promise((res) => setTimeout(res, 100))
  }
  throw new Error(`vite preview did not answer on port ${PORT}`)
}

interface LoadTimes {
  /** Load call → transcript imported (info of the new file in the store). */
  importMs: number
  /** Load call → first rows of the new file rendered in the Before column. */
  firstRowsMs: number
  /** Load call → run done and both columns rendered (the full analysis). */
  doneMs: number
  /** Import done → run done (the initial run, counting included). */
  initialRunMs: number
  rowCount: number
  longTasks: { start: number; duration: number }[]
  /** Run shown → its failure-mode warnings answered (a long session's come after its run). */
  checksMs?: number
}

interface ReplanTimes {
  ms: number
  longTasks: { start: number; duration: number }[]
  poolTexts: number
  tokenizerCalls: number
}

interface NaiveTimes {
  parseMs: number
  countMs: number
  totalMs: number
  texts: number
  contentBytes: number
  tokens: number
}

/** One fresh page: first start, warm-up, then the load of `mb`, a re-plan, tokenizer stats and the naive floor. */
async function browserRun(
  page: Page,
  mb: number,
): Promise<{
  load: LoadTimes
  replan: ReplanTimes
  precountMs: number
  poolWorkers: number
  poolTexts: number
  loadPrecount: PrecountInfo
  naive: NaiveTimes
  drag: DragFrames
}> {
  await page.goto(`http://127.0.0.1:${PORT}/?bench`)
  await page.waitForFunction(() => {
    const b = (window as unknown as { __bench?: { store: { getState(): { run: unknown; runStatus: string; loading: unknown } } } }).__bench
    const s = b?.store.getState()
    return !!s && !!s.run && s.runStatus === 'done' && s.loading === null
  }, undefined, { timeout: 120_000 })
  const load = await page.evaluate(async ({ mb }) => {
    type S = {
      info: { fileName: string; messageCount: number } | null
      run: { before: { rows: unknown[] } } | null
      runStatus: string
      loading: string | null
      loadFile(f: File): Promise<void>
    }
    const bench = (window as unknown as {
      __bench: {
        store: { getState(): S; subscribe(f: () => void): () => void }
        engine(): { warmUp(e: string): Promise<void>; warmPool(e: string): Promise<void> }
        longTasks: { start: number; duration: number }[]
      }
    }).__bench
    // A person drops a file on a page that has finished starting: the first run's idle-time
    // warm-up of the tokenizer pool is done (as the naive reference's rank tables are loaded).
    await bench.engine().warmUp('o200k_base')
    await bench.engine().warmPool('o200k_base')
    const name = `cc-${mb}mb.jsonl`
    const blob = await (await fetch(`/bench-inputs/${name}`)).blob()
    const file = new File([blob], name)
    const frame = () => new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)))
    const rowsIn = (side: string) => document.querySelectorAll(`[data-testid="${side}-column"] [role="row"]`).length
    await frame()
    const store = bench.store
    const t0 = performance.now()
    let importAt = 0
    let firstRowsAt = 0
    // First rows of this file readable: its import head (estimated rows) or its first run's rows,
    // painted in the Before column (checked every frame: rows render after the store changes).
    const watchFirstRows = () => {
      const s = store.getState() as S & { importHead?: { fileName: string } | null }
      const ours = s.importHead?.fileName === name || (!!s.run && s.info?.fileName === name)
      if (ours && rowsIn('before') > 0) firstRowsAt = performance.now()
      else requestAnimationFrame(watchFirstRows)
    }
    requestAnimationFrame(watchFirstRows)
    const done = new Promise<number>((resolve) => {
      const check = () => {
        const s = store.getState()
        if (s.info?.fileName !== name) return
        if (!importAt) importAt = performance.now()
        if (s.run && s.runStatus === 'done' && s.loading === null) {
          unsubscribe()
          resolve(performance.now())
        }
      }
      const unsubscribe = store.subscribe(check)
    })
    void store.getState().loadFile(file)
    await done
    // Rendered: wait for the frame that paints both columns.
    for (let i = 0; i < 100 && (rowsIn('before') === 0 || rowsIn('after') === 0); i++) await frame()
    await frame()
    const doneAt = performance.now()
    ;(window as unknown as { __benchDoneAt: number }).__benchDoneAt = doneAt
    if (!firstRowsAt) firstRowsAt = doneAt
    const s = store.getState()
    return {
      importMs: importAt - t0,
      firstRowsMs: firstRowsAt - t0,
      doneMs: doneAt - t0,
      initialRunMs: doneAt - importAt,
      rowCount: s.run?.before.rows.length ?? 0,
      longTasks: bench.longTasks.filter((t) => t.start + t.duration >= t0 && t.start <= doneAt),
    }
  }, { mb })

  // The load's follow-up work: a long session's failure-mode checks come after its run is shown
  // (then the re-work and the facts table built ahead). A person changes a setting on a page that
  // has settled; the re-plan below starts once the worker answers again after them.
  const checksMs = await page.evaluate(async () => {
    type S = { run: { runId: number; checks: { failureModesPending?: true } } | null; failureModes: { runId: number } | null }
    const w = window as unknown as {
      __benchDoneAt: number
      __bench: { store: { getState(): S }; engine(): { tokenStats(e: string): Promise<unknown> } }
    }
    const answered = () => {
      const s = w.__bench.store.getState()
      return !s.run?.checks.failureModesPending || s.failureModes?.runId === s.run.runId
    }
    while (!answered()) await new Promise((r) => requestAnimationFrame(r))
    const at = performance.now() - w.__benchDoneAt
    for (let i = 0; i < 2; i++) {
      await new Promise((r) => setTimeout(r, 300))
      await w.__bench.engine().tokenStats('o200k_base')
    }
    return at
  })
  const loaded: LoadTimes = { ...load, checksMs }

  // Re-plan: keep_last one step down with the keyboard, as a person would.
  const statsBefore = await tokenStats(page)
  const slider = page.getByRole('slider', { name: 'summarize keep_last' })
  await slider.focus()
  const replanStart = await page.evaluate(() => {
    const w = window as unknown as { __benchRunId?: number; __bench: { store: { getState(): { run: { runId: number } | null } } } }
    w.__benchRunId = w.__bench.store.getState().run?.runId ?? 0
    return performance.now()
  })
  // The keyboard, not `slider.press`: a locator's press re-runs Playwright's role query on the
  // page's main thread (≈ 90 ms on 6,600 rows), which would be measured as ours.
  await page.keyboard.press('ArrowLeft')
  const replan = await page.evaluate(async (t0) => {
    type S = { run: { runId: number; after: { rows: unknown[] } } | null; runStatus: string }
    const w = window as unknown as { __benchRunId: number; __bench: { store: { getState(): S; subscribe(f: () => void): () => void }; longTasks: { start: number; duration: number }[] } }
    const store = w.__bench.store
    const isDone = () => {
      const s = store.getState()
      return !!s.run && s.run.runId !== w.__benchRunId && s.runStatus === 'done'
    }
    if (!isDone()) {
      await new Promise<void>((resolve) => {
        const unsubscribe = store.subscribe(() => {
          if (isDone()) {
            unsubscribe()
            resolve()
          }
        })
      })
    }
    await new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)))
    const end = performance.now()
    return { ms: end - t0, longTasks: w.__bench.longTasks.filter((t) => t.start + t.duration >= t0 && t.start <= end) }
  }, replanStart)
  const statsAfter = await tokenStats(page)
  // B1: the pool counting this transcript's distinct texts from scratch, on its own (the load's
  // counting overlaps the import, so its wall time is no throughput).
  const pool = await page.evaluate(() =>
    (window as unknown as { __bench: { engine(): { measurePool(e: string): Promise<{ ms: number; texts: number; workers: number }> } } }).__bench
      .engine()
      .measurePool('o200k_base'),
  )
  const drag = await sliderDrag(page)

  const naive = await page.evaluate(async ({ mb }) => {
    const bytes = await (await (await fetch(`/bench-inputs/cc-${mb}mb.jsonl`)).blob()).arrayBuffer()
    const worker = new Worker('/bench/naive.js', { type: 'module' })
    const ask = (msg: unknown, transfer: Transferable[] = []) =>
      new Promise<Record<string, number>>((resolve, reject) => {
        worker.onmessage = (e) => resolve(e.data as Record<string, number>)
        worker.onerror = (e) => reject(new Error(e.message))
        worker.postMessage(msg, transfer)
      })
    await ask({ warm: true })
    const out = await ask({ bytes }, [bytes])
    worker.terminate()
    return out
  }, { mb })
  return {
    load: loaded,
    replan: {
      ...replan,
      poolTexts: statsAfter.precount.texts,
      tokenizerCalls: statsAfter.tokenizerCalls - statsBefore.tokenizerCalls,
    },
    precountMs: pool.ms,
    poolWorkers: pool.workers,
    poolTexts: pool.texts,
    loadPrecount: statsBefore.precount,
    naive: naive as unknown as NaiveTimes,
    drag,
  }
}

/** What a scripted slider drag cost the main thread (B15): frames and Long Tasks from mouse down until its last run is shown. */
interface DragFrames {
  /** Longest gap between two animation frames (ms): the longest the page could not paint. */
  longestFrameMs: number
  frames: number
  /** Main-thread tasks over 50 ms in the same window. */
  longTasks: number
  /** Input events the slider got, and the runs whose views the page showed. */
  inputs: number
  runsShown: number
  ms: number
}

/**
 * B15: drags the `summarize keep_last` slider across its whole range with the mouse (40 moves,
 * one a frame), then waits until the run of its last value is shown; animation-frame gaps and
 * Long Tasks are recorded in the page over that window.
 */
async function sliderDrag(page: Page): Promise<DragFrames> {
  const slider = page.getByRole('slider', { name: 'summarize keep_last' })
  const box = await slider.boundingBox()
  if (!box) throw new Error('B15: no keep_last slider')
  await page.evaluate(() => {
    type S = { run: { runId: number } | null }
    const w = window as unknown as { __drag?: Record<string, unknown>; __bench: { store: { getState(): S; subscribe(f: () => void): () => void }; longTasks: unknown[] } }
    const gaps: number[] = []
    const rec = { gaps, inputs: 0, runsShown: 0, t0: performance.now(), longTasksAt: w.__bench.longTasks.length, stop: false, last: performance.now() }
    const tick = (t: number) => {
      gaps.push(t - rec.last)
      rec.last = t
      if (!rec.stop) requestAnimationFrame(tick)
    }
    requestAnimationFrame((t) => {
      rec.last = t
      requestAnimationFrame(tick)
    })
    document.addEventListener('input', () => rec.inputs++, { capture: true })
    let shown = w.__bench.store.getState().run
    w.__bench.store.subscribe(() => {
      const run = w.__bench.store.getState().run
      if (run !== shown) rec.runsShown++
      shown = run
    })
    w.__drag = rec
  })
  const y = box.y + box.height / 2
  await page.mouse.move(box.x + 2, y)
  await page.mouse.down()
  for (let i = 1; i <= 40; i++) {
    await page.mouse.move(box.x + 2 + ((box.width - 4) * i) / 40, y)
    await page.waitForTimeout(16)
  }
  await page.mouse.up()
  return page.evaluate(async () => {
    type S = { runStatus: string; run: unknown }
    const w = window as unknown as {
      __drag: { gaps: number[]; inputs: number; runsShown: number; t0: number; longTasksAt: number; stop: boolean }
      __bench: { store: { getState(): S }; longTasks: { start: number; duration: number }[] }
    }
    const frame = () => new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)))
    // Settled: no run in flight for two frames in a row.
    for (let calm = 0; calm < 2; ) {
      await frame()
      calm = w.__bench.store.getState().runStatus === 'running' ? 0 : calm + 1
    }
    const rec = w.__drag
    rec.stop = true
    return {
      longestFrameMs: Math.max(0, ...rec.gaps),
      frames: rec.gaps.length,
      longTasks: w.__bench.longTasks.slice(rec.longTasksAt).length,
      inputs: rec.inputs,
      runsShown: rec.runsShown,
      ms: performance.now() - rec.t0,
    }
  })
}

/** The B15 row from the drags of the big file's runs. */
function b15(drags: DragFrames[]): Row {
  const longest = stat(drags.map((d) => d.longestFrameMs))
  const d = drags[0]
  return {
    id: 'B15',
    what: `${BIG} MB: longest main-thread frame during a keep_last slider drag (${d?.inputs ?? 0} input events over ${Math.round(d?.ms ?? 0)} ms, ${d?.runsShown ?? 0} runs shown, tasks > 50 ms: ${drags.map((x) => x.longTasks).join('/')})`,
    unit: 'ms',
    measured: longest,
    reference: null,
    ratio: longest.max,
    target: '≤ 50 ms',
    pass: longest.max <= 50,
  }
}

/** What the engine's last pre-count did (`PrecountStats`): texts counted after the import, and ahead. */
interface PrecountInfo {
  texts: number
  ms: number
  workers: number
  ahead?: number
}

async function tokenStats(page: Page): Promise<{ tokenizerCalls: number; precount: PrecountInfo }> {
  return page.evaluate(() =>
    (window as unknown as { __bench: { engine(): { tokenStats(e: string): Promise<{ tokenizerCalls: number; precount: PrecountInfo }> } } }).__bench
      .engine()
      .tokenStats('o200k_base'),
  )
}

async function browserRows(): Promise<void> {
  await buildSite()
  const chunks = mainThreadChunks(DIST)
  const gz = chunks.reduce((n, c) => n + c.gzipBytes, 0) / 1024
  extra.b7 = { chunks }
  rows.push({
    id: 'B7',
    what: `main-thread JavaScript, gzip -9 (${chunks.map((c) => c.file).join(', ')})`,
    unit: 'KB',
    measured: stat([gz]),
    reference: null,
    ratio: gz,
    target: '≤ 300 KB',
    pass: gz <= 300,
  })

  const server = await startPreview()
  const browser = await chromium.launch({
    ...(existsSync(CHROMIUM) ? { executablePath: CHROMIUM } : {}),
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  })
  try {
    extra.chromium = browser.version()
    const runsAt = async (mb: number, n: number) => {
      const out = []
      for (let i = 0; i < n; i++) {
        log(`browser: ${mb} MB, run ${i + 1}/${n}`)
        const context = await browser.newContext({ viewport: { width: 1440, height: 900 } })
        // tsx compiles this file with keepNames: functions sent to page.evaluate call `__name`.
        await context.addInitScript('globalThis.__name = (f) => f')
        const page = await context.newPage()
        page.on('pageerror', (e) => log(`page error: ${e.message}`))
        try {
          out.push(await browserRun(page, mb))
        } finally {
          await context.close()
        }
      }
      return out
    }
    const mid = await runsAt(10, RUNS)
    const big = BIG === 10 ? mid : await runsAt(BIG, RUNS_BIG)
    extra.browser = { '10': mid, [String(BIG)]: big }

    // B1: the same content bytes over the pool's wall time vs the counter alone on one thread.
    const contentMB = (mid[0]?.naive.contentBytes ?? 0) / MB
    const ours = stat(mid.map((r) => contentMB / (r.precountMs / 1000)))
    const alone = stat(mid.map((r) => contentMB / (r.naive.countMs / 1000)))
    rows.push({
      id: 'B1',
      what: `token counting, 10 MB file (${contentMB.toFixed(1)} MB of message text), pool of ${mid[0]?.poolWorkers ?? '?'} workers counting its ${mid[0]?.poolTexts ?? '?'} distinct texts`,
      unit: 'MB/s',
      measured: ours,
      reference: alone,
      ratio: ours.median / alone.median,
      target: '≥ 0.9× (countTokens alone in a worker)',
      pass: ours.median / alone.median >= 0.9,
    })
    const floor = stat(big.map((r) => r.naive.totalMs))
    const done = stat(big.map((r) => r.load.doneMs))
    const checks = stat(big.map((r) => r.load.checksMs ?? 0))
    rows.push({
      id: 'B3',
      what: `${BIG} MB: load → full analysis shown (${big[0]?.load.rowCount ?? 0} rows, default pipeline; texts counted during the import ${big[0]?.loadPrecount.ahead ?? 0}, after it ${big[0]?.loadPrecount.texts ?? 0}; failure-mode warnings ${Math.round(checks.median)} ms after the run)`,
      unit: 'ms',
      measured: done,
      reference: floor,
      ratio: done.median / floor.median,
      target: '≤ 0.7× (naive floor: one thread JSON.parse + countTokens)',
      pass: done.median / floor.median <= 0.7,
    })
    const replan = stat(big.map((r) => r.replan.ms))
    const initial = stat(big.map((r) => r.load.initialRunMs))
    const poolTexts = Math.max(...big.map((r) => r.replan.poolTexts))
    const calls = Math.max(...big.map((r) => r.replan.tokenizerCalls))
    rows.push({
      id: 'B4',
      what: `${BIG} MB: re-plan after keep_last −1 (keyboard → After shown); transcript texts re-counted: ${poolTexts}, tokenizer calls (new summary texts only): ${calls}`,
      unit: 'ms',
      measured: replan,
      reference: initial,
      ratio: replan.median / initial.median,
      target: '≤ 0.02× the initial run (and zero tokenizer calls)',
      pass: replan.median / initial.median <= 0.02 && poolTexts === 0,
    })
    const longLoad = big.map((r) => r.load.longTasks.length)
    const longReplan = big.map((r) => r.replan.longTasks.length)
    const longTotal = big.map((_, i) => (longLoad[i] ?? 0) + (longReplan[i] ?? 0))
    const longest = Math.max(0, ...big.flatMap((r) => [...r.load.longTasks, ...r.replan.longTasks].map((t) => t.duration)))
    rows.push({
      id: 'B5',
      what: `${BIG} MB: main-thread tasks > 50 ms during load + re-plan (load ${longLoad.join('/')}, re-plan ${longReplan.join('/')}; longest ${Math.round(longest)} ms)`,
      unit: 'tasks',
      measured: stat(longTotal),
      reference: null,
      ratio: Math.max(...longTotal),
      target: '0',
      pass: longTotal.every((n) => n === 0),
    })
    rows.push(b15(big.map((r) => r.drag)))
    const first = stat(big.map((r) => r.load.firstRowsMs))
    rows.push({
      id: 'B10',
      what: `${BIG} MB: load → first rows readable`,
      unit: 'ms',
      measured: first,
      reference: floor,
      ratio: first.median / floor.median,
      target: '≤ 0.1× (naive floor of B3)',
      pass: first.median / floor.median <= 0.1,
    })
  } finally {
    await browser.close()
    if (server.pid) {
      try {
        process.kill(-server.pid, 'SIGTERM')
      } catch {
        // already gone
      }
    }
  }
}

/** Ends the `vite preview` of `startPreview` (its process group); nothing when it is already gone. */
function stopPreview(server: ChildProcess): void {
  try {
    if (server.pid) process.kill(-server.pid, 'SIGTERM')
  } catch {
    // already gone
  }
}

/** A page opened with `?bench` that has loaded bench input `mb` and shown its first run; its run's ms (import → both columns). */
async function loadedPage(page: Page, mb: number): Promise<number> {
  await page.goto(`http://127.0.0.1:${PORT}/?bench`)
  await page.waitForFunction(() => {
    const s = (window as unknown as { __bench?: { store: { getState(): { run: unknown; runStatus: string; loading: unknown } } } }).__bench?.store.getState()
    return !!s && !!s.run && s.runStatus === 'done' && s.loading === null
  }, undefined, { timeout: 120_000 })
  return page.evaluate(async ({ mb }) => {
    type S = { info: { fileName: string } | null; run: unknown; runStatus: string; loading: string | null; loadFile(f: File): Promise<void> }
    const bench = (window as unknown as { __bench: { store: { getState(): S; subscribe(f: () => void): () => void }; engine(): { warmUp(e: string): Promise<void>; warmPool(e: string): Promise<void> } } }).__bench
    await bench.engine().warmUp('o200k_base')
    await bench.engine().warmPool('o200k_base')
    const name = `cc-${mb}mb.jsonl`
    const file = new File([await (await fetch(`/bench-inputs/${name}`)).blob()], name)
    const store = bench.store
    const frame = () => new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)))
    let importAt = 0
    const done = new Promise<void>((resolve) => {
      const unsubscribe = store.subscribe(() => {
        const s = store.getState()
        if (s.info?.fileName !== name) return
        if (!importAt) importAt = performance.now()
        if (s.run && s.runStatus === 'done' && s.loading === null) {
          unsubscribe()
          resolve()
        }
      })
    })
    void store.getState().loadFile(file)
    await done
    const rowsIn = (side: string) => document.querySelectorAll(`[data-testid="${side}-column"] [role="row"]`).length
    for (let i = 0; i < 100 && (rowsIn('before') === 0 || rowsIn('after') === 0); i++) await frame()
    await frame()
    return performance.now() - importAt
  }, { mb })
}

/** Clicks the main tab `name` (by its role and label). */
async function openTab(page: Page, name: string): Promise<void> {
  await page.getByRole('tab', { name, exact: true }).click()
}

/**
 * B11 and B12 on one fresh page per repetition, 10 MB: the first run, then (B11) the Facts tab
 * clicked → the facts table painted (its totals and rows), then (B12) three keep_last re-plans
 * (keyboard → After shown) and the 8×8 keep_last × compact_after sweep from its start to its last
 * cell shown, with how many times the grid was painted with more cells on the way. `built`: the
 * site is already built (by `browserRows`).
 */
async function factsAndSweepRows(built = false): Promise<void> {
  if (!built) await buildSite()
  const server = await startPreview()
  const browser = await chromium.launch({
    ...(existsSync(CHROMIUM) ? { executablePath: CHROMIUM } : {}),
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  })
  const out: { firstRun: number; facts: number; factRows: number; replans: number[]; sweep: number; paints: number; calls: number }[] = []
  try {
    for (let i = 0; i < RUNS; i++) {
      log(`B11/B12: 10 MB, run ${i + 1}/${RUNS}`)
      const context = await browser.newContext({ viewport: { width: 1440, height: 900 } })
      await context.addInitScript('globalThis.__name = (f) => f')
      const page = await context.newPage()
      page.on('pageerror', (e) => log(`page error: ${e.message}`))
      try {
        const firstRun = await loadedPage(page, 10)
        const factsStart = await page.evaluate(() => performance.now())
        await openTab(page, 'Facts')
        const facts = await page.evaluate(async (t0) => {
          const frame = () => new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)))
          const shown = () => !!document.querySelector('[data-testid="facts-totals"]') && document.querySelectorAll('[data-testid="facts-table"] [role="rowgroup"] [role="row"]').length > 0
          for (let k = 0; k < 6000 && !shown(); k++) await frame()
          const s = (window as unknown as { __bench: { store: { getState(): { factTable: { count: number } | null } } } }).__bench.store.getState()
          return { ms: performance.now() - t0, rows: s.factTable?.count ?? 0 }
        }, factsStart)
        await openTab(page, 'Before | After')
        const replans: number[] = []
        for (let r = 0; r < 3; r++) {
          await page.getByRole('slider', { name: 'summarize keep_last' }).focus()
          const [t0, runId] = await page.evaluate(() => {
            const s = (window as unknown as { __bench: { store: { getState(): { run: { runId: number } | null } } } }).__bench.store.getState()
            return [performance.now(), s.run?.runId ?? 0] as const
          })
          await page.keyboard.press('ArrowLeft')
          // Polled every frame: the run's new view shown, then the frame that paints it.
          await page.waitForFunction(
            (before) => {
              const s = (window as unknown as { __bench: { store: { getState(): { run: { runId: number } | null; runStatus: string } } } }).__bench.store.getState()
              return !!s.run && s.run.runId !== before && s.runStatus === 'done'
            },
            runId,
            { polling: 'raf', timeout: 120_000 },
          )
          replans.push(await page.evaluate((t0) => new Promise<number>((r) => requestAnimationFrame(() => setTimeout(() => r(performance.now() - t0), 0))), t0))
        }
        await openTab(page, 'Sweep')
        const sweep = await page.evaluate(async () => {
          type S = {
            sweepStatus: string
            sweepProgress: { done: number; total: number } | null
            sweepResult: { tokenizerCalls: number } | null
            runSweep(x: { param: string; values: number[] }, y: { param: string; values: number[] }): void
          }
          const store = (window as unknown as { __bench: { store: { getState(): S; subscribe(f: () => void): () => void } } }).__bench.store
          const frame = () => new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)))
          const range = (from: number, step: number) => Array.from({ length: 8 }, (_, k) => from + step * k)
          let paints = 0
          let lastDone = 0
          const t0 = performance.now()
          const finished = new Promise<void>((resolve) => {
            const unsubscribe = store.subscribe(() => {
              const s = store.getState()
              const done = s.sweepProgress?.done ?? 0
              if (done > lastDone) {
                lastDone = done
                paints++
              }
              if (s.sweepStatus !== 'running') {
                unsubscribe()
                resolve()
              }
            })
          })
          store.getState().runSweep({ param: 'keep_last', values: range(4, 4) }, { param: 'compact_after', values: range(40, 10) })
          await finished
          await frame()
          const s = store.getState()
          if (s.sweepStatus !== 'done') throw new Error(`sweep ended ${s.sweepStatus}`)
          return { ms: performance.now() - t0, paints, calls: s.sweepResult?.tokenizerCalls ?? -1 }
        })
        out.push({ firstRun, facts: facts.ms, factRows: facts.rows, replans, sweep: sweep.ms, paints: sweep.paints, calls: sweep.calls })
        log(`B11/B12: ${JSON.stringify(out[out.length - 1])}`)
      } finally {
        await context.close()
      }
    }
  } finally {
    await browser.close()
    stopPreview(server)
  }
  extra.b11b12 = out
  const facts = stat(out.map((r) => r.facts))
  const firstRun = stat(out.map((r) => r.firstRun))
  const sweep = stat(out.map((r) => r.sweep))
  const one = stat(out.flatMap((r) => r.replans))
  const calls = Math.max(...out.map((r) => r.calls))
  // Two rows of the same shape: a median against a same-page reference, passing at or below `limit`×.
  const ratioRows: [string, string, Stat, Stat, number][] = [
    [
      'B11',
      `10 MB: Facts tab clicked after the first run → facts table shown (${out[0]?.factRows.toLocaleString('en-US') ?? 0} facts; reference: the first run, same page)`,
      facts,
      firstRun,
      0.2,
    ],
    [
      'B12',
      `10 MB: 8×8 sweep (keep_last × compact_after) in the browser, start → last cell shown (grid painted ${out.map((r) => r.paints).join('/')} times; tokenizer calls ${calls}; reference: 64 × one keep_last re-plan, same page)`,
      sweep,
      { ...one, median: one.median * 64, min: one.min * 64, max: one.max * 64 },
      1.2,
    ],
  ]
  for (const [id, what, measured, reference, limit] of ratioRows) {
    const ratio = measured.median / reference.median
    rows.push({ id, what, unit: 'ms', measured, reference, ratio, target: `≤ ${limit}×`, pass: ratio <= limit })
  }
}

// ------------------------------------------------------------------ B20, B21: the page at scale
/** Resident memory (bytes) of a process and all its descendants (Linux /proc): the browser's page and workers. */
function treeRss(root: number): number {
  const children = new Map<number, number[]>()
  let total = 0
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8')
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1])
      const list = children.get(ppid) ?? []
      list.push(Number(name))
      children.set(ppid, list)
    } catch {
      // gone meanwhile
    }
  }
  const stack = [root]
  while (stack.length > 0) {
    const pid = stack.pop() as number
    try {
      const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))
      if (m) total += Number(m[1]) * 1024
    } catch {
      // gone meanwhile
    }
    stack.push(...(children.get(pid) ?? []))
  }
  return total
}

/** The Chromium this process launched (a child process named chromium or chrome), or 0. */
function chromiumPid(): number {
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8')
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1])
      if (ppid === process.pid && /chrom/.test(readFileSync(`/proc/${name}/comm`, 'utf8'))) return Number(name)
    } catch {
      // gone meanwhile
    }
  }
  return 0
}

/** What one load of a big file cost the page (B20, B21). */
interface ScaleRun {
  /** Load (file chosen) → first rows of the file in the Before column (ms; NaN when never). */
  firstRowsMs: number
  /** Load → run done and both columns rendered (ms). */
  doneMs: number
  /** Longest main-thread task from the load to the last tab switch (ms, Long Tasks API). */
  longestTask: number
  /** Main-thread tasks over 200 ms in that span. */
  tasksOver200: number
  /** Peak resident memory of the browser's process tree (page, workers, GPU, browser) during it. */
  peakRss: number
  /** Resident memory of the same tree before the load (the app with its sample open). */
  baseRss: number
  /** Tab label → click to the frame after it (ms) and the longest task in the 1.5 s after the click. */
  tabs: Record<string, { ms: number; longest: number }>
  /** The tab crashed, or the run was not shown within 600 s. */
  crashed: boolean
}

/**
 * One fresh page opens `file` (from disk, through the file input as a person would): time to its
 * first rows and to the full run shown, the longest main-thread task, peak memory of the browser's
 * process tree (sampled every 250 ms from here), then each main tab clicked in turn.
 */
async function scaleRun(browser: Browser, file: string): Promise<ScaleRun> {
  const name = file.split('/').pop() ?? ''
  const context = await browser.newContext({ viewport: { width: 1440, height: 900 } })
  await context.addInitScript('globalThis.__name = (f) => f')
  const page = await context.newPage()
  let crashed = false
  page.on('crash', () => {
    crashed = true
  })
  page.on('pageerror', (e) => log(`page error: ${e.message}`))
  const browserPid = chromiumPid()
  try {
    await page.goto(`http://127.0.0.1:${PORT}/?bench`)
    await page.waitForFunction(() => {
      const s = (window as unknown as { __bench?: { store: { getState(): { run: unknown; runStatus: string; loading: unknown } } } }).__bench?.store.getState()
      return !!s && !!s.run && s.runStatus === 'done' && s.loading === null
    }, undefined, { timeout: 120_000 })
    const baseRss = browserPid ? treeRss(browserPid) : 0
    let peakRss = baseRss
    const sampler = setInterval(() => {
      if (browserPid) peakRss = Math.max(peakRss, treeRss(browserPid))
    }, 250)
    try {
      await page.evaluate((name) => {
        const w = window as unknown as {
          __scale: { t0: number; first: number; done: number }
          __bench: { store: { getState(): { info: { fileName: string } | null; run: unknown; runStatus: string; loading: unknown } } }
        }
        const scale = { t0: performance.now(), first: 0, done: 0 }
        w.__scale = scale
        const rowsIn = (side: string) => document.querySelectorAll(`[data-testid="${side}-column"] [role="row"]`).length
        const tick = () => {
          const s = w.__bench.store.getState() as { info: { fileName: string } | null; run: unknown; runStatus: string; loading: unknown; importHead?: { fileName: string } | null }
          const ours = s.importHead?.fileName === name || (!!s.run && s.info?.fileName === name)
          if (!scale.first && ours && rowsIn('before') > 0) scale.first = performance.now()
          if (s.info?.fileName === name && s.run && s.runStatus === 'done' && s.loading === null && rowsIn('before') > 0 && rowsIn('after') > 0) {
            scale.done = performance.now()
            return
          }
          requestAnimationFrame(tick)
        }
        requestAnimationFrame(tick)
      }, name)
      const t0 = await page.evaluate(() => (window as unknown as { __scale: { t0: number } }).__scale.t0)
      await page.getByLabel('Open transcript').setInputFiles(file)
      await page.waitForFunction(() => (window as unknown as { __scale: { done: number } }).__scale.done > 0, undefined, { timeout: 600_000, polling: 500 })
      const { first, done } = await page.evaluate(() => (window as unknown as { __scale: { first: number; done: number } }).__scale)
      const tabs: ScaleRun['tabs'] = {}
      for (const label of ['Table', 'Facts', 'Stage by stage', 'Timeline', 'Turn N', 'Sweep', 'Before | After']) {
        tabs[label] = await page.evaluate(async (label) => {
          const w = window as unknown as { __bench: { longTasks: { start: number; duration: number }[] } }
          const tab = [...document.querySelectorAll('[role="tab"]')].find((b) => b.textContent?.trim() === label) as HTMLElement | undefined
          if (!tab) return { ms: NaN, longest: NaN }
          const c0 = performance.now()
          tab.click()
          await new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)))
          const ms = performance.now() - c0
          await new Promise((r) => setTimeout(r, 1500))
          const longest = Math.max(0, ...w.__bench.longTasks.filter((t) => t.start + t.duration >= c0).map((t) => t.duration))
          return { ms, longest }
        }, label)
      }
      const tasks = await page.evaluate((t0) => (window as unknown as { __bench: { longTasks: { start: number; duration: number }[] } }).__bench.longTasks.filter((t) => t.start + t.duration >= t0).map((t) => t.duration), t0)
      return {
        firstRowsMs: first ? first - t0 : NaN,
        doneMs: done - t0,
        longestTask: Math.max(0, ...tasks),
        tasksOver200: tasks.filter((d) => d > 200).length,
        peakRss,
        baseRss,
        tabs,
        crashed,
      }
    } finally {
      clearInterval(sampler)
    }
  } catch (e) {
    // A crash, or no run shown within the wait: recorded as a failed load, never a thrown bench.
    log(`${name}: ${crashed ? 'the page crashed' : `not shown: ${e instanceof Error ? e.message.split('\n')[0] : String(e)}`}`)
    return { firstRowsMs: NaN, doneMs: NaN, longestTask: NaN, tasksOver200: NaN, peakRss: NaN, baseRss: NaN, tabs: {}, crashed }
  } finally {
    await context.close().catch(() => undefined)
  }
}

/** A generated input of bench/out, written on first use. */
function generated(name: string, make: () => string): string {
  const file = join(OUT, name)
  if (!existsSync(file)) {
    log(`generating ${file}`)
    writeFileSync(file, make())
  }
  return file
}

/**
 * B20 and B21: the page with 1,000,000 messages (`longChat`) and with 200,000 tool results that
 * answer no call (`orphanToolResults`), opened through the file input of a production build:
 * longest main-thread task (target ≤ 200 ms), first rows, full run shown, peak memory of the
 * browser's processes, each main tab's switch. `--runs` repetitions (default 3) on fresh pages.
 */
async function pageScaleRows(): Promise<void> {
  const inputs = [
    { id: 'B20', what: '1,000,000 messages', file: generated('long-chat-1000000.json', () => longChat(1_000_000)) },
    { id: 'B21', what: '200,000 orphan tool results', file: generated('orphans-200000.json', () => orphanToolResults(200_000)) },
  ].filter(({ id }) => !ONLY || ONLY.includes(id))
  log('B20/B21: building the app')
  execFileSync('npx', ['vite', 'build', '--outDir', DIST, '--emptyOutDir', '--logLevel', 'warn'], { cwd: ROOT, stdio: 'inherit' })
  const server = await startPreview()
  const browser = await chromium.launch({
    ...(existsSync(CHROMIUM) ? { executablePath: CHROMIUM } : {}),
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  })
  try {
    for (const { id, what, file } of inputs) {
      const runs: ScaleRun[] = []
      for (let i = 0; i < RUNS; i++) {
        log(`${id}: ${what}, run ${i + 1}/${RUNS}`)
        runs.push(await scaleRun(browser, file))
        log(`${id}: ${JSON.stringify(runs[runs.length - 1])}`)
      }
      extra[id.toLowerCase()] = runs
      const ok = runs.filter((r) => !r.crashed)
      const crashes = runs.length - ok.length
      const longest = stat(ok.length ? ok.map((r) => r.longestTask) : [NaN])
      const med = (f: (r: ScaleRun) => number) => (ok.length ? Math.round(stat(ok.map(f)).median) : NaN)
      const tabs = Object.keys(ok[0]?.tabs ?? {})
        .map((t) => `${t} ${med((r) => r.tabs[t]?.ms ?? NaN)}/${med((r) => r.tabs[t]?.longest ?? NaN)}`)
        .join(', ')
      rows.push({
        id,
        what: `the page with ${what} (${Math.round(sizeOfBytes(file) / MB)} MB) opened: longest main-thread task; first rows ${med((r) => r.firstRowsMs)} ms, run shown ${med((r) => r.doneMs)} ms, peak RSS of the browser ${med((r) => r.peakRss / MB)} MB (${med((r) => r.baseRss / MB)} MB before), tabs click → frame / longest task ms: ${tabs}; ${crashes} of ${runs.length} crashed or not shown in 600 s`,
        unit: 'ms',
        measured: longest,
        reference: null,
        ratio: longest.max,
        target: '≤ 200 ms, no crash',
        pass: crashes === 0 && longest.max <= 200,
      })
      save()
    }
  } finally {
    await browser.close()
    stopPreview(server)
  }
}

function sizeOfBytes(file: string): number {
  return statSync(file).size
}

// ------------------------------------------------------------------ B23: an archive bomb refused
/**
 * B23: an Inspect `.eval` of 20 entries × 200 MB of zeros (about 4 MB on disk; each entry under
 * the 256 MB per-entry cap, 4,000 MB declared in all) given to the CLI (`inspect`), as a child
 * process per run: time from the command's start to its refusal, and the child's peak RSS.
 */
async function b23(): Promise<void> {
  log('B23: archive bomb refused by the CLI')
  const file = join(OUT, 'bomb-20x200mb.eval')
  if (!existsSync(file)) {
    const { zipBomb } = await import('../test/zip-bomb')
    const names = ['header.json', ...Array.from({ length: 19 }, (_, k) => `samples/${k + 1}_epoch_1.json`)]
    writeFileSync(file, zipBomb(names, 200 * 1024 * 1024))
  }
  const child = [
    `import { main } from ${JSON.stringify(join(ROOT, 'src/cli/main.ts'))}`,
    'const t0 = performance.now()',
    'let err = ""',
    `const code = await main(['inspect', ${JSON.stringify(file)}], () => {}, (s) => (err += s))`,
    'console.log(JSON.stringify({ ms: performance.now() - t0, code, err, maxRssBytes: process.resourceUsage().maxRSS * 1024 }))',
  ].join('\n')
  const runs: { ms: number; code: number; err: string; maxRssBytes: number }[] = []
  for (let i = 0; i < Math.max(RUNS, 3); i++) {
    const out = execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', child], { cwd: ROOT, encoding: 'utf8' })
    runs.push(JSON.parse(out.trim().split('\n').pop() as string))
  }
  const refused = runs.every((r) => r.code === 1 && /limit for one input/.test(r.err))
  const measured = stat(runs.map((r) => r.ms))
  const peak = stat(runs.map((r) => r.maxRssBytes / MB))
  log(`B23: ${runs.map((r) => `${Math.round(r.ms)} ms, peak ${Math.round(r.maxRssBytes / MB)} MB`).join('; ')}; ${runs[0]?.err.trim()}`)
  rows.push({
    id: 'B23',
    what: `an Inspect .eval bomb (20 entries × 200 MB, ${Math.round(statSync(file).size / 1024)} KB on disk) given to the CLI: start → refusal (peak RSS ${Math.round(peak.median)} MB; ${refused ? 'refused with one line' : 'NOT refused'})`,
    unit: 'ms',
    measured,
    reference: null,
    ratio: measured.median,
    target: '≤ 5 s, refused, peak RSS ≤ 400 MB',
    pass: refused && measured.median <= 5000 && peak.max <= 400,
  })
}

/**
 * `--only=B11,B12`: runs only the sections holding those rows (each section runs whole, so a
 * row it also measures is printed too) and writes bench/out/results-dev.json. Unknown ids: an error.
 */
/** What one `compact --json` process did: wall time, exit code, peak RSS, bytes written to stdout. */
interface CliProcessRun {
  ms: number
  code: number | null
  maxRssBytes: number
  outBytes: number
  err: string
}

/**
 * `node --import tsx src/cli/main.ts compact <file> --json <flags>` as its own process (Node's
 * default heap; the CLI itself starts a child with a larger heap for a large input, src/cli/heap.ts), stdout counted as it streams and thrown away; peak RSS from `/usr/bin/time -f %M`.
 */
function cliCompactJson(file: string, flags: string[] = []): Promise<CliProcessRun> {
  return new Promise((done) => {
    const t0 = performance.now()
    const child = spawn('/usr/bin/time', ['-f', 'maxrss-kb %M', process.execPath, '--import', 'tsx', 'src/cli/main.ts', 'compact', file, '--json', ...flags], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let outBytes = 0
    let err = ''
    child.stdout.on('data', (b: Buffer) => (outBytes += b.length))
    child.stderr.on('data', (b: Buffer) => (err += b.toString()))
    child.on('close', (code) => {
      const rss = /maxrss-kb (\d+)/.exec(err)
      done({ ms: performance.now() - t0, code, maxRssBytes: rss ? Number(rss[1]) * 1024 : NaN, outBytes, err: err.replace(/maxrss-kb \d+\s*$/, '').trim() })
    })
  })
}

/** A `longChat` of `count` messages in bench/out, written on first use. */
function longChatFile(count: number): string {
  const file = join(OUT, `long-chat-${count}.json`)
  if (!existsSync(file)) writeFileSync(file, longChat(count))
  return file
}

/**
 * B22: the CLI's `compact --json` at scale, each run its own process. (1) 1,000,000 messages with
 * the default pipeline: completes (exit 0) as a person runs it (the CLI sizes its heap: heap.ts); time and peak RSS shown, output
 * bytes per input MB against the same at 100,000 messages (linear: ≤ 1.2×). (2) 200,000 messages
 * with a pass every turn (keep_last 2, compact_after 3): time per 1,000 messages against the same
 * at 20,000 (linear: ≤ 1.2×).
 */
async function b22(): Promise<void> {
  const inputMB = (file: string) => readFileSync(file).length / MB
  const perMB = (r: CliProcessRun, file: string) => r.outBytes / inputMB(file)
  const big = longChatFile(1_000_000)
  const tenth = longChatFile(100_000)
  log('B22: compact --json, 100,000 then 1,000,000 messages')
  const ref = await cliCompactJson(tenth)
  const run = await cliCompactJson(big)
  log(`B22: 100k ${Math.round(ref.ms)} ms exit ${ref.code} peak ${Math.round(ref.maxRssBytes / MB)} MB out ${Math.round(ref.outBytes / MB)} MB; ` +
    `1M ${Math.round(run.ms)} ms exit ${run.code} peak ${Math.round(run.maxRssBytes / MB)} MB out ${Math.round(run.outBytes / MB)} MB${run.err ? `; ${run.err.split('\n')[0]}` : ''}`)
  const ok = run.code === 0 && ref.code === 0
  const ratio = perMB(run, big) / perMB(ref, tenth)
  rows.push({
    id: 'B22',
    what: `compact --json, 1,000,000 messages (${Math.round(inputMB(big))} MB), one process: output bytes per input MB vs 100,000 messages (${ok ? 'completed' : `exit ${run.code}`}; ${Math.round(run.ms / 1000)} s, peak RSS ${Math.round(run.maxRssBytes / MB)} MB)`,
    unit: 'B/MB',
    measured: stat([perMB(run, big)]),
    reference: stat([perMB(ref, tenth)]),
    ratio,
    target: 'completes; ≤ 1.2× (linear)',
    pass: ok && ratio <= 1.2,
  })
  const everyTurn = ['--keep-last', '2', '--compact-after', '3']
  const small = longChatFile(20_000)
  const large = longChatFile(200_000)
  log('B22: compact --json with a pass every turn, 20,000 then 200,000 messages')
  const a = await cliCompactJson(small, everyTurn)
  const b = await cliCompactJson(large, everyTurn)
  log(`B22: every turn 20k ${Math.round(a.ms)} ms exit ${a.code}; 200k ${Math.round(b.ms)} ms exit ${b.code} peak ${Math.round(b.maxRssBytes / MB)} MB out ${Math.round(b.outBytes / MB)} MB${b.err ? `; ${b.err.split('\n')[0]}` : ''}`)
  const per = (r: CliProcessRun, n: number) => r.ms / (n / 1000)
  rows.push({
    id: 'B22',
    what: `compact --json, 200,000 messages with a pass every turn (keep_last 2, compact_after 3): ms per 1,000 messages vs 20,000 (${b.code === 0 ? 'completed' : `exit ${b.code}`}; ${Math.round(b.ms / 1000)} s, peak RSS ${Math.round(b.maxRssBytes / MB)} MB)`,
    unit: 'ms',
    measured: stat([per(b, 200_000)]),
    reference: stat([per(a, 20_000)]),
    ratio: per(b, 200_000) / per(a, 20_000),
    target: '≤ 1.2× (linear)',
    pass: a.code === 0 && b.code === 0 && per(b, 200_000) / per(a, 20_000) <= 1.2,
  })
}

async function onlyRows(ids: readonly string[]): Promise<void> {
  const mid = input(10)
  const sections: [string[], () => Promise<void> | void][] = [
    [['B1', 'B3', 'B4', 'B5', 'B7', 'B10', 'B15'], browserRows],
    [['B11', 'B12'], factsAndSweepRows],
    [['B8'], () => b8(input(BIG))],
    [['B6'], () => b6(input(BIG))],
    [['B14'], b14],
    [['B9'], () => b9(mid)],
    [['B13'], b13],
    [['B18'], b18],
    [['B16'], b16],
    [['B19'], () => b19(mid)],
    [['B22'], b22],
    [['B23'], b23],
    [['B2'], () => b2(SIZES.map(input))],
    [['B20', 'B21'], pageScaleRows],
  ]
  const unknown = ids.filter((id) => !sections.some(([has]) => has.includes(id)))
  if (unknown.length > 0) throw new Error(`--only: no row ${unknown.join(', ')}`)
  for (const [has, run] of sections) if (has.some((id) => ids.includes(id))) await run()
}

// ------------------------------------------------------------------ report
function fmt(n: number): string {
  if (!Number.isFinite(n)) return String(n)
  const a = Math.abs(n)
  return a >= 100 ? String(Math.round(n)) : a >= 10 ? n.toFixed(1) : a >= 1 ? n.toFixed(2) : n.toFixed(3)
}

function table(): string {
  const lines = [
    '| id | what | measured median (min–max) | reference median | ratio | target | result |',
    '| --- | --- | --- | --- | --- | --- | --- |',
  ]
  // Every row, by id number (a stable sort keeps an id's rows in the order they ran).
  const rank = (id: string) => Number(id.slice(1))
  for (const r of [...rows].sort((a, b) => rank(a.id) - rank(b.id))) {
    const m = r.measured
    const range = m.samples.length > 1 ? ` (${fmt(m.min)}–${fmt(m.max)})` : ''
    lines.push(
      `| ${r.id} | ${r.what} | ${fmt(m.median)} ${r.unit}${range} | ${r.reference ? `${fmt(r.reference.median)} ${r.unit}` : '—'} | ${r.reference ? `${fmt(r.ratio)}×` : fmt(r.ratio)} | ${r.target} | ${r.pass ? 'pass' : 'MISS'} |`,
    )
  }
  return lines.join('\n')
}

const started = Date.now()

/** Writes bench/results.json (also after each section, so an interrupted run keeps its rows). */
function save(): string {
  const text = table()
  const results = {
    date: new Date().toISOString(),
    machine: { cores: cpus().length, cpu: cpus()[0]?.model, node: process.version },
    options: { quick: QUICK, runs: RUNS, runsBig: RUNS_BIG, sweeps: SWEEPS, seed: SEED, sizesMB: SIZES, bigMB: BIG },
    seconds: Math.round((Date.now() - started) / 1000),
    rows: rows.map(({ measured, reference, ...r }) => ({
      ...r,
      measured: { ...measured, unit: r.unit },
      reference: reference && { ...reference, unit: r.unit },
    })),
    table: text,
    extra,
  }
  const tmp = join(ROOT, 'bench/results.json.tmp')
  writeFileSync(tmp, `${JSON.stringify(results, null, 2)}\n`)
  copyFileSync(tmp, BROWSER_ONLY || ONLY ? join(OUT, 'results-dev.json') : join(ROOT, 'bench/results.json'))
  rmSync(tmp)
  return text
}

async function main(): Promise<void> {
  mkdirSync(OUT, { recursive: true })
  const files = SIZES.map(input)
  const big = input(BIG)
  const mid = input(10)
  const samples = (JSON.parse(readFileSync(join(ROOT, 'public/samples/index.json'), 'utf8')) as { file: string }[]).map((s) =>
    join(ROOT, 'public/samples', s.file),
  )
  if (ONLY) {
    await onlyRows(ONLY)
    process.stdout.write(`${save()}\n`)
    return
  }
  await browserRows()
  await factsAndSweepRows(true)
  if (BROWSER_ONLY) {
    process.stdout.write(`${save()}\n`)
    return
  }
  save()
  b8(big)
  save()
  b6(big)
  save()
  await b14()
  save()
  await b9(mid)
  save()
  await b13()
  save()
  b18()
  save()
  await b16()
  save()
  await b19(mid)
  save()
  await b2([...samples, ...files])
  const text = save()
  const seconds = Math.round((Date.now() - started) / 1000)
  process.stdout.write(`${text}\n\n${QUICK ? '(quick: the 50 MB rows ran on the 10 MB file)\n' : ''}wrote bench/results.json in ${seconds} s\n`)
}

await main()
