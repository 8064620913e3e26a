/**
 * Import failures, warnings and notes quote the file's content cut short and on one line: every
 * JSON and JSONL file of the corpus (the samples and the format fixtures), with each field name's
 * first string value replaced by a long text holding line breaks (or by an object holding one),
 * imports or fails with every message one line of at most `MESSAGE_LIMIT` characters.
 */
import { describe, expect, it } from 'vitest'
import { SMALL, corpusFor } from '../../../test/fuzz/generators'
import { importBytes } from './index'
import type { ImportResult } from './types'

/** Longest message accepted (UTF-16 units): the fuzz harness's bound (test/fuzz/properties.ts). */
const MESSAGE_LIMIT = 1_000

/** Line breaks a one-line message must not hold. */
const LINE_BREAK = /[\r\n\u0085\u2028\u2029]/

/** A field value far past any message's length, with line breaks of every kind inside. */
const LONG = `${'a'.repeat(3_000)}\n${'b'.repeat(3_000)}\r\n${'c'.repeat(3_000)}\u2028d`

/** Every message an import produced: its failure, or each conversation's warnings and notes. */
function messagesOf(r: ImportResult): string[] {
  if (!r.ok) return [r.error.message]
  return [r.transcript, ...(r.transcript.sidechains ?? [])].flatMap((t) => [...t.warnings, ...(t.notes ?? [])])
}

/** What is wrong with a message, or undefined when it is one line within the limit. */
function fault(message: string): string | undefined {
  if (message.length > MESSAGE_LIMIT) return `${message.length} characters`
  if (LINE_BREAK.test(message)) return 'more than one line'
  return undefined
}

type Path = (string | number)[]

/** The path of the first string value under each field name, in document order. */
function firstStringFields(root: unknown): Map<string, Path> {
  const found = new Map<string, Path>()
  const stack: { value: unknown; path: Path }[] = [{ value: root, path: [] }]
  while (stack.length > 0) {
    const { value, path } = stack.pop()!
    if (typeof value !== 'object' || value === null) continue
    const entries = Array.isArray(value) ? value.map((v, i) => [i, v] as const) : Object.entries(value)
    for (let k = entries.length - 1; k >= 0; k--) {
      const [key, child] = entries[k]!
      if (typeof key === 'string' && typeof child === 'string' && !found.has(key)) found.set(key, [...path, key])
      stack.push({ value: child, path: [...path, key] })
    }
  }
  return found
}

/** `root` with the value at `path` replaced (a copy; `root` is left alone). */
function replaced(root: unknown, path: Path, value: unknown): unknown {
  const copy = structuredClone(root) as Record<string | number, unknown>
  let at = copy
  for (const step of path.slice(0, -1)) at = at[step] as Record<string | number, unknown>
  at[path[path.length - 1]!] = value
  return copy
}

const encoder = new TextEncoder()
const decoder = new TextDecoder()

describe('import messages quote file content cut short, on one line', () => {
  const files = corpusFor(SMALL).filter((f) => f.container === 'json' || f.container === 'jsonl')

  it('the corpus has JSON and JSONL files to edit', () => {
    expect(files.length).toBeGreaterThan(30)
  })

  it('every field name of every file, given a long multi-line value, yields bounded one-line messages', () => {
    const faults: string[] = []
    for (const file of files) {
      const name = file.path.slice(file.path.lastIndexOf('/') + 1)
      const text = decoder.decode(file.bytes)
      const lines = file.container === 'jsonl' ? text.split('\n').filter((l) => l.trim() !== '') : [text]
      const docs = lines.map((l) => {
        try {
          return JSON.parse(l) as unknown
        } catch {
          return undefined
        }
      })
      const seen = new Set<string>()
      docs.forEach((doc, line) => {
        for (const [key, path] of firstStringFields(doc)) {
          if (seen.has(key)) continue
          seen.add(key)
          for (const value of [LONG, { text: LONG }]) {
            const edited = docs.map((d, i) => (i === line ? replaced(d, path, value) : d))
            const body = file.container === 'jsonl' ? edited.map((d, i) => (d === undefined ? lines[i] : JSON.stringify(d))).join('\n') : JSON.stringify(edited[0])
            for (const message of messagesOf(importBytes(encoder.encode(body), { fileName: name }))) {
              const why = fault(message)
              if (why) faults.push(`${file.path} ${path.join('.')} = ${typeof value}: ${why}: ${JSON.stringify(message.slice(0, 120))}`)
            }
          }
        }
      })
    }
    expect(faults).toEqual([])
  })
})
