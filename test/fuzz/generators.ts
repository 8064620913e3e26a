/**
 * The fuzz harness's inputs (fast-check arbitraries), shared by `fuzz.test.ts` (`npm test`, small)
 * and `run.ts` (`npm run fuzz`, long):
 * - the corpus: every bundled sample (public/samples) and every format fixture
 *   (test/fixtures/formats), read once, and canonical exports of three samples;
 * - mutants of a corpus file: byte-level damage (flips, truncation, inserted junk, CRLF, BOM) and
 *   structural edits of its JSON / JSONL records (a field deleted or given another type, an item
 *   duplicated, a huge or deep value, an array resampled into a random transcript of the same
 *   shape, strings scrambled);
 * - transcripts for the pipeline: windows of the corpus's imported transcripts with messages
 *   dropped, duplicated, emptied or moved, and random canonical chats (tool pairs, pending calls,
 *   stray results, empty messages, repeated outputs, facts, signed thinking blocks on replies and
 *   on tool calls);
 * - random pipeline configs: any subset of the stages in any order, each param drawn from its
 *   definition (stages/definitions.ts: type, min, max, choices), token triggers included, now and
 *   then a value the engine must find unusable.
 * Every arbitrary is deterministic for a seed, and shrinks to few, small edits.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import fc from 'fast-check'
import { exportTranscript } from '../../src/engine/export'
import { importBytes } from '../../src/engine/formats/index'
import type { CalibrationSetting, Message, PipelineConfig, StageConfig, Transcript } from '../../src/engine/model'
import { STAGE_DEFINITIONS, type StageParamDef } from '../../src/engine/stages/definitions'

/** How big the generated inputs may get: `npm test` runs the small size, `npm run fuzz` the large. */
export interface FuzzSize {
  /** Longest string a "huge value" edit writes (UTF-16 units). */
  hugeChars: number
  /** Deepest nesting a "deep value" edit writes (levels). */
  deepLevels: number
  /** Corpus files above this many bytes are left out (the small size skips the largest samples). */
  maxFileBytes: number
  /** Most edits applied to one mutant. */
  maxEdits: number
  /**
   * The pipeline's token counter: `code points` (one token per code point: cheap, and every
   * promise checked holds for any counter), or `both` (each run draws it or the real o200k_base).
   */
  tokens: 'code points' | 'both'
}

/** `npm test`: a few seconds in all. */
export const SMALL: FuzzSize = { hugeChars: 20_000, deepLevels: 1_200, maxFileBytes: 200_000, maxEdits: 3, tokens: 'code points' }

/** `npm run fuzz`: every file, values up to a megabyte and 5,000 levels, the real tokenizer too. */
export const LARGE: FuzzSize = { hugeChars: 1_000_000, deepLevels: 5_000, maxFileBytes: Infinity, maxEdits: 8, tokens: 'both' }

/** One file of the corpus. `container` is how the structural edits read it. */
export interface CorpusFile {
  /** Its path from the repository root, e.g. `public/samples/openai-chat.json`. */
  path: string
  bytes: Uint8Array
  container: 'json' | 'jsonl' | 'text' | 'binary'
}

const ROOT = join(import.meta.dirname, '..', '..')
const CORPUS_DIRS = ['public/samples', 'test/fixtures/formats']

function containerOf(name: string, bytes: Uint8Array): CorpusFile['container'] {
  if (bytes[0] === 0x50 && bytes[1] === 0x4b) return 'binary'
  if (name.endsWith('.jsonl')) return 'jsonl'
  if (/\.(json|traj)$/.test(name)) return 'json'
  return 'text'
}

/** The files of the corpus directories (the samples' index.json is a list of samples, not one). */
const FILES: readonly CorpusFile[] = CORPUS_DIRS.flatMap((dir) =>
  readdirSync(join(ROOT, dir))
    .filter((name) => name !== 'index.json')
    .sort()
    .map((name) => {
      const bytes = new Uint8Array(readFileSync(join(ROOT, dir, name)))
      return { path: `${dir}/${name}`, bytes, container: containerOf(name, bytes) }
    }),
)

/** Samples whose canonical export joins the corpus: the canonical format has no file of its own. */
const CANONICAL_FROM = ['public/samples/openai-chat.json', 'public/samples/anthropic-messages.json', 'public/samples/claude-code.jsonl']

/** A sample imported and exported as canonical JSON (what the canonical importer reads back). */
function canonicalOf(file: CorpusFile): CorpusFile {
  const r = importBytes(file.bytes, { fileName: file.path.slice(file.path.lastIndexOf('/') + 1) })
  if (!r.ok) throw new Error(`${file.path} does not import: ${r.error.message}`)
  const body = JSON.stringify(exportTranscript(r.transcript, 'canonical').body)
  return { path: `${file.path} (canonical export).json`, bytes: new TextEncoder().encode(body), container: 'json' }
}

/** Every sample and format fixture, and canonical exports of a few samples. */
export const CORPUS: readonly CorpusFile[] = [
  ...FILES,
  ...CANONICAL_FROM.map((path) => canonicalOf(FILES.find((f) => f.path === path)!)),
]

/** The corpus files a size allows. */
export function corpusFor(size: FuzzSize): CorpusFile[] {
  return CORPUS.filter((f) => f.bytes.length <= size.maxFileBytes)
}

/** A value of another JSON type than a field usually holds. */
const oddValue = fc.constantFrom<unknown>(
  null, 0, -1, 1.5, 1e308, -0, '', 'x', '\u0000', '\ud800', [], {}, [[]], [null], true, false,
  { role: 'user' }, { type: 'text' }, JSON.parse('{"__proto__":{"polluted":1}}'), { constructor: 'x' },
)

/** Text dropped into a file by a byte-level insert: broken syntax, odd code points, magic numbers. */
const junk = fc.constantFrom(
  '\u0000', '\ud800', '\udfff', '\ufeff', '\u202e', '\r\n', '\r', '\n\n', '{', '}', '[', ']', ',', '"', '\\',
  'null', '"__proto__":{"role":"user"},', '{"__proto__":[]}', '\x1b]0;title\x07', '\x1b[2J',
  '\x1f\x8b\x08', '\x89PNG\r\n\x1a\n', 'PK\x03\x04', '\u00e9\u0301', '😀',
)

/** A string leaf's replacement: empty, control characters, any code points, JSON in a string. */
const scrambled = fc.oneof(
  fc.constant(''),
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.constantFrom('{"a":[1,2,{"b":null}]}', '[]', 'null', '   ', '\n', 'toolu_01', 'call_1', 'user', 'assistant', 'tool'),
)

/**
 * One edit of a corpus file. Positions and picks are naturals taken modulo what the file has, so
 * an edit applies to any file and shrinks towards its start.
 */
type Edit =
  | { kind: 'truncate'; at: number }
  | { kind: 'flip'; at: number; byte: number }
  | { kind: 'insert'; at: number; text: string }
  | { kind: 'crlf' }
  | { kind: 'bom' }
  | { kind: 'delete'; pick: number }
  | { kind: 'retype'; pick: number; value: unknown }
  | { kind: 'duplicate'; pick: number }
  | { kind: 'swap'; pick: number; other: number }
  | { kind: 'huge'; pick: number; chars: number; shape: 'same' | 'prose' | 'json' }
  | { kind: 'deep'; pick: number; levels: number; shape: 'array' | 'object' | 'string' }
  | { kind: 'resample'; pick: number; order: number[] }
  | { kind: 'scramble'; pick: number; text: string }

/** The edits of one size: byte-level ones for every file, structural ones for JSON and JSONL. */
function editArb(size: FuzzSize): fc.Arbitrary<Edit> {
  const pick = fc.nat()
  return fc.oneof(
    fc.record({ kind: fc.constant('truncate' as const), at: fc.nat() }),
    fc.record({ kind: fc.constant('flip' as const), at: fc.nat(), byte: fc.integer({ min: 0, max: 255 }) }),
    fc.record({ kind: fc.constant('insert' as const), at: fc.nat(), text: junk }),
    fc.constant({ kind: 'crlf' as const }),
    fc.constant({ kind: 'bom' as const }),
    fc.record({ kind: fc.constant('delete' as const), pick }),
    fc.record({ kind: fc.constant('retype' as const), pick, value: oddValue }),
    fc.record({ kind: fc.constant('duplicate' as const), pick }),
    fc.record({ kind: fc.constant('swap' as const), pick, other: fc.nat() }),
    fc.record({
      kind: fc.constant('huge' as const),
      pick,
      chars: fc.integer({ min: 1, max: size.hugeChars }),
      shape: fc.constantFrom('same' as const, 'prose' as const, 'json' as const),
    }),
    fc.record({
      kind: fc.constant('deep' as const),
      pick,
      levels: fc.integer({ min: 1, max: size.deepLevels }),
      shape: fc.constantFrom('array' as const, 'object' as const, 'string' as const),
    }),
    fc.record({ kind: fc.constant('resample' as const), pick, order: fc.array(fc.nat(), { maxLength: 12 }) }),
    fc.record({ kind: fc.constant('scramble' as const), pick, text: scrambled }),
  )
}

/** A mutant: a corpus file and the edits made to it, in order. */
export interface Mutant {
  file: CorpusFile
  edits: Edit[]
  /** The name it is imported under instead of its own (`.jsonl` forces JSONL, `.yaml` YAML…). */
  name?: string
}

/** Names a mutant may be imported under instead of its own: each selects a different reading. */
const renamed = fc.option(fc.constantFrom('x.json', 'x.jsonl', 'x.ndjson', 'x.md', 'x.yaml', 'x.traj', 'x.eval', 'x.zip', 'x'), {
  nil: undefined,
  freq: 4,
})

/** Mutants of the corpus files a size allows; shrinks to the first file and a single edit. */
export function mutantArb(size: FuzzSize): fc.Arbitrary<Mutant> {
  return fc
    .record({
      file: fc.constantFrom(...corpusFor(size)),
      edits: fc.array(editArb(size), { minLength: 1, maxLength: size.maxEdits }),
      name: renamed,
    })
    .map(({ name, ...m }) => (name === undefined ? m : { ...m, name }))
}

/**
 * A random transcript in a corpus file's shape: several of its arrays resampled (items dropped,
 * repeated, reordered) and several of its strings replaced, nothing else touched.
 */
export function reshapedArb(size: FuzzSize): fc.Arbitrary<Mutant> {
  const structured = corpusFor(size).filter((f) => f.container === 'json' || f.container === 'jsonl')
  const edit: fc.Arbitrary<Edit> = fc.oneof(
    fc.record({ kind: fc.constant('resample' as const), pick: fc.nat(), order: fc.array(fc.nat(), { maxLength: 12 }) }),
    fc.record({ kind: fc.constant('scramble' as const), pick: fc.nat(), text: scrambled }),
  )
  return fc.record({
    file: fc.constantFrom(...structured),
    edits: fc.array(edit, { minLength: 1, maxLength: 2 * size.maxEdits }),
  })
}

/** What a mutant is when printed in a counterexample: the file and its edits, values cut short. */
export function describeMutant(m: Mutant): string {
  const edits = m.edits.map((e) =>
    JSON.stringify(e, (_, v: unknown) => (typeof v === 'string' && v.length > 60 ? `${v.slice(0, 60)}…` : v)),
  )
  return `${m.file.path}${m.name !== undefined ? ` named ${m.name}` : ''} with ${edits.join(', ')}`
}

const decoder = new TextDecoder('utf-8')
const encoder = new TextEncoder()

/** A JSON container of a structural edit: one value (JSON) or the file's lines (JSONL). */
type Doc = { kind: 'json'; root: unknown } | { kind: 'jsonl'; lines: unknown[] }

/** A line of a JSONL file that is not JSON, kept as it was. */
class RawLine {
  constructor(readonly text: string) {}
}

function parseDoc(file: CorpusFile, text: string): Doc | undefined {
  if (file.container === 'json') {
    try {
      return { kind: 'json', root: JSON.parse(text) as unknown }
    } catch {
      return undefined
    }
  }
  if (file.container === 'jsonl') {
    const lines = text.split('\n').filter((l) => l.trim() !== '')
    return {
      kind: 'jsonl',
      lines: lines.map((l) => {
        try {
          return JSON.parse(l) as unknown
        } catch {
          return new RawLine(l)
        }
      }),
    }
  }
  return undefined
}

function printDoc(doc: Doc): string {
  const deep: string[] = []
  const write = (value: unknown) =>
    JSON.stringify(value, (_, v: unknown) => (v instanceof Deep ? `\u0000deep${deep.push(v.text) - 1}\u0000` : v)).replace(
      /"\\u0000deep(\d+)\\u0000"/g,
      (_, i: string) => deep[Number(i)]!,
    )
  if (doc.kind === 'json') return write(doc.root)
  return doc.lines.map((l) => (l instanceof RawLine ? l.text : write(l))).join('\n') + '\n'
}

/** A place in a document: its container (object or array) and the key there. */
interface Slot {
  parent: Record<string, unknown> | unknown[]
  key: string | number
}

/** The slots of a document in a fixed order (breadth first), at most `limit` of them. */
function slotsOf(doc: Doc, limit = 50_000): Slot[] {
  const out: Slot[] = []
  const queue: (Record<string, unknown> | unknown[])[] = [doc.kind === 'json' ? [doc.root] : doc.lines]
  for (let q = 0; q < queue.length && out.length < limit; q++) {
    const parent = queue[q]!
    const keys: (string | number)[] = Array.isArray(parent) ? parent.map((_, i) => i) : Object.keys(parent)
    for (const key of keys) {
      out.push({ parent, key })
      const value = (parent as Record<string | number, unknown>)[key]
      if (value !== null && typeof value === 'object' && !(value instanceof RawLine) && !(value instanceof Deep)) {
        queue.push(value as Record<string, unknown> | unknown[])
      }
    }
  }
  // The JSON root sits in a one-item array of its own: skip that slot (index 0 of queue[0]).
  return doc.kind === 'json' ? out.slice(1) : out
}

/** A copy of a document value (a deep value is shared: it is text, never edited). */
const clone = (v: unknown): unknown => (v instanceof Deep ? v : structuredClone(v))

const get = (s: Slot) => (s.parent as Record<string | number, unknown>)[s.key]
const set = (s: Slot, v: unknown) => {
  ;(s.parent as Record<string | number, unknown>)[s.key] = v
}

/**
 * A deep value of `levels` levels, as nested arrays, objects, or JSON text inside a string. The
 * nested ones stay text until the document is written (`printDoc`): a recursive clone or stringify
 * of thousands of levels would overflow the harness's own stack.
 */
class Deep {
  constructor(readonly text: string) {}
}

function deepValue(levels: number, shape: 'array' | 'object' | 'string'): unknown {
  const text =
    shape === 'object' ? `${'{"a":'.repeat(levels)}0${'}'.repeat(levels)}` : `${'['.repeat(levels)}${']'.repeat(levels)}`
  return shape === 'string' ? text : new Deep(text)
}

/** A long string: one character repeated, prose, or a JSON list (what slim shortens). */
function hugeValue(chars: number, shape: 'same' | 'prose' | 'json'): string {
  if (shape === 'same') return 'A'.repeat(chars)
  if (shape === 'prose') return 'the agent reads a file and then runs the tests. '.repeat(Math.ceil(chars / 48)).slice(0, chars)
  const items: string[] = []
  let n = 2
  for (let i = 0; n < chars; i++) {
    const item = `{"id":${i},"path":"src/f${i}.ts"}`
    items.push(item)
    n += item.length + 1
  }
  return `[${items.join(',')}]`
}

function applyStructural(doc: Doc, e: Edit): void {
  const slots = slotsOf(doc)
  if (slots.length === 0 || !('pick' in e)) return
  const slot = slots[e.pick % slots.length]!
  switch (e.kind) {
    case 'delete':
      if (Array.isArray(slot.parent)) slot.parent.splice(slot.key as number, 1)
      else delete slot.parent[slot.key as string]
      return
    case 'retype':
      set(slot, structuredClone(e.value))
      return
    case 'duplicate':
      if (Array.isArray(slot.parent)) slot.parent.splice(slot.key as number, 0, clone(get(slot)))
      else set(slot, [get(slot), clone(get(slot))])
      return
    case 'swap': {
      if (!Array.isArray(slot.parent) || slot.parent.length < 2) return
      const other = e.other % slot.parent.length
      const a = slot.parent[slot.key as number]
      slot.parent[slot.key as number] = slot.parent[other]
      slot.parent[other] = a
      return
    }
    case 'huge':
      set(slot, hugeValue(e.chars, e.shape))
      return
    case 'deep':
      set(slot, deepValue(e.levels, e.shape))
      return
    case 'resample': {
      // The nearest array at or above the pick: its items re-drawn (with repeats) in a new order.
      const arrays = slots.filter((s) => Array.isArray(get(s)))
      const list: unknown[] | undefined =
        doc.kind === 'jsonl' && e.pick % 2 === 0 ? doc.lines : (arrays[e.pick % Math.max(1, arrays.length)] && (get(arrays[e.pick % arrays.length]!) as unknown[]))
      if (!list || list.length === 0) return
      const drawn = e.order.map((i) => clone(list[i % list.length]))
      list.splice(0, list.length, ...drawn)
      return
    }
    case 'scramble': {
      const strings = slots.filter((s) => typeof get(s) === 'string')
      if (strings.length === 0) return
      set(strings[e.pick % strings.length]!, e.text)
      return
    }
  }
}

function applyBytes(bytes: Uint8Array, e: Edit): Uint8Array {
  const at = 'at' in e ? e.at % (bytes.length + 1) : 0
  switch (e.kind) {
    case 'truncate':
      return bytes.slice(0, at)
    case 'flip': {
      const out = bytes.slice()
      if (at < out.length) out[at] = e.byte
      return out
    }
    case 'insert': {
      const text = encoder.encode(e.text)
      const out = new Uint8Array(bytes.length + text.length)
      out.set(bytes.subarray(0, at))
      out.set(text, at)
      out.set(bytes.subarray(at), at + text.length)
      return out
    }
    case 'crlf':
      return encoder.encode(decoder.decode(bytes).replace(/\r?\n/g, '\r\n'))
    case 'bom':
      return new Uint8Array([0xef, 0xbb, 0xbf, ...bytes])
    default:
      return bytes
  }
}

/**
 * The mutant's bytes: the edits applied in order. A structural edit of a JSON/JSONL file parses
 * it (a file already broken by a byte edit stays as it is), edits the value and writes it back
 * compactly; a structural edit of a text or binary file does nothing.
 */
export function mutantBytes(m: Mutant): Uint8Array {
  let bytes = m.file.bytes
  for (const e of m.edits) {
    if ('at' in e || e.kind === 'crlf' || e.kind === 'bom') {
      bytes = applyBytes(bytes, e)
      continue
    }
    try {
      const doc = parseDoc(m.file, decoder.decode(bytes))
      if (!doc) continue
      applyStructural(doc, e)
      bytes = encoder.encode(printDoc(doc))
    } catch (error) {
      // A value nested too deep for this harness's own parse or stringify: the edit is skipped.
      if (!(error instanceof RangeError)) throw error
    }
  }
  return bytes
}

/** The file name a mutant is imported under: its `name`, else its corpus name (`.jsonl` selects JSONL). */
export function mutantName(m: Mutant): string {
  if (m.name !== undefined) return m.name
  return m.file.path.slice(m.file.path.lastIndexOf('/') + 1)
}

// ---------------------------------------------------------------------------------------------
// Transcripts for the pipeline

/** The corpus files a size allows, imported once (those that import). */
const importedCache = new Map<FuzzSize, { path: string; transcript: Transcript }[]>()

function importedCorpus(size: FuzzSize): { path: string; transcript: Transcript }[] {
  let out = importedCache.get(size)
  if (!out) {
    out = []
    for (const f of corpusFor(size)) {
      const r = importBytes(f.bytes, { fileName: mutantName({ file: f, edits: [] }) })
      if (r.ok) out.push({ path: f.path, transcript: r.transcript })
    }
    importedCache.set(size, out)
  }
  return out
}

/** One change of a transcript's messages before the pipeline sees it. */
type MessageEdit =
  | { kind: 'drop'; pick: number }
  | { kind: 'duplicate'; pick: number }
  | { kind: 'empty'; pick: number; content: '' | null | 'parts' }
  | { kind: 'move'; pick: number; to: number }

const messageEditArb: fc.Arbitrary<MessageEdit> = fc.oneof(
  fc.record({ kind: fc.constant('drop' as const), pick: fc.nat() }),
  fc.record({ kind: fc.constant('duplicate' as const), pick: fc.nat() }),
  fc.record({ kind: fc.constant('empty' as const), pick: fc.nat(), content: fc.constantFrom('' as const, null, 'parts' as const) }),
  fc.record({ kind: fc.constant('move' as const), pick: fc.nat(), to: fc.nat() }),
)

/** A pipeline input: where it came from (for counterexamples) and the transcript. */
export interface PipelineInput {
  from: string
  transcript: Transcript
}

function editMessages(messages: Message[], edits: readonly MessageEdit[]): Message[] {
  const out = [...messages]
  let copies = 0
  for (const e of edits) {
    if (out.length === 0) break
    const i = e.pick % out.length
    const m = out[i]!
    switch (e.kind) {
      case 'drop':
        out.splice(i, 1)
        break
      case 'duplicate':
        out.splice(i + 1, 0, { ...structuredClone(m), id: `${m.id}~copy${copies++}` })
        break
      case 'empty':
        out[i] = { ...m, content: e.content === 'parts' ? [] : e.content }
        break
      case 'move':
        out.splice(i, 1)
        out.splice(e.to % (out.length + 1), 0, m)
        break
    }
  }
  return out.map((m, index) => (m.index === index ? m : { ...m, index }))
}

/** A window of an imported corpus transcript (at most 60 messages) with a few message edits. */
function corpusWindowArb(size: FuzzSize): fc.Arbitrary<PipelineInput> {
  const imported = importedCorpus(size)
  return fc
    .record({
      file: fc.nat(imported.length - 1),
      start: fc.nat(),
      length: fc.noBias(fc.integer({ min: 1, max: 60 })),
      edits: fc.array(messageEditArb, { maxLength: 3 }),
    })
    .map(({ file, start, length, edits }) => {
      const { path, transcript } = imported[file]!
      const from = start % transcript.messages.length
      const window = transcript.messages.slice(from, from + length)
      const messages = editMessages(window, edits)
      const desc = `${path} messages ${from}–${from + window.length - 1}${edits.length ? ` with ${JSON.stringify(edits)}` : ''}`
      // Recorded compactions and cleared results point into the whole file: left out of a window.
      const { recordedCompactions: _r, clearedToolResults: _c, branches: _b, ...rest } = transcript
      return { from: desc, transcript: { ...rest, messages, recordedCompactions: [] } }
    })
}

/** Outputs of the random chats: repeats (dedupe), lists (slim), long (prune), tiny, errors. */
const TOOL_OUTPUTS = [
  'catalog page 1\n' + 'row of items\n'.repeat(40),
  JSON.stringify({ total: 40, items: Array.from({ length: 40 }, (_, i) => ({ id: i, name: `item ${i}` })), next: 'c2' }),
  'Error: ENOENT: no such file or directory, open src/missing.ts\n    at open (node:fs)',
  'ok',
  '',
  'x'.repeat(300),
  'build log line\n'.repeat(30),
]
const TEXTS = [
  'Please fix order ORD-58213 for 94107.',
  "Don't change quote_for() in src/quote/api.py",
  'Ship to alice@example.com by 2024-05-03, budget $1,250.',
  'Done. I will deploy after review.',
  'ok',
  '',
  '[summary] Earlier we fixed ORD-58213 and kept src/quote/api.py.',
]

interface ChatStep {
  kind: 'user' | 'assistant' | 'calls' | 'stray' | 'late' | 'system' | 'thinking'
  text: number
  calls: number[]
  answered: boolean[]
}

const chatStepArb: fc.Arbitrary<ChatStep> = fc.record({
  kind: fc.constantFrom('user', 'user', 'assistant', 'calls', 'calls', 'stray', 'late', 'system', 'thinking'),
  text: fc.nat(TEXTS.length - 1),
  calls: fc.array(fc.nat(TOOL_OUTPUTS.length), { minLength: 1, maxLength: 3 }),
  answered: fc.array(fc.boolean(), { minLength: 3, maxLength: 3 }),
})

/**
 * A canonical chat of random steps: every kind of message and tool pairing, valid or not. One
 * tool output, and that call's arguments, are JSON text nested as deep as the size allows (what
 * slim and the fact scan parse).
 */
function chatArb(size: FuzzSize): fc.Arbitrary<PipelineInput> {
  const deep = `{"items":${'['.repeat(size.deepLevels)}${']'.repeat(size.deepLevels)}}`
  const outputs = [...TOOL_OUTPUTS, deep]
  const args = (body: number) => (body === TOOL_OUTPUTS.length ? deep : '{"path":"src/a.ts"}')
  const build = ({ format, steps }: { format: 'openai-chat' | 'anthropic-messages' | 'claude-code'; steps: ChatStep[] }) => {
    const messages: Message[] = []
    const push = (m: Omit<Message, 'id' | 'index' | 'source'>) =>
      messages.push({ ...m, id: `m${messages.length}`, index: messages.length, source: { format } } as Message)
    let call = 0
    /** Calls made without a result yet, oldest first: a `late` step answers the oldest (a long-running call). */
    const open: string[] = []
    for (const s of steps) {
      const text = TEXTS[s.text]!
      if (s.kind === 'user' || s.kind === 'system') push({ role: s.kind, content: text })
      else if (s.kind === 'assistant') push({ role: 'assistant', content: text })
      else if (s.kind === 'thinking') {
        push({ role: 'assistant', content: [{ type: 'thinking', variant: 'thinking', text: 'Let me think.', signature: 'sig' }, { type: 'text', text }] })
      } else if (s.kind === 'stray') push({ role: 'tool', content: 'late output', toolCallId: `gone${call++}`, toolName: 'bash' })
      else if (s.kind === 'late') {
        const id = open.shift()
        if (id) push({ role: 'tool', content: `job ${id} finished: ${TOOL_OUTPUTS[s.text % TOOL_OUTPUTS.length]!}`, toolCallId: id, toolName: 'read' })
      } else {
        const ids = s.calls.map(() => `c${call++}`)
        // Every other tool-call step carries a signed thinking block (the provider's rules then apply).
        const content = s.text % 2 === 0 ? [{ type: 'thinking' as const, variant: 'thinking' as const, text: `Plan ${call}.`, signature: `sig${call}` }] : null
        push({ role: 'assistant', content, toolCalls: ids.map((id, k) => ({ id, name: 'read', arguments: args(s.calls[k]!) })) })
        s.calls.forEach((body, k) => {
          if (s.answered[k] !== false) push({ role: 'tool', content: outputs[body]!, toolCallId: ids[k]!, toolName: 'read' })
          else open.push(ids[k]!)
        })
      }
    }
    const transcript: Transcript = { format, messages, recordedCompactions: [], warnings: [] }
    return { from: `random ${format} chat ${JSON.stringify(steps)}`, transcript }
  }
  return fc
    .record({
      format: fc.constantFrom('openai-chat' as const, 'anthropic-messages' as const, 'claude-code' as const),
      steps: fc.array(chatStepArb, { minLength: 1, maxLength: 40, size: 'max' }),
    })
    .map(build)
}

/**
 * A mutant that imports (huge and deep values, retyped fields, resampled arrays reach the
 * pipeline this way), its first 80 messages; a mutant that does not import is left out.
 */
function importedMutantArb(size: FuzzSize): fc.Arbitrary<PipelineInput> {
  return mutantArb(size)
    .map((m): PipelineInput | undefined => {
      const r = importBytes(mutantBytes(m), { fileName: mutantName(m) })
      if (!r.ok) return undefined
      const { recordedCompactions: _r, clearedToolResults: _c, branches: _b, ...rest } = r.transcript
      const messages = r.transcript.messages.slice(0, 80)
      return { from: `${describeMutant(m)}, imported, messages 0–${messages.length - 1}`, transcript: { ...rest, messages, recordedCompactions: [] } }
    })
    .filter((x): x is PipelineInput => x !== undefined)
}

/** Pipeline inputs: random chats, windows of the corpus's transcripts with message edits, imported mutants. */
export function pipelineInputArb(size: FuzzSize): fc.Arbitrary<PipelineInput> {
  return fc.oneof({ arbitrary: chatArb(size), weight: 2 }, { arbitrary: corpusWindowArb(size), weight: 2 }, { arbitrary: importedMutantArb(size), weight: 1 })
}

// ---------------------------------------------------------------------------------------------
// Pipeline configs

const TOOL_NAMES = ['read', 'bash', 'Bash', 'Read', 'grep']

/** A value for one param, from its definition; with `unusable`, now and then one the engine must refuse. */
function paramValueArb(p: StageParamDef, unusable: boolean): fc.Arbitrary<unknown> {
  switch (p.type) {
    case 'flag':
      return fc.boolean()
    case 'choice':
      return fc.constantFrom(...(p.choices ?? []))
    case 'names':
      return fc.subarray(TOOL_NAMES)
    case 'text':
      return fc.constantFrom('', 'Keep every order number.', 'Summarize in one line.')
    case 'count': {
      const min = p.min ?? 0
      const max = p.max ?? (p.unit === 'tokens' ? 3_000 : 12)
      const usable = p.fraction && max <= 1
        ? fc.double({ min, max, noNaN: true })
        : fc.integer({ min: Math.ceil(min), max: Math.max(Math.ceil(min), Math.floor(max)) })
      const edges = fc.constantFrom(min, max, ...(typeof p.default === 'number' ? [p.default] : []))
      const arbs = [{ arbitrary: usable, weight: 6 }, { arbitrary: edges, weight: 2 }]
      if (unusable) arbs.push({ arbitrary: fc.constantFrom(min - 1, max + 1, Number.NaN, -1), weight: 2 })
      return fc.oneof(...arbs)
    }
  }
}

/** One stage's params: each of its params present or absent. */
function paramsArb(params: readonly StageParamDef[], unusable: boolean): fc.Arbitrary<Record<string, unknown>> {
  const entries = params.map((p) => fc.option(paramValueArb(p, unusable).map((v) => [p.key, v] as const), { nil: undefined }))
  return fc.tuple(...entries).map((kv) => Object.fromEntries(kv.filter((x) => x !== undefined)))
}

/** Per stage: its config with usable params, and with some perhaps unusable. */
const stageArbs = STAGE_DEFINITIONS.map((d) => {
  const config = (unusable: boolean) =>
    paramsArb(d.params, unusable).map((params) => ({ id: d.id, enabled: true, params }) as StageConfig)
  return fc.oneof({ arbitrary: config(false), weight: 9 }, { arbitrary: config(true), weight: 1 })
})

const calibrationArb: fc.Arbitrary<CalibrationSetting | undefined> = fc.oneof(
  fc.constant(undefined),
  fc.constant({ mode: 'off' as const }),
  fc.constant({ mode: 'auto' as const }),
  fc.record({ mode: fc.constant('manual' as const), overhead: fc.integer({ min: 0, max: 5000 }), ratio: fc.double({ min: 0.5, max: 2.5, noNaN: true }) }),
)

/**
 * A pipeline config: a random subset of the stages in a random order, each with random params,
 * the offline extractive summarizer, a random window and calibration.
 */
export const configArb: fc.Arbitrary<PipelineConfig> = fc
  .record({
    stages: fc.shuffledSubarray(stageArbs.map((_, i) => i), { minLength: 1 }).chain((ids) => fc.tuple(...ids.map((i) => stageArbs[i]!))),
    window: fc.option(fc.integer({ min: 1000, max: 400_000 }), { nil: undefined }),
    calibration: calibrationArb,
  })
  .map(({ stages, window, calibration }) => ({
    encoding: 'o200k_base' as const,
    summarizer: 'extractive' as const,
    stages,
    ...(window !== undefined ? { window } : {}),
    ...(calibration ? { calibration } : {}),
  }))
