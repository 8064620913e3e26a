import type { FormatId } from '../model'

/**
 * Human labels of every format id. A leaf module (no imports of importers) so importer files can
 * use it without an import cycle through the registry.
 */
export const FORMAT_LABELS: Readonly<Record<FormatId, string>> = {
  'openai-chat': 'OpenAI Chat Completions',
  'anthropic-messages': 'Anthropic Messages',
  'claude-code': 'Claude Code session (JSONL)',
  'openai-responses': 'OpenAI Responses',
  'codex-rollout': 'Codex CLI rollout (JSONL)',
  'gemini-cli': 'Gemini CLI session',
  'vercel-ui': 'Vercel AI SDK UIMessage[]',
  'vercel-model': 'Vercel AI SDK ModelMessage[]',
  langchain: 'LangChain message dicts',
  'inspect-ai': 'Inspect AI eval log',
  openhands: 'OpenHands event stream',
  'swe-agent': 'SWE-agent trajectory',
  aider: 'aider chat history (Markdown)',
  'copilot-cli': 'GitHub Copilot CLI session (JSONL)',
  'chatgpt-export': 'ChatGPT data export (conversations.json)',
  canonical: 'canonical transcript',
}
