import { describe, expect, it } from 'vitest'
import { loadCase } from '../../../test/fixtures'
import { checkValidity } from '../analysis/checks'
import type { Message } from '../model'
import {
  COMPRESSED_SUMMARY_ID,
  COMPRESSION_INSTRUCTION,
  DEFAULT_KEEP_RECENT,
  DEFAULT_THRESHOLD_TOKENS,
  EMPTY_ANSWER_ERROR,
  archiveAnchor,
  buildCompressionRequest,
  compressionPromptText,
  insertThenCompress,
  normalizeInsertParams,
  recentStart,
} from './insert-then-compress'
import {
  assistant,
  countCodePoints,
  deepFreeze,
  fromCaseChat,
  indexed,
  makeContext,
  system,
  toolResult,
  user,
  type CaseChatMessage,
} from './test-helpers'
import type { SummaryRequest } from './types'

function recorder(answer: string) {
  const requests: SummaryRequest[] = []
  return {
    requests,
    fn: (r: SummaryRequest) => {
      requests.push(r)
      return Promise.resolve(answer)
    },
  }
}

// 0 sys, 1 u1, 2 a2(c1), 3 t3, 4 a4, 5 u5, 6 a6(c2), 7 t7, 8 a8, 9 u9
const convo = deepFreeze(
  indexed([
    system('sys', 'You are a coding agent.'),
    user('u1', 'Port the retry helper to the new HTTP client.'),
    assistant('a2', null, [{ id: 'c1', name: 'read_file', arguments: '{"path":"net/retry.py"}' }]),
    toolResult('t3', 'c1', 'def retry(fn, n=3): ...'.repeat(10), 'read_file'),
    assistant('a4', 'Read it; porting now.'),
    user('u5', 'Also keep the backoff.'),
    assistant('a6', null, [{ id: 'c2', name: 'edit_file', arguments: '{"path":"net/retry.py"}' }]),
    toolResult('t7', 'c2', 'ok', 'edit_file'),
    assistant('a8', 'Ported; tests next.'),
    user('u9', 'Run the tests.'),
  ]),
)

describe('insert-then-compress constants and params (seed 003)', () => {
  it('the instruction says what seed 003 says, in our words', () => {
    for (const s of [
      'is over',
      'Do not continue',
      'Do not call any tool',
      'plain text',
      '<summary>',
      '<analysis>',
      'file',
      'errors',
      'pending',
    ]) {
      expect(COMPRESSION_INSTRUCTION).toContain(s)
    }
    expect(EMPTY_ANSWER_ERROR).toBe('LLM compression failed: unable to parse compressed messages')
  })

  it('normalizes params', () => {
    expect(normalizeInsertParams(undefined)).toEqual({
      threshold_tokens: DEFAULT_THRESHOLD_TOKENS,
      keep_recent: DEFAULT_KEEP_RECENT,
      archive_anchor: false,
      summary_role: 'assistant',
    })
    expect(
      normalizeInsertParams({ threshold_tokens: -1, keep_recent: 0, summary_role: 'user' }),
    ).toEqual({
      threshold_tokens: DEFAULT_THRESHOLD_TOKENS,
      keep_recent: 0,
      archive_anchor: false,
      summary_role: 'user',
    })
    expect(normalizeInsertParams({ threshold_tokens: 99.7, keep_recent: 2.5 })).toMatchObject({
      threshold_tokens: 99,
      keep_recent: 2,
    })
  })
})

describe('recentStart', () => {
  it('extends backwards over a tool result to its call', () => {
    // 10 - 3 = 7 (t7, answering c2 at 6) → 6.
    expect(recentStart(convo, 3)).toBe(6)
    expect(recentStart(convo, 4)).toBe(6)
    expect(recentStart(convo, 2)).toBe(8)
  })

  it('pulls in a whole parallel batch', () => {
    const batch = indexed([
      user('u', 'go'),
      assistant('a', null, [
        { id: 'x', name: 't' },
        { id: 'y', name: 't' },
      ]),
      toolResult('tx', 'x', '1'),
      toolResult('ty', 'y', '2'),
    ])
    expect(recentStart(batch, 1)).toBe(1)
  })

  it('keep_recent 0 keeps nothing; more than the length keeps everything', () => {
    expect(recentStart(convo, 0)).toBe(10)
    expect(recentStart(convo, 50)).toBe(0)
  })

  it('a reused call id pulls back only to its own call, not to the first call with that id', () => {
    // SWE-agent reuses ids across steps: t6 answers the call in a5, not the one in a1.
    const reused = indexed([
      user('u0', 'go'),
      assistant('a1', null, [{ id: 'call_0', name: 'bash' }]),
      toolResult('t2', 'call_0', 'one'),
      assistant('a3', 'next'),
      user('u4', 'again'),
      assistant('a5', null, [{ id: 'call_0', name: 'bash' }]),
      toolResult('t6', 'call_0', 'two'),
      assistant('a7', 'done'),
    ])
    expect(recentStart(reused, 2)).toBe(5)
  })
})

describe('buildCompressionRequest (cases/48)', () => {
  it('is the conversation, same objects and bytes, plus one user instruction', () => {
    const request = buildCompressionRequest(convo)
    expect(request.prefixLength).toBe(10)
    expect(request.messages).toHaveLength(11)
    convo.forEach((m, i) => expect(request.messages[i]).toBe(m))
    expect(JSON.stringify(request.messages.slice(0, 10))).toBe(JSON.stringify(convo))
    expect(request.instruction).toMatchObject({ role: 'user', content: COMPRESSION_INSTRUCTION })
    expect(request.messages[10]).toBe(request.instruction)
  })
})

describe('insertThenCompress', () => {
  const params = { threshold_tokens: 0, keep_recent: 3 }

  it('compresses everything but the first system message and the recent messages', async () => {
    const s = recorder('<summary>Ported retry to httpx; tests pending.</summary>')
    const out = await insertThenCompress(
      convo,
      params,
      makeContext(countCodePoints, { summarize: s.fn }),
    )
    expect(out.error).toBeUndefined()
    expect(out.messages.map((m) => m.id)).toEqual([
      'sys',
      COMPRESSED_SUMMARY_ID,
      'a6',
      't7',
      'a8',
      'u9',
    ])
    expect(out.messages[0]).toBe(convo[0])
    expect(out.messages[1]).toMatchObject({
      role: 'assistant',
      content: '<summary>Ported retry to httpx; tests pending.</summary>',
    })
    for (let i = 2; i < 6; i++) expect(out.messages[i]).toBe(convo[i + 4])

    expect(s.requests).toHaveLength(1)
    expect(s.requests[0]?.prompt).toBe(COMPRESSION_INSTRUCTION)
    expect(s.requests[0]?.conversation).toBe(convo)
    expect(s.requests[0]?.slice.map((m) => m.id)).toEqual(['u1', 'a2', 't3', 'a4', 'u5'])

    const summarized = {
      kind: 'summarized',
      stage: 'insert-then-compress',
      pass: 1,
      summaryId: COMPRESSED_SUMMARY_ID,
    }
    expect(out.fates).toEqual({
      u1: summarized,
      a2: summarized,
      t3: summarized,
      a4: summarized,
      u5: summarized,
    })
    expect(out.origins).toEqual({
      [COMPRESSED_SUMMARY_ID]: {
        kind: 'summary',
        stage: 'insert-then-compress',
        pass: 1,
        fromIndex: 1,
        toIndex: 5,
        coveredIds: ['u1', 'a2', 't3', 'a4', 'u5'],
      },
    })
    const total = (ms: readonly Message[]) =>
      ms.reduce(
        (n, m) =>
          n +
          countCodePoints(typeof m.content === 'string' ? m.content : '') +
          (m.toolCalls ?? []).reduce((k, c) => k + c.name.length + c.arguments.length, 0),
        0,
      )
    expect(out.passes).toEqual([
      {
        pass: 1,
        stage: 'insert-then-compress',
        atMessage: 9,
        from: 1,
        upto: 6,
        prompt: compressionPromptText(10),
        summary: '<summary>Ported retry to httpx; tests pending.</summary>',
        summaryId: COMPRESSED_SUMMARY_ID,
        tokensBefore: total(convo),
        tokensAfter: total(out.messages),
      },
    ])
    expect(checkValidity(out.messages)).toEqual([])
  })

  it('never duplicates the system prompt: system messages among the recent are dropped', async () => {
    const input = indexed([
      ...convo.slice(0, 9),
      system('sys2', 'You are a coding agent.'),
      user('u10', 'go'),
    ])
    const out = await insertThenCompress(
      input,
      { threshold_tokens: 0, keep_recent: 2 },
      makeContext(countCodePoints, { summarize: recorder('S').fn }),
    )
    expect(out.messages.map((m) => m.id)).toEqual(['sys', COMPRESSED_SUMMARY_ID, 'u10'])
    expect(out.fates.sys2).toMatchObject({ kind: 'dropped', stage: 'insert-then-compress' })
    expect(checkValidity(out.messages)).toEqual([])
    // The duplicate rule is Anthropic's (OpenAI accepts a system message again).
    const anthropic = checkValidity(out.messages, { provider: 'anthropic' })
    expect(anthropic.filter((p) => p.rule === 'duplicate-system-prompt')).toEqual([])
  })

  it('works without a system message', async () => {
    const out = await insertThenCompress(
      convo.slice(1),
      params,
      makeContext(countCodePoints, { summarize: recorder('S').fn }),
    )
    expect(out.messages.map((m) => m.id)).toEqual([COMPRESSED_SUMMARY_ID, 'a6', 't7', 'a8', 'u9'])
  })

  it('an empty answer is an error, never an empty context', async () => {
    const out = await insertThenCompress(
      convo,
      params,
      makeContext(countCodePoints, { summarize: recorder('  \n').fn }),
    )
    expect(out.error).toBe(EMPTY_ANSWER_ERROR)
    expect(out.changed).toBe(false)
    expect(out.messages).toBe(convo)
  })

  it('under the threshold: no call, no change', async () => {
    const s = recorder('S')
    const out = await insertThenCompress(
      convo,
      { threshold_tokens: 100000, keep_recent: 3 },
      makeContext(countCodePoints, { summarize: s.fn }),
    )
    expect(s.requests).toHaveLength(0)
    expect(out.changed).toBe(false)
    expect(out.messages).toBe(convo)
    expect(out.note).toMatch(/^under threshold/)
  })

  it('nothing to compress when everything is recent', async () => {
    const s = recorder('S')
    const out = await insertThenCompress(
      convo,
      { threshold_tokens: 0, keep_recent: 50 },
      makeContext(countCodePoints, { summarize: s.fn }),
    )
    expect(s.requests).toHaveLength(0)
    expect(out.changed).toBe(false)
  })

  it('refuses a rebuilt context that is not smaller', async () => {
    const out = await insertThenCompress(
      convo,
      params,
      makeContext(countCodePoints, { summarize: recorder('x'.repeat(5000)).fn }),
    )
    expect(out.changed).toBe(false)
    expect(out.messages).toBe(convo)
    expect(out.note).toMatch(/^refused/)
  })

  it('adds the archive anchor when asked', async () => {
    const out = await insertThenCompress(
      convo,
      { ...params, archive_anchor: true },
      makeContext(countCodePoints, { summarize: recorder('S').fn }),
    )
    expect(out.messages[1]?.content).toBe(`S${archiveAnchor('compressed-chunk-1-5.md')}`)
    expect(archiveAnchor('c.md')).toBe(
      '\n\n---\nOriginal conversation archived as `c.md`; it holds the messages this summary replaces.',
    )
  })

  it('summary_role user keeps a user turn first (Anthropic)', async () => {
    const out = await insertThenCompress(
      convo,
      { ...params, summary_role: 'user' } as never,
      makeContext(countCodePoints, { summarize: recorder('S').fn }),
    )
    expect(out.messages[1]?.role).toBe('user')
    expect(checkValidity(out.messages, { provider: 'anthropic' })).toEqual([])
  })

  it('cases/48: system + summary + the last user turn; the request prefix is the existing request', async () => {
    const raw = loadCase<{ input: CaseChatMessage[]; params: { keep_last: number } }>(
      '48-insert-then-compress-prefix.json',
    )
    const input = deepFreeze(fromCaseChat(raw.input))
    const s = recorder('<summary>Retry helper ported (net/retry.py); tests requested.</summary>')
    const out = await insertThenCompress(
      input,
      { threshold_tokens: 0, keep_recent: raw.params.keep_last },
      makeContext(countCodePoints, { summarize: s.fn }),
    )
    expect(out.messages.map((m) => m.id)).toEqual(['m0', COMPRESSED_SUMMARY_ID, 'm7'])
    expect(s.requests[0]?.conversation).toBe(input)
    const request = buildCompressionRequest(input)
    expect(JSON.stringify(request.messages.slice(0, -1))).toBe(JSON.stringify(input))
    expect(request.messages[request.messages.length - 1]).toMatchObject({
      role: 'user',
      content: COMPRESSION_INSTRUCTION,
    })
    // The instruction is not part of the rebuilt history.
    expect(out.messages.some((m) => m.content === COMPRESSION_INSTRUCTION)).toBe(false)
    expect(checkValidity(out.messages)).toEqual([])
  })
})
