import type { FormatId, Transcript } from '../model'

/**
 * A typed import error: one line naming where and why. `line` is 1-based (JSONL line, or the
 * line in a JSON text where parsing failed); `field` a JSON path such as `messages[3].role`.
 */
export interface ImportError {
  message: string
  line?: number
  field?: string
  /** Formats that were tried, for "unknown format" errors. */
  tried?: FormatId[]
  /**
   * Unknown / not-yet-supported format only: the one line naming the tool the input looks like
   * (e.g. `this looks like an iFlow CLI session: not supported yet`, or `unknown transcript format:
   * closest match Anthropic Messages: messages[2].content: …`); the formats tried are in `tried` /
   * `formats`, for a page that lists them apart.
   */
  reason?: string
  /** Unknown / not-yet-supported format only: each importable format and what its files are. */
  formats?: FormatHint[]
}

/** An importable format as an error lists it: its label and what was looked for. */
export interface FormatHint {
  id: FormatId
  label: string
  /** What files of this format look like (the importer's description), one line. */
  lookedFor: string
}

/** Result of an import: never throws at the UI (SPEC §1). */
export type ImportResult = { ok: true; transcript: Transcript } | { ok: false; error: ImportError }

/**
 * An API request body shape: what a source format's own provider takes, and an export target.
 * `openai-chat` = Chat Completions, `anthropic` = Anthropic Messages, `openai-responses` =
 * Responses input.
 */
export type RequestFormat = 'openai-chat' | 'anthropic' | 'openai-responses'

/** Options every importer receives. */
export interface ImportOptions {
  /** The file's name: `.jsonl` / `.ndjson` selects JSONL parsing directly. */
  fileName?: string
  /** Keep each message's original record in `source.raw` (default true; off for huge inputs). */
  keepRaw?: boolean
}

/** One file of a `FileBundle`. Sizes in bytes. */
export interface BundleEntry {
  /** Its path inside the archive or folder, `/`-separated, without a leading `./`. */
  name: string
  /** Uncompressed size (bytes). */
  bytes: number
  /** PKWARE APPNOTE 4.4.5 method for a zip entry (0 stored, 8 deflate, 93 Zstandard, …); 0 for a file. */
  compression: number
}

/**
 * Several files read as one input: a zip archive (zip.ts) or a folder (the CLI's input). Formats
 * that keep a session in several files (an Inspect `.eval`, a Cline task folder, OpenCode's
 * storage, an OpenHands conversation folder) read them through this.
 */
export interface FileBundle {
  /** Every file, in the archive's or folder's order (a name may repeat in an appended zip). */
  entries: readonly BundleEntry[]
  /**
   * The named entries' bytes (names not in the bundle are left out of the result). Throws an
   * `ImportFailure` naming the entry when it is over the size limit, compressed with a method
   * that cannot be read (e.g. Zstandard), or corrupt.
   */
  read(names: readonly string[]): Map<string, Uint8Array>
  /**
   * One entry's bytes as JSON: decoded as UTF-8 (a BOM skipped) and parsed. Throws an
   * `ImportFailure` naming the entry and the line/column of invalid JSON.
   */
  json(name: string, data: Uint8Array): unknown
  /** One entry's bytes as UTF-8 text (a BOM skipped). */
  text(data: Uint8Array): string
}

/** How a format reads a `FileBundle` (a zip archive or a folder of its files). */
interface BundleReading {
  /** true when the bundle's entry names are this format's (e.g. an Inspect log's `header.json`). */
  matches(names: readonly string[]): boolean
  /** The entry names `matches` looks for, for the error about a bundle no format reads: `header.json`. */
  lookedFor: string
  /**
   * Builds the transcript from the bundle. Throws `ImportFailure` naming the entry and the
   * reason; `keepRaw` unset means keep.
   */
  importBundle(bundle: FileBundle, options: ImportOptions): Transcript
}

/**
 * One importable format (the registry contract). Each format lives in
 * `src/engine/formats/<format>.ts`, exports its `FormatImporter` (one per container it reads), and
 * is registered by one line in `FORMAT_IMPORTERS` (registry.ts). `Id` is the format's id as a
 * literal: an importer is declared `FormatImporter<'my-format'>` (an annotation, not inferred),
 * which is how `FormatId` (registry.ts) learns the id without a cycle; `FormatImporter` alone is
 * any registered importer.
 */
export interface FormatImporter<Id extends string = FormatId> {
  /** The format's id, `source.format` of every message it imports; shared by its containers. */
  id: Id
  /**
   * Human label, e.g. `Claude Code session (JSONL)`; the first importer of an id labels the format
   * in pickers and errors.
   */
  label: string
  /**
   * How the text is parsed before detection: one JSON value (`input` is the root), JSONL records
   * (`input` is `JsonlRecord[]`, good lines only — the registry reports bad lines), or raw text
   * (aider markdown; `input` is the string without BOM).
   */
  container: 'json' | 'jsonl' | 'text'
  /**
   * Order in detection (formats.md §2): lower runs first, so where two detectors would both accept
   * an input (a Vercel ModelMessage list is also a list of chat roles) the lower priority wins.
   */
  priority: number
  /**
   * The request body the format's own provider takes, or null for none: decides the validity
   * provider (`anthropic` → Anthropic rules, else OpenAI), which same-family fields the exporter
   * keeps (signatures, cache control, encrypted reasoning) and the native export target offered
   * next to canonical JSON. Importers sharing an `id` declare the same value.
   */
  requestFormat: RequestFormat | null
  /**
   * true for a confident match on the parsed input (JSON root / JsonlRecord[] / text), else the
   * first mismatch as a short reason (one line, names the field or line). The only detection: no
   * other module decides which format an input is.
   */
  detect(input: unknown): true | string
  /**
   * Builds the transcript from the same parsed input. Throws `ImportFailure` (failure.ts) with a
   * one-line reason and line/field; `runImporter` turns it into an ImportResult.
   */
  importParsed(input: unknown, options: ImportOptions): Transcript
  /**
   * Optional: how much of this format's signature the input has, 0..1. Only used to pick which
   * format's mismatch an "unknown format" error quotes (the closest match); default 0.
   */
  closeness?(input: unknown): number
  /** Optional: what files of this format look like (pickers, the CLI's format list). */
  description?: string
  /** Optional: typical file extensions with the dot; default from `container`. */
  extensions?: string[]
  /**
   * Optional: how the format reads several files at once — a zip archive or a folder holding its
   * files (bundle.ts picks the first registered importer whose `matches` accepts the names).
   */
  bundle?: BundleReading
}
