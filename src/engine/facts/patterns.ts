/**
 * Fact patterns: what a fact is — the things a compacted context must never lose (seed 004
 * "shabd bacha sakte ho, facts nahi" — words may go, facts may not) — and how they are found in
 * a message. One module for the extractive summarizer, the `pin-facts` stage, the fact finder
 * and the failure-mode checks, so that all four agree on what a fact is. Source: SPEC §3.5,
 * seed 004.
 */
import { contentText } from '../content'
import type { Message } from '../model'
import { perMessage, type PerMessage } from '../util/memo'
import { partitionPoint } from '../util/search'
import { cutCodePoints } from '../util/text'
import { goalMessage, isOrdinaryUser } from './classify'
import { holdsFact } from './fact-index'
import { parseJsonWithin } from '../util/nesting'
import {
  factImportance,
  factOrigin,
  firstLineIsNoise,
  SEEN,
  type FactImportance,
  type FactOrigin,
} from './importance'

/**
 * What kind of fact a candidate is. Source: SPEC §3.5 (plus cases/19 jobs, cases/20 names).
 * Numbers with a unit are `money` (a currency), `quantity` (a size, weight or length), `duration`,
 * `percentage` or `count` (items, units), so a test run's `584ms` is told from a price;
 * `watched` is a fact the user of this tool asked to track (`extractFacts`' `watched`).
 * Values a person states in a user message have kinds of their own where nothing above fits:
 * `hash` (a commit SHA, 7–40 hex digits), `uuid`, `version`, `port`, `phone`, `branch` (a git
 * branch), `env-var` (an environment variable's name), `number` (3+ digits) and `code` (letters
 * and digits mixed, e.g. a booking code).
 */
export type FactKind =
  | 'goal'
  | 'id'
  | 'postal-code'
  | 'url'
  | 'email'
  | 'file-path'
  | 'date'
  | 'reference'
  | 'name'
  | 'money'
  | 'quantity'
  | 'duration'
  | 'percentage'
  | 'count'
  | 'instruction'
  | 'todo'
  | 'decision'
  | 'job'
  | 'hash'
  | 'uuid'
  | 'version'
  | 'port'
  | 'phone'
  | 'branch'
  | 'env-var'
  | 'number'
  | 'code'
  | 'watched'

/** Cap of one pattern fact, in code points. */
const FACT_CHAR_CAP = 120

/** Cap of one verbatim line (instruction, TODO, decision, job status), in code points. */
const LINE_CHAR_CAP = 400

const FILE_EXTENSIONS =
  'py|ts|tsx|js|jsx|mjs|cjs|json|jsonl|ya?ml|toml|ini|cfg|conf|md|txt|csv|tsv|log|go|rs|rb|java|kt|c|h|cc|cpp|hpp|cs|php|swift|sh|sql|html|css|xml|lock|env|pdf|png|jpe?g|gif|svg'

/** A name ending in one of `FILE_EXTENSIONS` (`login.py`): a file, not a host or a branch. */
const ENDS_IN_FILE_EXTENSION = new RegExp(`\\.(?:${FILE_EXTENSIONS})$`, 'i')

/** Currency codes a number may be followed by (regex source; case-insensitive). */
const CURRENCY_CODES = 'USD|EUR|GBP|BRL|JPY'

/** A thousand, million or billion written after an amount's digits (`12k`, `3.5M`, `2B`; regex source). */
const AMOUNT_SCALE = '[kKMB]'

/** Words for "version" in English, Spanish, Portuguese, German, French and Italian (regex source, case-insensitive). */
const VERSION_WORDS = 'versions?|versi[óo]n(?:es)?|vers[ãa]o|vers[õo]es|release'

/**
 * Units of the number + unit pattern (regex source; case-insensitive): currencies, counts,
 * sizes, durations, `%`, times of day. `UNIT_KINDS` gives each its kind.
 */
const UNITS =
  `${CURRENCY_CODES}|units?|items?|pcs|kg|g|lb|km|m|cm|mm|GB|MB|KB|TB|ms|s|h|min|days?|weeks?|months?|years?|hours?|minutes?|seconds?|%|am|pm`

/** English month names and their abbreviations (regex source), each a whole word before a space or `.`. */
const EN_MONTHS =
  'Jan(?:uary)?|Feb(?:ruary)?|Mar(?:ch)?|Apr(?:il)?|May|June?|July?|Aug(?:ust)?|Sept?(?:ember)?|Oct(?:ober)?|Nov(?:ember)?|Dec(?:ember)?'

/**
 * One fact pattern: matches of `pattern` (global) are facts of `kind`, or of `kindOf(fact,
 * match)` (null: not a fact). With the `d` flag and a group named `v`, the fact is that group
 * (a port's digits after its host), else the whole match, trimmed. `needs`: a string every
 * match holds, so a text without it is not scanned (`includes` is native and fast).
 */
interface FactPattern {
  kind: FactKind
  pattern: RegExp
  kindOf?: (fact: string, match: string) => FactKind | null
  needs?: string
}

/** A span found by a `FactFinder`: [at, end) of the text, its kind, and whether a label decided it. */
interface FoundSpan {
  at: number
  end: number
  kind: FactKind
  labelled?: boolean
}

/** A fact source that is not one regex: `find` returns its spans in order of start. */
interface FactFinder {
  find: (text: string) => FoundSpan[]
}

/**
 * A path with a directory and a file name with an extension, `~/`, `./`, `../` or `/` first or not:
 * what `(?:~|\.{1,2})?\/?(?:[\w.-]+\/)+[\w-]+\.\w+` matches, written so that a match not after `~`
 * starts only where a run of `[\w.-]` starts (the leftmost match always does), which spares the
 * regex a scan of every word from each of its letters (a third of all fact extraction on a 50 MB
 * session).
 */
export const RELATIVE_PATH_PATTERN = /(?:~|(?<![\w.-])\.{0,2})\/?(?:[\w.-]+\/)+[\w-]+\.\w+/g

// Fact patterns, each named once; `FACT_PATTERNS` and `STATED_FACT_SOURCES` list them in the
// order their kinds are tried (a span taken by an earlier source is not a second fact). Kept
// conservative: a false fact costs tokens, a missed one costs a re-ask. Source: SPEC §3.5 (IDs,
// order numbers, postal codes, URLs, e-mail addresses, file paths, dates, amounts with units);
// cases/20 (names, "chapter 7").

// URLs before paths and e-mails, so their parts are not taken twice.
const URL: FactPattern = { kind: 'url', needs: '://', pattern: /\bhttps?:\/\/[^\s<>"'`)\]]+[^\s<>"'`)\].,;:!?]/g }
const EMAIL: FactPattern = { kind: 'email', needs: '@', pattern: /\b[\w.+-]+@[\w-]+(?:\.[\w-]+)+\b/g }
// IDs and order numbers: ORD-58213, A-48213-KQ, INV-2207, CACHE-58, job-4821.
const ID_UPPER: FactPattern = { kind: 'id', needs: '-', pattern: /\b[A-Z][A-Z0-9]*(?:-[A-Z0-9]+)+\b/g }
const ID_LOWER: FactPattern = { kind: 'id', needs: '-', pattern: /\b[a-z]+-\d{3,}\b/g }
// An IBAN written in groups, as banks print it: country, check digits, then groups of four
// letters or digits (ES91 2100 0418 4502 0005 1332), the last group shorter or not.
const IBAN_GROUPED: FactPattern = {
  kind: 'id',
  pattern: /(?<![\w-])[A-Z]{2}\d{2}(?: [A-Z0-9]{4}){2,7}(?: [A-Z0-9]{1,3})?(?![\w-])/g,
}
// Postal codes: CEP 01310-100, ZIP+4 12345-6789, or a code after the words.
const POSTAL_DASHED: FactPattern = { kind: 'postal-code', needs: '-', pattern: /\b\d{5}-\d{3,4}\b/g }
// Case-sensitive code: with the i flag "postal code 94107 are" took the next word along.
const POSTAL_AFTER_WORDS: FactPattern = {
  kind: 'postal-code',
  pattern:
    /\b(?:[Pp]ostal [Cc]ode|[Pp]ostcode|[Zz][Ii][Pp](?: [Cc]ode)?|CEP)[:\s]+[A-Z0-9][A-Z0-9 -]{2,8}[A-Z0-9]\b/g,
}
// Dates: ISO (with an optional time), day/month/year, "March 3, 2025", "3 March 2025" (a month's
// name or abbreviation only: "Marco 3" is no date).
const DATE_ISO: FactPattern = {
  kind: 'date',
  needs: '-',
  pattern: /\b\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2})?Z?)?\b/g,
}
const DATE_DMY: FactPattern = { kind: 'date', needs: '/', pattern: /\b\d{1,2}\/\d{1,2}\/\d{2,4}\b/g }
// Year first with slashes (2025/11/04), a real month and day: `2025/11` or `2024/2025/3` are no dates.
const DATE_YMD_SLASHED: FactPattern = {
  kind: 'date',
  needs: '/',
  pattern: /(?<![\w/.-])\d{4}\/(?:0?[1-9]|1[0-2])\/(?:0?[1-9]|[12]\d|3[01])(?![\w/-]|\.\d)/g,
}
const DATE_MONTH_DAY: FactPattern = {
  kind: 'date',
  pattern: new RegExp(`\\b(?:${EN_MONTHS})\\.? \\d{1,2}(?:st|nd|rd|th)?(?:, \\d{4})?\\b`, 'g'),
}
const DATE_DAY_MONTH: FactPattern = {
  kind: 'date',
  pattern: new RegExp(`\\b\\d{1,2} (?:${EN_MONTHS})\\b(?: \\d{4})?\\b`, 'g'),
}
// File paths: dir/name.ext (optionally ~/ ./ ../ or / first), /abs/path, a bare name.ext.
const PATH_RELATIVE: FactPattern = { kind: 'file-path', needs: '/', pattern: RELATIVE_PATH_PATTERN }
// An absolute path, or one in the home directory with its `~` (`~/.ssh/id_ed25519`, `~/.bashrc`);
// a sentence's closing `.` is not the path's.
const PATH_ABSOLUTE: FactPattern = {
  kind: 'file-path',
  needs: '/',
  pattern: /(?<![\w.])(?:~\/(?:[\w.-]+\/)*|\/(?:[\w.-]+\/)+)[\w.-]*[\w-]/g,
}
// A Windows path: a drive letter, `\`, folders and a name (C:\Users\maria\Documents\report.xlsx).
const PATH_WINDOWS: FactPattern = {
  kind: 'file-path',
  needs: ':\\',
  pattern: /(?<![\w:\\])[A-Za-z]:\\(?:[\w.$~-]+\\)*[\w.$~-]*[\w$~-]/g,
}
const PATH_BARE: FactPattern = { kind: 'file-path', pattern: new RegExp(`\\b[\\w-]+\\.(?:${FILE_EXTENSIONS})\\b`, 'g') }
// Numbered references a conversation navigates by: chapter 7, exercises 7.1-7.3, ticket 12.
const REFERENCE: FactPattern = {
  kind: 'reference',
  pattern:
    /\b(?:chapter|section|exercise|lesson|ticket|issue|version|release)s? #?\d+(?:\.\d+)*(?:-\d+(?:\.\d+)*)?\b/gi,
}
// A version after a word for "version" is the version alone (`Version 2.4.17` → `2.4.17`), as
// a person quoting it later writes it: dotted or `v`-numbered ("version 2" stays a reference).
const VERSION_AFTER_WORD: FactPattern = {
  kind: 'version',
  pattern: new RegExp(
    `\\b(?:${VERSION_WORDS}):? ?(?<v>(?:v\\d+(?:\\.\\d+)*|\\d+(?:\\.\\d+)+)(?:-[0-9A-Za-z.]*[0-9A-Za-z])?)(?![\\w-]|\\.\\d)`,
    'dgi',
  ),
}
/**
 * A ticket's or pull request's number after its word, as the fact a person would quote: `#812`
 * (of `PR #812`) or a number of 3+ digits (`1234` of `PR 1234`, `ticket nº 4821`); a shorter
 * number is no value of its own, so `ticket 88` stays whole (`REFERENCE`, `STATED_REFERENCE`).
 */
const TICKET_NUMBER = '(?:n[º°o]\\.? ?|nr\\.? ?)?(?<v>#\\d+|\\d{3,})'
// Tickets and issues by number in any text: `ticket #456` → `#456`, `issue 1234` → `1234`.
const TICKET_REFERENCE: FactPattern = {
  kind: 'reference',
  pattern: new RegExp(`\\b(?:tickets?|issues?) ?${TICKET_NUMBER}(?!\\w)`, 'dgi'),
}
// A labelled port line of tool output or config (`Default port: 8443`, `PORT=3000`, `"db_port": 5432`).
const PORT_LINE: FactPattern = {
  kind: 'port',
  kindOf: (fact) => (Number(fact) <= 65_535 ? 'port' : null),
  pattern:
    /^[ \t]*(?:[-*][ \t]+)?["']?(?:[A-Za-z][\w .-]{0,30}?[ _.-])?port(?:[ _-]?(?:number|no))?["']?[ \t]*[:=][ \t]*(?<v>\d{2,5})(?![\w.:])/dgim,
}
// A person named after a label: "Student: Ilse", "my name is Ana Souza".
const NAME: FactPattern = {
  kind: 'name',
  pattern:
    /\b(?:[Nn]ame is|[Nn]ame:|[Ss]tudent:|[Cc]ustomer:|[Cc]lient:|[Cc]ontact:|[Aa]ssignee:|[Rr]ecipient:) ?[A-Z][\p{Ll}'-]+(?: [A-Z][\p{Ll}'-]+)?/gu,
}
/**
 * Letters beyond ASCII that may follow a unit's letters in a word ("80331 München" holds no
 * "80331 M"): Latin-1, Latin Extended, Greek and Cyrillic, as a character-class range. Written
 * without the `u` flag, which made the number + unit scan of tool output 2.5× slower.
 */
const LATIN_GREEK_CYRILLIC = '\\u00C0-\\u024F\\u0370-\\u04FF'

// Amounts: currency + number, number + currency/unit, times like 7pm; the unit decides the kind.
// An amount may end in a scale (`$12k`, `€3.5M`, `12k USD`).
const MONEY: FactPattern = {
  kind: 'money',
  pattern: new RegExp(`(?:R\\$|US\\$|[$€£¥])\\s?\\d(?:[\\d,.]*\\d)?(?:${AMOUNT_SCALE}(?![A-Za-z0-9_]))?`, 'g'),
}
const QUANTITY: FactPattern = {
  kind: 'quantity',
  kindOf: unitKind,
  pattern: new RegExp(
    `\\b\\d(?:[\\d,.]*\\d)?(?:${AMOUNT_SCALE}(?=\\s?(?:${CURRENCY_CODES})\\b))?\\s?(?:${UNITS})(?![\\w${LATIN_GREEK_CYRILLIC}-])`,
    'gi',
  ),
}

/** The fact patterns of any text (tool output, assistant and system text, summaries), in order. */
const FACT_PATTERNS: readonly FactPattern[] = [
  URL,
  EMAIL,
  IBAN_GROUPED,
  ID_UPPER,
  ID_LOWER,
  POSTAL_DASHED,
  POSTAL_AFTER_WORDS,
  DATE_ISO,
  DATE_DMY,
  DATE_YMD_SLASHED,
  DATE_MONTH_DAY,
  DATE_DAY_MONTH,
  PATH_RELATIVE,
  PATH_ABSOLUTE,
  PATH_WINDOWS,
  PATH_BARE,
  VERSION_AFTER_WORD,
  TICKET_REFERENCE,
  REFERENCE,
  PORT_LINE,
  NAME,
  MONEY,
  QUANTITY,
]

// ---------------------------------------------------------------------------------------------
// Stated values: what a person writes in an ordinary user message is a fact however it is
// phrased. Only user text is scanned with these (a tool's output holds thousands of numbers and
// hashes that describe the run, not the task).

/** Not after a letter, digit or `_` (a word start, for any script). */
const WORD_START = '(?<![\\p{L}\\p{N}_])'
/** Not before a letter, digit or `_` (a word end, for any script). */
const WORD_END = '(?![\\p{L}\\p{N}_])'

/**
 * The families of labels that name a value's kind, each the kind it gives and its words (regex
 * source, case-insensitive; `CASE_EXACT_LABELS` must be written in capitals), in English,
 * Spanish, Portuguese, German, French and Italian. Longer words first within a family.
 */
const LABEL_FAMILIES = {
  postal: {
    kind: 'postal-code',
    words:
      'postal[ -]?codes?|post[ -]?codes?|zip[ -]?codes?|zipcode|zip|c[óo]digos? postal(?:es)?|c[óo]d\\. ?postal|cep|c\\.p\\.|postleitzahl|plz|codes? postal|cap|postnummer|postinumero|kod pocztowy',
  },
  id: {
    kind: 'id',
    words:
      'order[ -]?(?:number|no|nr|id)|orders?|n[úu]mero de pedido|pedidos?|bestellnummer|bestell-?nr|bestellung|auftragsnummer|auftrag|num[ée]ro de commande|commandes?|encomendas?|ordine|customer[ -]?(?:id|number|no)|customer|clientes?|kundennummer|kunden-?nr|account[ -]?(?:id|number|no)|account|cuenta|conta|konto|invoice|factura|fatura|rechnungsnummer|rechnung|facture|booking|reserva|r[ée]servation|buchungsnummer|buchung|tracking[ -]?(?:number|code|id)?|rastreio|seguimiento|sendungsnummer|user[ -]?id|id|ref(?:erence)?[ -]?(?:number|no)?|referencia|refer[êe]ncia|referenz',
  },
  phone: {
    kind: 'phone',
    words:
      'phone[ -]?number|phone|telephone|mobile[ -]?number|mobile|cell[ -]?phone|cell|tel[ée]fonos?|tel[ée]fone|m[óo]vil|celular|telefonnummer|telefon|handynummer|handy|mobilnummer|rufnummer|t[ée]l[ée]phone|portable|fone|whats ?app|tel\\.?|t[ée]l\\.?',
  },
  port: {
    kind: 'port',
    words:
      'port[ -]?number|ports?|puertos?|porta|listen(?:s|ing)? on|escucha(?:ndo)? en|lauscht auf|écoute sur|escuta (?:em|na)|ascolta su(?:lla)?',
  },
  version: { kind: 'version', words: VERSION_WORDS },
  branch: { kind: 'branch', words: 'branch(?:es)?|rama|ramo|zweig|branche' },
  // A tracker key is an id whether a ticket word names it or not (`SUP-7719`, `JIRA-4821`).
  ticket: {
    kind: 'id',
    words: 'tickets?|issues?|pull requests?|merge requests?|pr|mr|jira|bugs?|chamados?|incidencias?|incidentes?|vorgang',
  },
} as const satisfies Record<string, { kind: FactKind; words: string }>

type LabelFamily = keyof typeof LABEL_FAMILIES

/** Labels that are only labels in capitals ("PLZ", "CAP", "PR"; "cap" and "pr" are other words). */
const CASE_EXACT_LABELS: ReadonlySet<string> = new Set(['PLZ', 'CAP', 'PR', 'MR', 'C.P.'])

/** Any label, one named group per family. */
const STATED_LABEL = new RegExp(
  `${WORD_START}(?:${Object.entries(LABEL_FAMILIES)
    .map(([family, { words }]) => `(?<${family}>${words})`)
    .join('|')})(?![\\p{L}\\p{N}_])`,
  'giu',
)

/** A value's end: no letter or digit follows, nor a separator and a digit (`94107.5`, `10:30`). */
const VALUE_END = `(?![\\p{L}\\p{N}_]|[.,/:-]\\p{N})`

/**
 * The shape of the value each family's label names, tried where the value would start (sticky).
 * `tight` families take the value right after the label and a few connecting words (`port is
 * 5432`), the others also after a short phrase (`postal code for the delivery is 94107`).
 */
const LABEL_VALUES: Record<LabelFamily, { value: RegExp; tight: boolean }> = {
  postal: {
    value: new RegExp(
      `(?:[A-Z]{1,2}\\d[A-Z\\d]? ?\\d[A-Z]{2}|[A-Z]\\d[A-Z] ?\\d[A-Z]\\d|\\d{2,5}-\\d{3,4}|\\d{3} \\d{2}(?!\\d)|\\d{4} ?[A-Z]{2}|[A-Z]{1,3}-\\d{3,6}|\\d{3,8})${VALUE_END}`,
      'uy',
    ),
    tight: false,
  },
  id: {
    value: new RegExp(`(?:[A-Za-z0-9]+[-_/.])*[A-Za-z0-9]*\\d[A-Za-z0-9]*(?:[-_/.][A-Za-z0-9]+)*${VALUE_END}`, 'uy'),
    tight: false,
  },
  phone: {
    value: new RegExp(`(?:\\+\\d{1,3}[ .-]?)?(?:\\(\\d{1,5}\\)[ .-]?)?\\d{1,8}(?:[ ./-]\\d{1,8}){0,5}${VALUE_END}`, 'uy'),
    tight: false,
  },
  port: { value: new RegExp(`\\d{2,5}${VALUE_END}`, 'uy'), tight: true },
  version: { value: new RegExp(`v?\\d+(?:\\.\\d+){1,3}(?:-[0-9A-Za-z.]*[0-9A-Za-z])?${VALUE_END}`, 'uy'), tight: true },
  branch: { value: /[A-Za-z0-9_][\w./-]*[\w](?![\w])/y, tight: true },
  ticket: { value: new RegExp(`[A-Z][A-Z0-9]+-\\d+${VALUE_END}`, 'uy'), tight: true },
}

/**
 * Words that join a label to its value in a tight family ("port is", "versión es", "Port
 * lautet", "branch named"), with separators (`:`, `=`, `#`, quotes), up to twelve of them.
 */
const TIGHT_GAP = new RegExp(
  `(?:[\\s:=#'"\`«?-]|(?:is|was|are|es|era|ist|war|lautet|est|était|é|number|no\\.?|nr\\.?|n[º°]\\.?|núm(?:ero)?\\.?|nummer|numéro|id|on|en|em|auf|sur|at|to|set to|the|el|la|lo|o|a|le|de|do|da|del|der|die|das|den|my|mi|mein|meine|mon|ma|meu|minha|name|named|called|llamada|chamada|nome|nombre)${WORD_END}){0,12}`,
  'iuy',
)

/** Longest phrase between a loose family's label and its value, in UTF-16 code units. */
const LOOSE_GAP = 48

/** Characters a loose gap may hold besides letters and spaces: connecting punctuation. */
const LOOSE_GAP_PUNCTUATION = new Set([...':=#,\'"`«»()–—-ºª°?'])

/** A value that is a date or an amount whatever label precedes it (`2026-03-03`, `12/03/2026`, `12.03.2026`). */
const DATE_SHAPED = /^(?:\d{4}-\d{2}-\d{2}|\d{1,2}[/.-]\d{1,2}[/.-]\d{2,4})$/

/** A unit or currency right after a value (`400 EUR`, `100%`, `3 items`): the value is an amount. */
const UNIT_AFTER = new RegExp(`\\s?(?:${UNITS}|[€$£¥]|euros?|reais|dollars?|dólares|pesos)(?![\\p{L}\\p{N}_-])`, 'iuy')

/** A letter of any script. */
const LETTER = /\p{L}/u
/** A character a value's token holds (a letter of any script, a digit, `_`, `-`, `/`, `.`): no value starts after one. */
const TOKEN_CHAR = /[\p{L}\p{N}_\-/.]/u

/**
 * Values a label names (`STATED_LABEL`, `LABEL_FAMILIES`) in `text`: after each label, the first
 * value of its family's shape (`LABEL_VALUES`) starting by the next label, before a digit that
 * starts something else or the end of the sentence (`valueAfterLabel`), or, when none follows,
 * the value a verb joins to the label before it ("94107 is my postal code", `valueBeforeLabel`);
 * its kind is the family's. A label inside a value taken already labels nothing. A value shaped
 * like a date (a version's label excepted), or followed by a unit or currency, is not the
 * label's (its own shape decides). A ticket's value is a tracker key (`PROJ-123`, an id);
 * numbered tickets are `STATED_REFERENCE`'s.
 */
function labelledValues(text: string): FoundSpan[] {
  const labels: { family: LabelFamily; end: number; start: number }[] = []
  for (const m of text.matchAll(STATED_LABEL)) {
    const start = m.index ?? 0
    const upper = m[0].toUpperCase()
    if (CASE_EXACT_LABELS.has(upper) && m[0] !== upper) continue
    const family = Object.keys(LABEL_FAMILIES).find((f) => m.groups?.[f] !== undefined) as LabelFamily
    // "in order to", "an order for" name no order number.
    if (family === 'id' && /^ORDERS?$/.test(upper) && ORDER_NOT_LABEL.test(text.slice(start + m[0].length, start + m[0].length + 6)))
      continue
    labels.push({ family, start, end: start + m[0].length })
  }
  const out: FoundSpan[] = []
  let takenEnd = 0
  labels.forEach(({ family, start, end }, i) => {
    // A label inside a value already taken ("branch release-2.4") labels nothing.
    if (start < takenEnd) return
    // The value starts by the next label (which may begin it: "branch release-2.4").
    const limit = labels[i + 1]?.start ?? text.length
    const { value } = LABEL_VALUES[family]
    const found =
      valueAfterLabel(text, end, limit, family) ?? valueBeforeLabel(text, start, Math.max(takenEnd, labels[i - 1]?.end ?? 0), value)
    if (!found) return
    const fact = text.slice(found.at, found.end)
    // A version's label decides even for a date's shape (`Version 2.4.17`), unless a 4-digit year ends it.
    if (DATE_SHAPED.test(fact) && (family !== 'version' || /\.\d{4}$/.test(fact))) return
    UNIT_AFTER.lastIndex = found.end
    if (UNIT_AFTER.test(text)) return
    if (!valueFits(family, fact)) return
    out.push({ at: found.at, end: found.end, kind: LABEL_FAMILIES[family].kind, labelled: true })
    takenEnd = found.end
  })
  return out
}

/**
 * The value of `family`'s shape after its label, which ends at `end`, starting by `limit`: a tight
 * family's after `TIGHT_GAP`, or after one word and a verb (`puerto correcto es 27017`); a loose
 * family's in the loose gap (`looseValue`). Null when there is none.
 */
function valueAfterLabel(text: string, end: number, limit: number, family: LabelFamily): { at: number; end: number } | null {
  const { value, tight } = LABEL_VALUES[family]
  if (!tight) return looseValue(text, end, value, limit)
  const at = tightValueStart(text, end)
  if (at <= limit) {
    const found = valueAt(text, at, value)
    if (found) return found
  }
  WORD_THEN_VERB.lastIndex = end
  if (!WORD_THEN_VERB.test(text)) return null
  const after = tightValueStart(text, WORD_THEN_VERB.lastIndex)
  return after <= limit ? valueAt(text, after, value) : null
}

/** One word and a verb joining a label to its value ("correcto es", "by default is", "richtige ist"). */
const WORD_THEN_VERB = new RegExp(
  `\\s+[\\p{L}-]+\\s+(?:is|was|are|es|era|ist|war|lautet|est|était|é|è|sind|são)${WORD_END}`,
  'iuy',
)

/**
 * A value of shape `value` that a label names after it: "94107 is my postal code", "8443 es el
 * puerto" — the value, a verb and at most one determiner right before the label, the value
 * starting a token no earlier than `from` (what an earlier label took) and at most
 * `VALUE_BEFORE_REACH` code units before the verb. Null when there is none.
 */
function valueBeforeLabel(text: string, labelStart: number, from: number, value: RegExp): { at: number; end: number } | null {
  const windowStart = Math.max(from, labelStart - 64)
  const verb = VERB_BEFORE_LABEL.exec(text.slice(windowStart, labelStart))
  if (!verb) return null
  const verbAt = windowStart + verb.index
  // The earliest token start whose value ends right at the verb: the longest value ("612 345 678").
  for (let p = Math.max(windowStart, verbAt - VALUE_BEFORE_REACH); p < verbAt; p++) {
    if (p > 0 && TOKEN_CHAR.test(text.charAt(p - 1))) continue
    if (valueAt(text, p, value)?.end === verbAt) return { at: p, end: verbAt }
  }
  return null
}

/** Longest value `valueBeforeLabel` takes, in UTF-16 code units. */
const VALUE_BEFORE_REACH = 24

/** What ends a text right before a label naming the value before it: a verb and a determiner. */
const VERB_BEFORE_LABEL = new RegExp(
  `\\s+(?:is|was|es|era|ist|war|est|é|è)\\s+(?:(?:my|our|your|the|his|her|their|mi|su|tu|el|la|nuestro|nuestra|mein|meine|unsere|die|der|das|mon|ma|notre|le|meu|minha|nosso|nossa|o|a|il|mio|mia)\\s+)?$`,
  'iu',
)

/** What follows "order" when it names no order number: "in order to", "order for", "order that". */
const ORDER_NOT_LABEL = /^\s+(?:to|that|for)(?![\p{L}])/iu

/** Where a tight family's value would start: after `TIGHT_GAP` from `from`. */
function tightValueStart(text: string, from: number): number {
  TIGHT_GAP.lastIndex = from
  return TIGHT_GAP.exec(text) ? TIGHT_GAP.lastIndex : from
}

/** The match of sticky `value` at `at`, or null. */
function valueAt(text: string, at: number, value: RegExp): { at: number; end: number } | null {
  value.lastIndex = at
  const m = value.exec(text)
  return m ? { at, end: at + m[0].length } : null
}

/**
 * The first value of shape `value` starting a token (after a space or connecting punctuation,
 * not inside `ORD-58213`) in the loose gap after a label:
 * at most `LOOSE_GAP` code units of letters, spaces and connecting punctuation (an abbreviation's
 * `.` too: "Nr.", "Tel."), ending at `limit`, a digit, a line break or a sentence's end.
 */
function looseValue(text: string, from: number, value: RegExp, limit: number): { at: number; end: number } | null {
  const stop = Math.min(limit, from + LOOSE_GAP)
  for (let p = from; p <= stop && p < text.length; p++) {
    const c = text.charAt(p)
    if (p === from || !TOKEN_CHAR.test(text.charAt(p - 1))) {
      const found = valueAt(text, p, value)
      if (found) return found
    }
    if (p === stop) return null
    if (c === ' ' || c === '\t' || LETTER.test(c) || LOOSE_GAP_PUNCTUATION.has(c)) continue
    if (c === '.' && isAbbreviationDot(text, p)) continue
    return null
  }
  return null
}

/** Whether the `.` at `p` ends an abbreviation of one to three letters (`Nr.`, `no.`, `Tel.`). */
function isAbbreviationDot(text: string, p: number): boolean {
  let q = p
  while (q > 0 && LETTER.test(text.charAt(q - 1))) q--
  return p - q >= 1 && p - q <= 3
}

/** Whether `fact` is a value of `family` (a port up to 65535, a phone of 6–15 digits, 3+ characters, a branch's punctuation). */
function valueFits(family: LabelFamily, fact: string): boolean {
  const digits = fact.replace(/\D/g, '').length
  if (family === 'port') return Number(fact) <= 65_535
  if (family === 'phone') return digits >= 6 && digits <= 15
  if (family === 'branch') return /[-/_\d]/.test(fact) && !ENDS_IN_FILE_EXTENSION.test(fact)
  return fact.length >= 3
}

/** The stated values a label names: the first source of `STATED_FACT_SOURCES`. */
const LABELLED: FactFinder = { find: labelledValues }

const UUID: FactPattern = {
  kind: 'uuid',
  needs: '-',
  pattern: /(?<![\w-])[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}(?![\w-])/g,
}
// A commit SHA as git prints it: 7–40 lower-case hex digits, at least one digit and one letter
// (`17015f9`); upper-case runs are codes (`ABC1234`), all-digit runs numbers.
const HASH: FactPattern = {
  kind: 'hash',
  pattern: /(?<![\w-])(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{7,40}(?![\w-])/g,
}
// Phones: international (+1 415-555-0134, +55 11 98765-4321), area code in parentheses
// ((11) 98765-4321), national with a leading 0 (030 1234567, 01 23 45 67 89), US 415-555-0134.
const PHONE_INTERNATIONAL: FactPattern = {
  kind: 'phone',
  needs: '+',
  kindOf: phoneKind,
  pattern: /(?<![\w+])\+\d{1,3}(?:[ .-]?\(?\d{1,5}\)?)(?:[ .-]?\d{1,8}){1,5}(?![\w-])/g,
}
const PHONE_AREA_CODE: FactPattern = {
  kind: 'phone',
  needs: '(',
  pattern: /(?<![\w+])\(\d{2,4}\) ?\d{3,5}[ -]?\d{4}(?![\w-])/g,
}
const PHONE_NATIONAL: FactPattern = {
  kind: 'phone',
  kindOf: phoneKind,
  pattern: /(?<![\w.,+/-])(?:0\d{1,4}(?:[ /-]\d{2,8}){1,4}|\d{3}[.-]\d{3}[.-]\d{4})(?![\w-]|[.,]\d)/g,
}
// UK and Canadian postcodes (SW1A 1AA, K1A 0B1): their shape is theirs alone.
const POSTAL_UK_CA: FactPattern = {
  kind: 'postal-code',
  pattern: /\b(?:[A-Z]{1,2}\d[A-Z\d]? \d[A-Z]{2}|[A-Z]\d[A-Z] \d[A-Z]\d)\b/g,
}
/** Month names in Spanish, Portuguese, German, French and Italian (regex source, case-insensitive). */
const OTHER_MONTHS =
  'enero|febrero|marzo|abril|mayo|junio|julio|agosto|sept?iembre|octubre|noviembre|diciembre|janeiro|fevereiro|março|maio|junho|julho|setembro|outubro|novembro|dezembro|januar|jänner|februar|märz|maerz|april|mai|juni|juli|august|september|oktober|november|dezember|janvier|février|mars|avril|juin|juillet|août|septembre|octobre|novembre|décembre|gennaio|febbraio|aprile|maggio|giugno|luglio|settembre|ottobre'
// Dates in other languages' order: 3 de marzo de 2026, 3. März 2026, 1er mars, 12.03.2026, 12-03-2026.
const DATE_DAY_MONTH_NAMED: FactPattern = {
  kind: 'date',
  pattern: new RegExp(
    `${WORD_START}\\d{1,2}(?:º|°|er|\\.)? (?:de )?(?:${OTHER_MONTHS})(?: (?:de |del )?\\d{4})?${WORD_END}`,
    'giu',
  ),
}
const DATE_DMY_DOTTED: FactPattern = {
  kind: 'date',
  pattern: /(?<![\w.-])\d{1,2}([.-])\d{1,2}\1\d{4}(?![\w-]|[.,]\d)/g,
}
// An IPv4 address: where a host is reached, like a URL.
const IPV4: FactPattern = { kind: 'url', needs: '.', pattern: /(?<![\w.])(?:\d{1,3}\.){3}\d{1,3}(?![\w.]|\.\d)/g }
// Ports: the digits after a host (localhost:8080, db.internal:5432, 10.0.0.5:5432) or a bare
// `:8080`; a file's line (`app.ts:42`) is no port.
const PORT: FactPattern = {
  kind: 'port',
  needs: ':',
  kindOf: (fact, match) =>
    Number(fact) <= 65_535 && !ENDS_IN_FILE_EXTENSION.test(match.slice(0, match.lastIndexOf(':'))) ? 'port' : null,
  pattern:
    /(?:(?<![\w.-])(?:localhost|(?:\d{1,3}\.){3}\d{1,3}|[A-Za-z][\w-]*(?:\.[\w-]+)+)|(?<![\w:/])):(?<v>\d{2,5})(?![\w.:])/dg,
}
// Git branches by their usual prefixes (feature/login-fix, release/2.4); a path with a file's
// extension is a path.
const BRANCH: FactPattern = {
  kind: 'branch',
  needs: '/',
  kindOf: (fact) => (ENDS_IN_FILE_EXTENSION.test(fact) ? null : 'branch'),
  pattern:
    /(?<![\w./-])(?:feature|feat|fix|bugfix|hotfix|release|chore|refactor|docs|test|dev|wip|topic|experiment|users?)\/[\w.-]*\w(?:\/[\w.-]*\w)*(?![\w/])/g,
}
/** Words a ticket or pull request is named by before its number (regex source, case-sensitive). */
const TICKET_WORDS =
  '[Tt]ickets?|[Ii]ssues?|[Bb]ugs?|[Cc]hamados?|[Ii]ncidencias?|[Ii]ncidentes?|PRs?|MRs?|[Pp]ull [Rr]equests?|[Mm]erge [Rr]equests?'
// Tickets and pull requests by number: PR #812 and PR 1234 give `#812` and `1234`
// (`TICKET_NUMBER`), PR 45 and ticket nº 88 stay whole, a bare #1234 is itself.
const STATED_REFERENCE: FactPattern = {
  kind: 'reference',
  pattern: new RegExp(
    `${WORD_START}(?:(?:${TICKET_WORDS}) ?${TICKET_NUMBER}|(?:${TICKET_WORDS}) ?(?:n[º°o]\\.? ?|nr\\.? ?|#)?\\d+|(?<![\\w&#])#\\d+)${WORD_END}`,
    'dgu',
  ),
}
// An amount with its currency after it: 1.299 €, 40 euros, 15 reais.
const MONEY_AFTER: FactPattern = {
  kind: 'money',
  pattern: new RegExp(
    `(?<![\\w.,])\\d(?:[\\d.,]*\\d)?${AMOUNT_SCALE}? ?(?:[€£¥$]|euros?|reais|real|dólares|dolares|dollars?|pesos|libras|pounds?|francs?)${WORD_END}`,
    'giu',
  ),
}
// Versions: v1, v1.2.3, 2.4.0, 2.4.0-rc.1 (two-part numbers are decimals unless labelled).
const VERSION: FactPattern = {
  kind: 'version',
  needs: '.',
  kindOf: (fact) => (/^\d{1,3}(?:\.\d{3})+$/.test(fact) ? 'number' : 'version'),
  pattern: /(?<![\w.-])(?:v\d+(?:\.\d+){0,3}|\d+\.\d+\.\d+(?:\.\d+)?)(?:-[0-9A-Za-z.]*[0-9A-Za-z])?(?![\w-]|\.\d)/g,
}
const VERSION_V: FactPattern = { kind: 'version', pattern: /(?<![\w.-])v\d+(?![\w-]|\.\d)/g }
// Environment variables: DATABASE_URL, NODE_ENV, $HOME (without its `$`).
const ENV_VAR: FactPattern = {
  kind: 'env-var',
  pattern: /(?<![\w$])\$?(?<v>[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+|(?<=\$)[A-Z][A-Z0-9]+)(?!\w)/dg,
}
// Codes mixing letters and digits (AB12CD, X7K9Q2, SAVE20); `codeKind` leaves out ordinals,
// numbers with a unit and words with a number (`2nd`, `1080p`, `base64`, `GPT4`).
const CODE: FactPattern = {
  kind: 'code',
  kindOf: codeKind,
  pattern: /(?<![\w-])(?=[A-Za-z0-9]*\d)(?=[A-Za-z0-9]*[A-Za-z])[A-Za-z0-9]{4,}(?![\w-])/g,
}
// Numbers of 3+ digits, thousands separators and a decimal part included (94107, 1,234.56).
const NUMBER: FactPattern = {
  kind: 'number',
  kindOf: (fact) => (fact.replace(/\D/g, '').length >= 3 ? 'number' : null),
  pattern: /(?<![\w.,-])\d+(?:[.,]\d{3})*(?:[.,]\d+)?(?:-\d+)*(?![\w])/g,
}

/** A phone match's kind: `phone` with 7–15 digits, else not a fact. */
function phoneKind(fact: string): FactKind | null {
  const digits = fact.replace(/\D/g, '').length
  return digits >= 7 && digits <= 15 ? 'phone' : null
}

/**
 * A letters-and-digits run's kind: `code` unless it is an ordinal (`21st`, `3ème`), a number with
 * a lower-case unit (`1080p`, `100mg`), or a word with a number: with lower-case letters a code
 * has a letter after a digit and a digit after a letter (`x7k9q2`, not `base64`); in capitals
 * it has five characters or the same mix (`SAVE20`, `SW1A`, not `GPT4`).
 */
function codeKind(fact: string): FactKind | null {
  if (/^\d+(?:st|nd|rd|th|er|re|e|ème|o|a)$/i.test(fact) || /^\d+[a-z]{1,3}$/.test(fact)) return null
  const interleaved = /\d[A-Za-z]/.test(fact) && /[A-Za-z]\d/.test(fact)
  if (/[a-z]/.test(fact)) return interleaved ? 'code' : null
  return interleaved || fact.length >= 5 ? 'code' : null
}

/**
 * The sources of `findFactSpans(text, { stated: true })`, in the order their kinds are tried:
 * values a label names first (`LABELLED`: the label decides the kind), then each kind whose
 * shape is its own (URLs, e-mails, UUIDs, hashes, branches, phones, IDs, postal codes, dates,
 * IPs, ports, paths, references, names, amounts, versions, environment variables), then codes
 * and plain numbers, which any earlier kind may hold.
 */
const STATED_FACT_SOURCES: readonly (FactPattern | FactFinder)[] = [
  IBAN_GROUPED,
  LABELLED,
  URL,
  EMAIL,
  UUID,
  HASH,
  BRANCH,
  PHONE_INTERNATIONAL,
  PHONE_AREA_CODE,
  ID_UPPER,
  ID_LOWER,
  POSTAL_DASHED,
  POSTAL_AFTER_WORDS,
  POSTAL_UK_CA,
  DATE_ISO,
  DATE_DMY,
  DATE_YMD_SLASHED,
  DATE_DMY_DOTTED,
  DATE_MONTH_DAY,
  DATE_DAY_MONTH,
  DATE_DAY_MONTH_NAMED,
  PHONE_NATIONAL,
  IPV4,
  PORT,
  PATH_RELATIVE,
  PATH_ABSOLUTE,
  PATH_WINDOWS,
  PATH_BARE,
  STATED_REFERENCE,
  REFERENCE,
  NAME,
  MONEY,
  MONEY_AFTER,
  QUANTITY,
  VERSION,
  VERSION_V,
  ENV_VAR,
  CODE,
  NUMBER,
]

/** Units of the number + unit pattern, by the kind they make (lower case; `m` is metres). */
const UNIT_KINDS: ReadonlyMap<string, FactKind> = new Map<string, FactKind>([
  ...['usd', 'eur', 'gbp', 'brl', 'jpy'].map((u) => [u, 'money'] as const),
  ...['unit', 'units', 'item', 'items', 'pcs'].map((u) => [u, 'count'] as const),
  ...['ms', 's', 'h', 'min', 'day', 'days', 'week', 'weeks', 'month', 'months', 'year', 'years', 'hour', 'hours',
    'minute', 'minutes', 'second', 'seconds'].map((u) => [u, 'duration'] as const),
  ['%', 'percentage'],
  ['am', 'date'],
  ['pm', 'date'],
])

/** The kind of a number + unit fact (`584ms` duration, `12 items` count, `7pm` date), by its unit. */
function unitKind(fact: string): FactKind {
  const unit = /[^\d,.\s]+$/.exec(fact)?.[0].toLowerCase() ?? ''
  return UNIT_KINDS.get(unit) ?? 'quantity'
}

/** A fact found in one text: its verbatim span and kind. */
export interface FactSpan {
  fact: string
  kind: FactKind
}

/** Options of `findFactSpans`. */
export interface FindFactOptions {
  /**
   * The text is what a person wrote (an ordinary user message, `isOrdinaryUser`): every value
   * in it is a fact whatever words come before it (`STATED_FACT_SOURCES`), its kind named by a
   * label before it or else by its shape. Default false: the conservative `FACT_PATTERNS`.
   */
  stated?: boolean
}

/** The escape character that starts a terminal control sequence. */
const ESC = String.fromCharCode(27)

/** An ANSI/VT100 control sequence (CSI): ESC [ parameters, intermediates, a final byte. */
const TERMINAL_ESCAPE = new RegExp(`${ESC}\\[[0-9;?]*[ -/]*[@-~]`, 'g')

/** Kinds whose facts need no digit, `/`, `.` or `@` (a name, `NODE_ENV`, branch `login-fix`). */
const WORD_KINDS: ReadonlySet<FactKind> = new Set<FactKind>(['name', 'env-var', 'branch'])

/** A span taken by the scan of `findFactSpans`. */
interface TakenSpan {
  at: number
  end: number
  fact: string
  kind: FactKind
  labelled: boolean
}

/**
 * Pattern facts in `raw` (`FACT_PATTERNS`; with `options.stated`, `STATED_FACT_SOURCES`), in
 * order of first appearance, deduplicated by text, each cut to `FACT_CHAR_CAP` code points. A
 * span must hold a digit, `/`, `.` or `@` (`WORD_KINDS` excepted) so plain words never count.
 * A text stated twice keeps a kind a label named over one its shape gave. Pure.
 */
export function findFactSpans(raw: string, options: FindFactOptions = {}): FactSpan[] {
  // Terminal colour codes (`ESC[22m` in captured tool output) are blanked, same length, so their
  // letters and digits are never read as a fact ("22m") and every span keeps its offset.
  const text = raw.includes(ESC) ? raw.replace(TERMINAL_ESCAPE, (e) => ' '.repeat(e.length)) : raw
  // Spans taken so far, sorted by start and pairwise disjoint (an overlapping match is never
  // taken), so one binary search tells whether a match overlaps any: O(matches · log matches).
  let taken: TakenSpan[] = []
  for (const source of options.stated ? STATED_FACT_SOURCES : FACT_PATTERNS) {
    const fresh: TakenSpan[] = []
    const consider = (at: number, end: number, fact: string, kind: FactKind, labelled: boolean) => {
      // A span already taken by an earlier kind (an ID inside a URL) is not a second fact.
      if (overlapsTaken(taken, at, end)) return
      // Spans of one source come in order of start, so the last one taken is the only one
      // of this source a later span can overlap.
      const last = fresh[fresh.length - 1]
      if (last && at < last.end && end > last.at) return
      if (fact.length < 2 || (!WORD_KINDS.has(kind) && !/\d|[/.@]/.test(fact))) return
      fresh.push({ at, end, fact: cutCodePoints(fact, FACT_CHAR_CAP), kind, labelled })
    }
    if ('find' in source) {
      for (const s of source.find(text)) consider(s.at, s.end, text.slice(s.at, s.end), s.kind, s.labelled === true)
    } else {
      const { kind: patternKind, pattern, kindOf, needs } = source
      if (needs !== undefined && !text.includes(needs)) continue
      for (const m of text.matchAll(pattern)) {
        // With a `v` group (the `d` flag) the fact is the group: a port's digits, not its host.
        const group = m.indices?.groups?.['v']
        const at = group ? group[0] : (m.index ?? 0)
        const end = group ? group[1] : at + m[0].length
        const fact = group ? text.slice(at, end) : m[0].trim()
        const kind = kindOf ? kindOf(fact, m[0]) : patternKind
        if (kind !== null) consider(at, end, fact, kind, false)
      }
    }
    if (fresh.length > 0) taken = mergeByStart(taken, fresh)
  }
  const out: FactSpan[] = []
  const at = new Map<string, { span: FactSpan; labelled: boolean }>()
  for (const h of taken) {
    const seen = at.get(h.fact)
    if (seen) {
      if (h.labelled && !seen.labelled) {
        seen.span.kind = h.kind
        seen.labelled = true
      }
      continue
    }
    const span = { fact: h.fact, kind: h.kind }
    at.set(h.fact, { span, labelled: h.labelled })
    out.push(span)
  }
  return out
}

/** Whether [at, end) overlaps a span of `spans` (sorted by start, pairwise disjoint). */
function overlapsTaken(spans: readonly { at: number; end: number }[], at: number, end: number) {
  // The last span starting before `end` is the only candidate: earlier ones end before it starts.
  const candidate = spans[partitionPoint(0, spans.length, (i) => (spans[i] as { at: number }).at >= end) - 1]
  return candidate !== undefined && at < candidate.end
}

/** The spans of two lists sorted by start, merged into one sorted list (ties: `a` first). */
function mergeByStart<T extends { at: number }>(a: readonly T[], b: readonly T[]): T[] {
  const out: T[] = []
  let i = 0
  let j = 0
  while (i < a.length && j < b.length)
    out.push((b[j] as T).at < (a[i] as T).at ? (b[j++] as T) : (a[i++] as T))
  while (i < a.length) out.push(a[i++] as T)
  while (j < b.length) out.push(b[j++] as T)
  return out
}

/**
 * `findFactSpans(text)` remembered for texts up to `SPAN_MEMO_MAX_CHARS` UTF-16 code units (summaries
 * and prompts that every re-plan scans again), at most `SPAN_MEMO_ENTRIES` texts (the memo is
 * emptied when full). The arrays are frozen: callers share them. Long message texts are memoized
 * per message instead (`messageFactSpans`), so the memo never holds a transcript's bulk. Pure.
 */
export function findFactSpansMemo(text: string): readonly FactSpan[] {
  if (text.length > SPAN_MEMO_MAX_CHARS) return findFactSpans(text)
  let spans = spanMemo.get(text)
  if (!spans) {
    if (spanMemo.size >= SPAN_MEMO_ENTRIES) spanMemo.clear()
    spans = Object.freeze(findFactSpans(text))
    spanMemo.set(text, spans)
  }
  return spans
}

const SPAN_MEMO_MAX_CHARS = 16_384
const SPAN_MEMO_ENTRIES = 4_096
const spanMemo = new Map<string, readonly FactSpan[]>()

/**
 * `findFactSpans(messageFactText(m), { stated: isOrdinaryUser(m) })`: what a person wrote has
 * every value it states as a fact (`FindFactOptions.stated`), any other message the conservative
 * patterns. Computed once per message object (messages are immutable, so re-plans, the
 * failure-mode checks and the extractive summarizer share one scan). Frozen. Pure.
 * `messageFactSpans.prime(m, spans)` takes spans another thread found with the same call (the
 * worker's pool does a long session's while its first run goes on).
 */
export const messageFactSpans: PerMessage<readonly FactSpan[]> = perMessage((m) =>
  Object.freeze(findFactSpans(messageFactText(m), { stated: isOrdinaryUser(m) })),
)

const INSTRUCTION_MARKER =
  /\b(?:don['’]t|do not|never|always|must|mustn['’]t|must not|make sure|avoid|only ever|rules?:|constraints?:)/i

/**
 * Standing rules in `text`: each line holding a constraint word (don't, never, always, must,
 * make sure, avoid, "rules:"), trimmed, verbatim; a line over `LINE_CHAR_CAP` code points is
 * narrowed to its sentences that hold the marker. Source: seed 004 "constraints hamesha full
 * text", cases/16.
 */
export function instructionLines(text: string): string[] {
  const out: string[] = []
  for (const raw of text.split('\n')) {
    const line = raw.trim()
    if (!INSTRUCTION_MARKER.test(line)) continue
    if ([...line].length <= LINE_CHAR_CAP) out.push(line)
    else
      for (const s of sentences(line))
        if (INSTRUCTION_MARKER.test(s)) out.push(cutCodePoints(s.trim(), LINE_CHAR_CAP))
  }
  return out
}

/**
 * Sentences of `text`: a `.`, `!` or `?` ends one only before whitespace or the end, so
 * `cmd/sync.go` and `7.1` stay whole; a line break always ends one.
 */
export function sentences(text: string): string[] {
  // The matches of /(?:[^.!?\n]|[.!?](?=[^\s.!?]))+[.!?]*/g, found by one forward scan: the
  // regex's backtracking stack overflowed on ~10 MB without an end mark, and its alternatives
  // never compete, so the greedy scan is its exact match.
  const out: string[] = []
  const n = text.length
  let i = 0
  while (i < n) {
    const start = i
    for (;;) {
      const c = text.charCodeAt(i)
      if (i >= n || c === NEWLINE) break
      if (isEndMark(c)) {
        const next = text.charCodeAt(i + 1)
        if (i + 1 >= n || isEndMark(next) || WHITESPACE.test(text.charAt(i + 1))) break
      }
      i++
    }
    if (i === start) {
      i++
      continue
    }
    while (i < n && isEndMark(text.charCodeAt(i))) i++
    out.push(text.slice(start, i))
  }
  return out
}

const NEWLINE = 0x0a

/** `.`, `!` or `?`. */
function isEndMark(c: number): boolean {
  return c === 0x2e || c === 0x21 || c === 0x3f
}

const WHITESPACE = /\s/

/**
 * Questions in `text`: each run of characters other than `.`, `!`, `?` and line breaks that a
 * `?` ends, with that `?`, untrimmed: the matches of /[^.!?\n]*\?/g, in order, found in one
 * forward scan (the regex retried every start of a long run without a `?`: quadratic).
 */
export function questionRuns(text: string): string[] {
  const out: string[] = []
  const n = text.length
  let start = 0
  while (start < n) {
    let end = start
    while (end < n) {
      const c = text.charCodeAt(end)
      if (c === NEWLINE || isEndMark(c)) break
      end++
    }
    if (end < n && text.charCodeAt(end) === 0x3f) out.push(text.slice(start, end + 1))
    start = end + 1
  }
  return out
}

const TODO_MARKER = /\b(?:TODO|FIXME|open question|still (?:need|missing|pending))\b/i

/** Sentences of `text` holding a TODO-like marker, trimmed, whitespace collapsed. */
export function todoSentences(text: string): string[] {
  const out: string[] = []
  for (const sentence of sentences(text)) {
    if (TODO_MARKER.test(sentence)) out.push(sentence.trim().replace(/\s+/g, ' '))
  }
  return out
}

const DECISION_MARKER =
  /^(?:done|fixed|completed|finished|resolved|implemented|merged|deployed)\b|\b(?:decided|decision:|we chose|agreed to)\b/i

/**
 * Decisions and completed work an assistant reported ("Done: --dry-run added …", "we decided
 * …"): whole sentences, verbatim, so a resumed agent does not redo them. Source: seed 004
 * "verbatim decisions", cases/17.
 */
export function decisionSentences(text: string): string[] {
  const out: string[] = []
  for (const sentence of sentences(text)) {
    const s = sentence.trim()
    if (s && DECISION_MARKER.test(s)) out.push(cutCodePoints(s, LINE_CHAR_CAP))
  }
  return out
}

const JOB_ID_KEY = /^(?:job|task|run|build|deployment|workflow|operation|process|worker)_?id$/i

/**
 * In-flight work in a tool result: a JSON object (or the objects of a JSON list) holding an
 * id-like key (`job_id`, `task_id`, …) and a `status`/`state`. The object's own text when it is
 * the whole output and short, else its scalar fields `key: value`, verbatim. Source: cases/19.
 */
export function jobStatusLines(text: string): string[] {
  const trimmed = text.trim()
  if (!/^[[{]/.test(trimmed)) return []
  const within = parseJsonWithin(trimmed)
  if (!within) return []
  const parsed = within.value
  const objects = Array.isArray(parsed) ? parsed : [parsed]
  const out: string[] = []
  for (const o of objects) {
    if (!o || typeof o !== 'object' || Array.isArray(o)) continue
    const keys = Object.keys(o)
    if (!keys.some((k) => JOB_ID_KEY.test(k)) || !keys.some((k) => /^(?:status|state)$/i.test(k)))
      continue
    if (objects.length === 1 && [...trimmed].length <= LINE_CHAR_CAP) out.push(trimmed)
    else {
      const fields = Object.entries(o as Record<string, unknown>)
        .filter(([, v]) => v === null || typeof v !== 'object')
        .map(([k, v]) => `${k}: ${String(v)}`)
      out.push(cutCodePoints(fields.join(', '), LINE_CHAR_CAP))
    }
  }
  return out
}

/**
 * Text of a message that facts are searched in: content text plus tool-call arguments. Made once
 * per message object (messages are immutable; every run's fact index reads it again).
 */
export const messageFactText: (m: Message) => string = perMessage((m) => {
  const parts = [contentText(m.content)]
  for (const call of m.toolCalls ?? []) parts.push(call.arguments)
  return parts.join('\n')
})

/** A candidate fact of a transcript, the messages (ids, in order) that hold it, and how much it matters. */
export interface CandidateFact {
  fact: string
  kind: FactKind
  messageIds: string[]
  /** Who put it into the conversation and how it was used (`factOrigin`). */
  origin: FactOrigin
  /** Its tier (`factImportance`); `noise` facts are not at risk by default (`isNoiseFact`). */
  importance: FactImportance
}

/**
 * The `SEEN` bit of a fact found in message `m`: in an assistant message, `toolCall` when one of
 * its tool calls' arguments (`argFacts`) holds the fact, else `assistant`.
 */
export function sightingOf(m: Message, fact: string, argFacts: ReadonlySet<string> | undefined): number {
  if (m.role === 'tool') return SEEN.toolOutput
  if (isOrdinaryUser(m)) return SEEN.user
  if (m.role === 'assistant') return argFacts?.has(fact) ? SEEN.toolCall : SEEN.assistant
  return SEEN.system
}

/** The fact texts of a message's tool-call arguments (each call scanned on its own), or undefined. */
export function toolCallFacts(m: Message): Set<string> | undefined {
  if (!m.toolCalls || m.toolCalls.length === 0) return undefined
  const out = new Set<string>()
  for (const call of m.toolCalls) for (const s of findFactSpansMemo(call.arguments)) out.add(s.fact)
  return out
}

/**
 * Candidate facts of a transcript (normally the Before side), in order of first appearance,
 * deduplicated by (kind, text):
 * - `watched`: each of `watched` (trimmed, non-empty, once each) first, with every message whose
 *   fact text holds it verbatim, origin `user`, tier `watched`;
 * - `goal`: the first ordinary user message, verbatim;
 * - pattern facts (`FACT_PATTERNS`) of every message (tool-call arguments too);
 * - `instruction`: standing-rule lines of ordinary user and system-after-start messages;
 * - `todo`: TODO-like sentences of non-tool messages;
 * - `decision`: completed work / decisions reported by the assistant;
 * - `job`: in-flight job status in tool results.
 * Each gets its `origin` from where it was seen (`factOrigin`: a fact in an ordinary user message
 * is the user's, one in a tool call's arguments was acted on, …) and its `importance`
 * (`factImportance`; a date or size of tool output is noise only when every tool message holding
 * it has it on a listing, test or log line, judged at its first occurrence there).
 * Pure; `messageIds` lists every message holding the fact's text verbatim among those it was
 * found in. Source: SPEC §3.5, seed 004; the facts compaction may lose.
 */
export function extractFacts(messages: readonly Message[], watched: readonly string[] = []): CandidateFact[] {
  const facts: CandidateFact[] = []
  const byKey = new Map<string, CandidateFact>()
  const idSets = new Map<CandidateFact, Set<string>>()
  // Where each fact was seen (`SEEN` bits).
  const seen = new Map<CandidateFact, number>()
  const add = (fact: string, kind: FactKind, m: Message, sighting: number) => {
    if (!fact) return
    const id = m.id
    const key = `${kind}\u0000${fact}`
    const found = byKey.get(key)
    if (found) {
      seen.set(found, (seen.get(found) ?? 0) | sighting)
      // Messages are read in order, so a repeat from the same message is the last id; a
      // transcript repeating an id elsewhere is caught by the per-fact id set.
      const ids = found.messageIds
      if (ids[ids.length - 1] === id) return
      let ofFact = idSets.get(found)
      if (!ofFact) idSets.set(found, (ofFact = new Set(ids)))
      if (ofFact.has(id)) return
      ofFact.add(id)
      ids.push(id)
      return
    }
    const c: CandidateFact = { fact, kind, messageIds: [id], origin: 'tool-output', importance: 'other' }
    byKey.set(key, c)
    seen.set(c, sighting)
    facts.push(c)
  }
  const watchedFacts: CandidateFact[] = []
  for (const w of new Set(watched.map((t) => t.trim()).filter(Boolean))) {
    const messageIds = messages.filter((m) => holdsFact(messageFactText(m), w)).map((m) => m.id)
    const c: CandidateFact = { fact: w, kind: 'watched', messageIds, origin: 'user', importance: 'watched' }
    watchedFacts.push(c)
  }
  const goal = goalMessage(messages)
  const goalText = goal ? contentText(goal.content).trim() : undefined
  if (goal) add(goalText!, 'goal', goal, SEEN.user)
  for (const m of messages) {
    const argFacts = m.role === 'assistant' ? toolCallFacts(m) : undefined
    for (const s of messageFactSpans(m)) add(s.fact, s.kind, m, sightingOf(m, s.fact, argFacts))
    const body = contentText(m.content)
    // A one-line goal that states a rule is the goal already: not a second, identical row.
    if (isOrdinaryUser(m)) {
      for (const line of instructionLines(body)) if (line !== goalText) add(line, 'instruction', m, SEEN.user)
    }
    if (m.role !== 'tool') for (const s of todoSentences(body)) add(s, 'todo', m, sightingOf(m, s, undefined))
    if (m.role === 'assistant') for (const s of decisionSentences(body)) add(s, 'decision', m, SEEN.assistant)
    if (m.role === 'tool') for (const j of jobStatusLines(body)) add(j, 'job', m, SEEN.toolOutput)
  }
  const byId = new Map(messages.map((m) => [m.id, m]))
  for (const f of facts) {
    f.origin = factOrigin(seen.get(f) ?? 0)
    f.importance = factImportance(f.kind, f.origin, () =>
      f.messageIds.every((id) => {
        const m = byId.get(id)
        return m === undefined || firstLineIsNoise(messageFactText(m), f.fact)
      }),
    )
  }
  return watchedFacts.length > 0 ? [...watchedFacts, ...facts] : facts
}
