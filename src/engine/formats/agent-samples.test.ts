import { readFileSync } from 'node:fs'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { checkValidity } from '../analysis/checks'
import type { FormatId, Transcript } from '../model'
import { recordedView } from '../analysis/recorded'
import { aiderImporter } from './aider'
import { importTranscript } from './index'
import { inspectAIImporter } from './inspect-ai'
import { langchainImporter } from './langchain'
import { openHandsImporter } from './openhands'
import { runImporter } from './failure'
import type { FormatImporter } from './types'
import { sweAgentImporter } from './swe-agent'

const read = (name: string) =>
  readFileSync(new URL(`../../../public/samples/${name}`, import.meta.url), 'utf8')

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value)
    for (const key of Object.keys(value)) deepFreeze((value as Record<string, unknown>)[key])
  }
  return value
}

function imported(file: string, options = {}): Transcript {
  const r = importTranscript(read(file), options)
  if (!r.ok) throw new Error(r.error.message)
  return r.transcript
}

interface Row {
  file: string
  format: FormatId
  roles: { system: number; user: number; assistant: number; tool: number }
  calls: number
  errors: number
  compactions: number
  /** Import notes the transcript carries (default none); it has no warnings. */
  notes?: number
}

/**
 * Counted from the files by a one-off script, not by these importers:
 * - langchain-messages.json: 34 items (1 system, 4 human, 15 ai, 14 tool); 14 entries in the ai
 *   messages' `tool_calls` (the `additional_kwargs.tool_calls` copies are the same calls); one tool
 *   message has `status:"error"`.
 * - inspect-ai-eval.json: samples[0].messages has 39 (1 system, 3 user, 16 assistant, 19 tool)
 *   with 19 `tool_calls`; no tool `error`; one `compaction` event.
 * - openhands-events.json: 52 events. Messages: the `system` action, 3 user `message` actions, the
 *   condensation summary (a user message), 2 `finish` actions + 14 distinct `model_response` ids
 *   over the 19 actions with `tool_call_metadata` (16 assistant), and 19 observations answering
 *   them (3 with `success:false`); 7 `agent_state_changed` skipped.
 * - swe-agent.traj: history has 42 items (1 system, 1 user, 20 assistant with one tool call each,
 *   20 tool).
 * - aider.chat.history.md: 2 launches; the first (opened) has 19 `#### ` inputs: 7 requests (user)
 *   and 12 slash commands aider handles itself (a note, not messages), plus 5 /run outputs the
 *   person added to the chat (`… [Yes]: y`, user messages flagged command) and 8 assistant text
 *   blocks; its other `> ` blocks are aider's log (no messages, no calls). The second launch has
 *   only commands: left out. No warnings; notes: the left-out session, the startup log, the
 *   log-blocks notice and the commands notice.
 */
const TABLE: Row[] = [
  {
    file: 'langchain-messages.json',
    format: 'langchain',
    roles: { system: 1, user: 4, assistant: 15, tool: 14 },
    calls: 14,
    errors: 1,
    compactions: 0,
  },
  {
    file: 'inspect-ai-eval.json',
    format: 'inspect-ai',
    roles: { system: 1, user: 3, assistant: 16, tool: 19 },
    calls: 19,
    errors: 0,
    compactions: 1,
  },
  {
    file: 'openhands-events.json',
    format: 'openhands',
    roles: { system: 1, user: 4, assistant: 16, tool: 19 },
    calls: 19,
    errors: 3,
    compactions: 1,
  },
  {
    file: 'swe-agent.traj',
    format: 'swe-agent',
    roles: { system: 1, user: 1, assistant: 20, tool: 20 },
    calls: 20,
    errors: 0,
    compactions: 0,
  },
  {
    file: 'aider.chat.history.md',
    format: 'aider',
    roles: { system: 0, user: 12, assistant: 8, tool: 0 },
    calls: 0,
    errors: 0,
    compactions: 0,
    notes: 4,
  },
]

describe('agent-format samples import with the right counts', () => {
  it.each(TABLE)('$file', (row) => {
    const total = row.roles.system + row.roles.user + row.roles.assistant + row.roles.tool
    for (const options of [{}, { fileName: row.file }]) {
      const t = imported(row.file, options)
      expect(t.format).toBe(row.format)
      expect(t.messages).toHaveLength(total)
      const roles = { system: 0, user: 0, assistant: 0, tool: 0 }
      for (const m of t.messages) roles[m.role]++
      expect(roles).toEqual(row.roles)
      expect(t.messages.reduce((n, m) => n + (m.toolCalls?.length ?? 0), 0)).toBe(row.calls)
      expect(t.messages.filter((m) => m.isError)).toHaveLength(row.errors)
      expect(t.recordedCompactions).toHaveLength(row.compactions)
      expect(t.warnings).toEqual([])
      expect(t.notes ?? []).toHaveLength(row.notes ?? 0)
      expect(new Set(t.messages.map((m) => m.id)).size).toBe(total)
      t.messages.forEach((m, i) => expect(m.index).toBe(i))
    }
  })

  it.each(TABLE)('$file: no orphan or missing tool results (checkValidity)', ({ file }) => {
    const t = imported(file)
    const problems = checkValidity(t.messages).filter(
      (p) => p.rule === 'orphan-tool-result' || p.rule === 'missing-tool-result',
    )
    expect(problems).toEqual([])
    // Every result follows its call directly (inside the run of tool messages after it), so the
    // Anthropic adjacency rule holds too.
    const anthropic = checkValidity(t.messages, { provider: 'anthropic' })
    expect(anthropic.filter((p) => p.rule === 'result-not-adjacent')).toEqual([])
  })
})

const IMPORTERS: { id: FormatId; imp: FormatImporter; file: string }[] = [
  { id: 'langchain', imp: langchainImporter, file: 'langchain-messages.json' },
  { id: 'inspect-ai', imp: inspectAIImporter, file: 'inspect-ai-eval.json' },
  { id: 'openhands', imp: openHandsImporter, file: 'openhands-events.json' },
  { id: 'swe-agent', imp: sweAgentImporter, file: 'swe-agent.traj' },
  { id: 'aider', imp: aiderImporter, file: 'aider.chat.history.md' },
]

describe('the agent-format importers as registry entries', () => {
  it.each(IMPORTERS)('$id: detects its sample, imports it deep-frozen', ({ id, imp, file }) => {
    const text = read(file)
    const parse = () => (imp.container === 'text' ? text : (JSON.parse(text) as unknown))
    const frozen = deepFreeze(parse())
    expect(imp.id).toBe(id)
    expect(imp.detect(frozen)).toBe(true)
    const t = imp.importParsed(frozen, { keepRaw: true })
    expect(imp.importParsed(parse(), { keepRaw: true })).toEqual(t)
    expect(frozen).toEqual(parse())
  })

  it.each(IMPORTERS)('$id: keepRaw false leaves source.raw out', ({ imp, file }) => {
    const text = read(file)
    const input = imp.container === 'text' ? text : (JSON.parse(text) as unknown)
    const t = imp.importParsed(input, { keepRaw: false })
    expect(t.messages.every((m) => m.source.raw === undefined)).toBe(true)
  })

  it.each(IMPORTERS)('$id: no other agent sample is detected as it', ({ imp, file: own }) => {
    for (const { file } of IMPORTERS) {
      if (file === own) continue
      const text = read(file)
      if (imp.container === 'text') {
        expect(imp.detect(text)).not.toBe(true)
        continue
      }
      if (file.endsWith('.md')) continue
      expect(imp.detect(JSON.parse(text))).not.toBe(true)
    }
  })

  it.each(IMPORTERS)(
    '$id: any JSON value gives an ImportResult, never an exception or a raw error',
    ({ imp }) => {
      fc.assert(
        fc.property(fc.jsonValue(), (value) => {
          const input = imp.container === 'text' ? JSON.stringify(value) : value
          const r = runImporter(imp, deepFreeze(input), {})
          if (!r.ok) expect(r.error.message).not.toMatch(/^import failed/)
        }),
        { numRuns: 300 },
      )
    },
  )
})

describe('recorded compactions of the agent-format samples in the Recorded view', () => {
  it('OpenHands: what the condensation kept, its summary, then everything after it', () => {
    const t = imported('openhands-events.json')
    const view = recordedView(t)
    // Kept: the system prompt and the task (events 0, 2) and the response 28 with its
    // observations 30/31, which lie after the forgotten range 4–27; then the summary (event 32)
    // and the 13 messages from events 33–49.
    expect(view?.after.messages.slice(0, 6).map((m) => m.id)).toEqual([
      'event-0',
      'event-2',
      'event-28',
      'event-30',
      'event-31',
      'event-32',
    ])
    expect(view?.after.messages).toHaveLength(6 + 13)
    expect(view?.checks.after).toEqual([])
  })

  it('Inspect AI: the compaction event gives a valid After from message 26 on', () => {
    const view = recordedView(imported('inspect-ai-eval.json'))
    expect(view?.after.messages.some((m) => m.id === 'Ncmk576JFrOyD4BC55eoLp')).toBe(true)
    expect(view?.checks.after).toEqual([])
  })
})
