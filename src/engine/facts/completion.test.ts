/**
 * `completionOf`: an instruction or open item the conversation later marked done — by the user or
 * the assistant, in many phrasings and languages — is done; one that is only promised, asked
 * about, negated or made a condition stays open. The phrasings are written as people write them,
 * not from the implementation's word lists.
 */
import { describe, expect, it } from 'vitest'
import type { Message } from '../model'
import { assistant, indexed, toolResult, user } from '../stages/test-helpers'
import { completionOf } from './completion'

const ITEM = 'TODO: add a --dry-run flag to the sync command.'

/** The item in a user message, a reply, then `later` said by `who`; the item's message is #0. */
function chat(later: string, who: 'user' | 'assistant' = 'assistant'): Message[] {
  return indexed([
    user('u0', `Fix the sync retries. ${ITEM}`),
    assistant('a1', 'Looking at the retry loop first.'),
    user('u2', 'Also check the logs.'),
    who === 'user' ? user('x3', later) : assistant('x3', later),
  ])
}

const DONE: readonly (readonly [string, string, 'user' | 'assistant'])[] = [
  ['English, report', 'The --dry-run flag for the sync command is done.', 'assistant'],
  ['English, past tense', 'I added the --dry-run flag to sync; it prints the plan and exits.', 'assistant'],
  ['English, user says it', 'FYI the dry-run flag on sync is finished, I pushed it myself.', 'user'],
  ['English, taken care of', 'Sync command dry-run flag: taken care of.', 'assistant'],
  ['check mark', '✅ --dry-run flag for the sync command', 'assistant'],
  ['ticked box', '- [x] add a --dry-run flag to the sync command', 'user'],
  ['struck through', '~~add a --dry-run flag to the sync command~~', 'user'],
  ['German', 'Das --dry-run Flag für den sync-Befehl ist erledigt.', 'assistant'],
  ['French', 'Le flag --dry-run de la commande sync est terminé.', 'assistant'],
  ['Spanish', 'Listo: el flag --dry-run del comando sync ya funciona.', 'assistant'],
  ['Portuguese', 'Flag --dry-run no comando sync: feito.', 'user'],
  ['Italian', 'Il flag --dry-run per il comando sync è fatto.', 'assistant'],
  ['Dutch', 'De --dry-run vlag voor het sync commando is klaar.', 'assistant'],
  ['Russian', 'Флаг --dry-run для команды sync готов.', 'assistant'],
  ['Japanese', 'sync コマンドの --dry-run フラグは対応済みです。', 'assistant'],
  ['Chinese', 'sync 命令的 --dry-run 参数已完成。', 'assistant'],
]

const OPEN: readonly (readonly [string, string])[] = [
  ['negated', 'The --dry-run flag for sync is not done yet.'],
  ['contracted negation', "The sync command's dry-run flag isn't finished."],
  ['promised', "I'll add the --dry-run flag to the sync command next."],
  ['going to', 'Going to get the dry-run flag for sync done after lunch.'],
  ['a condition', 'Once the --dry-run flag for sync is finished, I will run the tests.'],
  ['a question', 'Is the --dry-run flag for the sync command done?'],
  ['German, negated', 'Das --dry-run Flag für sync ist noch nicht erledigt.'],
  ['French, negated', "Le flag --dry-run de sync n'est pas encore terminé."],
  ['Spanish, negated', 'El flag --dry-run de sync todavía no está hecho.'],
  ['Portuguese, negated', 'O flag --dry-run do sync ainda não foi feito.'],
  ['Italian, negated', 'Il flag --dry-run di sync non è ancora fatto.'],
  ['Russian, negated', 'Флаг --dry-run для sync ещё не готов.'],
  ['Japanese, negated', 'sync コマンドの --dry-run フラグはまだ完了していません。'],
  ['Chinese, negated', 'sync 命令的 --dry-run 参数还没完成。'],
  ['another item done', 'Done: the README typo is fixed.'],
  ['restated as open', 'TODO: the --dry-run flag for sync is still not finished.'],
]

describe('an item marked done later is done', () => {
  for (const [what, later, who] of DONE) {
    it(`${what}: "${later}"`, () => {
      expect(completionOf(ITEM, 0, chat(later, who))).toEqual({ messageId: 'x3', index: 3, sentence: later.trim() })
    })
  }
})

describe('an item promised, asked about, negated or made a condition stays open', () => {
  for (const [what, later] of OPEN) {
    it(`${what}: "${later}"`, () => {
      expect(completionOf(ITEM, 0, chat(later))).toBeUndefined()
    })
  }
})

describe('where the marking may be', () => {
  it('only after the item: a completion before it, or a tool output saying done, marks nothing', () => {
    const messages = indexed([
      assistant('a0', 'The --dry-run flag for the sync command is done.'),
      user('u1', ITEM),
      assistant('a2', null, [{ id: 'c1', name: 'run' }]),
      toolResult('t3', 'c1', 'dry-run flag for sync command: done', 'run'),
    ])
    expect(completionOf(ITEM, 1, messages)).toBeUndefined()
  })

  it('a bare "Done." in the reply to the message that asked for only this item marks it', () => {
    const messages = indexed([
      user('u0', 'TODO: bump the version to 2.1'),
      assistant('a1', null, [{ id: 'c1', name: 'edit' }]),
      toolResult('t2', 'c1', 'ok', 'edit'),
      assistant('a3', 'Done.'),
    ])
    expect(completionOf('TODO: bump the version to 2.1', 0, messages, true)).toEqual({ messageId: 'a3', index: 3, sentence: 'Done.' })
    // Erledigt / 完了しました as the whole reply.
    for (const reply of ['Erledigt!', '完了しました。', 'Hecho.', '✅']) {
      const m = indexed([user('u0', 'TODO: bump the version to 2.1'), assistant('a1', reply)])
      expect(completionOf('TODO: bump the version to 2.1', 0, m, true)?.sentence).toBe(reply)
    }
    // Not when the message asked for several things: which one would "Done." mean?
    expect(completionOf('TODO: bump the version to 2.1', 0, messages, false)).toBeUndefined()
  })

  it('a bare "Done." after the next request answers that request, not the item', () => {
    const messages = indexed([
      user('u0', 'TODO: bump the version to 2.1'),
      assistant('a1', 'Looking at it.'),
      user('u2', 'First, fix the typo in the README.'),
      assistant('a3', 'Done.'),
    ])
    expect(completionOf('TODO: bump the version to 2.1', 0, messages, true)).toBeUndefined()
  })

  it('a standing constraint is never done, whatever is said later', () => {
    for (const rule of ['Never push directly to main.', "Don't change quote_for() in src/quote/api.py", 'Always run the tests before committing.']) {
      const messages = indexed([
        user('u0', rule),
        assistant('a1', `Done: ${rule.toLowerCase()} — handled, tests passing, quote_for unchanged, main untouched.`),
        assistant('a2', 'Done.'),
      ])
      expect(completionOf(rule, 0, messages, true)).toBeUndefined()
    }
  })

  it('a standing rule is named by what it asks: "CHANGELOG updated" marks "make sure to update the CHANGELOG"', () => {
    const rule = 'Make sure to update the CHANGELOG before the release.'
    const messages = indexed([user('u0', rule), assistant('a1', 'CHANGELOG updated for the release.')])
    expect(completionOf(rule, 0, messages)?.messageId).toBe('a1')
  })
})
