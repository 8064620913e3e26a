import { readdirSync, readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { exportTranscript } from '../export'
import { detectFormat } from './detect'
import { importTranscript, requestFormatOf, SUPPORTED_FORMATS } from './index'
import { canonicalImporter } from './canonical'
import { FORMAT_IMPORTERS, importersInOrder, type FormatId } from './registry'
import { registryContractViolations } from './test-helpers'

const sample = (name: string) =>
  readFileSync(new URL(`../../../public/samples/${name}`, import.meta.url), 'utf8')

function canonicalText(): string {
  const r = importTranscript(sample('openai-chat.json'))
  if (!r.ok) throw new Error(r.error.message)
  return JSON.stringify(exportTranscript(r.transcript, 'canonical').body)
}

describe('the format registry contract', () => {
  it('gives every importer a label, a request format and a finite priority', () => {
    for (const imp of FORMAT_IMPORTERS) {
      expect(imp.label, imp.id).not.toBe('')
      expect([null, 'openai-chat', 'anthropic', 'openai-responses']).toContain(imp.requestFormat)
      expect(Number.isFinite(imp.priority), imp.label).toBe(true)
    }
  })

  it('registers each (format id, container) once, and importers of one format agree', () => {
    const keys = FORMAT_IMPORTERS.map((i) => `${i.id}/${i.container}`)
    expect(new Set(keys).size).toBe(keys.length)
    for (const imp of FORMAT_IMPORTERS) {
      const first = FORMAT_IMPORTERS.find((i) => i.id === imp.id)
      expect(imp.requestFormat, imp.label).toBe(first?.requestFormat)
    }
    // One supported format per id, labelled by its first importer.
    expect(SUPPORTED_FORMATS.map((f) => f.id)).toEqual([
      ...new Set(importersInOrder().map((i) => i.id)),
    ])
  })

  it('answers the request format of a source format from its importer', () => {
    expect(requestFormatOf('claude-code')).toBe('anthropic')
    expect(requestFormatOf('anthropic-messages')).toBe('anthropic')
    expect(requestFormatOf('openai-chat')).toBe('openai-chat')
    expect(requestFormatOf('openai-responses')).toBe('openai-responses')
    expect(requestFormatOf('codex-rollout')).toBe('openai-responses')
    expect(requestFormatOf('gemini-cli')).toBeUndefined()
  })

  it('canonicalImporter holds on an exported canonical transcript', () => {
    expect(registryContractViolations(canonicalImporter, canonicalText())).toEqual([])
  })

  it("has every registered importer's contract checked by a test of its format", async () => {
    // Each importer's test calls registryContractViolations(<importer>, <its fixture>): find the
    // importers so called, by the name their module exports them under.
    const dir = new URL('./', import.meta.url)
    const files = readdirSync(dir).filter((f) => f.endsWith('.ts'))
    const tests = files.filter((f) => f.endsWith('.test.ts'))
    const calls = /registryContractViolations\((\w+)/g
    const called = new Set(
      tests.flatMap((f) =>
        [...readFileSync(new URL(f, dir), 'utf8').matchAll(calls)].map((m) => m[1]),
      ),
    )
    const exportedAs = new Map<unknown, string>()
    for (const f of files.filter((f) => !tests.includes(f))) {
      const mod = (await import(`./${f}`)) as Record<string, unknown>
      for (const [name, value] of Object.entries(mod)) exportedAs.set(value, name)
    }
    for (const imp of FORMAT_IMPORTERS) {
      const name = exportedAs.get(imp)
      expect(name, `${imp.id} ${imp.container} is exported by an importer module`).toBeDefined()
      expect(called, `no test checks ${name ?? imp.id}'s registry contract`).toContain(name)
    }
  })

  it('derives FormatId from the registered ids', () => {
    const ids: FormatId[] = FORMAT_IMPORTERS.map((imp) => imp.id)
    // @ts-expect-error an id no importer registers is not a format id
    const unregistered: FormatId = 'no-such-format'
    expect(ids).not.toContain(unregistered)
  })

  it('settles a tie by priority: lists both chat detectors accept go to the lower priority', () => {
    const chat = FORMAT_IMPORTERS.find((i) => i.id === 'openai-chat')
    const anthropic = FORMAT_IMPORTERS.find((i) => i.id === 'anthropic-messages')
    const model = FORMAT_IMPORTERS.find((i) => i.id === 'vercel-model')
    if (!chat || !anthropic || !model) throw new Error('chat importers not registered')
    for (const [file, winner] of [
      ['anthropic-messages.json', anthropic],
      ['vercel-ai-model-messages.json', model],
    ] as const) {
      const root = JSON.parse(sample(file)) as unknown
      expect(chat.detect(root), file).toBe(true)
      expect(winner.priority).toBeLessThan(chat.priority)
      const d = detectFormat(sample(file))
      expect(d.ok && d.importer).toBe(winner)
    }
  })
})
