/*
 * Importing several files as one input — a zip archive (zip.ts) or a folder (the CLI): the
 * registry's importers that declare a `bundle` reading say which bundles are theirs by the entry
 * names (Inspect's `header.json`, a Cline task's `api_conversation_history.json`, …). A bundle no
 * format claims but holding one transcript file (a chat service's data export's
 * `conversations.json`, a zipped session) is imported as that file.
 */
import { ImportFailure, importResult } from './failure'
import { importersInOrder } from './registry'
import type { FileBundle, FormatImporter, ImportOptions, ImportResult } from './types'

/** How many entry names an error about an unknown bundle lists. */
const LISTED_ENTRIES = 5

/** Names of files that hold a transcript when a bundle is not one format's files. */
const TRANSCRIPT_FILE = /\.(jsonl?|ndjson)$/i

/** The export file chat services name their conversations (ChatGPT's and claude.ai's exports). */
const CONVERSATIONS_FILE = /(^|\/)conversations\.json$/

/** The first registered importer whose bundle reading accepts these entry names, if any. */
function bundleImporter(names: readonly string[]): FormatImporter | undefined {
  return importersInOrder().find((imp) => imp.bundle?.matches(names) === true)
}

/**
 * The one entry a bundle no format claims is read as: its `conversations.json` (a data export),
 * else its only JSON/JSONL file (a zipped session), else none. Directory entries and macOS
 * resource forks (`__MACOSX/`) are not files of the session.
 */
function soleTranscriptEntry(names: readonly string[]): string | undefined {
  const files = names.filter((n) => !n.endsWith('/') && !n.startsWith('__MACOSX/'))
  const conversations = files.filter((n) => CONVERSATIONS_FILE.test(n))
  if (conversations.length === 1) return conversations[0]
  const transcripts = files.filter((n) => TRANSCRIPT_FILE.test(n))
  return transcripts.length === 1 ? transcripts[0] : undefined
}

/**
 * Imports a bundle (`kind` names it in messages: `zip archive`, `folder`): the format whose
 * `bundle.matches` accepts its entry names reads it, with raw records kept (`source.raw`) when
 * `options.keepRaw` says so or, unset, when the entries total at most `rawMaxBytes`; else its
 * sole transcript file (see `soleTranscriptEntry`) goes through `importText` with that entry's
 * name as the file name; else the error "a <kind> of no format this version reads", naming its
 * first entries and each format's `lookedFor`. Unreadable entries are one-line errors naming the entry. Never throws.
 */
export function importBundle(
  bundle: FileBundle,
  kind: string,
  options: ImportOptions,
  rawMaxBytes: number,
  importText: (text: string, options: ImportOptions) => ImportResult,
): ImportResult {
  const names = bundle.entries.map((e) => e.name)
  const total = bundle.entries.reduce((n, e) => n + e.bytes, 0)
  const keepRaw = options.keepRaw ?? total <= rawMaxBytes
  const importer = bundleImporter(names)
  if (importer?.bundle) {
    const reading = importer.bundle
    return importResult(() => reading.importBundle(bundle, { ...options, keepRaw }), importer.label)
  }
  const sole = soleTranscriptEntry(names)
  if (sole !== undefined) {
    try {
      const data = bundle.read([sole]).get(sole)
      if (!data) return { ok: false, error: { message: `${sole} cannot be read`, field: sole } }
      const result = importText(bundle.text(data), { ...options, fileName: sole })
      if (result.ok || result.error.message.startsWith(sole)) return result
      return { ok: false, error: { ...result.error, message: `${sole}: ${result.error.message}` } }
    } catch (e) {
      if (e instanceof ImportFailure) return { ok: false, error: { message: e.message, ...(e.field ? { field: e.field } : {}) } }
      throw e
    }
  }
  const listed = names.slice(0, LISTED_ENTRIES)
  const more = names.length > LISTED_ENTRIES ? ', …' : ''
  const holds = listed.length > 0 ? `it holds ${listed.join(', ')}${more}` : 'it is empty'
  const lookedFor = importersInOrder()
    .flatMap((imp) => (imp.bundle ? [`${imp.bundle.lookedFor} (${imp.label})`] : []))
    .join(', ')
  return {
    ok: false,
    error: {
      message:
        `a ${kind} of no format this version reads (${holds}); looked for ${lookedFor}, ` +
        'or one conversations.json or JSON/JSONL transcript',
    },
  }
}
