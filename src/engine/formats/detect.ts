import type { FormatId } from '../model'
import { findTooDeep, MAX_YAML_NESTING } from '../util/nesting'
import {
  jsonError,
  lineColumnAt,
  looksLikeJsonl,
  parseJson,
  parseJsonl,
  tooDeepReason,
  type JsonlParse,
  type JsonlRecord,
} from './json'
import { formatsInOrder, importersInOrder } from './registry'
import type { FormatHint, FormatImporter, ImportError } from './types'
import { lookAlikeMessage, lookAlikeOf, type LookAlike } from './look-alikes'
import { isObject } from './util'
import { Composer, Lexer, Parser, type CST } from 'yaml'

/** The first importer of each format id, in detection order (`FORMAT_IMPORTERS`). */
function firstImporters(): FormatImporter[] {
  return formatsInOrder().map((f) => f.importers[0])
}

/** The formats this version imports, in detection order (from `FORMAT_IMPORTERS`). */
export const IMPORTABLE_FORMATS: readonly FormatId[] = firstImporters().map((i) => i.id)

/**
 * What detection found: the importer plus its parsed input (so nothing is parsed twice); for JSONL
 * also the whole parse, whose skipped lines become warnings.
 */
export type Detection =
  | {
      ok: true
      format: FormatId
      importer: FormatImporter
      input: unknown
      jsonl?: JsonlParse
    }
  | { ok: false; error: ImportError }

/** Every importable format with what its files look like (its first importer's label). */
function formatHints(): FormatHint[] {
  return firstImporters().map((imp) => ({
    id: imp.id,
    label: imp.label,
    lookedFor: imp.description ?? imp.label,
  }))
}

/** A candidate's verdict: the importer and `true` or its first mismatch. */
interface Attempt {
  importer: FormatImporter
  verdict: true | string
}

/** Runs the detectors of one container in priority order; stops at the first confident match. */
function attempt(container: FormatImporter['container'], input: unknown): Attempt[] {
  const attempts: Attempt[] = []
  for (const importer of importersInOrder()) {
    if (importer.container !== container) continue
    let verdict: true | string
    try {
      verdict = importer.detect(input)
    } catch (e) {
      // A detector bug must not hide the other formats.
      verdict = `detector failed: ${e instanceof Error ? e.message : String(e)}`
    }
    attempts.push({ importer, verdict })
    if (verdict === true) break
  }
  return attempts
}

/**
 * The "unknown format" error. Its one line names the tool the input looks like: another tool's
 * log this version does not read (`look-alikes.ts`: "this looks like an iFlow CLI session: not
 * supported yet"), else the closest of our formats with its first mismatch (highest `closeness`,
 * ties to detection order). Every format tried stays on the error (`tried`, `formats`) for a page
 * that lists them apart.
 */
function unknown(attempts: readonly Attempt[], input: unknown, line?: number): ImportError {
  const container = attempts[0]?.importer.container
  const lookAlike = container === 'json' || container === 'jsonl' ? lookAlikeOf(container, input, undefined) : undefined
  if (lookAlike) return refusal(lookAlike)
  let closest: { attempt: Attempt; score: number } | undefined
  for (const a of attempts) {
    let score: number
    try {
      score = a.importer.closeness?.(input) ?? 0
    } catch {
      score = 0
    }
    if (!closest || score > closest.score) closest = { attempt: a, score }
  }
  let mismatch = 'no format matched'
  if (closest && typeof closest.attempt.verdict === 'string')
    mismatch = `closest match ${closest.attempt.importer.label}: ${closest.attempt.verdict}`
  return withFormats(`unknown transcript format: ${mismatch}`, line)
}

/** An error whose one line is `reason`, with every importable format tried (`tried`, `formats`). */
function withFormats(reason: string, line?: number): ImportError {
  const hints = formatHints()
  const error: ImportError = { message: reason, tried: hints.map((h) => h.id), reason, formats: hints }
  if (line !== undefined) error.line = line
  return error
}

/** The refusal of another tool's log (`look-alikes.ts`), named after the tool; no line: the whole file is. */
function refusal(lookAlike: LookAlike): ImportError {
  return withFormats(lookAlikeMessage(lookAlike))
}

/**
 * A JSONL detection's hit, or the refusal when the records carry the signature of another tool's
 * log this format would misread (an iFlow session accepted as Claude Code).
 */
function jsonlHit(importer: FormatImporter, jsonl: JsonlParse): Detection {
  const lookAlike = lookAlikeOf('jsonl', jsonl.records, importer.id)
  if (lookAlike) return { ok: false, error: refusal(lookAlike) }
  return { ok: true, format: importer.id, importer, input: jsonl.records, jsonl }
}

/**
 * A JSON detection's hit, or the refusal when the document carries the signature of another tool's
 * file this format would misread (an Open Interpreter conversation accepted as OpenAI Chat).
 */
function jsonHit(importer: FormatImporter, input: unknown): Detection {
  const lookAlike = lookAlikeOf('json', input, importer.id)
  if (lookAlike) return { ok: false, error: refusal(lookAlike) }
  return { ok: true, format: importer.id, importer, input }
}

/**
 * Detects which JSONL format a parse's good records are (formats.md §2, JSONL importers in
 * priority order). Errors: "the file is empty" (no non-empty line), "none of the N JSONL lines
 * could be read" (line = the first bad one), or the unknown-format error with `tried` and the
 * closest match's first mismatch (line = the first record's). Never throws.
 */
export function detectJsonl(jsonl: JsonlParse): Detection {
  if (jsonl.records.length === 0) {
    if (jsonl.lines === 0) return { ok: false, error: { message: 'the file is empty' } }
    const first = jsonl.bad[0] ?? ''
    const m = /^line (\d+)/.exec(first)
    const error: ImportError = {
      message: `none of the ${jsonl.lines} JSONL lines could be read; first: ${first}`,
    }
    if (m) error.line = Number(m[1])
    return { ok: false, error }
  }
  const attempts = attempt('jsonl', jsonl.records)
  const hit = attempts.find((a) => a.verdict === true)
  if (hit) return jsonlHit(hit.importer, jsonl)
  return { ok: false, error: unknown(attempts, jsonl.records, jsonl.records[0]?.line) }
}

/**
 * Detects the format of a transcript text (formats.md §2) through the registered importers and
 * returns the importer with its parsed input. Order: text formats (aider Markdown) on the raw
 * text; `.jsonl` / `.ndjson` file names go straight to JSONL; otherwise the text is parsed as one
 * JSON document — JSON formats are tried, then, for an object, the JSONL formats on it as a
 * one-line file (a lone Claude Code record) — and when it does not parse but looks like JSONL, line
 * by line. Errors (invalid JSON with line and column; unknown format with `tried` and the closest
 * match's first mismatch) are `ImportError`s. Never throws. A
 * leading BOM is ignored.
 */
export function detectFormat(text: string, options: { fileName?: string } = {}): Detection {
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text
  if (body.trim() === '') return { ok: false, error: { message: 'the file is empty' } }
  const textHit = attempt('text', body).find((a) => a.verdict === true)
  if (textHit) {
    const { importer } = textHit
    return { ok: true, format: importer.id, importer, input: body }
  }
  if (options.fileName && /\.(jsonl|ndjson)$/i.test(options.fileName))
    return detectJsonl(parseJsonl(body))
  const parsed = parseJson(body)
  if (parsed.ok) {
    const root = parsed.value
    const attempts = attempt('json', root)
    const hit = attempts.find((a) => a.verdict === true)
    if (hit) return jsonHit(hit.importer, root)
    if (isObject(root)) {
      const records: JsonlRecord[] = [{ line: 1, value: root }]
      const lone = attempt('jsonl', records).find((a) => a.verdict === true)
      if (lone) return jsonlHit(lone.importer, { records, bad: [], lines: 1 })
    }
    return { ok: false, error: unknown(attempts, root) }
  }
  // A text that parsed but nests too deep is JSON: neither JSONL nor YAML.
  if (parsed.tooDeep) return { ok: false, error: jsonError(parsed) }
  if (looksLikeJsonl(body)) return detectJsonl(parseJsonl(body))
  const yamlDoc = yamlRoot(body, options.fileName)
  if (yamlDoc && 'error' in yamlDoc) return { ok: false, error: yamlDoc.error }
  const yaml = yamlDoc?.value
  if (yaml !== undefined) {
    const attempts = attempt('json', yaml)
    const hit = attempts.find((a) => a.verdict === true)
    if (hit) return jsonHit(hit.importer, yaml)
    return { ok: false, error: unknown(attempts, yaml) }
  }
  return { ok: false, error: jsonError(parsed) }
}

/**
 * Longest text (UTF-16 code units) tried as YAML: demonstrations are small, and a large log that
 * merely opens with `key:` should get its error at once, not after a slow YAML parse.
 */
const YAML_MAX_CHARS = 4_000_000

/**
 * Most copies of anchored nodes a YAML document's aliases may expand to (the `yaml` package's
 * `maxAliasCount`): a "billion laughs" document, whose aliases nest aliases, is refused before it
 * expands.
 */
const YAML_MAX_ALIAS_COUNT = 100

/** The one-line YAML error `this YAML file …` (`line` set when known). */
function yamlError(what: string, line?: number): { error: ImportError } {
  const error: ImportError = { message: `this YAML file ${what}` }
  if (line !== undefined) error.line = line
  return { error }
}

/**
 * The CST documents of a YAML text, read by the `yaml` package's lexer and parser (both
 * iterative), or the nesting at which reading stopped: the parser's open collections are counted
 * as it goes and reading stops once they pass `MAX_YAML_NESTING`, so a hostile text is never
 * composed (the composer recurses once a level) and costs at most one pass.
 */
function yamlTokens(body: string): CST.Token[] | { tooDeepAt: number } {
  const parser = new Parser()
  const tokens: CST.Token[] = []
  for (const lexeme of new Lexer().lex(body)) {
    for (const token of parser.next(lexeme)) tokens.push(token)
    // The stack holds the document, then one entry per open collection (and the scalar at its top).
    if (parser.stack.length - 1 > MAX_YAML_NESTING) {
      const top = parser.stack[parser.stack.length - 1]
      return { tooDeepAt: top && 'offset' in top ? top.offset : 0 }
    }
  }
  for (const token of parser.end()) tokens.push(token)
  return tokens
}

/** A `yaml` package error's reason without its position and code snippet (one line). */
function yamlReason(message: string): string {
  const first = (message.split('\n')[0] ?? '').replace(/\s*at line \d+, column \d+:?$/, '').trim()
  return first.length > 100 ? `${first.slice(0, 99)}…` : first || 'invalid YAML'
}

/**
 * The value of a YAML document holding a transcript's JSON shape (SWE-agent writes its
 * demonstrations as YAML: `sweagent traj-to-demo`), undefined when `body` does not look like
 * YAML, or the one-line YAML error when it looks like YAML but cannot be read. Looks like YAML: a
 * `.yaml`/`.yml` file, or a text that opens with a `key:` line — never a text starting with `{` or
 * `[` (a cut-off JSON file keeps its JSON error). Parsed by the `yaml` package (YAML 1.2, no
 * custom tags) after its nesting is checked (`yamlTokens`); refused, each in YAML's words: a named
 * file longer than `YAML_MAX_CHARS` (an unnamed one gets the JSON error at once), nesting past
 * `MAX_YAML_NESTING` (`nests more than 250 levels deep at line 3`), a syntax error (`has a syntax
 * error at line 2, column 5: …`), aliases expanding past `YAML_MAX_ALIAS_COUNT` copies, several
 * documents, and a document that is a plain value rather than a mapping or a list.
 */
function yamlRoot(body: string, fileName: string | undefined): { value: unknown } | { error: ImportError } | undefined {
  if (/^\s*[[{]/.test(body)) return undefined
  const named = fileName !== undefined && /\.ya?ml$/i.test(fileName)
  const firstLine = body
    .slice(0, 4096)
    .split('\n')
    .find((l) => l.trim() !== '' && !l.trimStart().startsWith('#'))
  if (!named && !/^[A-Za-z_][\w-]*:(\s|$)/.test(firstLine ?? '')) return undefined
  if (body.length > YAML_MAX_CHARS) {
    if (!named) return undefined
    return yamlError(`is longer than ${YAML_MAX_CHARS.toLocaleString('en-US')} characters, the most read as YAML`)
  }
  const tokens = yamlTokens(body)
  if (!Array.isArray(tokens)) {
    const { line } = lineColumnAt(body, tokens.tooDeepAt)
    return yamlError(
      `nests more than ${MAX_YAML_NESTING.toLocaleString('en-US')} levels deep at line ${line}; the limit is ${MAX_YAML_NESTING.toLocaleString('en-US')}`,
      line,
    )
  }
  const docs = Array.from(new Composer().compose(tokens, true, body.length))
  if (docs.length > 1) return yamlError(`holds ${docs.length} documents; a transcript is one`)
  const doc = docs[0]
  const problem = doc?.errors[0]
  if (problem) {
    const line = problem.linePos?.[0].line ?? lineColumnAt(body, problem.pos[0]).line
    const column = problem.linePos?.[0].col ?? lineColumnAt(body, problem.pos[0]).column
    return yamlError(`has a syntax error at line ${line}, column ${column}: ${yamlReason(problem.message)}`, line)
  }
  let value: unknown
  try {
    value = doc?.toJS({ maxAliasCount: YAML_MAX_ALIAS_COUNT })
  } catch (e) {
    const message = e instanceof Error ? e.message : String(e)
    if (/excessive alias count/i.test(message))
      return yamlError(
        `has aliases that expand to more than ${YAML_MAX_ALIAS_COUNT} copies of their anchors ` +
          '(a "billion laughs" document); refused',
      )
    return yamlError(`cannot be read: ${yamlReason(message)}`)
  }
  if (!isObject(value) && !Array.isArray(value))
    return yamlError('holds a single value, not a mapping or a list')
  // Aliases can repeat a collection inside itself's copies: the result is checked like a JSON file.
  const deep = findTooDeep(value)
  if (deep) {
    const error: ImportError = { message: `this YAML file ${tooDeepReason(deep)}` }
    if (deep.path !== '') error.field = deep.path.replace(/…$/, '')
    return { error }
  }
  return { value }
}
