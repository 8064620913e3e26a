import type { FormatId, Transcript } from '../model'
import { importAnthropic } from './anthropic'
import { canonicalImporter } from './canonical'
import { claudeCodeWebImporter, importClaudeCodeRecords } from './claude-code'
import { codexRolloutImporter } from './codex'
import { chatgptExportImporter } from './chatgpt-export'
import { copilotCliImporter } from './copilot-cli'
import { detectJsonlRecords, detectJsonRoot } from './detect-heuristics'
import type { JsonlRecord } from './json'
import { ImportFailure } from './failure'
import { geminiCliImporter, geminiCliJsonlImporter } from './gemini-cli'
import { FORMAT_LABELS } from './labels'
import { importOpenAIChat } from './openai-chat'
import { openaiResponsesImporter } from './openai-responses'
import { vercelModelImporter } from './vercel-model'
import { vercelUiImporter } from './vercel-ui'
import { aiderImporter } from './aider'
import { inspectAIImporter } from './inspect-ai'
import { langchainImporter } from './langchain'
import { openHandsEvalImporter, openHandsImporter } from './openhands'
import { sweAgentImporter } from './swe-agent'
import type { ImportError, ImportResult } from './types'
import { isObject } from './util'

/** Options every importer receives. */
export interface ImportOptions {
  /** The file's name: `.jsonl` / `.ndjson` selects JSONL parsing directly. */
  fileName?: string
  /** Keep each message's original record in `source.raw` (default true; off for huge inputs). */
  keepRaw?: boolean
}

/**
 * One importable format (the registry contract). Each format lives in
 * `src/engine/formats/<format>.ts`, exports one `FormatImporter`, and is registered by one line in
 * `FORMAT_IMPORTERS`.
 */
export interface FormatImporter {
  id: FormatId
  label: string
  /**
   * How the text is parsed before detection: one JSON value (`input` is the root), JSONL records
   * (`input` is `JsonlRecord[]`, good lines only — the registry reports bad lines), or raw text
   * (aider markdown; `input` is the string without BOM).
   */
  container: 'json' | 'jsonl' | 'text'
  /** Order in detection (formats.md §2): lower runs first. */
  priority: number
  /**
   * true for a confident match on the parsed input (JSON root / JsonlRecord[] / text), else the
   * first mismatch as a short reason (one line, names the field or line).
   */
  detect(input: unknown): true | string
  /**
   * Builds the transcript from the same parsed input. May throw an ImportError-shaped object
   * `{message, line?, field?}` (see `importFailure`); the caller turns it into an ImportResult.
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
}

/** Unwraps an `ImportResult` of the older importers (they return results instead of throwing). */
function unwrap(result: ImportResult): Transcript {
  if (result.ok) return result.transcript
  throw new ImportFailure(result.error.message, result.error)
}

/** Claude Code sessions (formats.md §4.4). Bad lines are reported by the registry. */
const claudeCodeImporter: FormatImporter = {
  id: 'claude-code',
  label: FORMAT_LABELS['claude-code'],
  container: 'jsonl',
  priority: 3,
  description: 'Claude Code session log, ~/.claude/projects/<project>/<sessionId>.jsonl',
  extensions: ['.jsonl'],
  detect(input) {
    const v = detectJsonlRecords(input as JsonlRecord[])
    if ('mismatch' in v) return v.mismatch
    return v.format === 'claude-code' ? true : `looks like ${FORMAT_LABELS[v.format]}`
  },
  closeness(input) {
    const records = (input as JsonlRecord[]).slice(0, 50)
    const keyed = records.filter((r) => 'sessionId' in r.value || 'parentUuid' in r.value)
    // 0.1 baseline: the generic JSONL fallback whose mismatch is quoted when nothing is closer.
    return records.length === 0 ? 0.1 : 0.1 + (0.8 * keyed.length) / records.length
  },
  importParsed(input, options) {
    const records = input as JsonlRecord[]
    return unwrap(
      importClaudeCodeRecords({ records, bad: [], lines: records.length }, rootOptions(options)),
    )
  },
}

/** Anthropic Messages request bodies (formats.md §4.3). */
const anthropicImporter: FormatImporter = {
  id: 'anthropic-messages',
  label: FORMAT_LABELS['anthropic-messages'],
  container: 'json',
  priority: 11,
  description: 'Anthropic Messages API request body {system?, messages, tools?}',
  extensions: ['.json'],
  detect: (input) => verdictFor('anthropic-messages', input),
  importParsed: (input, options) => unwrap(importAnthropic(input, rootOptions(options))),
}

/** OpenAI Chat Completions, the fallback for anything "OpenAI-compatible" (formats.md §4.1). */
const openaiChatImporter: FormatImporter = {
  id: 'openai-chat',
  label: FORMAT_LABELS['openai-chat'],
  container: 'json',
  priority: 12,
  description:
    'OpenAI Chat Completions request body {messages, tools?} or a messages array ' +
    '(legacy functions too)',
  extensions: ['.json'],
  detect: (input) => verdictFor('openai-chat', input),
  closeness: (input) =>
    Array.isArray(input) || (isObject(input) && Array.isArray(input.messages)) ? 0.5 : 0.1,
  importParsed: (input, options) => unwrap(importOpenAIChat(input, rootOptions(options))),
}

function verdictFor(format: FormatId, root: unknown): true | string {
  const v = detectJsonRoot(root)
  if ('mismatch' in v) return v.mismatch
  return v.format === format ? true : `looks like ${FORMAT_LABELS[v.format]}`
}

function rootOptions(options: ImportOptions): { keepRaw?: boolean } {
  return options.keepRaw === undefined ? {} : { keepRaw: options.keepRaw }
}

/**
 * Every importable format: registration is one line per format (re-read before editing; edit only
 * your line). Order here does not matter: detection sorts by `priority` (formats.md §2).
 */
export const FORMAT_IMPORTERS: FormatImporter[] = [
  canonicalImporter,
  claudeCodeImporter,
  claudeCodeWebImporter,
  anthropicImporter,
  openaiChatImporter,
  openaiResponsesImporter,
  codexRolloutImporter,
  geminiCliImporter,
  geminiCliJsonlImporter,
  vercelUiImporter,
  vercelModelImporter,
  langchainImporter,
  inspectAIImporter,
  openHandsImporter,
  openHandsEvalImporter,
  sweAgentImporter,
  aiderImporter,
  copilotCliImporter,
  chatgptExportImporter,
]

/** The registered importers in detection order (priority, then registration order). */
export function importersInOrder(): FormatImporter[] {
  return FORMAT_IMPORTERS.map((imp, i) => ({ imp, i }))
    .sort((a, b) => a.imp.priority - b.imp.priority || a.i - b.i)
    .map((x) => x.imp)
}

/** The importer registered for a format id, if any. */
export function importerFor(format: FormatId): FormatImporter | undefined {
  return FORMAT_IMPORTERS.find((imp) => imp.id === format)
}

/**
 * Runs one importer on its parsed input and turns whatever it throws into an `ImportResult`: an
 * ImportError-shaped throw keeps its message/line/field; any other exception (a bug) becomes
 * `import failed: …`. An import without messages is an error, never an empty transcript. Never
 * throws.
 */
export function runImporter(
  importer: FormatImporter,
  input: unknown,
  options: ImportOptions,
): ImportResult {
  try {
    const transcript = importer.importParsed(input, options)
    if (transcript.messages.length === 0) {
      return { ok: false, error: { message: `no messages found (${importer.label})` } }
    }
    return { ok: true, transcript }
  } catch (e) {
    const shaped = isObject(e) && !(e instanceof Error) && typeof e.message === 'string'
    if (e instanceof ImportFailure || shaped) {
      const error: ImportError = { message: String(e.message) }
      if (typeof e.line === 'number') error.line = e.line
      if (typeof e.field === 'string') error.field = e.field
      return { ok: false, error }
    }
    return {
      ok: false,
      error: { message: `import failed: ${e instanceof Error ? e.message : String(e)}` },
    }
  }
}
