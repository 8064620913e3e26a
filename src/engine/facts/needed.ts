/**
 * Facts needed after they were lost: a fact a compaction pass took out of the context (its
 * verbatim holders folded, its summary silent about it) that the conversation mentions again
 * after that pass fired — the user repeating it or referring back to it ("ship it to the postal
 * code I gave you"), the assistant using it, a tool result bringing it back. Read from the
 * replay (the facts table's pass states) and the Before's text; no model is asked. What the
 * finder and the facts table cannot say: which losses the agent ran into. Source: SPEC §6.
 */
import { contentText } from '../content'
import type { Message, ProvenanceStage, Role } from '../model'
import { partitionPoint } from '../util/search'
import { codePointLength, cutCodePoints } from '../util/text'
import { isOrdinaryUser, isSummaryMessage } from './classify'
import type { PassRun } from './pass-runs'
import type { FactKind } from './patterns'

/** The languages of the back-reference table. */
type Language = 'en' | 'es' | 'de' | 'pt' | 'fr'

/**
 * The nouns a message names a fact by, per language (regex sources, case-insensitive, whole
 * words), and the fact kinds each names (`kinds`), with `orElse`: kinds the noun means only when
 * no fact of its `kinds` came before the sentence ("the customer number" is an id; a bare number
 * only when no id was said). Tried in order, each match blanked before the next entry is tried
 * ("e-mail address" is an e-mail, not an address; "order number" an id, not a number; "postal
 * code" not a code; "in that order" an idiom naming no fact: an entry without kinds). The one
 * table of back-reference nouns.
 */
const BACK_REFERENCE_NOUNS: readonly {
  kinds: readonly FactKind[]
  orElse?: readonly FactKind[]
  nouns: Readonly<Record<Language, readonly string[]>>
}[] = [
  {
    // Idioms holding a noun of the table that name no fact: "in that order" is a sequence.
    kinds: [],
    nouns: {
      en: [
        'in (?:that|this|the same|the right|the correct|the wrong|the reverse|reverse|alphabetical|chronological|numerical|random|any|which|what|the following) order',
        'in order',
        'out of order',
      ],
      es: ['en (?:ese|este|aquel|el mismo|el|cualquier) orden', 'en orden', 'por orden'],
      de: [],
      pt: [],
      fr: [],
    },
  },
  {
    kinds: ['email'],
    nouns: {
      en: ['e-?mail(?: address)?(?:es|s)?', 'mail address(?:es)?'],
      es: ['correos?(?: electr[oó]nicos?)?', 'direcci[oó]n de (?:correo|e-?mail)', 'e-?mails?'],
      de: ['e-?mail(?:-?adressen?)?', 'mailadressen?'],
      pt: ['endere[cç]o de e-?mail', 'e-?mails?'],
      fr: ['adresses? (?:e-?mail|mail|[eé]lectronique)', 'courriels?'],
    },
  },
  {
    kinds: ['postal-code'],
    nouns: {
      en: ['postal codes?', 'post ?codes?', 'zip(?: codes?)?', 'cep'],
      es: ['c[oó]digos? postal(?:es)?'],
      de: ['postleitzahl(?:en)?', 'plz'],
      pt: ['cep', 'c[oó]digo postal'],
      fr: ['codes? postaux', 'code postal'],
    },
  },
  {
    kinds: ['postal-code'],
    nouns: {
      en: ['(?:shipping |delivery |home |street |billing )?address(?:es)?'],
      es: ['direcci[oó]n(?:es)?(?: de (?:env[ií]o|entrega))?', 'domicilio'],
      de: ['(?:liefer|versand|rechnungs)?adressen?', 'anschrift'],
      pt: ['endere[cç]os?(?: de entrega)?'],
      fr: ['adresses?(?: de livraison)?'],
    },
  },
  {
    kinds: ['phone'],
    nouns: {
      en: ['(?:tele)?phone(?: numbers?)?', '(?:mobile|cell)(?: ?phone)?(?: numbers?)?'],
      es: ['(?:n[uú]mero de )?(?:tel[eé]fono|m[oó]vil|celular)'],
      de: ['(?:telefon|handy|mobil)(?:nummer)?', 'rufnummer'],
      pt: ['(?:n[uú]mero de )?(?:telefone|celular)'],
      fr: ['(?:num[eé]ro de )?t[eé]l[eé]phone', 'portable'],
    },
  },
  {
    // Tickets and pull requests: numbered ("ticket 88", "PR 45", "#1234", kind reference) or
    // tracker keys ("SUP-55012", kind id: meant when no reference came before).
    kinds: ['reference'],
    orElse: ['id'],
    nouns: {
      en: ['tickets?(?: (?:numbers?|no\\.?|ids?))?', 'issues?(?: numbers?)?', '(?:pull|merge) requests?', 'prs?'],
      es: ['n[uú]mero de (?:ticket|incidencia)', 'tickets?', 'incidencias?'],
      de: ['ticketnummern?', 'tickets?'],
      pt: ['n[uú]mero do (?:chamado|ticket)', 'chamados?', 'tickets?'],
      fr: ['num[eé]ro de ticket', 'tickets?'],
    },
  },
  {
    kinds: ['id'],
    orElse: ['number', 'code'],
    nouns: {
      en: [
        '(?:order|invoice|account|reference|tracking|booking|confirmation|customer) (?:numbers?|no\\.?|ids?|codes?)',
        'orders?',
        'invoices?',
        'bookings?',
        'reservations?',
        'ids?',
        'identifiers?',
      ],
      es: ['n[uú]mero de (?:pedido|orden|factura|cuenta|referencia|seguimiento|reserva|cliente)', 'pedidos?', '[oó]rden(?:es)?', 'facturas?', 'reservas?', 'identificador'],
      de: ['(?:bestell|auftrags|rechnungs|kunden|konto|referenz|sendungs|buchungs|tracking)nummer(?:n)?', 'bestellung(?:en)?', 'auftrag', 'rechnung', 'buchung', 'kennung'],
      pt: ['n[uú]mero d[oa] (?:pedido|fatura|conta|refer[eê]ncia|rastreamento|reserva|cliente)', 'pedidos?', 'faturas?', 'identificador'],
      fr: ['num[eé]ro de (?:commande|facture|compte|r[eé]f[eé]rence|suivi|r[eé]servation|client)', 'commandes?', 'factures?', 'r[eé]servations?', 'identifiant'],
    },
  },
  {
    kinds: ['hash'],
    nouns: {
      en: ['commit(?: hash| sha)?s?', 'hash(?:es)?', 'shas?', 'revisions?'],
      es: ['commits?', 'hash'],
      de: ['commits?', 'hash(?:es)?'],
      pt: ['commits?', 'hash'],
      fr: ['commits?', 'hash'],
    },
  },
  { kinds: ['uuid'], nouns: { en: ['uuids?', 'guids?'], es: [], de: [], pt: [], fr: [] } },
  {
    kinds: ['version', 'reference'],
    nouns: {
      en: ['versions?', 'releases?'],
      es: ['versi[oó]n(?:es)?'],
      de: ['version(?:en)?'],
      pt: ['vers[aã]o', 'vers[oõ]es'],
      fr: ['versions?'],
    },
  },
  {
    kinds: ['port'],
    nouns: {
      en: ['ports?(?: numbers?)?'],
      es: ['(?:n[uú]mero de )?puertos?'],
      de: ['portnummern?', 'ports?'],
      pt: ['(?:n[uú]mero da )?portas?'],
      fr: ['(?:num[eé]ro de )?ports?'],
    },
  },
  {
    kinds: ['branch'],
    nouns: { en: ['branch(?:es)?'], es: ['ramas?'], de: ['zweig'], pt: ['ramos?'], fr: ['branches?'] },
  },
  {
    kinds: ['env-var'],
    nouns: {
      en: ['(?:environment |env )?variables?', 'env vars?'],
      es: ['variables? de entorno'],
      de: ['(?:umgebungs)?variablen?'],
      pt: ['vari[aá]ve(?:l|is)(?: de ambiente)?'],
      fr: ['variables? d[\'’]environnement'],
    },
  },
  {
    kinds: ['file-path'],
    nouns: {
      en: ['file ?names?', 'files?', 'paths?', 'folders?', 'director(?:y|ies)'],
      es: ['archivos?', 'ficheros?', 'rutas?', 'carpetas?'],
      de: ['dateinamen?', 'dateien?', 'pfade?', 'ordner', 'verzeichnis(?:se)?'],
      pt: ['arquivos?', 'caminhos?', 'pastas?'],
      fr: ['fichiers?', 'chemins?', 'dossiers?', 'r[eé]pertoires?'],
    },
  },
  {
    kinds: ['date'],
    nouns: {
      en: ['(?:due )?dates?', 'deadlines?'],
      es: ['fechas?', 'plazos?'],
      de: ['datum', 'termine?', 'fristen?'],
      // "data" is a date only after a Portuguese article: "the data" stays data.
      pt: ['(?<=(?<![\\p{L}])(?:a|da|na|essa|esta|mesma) )datas?', 'prazos?'],
      fr: ['[eé]ch[eé]ances?'],
    },
  },
  {
    kinds: ['url'],
    nouns: { en: ['urls?', 'links?'], es: ['enlaces?', 'v[ií]nculos?'], de: ['links?'], pt: ['links?'], fr: ['liens?'] },
  },
  {
    kinds: ['money'],
    nouns: {
      en: ['prices?', 'amounts?', 'costs?', 'budgets?', 'fees?'],
      es: ['precios?', 'importes?', 'montos?', 'presupuestos?'],
      de: ['preise?', 'betr[äa]ge?', 'kosten'],
      pt: ['pre[cç]os?', 'valor(?:es)?', 'or[cç]amentos?'],
      fr: ['prix', 'montants?'],
    },
  },
  {
    kinds: ['reference'],
    nouns: {
      en: ['chapters?', 'sections?', 'exercises?', 'lessons?'],
      es: ['cap[ií]tulos?', 'secci[oó]n(?:es)?', 'ejercicios?'],
      de: ['kapitel', 'abschnitte?', 'übung(?:en)?', 'aufgaben?'],
      pt: ['cap[ií]tulos?', 'se[cç][aã]o', 'exerc[ií]cios?'],
      fr: ['chapitres?', 'exercices?'],
    },
  },
  { kinds: ['name'], nouns: { en: ['names?'], es: ['nombres?'], de: ['namen?'], pt: ['nomes?'], fr: ['noms?'] } },
  {
    kinds: ['number', 'id', 'code'],
    nouns: { en: ['numbers?'], es: ['n[uú]meros?'], de: ['nummern?', 'zahlen?'], pt: [], fr: ['num[eé]ros?'] },
  },
  { kinds: ['code'], nouns: { en: ['codes?'], es: ['c[oó]digos?'], de: [], pt: [], fr: [] } },
]

/**
 * What makes a sentence naming a fact's noun need that fact, per language (regex sources,
 * case-insensitive, whole words):
 * - `backReference`: it refers back to it — "I gave you", "as I said", "earlier", "above",
 *   "la dirección que te di", "die ich dir gegeben habe", "o CEP que te passei", "que je t'ai donné";
 * - `demonstrative`: right before the noun, it points back at one — "that order", "ese pedido";
 * - `askAgain`: in a question (a sentence ending in `?`, or opening with `¿`), it asks for the
 *   value again — "Which postal code should I use?", "Could you send me the order number
 *   again?", "¿Cuál es tu código postal?", "What was the port?";
 * - `request`: in any sentence, question or not, it asks for the value again or says it is gone
 *   — "Please repeat the port number.", "I do not have the port anymore.", "I lost the port",
 *   "¿Me puedes repetir el puerto?", "Pode repetir a porta?".
 * The one table of back-reference phrases, beside `BACK_REFERENCE_NOUNS`.
 */
const BACK_REFERENCE_PHRASES: Readonly<
  Record<
    Language,
    { backReference: readonly string[]; demonstrative: readonly string[]; askAgain: readonly string[]; request: readonly string[] }
  >
> = {
  en: {
    backReference: [
      'I (?:already |just )?(?:gave|told|sent|showed|shared|provided|typed|pasted) you',
      'I (?:already |just )?(?:mentioned|provided|shared)',
      'as I (?:said|mentioned|told you|wrote)',
      'like I said',
      'earlier',
      'above',
      'previously',
      'from before',
      '(?:used|had|found|read|mentioned|discussed|gave|got) before',
    ],
    demonstrative: ['that', 'those', 'the same'],
    askAgain: [
      'again',
      'should I (?:use|ship|send|deliver)',
      '(?:what|which)(?:[\'’]s| is| are| was| were) your',
      '(?:could|can|would) you (?:please )?(?:re-?send|send|give|tell|share|provide|confirm|remind)',
      'remind me',
      'what (?:was|were) (?:the|that|your|my)',
      'which (?:one )?(?:was|were|is) (?:it|that)',
    ],
    request: [
      '(?:please|pls|kindly),? repeat',
      '(?:could|can|would|will) you (?:please )?repeat',
      'say (?:it|that) again',
      'I (?:don[\'’]t|do not|no longer) have (?:it|that|them|the|your|my)',
      '(?:I|we)(?:[\'’]ve)? (?:\\p{L}+ ){0,3}(?:lost|forgot(?:ten)?) (?:the|my|your|that|it)',
    ],
  },
  es: {
    backReference: [
      'que (?:ya )?(?:te|le|les|os) (?:di|dije|pas[eé]|envi[eé]|mand[eé]|mencion[eé]|indiqu[eé]|coment[eé])',
      'como (?:te |le )?(?:dije|mencion[eé]|coment[eé])',
      '(?:de|desde) antes',
      'anteriormente',
      'm[aá]s arriba',
    ],
    demonstrative: ['es[ea]s?', 'esos', 'aquel(?:la|los|las)?', '(?:el|la|los|las) mism[oa]s?'],
    askAgain: [
      'otra vez',
      'de nuevo',
      'nuevamente',
      '(?:cu[aá]l|qu[eé]) (?:es|era|son) (?:tu|su|tus|sus)',
      '(?:debo|deber[ií]a|tengo que) usar',
      '(?:puedes|podr[ií]as|puede|podr[ií]a) (?:\\p{L}+ )?(?:dar|enviar|mandar|pasar|decir|indicar|confirmar|recordar)',
      'recu[eé]rdame',
      '(?:cu[aá]l|qu[eé]) (?:era|fue) (?:el|la|tu|su)',
    ],
    request: [
      '(?:puedes|podr[ií]as|puede|podr[ií]a|pod[eé]s) (?:\\p{L}+ )?repetir(?:me|lo|la|melo|mela)?',
      'rep[ií]te(?:me|lo|la|melo|mela)?',
      'rep[ií]ta(?:me|lo|la|melo|mela)?',
      '(?:ya )?no (?:lo|la|los|las) tengo',
      '(?:lo|la) perd[ií]',
      'perd[ií] (?:el|la|tu|su|mi)',
    ],
  },
  de: {
    backReference: [
      'ich (?:dir|ihnen|euch) (?:schon |bereits |vorhin |vorher )?(?:gegeben|gesagt|genannt|geschickt|gesendet|mitgeteilt|gezeigt)',
      'wie (?:ich )?(?:schon |bereits )?(?:gesagt|erwähnt)',
      'vorhin',
      'weiter oben',
      'zuvor',
      'bereits (?:genannt|erwähnt)',
    ],
    demonstrative: ['dieselben?', 'denselben', 'dasselbe', 'jene[nmrs]?'],
    askAgain: [
      'nochmal',
      'noch ?einmal',
      'erneut',
      'wie (?:lautet|lauten|war|ist) (?:dein|deine|ihre)',
      'soll ich (?:\\p{L}+ )?(?:verwenden|nehmen|benutzen)',
      '(?:kannst du|können sie|könnten sie|könntest du) (?:mir )?(?:\\p{L}+ )?(?:\\p{L}+ )?(?:geben|schicken|senden|nennen|sagen|mitteilen|bestätigen)',
      'wie (?:war|lautete) (?:der|die|das|noch)',
      'welche[rs]? war (?:es|das)',
    ],
    request: ['wiederhole[nst]?', '(?:ich )?hab(?:e)? (?:ihn|sie|es) nicht mehr', 'verloren'],
  },
  pt: {
    backReference: [
      'que (?:eu )?(?:j[aá] )?(?:te |lhe |lhes |vos )?(?:passei|dei|disse|enviei|mandei|mencionei|informei|falei)',
      'como (?:eu )?(?:te |lhe )?(?:disse|mencionei|falei)',
      'de antes',
      'anteriormente',
      'acima',
    ],
    demonstrative: ['ess[ea]s?', 'aquel[ea]s?', '(?:o|a|os|as) mesm[oa]s?'],
    askAgain: [
      'de novo',
      'novamente',
      'outra vez',
      'qual (?:[eé]|era) (?:o |a )?(?:seu|sua|teu|tua)',
      'devo usar',
      '(?:pode|poderia|podes) (?:me )?(?:\\p{L}+ )?(?:passar|enviar|mandar|dar|dizer|informar|confirmar)',
      'qual (?:era|foi) (?:o|a)',
    ],
    request: ['(?:pode|poderia|podes) (?:me )?repetir', 'repita', 'repete', 'n[aã]o (?:o |a )?tenho mais', 'perdi (?:o|a|seu|sua|meu|minha)'],
  },
  fr: {
    backReference: [
      'que je (?:t[\'’]|te |vous |l[\'’])?(?:ai |avais )?(?:donn[ée]e?s?|dit|envoy[ée]e?s?|indiqu[ée]e?s?|communiqu[ée]e?s?|mentionn[ée]e?s?|pass[ée]e?s?|fourni(?:e|s|es)?)',
      'comme (?:je )?(?:te |vous )?(?:l[\'’])?(?:ai |avais )?(?:dit|mentionn[ée])',
      'plus haut',
      'ci-dessus',
      'pr[ée]c[ée]demment',
      'tout à l[\'’]heure',
      'd[\'’]avant',
    ],
    demonstrative: ['(?:le|la|les) m[êe]mes?'],
    askAgain: [
      'à nouveau',
      'de nouveau',
      'encore une fois',
      'quel(?:le)?s? (?:est|sont|était) (?:votre|ton|ta|vos|tes)',
      'dois-je utiliser',
      '(?:pouvez-vous|pourriez-vous|peux-tu|pourrais-tu) (?:me )?(?:\\p{L}+ )?(?:donner|envoyer|renvoyer|redonner|dire|indiquer|confirmer|rappeler)',
      'quel(?:le)? (?:[ée]tait) (?:le|la|votre|ton|ta)',
    ],
    request: ['r[ée]p[ée]ter', 'r[ée]p[èée]te[sz]?', 'je ne l[\'’]ai plus', 'j[\'’]ai perdu'],
  },
}

const LANGUAGES: readonly Language[] = ['en', 'es', 'de', 'pt', 'fr']

/** One regex of whole-word alternatives (`sources`), case-insensitive, Unicode letters as word characters. */
function wordsRegex(sources: readonly string[], flags: string): RegExp {
  return new RegExp(`(?<![\\p{L}\\p{N}_])(?:${sources.join('|')})(?![\\p{L}\\p{N}_])`, flags)
}

const phrasesOf = (key: keyof (typeof BACK_REFERENCE_PHRASES)['en']) => LANGUAGES.flatMap((l) => BACK_REFERENCE_PHRASES[l][key])

/** Per noun entry: its kinds and one global regex of its nouns in every language. */
const NOUNS = BACK_REFERENCE_NOUNS.map(({ kinds, orElse, nouns }) => ({
  kinds,
  orElse,
  noun: wordsRegex(LANGUAGES.flatMap((l) => nouns[l]), 'giu'),
}))

/** A back-reference phrase anywhere in a sentence. */
const BACK_REFERENCE_PHRASE = wordsRegex(phrasesOf('backReference'), 'iu')

/** An ask-again phrase anywhere in a (question) sentence. */
const ASK_AGAIN_PHRASE = wordsRegex(phrasesOf('askAgain'), 'iu')

/** A request phrase anywhere in a sentence. */
const REQUEST_PHRASE = wordsRegex(phrasesOf('request'), 'iu')

/** A demonstrative right before the end of a text (tested on the text before a noun). */
const DEMONSTRATIVE_BEFORE = new RegExp(`(?<![\\p{L}\\p{N}_])(?:${phrasesOf('demonstrative').join('|')})\\s+$`, 'iu')

/** A demonstrative anywhere, followed by a word: a sentence without one needs no noun-by-noun test. */
const DEMONSTRATIVE = wordsRegex(phrasesOf('demonstrative'), 'iu')

/** Any marker of the four: a text without one holds no back-reference (one scan of it). */
const ANY_MARKER = wordsRegex(
  [...phrasesOf('backReference'), ...phrasesOf('askAgain'), ...phrasesOf('request'), ...phrasesOf('demonstrative')],
  'iu',
)

/** Cap of a back-reference's quoted sentence, in code points. */
const PHRASE_CHAR_CAP = 200

/** A sentence of a message that refers back to facts of some kinds, or asks for them again. */
export interface BackReference {
  /**
   * The kinds its nouns name, `orElse` kinds included (a sentence may name several: "the file
   * and the date above").
   */
  kinds: FactKind[]
  /**
   * Per noun entry named, in table order: its kinds and (`orElse`, when the entry has them) the
   * kinds it means only when no fact of those came before (see `mentionsOf`).
   */
  nouns: { kinds: FactKind[]; orElse?: FactKind[] }[]
  /** The sentence, trimmed, whitespace collapsed, cut to 200 code points; untrusted text. */
  sentence: string
  /** `back-reference`: it refers back ("the postal code I gave you"); `asked-again`: it asks for it again. */
  how: 'back-reference' | 'asked-again'
}

/** Whether a sentence (untrimmed) is a question: it ends in `?` or opens with `¿`. */
const isQuestion = (s: string) => /[?？]\s*$|^\s*¿/.test(s)

/**
 * The back-references in `text`, in order: each sentence (ended by `.`, `!`, `?` or a line
 * break) that names a fact kind by a noun of `BACK_REFERENCE_NOUNS` and
 * - holds a back-reference phrase (`BACK_REFERENCE_PHRASES` `backReference`): every noun it
 *   names counts, `how: 'back-reference'`; else
 * - has a demonstrative right before a noun ("that order"): the nouns so pointed at count,
 *   `back-reference`; else
 * - is a question holding an ask-again phrase, or any sentence holding a request phrase: every
 *   noun it names counts, `asked-again`.
 * "Ship it to the postal code I gave you." → one, kinds `['postal-code']`. Pure; a text without
 * any phrase is scanned once.
 */
export function findBackReferences(text: string): BackReference[] {
  if (!ANY_MARKER.test(text)) return []
  const out: BackReference[] = []
  for (const raw of text.split(/(?<=[.!?])\s+|\n/)) {
    const back = BACK_REFERENCE_PHRASE.test(raw)
    const pointed = !back && DEMONSTRATIVE.test(raw)
    const ask = !back && ((isQuestion(raw) && ASK_AGAIN_PHRASE.test(raw)) || REQUEST_PHRASE.test(raw))
    if (!back && !pointed && !ask) continue
    let rest = raw
    const kinds: FactKind[] = []
    const nouns: BackReference['nouns'] = []
    for (const { noun, kinds: named, orElse } of NOUNS) {
      let hit = false
      rest = rest.replace(noun, (m: string, ...args: unknown[]) => {
        // The match's offset: the first number after it (the nouns have no capturing groups).
        const at = args.find((a) => typeof a === 'number') as number
        if (back || ask || DEMONSTRATIVE_BEFORE.test(raw.slice(Math.max(0, at - 24), at))) hit = true
        return ' '.repeat(m.length)
      })
      if (!hit || named.length === 0) continue
      for (const k of [...named, ...(orElse ?? [])]) if (!kinds.includes(k)) kinds.push(k)
      nouns.push(orElse ? { kinds: [...named], orElse: [...orElse] } : { kinds: [...named] })
    }
    if (kinds.length === 0) continue
    const how = back || !ask ? 'back-reference' : 'asked-again'
    out.push({ kinds, nouns, sentence: cutCodePoints(raw.trim().replace(/\s+/g, ' '), PHRASE_CHAR_CAP), how })
  }
  return out
}

/** How a later message needed a lost fact. */
export interface NeededAfterLoss {
  /** The pass that took the fact out of the context, by stage and number. */
  stage: ProvenanceStage
  pass: number
  /** The Before index of the turn end at which that pass fired (the fact was gone from there on). */
  atMessage: number
  /** The Before message that needed it: its id, index and role (`user` or `assistant`). */
  messageId: string
  messageIndex: number
  role: Role
  /**
   * `verbatim`: the message's own words hold the fact's text; `back-reference`: it names the
   * fact's kind by its noun — referring back to it, or asking for it again (`asked`).
   */
  how: 'verbatim' | 'back-reference'
  /** For a back-reference: the sentence (see `BackReference.sentence`). */
  phrase?: string
  /** Set when that sentence is a question asking for the value again ("Which postal code should I use?"). */
  asked?: true
}

/**
 * How a tool brought a lost fact back: re-work (the agent re-read what compaction removed), not
 * a need of the conversation. Fields as `NeededAfterLoss`; the message is the first after the
 * loss whose tool call's arguments (`tool-call`, an assistant message) or tool result
 * (`tool-result`) holds the fact's text.
 */
export interface ReReadAfterLoss {
  stage: ProvenanceStage
  pass: number
  atMessage: number
  messageId: string
  messageIndex: number
  role: Role
  how: 'tool-call' | 'tool-result'
}

/** A message that mentions a fact: its Before index, id, role, how and (back-reference) sentence. */
interface Mention {
  index: number
  id: string
  role: Role
  how: NeededAfterLoss['how'] | ReReadAfterLoss['how']
  phrase?: string
  asked?: true
}

/**
 * What `neededAfterLoss` and `reReadAfterLoss` read of a transcript, built once per Before
 * (`mentionsOf`): per fact the user and assistant messages repeating it and the tool calls and
 * results holding it, the back-references by kind, which facts the user stated, and which facts
 * could be needed or re-read at all.
 */
export interface Mentions {
  /**
   * Per fact (the fact index's order): the ordinary user messages and the assistant messages
   * whose own words (not their tool calls' arguments) hold it, by index ascending.
   */
  verbatim: Mention[][]
  /** Per fact: the tool results and the assistant tool calls' arguments holding it, by index ascending. */
  reRead: Mention[][]
  /**
   * Back-reference and ask-again sentences of user and assistant messages, by index ascending,
   * with the kinds they mean: each noun's kinds, and its `orElse` kinds when no fact of its kinds
   * came before the sentence (only the user's facts count when the user stated a value of any of
   * them before: "the customer number I gave you" means the user's id, never a number the user
   * gave when an id the user gave exists).
   */
  backReferences: (Mention & { kinds: FactKind[] })[]
  /** Per fact: a user (ordinary user message) stated it. */
  userStated: boolean[]
  /** Per kind: the Before index of the first ordinary user message stating a fact of that kind. */
  userStatedFrom: Map<FactKind, number>
  /**
   * The facts that can be needed after a loss in any run: a user or assistant mention (verbatim,
   * or a back-reference naming its kind) comes after its first holder. Ascending.
   */
  candidates: number[]
  /** The facts that can be re-read after a loss: a `reRead` mention comes after its first holder. Ascending. */
  reReadCandidates: number[]
}

/**
 * The mentions of `facts` in `messages` (a transcript's Before), given `holders` (per fact: ids
 * of the before messages holding its text, in order — the fact index's). A summary never
 * mentions (it carries a fact, nobody needs it there); a system or injected message neither. An
 * assistant message holding a fact with tool calls is tested once more, on its own words alone,
 * when `fact` is given (else it counts as its words). A back-reference's nouns are resolved to
 * the kinds they mean (`Mentions.backReferences`). Linear in holders and messages. Pure.
 */
export function mentionsOf(
  messages: readonly Message[],
  facts: readonly { kind: FactKind; fact?: string }[],
  holders: readonly (readonly string[])[],
): Mentions {
  const byId = new Map(messages.map((m) => [m.id, m]))
  const words = new Map<string, string>()
  const wordsOf = (m: Message) => {
    let text = words.get(m.id)
    if (text === undefined) words.set(m.id, (text = contentText(m.content)))
    return text
  }
  const verbatim: Mention[][] = []
  const reRead: Mention[][] = []
  const userStated: boolean[] = []
  const userStatedFrom = new Map<FactKind, number>()
  const firstAt: number[] = []
  facts.forEach((f, i) => {
    const said: Mention[] = []
    const read: Mention[] = []
    let user = false
    let first = Infinity
    for (const id of holders[i] ?? []) {
      const m = byId.get(id)
      if (!m) continue
      first = Math.min(first, m.index)
      if (isSummaryMessage(m)) continue
      const at = { index: m.index, id: m.id, role: m.role }
      if (isOrdinaryUser(m)) {
        user = true
        said.push({ ...at, how: 'verbatim' })
        if (m.index < (userStatedFrom.get(f.kind) ?? Infinity)) userStatedFrom.set(f.kind, m.index)
      } else if (m.role === 'tool') read.push({ ...at, how: 'tool-result' })
      else if (m.role === 'assistant') {
        const inCall = (m.toolCalls?.length ?? 0) > 0 && f.fact !== undefined && !wordsOf(m).includes(f.fact)
        ;(inCall ? read : said).push({ ...at, how: inCall ? 'tool-call' : 'verbatim' })
      }
    }
    said.sort((a, b) => a.index - b.index)
    read.sort((a, b) => a.index - b.index)
    verbatim.push(said)
    reRead.push(read)
    userStated.push(user)
    firstAt.push(first)
  })
  // Per kind, the first Before index holding a fact of it (any holder; the user's: userStatedFrom).
  const kindFrom = new Map<FactKind, number>()
  facts.forEach((f, i) => kindFrom.set(f.kind, Math.min(kindFrom.get(f.kind) ?? Infinity, firstAt[i] as number)))
  const meant = (r: BackReference, at: number): FactKind[] => {
    const kinds: FactKind[] = []
    for (const n of r.nouns) {
      let named = n.kinds
      if (n.orElse) {
        const before = (from: Map<FactKind, number>, k: FactKind) => (from.get(k) ?? Infinity) < at
        const usersOnly = [...n.kinds, ...n.orElse].some((k) => before(userStatedFrom, k))
        if (!n.kinds.some((k) => before(usersOnly ? userStatedFrom : kindFrom, k))) named = [...n.kinds, ...n.orElse]
      }
      for (const k of named) if (!kinds.includes(k)) kinds.push(k)
    }
    return kinds
  }
  const backReferences: Mentions['backReferences'] = []
  for (const m of messages) {
    if (isSummaryMessage(m) || (m.role !== 'assistant' && !isOrdinaryUser(m))) continue
    for (const r of findBackReferences(wordsOf(m))) {
      const ref: Mentions['backReferences'][number] = { index: m.index, id: m.id, role: m.role, how: 'back-reference', phrase: r.sentence, kinds: meant(r, m.index) }
      if (r.how === 'asked-again') ref.asked = true
      backReferences.push(ref)
    }
  }
  backReferences.sort((a, b) => a.index - b.index)
  // Per kind, the latest back-reference: a fact first held before it can be needed by it.
  const lastRef = new Map<FactKind, number>()
  for (const r of backReferences) for (const k of r.kinds) lastRef.set(k, Math.max(lastRef.get(k) ?? -Infinity, r.index))
  const after = (list: readonly Mention[], first: number) => (list[list.length - 1]?.index ?? -Infinity) > first
  const candidates: number[] = []
  const reReadCandidates: number[] = []
  facts.forEach((f, i) => {
    const first = firstAt[i] as number
    if (after(verbatim[i] as Mention[], first) || (lastRef.get(f.kind) ?? -Infinity) > first) candidates.push(i)
    if (after(reRead[i] as Mention[], first)) reReadCandidates.push(i)
  })
  return { verbatim, reRead, backReferences, userStated, userStatedFrom, candidates, reReadCandidates }
}

/** A pass as `neededAfterLoss` reads it: its stage, number and the turn end it fired at. */
export interface NeededPass {
  stage: ProvenanceStage
  pass: number
  atMessage: number
}

/** Per fact of `which`: the pass position at which its `passRuns` first reads `lost`. */
function lossPositions(which: readonly number[], passRuns: (i: number) => readonly PassRun[]): Map<number, number> {
  const lostAt = new Map<number, number>()
  for (const i of which) {
    const r = passRuns(i).find((run) => run.state === 'lost')
    if (r) lostAt.set(i, r.from)
  }
  return lostAt
}

/**
 * Which of the facts `which` (indices into the facts `mentions` was built for) were needed after
 * they were lost, and how: a fact is lost at the first pass position whose state in its
 * `passRuns(i)` (runs over `passes`, the facts table's) is `lost` — no holder the replay had
 * reached is verbatim and that pass's summary does not hold it — at `t`, that pass's
 * `atMessage`. It was needed when a user or assistant message with index > t (never a tool
 * result, never a summary) holds its text in its own words, refers back to its kind
 * (`findBackReferences`) or asks for a value of its kind again (`asked`) — such a sentence
 * marks the facts of its kinds lost before it, only the user-stated ones when the user stated a
 * value of that kind before it (lost or not: "the postal code I gave you" never means a
 * tool's). The earliest such mention is reported. A tool bringing it back is re-work (`reReadAfterLoss`), not a need. Facts
 * lost without a pass (pruned, dropped) are not here: no turn took them out. Pure.
 */
export function neededAfterLoss(
  mentions: Mentions,
  facts: readonly { kind: FactKind }[],
  which: readonly number[],
  passes: readonly NeededPass[],
  passRuns: (i: number) => readonly PassRun[],
): Map<number, NeededAfterLoss> {
  const lostAt = lossPositions(which, passRuns)
  const at = (k: number) => (passes[k] as NeededPass).atMessage
  const first = new Map<number, Mention>()
  const offer = (i: number, m: Mention) => {
    const held = first.get(i)
    if (!held || m.index < held.index) first.set(i, m)
  }
  for (const [i, k] of lostAt) {
    const t = at(k)
    const m = (mentions.verbatim[i] ?? []).find((x) => x.index > t)
    if (m) offer(i, m)
  }
  if (mentions.backReferences.length > 0 && lostAt.size > 0) {
    const byKind = new Map<FactKind, number[]>()
    for (const i of lostAt.keys()) {
      const kind = (facts[i] as { kind: FactKind }).kind
      const list = byKind.get(kind) ?? []
      list.push(i)
      byKind.set(kind, list)
    }
    for (const ref of mentions.backReferences) {
      for (const kind of ref.kinds) {
        // The user stated a value of this kind before: the sentence means the user's.
        const usersOnly = (mentions.userStatedFrom.get(kind) ?? Infinity) < ref.index
        for (const i of byKind.get(kind) ?? [])
          if (at(lostAt.get(i) as number) < ref.index && (!usersOnly || mentions.userStated[i])) offer(i, ref)
      }
    }
  }
  const out = new Map<number, NeededAfterLoss>()
  for (const i of [...first.keys()].sort((a, b) => a - b))
    out.set(i, neededOf(passes[lostAt.get(i) as number] as NeededPass, first.get(i) as Mention))
  return out
}

/** The need of mention `m` after pass `p` took the fact out. */
function neededOf(p: NeededPass, m: Mention): NeededAfterLoss {
  const needed: NeededAfterLoss = {
    stage: p.stage,
    pass: p.pass,
    atMessage: p.atMessage,
    messageId: m.id,
    messageIndex: m.index,
    role: m.role,
    how: m.how as NeededAfterLoss['how'],
  }
  if (m.phrase !== undefined) needed.phrase = m.phrase
  if (m.asked) needed.asked = true
  return needed
}

/**
 * Per fact of `which`: every pass position at which it was taken out of the context, in pass
 * order — the first position of each run of `lost` in `passRuns(i)`, and, inside such a run,
 * each later position `k` whose pass fired after a message holding the fact again (a user or
 * assistant message's words, a tool call's arguments or a tool result: `Mentions`) came after
 * the previous loss (index in (atMessage of the previous loss, atMessage of k]): the fact was
 * back in the conversation and pass k took it out again. Assumes `atMessage` non-decreasing
 * over a run's positions (the passes of one stage). O(runs + holders · log passes) per fact.
 */
function lossesOf(i: number, mentions: Mentions, passes: readonly NeededPass[], runs: readonly PassRun[]): number[] {
  const at = (k: number) => (passes[k] as NeededPass).atMessage
  const held = [...(mentions.verbatim[i] ?? []), ...(mentions.reRead[i] ?? [])].map((m) => m.index).sort((a, b) => a - b)
  const out: number[] = []
  for (const run of runs) {
    if (run.state !== 'lost') continue
    let last = run.from
    out.push(last)
    for (const index of held) {
      if (index <= at(last) || index > at(run.to)) continue
      const k = partitionPoint(last + 1, run.to + 1, (j) => at(j) >= index)
      if (k > run.to) break
      out.push(k)
      last = k
    }
  }
  return out
}

/**
 * Every need of the facts `which` after each time a pass took them out of the context (see
 * `lossesOf`: a first loss, and each loss after the fact came back — restated, or re-read by a
 * tool — or left the `lost` state): per loss at pass position k firing at `atMessage` t, the
 * first user or assistant message with index in (t, the next loss's atMessage] (the last loss:
 * no upper bound) that needs it as in `neededAfterLoss` — its own words hold the fact's text, or
 * a sentence refers back to its kind or asks for it again, only the user-stated facts when the
 * user stated a value of that kind before the sentence. A loss with no such message adds
 * nothing. Facts with at least one need, ascending; each list in loss order. The first element
 * is `neededAfterLoss`'s answer for the fact when a need falls before its second loss (always,
 * unless only a tool or a summary brought the fact back in between: then a later need is
 * reported against the loss it followed). Pure.
 */
export function neededAfterEachLoss(
  mentions: Mentions,
  facts: readonly { kind: FactKind }[],
  which: readonly number[],
  passes: readonly NeededPass[],
  passRuns: (i: number) => readonly PassRun[],
): Map<number, NeededAfterLoss[]> {
  const at = (k: number) => (passes[k] as NeededPass).atMessage
  // Per fact with a loss: its loss positions and, per loss, the earliest need found so far.
  const lossesAt = new Map<number, { losses: number[]; first: (Mention | undefined)[] }>()
  for (const i of which) {
    const losses = lossesOf(i, mentions, passes, passRuns(i))
    if (losses.length > 0) lossesAt.set(i, { losses, first: losses.map(() => undefined) })
  }
  // The loss whose interval (atMessage, next loss's atMessage] holds `index`, or -1.
  const lossFor = (losses: readonly number[], index: number) => {
    for (let j = losses.length - 1; j >= 0; j--) if (at(losses[j] as number) < index) return j
    return -1
  }
  const offer = (i: number, m: Mention) => {
    const held = lossesAt.get(i)
    if (!held) return
    const j = lossFor(held.losses, m.index)
    if (j < 0) return
    const now = held.first[j]
    if (!now || m.index < now.index) held.first[j] = m
  }
  for (const i of lossesAt.keys()) for (const m of mentions.verbatim[i] ?? []) offer(i, m)
  if (mentions.backReferences.length > 0 && lossesAt.size > 0) {
    const byKind = new Map<FactKind, number[]>()
    for (const i of lossesAt.keys()) {
      const kind = (facts[i] as { kind: FactKind }).kind
      const list = byKind.get(kind) ?? []
      list.push(i)
      byKind.set(kind, list)
    }
    for (const ref of mentions.backReferences) {
      for (const kind of ref.kinds) {
        const usersOnly = (mentions.userStatedFrom.get(kind) ?? Infinity) < ref.index
        for (const i of byKind.get(kind) ?? []) if (!usersOnly || mentions.userStated[i]) offer(i, ref)
      }
    }
  }
  const out = new Map<number, NeededAfterLoss[]>()
  for (const i of [...lossesAt.keys()].sort((a, b) => a - b)) {
    const { losses, first } = lossesAt.get(i) as { losses: number[]; first: (Mention | undefined)[] }
    const needs: NeededAfterLoss[] = []
    first.forEach((m, j) => {
      if (m) needs.push(neededOf(passes[losses[j] as number] as NeededPass, m))
    })
    if (needs.length > 0) out.set(i, needs)
  }
  return out
}

/**
 * Which of the facts `which` a tool brought back after they were lost (lost as in
 * `neededAfterLoss`): the first tool call's arguments or tool result after the pass's
 * `atMessage` that holds the fact's text (`Mentions.reRead`). Re-work, shown apart from the
 * facts needed; a fact may be in both. Ascending by fact. Pure.
 */
export function reReadAfterLoss(
  mentions: Mentions,
  which: readonly number[],
  passes: readonly NeededPass[],
  passRuns: (i: number) => readonly PassRun[],
): Map<number, ReReadAfterLoss> {
  const out = new Map<number, ReReadAfterLoss>()
  const lostAt = lossPositions(which, passRuns)
  for (const i of [...lostAt.keys()].sort((a, b) => a - b)) {
    const p = passes[lostAt.get(i) as number] as NeededPass
    const m = (mentions.reRead[i] ?? []).find((x) => x.index > p.atMessage)
    if (!m) continue
    out.set(i, {
      stage: p.stage,
      pass: p.pass,
      atMessage: p.atMessage,
      messageId: m.id,
      messageIndex: m.index,
      role: m.role,
      how: m.how as ReReadAfterLoss['how'],
    })
  }
  return out
}

/** How many needed facts the totals line names before "+N more". */
const NAMED_FACTS = 3

/** Cap of a fact named in the totals line, in code points (an ellipsis marks a cut). */
const NAMED_FACT_CHAR_CAP = 40

/**
 * The totals line of facts needed after a loss, counting distinct fact texts (`facts`: the
 * needed facts' texts, in order; a text needed under two kinds counts once) and naming the
 * first three, each cut to 40 code points: "1 fact was needed after compaction removed it:
 * 01310-100", "5 facts were needed after compaction removed them: 94107, ORD-58213, a.txt, +2
 * more", "0 facts were needed after compaction removed them" (counts with thousands separators).
 * The one wording of the facts table, the page's totals and the CLI.
 */
export function neededText(facts: readonly string[]): string {
  const distinct = [...new Set(facts)]
  const count = distinct.length
  const n = count.toLocaleString('en-US')
  const head =
    count === 1 ? `${n} fact was needed after compaction removed it` : `${n} facts were needed after compaction removed them`
  if (count === 0) return head
  const named = distinct.slice(0, NAMED_FACTS).map((f) => {
    const one = f.replace(/\s+/g, ' ').trim()
    return codePointLength(one) > NAMED_FACT_CHAR_CAP ? `${cutCodePoints(one, NAMED_FACT_CHAR_CAP - 1)}…` : one
  })
  const more = count > NAMED_FACTS ? `, +${(count - NAMED_FACTS).toLocaleString('en-US')} more` : ''
  return `${head}: ${named.join(', ')}${more}`
}

/**
 * How a message needed a fact, in the words of the over-compression warning and the CLI:
 * `user: "Ship it to the postal code I gave you."`, `assistant asked: "Which postal code should
 * I use?"`, `assistant, verbatim`. `cut` shortens the quoted sentence (default: as is).
 */
export function neededByText(n: Pick<NeededAfterLoss, 'role' | 'phrase' | 'asked'>, cut: (s: string) => string = (s) => s): string {
  if (n.phrase === undefined) return `${n.role}, verbatim`
  return `${n.role}${n.asked ? ' asked' : ''}: "${cut(n.phrase)}"`
}
