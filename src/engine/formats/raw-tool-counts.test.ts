/**
 * Every bundled sample and every format fixture: the tool calls and tool results the importer
 * produces equal the call and result blocks counted straight from the raw file
 * (test/raw-tool-counts.ts, written from the formats' documentation, not from the importers).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { RAW_TOOL_COUNTERS } from '../../../test/raw-tool-counts'
import { importBytes } from './index'

const SAMPLES = new URL('../../../public/samples/', import.meta.url)
const FIXTURES = new URL('../../../test/fixtures/formats/', import.meta.url)

const files = [
  ...readdirSync(SAMPLES)
    .filter((f) => f !== 'index.json')
    .map((f) => new URL(f, SAMPLES)),
  ...(existsSync(FIXTURES) ? readdirSync(FIXTURES).map((f) => new URL(f, FIXTURES)) : []),
]

describe('importers keep every tool call and result of the file', () => {
  it.each(files.map((u) => [u.pathname.split('/').slice(-2).join('/'), u] as const))('%s', (_name, url) => {
    const bytes = readFileSync(url)
    const r = importBytes(bytes, { fileName: url.pathname.split('/').pop() })
    if (!r.ok) throw new Error(r.error.message)
    const t = r.transcript
    const counter = RAW_TOOL_COUNTERS[t.format]
    if (!counter) throw new Error(`no raw counter for format ${t.format}: add one to test/raw-tool-counts.ts`)
    const raw = counter(bytes, { branchRoots: (t.branches ?? []).map((b) => b.id) })
    const calls = t.messages.reduce((n, m) => n + (m.toolCalls?.length ?? 0), 0)
    const results = t.messages.filter((m) => m.role === 'tool').length
    expect({ calls, results }).toEqual(raw)
  })
})
