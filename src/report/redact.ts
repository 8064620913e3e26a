/**
 * Redaction of the texts that go into an HTML report: API keys and tokens of common shapes,
 * e-mail addresses, the user part of home-directory paths, and strings the user chose. Each
 * distinct value gets one placeholder, numbered per category in order of first appearance, and
 * keeps it in every text the same redactor sees (`[key-1]`, `[email-2]`, `/home/[user-1]/…`,
 * `[redacted-1]`). Pure; lengths and positions are in UTF-16 code units (regex matching).
 */

/** What a report redacts: the built-in `patterns` (keys, e-mail, home paths) and exact `strings`. */
export interface RedactOptions {
  /** Keys and tokens, e-mail addresses and home-directory user names. */
  patterns: boolean
  /** The user's own strings, matched exactly (case-sensitive); blank ones are ignored. */
  strings: readonly string[]
}

/** Distinct values replaced so far, per category. */
export interface RedactionCounts {
  keys: number
  emails: number
  homes: number
  strings: number
}

/**
 * Replaces what `RedactOptions` names in each text it is given, consistently across calls. A value
 * found once (in any text seen so far) is replaced wherever it appears later, also where the
 * patterns would no longer match it, and a text that ends in a cut-off head of such a value (a
 * fact capped mid-key, say) loses that head to the value's placeholder. So callers give it the
 * full texts (`learn`) before any text cut from them.
 */
export interface Redactor {
  /** `text` with every value found replaced by its placeholder. */
  text(text: string): string
  /** Finds the values in `texts` (as `text` does) without using the result. */
  learn(texts: Iterable<string>): void
  /** Distinct values replaced so far, per category. */
  counts(): RedactionCounts
}

/**
 * Key and token shapes: OpenAI/Anthropic (`sk-…`, `sk-ant-…`, `sk-proj-…`), AWS access key ids
 * (`AKIA…`, `ASIA…`), GitHub (`ghp_`, `gho_`, `ghu_`, `ghs_`, `ghr_`, `github_pat_`), Slack
 * (`xoxb-`, `xoxp-`, `xoxa-`, `xoxs-`), Google (`AIza…`), Stripe secret and restricted keys
 * (`sk_live_…`, `sk_test_…`, `rk_live_…`) and JWTs (`eyJ….….…`).
 */
const KEYS = new RegExp(
  [
    /\bsk-[A-Za-z0-9_-]{16,}/,
    /\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/,
    /\b(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,})/,
    /\bxox[bpas]-[A-Za-z0-9-]{10,}/,
    /\bAIza[0-9A-Za-z_-]{35}/,
    /\b[sr]k_(?:live|test)_[A-Za-z0-9]{16,}/,
    /\beyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}/,
  ]
    .map((re) => re.source)
    .join('|'),
  'g',
)

/** `Bearer <token>`: the token part (after any key shape above was already replaced). */
const BEARER = /\b(Bearer\s+)([A-Za-z0-9._~+/=-]{8,})/g

const EMAIL = /[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}\b/g

/**
 * A home directory's prefix and user: `/home/<user>`, `/Users/<user>`, `C:\Users\<user>` (also
 * with the backslashes doubled, as in JSON text, or with forward slashes).
 */
const HOME = /(\/home\/|\/Users\/|\b[A-Za-z]:(?:\\+|\/)Users(?:\\+|\/))([^/\\\s"'`<>:;,|*?[\]]+)/g

/**
 * The shortest cut-off head of a known value that is replaced at a text's end: shorter ones
 * (`al` of `alice@…`) would eat ordinary word endings, and leak too little to name the value.
 */
const MIN_HEAD = 4

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
}

/** A redactor for `options`; without options (or with nothing to do) texts pass unchanged. */
export function createRedactor(options?: RedactOptions): Redactor {
  const strings = [...new Set((options?.strings ?? []).map((s) => s.trim()).filter((s) => s !== ''))]
  // Longest first: a chosen string inside another chosen one never splits it.
  strings.sort((a, b) => b.length - a.length)
  const chosen = strings.length > 0 ? new RegExp(strings.map(escapeRegExp).join('|'), 'g') : null
  const patterns = options?.patterns === true
  const seen = { keys: new Map<string, string>(), emails: new Map<string, string>(), homes: new Map<string, string>(), strings: new Map<string, string>() }
  const placeholder = (category: keyof RedactionCounts, value: string, word: string) => {
    const map = seen[category]
    let p = map.get(value)
    if (p === undefined) map.set(value, (p = `[${word}-${map.size + 1}]`))
    return p
  }
  /** Every value found so far with its placeholder, longest value first. */
  const known = (): [string, string][] =>
    Object.values(seen)
      .flatMap((map) => [...map])
      .sort((a, b) => b[0].length - a[0].length)
  const text = (input: string): string => {
    let out = input
    if (chosen) out = out.replace(chosen, (v) => placeholder('strings', v, 'redacted'))
    if (patterns) {
      out = out.replace(KEYS, (v) => placeholder('keys', v, 'key'))
      out = out.replace(BEARER, (_m, head: string, token: string) => head + placeholder('keys', token, 'key'))
      out = out.replace(EMAIL, (v) => placeholder('emails', v, 'email'))
      out = out.replace(HOME, (_m, prefix: string, user: string) => prefix + placeholder('homes', user, 'user'))
    }
    for (const [value, p] of known()) {
      if (out.includes(value)) out = out.split(value).join(p)
      // A cut-off head of the value at the end of the text (at least MIN_HEAD code units).
      for (let len = Math.min(value.length - 1, out.length); len >= MIN_HEAD; len--) {
        if (out.endsWith(value.slice(0, len))) {
          out = out.slice(0, out.length - len) + p
          break
        }
      }
    }
    return out
  }
  return {
    text,
    learn(texts: Iterable<string>): void {
      for (const t of texts) text(t)
    },
    counts: () => ({ keys: seen.keys.size, emails: seen.emails.size, homes: seen.homes.size, strings: seen.strings.size }),
  }
}

/**
 * The counts in words, e.g. `2 keys, 1 e-mail address, 3 home paths`; `nothing to redact` when
 * every count is zero. Home paths count distinct user names.
 */
export function describeRedactions(counts: RedactionCounts): string {
  const parts: string[] = []
  const add = (n: number, one: string, many: string) => {
    if (n > 0) parts.push(`${n} ${n === 1 ? one : many}`)
  }
  add(counts.keys, 'key', 'keys')
  add(counts.emails, 'e-mail address', 'e-mail addresses')
  add(counts.homes, 'home path', 'home paths')
  add(counts.strings, 'chosen string', 'chosen strings')
  return parts.length > 0 ? parts.join(', ') : 'nothing to redact'
}
