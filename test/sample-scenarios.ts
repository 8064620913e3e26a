/**
 * The bundled samples and the scenario facts each one tells (the samples' index.json
 * descriptions; docs/formats.md §5), for the fact-finder acceptance tests. Node only.
 */
import { readFileSync } from 'node:fs'
import { importBytes } from '../src/engine/formats/index'
import type { Transcript } from '../src/engine/model'

/** The coding-agent scenario: order number, postal code, file path, deadline. */
export const CODING = ['ORD-58213', '94107', 'src/quote/rates.py', '2025-06-27']
/** The support-agent scenario: case id, postal code, date, export path. */
export const SUPPORT = ['A-48213-KQ', '10115', '21 March 2025', '/exports/cases/A-48213-KQ.txt']

/** Scenario facts per bundled sample file. */
export const SCENARIO: Record<string, string[]> = {
  'claude-code.jsonl': CODING,
  'codex-rollout.jsonl': CODING,
  'gemini-cli-session.json': CODING,
  'openhands-events.json': CODING,
  'swe-agent.traj': CODING,
  'aider.chat.history.md': CODING,
  'inspect-ai-eval.json': CODING,
  'copilot-cli-events.jsonl': CODING,
  'cline-task-history.json': CODING,
  'pi-session.jsonl': CODING,
  'opencode-export.json': CODING,
  'openai-chat.json': SUPPORT,
  'openai-chat-legacy-functions.json': SUPPORT,
  'openai-responses.json': SUPPORT,
  'openai-responses-compacted.json': SUPPORT,
  'anthropic-messages.json': SUPPORT,
  'vercel-ai-ui-messages.json': SUPPORT,
  'vercel-ai-model-messages.json': SUPPORT,
  'langchain-messages.json': SUPPORT,
  'chatgpt-export-conversations.json': SUPPORT,
  'claude-ai-export-conversations.json': SUPPORT,
  'qwen-code-session.jsonl': CODING,
  'kimi-cli-context.jsonl': CODING,
}

/** File names of the bundled samples, as public/samples/index.json lists them. */
export const SAMPLE_FILES: string[] = (
  JSON.parse(readFileSync(new URL('../public/samples/index.json', import.meta.url), 'utf8')) as { file: string }[]
).map((s) => s.file)

/** Imports one bundled sample through the real importer; throws with the importer's message on failure. */
export function loadSample(file: string): Transcript {
  const bytes = readFileSync(new URL(`../public/samples/${file}`, import.meta.url))
  const imported = importBytes(new Uint8Array(bytes), { fileName: file })
  if (!imported.ok) throw new Error(`${file}: ${imported.error.message}`)
  return imported.transcript
}
