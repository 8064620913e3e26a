/*
 * The list of importable formats. A format is one importer module, `<format>.ts`, exporting its
 * `FormatImporter<'<id>'>` (types.ts; one per container it reads): id, label, container, detection
 * (`detect`, with `priority` settling which of two accepting detectors wins), request format
 * (validity provider and native export target), `importParsed` (throws `ImportFailure`) and the
 * hints for pickers and errors. Adding a format's code touches exactly:
 *   1. its importer module `<format>.ts`, declaring `FormatImporter<'<id>'>`;
 *   2. its test `<format>.test.ts`, which calls `registryContractViolations(<importer>, <its
 *      fixture>)` (test-helpers.ts; registry.test.ts fails for a registered importer no test
 *      checks that way);
 *   3. one entry in `FORMAT_IMPORTERS` below, with its import.
 * Every format but canonical also ships a bundled sample (index.test.ts), which brings its data:
 *   4. the sample in `public/samples/` and its entry in `public/samples/index.json`;
 *   5. the sample's scenario facts (test/sample-scenarios.ts) and a tool call/result counter for
 *      the format id (test/raw-tool-counts.ts): cross-checks written from the format's
 *      documentation, deliberately apart from the importer.
 * `FormatId` (the type of every message's `source.format`) is derived from these ids, so a new id
 * needs no list elsewhere. Nothing else decides detection, labels, provider or export target:
 * detect.ts runs the detectors in priority order, index.ts imports and lists `SUPPORTED_FORMATS`
 * (both group importers by format through `formatsInOrder`), and `requestFormatOf` answers the
 * pipeline's provider, the exporter's family and the worker's export targets.
 */
import { aiderImporter } from './aider'
import { anthropicImporter } from './anthropic'
import { canonicalImporter } from './canonical'
import { chatgptExportImporter } from './chatgpt-export'
import { claudeAiExportImporter } from './claude-ai-export'
import { claudeCodeImporter, claudeCodeWebImporter } from './claude-code'
import { clineImporter } from './cline'
import { codexRolloutImporter } from './codex'
import { copilotCliImporter } from './copilot-cli'
import { geminiCliImporter, geminiCliJsonlImporter } from './gemini-cli'
import { inspectAIImporter } from './inspect-ai'
import { kimiCliImporter } from './kimi-cli'
import { langchainImporter } from './langchain'
import { openaiChatImporter } from './openai-chat'
import { openaiResponsesImporter } from './openai-responses'
import { openCodeImporter } from './opencode'
import { openHandsEvalImporter, openHandsImporter } from './openhands'
import { piCodingAgentImporter } from './pi-coding-agent'
import { qwenCodeImporter } from './qwen-code'
import { sweAgentImporter } from './swe-agent'
import type { FormatImporter, RequestFormat } from './types'
import { vercelModelImporter } from './vercel-model'
import { vercelUiImporter } from './vercel-ui'

/**
 * Every importable format: registration is one line per importer (a format reading two containers,
 * JSON and JSONL, registers both). Order here does not matter except among equal priorities:
 * detection sorts by `priority`, then by position here (formats.md §2). `as const` keeps each
 * importer's literal id, from which `FormatId` is derived.
 */
export const FORMAT_IMPORTERS = [
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
  clineImporter,
  piCodingAgentImporter,
  openCodeImporter,
  claudeAiExportImporter,
  qwenCodeImporter,
  kimiCliImporter,
] as const

/**
 * Identifiers of the importable formats: the `id` of every registered importer, so registering an
 * importer is what makes its id a format (model.ts re-exports it for `source.format`).
 */
export type FormatId = (typeof FORMAT_IMPORTERS)[number]['id']

/** The registered importers in detection order (priority, then registration order). */
export function importersInOrder(): FormatImporter[] {
  return FORMAT_IMPORTERS.map((imp, i) => ({ imp, i }))
    .sort((a, b) => a.imp.priority - b.imp.priority || a.i - b.i)
    .map((x) => x.imp)
}

/** One format and its importers (one per container it reads), in detection order. */
export interface RegisteredFormat {
  id: FormatId
  /** The first labels the format in pickers and errors. */
  importers: [FormatImporter, ...FormatImporter[]]
}

/**
 * Each registered format once, ordered by its first importer in detection order, with all its
 * importers: what the supported-format list, the formats an error says it tried and the hints
 * are built from.
 */
export function formatsInOrder(): RegisteredFormat[] {
  const byId = new Map<FormatId, RegisteredFormat>()
  for (const imp of importersInOrder()) {
    const seen = byId.get(imp.id)
    if (seen) seen.importers.push(imp)
    else byId.set(imp.id, { id: imp.id, importers: [imp] })
  }
  return [...byId.values()]
}

/** The importer registered for a format id (the first of its containers), if any. */
function importerFor(format: FormatId): FormatImporter | undefined {
  return FORMAT_IMPORTERS.find((imp) => imp.id === format)
}

/**
 * The request body a source format's own provider takes (its importer's `requestFormat`), or
 * undefined for a format without one or not registered: OpenAI chat files are Chat Completions
 * bodies, Anthropic Messages requests and Claude Code sessions Anthropic Messages (the API Claude
 * Code calls), Responses items and Codex rollouts Responses input (Codex calls the Responses API).
 */
export function requestFormatOf(format: FormatId): RequestFormat | undefined {
  return importerFor(format)?.requestFormat ?? undefined
}
