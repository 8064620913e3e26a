import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { detectFormat, IMPORTABLE_FORMATS } from './detect'
import { importBytes, importTranscript } from './index'

const fixture = (name: string) =>
  readFileSync(new URL(`../../../test/fixtures/look-alikes/${name}`, import.meta.url), 'utf8')

describe('other tools’ logs', () => {
  it.each([
    // Claude Code's fields, which the Claude Code importer would accept (as false branches).
    ['iflow-session.jsonl', 'this looks like an iFlow CLI session: not supported yet'],
    ['kimi-code-wire.jsonl', 'this looks like a Kimi Code session: not supported yet'],
    [
      'kimi-cli-wire.jsonl',
      'this looks like a Kimi CLI wire log: not supported yet; its conversation is in context.jsonl in the same folder',
    ],
    ['goose-session.jsonl', 'this looks like a Goose session: not supported yet'],
    ['continue-session.json', 'this looks like a Continue session: not supported yet'],
    ['gptme-conversation.jsonl', 'this looks like a gptme conversation: not supported yet'],
    ['amazon-q-conversation.json', 'this looks like an Amazon Q Developer CLI conversation: not supported yet'],
    // A code run and its console output; OpenAI Chat would take the code for the assistant's words.
    ['open-interpreter-conversation.json', 'this looks like an Open Interpreter conversation: not supported yet'],
  ])('refuses %s naming the tool, with or without the file name', (file, message) => {
    for (const options of [{}, { fileName: file }]) {
      const d = detectFormat(fixture(file), options)
      expect(d).toEqual({
        ok: false,
        error: { message, reason: message, tried: [...IMPORTABLE_FORMATS], formats: expect.any(Array) },
      })
    }
    const imported = importTranscript(fixture(file), { fileName: file })
    expect(imported.ok).toBe(false)
    if (!imported.ok) expect(imported.error.message).toBe(message)
  })

  it('still reads a Claude Code session whose sessionId is a plain uuid', () => {
    const claude = fixture('iflow-session.jsonl').replaceAll('"session-7c1e', '"7c1e').replaceAll('"response-', '"msg_')
    const withoutCallId = claude.replaceAll('"callId"', '"call"')
    expect(detectFormat(withoutCallId, { fileName: 'x.jsonl' }).ok).toBe(true)
  })

  it('refuses a Goose session by its messages alone, and by its metadata line alone', () => {
    const [metadata, ...messages] = fixture('goose-session.jsonl').trimEnd().split('\n')
    const textOnly = messages.filter((l) => !l.includes('"toolRequest"') && !l.includes('"toolResponse"'))
    for (const text of [messages.join('\n'), [metadata, ...textOnly].join('\n')]) {
      const d = detectFormat(text, { fileName: 'goose.jsonl' })
      expect(d.ok).toBe(false)
      if (!d.ok) expect(d.error.message).toBe('this looks like a Goose session: not supported yet')
    }
  })

  it('refuses an Open Interpreter conversation without console output, which OpenAI Chat would accept', () => {
    const items = JSON.parse(fixture('open-interpreter-conversation.json')) as { role: string }[]
    const text = JSON.stringify(items.filter((m) => m.role !== 'computer'))
    const d = detectFormat(text)
    expect(d.ok).toBe(false)
    if (!d.ok) expect(d.error.message).toBe('this looks like an Open Interpreter conversation: not supported yet')
  })

  it('leaves a mini-swe-agent trajectory to OpenAI Chat: its messages are the chat the model was sent', () => {
    const d = detectFormat(fixture('mini-swe-agent.traj.json'))
    expect(d.ok && d.format).toBe('openai-chat')
  })

  it('names an SQLite database by its header, from bytes or decoded text', () => {
    const bytes = readFileSync(new URL('../../../test/fixtures/look-alikes/sessions.sqlite', import.meta.url))
    const message =
      'this looks like an SQLite database (Cursor, OpenCode ≥2026, Zed and Crush keep sessions in one): not supported yet'
    expect(importBytes(new Uint8Array(bytes), { fileName: 'state.vscdb' })).toEqual({ ok: false, error: { message } })
    expect(importTranscript(bytes.toString('latin1'))).toEqual({ ok: false, error: { message } })
  })

  it('still calls any other binary file a binary file', () => {
    const gzip = new Uint8Array([0x1f, 0x8b, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03])
    expect(importBytes(gzip)).toEqual({
      ok: false,
      error: { message: 'this looks like a binary file, not a transcript' },
    })
  })
})
