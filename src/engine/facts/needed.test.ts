/**
 * Facts needed after they were lost: the back-reference table, and on runs of the replay which
 * lost facts a later user or assistant message needed — repeating them, referring back to them
 * or asking for them again — with the pass named, and which a tool re-read (re-work, not a
 * need). Expected values are read off the fixtures and the summarize plan (keep_last /
 * compact_after), never off the implementation's output.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { POSTAL_CODE_NEEDED, postalCodeTranscript } from '../../../test/postal-code-needed'
import type { Message, PipelineConfig, RunResult, Transcript } from '../model'
import { runPipeline } from '../pipeline'
import { assistant, indexed, system, toolResult, user } from '../stages/test-helpers'
import type { Summarizer } from '../stages/types'
import { extractiveSummarizer } from '../summarizers/extractive'
import { loadCounter } from '../tokens/count'
import { messageFactText, type FactKind } from './patterns'
import { findBackReferences, mentionsOf, neededAfterEachLoss, neededAfterLoss, neededByText, neededText, reReadAfterLoss } from './needed'
import type { PassRun } from './pass-runs'
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
    ['Use the order number I mentioned.', ['id', 'number', 'code']],
    ['As I said, the address is the same as before', ['postal-code']],
    ['Send it to the e-mail address I told you', ['email']],
    ['Open the file above and fix the date I gave you.', ['file-path', 'date']],
    ['The zip from earlier, please.', ['postal-code']],
    ['Reopen the file from before.', ['file-path']],
    ['Deploy the branch I mentioned on the port from earlier.', ['port', 'branch']],
    ['Call the phone number I gave you.', ['phone']],
    ['Check out the commit above.', ['hash']],
    ['Pin the version I told you and set the variable I gave you.', ['version', 'reference', 'env-var']],
  ])('%s', (text, kinds) => {
    expect(findBackReferences(text)).toEqual([expect.objectContaining({ kinds, how: 'back-reference' })])
  })

  it.each([
    ['en', 'Ship it to the postal code I gave you.', ['postal-code']],
    ['es', 'Envíalo a la dirección que te di.', ['postal-code']],
    ['de', 'Nimm die Bestellnummer, die ich dir gegeben habe.', ['id', 'number', 'code']],
    ['pt', 'Mande para o CEP que te passei.', ['postal-code']],
    ['fr', "Livrez au code postal que je t'ai donné.", ['postal-code']],
    ['es, demonstrative', 'Cancela ese pedido.', ['id', 'number', 'code']],
    ['en, demonstrative', 'Cancel that order.', ['id', 'number', 'code']],
    ['de, phone', 'Ruf die Telefonnummer an, die ich Ihnen genannt habe.', ['phone']],
  ])('refers back in %s: %s', (_, text, kinds) => {
    expect(findBackReferences(text)).toEqual([expect.objectContaining({ kinds, how: 'back-reference' })])
  })

  /** The nouns of the postal-code and order-number entries of the noun table. */
  const POSTAL = [{ kinds: ['postal-code'] }]
  const ORDER_NUMBER = [{ kinds: ['id'], orElse: ['number', 'code'] }]
  const PORT = [{ kinds: ['port'] }]

  it.each([
    ['en', 'Which postal code should I use?', ['postal-code'], POSTAL],
    ['en', 'Could you send me the order number again?', ['id', 'number', 'code'], ORDER_NUMBER],
    ['en', 'What is your postal code?', ['postal-code'], POSTAL],
    ['es', '¿Cuál es tu código postal?', ['postal-code'], POSTAL],
    ['de', 'Welche Postleitzahl soll ich verwenden?', ['postal-code'], POSTAL],
    ['pt', 'Qual é o seu CEP?', ['postal-code'], POSTAL],
    ['fr', 'Quel est votre code postal ?', ['postal-code'], POSTAL],
  ])('asks again in %s: %s', (_, text, kinds, nouns) => {
    expect(findBackReferences(text)).toEqual([{ kinds, nouns, sentence: text, how: 'asked-again' }])
  })

  // Asking again: "what was the X", "which one was it" in a question; repeat / repetir /
  // wiederholen / répéter, "I don't have it", "lost the X", "no lo tengo" in any sentence.
  it.each([
    ['en, what was', 'What was the port?', 'What was the port?'],
    ['en, imperative repeat', 'Please repeat the port number.', 'Please repeat the port number.'],
    ['en, repeat, then "I do not have it"', 'Can you repeat the port? I do not have it anymore.', 'Can you repeat the port?'],
    ['en, lost, which one was it', 'I seem to have lost the port, which one was it?', 'I seem to have lost the port, which one was it?'],
    ['en, no longer have', 'I do not have the port anymore.', 'I do not have the port anymore.'],
    ['es, repetir', '¿Me puedes repetir el puerto? No lo tengo.', '¿Me puedes repetir el puerto?'],
    ['es, no lo tengo', 'El número de puerto, no lo tengo.', 'El número de puerto, no lo tengo.'],
    ['pt, repetir', 'Pode repetir a porta do servidor?', 'Pode repetir a porta do servidor?'],
    ['de, wiederholen', 'Kannst du den Port wiederholen?', 'Kannst du den Port wiederholen?'],
    ['fr, répéter', 'Pouvez-vous répéter le port ?', 'Pouvez-vous répéter le port ?'],
  ])('asks again for the port (%s): %s', (_, text, sentence) => {
    expect(findBackReferences(text)).toEqual([{ kinds: ['port'], nouns: PORT, sentence, how: 'asked-again' }])
  })

  it('asks again only for a noun of the table; "what was" and "lost" outside a question need one too', () => {
    expect(findBackReferences('Please repeat the deploy.')).toEqual([])
    expect(findBackReferences('What was the result?')).toEqual([])
    expect(findBackReferences('The server lost the connection.')).toEqual([])
  })

  // Idioms holding a noun of the table name no fact; a ticket, an issue, a pull request is a
  // reference (a numbered one), else an id (a tracker key).
  it.each([
    ['Run the three migration steps in that order, please.'],
    ['Apply them in the same order as I said.'],
    ['Ejecuta los pasos en ese orden.'],
  ])('an idiom is no fact: %s', (text) => {
    expect(findBackReferences(text)).toEqual([])
  })

  it.each([
    ['en', 'Put the ticket in the sprint board, like I said.'],
    ['en', 'Merge the PR I mentioned.'],
    ['en', 'Close the issue from earlier.'],
    ['es', 'Cierra la incidencia que te di.'],
    ['pt', 'Feche o chamado que te passei.'],
  ])('a ticket is a reference, else an id (%s): %s', (_, text) => {
    expect(findBackReferences(text)).toEqual([
      { kinds: ['reference', 'id'], nouns: [{ kinds: ['reference'], orElse: ['id'] }], sentence: text, how: 'back-reference' },
    ])
  })

  it('a customer number is an id, a number only when no id came before', () => {
    expect(findBackReferences('¿Cuál es tu número de cliente?')).toEqual([
      { kinds: ['id', 'number', 'code'], nouns: ORDER_NUMBER, sentence: '¿Cuál es tu número de cliente?', how: 'asked-again' },
    ])
  })

  it('needs both a noun and a phrase, per sentence; a question asks again only with an asking phrase', () => {
    expect(findBackReferences('Which file should I look at?')).toEqual([])
    expect(findBackReferences('As I said, thanks.')).toEqual([])
    // The phrase and the noun sit in different sentences.
    expect(findBackReferences('I gave you everything. The postal code is new.')).toEqual([])
    // "again" outside a question, "in order to", "the data" (not the Portuguese "a data").
    expect(findBackReferences('Send me the postal code again.')).toEqual([])
    expect(findBackReferences('In order to ship, I need that.')).toEqual([])
    expect(findBackReferences('Load the data from earlier.')).toEqual([])
    // A demonstrative counts for the noun right after it only.
    expect(findBackReferences('Cancel that order and ship to the address.')).toEqual([
      expect.objectContaining({ kinds: ['id', 'number', 'code'] }),
    ])
  })

  it('quotes the sentence that refers back', () => {
    expect(findBackReferences('Good.  Ship it to the\tpostal code I gave you.')).toEqual([
      { kinds: ['postal-code'], nouns: [{ kinds: ['postal-code'] }], sentence: 'Ship it to the postal code I gave you.', how: 'back-reference' },
    ])
  })
})

describe('neededText', () => {
  it('counts distinct facts and names the first three, long ones cut', () => {
    expect(neededText([])).toBe('0 facts were needed after compaction removed them')
    expect(neededText(['01310-100'])).toBe('1 fact was needed after compaction removed it: 01310-100')
    // The same text needed under two kinds is one fact.
    expect(neededText(['94107', 'ORD-58213', '94107'])).toBe('2 facts were needed after compaction removed them: 94107, ORD-58213')
    expect(neededText(['a', 'b', 'c', 'd', 'e'])).toBe('5 facts were needed after compaction removed them: a, b, c, +2 more')
    // 40 code points at most: 39 and an ellipsis; whitespace collapsed.
    const long = `${'x'.repeat(45)}`
    expect(neededText([long, 'two\n lines'])).toBe(`2 facts were needed after compaction removed them: ${'x'.repeat(39)}…, two lines`)
    const many = Array.from({ length: 1203 }, (_, i) => `F-${i}`)
    expect(neededText(many)).toBe('1,203 facts were needed after compaction removed them: F-0, F-1, F-2, +1,200 more')
  })
})

describe('neededByText', () => {
  it('words how a message needed a fact', () => {
    expect(neededByText({ role: 'user', phrase: 'Ship it to the postal code I gave you.' })).toBe('user: "Ship it to the postal code I gave you."')
    expect(neededByText({ role: 'assistant', phrase: 'Which postal code should I use?', asked: true })).toBe('assistant asked: "Which postal code should I use?"')
    expect(neededByText({ role: 'assistant' })).toBe('assistant, verbatim')
  })
})

/**
 * `neededAfterLoss` and `reReadAfterLoss` on `messages` (indexed by position) and `facts`, every
 * fact lost at one pass firing at the turn end `atMessage` (the facts table's runs for a fact a
 * pass removed and nothing brought back into its summary). Holders: the messages whose fact text
 * holds the fact, as the fact index finds them.
 */
function afterOnePass(messages: Message[], facts: { fact: string; kind: FactKind }[], atMessage: number) {
  const m = indexed(messages)
  const holders = facts.map((f) => m.filter((x) => messageFactText(x).includes(f.fact)).map((x) => x.id))
  const mentions = mentionsOf(m, facts, holders)
  const passes = [{ stage: 'summarize' as const, pass: 1, atMessage }]
  const lost = () => [{ state: 'lost' as const, from: 0, to: 0 }]
  const all = facts.map((_, i) => i)
  return {
    mentions,
    needed: neededAfterLoss(mentions, facts, all, passes, lost),
    reRead: reReadAfterLoss(mentions, all, passes, lost),
  }
}

/** The pass of `afterOnePass` at turn end 2. */
const PASS = { stage: 'summarize', pass: 1, atMessage: 2 }

describe('who needs a lost fact', () => {
  const postal = { fact: '01310-100', kind: 'postal-code' as const }
  const order = { fact: 'ORD-58213', kind: 'id' as const }

  it.each([
    ['en', 'Which postal code should I use?'],
    ['es', '¿Cuál es tu código postal?'],
    ['de', 'Welche Postleitzahl soll ich verwenden?'],
  ])('the assistant asking for it again (%s)', (_, question) => {
    const { needed } = afterOnePass(
      [system('s', 'You ship lamps.'), user('u1', 'Deliver to 01310-100.'), assistant('a2', 'Noted.'), user('u3', 'Ship it now.'), assistant('a4', question)],
      [postal],
      2,
    )
    expect([...needed]).toEqual([[0, { ...PASS, messageId: 'a4', messageIndex: 4, role: 'assistant', how: 'back-reference', phrase: question, asked: true }]])
  })

  it('the assistant asking again for the order number marks the user\'s order id', () => {
    const question = 'Could you send me the order number again?'
    const { needed } = afterOnePass(
      [system('s', 'You ship lamps.'), user('u1', 'Order ORD-58213, please.'), assistant('a2', 'Noted.'), user('u3', 'Ship it.'), assistant('a4', question)],
      [order],
      2,
    )
    expect(needed.get(0)).toEqual({ ...PASS, messageId: 'a4', messageIndex: 4, role: 'assistant', how: 'back-reference', phrase: question, asked: true })
  })

  it.each([
    ['en', 'Ship it to the postal code I gave you.'],
    ['es', 'Envíalo a la dirección que te di.'],
    ['de', 'Schick es an die Postleitzahl, die ich dir gegeben habe.'],
    ['pt', 'Mande para o CEP que te passei.'],
    ['fr', "Livrez au code postal que je t'ai donné."],
  ])('the user referring back to it (%s)', (_, sentence) => {
    const { needed } = afterOnePass(
      [system('s', 'You ship lamps.'), user('u1', 'Deliver to 01310-100.'), assistant('a2', 'Noted.'), user('u3', sentence), assistant('a4', 'On its way.')],
      [postal],
      2,
    )
    expect([...needed]).toEqual([[0, { ...PASS, messageId: 'u3', messageIndex: 3, role: 'user', how: 'back-reference', phrase: sentence }]])
  })

  it('the assistant repeating it in its own words; a tool result repeating it is re-work, not a need', () => {
    const messages = [
      system('s', 'You ship lamps.'),
      user('u1', 'Order ORD-58213, please.'),
      assistant('a2', 'Noted.'),
      assistant('a3', null, [{ id: 'c1', name: 'lookup_order', arguments: '{"id":"ORD-58213"}' }]),
      toolResult('t4', 'c1', 'ORD-58213: paid', 'lookup_order'),
      assistant('a5', 'ORD-58213 is paid.'),
    ]
    const { needed, reRead } = afterOnePass(messages, [order], 2)
    expect([...needed]).toEqual([[0, { ...PASS, messageId: 'a5', messageIndex: 5, role: 'assistant', how: 'verbatim' }]])
    // The tool call's arguments came back first (3), before the result (4).
    expect([...reRead]).toEqual([[0, { ...PASS, messageId: 'a3', messageIndex: 3, role: 'assistant', how: 'tool-call' }]])
    // Without the assistant's answer only the tool brought it back: nothing needed.
    const quiet = afterOnePass(messages.slice(0, 5), [order], 2)
    expect(quiet.needed.size).toBe(0)
    expect(quiet.reRead.get(0)).toMatchObject({ messageId: 'a3', how: 'tool-call' })
    const resultOnly = afterOnePass([...messages.slice(0, 3), toolResult('t3', 'c0', 'ORD-58213: paid', 'lookup_order')], [order], 2)
    expect(resultOnly.needed.size).toBe(0)
    expect(resultOnly.reRead.get(0)).toEqual({ ...PASS, messageId: 't3', messageIndex: 3, role: 'tool', how: 'tool-result' })
  })

  it('asking again for the port without a question mark marks the lost port', () => {
    const port = { fact: '8443', kind: 'port' as const }
    const request = 'Please repeat the port number.'
    const { needed } = afterOnePass(
      [system('s', 'You deploy.'), user('u1', 'Use port 8443.'), assistant('a2', 'Noted.'), user('u3', request)],
      [port],
      2,
    )
    expect([...needed]).toEqual([[0, { ...PASS, messageId: 'u3', messageIndex: 3, role: 'user', how: 'back-reference', phrase: request, asked: true }]])
  })

  it('"in that order" needs no order; "the ticket" means the ticket, not the order number', () => {
    const orderId = { fact: 'ORD-58213', kind: 'id' as const }
    const ticket = { fact: 'ticket 88', kind: 'reference' as const }
    const said = [system('s', 'You run the shop.'), user('u1', 'Order ORD-58213 has ticket 88.'), assistant('a2', 'Noted.')]
    const idiom = afterOnePass([...said, user('u3', 'Run the three migration steps in that order, please.')], [orderId, ticket], 2)
    expect(idiom.needed.size).toBe(0)
    const sentence = 'Put the ticket in the sprint board, like I said.'
    const board = afterOnePass([...said, user('u3', sentence)], [orderId, ticket], 2)
    expect([...board.needed]).toEqual([[1, { ...PASS, messageId: 'u3', messageIndex: 3, role: 'user', how: 'back-reference', phrase: sentence }]])
    // Without a numbered ticket, the ticket is the tracker key (an id).
    const key = { fact: 'SUP-55012', kind: 'id' as const }
    const tracked = afterOnePass([user('u0', 'Hi.'), user('u1', 'My ticket is SUP-55012.'), assistant('a2', 'Noted.'), user('u3', sentence)], [key], 2)
    expect(tracked.needed.get(0)).toMatchObject({ messageId: 'u3', how: 'back-reference' })
  })

  it('"número de cliente" marks the customer id, not a number, when an id came before', () => {
    const customer = { fact: 'CLI-558812', kind: 'id' as const }
    // "el puerto del servidor es 9090" read as a number (the pattern side's reading).
    const server = { fact: '9090', kind: 'number' as const }
    const question = '¿Cuál es tu número de cliente?'
    const asked = { ...PASS, messageId: 'a3', messageIndex: 3, role: 'assistant', how: 'back-reference', phrase: question, asked: true }
    const both = afterOnePass(
      [system('s', 'Eres el agente.'), user('u1', 'Cliente CLI-558812; el puerto del servidor es 9090.'), assistant('a2', 'Anotado.'), assistant('a3', question)],
      [customer, server],
      2,
    )
    expect([...both.needed]).toEqual([[0, asked]])
    // No id said before: the number is the closest kind left.
    const numberOnly = afterOnePass(
      [system('s', 'Eres el agente.'), user('u1', 'El puerto del servidor es 9090.'), assistant('a2', 'Anotado.'), assistant('a3', question)],
      [server],
      2,
    )
    expect([...numberOnly.needed]).toEqual([[0, asked]])
  })

  it('a mention at or before the pass is not a need', () => {
    const { needed } = afterOnePass(
      [system('s', 'You ship lamps.'), user('u1', 'Deliver to 01310-100.'), user('u2', 'Ship it to the postal code I gave you.')],
      [postal],
      2,
    )
    expect(needed.size).toBe(0)
  })

  it('"the postal code I gave you" means the user\'s, even when the user\'s is not the one lost', () => {
    // The user's code stays (it is not among the facts lost); a tool's code is lost: not needed.
    const messages = [
      system('s', 'You ship lamps.'),
      user('u1', 'Deliver to 01310-100.'),
      toolResult('t2', 'c1', 'Depot at 04538-133.', 'depots'),
      user('u3', 'Ship it to the postal code I gave you.'),
    ]
    const m = indexed(messages)
    const facts = [postal, { fact: '04538-133', kind: 'postal-code' as const }]
    const holders = facts.map((f) => m.filter((x) => messageFactText(x).includes(f.fact)).map((x) => x.id))
    const mentions = mentionsOf(m, facts, holders)
    const runs = (i: number) => (i === 1 ? [{ state: 'lost' as const, from: 0, to: 0 }] : [{ state: 'verbatim' as const, from: 0, to: 0 }])
    expect(neededAfterLoss(mentions, facts, [0, 1], [{ stage: 'summarize', pass: 1, atMessage: 2 }], runs).size).toBe(0)
  })
})

/** A summarizer that keeps nothing: every folded fact is lost at the pass that folds it. */
const forgetful: Summarizer = async () => 'The user and the agent talked.'

describe('the postal code the assistant read before compaction', () => {
  // The fixture: the catalog search returns 42 lamp ids (LMP-1001…LMP-1042, message 3); the user
  // picks LMP-1007 (5); the assistant reads the postal code 01310-100 from the account (6); at
  // message 11 the user says "Ship it to the postal code from earlier" ("earlier" refers back; no
  // user stated a postal code, so it is not tied to the user's own values); the assistant asks
  // "Which postal code should I ship it to?" (12), later than 11.
  // keep_last 2 / compact_after 4: pass 1 fires at the turn end 6 (messages 1–6 unsummarized,
  // > 4) and folds 1–4; pass 2 at 10 folds 5–8. A summary that keeps nothing loses the postal
  // code at pass 2.
  it('is needed after pass 2 removed it, by the back-reference of message 11', async () => {
    const r = await run(postalCodeTranscript(), SUMMARIZE, forgetful)
    expect(r.passes.map((p) => [p.pass, p.atMessage, p.from, p.upto])).toEqual([
      [1, 6, 1, 5],
      [2, 10, 5, 9],
    ])
    const table = factTable(r)
    const row = table.rows.find((x) => x.fact === '01310-100')
    expect(row?.kind).toBe('postal-code')
    expect(row?.neededAfterLoss).toEqual(POSTAL_CODE_NEEDED)
    // Every lamp id is lost too, but nothing mentions one again (LMP-1007 last at message 6).
    expect(table.rows.filter((x) => x.neededAfterLoss).map((x) => x.fact)).toEqual(['01310-100'])
    expect(table.totals.needed).toBe(1)
    expect(table.totals.neededText).toBe('1 fact was needed after compaction removed it: 01310-100')
    // The over-compression warning names the pass, the message that needed it and the sentence.
    expect((r.checks.failureModes ?? []).filter((w) => w.neededFacts !== undefined)).toEqual([
      {
        rule: 'over-compression',
        message:
          'pass 2 of summarize (at #10) removed a fact a later message needed: "01310-100" (needed at #11, user: ' +
          '"Ship it to the postal code from earlier.")',
        messageIds: ['m6', 'm11', 'summary:summarize:2'],
        neededFacts: 1,
        neededFactTexts: ['01310-100'],
      },
    ])
    expect(neededFacts(r)).toEqual([
      {
        fact: '01310-100',
        kind: 'postal-code',
        index: table.rows.indexOf(row!),
        beforeIds: ['m6'],
        neededAfterLoss: row!.neededAfterLoss,
        // Lost once (pass 2), needed once after it.
        needs: [row!.neededAfterLoss],
      },
    ])
  })

  it('is worked out once per run: the checks, the facts table and a second ask share one answer', async () => {
    const r = await run(postalCodeTranscript(), SUMMARIZE, forgetful)
    const first = neededFacts(r)
    expect(neededFacts(r)).toBe(first)
    const row = factTable(r).rows.find((x) => x.fact === '01310-100')
    expect(row?.neededAfterLoss).toBe(first[0]?.neededAfterLoss)
    expect(row?.neededAfterLoss).toEqual(POSTAL_CODE_NEEDED)
  })

  it('is needed under the offline extractive summarizer too: its 40-fact cap leaves it out at pass 2', async () => {
    // Pass 1's Facts line holds LMP-1001…LMP-1040 (MAX_FACTS; 1041 and 1042 left out). Pass 2
    // carries those 40 first; the postal code the assistant said at message 6 is no commitment,
    // question, open item or decision, so it is the 41st fact and the cap leaves it out.
    const r = await run(postalCodeTranscript())
    const summary = r.passes[1]?.summary ?? ''
    expect(summary).toContain('Facts: LMP-1001; ')
    expect(summary).not.toContain('01310-100')
    expect(summary).toContain('[cut to 40 facts: 1 fact left out]')
    const table = factTable(r)
    expect(table.rows.find((x) => x.fact === '01310-100')?.neededAfterLoss).toEqual(POSTAL_CODE_NEEDED)
    expect(table.totals.neededText).toBe('1 fact was needed after compaction removed it: 01310-100')
  })

  it('is not needed when the summary keeps it', async () => {
    // keep_last 6 / compact_after 8: one pass at turn end 10 folds 1–4; message 6 stays verbatim.
    const r = await run(postalCodeTranscript(), {
      ...SUMMARIZE,
      stages: [{ id: 'summarize', enabled: true, params: { keep_last: 6, compact_after: 8 } }],
    })
    expect(r.passes.map((p) => [p.atMessage, p.from, p.upto])).toEqual([[10, 1, 5]])
    expect(factTable(r).totals.needed).toBe(0)
    expect(neededFacts(r)).toEqual([])
  })
})

/** The rate file the agent reads: 60 lines, one rate id each (RATE-1001 … RATE-1060). */
const RATES = Array.from({ length: 60 }, (_, i) => `RATE-${1001 + i} ground`).join('\n')

/**
 * The user states a postal code; the agent reads a 60-line rate file, reads it again after
 * compaction removed it, and the user then says "Ship it to the postal code I gave you."
 */
function rateSession(): Transcript {
  const read = (id: string, call: string) =>
    assistant(id, null, [{ id: call, name: 'read_file', arguments: '{"path":"data/rates.csv"}' }])
  const messages: Message[] = [
    system('s', 'You are the shipping agent.'),
    user('u1', 'I need a lamp shipped; get me the shipping rates.'),
    read('a2', 'c1'),
    toolResult('t3', 'c1', RATES, 'read_file'),
    assistant('a4', 'Rates loaded.'),
    user('u5', 'My postal code is 01310-100.'),
    assistant('a6', 'Noted.'),
    user('u7', 'Gift wrap it.'),
    assistant('a8', 'Wrapped.'),
    user('u9', 'Check the rates again.'),
    read('a10', 'c2'),
    toolResult('t11', 'c2', RATES, 'read_file'),
    assistant('a12', 'Rates checked.'),
    user('u13', 'Ship it to the postal code I gave you.'),
    assistant('a14', 'Shipping now.'),
  ]
  return { format: 'openai-chat', messages: indexed(messages), recordedCompactions: [], warnings: [] }
}

describe('needed is what someone needed, re-read is re-work', () => {
  // keep_last 2 / compact_after 4; turn ends 4, 6, 8, 12, 14. Pass 1 fires at 6 (1–6
  // unsummarized, > 4) and folds 1–4: the first read and its 60 rates. At 8 only 5–8 (4) are
  // unsummarized. Pass 2 fires at 12 and folds 5–9 (the read at 10 stays with its result at 11):
  // the postal code. Pass 3 fires at 14 and folds 10–12.
  it('the postal code the user refers back to is needed; the 60 rate lines read again are re-read, not needed', async () => {
    const r = await run(rateSession(), SUMMARIZE, forgetful)
    expect(r.passes.map((p) => [p.pass, p.atMessage, p.from, p.upto])).toEqual([
      [1, 6, 1, 5],
      [2, 12, 5, 10],
      [3, 14, 10, 13],
    ])
    expect(neededFacts(r).map((n) => [n.fact, n.neededAfterLoss])).toEqual([
      [
        '01310-100',
        {
          stage: 'summarize',
          pass: 2,
          atMessage: 12,
          messageId: 'u13',
          messageIndex: 13,
          role: 'user',
          how: 'back-reference',
          phrase: 'Ship it to the postal code I gave you.',
        },
      ],
    ])
    const table = factTable(r)
    expect(table.totals.neededText).toBe('1 fact was needed after compaction removed it: 01310-100')
    const reRead = table.rows.filter((x) => x.reReadAfterLoss)
    // Each rate id came back in the second read's result (11); the path in its call (10).
    const rates = Array.from({ length: 60 }, (_, i) => `RATE-${1001 + i}`)
    expect(reRead.map((x) => x.fact).sort()).toEqual(['data/rates.csv', ...rates].sort())
    const pass1 = { stage: 'summarize', pass: 1, atMessage: 6 }
    for (const x of reRead.filter((row) => row.kind === 'id')) {
      expect(x.reReadAfterLoss).toEqual({ ...pass1, messageId: 't11', messageIndex: 11, role: 'tool', how: 'tool-result' })
      expect(x.neededAfterLoss).toBeUndefined()
    }
    expect(table.rows.find((x) => x.fact === 'data/rates.csv')?.reReadAfterLoss).toEqual({
      ...pass1,
      messageId: 'a10',
      messageIndex: 10,
      role: 'assistant',
      how: 'tool-call',
    })
  })

  it('adding tool results that re-read what was said never adds a needed fact', async () => {
    // Fixed roles and turn ends (the plan counts messages, the summary keeps nothing): only the
    // tool results' texts vary — empty, or values the user and the assistant stated before them
    // (a re-read). A tool result that first introduces a value is left out: it moves the fact's
    // first holder earlier, and a later statement of it becomes a repeat.
    const VALUES = ['01310-100', 'ORD-58213', 'ana@example.com', 'REL-4410', 'config/app.yaml', 'INV-2207']
    const SAID = [
      'My postal code is 01310-100.',
      'Order ORD-58213, please.',
      'Write to ana@example.com.',
      'Ship it to the postal code I gave you.',
      'Which order number should I use?',
      'ORD-58213 is on its way.',
      'Could you send me the e-mail address again?',
      'Fine.',
    ]
    const counter = await loadCounter('o200k_base')
    const text = fc.oneof(fc.constantFrom(...SAID), fc.constantFrom(...VALUES))
    const picks = fc.array(fc.constantFrom(...VALUES), { maxLength: 3 })
    await fc.assert(
      fc.asyncProperty(fc.array(fc.tuple(text, text, picks), { minLength: 3, maxLength: 7 }), async (turns) => {
        const transcript = (withTools: boolean): Transcript => {
          const messages: Message[] = [system('s', 'You are the shop agent.')]
          let said = ''
          turns.forEach(([asked, answer, read], k) => {
            messages.push(user(`u${k}`, asked))
            said += `\n${asked}`
            messages.push(assistant(`c${k}`, null, [{ id: `call${k}`, name: 'lookup', arguments: '{}' }]))
            const again = read.filter((v) => said.includes(v))
            messages.push(toolResult(`t${k}`, `call${k}`, ['ok', ...(withTools ? again : [])].join('\n'), 'lookup'))
            messages.push(assistant(`a${k}`, answer))
            said += `\n${answer}`
          })
          return { format: 'openai-chat', messages: indexed(messages), recordedCompactions: [], warnings: [] }
        }
        const options = { counter, summarizer: forgetful }
        const without = new Set(neededFacts(await runPipeline(transcript(false), SUMMARIZE, options)).map((n) => n.fact))
        for (const n of neededFacts(await runPipeline(transcript(true), SUMMARIZE, options))) expect(without).toContain(n.fact)
      }),
      { numRuns: 40 },
    )
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

describe('mentions after the pass', () => {
  // keep_last 2 / compact_after 4; the turn ends are the assistant's answers (4, 6, 10, 12): pass
  // 1 fires at 6 (messages 1–6 unsummarized, > 4) and folds 1–4 — the date, REL-4410, the read
  // of config/service.yaml and the owner's e-mail; pass 2 fires at 10 and folds 5–7 (the read
  // at 8 stays with its result at 9), pass 3 at 12 folds 8–10.
  it('back-references by kind are needs; a tool call and a tool result re-obtaining a fact are re-reads', async () => {
    const r = await run(codingSession(), SUMMARIZE, forgetful)
    expect(r.passes.map((p) => [p.pass, p.atMessage, p.from, p.upto])).toEqual([
      [1, 6, 1, 5],
      [2, 10, 5, 8],
      [3, 12, 8, 11],
    ])
    const pass1 = { stage: 'summarize', pass: 1, atMessage: 6 }
    const needed = Object.fromEntries(neededFacts(r).map((n) => [n.fact, n.neededAfterLoss]))
    // "the id I gave you" (message 11) marks the user's id; "the date from earlier" (12) the date.
    expect(needed).toEqual({
      'REL-4410': { ...pass1, messageId: 'u11', messageIndex: 11, role: 'user', how: 'back-reference', phrase: 'Tag it as I said: the id I gave you.' },
      '2025-07-01': { ...pass1, messageId: 'a12', messageIndex: 12, role: 'assistant', how: 'back-reference', phrase: 'Tagging with the date from earlier.' },
    })
    const table = factTable(r)
    expect(Object.fromEntries(table.rows.filter((x) => x.neededAfterLoss).map((x) => [x.fact, x.neededAfterLoss]))).toEqual(needed)
    // The path comes back in the second read's arguments (8), the e-mail in its result (9).
    expect(Object.fromEntries(table.rows.filter((x) => x.reReadAfterLoss).map((x) => [x.fact, x.reReadAfterLoss]))).toEqual({
      'config/service.yaml': { ...pass1, messageId: 'a8', messageIndex: 8, role: 'assistant', how: 'tool-call' },
      'ops@example.com': { ...pass1, messageId: 't9', messageIndex: 9, role: 'tool', how: 'tool-result' },
    })
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

describe('neededAfterEachLoss', () => {
  const order = { fact: '4471923', kind: 'number' as const }
  const pass1 = { stage: 'summarize' as const, pass: 1, atMessage: 2 }
  const pass2 = { stage: 'summarize' as const, pass: 2, atMessage: 5 }

  /** Mentions of `facts` in `messages` (indexed by position), holders as the fact index finds them. */
  function mentionsIn(messages: Message[], facts: { fact: string; kind: FactKind }[]) {
    const m = indexed(messages)
    return mentionsOf(m, facts, facts.map((f) => m.filter((x) => messageFactText(x).includes(f.fact)).map((x) => x.id)))
  }

  // The order is said (0), lost at pass 1 (turn end 2), said again (3), lost again at pass 2
  // (turn end 5: it folds 3), asked for again (6). The state after both passes is lost: one run.
  const messages = [
    user('u0', 'My order is 4471923.'),
    assistant('a1', 'Looking it up.'),
    assistant('a2', 'Found it.'),
    user('u3', 'The order is 4471923, by the way.'),
    assistant('a4', 'Thanks.'),
    assistant('a5', 'Working on it.'),
    user('u6', 'What was the order number again?'),
  ]
  const lostRun: PassRun[] = [{ state: 'lost', from: 0, to: 1 }]

  it('reports the need after each loss: the repeat after the first, the question after the second', () => {
    const mentions = mentionsIn(messages, [order])
    const each = neededAfterEachLoss(mentions, [order], [0], [pass1, pass2], () => lostRun)
    const first = { ...pass1, messageId: 'u3', messageIndex: 3, role: 'user', how: 'verbatim' }
    const phrase = 'What was the order number again?'
    const second = { ...pass2, messageId: 'u6', messageIndex: 6, role: 'user', how: 'back-reference', phrase, asked: true }
    expect([...each]).toEqual([[0, [first, second]]])
    expect(neededAfterLoss(mentions, [order], [0], [pass1, pass2], () => lostRun).get(0)).toEqual(first)
  })

  it('a loss after another state is a loss too; a second need in one loss\'s interval is not reported', () => {
    // Three passes: lost at 1 (turn end 2), verbatim at 2 (turn end 5: the restated 3 kept), lost at 3 (turn end 7).
    const more = [...messages.slice(0, 6), user('u6', 'Still 4471923.'), assistant('a7', 'OK.'), user('u8', 'What was the order number again?')]
    const mentions = mentionsIn(more, [order])
    const pass3 = { stage: 'summarize' as const, pass: 3, atMessage: 7 }
    const runs: PassRun[] = [
      { state: 'lost', from: 0, to: 0 },
      { state: 'verbatim', from: 1, to: 1 },
      { state: 'lost', from: 2, to: 2 },
    ]
    const each = neededAfterEachLoss(mentions, [order], [0], [pass1, pass2, pass3], () => runs)
    // 3 and 6 are both in (2, 7]: the first loss reports 3 only.
    expect(each.get(0)).toEqual([
      { ...pass1, messageId: 'u3', messageIndex: 3, role: 'user', how: 'verbatim' },
      { ...pass3, messageId: 'u8', messageIndex: 8, role: 'user', how: 'back-reference', phrase: 'What was the order number again?', asked: true },
    ])
  })

  it('a fact brought back by a tool only is lost again; its later need follows the second loss', () => {
    const withTool = [
      user('u0', 'My order is 4471923.'),
      assistant('a1', null, [{ id: 'c1', name: 'lookup', arguments: '{}' }]),
      assistant('a2', 'Found it.'),
      toolResult('t3', 'c1', 'order 4471923: paid', 'lookup'),
      assistant('a4', 'Paid.'),
      assistant('a5', 'Done.'),
      user('u6', 'What was the order number again?'),
    ]
    const mentions = mentionsIn(withTool, [order])
    const each = neededAfterEachLoss(mentions, [order], [0], [pass1, pass2], () => lostRun)
    const phrase = 'What was the order number again?'
    expect([...each]).toEqual([[0, [{ ...pass2, messageId: 'u6', messageIndex: 6, role: 'user', how: 'back-reference', phrase, asked: true }]]])
    // neededAfterLoss knows the first loss only.
    expect(neededAfterLoss(mentions, [order], [0], [pass1, pass2], () => lostRun).get(0)).toMatchObject({ pass: 1, messageIndex: 6 })
  })

  it('a fact never lost, or lost with no need after, is absent', () => {
    const mentions = mentionsIn(messages.slice(0, 3), [order])
    expect(neededAfterEachLoss(mentions, [order], [0], [pass1], () => [{ state: 'lost', from: 0, to: 0 }]).size).toBe(0)
    const full = mentionsIn(messages, [order])
    expect(neededAfterEachLoss(full, [order], [0], [pass1, pass2], () => [{ state: 'verbatim', from: 0, to: 1 }]).size).toBe(0)
  })
})
