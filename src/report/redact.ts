/**
 * Redaction of the texts that go into an HTML report: API keys and tokens of common shapes,
 * e-mail addresses, the user part of home-directory paths, and strings the user chose. Each
 * distinct value gets one placeholder, numbered per category in order of first appearance, and
 * keeps it in every text the same redactor sees (`[key-1]`, `[email-2]`, `/home/[user-1]/…`,
 * `[redacted-1]`). Pure; lengths and positions are in UTF-16 code units (regex matching).
 */

import { SECRET_QUERY_NAME_PATTERN } from '../engine/util/url-credentials'

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
 * One shape of secret the patterns replace. `re` is global (`g`) with indices (`d`); when it has a
 * `secret` group only that part is the secret (the name before it stays: `password=[key-1]`),
 * else the whole match is. `accept`, when set, must agree that a match is a secret.
 */
interface SecretRule {
  /** Who issues it, in words (for the docs and tests). */
  what: string
  re: RegExp
  accept?: (secret: string) => boolean
}

/** A name under which a value is a credential, as in `password=…`, `"api_key": "…"`, `AUTH_TOKEN: …`. */
const SECRET_NAME =
  String.raw`(?:[A-Za-z0-9]{1,64}[_.-]){0,8}(?:password|passwd|passphrase|secret|secret[_-]?key|api[_-]?key|apikey|access[_-]?key|access[_-]?token|auth[_-]?token|refresh[_-]?token|client[_-]?secret|private[_-]?key|token)`

/** A value that only stands for a secret (a variable, a placeholder, a redaction) is not one. */
const NOT_A_VALUE = String.raw`(?![$<{%*\[]|(?:true|false|null|none|undefined|required|optional|redacted|changeme|your[_-])\b)`

/**
 * The secret shapes, after the issuers' published formats and the public rule sets of gitleaks
 * and detect-secrets (shapes learned, rules our own). Prefixed keys are matched on their own;
 * shapes with no prefix of their own (AWS secret keys, Azure account keys, Twilio auth tokens,
 * passwords) only after a name that says what they are.
 */
export const SECRET_RULES: readonly SecretRule[] = [
  { what: 'Anthropic API / admin key (sk-ant-api03-…, sk-ant-admin01-…)', re: /\bsk-ant-[a-z]+\d\d-[A-Za-z0-9_-]{16,}/dg },
  { what: 'OpenAI key (sk-…, sk-proj-…, sk-svcacct-…, sk-admin-…), OpenRouter sk-or-v1-…', re: /\bsk-[A-Za-z0-9_-]{16,}/dg },
  { what: 'GitHub token (ghp_, gho_, ghu_, ghs_, ghr_, github_pat_)', re: /\b(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,})/dg },
  { what: 'GitLab token (glpat-, gldt-, glptt-, glrt-, glcbt-, glft-, glimt-, glagent-, glsoat-, gloas-)', re: /\bgl(?:pat|dt|ptt|rt|cbt|ft|imt|agent|soat|oas)-[A-Za-z0-9_-]{20,}(?:\.[A-Za-z0-9_-]+)*/dg },
  { what: 'Hugging Face token (hf_…) and organization key (api_org_…)', re: /\b(?:hf|api_org)_[A-Za-z0-9]{30,}\b/dg },
  { what: 'Slack token (xoxb-, xoxp-, xoxa-, xoxr-, xoxs-, xoxe-) and app token (xapp-)', re: /\b(?:xox[abprse]|xapp)-[A-Za-z0-9-]{10,}/dg },
  { what: 'Slack incoming webhook', re: /\bhooks\.slack\.com\/services\/(?<secret>T[A-Za-z0-9_]+\/B[A-Za-z0-9_]+\/[A-Za-z0-9_]+)/dg },
  { what: 'Stripe secret / restricted key (sk_live_, sk_test_, rk_live_, rk_test_)', re: /\b[sr]k_(?:live|test|prod)_[A-Za-z0-9]{16,}/dg },
  { what: 'Google API key (AIza…)', re: /\bAIza[0-9A-Za-z_-]{35}/dg },
  { what: 'Google OAuth access token (ya29.…) and client secret (GOCSPX-…)', re: /\b(?:ya29\.[0-9A-Za-z_-]{20,}|GOCSPX-[0-9A-Za-z_-]{20,})/dg },
  { what: 'AWS access key id (AKIA…, ASIA…, ABIA…, ACCA…)', re: /\b(?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16}\b/dg },
  {
    what: 'AWS secret access key (40 characters after aws_secret_access_key, SecretAccessKey, …)',
    re: /(?:aws[_-]?)?secret[_-]?(?:access[_-]?)?key\\?["']?\s{0,4}[:=]\s{0,4}\\?["']?(?<secret>[A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])/dgi,
  },
  { what: 'npm access token (npm_…)', re: /\bnpm_[A-Za-z0-9]{36}\b/dg },
  { what: 'PyPI upload token (pypi-AgE…)', re: /\bpypi-AgE[A-Za-z0-9_-]{50,}/dg },
  { what: 'SendGrid API key (SG.….…)', re: /\bSG\.[A-Za-z0-9_-]{16,32}\.[A-Za-z0-9_-]{16,64}/dg },
  { what: 'Twilio API key (SK + 32 hex)', re: /\bSK[0-9a-fA-F]{32}\b/dg },
  { what: 'Groq (gsk_…), xAI (xai-…), Perplexity (pplx-…), Replicate (r8_…) keys', re: /\b(?:gsk_[A-Za-z0-9]{40,}|xai-[A-Za-z0-9]{40,}|pplx-[A-Za-z0-9]{40,}|r8_[A-Za-z0-9]{30,})/dg },
  { what: 'Azure storage account key (AccountKey=…, SharedAccessKey=…)', re: /\b(?:AccountKey|SharedAccessKey)=(?<secret>[A-Za-z0-9+/]{40,}={0,2})/dg },
  { what: 'JSON Web Token (eyJ….….…)', re: /\beyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}/dg },
  {
    what: 'PEM private key block (RSA, EC, DSA, OPENSSH, ENCRYPTED, PGP …), up to its END line or, cut off, its last base64',
    // The body (base64, line breaks also as `\n` in JSON text, `Proc-Type:`-style headers) runs to
    // the next `-----`, never past it: linear, and one block never swallows the next.
    re: /-----BEGIN (?:[A-Z0-9]+ ){0,4}PRIVATE KEY(?: BLOCK)?-----(?:[A-Za-z0-9+/=\s\\:,.()]|-(?!----)){0,20000}(?:-----END (?:[A-Z0-9]+ ){0,4}PRIVATE KEY(?: BLOCK)?-----)?/dg,
  },
  {
    what: 'Bearer token (Authorization: Bearer …): one with a digit, or of 20 characters or more',
    re: /\bBearer\s+(?<secret>[A-Za-z0-9._~+/=-]{8,})/dg,
    accept: (s) => /\d/.test(s) || s.length >= 20,
  },
  { what: 'Basic credentials (Authorization: Basic …)', re: /\bAuthorization:\s{0,4}Basic\s+(?<secret>[A-Za-z0-9+/]{8,}={0,2})/dgi },
  { what: 'password in a URL (scheme://user:password@host)', re: /\b[A-Za-z][A-Za-z0-9+.-]*:\/\/[^\s:/?#@]+:(?<secret>[^\s/?#@]+)@/dg },
  {
    what: 'credential query parameter in a URL (?key=…, &api_key=…, &access_token=…, &sig=…)',
    re: new RegExp(String.raw`[?&]${SECRET_QUERY_NAME_PATTERN}=(?<secret>[^&#\s"'<>]{6,})`, 'dgi'),
  },
  {
    what: 'a value given to a credential name (password=…, API_KEY=…, "client_secret": "…", token: …)',
    re: new RegExp(
      String.raw`(?<![A-Za-z0-9])${SECRET_NAME}(?![A-Za-z0-9])\\?["']?\s{0,4}[:=]\s{0,4}\\?["']?${NOT_A_VALUE}(?<secret>[^\s"'\\&;,<>()\[\]{}]{6,})`,
      'dgi',
    ),
    // A lone lower-case word or a number is prose or a setting (`password: required`, `token: 128000`).
    accept: (s) => !/^(?:[a-z]+|\d+)$/.test(s) || s.length >= 12,
  },
]
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

/**
 * Every secret `SECRET_RULES` finds in `text`, as [start, end) in UTF-16 code units, in text
 * order; where matches overlap the one that starts first (then the longest) wins.
 */
function findSecrets(text: string): [number, number][] {
  const found: [number, number][] = []
  for (const rule of SECRET_RULES) {
    for (const m of text.matchAll(rule.re)) {
      const span = m.indices?.groups?.secret ?? m.indices?.[0]
      if (!span || span[1] <= span[0]) continue
      if (rule.accept && !rule.accept(text.slice(span[0], span[1]))) continue
      found.push([span[0], span[1]])
    }
  }
  found.sort((a, b) => a[0] - b[0] || b[1] - a[1])
  const kept: [number, number][] = []
  for (const span of found) if (kept.length === 0 || span[0] >= (kept[kept.length - 1]?.[1] ?? 0)) kept.push(span)
  return kept
}

/** `text` with each secret `findSecrets` finds replaced by `replacement(secret)`. */
function replaceSecrets(text: string, replacement: (secret: string) => string): string {
  const spans = findSecrets(text)
  if (spans.length === 0) return text
  let out = ''
  let at = 0
  for (const [start, end] of spans) {
    out += text.slice(at, start) + replacement(text.slice(start, end))
    at = end
  }
  return out + text.slice(at)
}

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
      out = replaceSecrets(out, (v) => placeholder('keys', v, 'key'))
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
