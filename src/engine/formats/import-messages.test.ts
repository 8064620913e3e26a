/**
 * Import failures say what is wrong in the input's own terms: a YAML-looking input gets a YAML
 * message (syntax, nesting, aliases, several documents), never "invalid JSON"; a record that
 * lacks fields is told exactly the ones it lacks.
 */
import { describe, expect, it } from 'vitest'
import { MAX_YAML_NESTING } from '../util/nesting'
import { importTranscript } from './index'
import { andList, missingFields } from './util'

function importError(text: string, fileName?: string): string {
  const r = importTranscript(text, fileName ? { fileName } : {})
  if (r.ok) throw new Error('expected the import to fail')
  return r.error.message
}

/** The classic "billion laughs": nine anchors, each a list of nine aliases of the one before. */
function billionLaughs(): string {
  const lines = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
  const names = 'abcdefghi'
  for (let i = 1; i < names.length; i++) {
    const alias = `*${names[i - 1]}`
    lines.push(`${names[i]}: &${names[i]} [${Array(9).fill(alias).join(',')}]`)
  }
  return `${lines.join('\n')}\n`
}

describe('YAML-looking input gets a YAML message', () => {
  it('a billion-laughs document is refused naming its aliases, named or not', () => {
    const message =
      'this YAML file has aliases that expand to more than 100 copies of their anchors ' +
      '(a "billion laughs" document); refused'
    expect(importError(billionLaughs(), 'lol.yaml')).toBe(message)
    expect(importError(billionLaughs())).toBe(message)
    expect(importError(billionLaughs(), 'lol.json')).toBe(message)
  })

  it('nesting past the YAML limit is refused before the yaml package composes it, naming the line', () => {
    const limit = MAX_YAML_NESTING.toLocaleString('en-US')
    for (const depth of [MAX_YAML_NESTING + 1, 1000, 100_000]) {
      const flow = `history: ${'['.repeat(depth)}${']'.repeat(depth)}\n`
      expect(importError(flow, 'x.yaml')).toBe(`this YAML file nests more than ${limit} levels deep at line 1; the limit is ${limit}`)
      const block = `history:\n${'- '.repeat(depth)}x\n`
      expect(importError(block)).toBe(`this YAML file nests more than ${limit} levels deep at line 2; the limit is ${limit}`)
    }
  })

  it('10 levels of YAML read as usual (an unknown format, not a nesting or JSON error)', () => {
    const message = importError(`history: ${'['.repeat(10)}${']'.repeat(10)}\n`, 'x.yaml')
    expect(message).toMatch(/^unknown transcript format: /)
  })

  it('a syntax error names its line and column in YAML terms', () => {
    // Line 2 opens a flow sequence it never closes.
    const message = importError('history:\n  - [a, b\nnext: 1\n', 'x.yml')
    expect(message).toMatch(/^this YAML file has a syntax error at line \d+, column \d+: /)
    expect(message).not.toMatch(/JSON/)
    expect(message).not.toMatch(/\n/)
  })

  it('several documents, and a plain value, are YAML messages too', () => {
    expect(importError('a: 1\n---\nb: 2\n', 'x.yaml')).toBe('this YAML file holds 2 documents; a transcript is one')
    expect(importError('just words\n', 'x.yaml')).toBe('this YAML file holds a single value, not a mapping or a list')
  })

  it('a cut-off JSON file keeps its JSON message', () => {
    expect(importError('{"messages": [', 'x.yaml')).toMatch(/ends unexpectedly/)
  })
})

describe('a lacks-fields message names exactly the missing fields', () => {
  const record = (drop: string[]) => {
    const r: Record<string, unknown> = {
      type: 'user',
      sessionId: 's1',
      uuid: 'u1',
      parentUuid: null,
      message: { role: 'user', content: 'hi' },
    }
    for (const k of drop) delete r[k]
    return `${JSON.stringify(r)}\n${JSON.stringify(r)}\n`
  }
  const closest = 'unknown transcript format: closest match Claude Code session (JSONL): '

  it('a Claude Code line without sessionId is told only that', () => {
    expect(importError(record(['sessionId']), 's.jsonl')).toBe(`${closest}line 1: no sessionId key, not a Claude Code record`)
  })

  it('two missing keys, in the order sessionId, uuid, parentUuid', () => {
    expect(importError(record(['parentUuid', 'sessionId']), 's.jsonl')).toBe(
      `${closest}line 1: no sessionId and parentUuid keys, not a Claude Code record`,
    )
  })

  it('missingFields and andList', () => {
    const has = { a: (v: unknown) => typeof v === 'string', b: (_: unknown, r: object) => 'b' in r, c: (v: unknown) => v === 1 }
    expect(missingFields({ a: 'x', b: null, c: 1 }, has)).toEqual([])
    expect(missingFields({ a: 3, c: 2 }, has)).toEqual(['a', 'b', 'c'])
    expect(andList(['a'])).toBe('a')
    expect(andList(['a', 'b'])).toBe('a and b')
    expect(andList(['a', 'b', 'c'])).toBe('a, b and c')
  })
})
