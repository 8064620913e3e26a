import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { exportTranscript } from '../export'
import { detectFormat } from './detect'
import { parseJson, parseJsonl } from './json'
import { importTranscript, requestFormatOf, SUPPORTED_FORMATS } from './index'
import { FORMAT_IMPORTERS, importersInOrder } from './registry'
import type { FormatImporter } from './types'

const sample = (name: string) =>
  readFileSync(new URL(`../../../public/samples/${name}`, import.meta.url), 'utf8')
const fixture = (name: string) =>
  readFileSync(new URL(`../../../test/fixtures/formats/${name}`, import.meta.url), 'utf8')

function canonicalText(): string {
  const r = importTranscript(sample('openai-chat.json'))
  if (!r.ok) throw new Error(r.error.message)
  return JSON.stringify(exportTranscript(r.transcript, 'canonical').body)
}

const geminiJsonl = [
  { sessionId: 's', projectHash: 'p', startTime: '2025-01-01T00:00:00Z' },
  { id: 'u1', type: 'user', content: 'hi' },
  { id: 'g1', type: 'gemini', content: 'hello' },
]
  .map((l) => JSON.stringify(l))
  .join('\n')

/** One real-shape file per registered importer, keyed `<format id> <container>`. */
const OWN_FIXTURE: Record<string, () => string> = {
  'canonical json': canonicalText,
  'aider text': () => sample('aider.chat.history.md'),
  'codex-rollout jsonl': () => sample('codex-rollout.jsonl'),
  'claude-code jsonl': () => sample('claude-code.jsonl'),
  'claude-code json': () => fixture('claude-code-web-loglines.json'),
  'gemini-cli json': () => sample('gemini-cli-session.json'),
  'gemini-cli jsonl': () => geminiJsonl,
  'copilot-cli jsonl': () => sample('copilot-cli-events.jsonl'),
  'inspect-ai json': () => sample('inspect-ai-eval.json'),
  'chatgpt-export json': () => sample('chatgpt-export-conversations.json'),
  'swe-agent json': () => sample('swe-agent.traj'),
  'openhands json': () => sample('openhands-events.json'),
  'openhands jsonl': () => fixture('openhands-output.jsonl'),
  'langchain json': () => sample('langchain-messages.json'),
  'vercel-ui json': () => sample('vercel-ai-ui-messages.json'),
  'vercel-model json': () => sample('vercel-ai-model-messages.json'),
  'openai-responses json': () => sample('openai-responses.json'),
  'anthropic-messages json': () => sample('anthropic-messages.json'),
  'openai-chat json': () => sample('openai-chat.json'),
}

/** The parsed input an importer's `detect` receives for a text of its container. */
function parsedFor(imp: FormatImporter, text: string): unknown {
  if (imp.container === 'text') return text
  if (imp.container === 'jsonl') return parseJsonl(text).records
  const parsed = parseJson(text)
  if (!parsed.ok) throw new Error('fixture is not JSON')
  return parsed.value
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

  it.each(FORMAT_IMPORTERS.map((imp) => [`${imp.id} ${imp.container}`, imp] as const))(
    '%s: detects its own fixture, and every detector before it in priority rejects it',
    (key, imp) => {
      const load = OWN_FIXTURE[key]
      if (!load) throw new Error(`no fixture for importer ${key}`)
      const text = load()
      expect(imp.detect(parsedFor(imp, text))).toBe(true)
      const d = detectFormat(text)
      expect(d.ok && d.importer).toBe(imp)
      const before = importersInOrder()
      for (const other of before.slice(0, before.indexOf(imp))) {
        if (other.container !== imp.container) continue
        expect(other.detect(parsedFor(other, text)), `${other.label} on ${key}`).not.toBe(true)
      }
      const r = importTranscript(text)
      expect(r.ok && r.transcript.format).toBe(imp.id)
    },
  )

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
