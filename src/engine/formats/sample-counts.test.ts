import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { importTranscript } from './index'

const read = (name: string) =>
  readFileSync(new URL(`../../../public/samples/${name}`, import.meta.url), 'utf8')

/**
 * Counts per sample, derived by hand from the sample files (not from the importers): messages =
 * canonical messages after import, calls = tool calls over all assistant messages, results = tool
 * messages. Responses/Codex: one assistant message per model turn (reasoning + text + calls), one
 * tool message per `*_output` item, plus `instructions` as a system message. Gemini: 19 user/gemini
 * records plus one tool message per embedded result. Vercel UI: one assistant message per step.
 * Copilot CLI: one message per user.message / assistant.message / tool.execution_complete event.
 * ChatGPT export: the current branch, custom instructions as one system message, empty system
 * nodes dropped. pi: one message per message entry on the last entry's path, plus the branch
 * summary and the compaction summary (5 + 2 user, 20 assistant, 21 toolResult). claude.ai: the first
 * conversation, its assistant message split at the tool result (2 user, 3 assistant, 1 tool).
 * Qwen Code: one message per user/assistant record and per functionResponse, the compression record
 * none. Kimi CLI: the system prompt plus one message per user/assistant/tool line. Cline: 22 history
 * messages; each user one gives its results, the human's words and its environment details apart
 * (11 assistant, 8 results, 2 human, 12 injected).
 * OpenCode: one message per message (one LLM step each) plus one tool message per tool part (5
 * + the compaction request user, 20 + the summary assistant, 21 tool).
 */
const TABLE: [file: string, format: string, messages: number, calls: number, results: number][] = [
  ['openai-responses.json', 'openai-responses', 34, 14, 14],
  ['openai-responses-compacted.json', 'openai-responses', 5, 0, 0],
  ['codex-rollout.jsonl', 'codex-rollout', 40, 19, 19],
  ['gemini-cli-session.json', 'gemini-cli', 38, 19, 19],
  ['vercel-ai-ui-messages.json', 'vercel-ui', 33, 14, 14],
  ['vercel-ai-model-messages.json', 'vercel-model', 34, 14, 14],
  ['copilot-cli-events.jsonl', 'copilot-cli', 46, 21, 21],
  ['chatgpt-export-conversations.json', 'chatgpt-export', 45, 13, 13],
  ['cline-task-history.json', 'cline', 33, 8, 8],
  ['pi-session.jsonl', 'pi-coding-agent', 48, 21, 21],
  ['opencode-export.json', 'opencode', 48, 21, 21],
  ['claude-ai-export-conversations.json', 'claude-ai-export', 6, 1, 1],
  ['qwen-code-session.jsonl', 'qwen-code', 10, 4, 4],
  ['kimi-cli-context.jsonl', 'kimi-cli', 13, 5, 5],
]

describe('bundled samples import with the right counts', () => {
  it.each(TABLE)('%s (%s): %i messages, %i calls, %i results', (file, format, ...counts) => {
    const [messages, calls, results] = counts
    for (const options of [{}, { fileName: file }]) {
      const r = importTranscript(read(file), options)
      if (!r.ok) throw new Error(r.error.message)
      const t = r.transcript
      expect(t.format).toBe(format)
      expect(t.messages.length).toBe(messages)
      expect(t.messages.reduce((n, m) => n + (m.toolCalls?.length ?? 0), 0)).toBe(calls)
      expect(t.messages.filter((m) => m.role === 'tool').length).toBe(results)
      expect(t.warnings).toEqual([])
      // Every result answers a call made earlier.
      const ids = new Set(t.messages.flatMap((m) => (m.toolCalls ?? []).map((c) => c.id)))
      for (const m of t.messages) if (m.role === 'tool') expect(ids).toContain(m.toolCallId)
    }
  })
})
