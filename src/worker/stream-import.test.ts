import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { importTranscript } from '../engine/formats'
import type { ImportProgress } from './protocol'
import { lineBlob } from '../../test/line-blob'
import type { Transcript } from '../engine/model'
import { textsToCount } from '../engine/tokens/count'
import { HEAD_MIN_FILE_BYTES, HEAD_RECORDS, IMPORT_SUPERSEDED, importBlob, PART_RECORDS, PROGRESS_INTERVAL_MS } from './stream-import'

interface SampleEntry {
  file: string
}

const samples = JSON.parse(readFileSync('public/samples/index.json', 'utf8')) as SampleEntry[]
const read = (file: string) => readFileSync(`public/samples/${file}`, 'utf8')

/** A Blob whose stream yields the given byte chunks exactly (Node's own Blob picks its sizes). */
function chunkedBlob(bytes: Uint8Array<ArrayBuffer>, chunkSize: number): Blob {
  return new (class extends Blob {
    override stream() {
      return new ReadableStream<Uint8Array<ArrayBuffer>>({
        start(controller) {
          for (let i = 0; i < bytes.length; i += chunkSize) controller.enqueue(bytes.slice(i, i + chunkSize))
          controller.close()
        },
      })
    }
  })([bytes])
}

/** A clock that advances by `step` ms on every reading. */
function clock(step: number) {
  let t = 0
  return () => (t += step)
}

describe('importBlob', () => {
  it.each(samples.map((s) => s.file))('imports %s exactly like a text import', async (file) => {
    const text = read(file)
    const streamed = await importBlob(new Blob([text]), file)
    expect(streamed).toEqual(importTranscript(text, { fileName: file }))
  })

  it.each([
    'claude-code-2.1-parallel-tools.jsonl',
    'claude-code-2.1-edit-retry.jsonl',
    'claude-code-two-sessions.jsonl',
    'claude-code-web-loglines.json',
  ])('imports the fixture %s streamed exactly like a text import', async (file) => {
    const text = readFileSync(`test/fixtures/formats/${file}`, 'utf8')
    const expected = importTranscript(text, { fileName: file })
    expect(expected).toMatchObject({ ok: true, transcript: { format: 'claude-code' } })
    expect(await importBlob(chunkedBlob(new TextEncoder().encode(text), 777), file)).toEqual(expected)
    // Without a telling name the head decides, and the result is the same.
    expect(await importBlob(new Blob([text]), 'session')).toEqual(importTranscript(text))
  })

  it('parses JSONL incrementally, reporting bytes and records, with chunks split mid-character', async () => {
    const text = read('claude-code.jsonl')
    const bytes = new TextEncoder().encode(text)
    const reports: ImportProgress[] = []
    // 97-byte chunks split multi-byte characters; a clock that always moves reports every chunk.
    const result = await importBlob(chunkedBlob(bytes, 97), 'claude-code.jsonl', {
      onProgress: (p) => reports.push(p),
      now: clock(PROGRESS_INTERVAL_MS),
    })
    expect(result).toEqual(importTranscript(text, { fileName: 'claude-code.jsonl' }))
    const reading = reports.filter((p) => p.phase === 'reading')
    expect(reading[0]).toEqual({ phase: 'reading', bytes: 0, totalBytes: bytes.length })
    expect(reading.at(-1)).toMatchObject({ bytes: bytes.length, totalBytes: bytes.length })
    for (let i = 1; i < reading.length; i++) {
      expect(reading[i]!.bytes).toBeGreaterThanOrEqual(reading[i - 1]!.bytes)
      expect(reading[i]!.records ?? 0).toBeGreaterThanOrEqual(reading[i - 1]!.records ?? 0)
    }
    // Every line of the sample is a JSON object: 69 records by the end.
    expect(reading.at(-1)?.records).toBe(69)
    expect(reports.at(-1)).toEqual({ phase: 'building', bytes: bytes.length, totalBytes: bytes.length, records: 69 })
  })

  it('reports at most once per interval, plus the first, the last and the building report', async () => {
    const bytes = new TextEncoder().encode(read('codex-rollout.jsonl'))
    const reports: ImportProgress[] = []
    await importBlob(chunkedBlob(bytes, 64), 'codex-rollout.jsonl', {
      onProgress: (p) => reports.push(p),
      now: () => 5, // time stands still: only the forced reports get through
    })
    expect(reports.map((p) => p.phase)).toEqual(['reading', 'reading', 'building'])
    expect(reports.map((p) => p.bytes)).toEqual([0, bytes.length, bytes.length])
  })

  it('recognizes JSONL by content when the name does not say so', async () => {
    const text = read('codex-rollout.jsonl')
    const reports: ImportProgress[] = []
    const result = await importBlob(new Blob([text]), 'rollout.json', { onProgress: (p) => reports.push(p) })
    expect(result).toEqual(importTranscript(text, { fileName: 'rollout.json' }))
    expect(reports.at(-1)?.records).toBeGreaterThan(0)
  })

  it('gives byte progress without records for a JSON document', async () => {
    const text = read('openai-chat.json')
    const reports: ImportProgress[] = []
    const size = new TextEncoder().encode(text).length
    await importBlob(new Blob([text]), 'openai-chat.json', { onProgress: (p) => reports.push(p) })
    expect(reports.at(-1)).toEqual({ phase: 'building', bytes: size, totalBytes: size })
    expect(reports.every((p) => p.records === undefined)).toBe(true)
  })

  it('keeps the engine error for JSONL of an unknown format, and half-written last lines', async () => {
    const unknown = '{"kind":"a"}\n{"kind":"b"}\n'
    expect(await importBlob(new Blob([unknown]), 'x.jsonl')).toEqual(importTranscript(unknown, { fileName: 'x.jsonl' }))
    const cut = read('claude-code.jsonl').trimEnd()
    const truncated = cut.slice(0, cut.lastIndexOf('\n') + 40)
    const result = await importBlob(new Blob([truncated]), 'cut.jsonl')
    expect(result).toEqual(importTranscript(truncated, { fileName: 'cut.jsonl' }))
    if (!result.ok) throw new Error(result.error.message)
    // claude-code.jsonl has 69 lines: the cut one is the last.
    expect(result.transcript.warnings[0]).toBe(
      'line 69: half-written last line (it ends unexpectedly; the session may still be being written), skipped',
    )
    // Sniffed by content (no .jsonl name): the same engine error as a text import.
    expect(await importBlob(new Blob([unknown]), 'x.txt')).toEqual(importTranscript(unknown, { fileName: 'x.txt' }))
  })

  it('returns an error, never throws, when the file cannot be read', async () => {
    const broken = new (class extends Blob {
      override stream() {
        return new ReadableStream<Uint8Array<ArrayBuffer>>({ pull: (c) => c.error(new Error('permission revoked')) })
      }
    })(['x'])
    expect(await importBlob(broken, 'gone.jsonl')).toEqual({
      ok: false,
      error: { message: 'could not read the file: permission revoked' },
    })
  })

  it('reads an empty file as the engine does', async () => {
    expect(await importBlob(new Blob([]), 'empty.json')).toEqual(importTranscript('', { fileName: 'empty.json' }))
  })

  /**
   * `copies` copies of the 184 KB, 69-record Claude Code sample, each its own root (uuids
   * suffixed) in one session (sessionId kept): the importer's main line is the last copy.
   */
  const sampleCopies = (copies: number) => {
    const sample = read('claude-code.jsonl')
    return Array.from({ length: copies }, (_, k) =>
      sample.replace(/(?<!"sessionId":)"([0-9a-f]{8}-[0-9a-f-]{27})"/g, `"$1-${k}"`),
    ).join('')
  }
  const sampleBytes = read('claude-code.jsonl').length

  it('hands a large JSONL file\'s head to onHead once, while reading, from the first records only (B10)', async () => {
    // Past HEAD_MIN_FILE_BYTES.
    const text = sampleCopies(Math.ceil(HEAD_MIN_FILE_BYTES / sampleBytes) + 1)
    const bytes = new TextEncoder().encode(text)
    const events: string[] = []
    const heads: Transcript[] = []
    const result = await importBlob(chunkedBlob(bytes, 64 * 1024), 'big.jsonl', {
      onProgress: (p) => events.push(p.phase),
      onHead: (t) => {
        events.push('head')
        heads.push(t)
      },
      now: clock(PROGRESS_INTERVAL_MS),
    })
    if (!result.ok) throw new Error(result.error.message)
    expect(heads).toHaveLength(1)
    // While reading: after some reading reports and before the building phase.
    expect(events.indexOf('head')).toBeGreaterThan(0)
    expect(events.indexOf('head')).toBeLessThan(events.indexOf('building'))
    const head = heads[0] as Transcript
    // At least HEAD_RECORDS records were read, fewer than the whole file (69 records per copy).
    expect(head.messages.length).toBeGreaterThan(0)
    expect(head.messages.length).toBeLessThan(result.transcript.messages.length)
    const lines = text.split('\n').filter((l) => l.trim() !== '')
    expect(lines.length).toBeGreaterThan(HEAD_RECORDS)
    // The head is the import of a prefix of the file: its first message is the file's first.
    expect(head.messages[0]?.content).toEqual(result.transcript.messages[0]?.content)
    expect(head.messages[0]?.role).toBe(result.transcript.messages[0]?.role)
  })

  it('hands a large JSONL file to onPart every PART_RECORDS records while reading, for counting ahead (B3)', async () => {
    // 24 copies of the 69-record sample: 1,656 records, two parts of ≥ 600.
    const text = sampleCopies(24)
    const events: string[] = []
    const parts: Transcript[] = []
    const result = await importBlob(chunkedBlob(new TextEncoder().encode(text), 64 * 1024), 'big.jsonl', {
      onProgress: (p) => events.push(p.phase),
      onPart: (t) => {
        events.push('part')
        parts.push(t)
      },
      now: clock(PROGRESS_INTERVAL_MS),
    })
    if (!result.ok) throw new Error(result.error.message)
    const records = text.split('\n').filter((l) => l.trim() !== '').length
    expect(records).toBe(24 * 69)
    expect(parts).toHaveLength(Math.floor(records / PART_RECORDS))
    expect(events.lastIndexOf('part')).toBeLessThan(events.indexOf('building'))
    // The parts are consecutive pieces of the file: their texts are the whole import's texts.
    const whole = textsToCount(result.transcript.messages, result.transcript.tools)
    const ahead = new Set<string>()
    for (const part of parts) textsToCount(part.messages, part.tools, ahead)
    expect([...ahead].filter((t) => !whole.has(t))).toEqual([])
    expect(ahead.size).toBeGreaterThan(0)
  })

  it('imports the whole file even when the work on a part fails', async () => {
    const text = sampleCopies(Math.ceil(HEAD_MIN_FILE_BYTES / sampleBytes) + 8)
    let calls = 0
    const result = await importBlob(chunkedBlob(new TextEncoder().encode(text), 64 * 1024), 'big.jsonl', {
      onPart: () => {
        calls++
        throw new Error('counting ahead failed')
      },
    })
    expect(calls).toBeGreaterThan(0)
    expect(result).toEqual(importTranscript(text, { fileName: 'big.jsonl' }))
  })

  it('gives no head for a file under HEAD_MIN_FILE_BYTES', async () => {
    const text = read('claude-code.jsonl')
    const heads: Transcript[] = []
    await importBlob(new Blob([text]), 'claude-code.jsonl', { onHead: (t) => heads.push(t) })
    expect(heads).toEqual([])
  })
})

describe('importBlob superseded by a newer import', () => {
  // The Claude Code sample, one line per read.
  const text = read('claude-code.jsonl')
  const lines = text.split(/(?<=\n)/)

  it('cancels its stream after the piece it is reading and answers IMPORT_SUPERSEDED', async () => {
    const { blob, seen } = lineBlob(lines)
    // Superseded once the first line is read: no other line is asked for.
    const out = await importBlob(blob, 'claude-code.jsonl', { superseded: () => seen.pulls >= 1 })
    expect(out).toEqual({ ok: false, error: { message: IMPORT_SUPERSEDED } })
    expect(seen).toEqual({ pulls: 1, cancelled: true })
  })

  it('reads every line of a file no newer import supersedes', async () => {
    const { blob, seen } = lineBlob(lines)
    const out = await importBlob(blob, 'claude-code.jsonl', { superseded: () => false })
    expect(out).toEqual(importTranscript(text, { fileName: 'claude-code.jsonl' }))
    // Every line, then the read that finds the end.
    expect(seen).toEqual({ pulls: lines.length + 1, cancelled: false })
  })
})
