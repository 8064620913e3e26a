import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { detectFormat, IMPORTABLE_FORMATS } from './detect'

const read = (name: string) =>
  readFileSync(new URL(`../../../public/samples/${name}`, import.meta.url), 'utf8')

function format(text: string, fileName?: string): string {
  const d = detectFormat(text, fileName ? { fileName } : {})
  return d.ok ? d.format : `error: ${d.error.message}`
}

describe('detectFormat', () => {
  it.each([
    ['claude-code.jsonl', 'claude-code'],
    ['openai-chat.json', 'openai-chat'],
    ['openai-chat-legacy-functions.json', 'openai-chat'],
    ['anthropic-messages.json', 'anthropic-messages'],
  ])('detects %s as %s, with or without the file name', (file, expected) => {
    expect(format(read(file))).toBe(expected)
    expect(format(read(file), file)).toBe(expected)
  })

  it('treats plain user/assistant strings as OpenAI chat, and a top-level system as Anthropic', () => {
    const plain = [
      { role: 'user', content: 'hi' },
      { role: 'assistant', content: 'hello' },
    ]
    expect(format(JSON.stringify(plain))).toBe('openai-chat')
    expect(format(JSON.stringify({ messages: plain }))).toBe('openai-chat')
    expect(format(JSON.stringify({ system: 'Be kind.', messages: plain }))).toBe(
      'anthropic-messages',
    )
  })

  it('tells Anthropic blocks from OpenAI parts', () => {
    const anthropic = [
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'x', content: 'y' }] },
    ]
    expect(format(JSON.stringify(anthropic))).toBe('anthropic-messages')
    const openai = [
      { role: 'user', content: [{ type: 'image_url', image_url: { url: 'https://a' } }] },
    ]
    expect(format(JSON.stringify(openai))).toBe('openai-chat')
    expect(format(JSON.stringify([{ role: 'developer', content: 'x' }]))).toBe('openai-chat')
  })

  it('reads one Claude Code record as a one-line session', () => {
    const rec = {
      parentUuid: null,
      sessionId: 'S',
      uuid: 'u',
      type: 'user',
      message: { role: 'user', content: 'hi' },
    }
    expect(format(JSON.stringify(rec))).toBe('claude-code')
  })

  it('detects Codex, Responses and Vercel shapes as their formats, not as OpenAI chat', () => {
    const codex = [
      { timestamp: 't', type: 'session_meta', payload: { id: 'x' } },
      { timestamp: 't', type: 'response_item', payload: {} },
    ]
    expect(format(codex.map((x) => JSON.stringify(x)).join('\n'))).toBe('codex-rollout')
    expect(
      format(JSON.stringify({ model: 'gpt-5', input: [{ type: 'function_call', call_id: 'c' }] })),
    ).toBe('openai-responses')
    const responses = [
      { role: 'user', content: 'q' },
      { type: 'function_call', call_id: 'c', name: 'f', arguments: '{}' },
    ]
    expect(format(JSON.stringify({ messages: responses }))).toBe('openai-responses')
  })

  it('reports an unknown format in one line naming the closest match, the tried formats on the error', () => {
    const d = detectFormat('{"prompt": "x", "n": 1}')
    const reason =
      'unknown transcript format: closest match OpenAI Chat Completions: no "messages" array ' +
      'at the top level (keys: prompt, n)'
    expect(d).toEqual({
      ok: false,
      error: {
        message: reason,
        tried: [...IMPORTABLE_FORMATS],
        reason,
        formats: expect.any(Array),
      },
    })
    // One hint per importable format, in detection order, each saying what its files look like.
    const hints = d.ok ? [] : (d.error.formats ?? [])
    expect(hints.map((h) => h.id)).toEqual([...IMPORTABLE_FORMATS])
    expect(hints.find((h) => h.id === 'claude-code')).toEqual({
      id: 'claude-code',
      label: 'Claude Code session (JSONL)',
      lookedFor: 'Claude Code session log, ~/.claude/projects/<project>/<sessionId>.jsonl',
    })
    const bad = detectFormat(
      JSON.stringify({
        messages: [
          { role: 'user', content: 'a' },
          { role: 'model', content: 'b' },
        ],
      }),
    )
    expect(bad.ok).toBe(false)
    if (!bad.ok)
      expect(bad.error.message).toContain(
        'messages[1].role is "model", not one of system/developer/user/assistant/tool/function',
      )
    expect(format('42')).toBe(
      'error: unknown transcript format: closest match OpenAI Chat Completions: the JSON is a ' +
        'number, not an object or array',
    )
  })

  it('reports JSONL lines without Claude Code keys as unknown, naming the line', () => {
    const d = detectFormat('{"a": 1}\n{"b": 2}\n')
    expect(d.ok).toBe(false)
    if (!d.ok) {
      expect(d.error.message).toMatch(
        /^unknown transcript format: closest match Claude Code session \(JSONL\): line 1: no sessionId, uuid and parentUuid keys, not a Claude Code record$/,
      )
      expect(d.error.line).toBe(1)
    }
  })

  it('places invalid JSON at its line and column', () => {
    // The second comma on line 3 is its 21st character (4 spaces + `{"role": "user",`).
    const d = detectFormat('{\n  "messages": [\n    {"role": "user",, }\n]}')
    expect(d.ok).toBe(false)
    if (!d.ok) {
      expect(d.error.line).toBe(3)
      expect(d.error.message).toMatch(/^invalid JSON at line 3, column 21: /)
    }
  })
})
