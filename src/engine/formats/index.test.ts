import { readdirSync, readFileSync } from 'node:fs'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { importBytes, importTranscript, looksBinary, SUPPORTED_FORMATS } from './index'

const samplesDir = new URL('../../../public/samples/', import.meta.url)
const read = (name: string) => readFileSync(new URL(name, samplesDir), 'utf8')

interface SampleEntry {
  file: string
  label: string
  format: string
  description: string
}
const gallery: SampleEntry[] = JSON.parse(read('index.json'))

function errorOf(text: string, fileName?: string) {
  const r = importTranscript(text, fileName ? { fileName } : {})
  if (r.ok) throw new Error('expected an import error')
  return r.error
}

describe('importTranscript bad input', () => {
  it('says the file is empty (also for whitespace or a lone BOM)', () => {
    expect(errorOf('')).toEqual({ message: 'the file is empty' })
    expect(errorOf(' \r\n\t\n')).toEqual({ message: 'the file is empty' })
    expect(errorOf('\ufeff')).toEqual({ message: 'the file is empty' })
  })

  it('says binary for NUL bytes or a text that is mostly U+FFFD', () => {
    const binary = { message: 'this looks like a binary file, not a transcript' }
    expect(errorOf('PK\u0003\u0004\u0000\u0000rest')).toEqual(binary)
    expect(errorOf('\ufffd\ufffd\ufffdA\ufffd\ufffdB\ufffd')).toEqual(binary)
    // A few replacement characters inside a real transcript are not binary.
    expect(looksBinary(`${'x'.repeat(1000)}\ufffd\ufffd\ufffd\ufffd`)).toBe(false)
  })

  it('names line and column of invalid JSON', () => {
    const e = errorOf('{\n  "messages": [\n    {"role": "user", "content": "hi"}\n  ],\n}\n')
    // The closing brace after the trailing comma: line 5, column 1.
    expect(e.line).toBe(5)
    expect(e.message).toMatch(/^invalid JSON at line 5, column 1: \S/)
  })

  describe('a JSON document that ends early says so and names its last real line', () => {
    it.each([
      // The object of line 3 is never closed; the file ends with a newline (no line 4 of text).
      ['a truncated object', '{\n  "messages": [\n    {"role": "user", "content": "hi"}\n', 3],
      ['a truncated array', '[\n  {"role": "user", "content": "hi"},\n  {"role": "assistant"\n\n', 3],
      ['a truncated string', '{\n  "messages": [\n    {"role": "user", "content": "hel', 3],
      ['a literal cut short', '{"messages": [{"role": "user", "content": null, "x": tru', 1],
    ])('%s', (_kind, text, line) => {
      expect(errorOf(text)).toEqual({
        message: `the file ends unexpectedly at line ${line} — is it truncated?`,
        line,
      })
    })

    it('a 125-line document cut after line 125 names line 125, not 126', () => {
      const items = Array.from({ length: 200 }, (_, i) => `    {"role": "user", "content": "m${i}"},`)
      const text = `{\n  "messages": [\n${items.slice(0, 123).join('\n')}\n`
      expect(text.split('\n')).toHaveLength(126) // 125 lines and the empty rest after the last \n
      expect(errorOf(text)).toEqual({
        message: 'the file ends unexpectedly at line 125 — is it truncated?',
        line: 125,
      })
    })
  })

  it('keeps the exact line and column of trailing garbage after a complete document', () => {
    const e = errorOf('{\n  "messages": []\n}\n}\n')
    // The second `}` opens line 4.
    expect(e.line).toBe(4)
    expect(e.message).toMatch(/^invalid JSON at line 4, column 1: \S/)
  })

  it('imports a JSONL session whose last line is half-written, naming that line', () => {
    const full = read('claude-code.jsonl')
    const lines = full.split('\n')
    // 69 records and the empty rest after the final newline; cut the 69th in half.
    expect(lines).toHaveLength(70)
    const last = lines[68] as string
    const cut = `${lines.slice(0, 68).join('\n')}\n${last.slice(0, Math.floor(last.length / 2))}`
    const whole = importTranscript(full, { fileName: 'claude-code.jsonl' })
    const r = importTranscript(cut, { fileName: 'claude-code.jsonl' })
    if (!r.ok || !whole.ok) throw new Error('expected both to import')
    expect(r.transcript.warnings[0]).toBe(
      'line 69: half-written last line (it ends unexpectedly; the session may still be being written), skipped',
    )
    expect(r.transcript.messages.length).toBeLessThan(whole.transcript.messages.length)
  })

  it('says when no JSONL line could be read, naming the first bad line', () => {
    const e = errorOf('not json\n{"half": \n', 'session.jsonl')
    expect(e.line).toBe(1)
    expect(e.message).toMatch(
      /^none of the 2 JSONL lines could be read; first: line 1: invalid JSON \(.+\), skipped$/,
    )
  })

  it('says no messages were found, naming the field', () => {
    expect(errorOf('{"messages": []}')).toEqual({
      message: 'no messages found in messages',
      field: 'messages',
    })
    expect(errorOf('{"system": "s", "messages": []}')).toEqual({
      message: 'no messages found in messages',
      field: 'messages',
    })
  })

  it('reports an unknown format with tried formats', () => {
    const e = errorOf('{"hello": "world"}')
    expect(e.tried).toEqual([...new Set(SUPPORTED_FORMATS.map((f) => f.id))])
    expect(e.tried).toContain('openai-chat')
    expect(e.message).toMatch(/^unknown transcript format: /)
  })

  it('gives one-line messages', () => {
    for (const text of ['', '\u0000', '{', '{"a":1}', '{"messages": []}', 'x\ny\n']) {
      expect(errorOf(text).message).not.toContain('\n')
    }
  })

  it('never throws, whatever the text or JSON', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string(),
          fc.json(),
          fc.jsonValue().map((v) => JSON.stringify({ messages: [v] })),
        ),
        (text) => {
          const r = importTranscript(text)
          // The safety net in importTranscript must never be what answers.
          if (!r.ok) expect(r.error.message).not.toMatch(/^import failed/)
        },
      ),
      { numRuns: 300 },
    )
  })

  it('never throws on arbitrary message-shaped values', () => {
    const message = fc.record(
      {
        role: fc.constantFrom('system', 'user', 'assistant', 'tool', 'function', 'developer', 'x'),
        content: fc.jsonValue(),
        tool_calls: fc.jsonValue(),
        tool_call_id: fc.jsonValue(),
        function_call: fc.jsonValue(),
      },
      { requiredKeys: ['role'] },
    )
    fc.assert(
      fc.property(fc.array(message), fc.boolean(), (messages, anthropic) => {
        const text = JSON.stringify(anthropic ? { system: 's', messages } : { messages })
        const r = importTranscript(text)
        if (!r.ok) expect(r.error.message).not.toMatch(/^import failed/)
        else r.transcript.messages.forEach((m, i) => expect(m.index).toBe(i))
      }),
      { numRuns: 300 },
    )
  })
})

describe('importTranscript accepts', () => {
  it('a BOM and CRLF line ends in JSON', () => {
    const text =
      '\ufeff{\r\n  "messages": [\r\n    {"role": "user", "content": "hi"}\r\n  ]\r\n}\r\n'
    const r = importTranscript(text)
    expect(r.ok && r.transcript.messages.map((m) => m.content)).toEqual(['hi'])
  })

  it('makes every message id unique and index its position', () => {
    const ids = (t: string) => {
      const r = importTranscript(t)
      if (!r.ok) throw new Error(r.error.message)
      r.transcript.messages.forEach((m, i) => expect(m.index).toBe(i))
      return r.transcript.messages.map((m) => m.id)
    }
    const line = (uuid: string, content: unknown) =>
      JSON.stringify({
        parentUuid: null,
        sessionId: 'S',
        uuid,
        type: 'user',
        message: { role: 'user', content },
      })
    // "a-2" is a real id later in the file, so the repeated "a" must skip it.
    const text = [
      line('a', [
        { type: 'tool_result', tool_use_id: 't1', content: '1' },
        { type: 'tool_result', tool_use_id: 't2', content: '2' },
      ]),
      line('a-2', 'x'),
    ].join('\n')
    expect(ids(text)).toEqual(['a', 'a-3', 'a-2'])
  })
})

describe('importBytes', () => {
  it('decodes UTF-8 and gives the same transcript as the text', () => {
    const text = read('openai-chat.json')
    const fromBytes = importBytes(new TextEncoder().encode(text))
    expect(fromBytes).toEqual(importTranscript(text))
  })

  it('decodes UTF-16LE with a BOM', () => {
    const text = '{"messages":[{"role":"user","content":"Grüße"}]}'
    const bytes = new Uint8Array(2 + text.length * 2)
    bytes[0] = 0xff
    bytes[1] = 0xfe
    for (let i = 0; i < text.length; i++) {
      bytes[2 + 2 * i] = text.charCodeAt(i) & 0xff
      bytes[3 + 2 * i] = text.charCodeAt(i) >> 8
    }
    const r = importBytes(bytes)
    expect(r.ok && r.transcript.messages[0]?.content).toBe('Grüße')
  })

  it('says binary for a PNG, empty for no bytes', () => {
    const png = new Uint8Array([
      0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52,
    ])
    expect(importBytes(png)).toEqual({
      ok: false,
      error: { message: 'this looks like a binary file, not a transcript' },
    })
    expect(importBytes(new Uint8Array())).toEqual({
      ok: false,
      error: { message: 'the file is empty' },
    })
  })
})

describe('the sample gallery (public/samples/index.json)', () => {
  it('lists exactly the bundled samples, each imported with its listed format', () => {
    const bundled = readdirSync(samplesDir).filter((f) => f !== 'index.json')
    const files = gallery.map((s) => s.file)
    expect(new Set(files).size).toBe(files.length)
    for (const f of files) expect(bundled).toContain(f)
    for (const s of gallery) {
      expect(s.label).not.toBe('')
      expect(s.description).not.toBe('')
      const r = importTranscript(read(s.file), { fileName: s.file })
      expect(r.ok && r.transcript.format).toBe(s.format)
      expect(r.ok && r.transcript.warnings).toEqual([])
    }
  })

  it('covers every supported format (but our own canonical export, which has no source file)', () => {
    expect(new Set(gallery.map((s) => s.format))).toEqual(
      new Set(SUPPORTED_FORMATS.map((f) => f.id).filter((id) => id !== 'canonical')),
    )
  })

  it('imports deterministically: the same text gives the same transcript', () => {
    const text = read('claude-code.jsonl')
    expect(importTranscript(text)).toEqual(importTranscript(text))
  })
})
