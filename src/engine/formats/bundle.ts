/*
 * Importing several files as one input — a zip archive (zip.ts) or a folder (the CLI): the
 * registry's importers that declare a `bundle` reading say which bundles are theirs by the entry
 * names (Inspect's `header.json`, a Cline task's `api_conversation_history.json`, …). A bundle no
 * format claims is read through its transcript files (a chat service's data export's
 * `conversations.json`, a zipped session, several sessions dropped together: each a conversation).
 */
import { ImportFailure, importResult } from './failure'
import { importersInOrder } from './registry'
import type { Transcript } from '../model'
import { codePointLength, cutCodePoints } from '../util/text'
import type { FileBundle, FormatImporter, ImportError, ImportOptions, ImportResult } from './types'
import { withConversations } from './util'

/** How many entry names an error about an unknown bundle lists. */
const LISTED_ENTRIES = 5

/** Most code points of an entry name a message lists. */
const LISTED_NAME_CHARS = 80

/**
 * An entry name as a message lists it, on the message's one line: control characters (C0, DEL,
 * C1) as U+FFFD, cut after `LISTED_NAME_CHARS` code points with `…`. A damaged zip directory can
 * hand back names holding raw bytes, line breaks and NULs among them, kilobytes long.
 */
function listedName(name: string): string {
  // eslint-disable-next-line no-control-regex -- matching control characters is the point
  const shown = name.replace(/[\u0000-\u001f\u007f-\u009f]/g, '\ufffd')
  return codePointLength(shown) > LISTED_NAME_CHARS ? `${cutCodePoints(shown, LISTED_NAME_CHARS)}…` : shown
}

/** Names of files that hold a transcript when a bundle is not one format's files. */
const TRANSCRIPT_FILE = /\.(jsonl?|ndjson)$/i

/** The export file chat services name their conversations (ChatGPT's and claude.ai's exports). */
const CONVERSATIONS_FILE = /(^|\/)conversations\.json$/

/** The first registered importer whose bundle reading accepts these entry names, if any. */
function bundleImporter(names: readonly string[]): FormatImporter | undefined {
  return importersInOrder().find((imp) => imp.bundle?.matches(names) === true)
}

/** Most transcript files of a bundle no format claims that are tried (a project folder holds many JSON files). */
const MAX_TRIED = 100

/**
 * The entries a bundle no format claims is read as: its `conversations.json` (a data export),
 * else its JSON/JSONL files (a zipped session, several sessions dropped together). Directory
 * entries and macOS resource forks (`__MACOSX/`) are not files of a session.
 */
function transcriptEntries(names: readonly string[]): string[] {
  const files = names.filter((n) => !n.endsWith('/') && !n.startsWith('__MACOSX/'))
  const conversations = files.filter((n) => CONVERSATIONS_FILE.test(n))
  if (conversations.length === 1) return conversations
  return files.filter((n) => TRANSCRIPT_FILE.test(n)).slice(0, MAX_TRIED)
}

/**
 * Imports the bundle's transcript files one by one (`importText`, each under its own name): one
 * that imports is the transcript; several are its conversations (`withConversations`, titled by
 * the file when untitled), the files that did not import named in a note; none is the first
 * error, prefixed with its entry's name when only one file was tried. Undefined when the bundle
 * holds no transcript file.
 */
function importTranscriptFiles(
  bundle: FileBundle,
  candidates: readonly string[],
  options: ImportOptions,
  importText: (text: string, options: ImportOptions) => ImportResult,
): ImportResult | undefined {
  const imported: Transcript[] = []
  const failed: { name: string; error: ImportError }[] = []
  for (const name of candidates) {
    let data: Uint8Array | undefined
    try {
      data = bundle.read([name]).get(name)
    } catch (e) {
      // An entry too large or compressed unreadably: said, and the others still read.
      if (!(e instanceof ImportFailure)) throw e
      failed.push({ name, error: { message: e.message } })
      continue
    }
    if (!data) continue
    const result = importText(bundle.text(data), { ...options, fileName: name })
    if (result.ok) imported.push(result.transcript.title ? result.transcript : { ...result.transcript, title: name })
    else failed.push({ name, error: result.error })
  }
  if (imported.length === 0) {
    const first = failed[0]
    if (!first) return undefined
    const name = listedName(first.name)
    const named = first.error.message.startsWith(name) ? first.error.message : `${name}: ${first.error.message}`
    if (failed.length === 1) return { ok: false, error: { ...first.error, message: named } }
    return { ok: false, error: { message: `none of its ${failed.length} JSON/JSONL files is a transcript; ${named}` } }
  }
  const transcript = withConversations(imported, 'transcript')
  if (failed.length > 0) {
    const listed = failed.slice(0, LISTED_ENTRIES).map((f) => listedName(f.name)).join(', ')
    const more = failed.length > LISTED_ENTRIES ? ', …' : ''
    transcript.notes = [...(transcript.notes ?? []), `${failed.length} other file(s) are not transcripts: ${listed}${more}`]
  }
  return { ok: true, transcript }
}

/**
 * Imports a bundle (`kind` names it in messages: `zip archive`, `folder`): the format whose
 * `bundle.matches` accepts its entry names reads it, with raw records kept (`source.raw`) when
 * `options.keepRaw` says so or, unset, when the entries total at most `rawMaxBytes`; else its
 * transcript files (`transcriptEntries`) go through `importText` (`importTranscriptFiles`: one
 * is the transcript, several its conversations); else the error "a <kind> of no format this version reads", naming its
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
  const read = importTranscriptFiles(bundle, transcriptEntries(names), { ...options, keepRaw }, importText)
  if (read) return read
  const listed = names.slice(0, LISTED_ENTRIES).map(listedName)
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
