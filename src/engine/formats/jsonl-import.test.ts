import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { RAW_ONLY_KEYS } from './index'
import { parseJsonl } from './json'
import { importJsonlRecords } from './jsonl-import'

/** A minimal Claude Code session: two records on one chain (formats.md §4.4). */
const session = [
  '{"type":"user","uuid":"u1","parentUuid":null,"sessionId":"S","message":{"role":"user","content":"Fix the build"}}',
  '{"type":"assistant","uuid":"a1","parentUuid":"u1","sessionId":"S","message":{"id":"msg_1","role":"assistant","content":[{"type":"text","text":"Done."}]}}',
]

describe('importJsonlRecords', () => {
  it('picks the JSONL importer for the records and lists skipped lines before its own warnings', () => {
    const r = importJsonlRecords(parseJsonl(`${session[0]}\n{"oops"\n${session[1]}\n`), { fileName: 's.jsonl' })
    if (!r.ok) throw new Error(r.error.message)
    expect(r.transcript.format).toBe('claude-code')
    expect(r.transcript.messages.map((m) => [m.role, m.content])).toEqual([
      ['user', 'Fix the build'],
      ['assistant', 'Done.'],
    ])
    // `{"oops"` is 7 characters: it ends after column 7.
    expect(r.transcript.warnings[0]).toBe('line 2: invalid JSON (the line ends unexpectedly after column 7), skipped')
  })

  it('gives the unknown-format error (with the formats tried) for records no importer reads', () => {
    const r = importJsonlRecords(parseJsonl('{"kind":"a"}\n{"kind":"b"}\n'))
    expect(r.ok).toBe(false)
    if (r.ok) return
    expect(r.error.message).toMatch(/^unknown transcript format: /)
    expect(r.error.tried).toContain('claude-code')
    expect(r.error.line).toBe(1)
  })

  it('says when no line could be read, naming the first bad one', () => {
    const r = importJsonlRecords(parseJsonl('nope\n[1]\n'))
    expect(r.ok).toBe(false)
    if (r.ok) return
    expect(r.error.line).toBe(1)
    expect(r.error.message).toMatch(/^none of the 2 JSONL lines could be read; first: line 1: invalid JSON \(.+ at column 1\), skipped$/)
  })

  it('gives the same transcript without RAW_ONLY_KEYS when raw records are not kept', () => {
    for (const name of ['claude-code.jsonl', 'codex-rollout.jsonl']) {
      const text = readFileSync(new URL(`../../../public/samples/${name}`, import.meta.url), 'utf8')
      const full = importJsonlRecords(parseJsonl(text), { fileName: name, keepRaw: false })
      const slim = parseJsonl(text)
      let dropped = 0
      for (const r of slim.records) {
        for (const key of RAW_ONLY_KEYS) {
          if (key in r.value) dropped++
          delete r.value[key]
        }
      }
      if (name === 'claude-code.jsonl') expect(dropped).toBeGreaterThan(0)
      expect(importJsonlRecords(slim, { fileName: name, keepRaw: false })).toEqual(full)
    }
  })
})
