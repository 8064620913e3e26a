import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { detectFormat, IMPORTABLE_FORMATS } from './detect'
import { importTranscript } from './index'

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
})
