/**
 * Facts needed after they were lost: the back-reference table, and on runs of the replay which
 * lost facts a later message mentioned — by the user's back-reference, by the assistant, by a
 * tool result — with the pass named. Expected values are read off the fixtures and the
 * summarize plan (keep_last / compact_after), never off the implementation's output.
 */
import { describe, expect, it } from 'vitest'
import { POSTAL_CODE_NEEDED, postalCodeTranscript } from '../../../test/postal-code-needed'
import type { Message, PipelineConfig, RunResult, Transcript } from '../model'
import { runPipeline } from '../pipeline'
import { assistant, indexed, system, toolResult, user } from '../stages/test-helpers'
import type { Summarizer } from '../stages/types'
import { extractiveSummarizer } from '../summarizers/extractive'
import { loadCounter } from '../tokens/count'
import { findBackReferences, neededText } from './needed'
import { factTable, neededFacts } from './table'

/** Summarize only: keep 2, compact after 4 (the fixture's two passes). */
const SUMMARIZE: PipelineConfig = {
  encoding: 'o200k_base',
  summarizer: 'extractive',
  stages: [{ id: 'summarize', enabled: true, params: { keep_last: 2, compact_after: 4 } }],
}

async function run(t: Transcript, config: PipelineConfig = SUMMARIZE, summarizer: Summarizer = extractiveSummarizer): Promise<RunResult> {
  return runPipeline(t, config, { counter: await loadCounter('o200k_base'), summarizer })
}

describe('findBackReferences', () => {
  it.each([
    ['Ship it to the postal code I gave you.', ['postal-code']],
    ['Use the order number I mentioned.', ['id']],
    ['As I said, the address is the same as before', ['postal-code']],
    ['Send it to the e-mail address I told you', ['email']],
    ['Open the file above and fix the date I gave you.', ['file-path', 'date']],
    ['The zip from earlier, please.', ['postal-code']],
  ])('%s', (text, kinds) => {
    expect(findBackReferences(text).map((r) => r.kinds)).toEqual([kinds])
  })

  it('needs both a noun and a phrase, per sentence', () => {
    expect(findBackReferences('What is your postal code?')).toEqual([])
    expect(findBackReferences('As I said, thanks.')).toEqual([])
    // The phrase and the noun sit in different sentences.
    expect(findBackReferences('I gave you everything. The postal code is new.')).toEqual([])
  })

  it('quotes the sentence that refers back', () => {
    expect(findBackReferences('Good.  Ship it to the\tpostal code I gave you.')).toEqual([
      { kinds: ['postal-code'], sentence: 'Ship it to the postal code I gave you.' },
    ])
  })
})

describe('neededText', () => {
  it('reads as the totals line', () => {
    expect(neededText(0)).toBe('0 facts were needed after compaction removed them')
    expect(neededText(1)).toBe('1 fact was needed after compaction removed it')
    expect(neededText(1200)).toBe('1,200 facts were needed after compaction removed them')
  })
})

describe('the postal code the user gave before compaction', () => {
  // The fixture: the catalog search returns 42 lamp ids (LMP-1001…LMP-1042, message 3); the user
  // gives the postal code 01310-100 in message 5 and at message 11 says "Ship it to the postal
  // code I gave you". keep_last 2 / compact_after 4: pass 1 fires at the turn end 6 (messages
  // 1–6 unsummarized, > 4) and folds 1–4; pass 2 at 10 folds 5–8 with pass 1's summary, whose 40
  // facts (the first 40 lamp ids, MAX_FACTS) come first, so the postal code is left out.
  it('is needed after pass 2 removed it, by the back-reference of message 11', async () => {
    const r = await run(postalCodeTranscript())
    expect(r.passes.map((p) => [p.pass, p.atMessage, p.from, p.upto])).toEqual([
      [1, 6, 1, 5],
      [2, 10, 5, 9],
    ])
    const table = factTable(r)
    const row = table.rows.find((x) => x.fact === '01310-100')
    expect(row?.kind).toBe('postal-code')
    expect(row?.neededAfterLoss).toEqual(POSTAL_CODE_NEEDED)
    // The lamp ids past the 40th are lost too, but nothing mentions them again.
    expect(table.rows.filter((x) => x.neededAfterLoss).map((x) => x.fact)).toEqual(['01310-100'])
    expect(table.totals.needed).toBe(1)
    expect(table.totals.neededText).toBe('1 fact was needed after compaction removed it')
    // The over-compression warning names the pass, the message that needed it and the sentence.
    expect((r.checks.failureModes ?? []).filter((w) => w.neededFacts !== undefined)).toEqual([
      {
        rule: 'over-compression',
        message:
          'pass 2 of summarize (at #10) removed a fact a later message needed: "01310-100" (needed at #11, user: ' +
          '"Ship it to the postal code I gave you.")',
        messageIds: ['m5', 'm11', 'summary:summarize:2'],
        neededFacts: 1,
      },
    ])
    expect(neededFacts(r)).toEqual([
      {
        fact: '01310-100',
        kind: 'postal-code',
        index: table.rows.indexOf(row!),
        beforeIds: ['m5'],
        neededAfterLoss: row!.neededAfterLoss,
      },
    ])
  })

  it('is worked out once per run: the checks, the facts table and a second ask share one answer', async () => {
    const r = await run(postalCodeTranscript())
    const first = neededFacts(r)
    expect(neededFacts(r)).toBe(first)
    const row = factTable(r).rows.find((x) => x.fact === '01310-100')
    expect(row?.neededAfterLoss).toBe(first[0]?.neededAfterLoss)
    expect(row?.neededAfterLoss).toEqual(POSTAL_CODE_NEEDED)
  })

  it('is not needed when the summary keeps it', async () => {
    // keep_last 6 / compact_after 8: one pass at turn end 10 folds 1–4; message 5 stays verbatim.
    const r = await run(postalCodeTranscript(), {
      ...SUMMARIZE,
      stages: [{ id: 'summarize', enabled: true, params: { keep_last: 6, compact_after: 8 } }],
    })
    expect(r.passes.map((p) => [p.atMessage, p.from, p.upto])).toEqual([[10, 1, 5]])
    expect(factTable(r).totals.needed).toBe(0)
    expect(neededFacts(r)).toEqual([])
  })
})

/** A coding session: the user gives a date and a tag, the agent reads a config, reads it again after a pass. */
function codingSession(): Transcript {
  const read = (id: string, call: string) =>
    assistant(id, null, [{ id: call, name: 'read_file', arguments: '{"path":"config/service.yaml"}' }])
  const messages: Message[] = [
    system('s', 'You are a coding agent.'),
    user('u1', 'Bump the timeout in the service config. Release on 2025-07-01 with tag REL-4410.'),
    read('a2', 'c1'),
    toolResult('t3', 'c1', 'timeout: 30\nowner: ops@example.com', 'read_file'),
    assistant('a4', 'The timeout is 30.'),
    user('u5', 'Make it 60.'),
    assistant('a6', 'Set to 60.'),
    user('u7', 'Check it again.'),
    read('a8', 'c2'),
    toolResult('t9', 'c2', 'timeout: 60\nowner: ops@example.com', 'read_file'),
    assistant('a10', 'It is 60 now.'),
    user('u11', 'Tag it as I said: the id I gave you.'),
    assistant('a12', 'Tagging with the date from earlier.'),
  ]
  return { format: 'openai-chat', messages: indexed(messages), recordedCompactions: [], warnings: [] }
}

/** A summarizer that keeps nothing: every folded fact is lost at the pass that folds it. */
const forgetful: Summarizer = async () => 'The user and the agent talked.'

describe('mentions after the pass', () => {
  // keep_last 2 / compact_after 4; the turn ends are the assistant's answers (4, 6, 10, 12): pass
  // 1 fires at 6 (messages 1–6 unsummarized, > 4) and folds 1–4 — the date, REL-4410, the read
  // of config/service.yaml and the owner's e-mail; pass 2 fires at 10 and folds 5–7 (the read
  // at 8 stays with its result at 9), pass 3 at 12 folds 8–10.
  it('counts a tool call and a tool result re-obtaining it, and back-references by kind', async () => {
    const r = await run(codingSession(), SUMMARIZE, forgetful)
    expect(r.passes.map((p) => [p.pass, p.atMessage, p.from, p.upto])).toEqual([
      [1, 6, 1, 5],
      [2, 10, 5, 8],
      [3, 12, 8, 11],
    ])
    const needed = Object.fromEntries(neededFacts(r).map((n) => [n.fact, n.neededAfterLoss]))
    // The path comes back in the assistant's second read (its arguments, message 8).
    expect(needed['config/service.yaml']).toMatchObject({ pass: 1, atMessage: 6, messageId: 'a8', role: 'assistant', how: 'verbatim' })
    // The e-mail comes back in that read's result (message 9).
    expect(needed['ops@example.com']).toMatchObject({ pass: 1, messageId: 't9', role: 'tool', how: 'verbatim' })
    // "the id I gave you" (message 11) marks the user's id; "the date from earlier" (12) the date.
    expect(needed['REL-4410']).toMatchObject({ pass: 1, messageId: 'u11', role: 'user', how: 'back-reference' })
    expect(needed['2025-07-01']).toMatchObject({ pass: 1, messageId: 'a12', role: 'assistant', how: 'back-reference' })
    const rows = factTable(r).rows.filter((x) => x.neededAfterLoss)
    expect(Object.fromEntries(rows.map((x) => [x.fact, x.neededAfterLoss]))).toEqual(needed)
  })

  it('a back-reference prefers the facts the user stated', async () => {
    const t = codingSession()
    // The assistant states an id of its own before pass 1; "the id I gave you" still marks only the user's.
    t.messages[4] = { ...(t.messages[4] as Message), content: 'The timeout is 30; ticket OPS-17 tracks it.' }
    const r = await run(t, SUMMARIZE, forgetful)
    const needed = Object.fromEntries(neededFacts(r).map((n) => [n.fact, n.neededAfterLoss.messageId]))
    expect(needed['REL-4410']).toBe('u11')
    expect(needed['OPS-17']).toBeUndefined()
  })
})
