import { describe, expect, it } from 'vitest'
import { createRedactor, describeRedactions } from './redact'

// Invented secrets in the shapes the providers issue (none is a real key).
const OPENAI = 'sk-proj-AbCdEfGhIjKlMnOpQrStUv12'
const ANTHROPIC = 'sk-ant-api03-ZyXwVuTsRqPoNmLk'
const AWS = 'AKIAABCDEFGHIJKLMNOP'
const GITHUB = 'ghp_0123456789abcdefghijABCDEFGHIJ'
const SLACK = 'xoxb-1234567890-abcdefghij'
const GOOGLE = 'AIzaSyA1234567890abcdefghijklmnopqrstuv'
const STRIPE = 'sk_live_51AbCdEfGhIjKlMnOpQr'
const STRIPE_TEST = 'rk_test_51ZyXwVuTsRqPoNmLk'
const JWT = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjMifQ.c2lnbmF0dXJlX2hlcmU'

describe('createRedactor', () => {
  it('replaces each key shape, numbering distinct values in order of first appearance', () => {
    const r = createRedactor({ patterns: true, strings: [] })
    expect(r.text(`a ${OPENAI} b ${ANTHROPIC} c ${AWS}`)).toBe('a [key-1] b [key-2] c [key-3]')
    expect(r.text(`${GITHUB} ${SLACK} ${GOOGLE} ${JWT}`)).toBe('[key-4] [key-5] [key-6] [key-7]')
    // The same value in a later text keeps its placeholder.
    expect(r.text(`again ${ANTHROPIC}`)).toBe('again [key-2]')
    expect(r.counts()).toEqual({ keys: 7, emails: 0, homes: 0, strings: 0 })
    expect(r.text(`stripe ${STRIPE} and ${STRIPE_TEST}`)).toBe('stripe [key-8] and [key-9]')
  })

  it('numbers keys of different shapes in the order they appear in the text', () => {
    const r = createRedactor({ patterns: true, strings: [] })
    expect(r.text(`${AWS} then ${OPENAI} then ${AWS}`)).toBe('[key-1] then [key-2] then [key-1]')
  })

  it('replaces only the token of a Bearer header, and a JWT bearer once', () => {
    const r = createRedactor({ patterns: true, strings: [] })
    expect(r.text('Authorization: Bearer abc123DEF456ghi')).toBe('Authorization: Bearer [key-1]')
    expect(r.text(`Authorization: Bearer ${JWT}`)).toBe('Authorization: Bearer [key-2]')
    expect(r.counts().keys).toBe(2)
  })

  it('replaces a value it learned wherever it appears later, and a cut-off head of one at a text end', () => {
    const r = createRedactor({ patterns: true, strings: ['Project Zebra'] })
    r.learn([`mail ana.silva@example.org key ${AWS} on Project Zebra`])
    expect(r.counts()).toEqual({ keys: 1, emails: 1, homes: 0, strings: 1 })
    // Cut mid-value: the pattern no longer matches, the known value's head goes all the same.
    expect(r.text('mail ana.silva@exa')).toBe('mail [email-1]')
    expect(r.text(`key ${AWS.slice(0, 17)}`)).toBe('key [key-1]')
    expect(r.text('on Project Ze')).toBe('on [redacted-1]')
    // A known key glued to a word (no \b for the pattern) is still replaced.
    expect(r.text(`x${AWS}y`)).toBe('x[key-1]y')
    // Heads shorter than 4 code units stay: they would eat ordinary word endings.
    expect(r.text('on Pro')).toBe('on Pro')
    expect(r.text('ana')).toBe('ana')
  })

  it('leaves words that only contain the prefixes alone', () => {
    const r = createRedactor({ patterns: true, strings: [] })
    const text = 'task-runner-configuration-file and sk-short and Bearer of bad news'
    expect(r.text(text)).toBe('task-runner-configuration-file and sk-short and Bearer of bad news')
    expect(r.counts()).toEqual({ keys: 0, emails: 0, homes: 0, strings: 0 })
  })

  it('replaces e-mail addresses and the user part of home paths consistently', () => {
    const r = createRedactor({ patterns: true, strings: [] })
    expect(r.text('mail ana.silva@example.org or bo@test.example.com; ana.silva@example.org')).toBe(
      'mail [email-1] or [email-2]; [email-1]',
    )
    expect(r.text('/home/ana/src/app.ts and /Users/bo/notes.md and C:\\Users\\ana\\x.txt')).toBe(
      '/home/[user-1]/src/app.ts and /Users/[user-2]/notes.md and C:\\Users\\[user-1]\\x.txt',
    )
    expect(r.text('{"path":"C:\\\\Users\\\\cy\\\\a"}')).toBe('{"path":"C:\\\\Users\\\\[user-3]\\\\a"}')
    expect(r.counts()).toEqual({ keys: 0, emails: 2, homes: 3, strings: 0 })
  })

  it('replaces chosen strings exactly, longest first, blank lines ignored, even without the patterns', () => {
    const r = createRedactor({ patterns: false, strings: ['Acme', ' Acme Corp ', '', 'ana@example.org'] })
    expect(r.text('Acme Corp and Acme; ana@example.org; other@example.org')).toBe(
      '[redacted-1] and [redacted-2]; [redacted-3]; other@example.org',
    )
    expect(r.counts()).toEqual({ keys: 0, emails: 0, homes: 0, strings: 3 })
  })

  it('without options passes text through', () => {
    const r = createRedactor()
    expect(r.text(`${OPENAI} ana@example.org /home/ana`)).toBe(`${OPENAI} ana@example.org /home/ana`)
    expect(r.counts()).toEqual({ keys: 0, emails: 0, homes: 0, strings: 0 })
  })
})

describe('describeRedactions', () => {
  it('words each non-zero count', () => {
    expect(describeRedactions({ keys: 2, emails: 1, homes: 3, strings: 0 })).toBe('2 keys, 1 e-mail address, 3 home paths')
    expect(describeRedactions({ keys: 1, emails: 2, homes: 1, strings: 1 })).toBe('1 key, 2 e-mail addresses, 1 home path, 1 chosen string')
    expect(describeRedactions({ keys: 0, emails: 0, homes: 0, strings: 0 })).toBe('nothing to redact')
  })
})
