/**
 * Builds a Claude Code session JSONL (the 2.0.x on-disk shape of docs/formats.md §4.4) from a
 * short script, for tests of what the agent's own recorded compactions kept: user and assistant
 * text records, a tool call with its result (a `user` record holding the `tool_result`), and an
 * auto or manual compaction — a `system` `compact_boundary` record (`compactMetadata` with the
 * trigger and `preTokens`) followed by the `isCompactSummary` user record holding the summary.
 * Content is invented. Node and browser alike (no I/O).
 */

/** One step of a scripted session. */
export type SessionStep =
  | { user: string }
  | { assistant: string }
  | { tool: string; input: Record<string, unknown>; output: string }
  | { compact: string; trigger?: 'auto' | 'manual'; preTokens?: number }

const SESSION = '5e1f0c2a-8b3d-4a6e-9c71-2d4f6a8b0c99'

/** A uuid-shaped id for record `n` (stable: the same script gives the same file). */
const uuid = (n: number) => `c0${String(n).padStart(6, '0')}-6a1b-4c2d-8e3f-a1b2c3d4e5f6`

/**
 * The JSONL text of `steps`, one record a line (a tool step is two: the assistant's `tool_use` and
 * the user record with its `tool_result`). Timestamps advance a minute a record.
 */
export function claudeCodeSession(steps: readonly SessionStep[]): string {
  const lines: string[] = []
  let n = 0
  let parent: string | null = null
  const base = { isSidechain: false, userType: 'external', cwd: '/home/dev/shop', sessionId: SESSION, version: '2.0.76', gitBranch: 'main' }
  const push = (record: Record<string, unknown>) => {
    const id = uuid(++n)
    const time = new Date(Date.UTC(2025, 9, 3, 10, 0) + n * 60_000).toISOString()
    lines.push(JSON.stringify({ parentUuid: parent, ...base, ...record, uuid: id, timestamp: time }))
    parent = id
  }
  const assistant = (content: unknown[]) => ({
    type: 'assistant',
    message: { model: 'claude-sonnet-4-5-20250929', id: `msg_${n + 1}`, type: 'message', role: 'assistant', content, usage: { input_tokens: 900, output_tokens: 40 } },
  })
  for (const step of steps) {
    if ('user' in step) push({ type: 'user', message: { role: 'user', content: step.user } })
    else if ('assistant' in step) push(assistant([{ type: 'text', text: step.assistant }]))
    else if ('tool' in step) {
      const callId = `toolu_${String(n + 1).padStart(6, '0')}`
      push(assistant([{ type: 'tool_use', id: callId, name: step.tool, input: step.input }]))
      push({ type: 'user', message: { role: 'user', content: [{ tool_use_id: callId, type: 'tool_result', content: step.output }] } })
    } else {
      const logical = parent
      parent = null
      push({
        type: 'system',
        subtype: 'compact_boundary',
        content: 'Conversation compacted',
        isMeta: false,
        level: 'info',
        logicalParentUuid: logical,
        compactMetadata: { trigger: step.trigger ?? 'auto', preTokens: step.preTokens ?? 150_000 },
      })
      push({
        type: 'user',
        isCompactSummary: true,
        isVisibleInTranscriptOnly: true,
        message: {
          role: 'user',
          content: `This session is being continued from a previous conversation that ran out of context. The summary below covers the earlier portion of the conversation.\n\nSummary:\n${step.compact}`,
        },
      })
    }
  }
  return `${lines.join('\n')}\n`
}
