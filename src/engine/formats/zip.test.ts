import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { strToU8, zipSync } from 'fflate'
import { describe, expect, it } from 'vitest'
import { zipBomb } from '../../../test/zip-bomb'
import { ImportFailure } from './failure'
import { importBytes } from './index'
import { importersInOrder } from './registry'
import { isZipArchive, openZipArchive, zipFiles } from './zip'

const SAMPLES = new URL('../../../public/samples/', import.meta.url).pathname

const error = (bytes: Uint8Array) => {
  const r = importBytes(bytes, { fileName: 'upload.eval' })
  if (r.ok) throw new Error('expected an import error')
  return r.error
}

describe('zip archives dropped as transcripts', () => {
  it('isZipArchive: a local file header or an empty archive, nothing else', () => {
    expect(isZipArchive(zipSync({ 'a.txt': strToU8('x') }))).toBe(true)
    expect(isZipArchive(zipSync({}))).toBe(true)
    expect(isZipArchive(strToU8('PK is how this text starts'))).toBe(false)
    expect(isZipArchive(strToU8('{"messages": []}'))).toBe(false)
    expect(isZipArchive(new Uint8Array([0x50, 0x4b]))).toBe(false)
  })

  it('a zip no format claims says so, names what it holds and what each format looks for', () => {
    const entries: Record<string, Uint8Array> = {}
    for (const n of ['chat.html', 'notes.txt', 'a.png', 'b.png', 'c.png', 'd.png'])
      entries[n] = strToU8('x')
    const readers = importersInOrder().flatMap((imp) => (imp.bundle ? [`${imp.bundle.lookedFor} (${imp.label})`] : []))
    expect(readers).toContain('header.json (Inspect AI eval log)')
    const lookedFor = `looked for ${readers.join(', ')}, or one conversations.json or JSON/JSONL transcript`
    expect(error(zipSync(entries))).toEqual({
      message:
        'a zip archive of no format this version reads ' +
        `(it holds chat.html, notes.txt, a.png, b.png, c.png, …); ${lookedFor}`,
    })
    expect(error(zipSync({}))).toEqual({
      message: `a zip archive of no format this version reads (it is empty); ${lookedFor}`,
    })
  })

  it("a zip holding one transcript file (a data export's conversations.json, a zipped session) imports it", () => {
    const session = readFileSync(join(SAMPLES, 'claude-code.jsonl'), 'utf8')
    const direct = importBytes(strToU8(session), { fileName: 'claude-code.jsonl' })
    const zipped = importBytes(zipSync({ 'project/claude-code.jsonl': strToU8(session), 'README.md': strToU8('x') }))
    if (!direct.ok || !zipped.ok) throw new Error('expected both to import')
    expect(zipped.transcript.messages.length).toBe(direct.transcript.messages.length)
    expect(zipped.transcript.messages.map((m) => m.role)).toEqual(direct.transcript.messages.map((m) => m.role))
    const chat = readFileSync(join(SAMPLES, 'chatgpt-export-conversations.json'), 'utf8')
    const exported = importBytes(zipSync({ 'conversations.json': strToU8(chat), 'user.json': strToU8('{}'), 'chat.html': strToU8('<p>') }))
    expect(exported.ok && exported.transcript.messages[0]?.source.format).toBe('chatgpt-export')
  })

  it('a zip of several sessions opens each as a conversation; files that are not transcripts are named in a note', () => {
    const session = readFileSync(SAMPLES + 'claude-code.jsonl', 'utf8')
    const chat = readFileSync(SAMPLES + 'openai-chat.json', 'utf8')
    const r = importBytes(
      zipSync({
        'a/session.jsonl': strToU8(session),
        'b/chat.json': strToU8(chat),
        'settings.json': strToU8('{"theme": "dark"}'),
        'README.md': strToU8('# notes'),
      }),
    )
    if (!r.ok) throw new Error(r.error.message)
    const direct = importBytes(strToU8(session), { fileName: 'session.jsonl' })
    const directChat = importBytes(strToU8(chat), { fileName: 'chat.json' })
    if (!direct.ok || !directChat.ok) throw new Error('expected both samples to import')
    expect(r.transcript.sidechainKind).toBe('conversation')
    expect(r.transcript.messages.length).toBe(direct.transcript.messages.length)
    expect(r.transcript.sidechains?.map((t) => [t.messages.length, t.messages[0]?.source.format])).toEqual([
      [directChat.transcript.messages.length, 'openai-chat'],
    ])
    expect(r.transcript.notes?.at(-1)).toBe('1 other file(s) are not transcripts: settings.json')
  })

  it('a folder of one session beside its settings opens the session', () => {
    const session = readFileSync(SAMPLES + 'claude-code.jsonl', 'utf8')
    const r = importBytes(zipSync({ 'session.jsonl': strToU8(session), 'settings.json': strToU8('{"model": "x"}') }))
    expect(r.ok && [r.transcript.sidechains, r.transcript.notes?.at(-1)]).toEqual([
      undefined,
      '1 other file(s) are not transcripts: settings.json',
    ])
  })

  it("a zip's sole transcript that fails to import names the entry", () => {
    expect(error(zipSync({ 'session.jsonl': strToU8('{"nothing": 1}\n') })).message).toMatch(/^session\.jsonl: /)
    expect(error(zipSync({ 'a.json': strToU8('{"x": 1}'), 'b.json': strToU8('{"y": 2}') })).message).toMatch(
      /^none of its 2 JSON\/JSONL files is a transcript; a\.json: /,
    )
  })

  it('zipFiles packs a folder stored, entries in order, and reads back byte for byte', () => {
    const files = new Map([
      ['task/api_conversation_history.json', strToU8('[{"role":"user"}]')],
      ['task/ui_messages.json', strToU8('[]')],
    ])
    const archive = openZipArchive(zipFiles(files))
    expect(archive.entries.map((e) => [e.name, e.bytes, e.compression])).toEqual([
      ['task/api_conversation_history.json', 17, 0],
      ['task/ui_messages.json', 2, 0],
    ])
    const back = archive.read(['task/api_conversation_history.json'])
    expect(archive.text(back.get('task/api_conversation_history.json')!)).toBe('[{"role":"user"}]')
  })

  it('a truncated zip is a one-line error, not an exception', () => {
    const whole = zipSync({ 'header.json': strToU8('{}'), 'samples/1_epoch_1.json': strToU8('{}') })
    expect(error(whole.subarray(0, whole.length - 30))).toEqual({
      message: 'the zip archive cannot be read (invalid zip data); is it truncated?',
    })
  })
})

/** The message of the `ImportFailure` `run` throws. */
function failureOf(run: () => unknown): string {
  try {
    run()
  } catch (e) {
    if (e instanceof ImportFailure) return e.message
    throw e
  }
  throw new Error('expected an ImportFailure')
}

describe('the total uncompressed budget of an archive', () => {
  const MiB = 1024 * 1024

  it('an Inspect log whose entries declare more than 512 MB in all is refused before anything is inflated', () => {
    // 21 entries × 30 MiB of zeros: 630 MiB declared, each entry well under the 256 MB per-entry cap.
    const names = ['header.json', ...Array.from({ length: 20 }, (_, k) => `samples/${k + 1}_epoch_1.json`)]
    const bomb = zipBomb(names, 30 * MiB)
    expect(bomb.length).toBeLessThan(1 * MiB)
    expect(error(bomb)).toEqual({ message: 'its JSON entries uncompressed hold 630 MB in all; the limit for one input is 512 MB' })
  })

  it('the declared sizes of the JSON entries are checked when the archive opens', () => {
    expect(failureOf(() => openZipArchive(zipBomb(['a.json', 'b.jsonl'], 2048), 3072))).toBe(
      'its JSON entries uncompressed hold 4 KB in all; the limit for one input is 3 KB',
    )
  })

  it('entries read are counted across reads: the one that would pass the budget is refused before it is inflated', () => {
    // Images of a data export are not read by any format: the archive opens, each read counts.
    const archive = openZipArchive(zipBomb(['a.png', 'b.png'], 2048), 3072)
    expect(archive.read(['a.png']).get('a.png')?.length).toBe(2048)
    expect(failureOf(() => archive.read(['b.png']))).toBe('its entries read uncompressed hold 4 KB in all; the limit for one input is 3 KB')
  })
})
