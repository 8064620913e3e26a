/**
 * Whether the conversation marked an instruction or open item done: a later sentence, by the
 * user or the assistant, that says it was done — a completion word (English, German, French,
 * Spanish, Portuguese, Italian, Dutch, Russian, Japanese, Chinese), a check mark, a ticked box
 * or a struck-through line — and names the item (most of its content words), or a bare "Done."
 * in the reply to the message that asked for it. A negated ("not done yet"), future ("I'll fix
 * it"), conditional ("once it is fixed") or questioning sentence marks nothing. Pure, no run
 * code. Source: seed 004 (open items and completed work pinned verbatim, a resumed agent must not
 * redo finished work), cases/17.
 */
import { contentText } from '../content'
import type { Message } from '../model'
import { isOrdinaryUser } from './classify'
import { cutCodePoints } from '../util/text'
import { sentences } from './patterns'

const L = '\\p{L}\\p{N}_'
/** Completion words, whole words (a suffix such as "-ed" is part of the word listed). */
const COMPLETION_WORDS = [
  // English
  'done', 'finished', 'completed', 'complete', 'fixed', 'resolved', 'implemented', 'added', 'updated',
  'merged', 'deployed', 'shipped', 'closed', 'handled', 'addressed', 'taken care of', 'sorted out',
  'wrapped up', 'checked off', 'ticked off', 'crossed off', 'all set', 'in place', 'covered',
  'written', 'wrote', 'removed', 'renamed', 'created', 'migrated', 'upgraded', 'bumped', 'landed', 'passing',
  // German
  'erledigt', 'fertig', 'abgeschlossen', 'behoben', 'umgesetzt', 'hinzugefügt', 'aktualisiert',
  'gemacht', 'gelöst', 'eingebaut', 'geschrieben', 'entfernt',
  // French
  'fait', 'faite', 'faits', 'terminé', 'terminée', 'terminés', 'réglé', 'réglée', 'corrigé',
  'corrigée', 'résolu', 'résolue', 'ajouté', 'ajoutée', 'ajoutés', 'mis à jour', 'mise à jour',
  'fini', 'finie', 'supprimé', 'renommé', 'écrit', 'écrits',
  // Spanish
  'hecho', 'hecha', 'listo', 'lista', 'terminado', 'terminada', 'completado', 'completada',
  'resuelto', 'resuelta', 'arreglado', 'arreglada', 'añadido', 'añadida', 'agregado', 'agregada',
  'actualizado', 'actualizada', 'corregido', 'corregida', 'eliminado', 'escrito', 'escritos',
  'agregué', 'añadí', 'terminé', 'completé', 'arreglé', 'corregí', 'actualicé', 'hice', 'resolví', 'escribí',
  // Portuguese
  'feito', 'feita', 'pronto', 'pronta', 'concluído', 'concluída', 'resolvido', 'resolvida',
  'corrigido', 'corrigida', 'adicionado', 'adicionada', 'atualizado', 'atualizada', 'removido',
  'adicionei', 'terminei', 'corrigi', 'atualizei', 'fiz', 'resolvi', 'concluí', 'escrevi',
  // Italian
  'fatto', 'fatta', 'completato', 'completata', 'risolto', 'risolta', 'finito', 'finita',
  'sistemato', 'sistemata', 'aggiunto', 'aggiunta', 'aggiornato', 'aggiornata', 'corretto', 'scritto',
  // Dutch
  'klaar', 'gedaan', 'opgelost', 'toegevoegd', 'bijgewerkt', 'afgerond', 'geschreven', 'verwijderd',
  // Russian
  'готово', 'готов', 'сделано', 'сделал', 'сделала', 'выполнено', 'исправлено', 'исправил',
  'исправила', 'добавил', 'добавила', 'добавлено', 'добавлены', 'обновлено', 'обновил', 'закрыто',
  'решено', 'написал', 'написаны', 'удалено', 'добавлен', 'добавлена', 'сделан', 'сделана', 'исправлен',
  'исправлена', 'обновлен', 'обновлён', 'обновлена', 'написан', 'написана', 'закрыт', 'закрыта',
  'выполнен', 'выполнена', 'реализован', 'реализована', 'реализовано',
]
/** Completion words of scripts without spaces between words (Japanese, Chinese): matched anywhere. */
const CJK_COMPLETION = ['完了', '済み', '対応済', '対応しました', '修正しました', '追加しました', '終わりました', 'できました', '更新しました',
  '已完成', '完成了', '完成', '搞定', '已修复', '修复了', '已添加', '添加了', '已更新', '更新了', '做好了', '弄好了', '写好了']
/** Marks: check marks, a ticked box. */
const MARKS = /[✅✔☑✓]|\[[xX]\]/u

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
const WORDS = new RegExp(`(?<![${L}])(?:${COMPLETION_WORDS.map(escape).join('|')})(?![${L}])`, 'iu')
const CJK = new RegExp(CJK_COMPLETION.map(escape).join('|'), 'u')

/**
 * Negations that undo a completion word right before it (`NEGATION_REACH` words): "not",
 * "isn't", "nicht", "pas", "no", "não", "non", "niet", "не", "yet"/"still"/"encore"/"ancora".
 */
const NEGATION = new RegExp(
  `(?<![${L}])(?:not|[${L}]*n['’]t|never|yet|nicht|kein|keine|ne|pas|encore|jamais|no|todavía|aún|não|nunca|ainda|non|ancora|mai|niet|nog|geen|не|ещё|еще)(?![${L}])`,
  'iu',
)
/**
 * Future, intent and conditions anywhere before a completion word undo it: "will", "I'll",
 * "going to", "let me", "once", "when", "until", "if", and their German, French, Spanish,
 * Portuguese, Italian, Dutch and Russian counterparts.
 */
const NOT_YET = new RegExp(
  `(?<![${L}])(?:will|['’]ll|going to|gonna|let me|plan to|need to|needs to|should|must|once|when|whenever|until|unless|if|as soon as|werde|wird|sobald|wenn|falls|vais|va|quand|lorsque|dès que|voy a|vamos a|cuando|hasta que|vou|vai|quando|assim que|farò|sarà|appena|ga|zal|zodra|als|буду|будет|когда|если|как только)(?![${L}])`,
  'iu',
)
/** How many words before a completion word a negation still counts. */
const NEGATION_REACH = 2

/** Japanese and Chinese negation right next to a completion word (未完成, 还没完成, 完了していません). */
const CJK_NEGATED = /(?:未|没|沒|尚未|还没|還沒|不)(?:完成|修复|添加|更新|搞定|做好)|(?:完了|対応|修正|追加|更新)(?:して)?(?:いない|いません|ない|ません|してない)|(?:まだ|还|還)[^。！？]{0,8}(?:完了|完成)/u

/** Markers of an open item that are no content of it (patterns.ts `todoSentences`' markers and an open box). */
// TODO / FIXME in capitals only: Spanish and Portuguese "todo" means "all".
const ITEM_MARKER = /\b(?:TODO|FIXME|[Oo]pen question|[Ss]till (?:need|missing|pending))\b|\[ \]/
const ITEM_MARKERS = new RegExp(ITEM_MARKER.source, 'g')

/**
 * Frequent words that say nothing about which item is meant (articles, pronouns, auxiliaries,
 * the marker words themselves), in the languages above; content words are the others of 3+
 * letters.
 */
const STOP = new Set(
  (
    'the and for but not all any can you our its was are has had let get set new now too also then than that this these those with from into onto have will would should must please make sure need needs still todo fixme open question pending missing one two add use always never' +
    ' der die das und mit für von den dem ein eine ist sind auch noch bitte' +
    ' les des une est pas pour avec dans sur que qui' +
    ' los las una con por para del que esta este' +
    ' uma com por para dos das que está este' +
    ' gli una con per che del della questo' +
    ' het een met voor van dat dit'
  ).split(' '),
)

/** A completion word or mark found in `sentence`, not undone by a negation, future or condition. */
function completionIn(sentence: string): boolean {
  if (/\?\s*$/.test(sentence)) return false
  if (/~~[^~]+~~/.test(sentence)) return true
  if (MARKS.test(sentence)) return !CJK_NEGATED.test(sentence)
  if (CJK.test(sentence)) return !CJK_NEGATED.test(sentence)
  const m = WORDS.exec(sentence)
  if (!m) return false
  // The few words before the completion word, and the sentence's opening (I'll / once …).
  const before = sentence.slice(0, m.index).split(/\s+/).filter(Boolean)
  if (NEGATION.test(before.slice(-NEGATION_REACH).join(' ')) || NOT_YET.test(before.join(' '))) return false
  // "Fixed? Not yet" style tails, and "done … not" right after ("done, not merged" still counts as done).
  return !/^\s*(?:yet|not yet|noch nicht|pas encore|todavía no|ainda não|non ancora|nog niet|ещё нет|еще нет)\b/iu.test(
    sentence.slice(m.index + m[0].length).replace(/^[\s,;:—–-]+/, ''),
  )
}

/**
 * Content words of `text`: letters/digits runs of 3+ (lowercased) not in `STOP`; runs of CJK
 * letters as bigrams (no spaces to split on), runs of hiragana alone left out.
 */
function contentWords(text: string): string[] {
  const out: string[] = []
  for (const run of text.replace(ITEM_MARKERS, ' ').toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []) {
    // Hiragana alone is grammar (particles, endings: しました), not content.
    if (/^\p{Script=Hiragana}+$/u.test(run)) continue
    if (/[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]/u.test(run)) {
      const chars = [...run]
      for (let i = 0; i + 1 < chars.length; i++) out.push(chars[i]! + chars[i + 1]!)
      continue
    }
    if ([...run].length >= 3 && !STOP.has(run)) out.push(run)
  }
  return out
}

/** Two words name the same thing: equal, or one a form of the other (a shared stem of 4+ letters). */
function sameWord(a: string, b: string): boolean {
  if (a === b) return true
  const shorter = Math.min(a.length, b.length)
  if (shorter < 4) return false
  let p = 0
  while (p < shorter && a[p] === b[p]) p++
  return p >= 4 && p >= shorter - 3
}

/** True when a sentence of content words `words` names most of an item's `itemWords` (at least half, at least one). */
function names(words: readonly string[], itemWords: readonly string[]): boolean {
  if (itemWords.length === 0) return false
  const matched = itemWords.filter((w) => words.some((s) => sameWord(w, s))).length
  return matched >= Math.max(1, Math.ceil(itemWords.length / 2))
}

/** A sentence that is a completion and nothing else ("Done.", "Erledigt!", "✅", "完了しました。"). */
function bareCompletion(sentence: string): boolean {
  return completionIn(sentence) && contentWords(sentence.replace(WORDS, ' ').replace(CJK, ' ')).length <= 1
}

/** Where and how an item was marked done. */
export interface Completion {
  /** The message that marked it done. */
  messageId: string
  /** That message's `index`. */
  index: number
  /** The sentence that marks it, trimmed. */
  sentence: string
}

/** A sentence of `messages` that holds a completion, with its content words (read once per array). */
interface CompletionSentence extends Completion {
  /** Position of its message in the array. */
  at: number
  words: string[]
  bare: boolean
}

/** The completion sentences of an array, and per word key (`keyOf`) the positions in that list holding it. */
interface CompletionIndex {
  sentences: CompletionSentence[]
  byKey: Map<string, number[]>
}

const completionsOf = new WeakMap<readonly Message[], CompletionIndex>()

/**
 * The key two words that `sameWord` pairs share: a word's first 4 letters (its whole self when
 * shorter), so the sentences that may name an item are looked up instead of scanned.
 */
function keyOf(word: string): string {
  return [...word].slice(0, 4).join('')
}

/**
 * A standing constraint (never, always, don't, must not, avoid, only ever): it holds for the
 * whole conversation, so nothing marks it done.
 */
const STANDING = /\b(?:never|always|don['’]t|do not|must not|mustn['’]t|avoid|only ever)\b/i

/** How many sentences per item word are read after the item (bounds an item's cost on huge transcripts). */
const CANDIDATES_PER_WORD = 64

/**
 * The sentences of `messages` (tool results and system messages excluded) that hold a completion
 * and are no open item themselves, in order, indexed by word key; computed once per array, so
 * asking about many items reads the conversation once.
 */
function completionIndex(messages: readonly Message[]): CompletionIndex {
  let found = completionsOf.get(messages)
  if (found) return found
  const list: CompletionSentence[] = []
  const byKey = new Map<string, number[]>()
  messages.forEach((m, at) => {
    if (m.role === 'tool' || m.role === 'system') return
    for (const raw of sentences(contentText(m.content))) {
      const sentence = raw.trim()
      if (!sentence || ITEM_MARKER.test(sentence) || !completionIn(sentence)) continue
      const words = contentWords(sentence)
      for (const key of new Set(words.map(keyOf))) {
        const at = byKey.get(key)
        if (at) at.push(list.length)
        else byKey.set(key, [list.length])
      }
      list.push({ messageId: m.id, index: m.index, sentence, at, words, bare: bareCompletion(sentence) })
    }
  })
  found = { sentences: list, byKey }
  completionsOf.set(messages, found)
  return found
}

/**
 * The first position `p` in `0..length` whose sentence (`sentenceAt(p)`, positions ascending by
 * message) is after message position `at`: a binary search.
 */
function firstAfter(length: number, sentenceAt: (p: number) => CompletionSentence, at: number): number {
  let lo = 0
  let hi = length
  while (lo < hi) {
    const mid = (lo + hi) >> 1
    if (sentenceAt(mid).at > at) hi = mid
    else lo = mid + 1
  }
  return lo
}

/**
 * Whether the item `item` (an instruction line or open item, verbatim) that message `messages[at]`
 * holds (`at` −1: one from before `messages`, a previous summary's) was marked done by a later
 * message of `messages` (tool results excluded): the first sentence after it that holds a
 * completion (a completion word not negated, put in the future or made a condition, a check mark,
 * a ticked box, a struck-through text) and names at least half of the item's content words; or,
 * when `only` (the item is the one thing its message asked for), a bare completion ("Done.") in
 * the first assistant reply after it, before the next user request. A sentence that is itself an
 * open item (a TODO) marks nothing, and a standing constraint ("never push to main", "always run
 * the tests") is never done. Undefined: still open. Only the first `CANDIDATES_PER_WORD`
 * completion sentences sharing each item word are read. Pure.
 */
export function completionOf(
  item: string,
  at: number,
  messages: readonly Message[],
  only = false,
): Completion | undefined {
  if (STANDING.test(item)) return undefined
  const index = completionIndex(messages)
  const itemWords = contentWords(item)
  const candidates = new Set<number>()
  for (const key of new Set(itemWords.map(keyOf))) {
    const list = index.byKey.get(key)
    if (!list) continue
    const from = firstAfter(list.length, (p) => index.sentences[list[p]!]!, at)
    for (let k = from; k < Math.min(list.length, from + CANDIDATES_PER_WORD); k++) candidates.add(list[k]!)
  }
  // The first assistant reply after the item, when a bare "Done." there may mark it.
  let reply = -1
  if (only) {
    for (let i = at + 1; i < messages.length; i++) {
      const m = messages[i]!
      if (m.role === 'assistant' && contentText(m.content).trim() !== '') {
        reply = i
        const all = index.sentences
        for (let k = firstAfter(all.length, (p) => all[p]!, i - 1); all[k]?.at === i; k++) if (all[k]!.bare) candidates.add(k)
        break
      }
      if (isOrdinaryUser(m)) break
    }
  }
  for (const k of [...candidates].sort((a, b) => a - b)) {
    const c = index.sentences[k]!
    if ((c.at === reply && c.bare) || names(c.words, itemWords)) return { messageId: c.messageId, index: c.index, sentence: c.sentence }
  }
  return undefined
}

/** Cap of the sentence quoted as what marked an item done, in code points. */
const DONE_EVIDENCE_CHAR_CAP = 200

/**
 * How an instruction or open item the conversation marked done is pinned or summarized: the item
 * verbatim, then the sentence that marked it (cut to 200 code points) and its message's index,
 * e.g. `TODO: bump the version — done: "Bumped to 2.1." (#7)`.
 */
export function doneLine(item: string, c: Completion): string {
  return `${item} — done: "${cutCodePoints(c.sentence, DONE_EVIDENCE_CHAR_CAP)}" (#${c.index})`
}
