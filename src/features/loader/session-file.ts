/**
 * The session file: one JSON file (`<name>.session.json`) holding what the page showed — the
 * transcript as it was opened (its original bytes and file name, so any input, .zip and .gz
 * included, opens exactly as before), the settings (the same `encodeConfig` text a link carries),
 * the watched facts, the open conversation, the tab and the selected message. Never an API key
 * (the settings text holds none). Pure: no DOM, no store.
 *
 * ```json
 * {"kind":"compaction-inspector-session","version":1,
 *  "transcript":{"fileName":"run.jsonl","encoding":"utf-8","data":"…","conversation":"main"},
 *  "settings":"v1;e=o200k_base;…","watched":["ORD-58213"],"tab":"facts","message":41}
 * ```
 */
import { jsonTextNestsTooDeep, MAX_NESTING } from '../../engine/util/nesting'
import { quoteForMessage } from '../../engine/util/text'

/** The `kind` header of a session file. */
const SESSION_KIND = 'compaction-inspector-session'

/** The session file version this page writes and reads. */
const SESSION_VERSION = 1

/** How the transcript's bytes are held: UTF-8 text as it is, anything else in base64. */
type TranscriptEncoding = 'utf-8' | 'base64'

/** A session file's content, as written and as read back after validation. */
export interface SessionFile {
  kind: typeof SESSION_KIND
  version: typeof SESSION_VERSION
  transcript: {
    /** The file name the transcript was opened under (format detection reads it: `.zip`, `.gz`). */
    fileName: string
    encoding: TranscriptEncoding
    /** The file's bytes: the text itself (`utf-8`) or base64. */
    data: string
    /** The conversation of the file that was open: its main line or a sub-agent by index. */
    conversation: 'main' | number
  }
  /** The pipeline settings in the link's format (url-config.ts `encodeConfig`). */
  settings: string
  /** The facts the user watched, in order. */
  watched: string[]
  /** The main view that was open (a tab id). */
  tab: string
  /** The selected message's position in the Before, or null when none was selected. */
  message: number | null
}

/** What `parseSessionFile` made of a text: the session, or one sentence naming the field at fault. */
export type ParsedSession = { ok: true; session: SessionFile } | { ok: false; error: string }

/** The file name of a session file for a transcript opened as `fileName`: `run.jsonl` → `run.session.json`. */
export function sessionFileName(fileName: string): string {
  const base = fileName.replace(/\.(?:jsonl|ndjson|json|txt|md|traj|ya?ml|eval|zip)(?:\.gz)?$/i, '').replace(/\.gz$/i, '')
  return `${base === '' ? 'transcript' : base}.session.json`
}

/**
 * Whether a file is a session file, from its name and its first characters: the name ends in
 * `.session.json`, or the text opens with the `kind` header this page writes first. A transcript
 * that merely mentions the kind somewhere is not one.
 */
export function isSessionFile(fileName: string, head: string): boolean {
  return /\.session\.json$/i.test(fileName) || new RegExp(`^\\uFEFF?\\s*\\{\\s*"kind"\\s*:\\s*"${SESSION_KIND}"`).test(head)
}

const CHUNK = 0x8000

/** Base64 of `bytes` (standard alphabet, padded). */
function toBase64(bytes: Uint8Array): string {
  let binary = ''
  for (let at = 0; at < bytes.length; at += CHUNK) {
    binary += String.fromCharCode(...bytes.subarray(at, at + CHUNK))
  }
  return btoa(binary)
}

/** The bytes of base64 `text`, or null when it is not base64. */
function fromBase64(text: string): Uint8Array | null {
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(text) || text.length % 4 !== 0) return null
  const binary = atob(text)
  const bytes = new Uint8Array(binary.length)
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i)
  return bytes
}

/**
 * How a transcript's bytes go into a session file: as text when they are valid UTF-8 (their
 * UTF-8 encoding gives the same bytes back, a BOM included), else in base64 (zip, gzip, any
 * other binary input).
 */
export function transcriptData(bytes: Uint8Array): { encoding: TranscriptEncoding; data: string } {
  try {
    const text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes)
    return { encoding: 'utf-8', data: text }
  } catch {
    return { encoding: 'base64', data: toBase64(bytes) }
  }
}

/** The transcript's original bytes from a (validated) session file. */
export function transcriptBytes(session: SessionFile): Uint8Array {
  const { encoding, data } = session.transcript
  return encoding === 'utf-8' ? new TextEncoder().encode(data) : (fromBase64(data) ?? new Uint8Array())
}

/** The session file's text for `session` (the `kind` header first, so a reader can tell it by its head). */
export function writeSessionFile(session: Omit<SessionFile, 'kind' | 'version'>): string {
  const file: SessionFile = { kind: SESSION_KIND, version: SESSION_VERSION, ...session }
  return JSON.stringify(file)
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)

/**
 * Reads and checks a session file's text. `tabs` are the tab ids this page has. Every problem is
 * one sentence naming the field (`"transcript.data" is not base64`, `"version" 2 is not
 * understood here …`); never throws.
 */
export function parseSessionFile(text: string, tabs: readonly string[]): ParsedSession {
  let value: unknown
  const body = text.replace(/^\uFEFF/, '')
  // Nesting is read before parsing: a hostile file is never built into a value (util/nesting.ts).
  if (jsonTextNestsTooDeep(body)) return { ok: false, error: `not a session file: nested deeper than ${MAX_NESTING.toLocaleString('en-US')} levels` }
  try {
    value = JSON.parse(body)
  } catch (e) {
    return { ok: false, error: `not valid JSON (${e instanceof Error ? e.message : String(e)})` }
  }
  const fail = (error: string): ParsedSession => ({ ok: false, error })
  if (!isRecord(value)) return fail('not a session file: expected a JSON object')
  if (value.kind !== SESSION_KIND) return fail(`"kind" is ${value.kind === undefined ? 'missing' : quoteForMessage(value.kind)}, expected "${SESSION_KIND}"`)
  if (value.version !== SESSION_VERSION) {
    return fail(`"version" ${value.version === undefined ? 'is missing' : quoteForMessage(value.version)}: this page reads session files of version ${SESSION_VERSION}`)
  }
  const t = value.transcript
  if (!isRecord(t)) return fail('"transcript" is missing or not an object')
  if (typeof t.fileName !== 'string' || t.fileName === '') return fail('"transcript.fileName" is missing or not a string')
  if (t.encoding !== 'utf-8' && t.encoding !== 'base64') return fail('"transcript.encoding" must be "utf-8" or "base64"')
  if (typeof t.data !== 'string') return fail('"transcript.data" is missing or not a string')
  if (t.encoding === 'base64' && fromBase64(t.data) === null) return fail('"transcript.data" is not base64')
  const conversation = t.conversation ?? 'main'
  if (conversation !== 'main' && !(typeof conversation === 'number' && Number.isInteger(conversation) && conversation >= 0)) {
    return fail('"transcript.conversation" must be "main" or a sub-agent index')
  }
  if (typeof value.settings !== 'string' || !value.settings.startsWith('v')) return fail('"settings" is missing or not a settings text')
  const watched = value.watched ?? []
  if (!Array.isArray(watched) || !watched.every((w) => typeof w === 'string')) return fail('"watched" must be a list of strings')
  const tab = value.tab ?? 'compare'
  if (typeof tab !== 'string' || !tabs.includes(tab)) return fail(`"tab" ${JSON.stringify(tab)} is not one of ${tabs.join(', ')}`)
  const message = value.message ?? null
  if (message !== null && !(typeof message === 'number' && Number.isInteger(message) && message >= 0)) {
    return fail('"message" must be a message position (a whole number ≥ 0) or null')
  }
  return {
    ok: true,
    session: {
      kind: SESSION_KIND,
      version: SESSION_VERSION,
      transcript: { fileName: t.fileName, encoding: t.encoding, data: t.data, conversation },
      settings: value.settings,
      watched,
      tab,
      message,
    },
  }
}
