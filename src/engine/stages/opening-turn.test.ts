/**
 * A provider that requires the request to open with a user turn (Anthropic: "messages: first
 * message must use the user role", formats.md §4.3; SPEC §5 `first-not-user`) gets one after every
 * pass, even when a summary role was chosen explicitly: a summary a stage wrote that would open
 * the request in another role (insert-then-compress `summary_role: assistant`, seed 003; summarize
 * `summary_role: system` before a tail that opens with the assistant) takes the user role, and a
 * warning says so. Other providers keep the role asked for.
 */
import { describe, expect, it } from 'vitest'
import type { FormatId, Message, PipelineConfig, StageConfig, Transcript } from '../model'
import { runPipeline } from '../pipeline'
import { cacheCounter } from '../tokens/count'
import { COMPRESSED_SUMMARY_ID } from './insert-then-compress'
import { assistant, countCodePoints, deepFreeze, indexed, system, toolResult, user } from './test-helpers'

// 0 sys | 1 u1 | 2 a2 (call c1), 3 t3 | 4 a4 | 5 u5 | 6 a6
const conversation = (): Message[] =>
  indexed([
    system('sys', 'You are a coding agent.'),
    user('u1', 'Port the retry helper to the new HTTP client, keep the tests green.'),
    assistant('a2', null, [{ id: 'c1', name: 'read_file', arguments: '{"path":"net/retry.py"}' }]),
    toolResult('t3', 'c1', 'def retry(fn, n=3):\n' + '    pass\n'.repeat(40), 'read_file'),
    assistant('a4', 'Ported; the tests are next.'),
    user('u5', 'Run the tests.'),
    assistant('a6', 'All green.'),
  ])

const transcriptOf = (format: FormatId, messages: Message[]): Transcript =>
  deepFreeze({ format, messages, recordedCompactions: [], warnings: [] })
const config = (...stages: StageConfig[]): PipelineConfig => ({ encoding: 'o200k_base', summarizer: 'extractive', stages })
const run = (format: FormatId, messages: Message[], stage: StageConfig) =>
  runPipeline(transcriptOf(format, messages), config(stage), { counter: cacheCounter('o200k_base', countCodePoints) })

describe('the request opens with a user turn after every pass (Anthropic)', () => {
  const compress: StageConfig = { id: 'insert-then-compress', enabled: true, params: { threshold_tokens: 0, keep_recent: 1, summary_role: 'assistant' } }

  it('insert-then-compress, summary_role assistant: the summary takes the user role, with a warning', async () => {
    const result = await run('anthropic-messages', conversation(), compress)
    expect(result.after.messages.map((m) => [m.id, m.role])).toEqual([
      ['sys', 'system'],
      [COMPRESSED_SUMMARY_ID, 'user'],
      ['a6', 'assistant'],
    ])
    expect(result.checks.after).toEqual([])
    expect(result.warnings).toContain(
      `insert-then-compress: the summary ${COMPRESSED_SUMMARY_ID} takes the user role instead of assistant (summary_role): this provider requires the first non-system message to be a user turn`,
    )
  })

  it('OpenAI-shaped transcripts keep the assistant summary (seed 003), no warning', async () => {
    const result = await run('openai-chat', conversation(), compress)
    expect(result.after.messages[1]?.role).toBe('assistant')
    expect(result.warnings.filter((w) => w.includes('takes the user role'))).toEqual([])
  })

  it('summarize, summary_role system before a tail that opens with the assistant: the summary takes the user role', async () => {
    // Turn end a4: 4 conversation messages > 3, keep_last 1 keeps a4 (u1, a2, t3 summarized);
    // at a6 3 are unsummarized, not more than 3. The tail opens with a4, an assistant message.
    const result = await run('anthropic-messages', conversation(), {
      id: 'summarize',
      enabled: true,
      params: { keep_last: 1, compact_after: 3, summary_role: 'system' },
    })
    expect(result.after.messages.map((m) => [m.id, m.role])).toEqual([
      ['sys', 'system'],
      ['summary:summarize:1', 'user'],
      ['a4', 'assistant'],
      ['u5', 'user'],
      ['a6', 'assistant'],
    ])
    expect(result.warnings).toContain(
      'summarize: the summary summary:summarize:1 takes the user role instead of system (summary_role): this provider requires the first non-system message to be a user turn',
    )
    expect(result.checks.after).toEqual([])
  })

  it('summarize, summary_role system before a user turn: the role asked for stays', async () => {
    const messages = [...conversation(), user('u7', 'Ship it.')].map((m, index) => ({ ...m, index }))
    // Turn end a4: 4 > 3, keep_last 2 would start the tail at t3, which tail_start user cannot;
    // at a6: 6 > 3, the tail starts at u5 (u1…a4 summarized), a user turn.
    const result = await run('anthropic-messages', messages, {
      id: 'summarize',
      enabled: true,
      params: { keep_last: 2, compact_after: 3, summary_role: 'system', tail_start: 'user' },
    })
    expect(result.after.messages.map((m) => [m.id, m.role])).toEqual([
      ['sys', 'system'],
      ['summary:summarize:1', 'system'],
      ['u5', 'user'],
      ['a6', 'assistant'],
      ['u7', 'user'],
    ])
    expect(result.checks.after.filter((p) => p.rule === 'first-not-user')).toEqual([])
    expect(result.warnings.filter((w) => w.includes('takes the user role'))).toEqual([])
  })
})
