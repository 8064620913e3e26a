/**
 * The rolling replay on one long turn: a single pass folds about 200,000 messages, past the size
 * at which an argument spread of the covered messages overflowed.
 */
import { describe, expect, it } from 'vitest'
import { longToolTurn } from '../../../test/hostile'
import { importTranscript } from '../formats'
import { summarize } from './summarize'
import { countCodePoints, makeContext } from './test-helpers'

describe('summarize over one turn of 100,000 tool calls', () => {
  it('one pass folds everything before the kept tail; the tail starts at a call, not a result', async () => {
    const imported = importTranscript(longToolTurn(100_000), { fileName: 'turn.json' })
    if (!imported.ok) throw new Error(imported.error.message)
    const messages = imported.transcript.messages
    expect(messages.length).toBe(200_002)
    const ctx = makeContext(countCodePoints, { summarize: () => Promise.resolve('checked') })
    const out = await summarize(messages, undefined, ctx)
    // One turn end (the last message). upto = 200,002 - keep_last 20 = 199,982 is a tool
    // result, so it retreats to 199,981: the call whose result follows it.
    expect(out.error).toBeUndefined()
    expect(out.passes.map((p) => [p.pass, p.from, p.upto, p.atMessage])).toEqual([[1, 0, 199_981, 200_001]])
    expect(out.messages.length).toBe(1 + 21)
    expect(out.messages[1]).toBe(messages[199_981])
    expect(messages[199_981]?.toolCalls?.length).toBe(1)
    expect(out.messages[0]?.content).toBe('[Summary of messages 0–199980 (pass 1)]\nchecked')
    expect(Object.keys(out.fates).length).toBe(199_981)
  })
})
