/*
 * The list of importable formats. A format is one importer module, `<format>.ts`, exporting its
 * `FormatImporter` (types.ts): id and label (`FORMAT_LABELS`, labels.ts), container, detection
 * (`detect`, with `priority` settling which of two accepting detectors wins), request format
 * (validity provider and native export target), `importParsed` (throws `ImportFailure`) and the
 * hints for pickers and errors. Adding a format touches exactly:
 *   1. its importer module `<format>.ts` (plus its `<format>.test.ts` and a fixture);
 *   2. one line in `FORMAT_IMPORTERS` below;
 *   3. its id and label in `FORMAT_LABELS` (labels.ts), the one list the page reads without
 *      loading importers, and `FormatId` (model.ts) if the id is new.
 * Nothing else decides detection, provider or export target: detect.ts runs the detectors in
 * priority order, index.ts imports, and `requestFormatOf` answers the pipeline, exporter and
 * worker view.
 */
import type { FormatId } from '../model'
import { aiderImporter } from './aider'
import { anthropicImporter } from './anthropic'
import { canonicalImporter } from './canonical'
import { chatgptExportImporter } from './chatgpt-export'
import { claudeCodeImporter, claudeCodeWebImporter } from './claude-code'
import { codexRolloutImporter } from './codex'
import { copilotCliImporter } from './copilot-cli'
import { geminiCliImporter, geminiCliJsonlImporter } from './gemini-cli'
import { inspectAIImporter } from './inspect-ai'
import { langchainImporter } from './langchain'
import { openaiChatImporter } from './openai-chat'
import { openaiResponsesImporter } from './openai-responses'
import { openHandsEvalImporter, openHandsImporter } from './openhands'
import { sweAgentImporter } from './swe-agent'
import type { FormatImporter, RequestFormat } from './types'
import { vercelModelImporter } from './vercel-model'
import { vercelUiImporter } from './vercel-ui'

/**
 * Every importable format: registration is one line per importer (a format reading two containers,
 * JSON and JSONL, registers both). Order here does not matter except among equal priorities:
 * detection sorts by `priority`, then by position here (formats.md §2).
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

/** The importer registered for a format id (the first of its containers), if any. */
export function importerFor(format: FormatId): FormatImporter | undefined {
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
