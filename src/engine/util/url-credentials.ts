/**
 * Credentials a URL can carry, and the URL as it may be shown. An endpoint the user configures may
 * hold a password (`https://user:pass@host/v1`) or a key in its query (`…?key=…`, `…&api_key=…`,
 * a signed URL's `sig=`/`X-Amz-Signature=`); the request goes to the URL as given, but every text
 * that names it (errors, logs, the send-step preview, reports, share links) uses `displayUrl`.
 * Pure string work (no URL parser, which would normalise what it shows); never throws.
 */

/**
 * The name of a query parameter whose value is a credential (a RegExp source, unanchored): `key`, `token`, `secret`, `password`/`passwd`/
 * `pass`, `sig`/`signature`, `auth`/`authorization`, `credential(s)`, alone or as the last word of a
 * longer name (`api_key`, `api-key`, `apikey`, `access_token`, `client_secret`, `x-goog-api-key`,
 * `X-Amz-Signature`, `X-Amz-Credential`). Case-insensitive.
 */
export const SECRET_QUERY_NAME_PATTERN =
  '(?:[A-Za-z0-9._-]*[_-])?(?:key|apikey|token|secret|password|passwd|pass|sig|signature|auth|authorization|credentials?)'

/** `SECRET_QUERY_NAME_PATTERN` as a whole name, case-insensitive. */
const SECRET_QUERY_NAME = new RegExp(`^${SECRET_QUERY_NAME_PATTERN}$`, 'i')

/** What replaces a credential in a shown URL. */
const URL_SECRET_MASK = '***'

/** `scheme://` then the authority (up to `/`, `?` or `#`), the rest of the URL. */
const AUTHORITY = /^(\s*[A-Za-z][A-Za-z0-9+.-]*:\/\/)([^/?#]*)([\s\S]*)$/

interface UrlParts {
  /** `https://`, or '' when the text has no scheme. */
  scheme: string
  /** `user:pass` (without the `@`), when present. */
  userinfo?: string
  /** `host[:port]`. */
  host: string
  /** Path, query and fragment as written. */
  rest: string
}

function partsOf(url: string): UrlParts {
  const m = AUTHORITY.exec(url)
  if (!m) return { scheme: '', host: '', rest: url }
  const [, scheme = '', authority = '', rest = ''] = m
  const at = authority.lastIndexOf('@')
  return at < 0
    ? { scheme, host: authority, rest }
    : { scheme, userinfo: authority.slice(0, at), host: authority.slice(at + 1), rest }
}

/** Each `name=value` of the query part of `rest` whose name is `SECRET_QUERY_NAME`: [start, end) of the value. */
function secretQueryValues(rest: string): [number, number][] {
  const q = rest.indexOf('?')
  if (q < 0) return []
  const hash = rest.indexOf('#', q)
  const end = hash < 0 ? rest.length : hash
  const out: [number, number][] = []
  let i = q + 1
  while (i <= end) {
    let j = rest.indexOf('&', i)
    if (j < 0 || j > end) j = end
    const eq = rest.indexOf('=', i)
    if (eq >= 0 && eq < j && SECRET_QUERY_NAME.test(safeDecode(rest.slice(i, eq))) && eq + 1 < j) out.push([eq + 1, j])
    i = j + 1
  }
  return out
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s)
  } catch {
    return s
  }
}

/**
 * `url` as it may be shown: a `user:pass@` (or `user@`) before the host becomes `***@`, and the
 * value of each credential query parameter (`SECRET_QUERY_NAME`) becomes `***`; everything else is
 * kept as written. Text that is not a URL comes back unchanged.
 * E.g. `https://ana:pw@h.example/v1?key=abc&x=1` → `https://***@h.example/v1?key=***&x=1`.
 */
export function displayUrl(url: string): string {
  const p = partsOf(url)
  let rest = p.rest
  for (const [start, end] of secretQueryValues(rest).reverse()) rest = rest.slice(0, start) + URL_SECRET_MASK + rest.slice(end)
  return `${p.scheme}${p.userinfo !== undefined ? `${URL_SECRET_MASK}@` : ''}${p.host}${rest}`
}

/** `host[:port]` of a URL (never its `user:pass@`), or the text itself when it has no `scheme://`. */
export function hostOf(url: string): string {
  const p = partsOf(url)
  return p.scheme === '' ? url : p.host
}

/**
 * The credentials written in `url`, each as it appears there and decoded when that differs: the
 * whole `user:pass`, the password alone, and each credential query value. Empty for a URL
 * without any.
 */
export function urlSecrets(url: string): string[] {
  const p = partsOf(url)
  const raw: string[] = []
  if (p.userinfo !== undefined && p.userinfo !== '') {
    raw.push(p.userinfo)
    const colon = p.userinfo.indexOf(':')
    if (colon >= 0) raw.push(p.userinfo.slice(colon + 1))
  }
  for (const [start, end] of secretQueryValues(p.rest)) raw.push(p.rest.slice(start, end))
  const all = raw.flatMap((s) => [s, safeDecode(s)]).filter((s) => s !== '')
  // Longest first, so a password inside its `user:pass` is replaced with the whole.
  return [...new Set(all)].sort((a, b) => b.length - a.length)
}

/** Credentials shorter than this are not replaced outside the URL: they would eat ordinary text. */
const MIN_SCRUBBED = 3

/**
 * `text` with `url` shown as `displayUrl(url)` and every credential of `url` (`urlSecrets`) of at
 * least `MIN_SCRUBBED` code units that is still there replaced by `***`: for messages that quote
 * the URL, whole, normalised or in pieces (a `fetch` error naming the URL it refused).
 */
export function scrubUrlSecrets(text: string, url: string): string {
  const secrets = urlSecrets(url)
  if (secrets.length === 0) return text
  let out = text.split(url).join(displayUrl(url))
  for (const s of secrets) if (s.length >= MIN_SCRUBBED) out = out.split(s).join(URL_SECRET_MASK)
  return out
}
