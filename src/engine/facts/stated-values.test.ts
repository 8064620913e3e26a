/**
 * Stated values: a value a person writes in an ordinary user message is a fact however it is
 * phrased, its kind named by a label before it (postal code, order, phone, port, version,
 * branch, ticket — in English, Spanish, German, Portuguese, French, Italian) or else by its own
 * shape. Expected facts are written from the kinds' rules (see `findFactSpans`' `stated`).
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { assistant, toolResult, user } from '../stages/test-helpers'
import { extractFacts, findFactSpans, messageFactSpans, type FactKind, type FactSpan } from './patterns'

const stated = (text: string) => findFactSpans(text, { stated: true })

/** [sentence, the facts it states in order, each `[text, kind]`]. */
const SENTENCES: readonly [string, readonly [string, FactKind][]][] = [
  // Postal codes: after a label in any language and phrasing, or by a shape only they have.
  ['My postal code is 94107', [['94107', 'postal-code']]],
  ['The zip for the delivery address is 10001, thanks', [['10001', 'postal-code']]],
  ['Mi código postal es 28013', [['28013', 'postal-code']]],
  ['C.P. 08001, Barcelona', [['08001', 'postal-code']]],
  ['Die Postleitzahl lautet 10115', [['10115', 'postal-code']]],
  ['PLZ: 80331 München', [['80331', 'postal-code']]],
  ['Meu CEP é 01310-100', [['01310-100', 'postal-code']]],
  ['CEP 22041-001 no Rio', [['22041-001', 'postal-code']]],
  ['Code postal : 75011', [['75011', 'postal-code']]],
  ['CAP 00184 Roma', [['00184', 'postal-code']]],
  ['Send it to SW1A 1AA please', [['SW1A 1AA', 'postal-code']]],
  ['My postcode is EC1A 1BB', [['EC1A 1BB', 'postal-code']]],
  // IDs and order numbers.
  ['My order number is 58213', [['58213', 'id']]],
  ['Order #77120 never arrived', [['77120', 'id']]],
  ['Mi pedido es el 4471', [['4471', 'id']]],
  ['Bestellnummer: 99812', [['99812', 'id']]],
  ['Numéro de commande 33120', [['33120', 'id']]],
  ['O número da encomenda é 55021', [['55021', 'id']]],
  ['Customer ID: C-20931', [['C-20931', 'id']]],
  ['Tracking ORD-58213 please', [['ORD-58213', 'id']]],
  ['Kundennummer 4711-0815', [['4711-0815', 'id']]],
  // A tracker key is an id with or without a ticket word before it.
  ['Abrí la incidencia SUP-7719 hace una semana.', [['SUP-7719', 'id']]],
  ['Le ticket OPS-2290 décrit la panne de ce matin.', [['OPS-2290', 'id']]],
  ['This relates to JIRA-4821 which QA reopened yesterday.', [['JIRA-4821', 'id']]],
  // An IBAN in groups of four is one value.
  ['El IBAN es ES91 2100 0418 4502 0005 1332.', [['ES91 2100 0418 4502 0005 1332', 'id']]],
  // A label after its value, or before it with a question mark.
  ['94107 is my postal code', [['94107', 'postal-code']]],
  ['postal code? 94107', [['94107', 'postal-code']]],
  ['612 345 678 es mi teléfono', [['612 345 678', 'phone']]],
  // Phones.
  ['Call me at +1 415-555-0134', [['+1 415-555-0134', 'phone']]],
  ['Meu celular é (11) 98765-4321', [['(11) 98765-4321', 'phone']]],
  ['Telefon 030 1234567', [['030 1234567', 'phone']]],
  ['Mi teléfono es 612 345 678', [['612 345 678', 'phone']]],
  ['Téléphone : 01 23 45 67 89', [['01 23 45 67 89', 'phone']]],
  ['reach me on 020 7946 0958 after lunch', [['020 7946 0958', 'phone']]],
  // Ports.
  ['The database listens on port 5432', [['5432', 'port']]],
  ['Der Server läuft auf Port 3000', [['3000', 'port']]],
  ['Usa el puerto 8080', [['8080', 'port']]],
  ['open localhost:8080 in the browser', [['8080', 'port']]],
  ['the API is at api.example.com:8443', [['8443', 'port']]],
  ['El puerto correcto es 27017.', [['27017', 'port']]],
  ['Our API listens on 8443 in staging', [['8443', 'port']]],
  ['Der Dienst lauscht auf 9090', [['9090', 'port']]],
  // Hashes and UUIDs.
  ['It broke in commit 17015f9', [['17015f9', 'hash']]],
  ['El commit a3f9c2e1b7 introdujo el fallo', [['a3f9c2e1b7', 'hash']]],
  ['Bitte auf 9fceb02d0ae598e95dc970b74767f19372d61af8 zurücksetzen', [['9fceb02d0ae598e95dc970b74767f19372d61af8', 'hash']]],
  ['Session 550e8400-e29b-41d4-a716-446655440000 expired', [['550e8400-e29b-41d4-a716-446655440000', 'uuid']]],
  ['A chave é 123e4567-e89b-12d3-a456-426614174000', [['123e4567-e89b-12d3-a456-426614174000', 'uuid']]],
  // Versions.
  ['Please pin it to v1.2.3', [['v1.2.3', 'version']]],
  ['We run version 2.4.0 in prod', [['2.4.0', 'version']]],
  ['Actualiza a la versión 3.1', [['3.1', 'version']]],
  ['Wir nutzen 18.19.0 auf dem Server', [['18.19.0', 'version']]],
  ['Estamos na versão 5.2.1-rc.1', [['5.2.1-rc.1', 'version']]],
  // A version after a word for "version" is the version alone, whatever its digits look like.
  ['Wir laufen aktuell auf Version 2.4.17 in Produktion.', [['2.4.17', 'version']]],
  ['La versión 1.2.24 falla', [['1.2.24', 'version']]],
  // Dates.
  ['The deadline is 2026-03-03', [['2026-03-03', 'date']]],
  ['Lo necesito el 3 de marzo de 2026', [['3 de marzo de 2026', 'date']]],
  ['Bis zum 3. März 2026 bitte', [['3. März 2026', 'date']]],
  ['Livraison le 3 mars 2026', [['3 mars 2026', 'date']]],
  ['Vence em 12/03/2026', [['12/03/2026', 'date']]],
  ['Termin am 12.03.2026', [['12.03.2026', 'date']]],
  ['Ship by March 3', [['March 3', 'date']]],
  ['Meeting on 2025/11/04 at noon', [['2025/11/04', 'date']]],
  // Money.
  ['O total foi R$ 1.234,56', [['R$ 1.234,56', 'money']]],
  ['Es kostet 1.299 €', [['1.299 €', 'money']]],
  ['The budget is $40', [['$40', 'money']]],
  ['Le prix est de 40 EUR', [['40 EUR', 'money']]],
  ['Son 25 euros', [['25 euros', 'money']]],
  // An amount may end in a scale: thousands, millions.
  ['Our budget is 12k dollars', [['12k dollars', 'money']]],
  ['Budget: $12k', [['$12k', 'money']]],
  ['It costs 12k USD', [['12k USD', 'money']]],
  ['Raised €3.5k so far', [['€3.5k', 'money']]],
  // E-mails, URLs, paths.
  ['Write to ana.souza@example.com', [['ana.souza@example.com', 'email']]],
  ['El enlace es https://shop.example/orders/58213', [['https://shop.example/orders/58213', 'url']]],
  ['Die Datei liegt unter src/quote/rates.py', [['src/quote/rates.py', 'file-path']]],
  ['Path is C:\\Users\\maria\\Documents\\report.xlsx', [['C:\\Users\\maria\\Documents\\report.xlsx', 'file-path']]],
  ['The key is in ~/.ssh/id_ed25519', [['~/.ssh/id_ed25519', 'file-path']]],
  ['Logs go to /var/log/app.', [['/var/log/app', 'file-path']]],
  // Branches and environment variables.
  ['Merge feature/login-fix into main', [['feature/login-fix', 'branch']]],
  ['Deploy from branch release-2.4', [['release-2.4', 'branch']]],
  ['Trabajo en la rama hotfix_42', [['hotfix_42', 'branch']]],
  ['Set DATABASE_URL before starting', [['DATABASE_URL', 'env-var']]],
  ['NODE_ENV muss production sein', [['NODE_ENV', 'env-var']]],
  // Tickets and pull requests: the `#` reference or a number of 3+ digits alone (what a person
  // quoting it writes), a shorter number with its word.
  ['See #1234 for details', [['#1234', 'reference']]],
  ['O PR #812 resolve esse problema.', [['#812', 'reference']]],
  ['ticket #456 is the one I meant', [['#456', 'reference']]],
  ['PR 1234 fixes it', [['1234', 'reference']]],
  ['Abri o chamado nº 4821', [['4821', 'reference']]],
  ['PR 45 fixes it', [['PR 45', 'reference']]],
  ['ticket PROJ-123 is blocked', [['PROJ-123', 'id']]],
  ['Close ticket 88', [['ticket 88', 'reference']]],
  ['Abri o chamado nº 88', [['chamado nº 88', 'reference']]],
  // Numbers and codes with no label.
  ['We have 2048 users', [['2048', 'number']]],
  ['La habitación 512', [['512', 'number']]],
  ['Mon code est 4821', [['4821', 'number']]],
  ['Gutschein ABC123', [['ABC123', 'code']]],
  ['The voucher is SAVE20', [['SAVE20', 'code']]],
  // Several values: each its own kind; a number inside a phone or date is no second fact.
  ['Ship order 58213 to zip 94107 by 2026-03-03', [['58213', 'id'], ['94107', 'postal-code'], ['2026-03-03', 'date']]],
  ['Bestellung 4471, PLZ 10115, Telefon 030 1234567', [['4471', 'id'], ['10115', 'postal-code'], ['030 1234567', 'phone']]],
  ['Call +1 415-555-0134 on 2026-03-03', [['+1 415-555-0134', 'phone'], ['2026-03-03', 'date']]],
  // Counts and percentages keep their units' kinds; ordinals and words with a number are no codes.
  ['Not facts: 3 items, 100% done, the 2nd try', [['3 items', 'count'], ['100%', 'percentage']]],
  ['use base64 and sha256 on node18', []],
  // "in order to" names no order: the number's shape decides.
  ['in order to use 4096 tokens', [['4096', 'number']]],
]

describe('stated values: a table of sentences in six languages', () => {
  it('has at least 60 sentences', () => {
    expect(SENTENCES.length).toBeGreaterThanOrEqual(60)
  })
  for (const [sentence, expected] of SENTENCES)
    it(sentence, () => {
      expect(stated(sentence)).toEqual(expected.map(([fact, kind]) => ({ fact, kind })))
    })

  it('a value stated twice keeps the kind its label named, wherever the label is', () => {
    expect(stated('Ship to 94107. My zip is 94107')).toEqual([{ fact: '94107', kind: 'postal-code' }])
  })
})

describe('who states it', () => {
  it('an ordinary user message has its stated values; the same text from the assistant or a tool does not', () => {
    const text = 'My postal code is 94107, commit 17015f9'
    const expected: FactSpan[] = [
      { fact: '94107', kind: 'postal-code' },
      { fact: '17015f9', kind: 'hash' },
    ]
    expect(messageFactSpans(user('u1', text))).toEqual(expected)
    expect(messageFactSpans(assistant('a1', text))).toEqual([])
    expect(messageFactSpans(toolResult('t1', 'c1', text))).toEqual([])
    expect(findFactSpans(text)).toEqual([])
  })

  it('a value the user stated is the user’s fact, never noise', () => {
    const facts = extractFacts([user('u1', 'Retry after 5 minutes on port 5432, 3 items at most')])
    const judged = (fact: string) => facts.find((f) => f.fact === fact)
    expect(judged('5432')).toMatchObject({ kind: 'port', origin: 'user', importance: 'user' })
    expect(judged('5 minutes')).toMatchObject({ kind: 'duration', origin: 'user', importance: 'user' })
    expect(judged('3 items')).toMatchObject({ kind: 'count', origin: 'user', importance: 'user' })
  })

  it('tool output gains none of the broad kinds (numbers, codes, hashes, UUIDs, versions, ports, phones, ...)', () => {
    const output = [
      'commit 17015f9 (HEAD -> feature/login-fix)',
      'request 550e8400-e29b-41d4-a716-446655440000 took 120 ms on localhost:8080',
      'node v18.19.0, npm 10.2.3, 2048 rows, code ABC123, DATABASE_URL set, call +1 415-555-0134',
      'Mi código postal es 28013; Bestellnummer 99812; see #1234; 3 de marzo de 2026',
    ].join('\n')
    expect(findFactSpans(output)).toEqual([{ fact: '120 ms', kind: 'duration' }])
    expect(messageFactSpans(toolResult('t1', 'c1', output))).toEqual([{ fact: '120 ms', kind: 'duration' }])
  })

  it('tool output has the values its labelled lines name: a port line, a version after its word', () => {
    const output = 'Account: Dana Whitfield\nDefault port: 8443\nDB_PORT=5432\nServer version 2.4.17 (ticket #456)\nReport: 2024 rows'
    expect(findFactSpans(output)).toEqual([
      { fact: '8443', kind: 'port' },
      { fact: '5432', kind: 'port' },
      { fact: '2.4.17', kind: 'version' },
      { fact: '#456', kind: 'reference' },
    ])
    // A port read from a tool is ranked as any other value of tool output: neither the user's nor noise.
    const facts = extractFacts([user('u1', 'Which port?'), toolResult('t1', 'c1', output)])
    expect(facts.find((f) => f.fact === '8443')).toMatchObject({ kind: 'port', origin: 'tool-output', importance: 'other' })
  })
})

// ------------------------------------------------------------------------------------------
// Property: a value stays a fact (same text, same kind) whatever phrase comes before it.

/**
 * Words that name a kind (labels) or are part of a fact's pattern before a number (reference
 * words, month names): a phrase of them before a value is meant to change its kind or text, so
 * the phrases below are made without them.
 */
const MEANINGFUL_WORDS = new Set(
  [
    // postal code labels
    'postal', 'postcode', 'post', 'zip', 'zipcode', 'código', 'codigo', 'cód', 'cep', 'c.p.', 'postleitzahl', 'plz',
    'code', 'codes', 'cap', 'postnummer', 'postinumero', 'kod',
    // order / id labels
    'order', 'orders', 'pedido', 'pedidos', 'bestellnummer', 'bestellung', 'bestell', 'auftrag', 'auftragsnummer',
    'commande', 'commandes', 'encomenda', 'encomendas', 'ordine', 'customer', 'cliente', 'clientes', 'kundennummer',
    'kunden', 'account', 'cuenta', 'conta', 'konto', 'invoice', 'factura', 'fatura', 'rechnung', 'rechnungsnummer',
    'facture', 'booking', 'reserva', 'reservation', 'réservation', 'buchung', 'buchungsnummer', 'tracking', 'rastreio',
    'seguimiento', 'sendungsnummer', 'user', 'userid', 'id', 'ref', 'reference', 'referencia', 'referência', 'referenz',
    // phone labels
    'phone', 'telephone', 'mobile', 'cell', 'cellphone', 'teléfono', 'telefono', 'teléfonos', 'telefone', 'móvil',
    'movil', 'celular', 'telefon', 'telefonnummer', 'handy', 'handynummer', 'mobilnummer', 'rufnummer', 'téléphone',
    'portable', 'fone', 'whatsapp', 'whats', 'tel', 'tél',
    // port, version, branch, ticket labels
    'port', 'ports', 'puerto', 'puertos', 'porta', 'version', 'versions', 'versión', 'version', 'versão', 'release',
    'branch', 'branches', 'rama', 'ramo', 'zweig', 'branche', 'ticket', 'tickets', 'issue', 'issues', 'pull', 'merge',
    'pr', 'prs', 'mr', 'mrs', 'jira', 'bug', 'bugs', 'chamado', 'chamados', 'incidencia', 'incidencias', 'incidente',
    'incidentes', 'vorgang', 'listen', 'listens', 'listening', 'escucha', 'escuchando', 'lauscht', 'écoute', 'escuta',
    'ascolta',
    // numbered references and names
    'chapter', 'chapters', 'section', 'sections', 'exercise', 'exercises', 'lesson', 'lessons', 'name', 'student',
    // English months (their "May 12" pattern would take a day that starts a value)
    'jan', 'january', 'feb', 'february', 'mar', 'march', 'apr', 'april', 'may', 'jun', 'june', 'jul', 'july', 'aug',
    'august', 'sep', 'sept', 'september', 'oct', 'october', 'nov', 'november', 'dec', 'december',
  ].map((w) => w.toLowerCase()),
)

/** Letters of several scripts, accented Latin included. */
const LETTERS = [...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZéèêçãõñüöäßøåαβγδжзи日本語中文']

/** Everyday words of several languages that name no kind. */
const FILLER = [
  'please', 'the', 'is', 'my', 'and', 'por', 'favor', 'mi', 'es', 'el', 'bitte', 'ist', 'die', 'lautet', 'obrigado',
  'meu', 'é', 'o', 'merci', 'est', 'le', 'grazie', 'il', 'è', 'über', 'façon', 'aquí', 'está', 'noch', 'einmal',
  'again', 'here', 'number', 'número', 'nummer', 'numéro', 'de', 'no',
]

const word = fc.oneof(
  fc.constantFrom(...FILLER),
  fc
    .array(fc.constantFrom(...LETTERS), { minLength: 1, maxLength: 9 })
    .map((cs) => cs.join(''))
    .filter((w) => !MEANINGFUL_WORDS.has(w.toLowerCase())),
)
const punctuation = fc.constantFrom(',', '.', '!', '?', ';', '(', ')', '"', '«', '»', '¿', '¡', '—', '-', ':')

/** Any phrase of words and punctuation, ending in a space or ": " (what comes before a value). */
const phrase = fc
  .tuple(fc.array(fc.oneof({ weight: 3, arbitrary: word }, { weight: 1, arbitrary: punctuation }), { maxLength: 8 }), fc.constantFrom(' ', ': '))
  .map(([tokens, end]) => (tokens.length === 0 ? '' : tokens.join(' ') + end))

const digits = (min: number, max: number) =>
  fc.array(fc.constantFrom(...'0123456789'), { minLength: min, maxLength: max }).map((d) => d.join(''))
const between = (min: number, max: number) => fc.integer({ min, max })

/** A statement of one value: its text, the fact it states and the fact's kind. */
interface Statement {
  text: string
  fact: string
  kind: FactKind
}
const value = (kind: FactKind) => (fact: string): Statement => ({ text: fact, fact, kind })

/** Statements of each kind: values whose shape is their kind's, and values after a kind's label. */
const STATEMENTS: Record<string, fc.Arbitrary<Statement>> = {
  hash: fc
    .array(fc.constantFrom(...'0123456789abcdef'), { minLength: 7, maxLength: 40 })
    .map((cs) => cs.join(''))
    .filter((h) => /\d/.test(h) && /[a-f]/.test(h))
    .map(value('hash')),
  uuid: fc.uuid().map(value('uuid')),
  version: fc
    .tuple(fc.boolean(), between(0, 40), between(0, 99), between(0, 99))
    .map(([v, a, b, c]) => (v ? `v${a}.${b}.${c}` : `${a}.${b}.${c}`))
    .map(value('version')),
  phone: fc
    .tuple(between(1, 99), digits(2, 3), digits(3, 3), digits(4, 4))
    .map(([cc, area, a, b]) => `+${cc} ${area} ${a}-${b}`)
    .map(value('phone')),
  date: fc
    .tuple(between(1, 28), between(0, 11), between(1990, 2099))
    .chain(([d, m, y]) =>
      fc.constantFrom(
        `${y}-${String(m + 1).padStart(2, '0')}-${String(d).padStart(2, '0')}`,
        `${d} de ${['enero', 'febrero', 'marzo', 'abril', 'mayo', 'junio', 'julio', 'agosto', 'septiembre', 'octubre', 'noviembre', 'diciembre'][m]} de ${y}`,
        `${d}. ${['Januar', 'Februar', 'März', 'April', 'Mai', 'Juni', 'Juli', 'August', 'September', 'Oktober', 'November', 'Dezember'][m]} ${y}`,
        `${d} ${['janvier', 'février', 'mars', 'avril', 'mai', 'juin', 'juillet', 'août', 'septembre', 'octobre', 'novembre', 'décembre'][m]} ${y}`,
        `${String(d).padStart(2, '0')}/${String(m + 1).padStart(2, '0')}/${y}`,
      ),
    )
    .map(value('date')),
  money: fc
    .tuple(between(1, 99_999), digits(2, 2))
    .chain(([n, cents]) => fc.constantFrom(`R$ ${n},${cents}`, `$${n}`, `${n} €`, `${n} EUR`, `€${n}.${cents}`))
    .map(value('money')),
  email: fc
    .tuple(fc.stringMatching(/^[a-z]{1,8}$/), fc.stringMatching(/^[a-z]{2,8}$/))
    .map(([a, b]) => `${a}@${b}.example`)
    .map(value('email')),
  url: fc.stringMatching(/^[a-z]{1,8}$/).map((p) => `https://shop.example/${p}`).map(value('url')),
  branch: fc.stringMatching(/^[a-z]{2,8}-[a-z0-9]{1,6}$/).map((s) => `feature/${s}`).map(value('branch')),
  envVar: fc
    .tuple(fc.stringMatching(/^[A-Z]{2,8}$/), fc.stringMatching(/^[A-Z0-9]{1,6}$/))
    .map(([a, b]) => `${a}_${b}`)
    .map(value('env-var')),
  reference: fc
    .tuple(between(1, 99_999), fc.constantFrom('PR ', 'PR #', '#'))
    .map(([n, word]): Statement => {
      const text = `${word}${n}`
      // After its word, a `#` reference or a number of 3+ digits is the value alone.
      const fact = word === '#' ? text : word === 'PR #' ? `#${n}` : n >= 100 ? String(n) : text
      return { text, fact, kind: 'reference' }
    }),
  id: fc.tuple(fc.stringMatching(/^[A-Z]{2,4}$/), digits(3, 6)).map(([p, n]) => `${p}-${n}`).map(value('id')),
  postalShape: fc
    .tuple(digits(5, 5), digits(3, 3), fc.boolean())
    .map(([a, b, uk]) => (uk ? 'SW1A 1AA' : `${a}-${b}`))
    .map(value('postal-code')),
  number: between(100, 999_999_999).map(String).map(value('number')),
  code: fc
    .tuple(fc.stringMatching(/^[A-Z]{2,4}$/), digits(3, 4), fc.stringMatching(/^[A-Z][0-9][A-Z][0-9]$/), fc.boolean())
    // "PR45", "MR000" are pull and merge requests.
    .filter(([l]) => !/^[PM]R/.test(l))
    .map(([l, d, mixed, useMixed]) => (useMixed ? mixed : `${l}${d}`))
    .map(value('code')),
  port: between(10, 65_535).map((p) => ({ text: `localhost:${p}`, fact: String(p), kind: 'port' as const })),
  labelledPostal: fc
    .tuple(fc.constantFrom('postal code is', 'zip:', 'código postal es', 'Postleitzahl lautet', 'PLZ', 'CEP', 'code postal :', 'CAP'), digits(5, 5))
    .map(([label, code]) => ({ text: `${label} ${code}`, fact: code, kind: 'postal-code' as const })),
  labelledOrder: fc
    .tuple(fc.constantFrom('order number', 'order #', 'pedido', 'Bestellnummer:', 'numéro de commande', 'encomenda nº'), digits(3, 7))
    .map(([label, n]) => ({ text: label.endsWith('#') ? `${label}${n}` : `${label} ${n}`, fact: n, kind: 'id' as const })),
  labelledPhone: fc
    .tuple(fc.constantFrom('phone:', 'teléfono', 'Telefon', 'téléphone', 'telefone é'), digits(2, 3), digits(6, 8))
    .map(([label, area, n]) => ({ text: `${label} 0${area} ${n}`, fact: `0${area} ${n}`, kind: 'phone' as const })),
  labelledPort: fc
    .tuple(fc.constantFrom('port', 'Port', 'puerto', 'porta', 'port is'), between(10, 65_535))
    .map(([label, p]) => ({ text: `${label} ${p}`, fact: String(p), kind: 'port' as const })),
  labelledVersion: fc
    .tuple(fc.constantFrom('version', 'versión', 'Version', 'versão'), between(0, 30), between(0, 99))
    .map(([label, a, b]) => ({ text: `${label} ${a}.${b}`, fact: `${a}.${b}`, kind: 'version' as const })),
}

describe('stated values: any phrase before a value leaves it the same fact', () => {
  for (const [name, statement] of Object.entries(STATEMENTS))
    it(`${name}: same text, same kind after any phrase`, () => {
      fc.assert(
        fc.property(phrase, statement, (before, s) => {
          const alone = stated(s.text).find((f) => f.fact === s.fact)
          expect(alone).toEqual({ fact: s.fact, kind: s.kind })
          expect(stated(before + s.text)).toContainEqual({ fact: s.fact, kind: s.kind })
        }),
        { numRuns: 300 },
      )
    })
})
