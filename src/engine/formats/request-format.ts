import type { FormatId } from '../model'

/** An API request body shape: what a source format's own provider takes, and an export target. */
export type RequestFormat = 'openai-chat' | 'anthropic' | 'openai-responses'

/**
 * The request format of each source format that has one: OpenAI chat files are Chat Completions
 * bodies, Anthropic Messages requests and Claude Code sessions are Anthropic Messages (the API
 * Claude Code calls), Responses items and Codex rollouts are Responses input (Codex calls the
 * Responses API). The one table the validity provider (pipeline `providerOf`), the exporter's
 * same-family fields (signatures, cache control, encrypted reasoning) and the export targets
 * offered for a source all read. A leaf module: no importer imports. Source: docs/formats.md §4.
 */
export const REQUEST_FORMAT: Readonly<Partial<Record<FormatId, RequestFormat>>> = {
  'openai-chat': 'openai-chat',
  'anthropic-messages': 'anthropic',
  'claude-code': 'anthropic',
  'openai-responses': 'openai-responses',
  'codex-rollout': 'openai-responses',
}
