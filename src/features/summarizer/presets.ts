import type { SummarizerId } from '../../engine/model'

/** A known endpoint: its protocol and base URL. */
export interface EndpointPreset {
  label: string
  summarizer: Extract<SummarizerId, 'openai-compatible' | 'anthropic'>
  baseUrl: string
  /** A model to suggest when none is typed yet (local servers serve whatever was pulled: none). */
  model?: string
}

/** Endpoint presets; Ollama, LM Studio and vLLM speak the OpenAI chat-completions protocol. */
export const ENDPOINT_PRESETS: readonly EndpointPreset[] = [
  { label: 'OpenAI', summarizer: 'openai-compatible', baseUrl: 'https://api.openai.com/v1', model: 'gpt-5-mini' },
  { label: 'Ollama', summarizer: 'openai-compatible', baseUrl: 'http://localhost:11434/v1', model: 'llama3.2' },
  { label: 'LM Studio', summarizer: 'openai-compatible', baseUrl: 'http://localhost:1234/v1' },
  { label: 'vLLM', summarizer: 'openai-compatible', baseUrl: 'http://localhost:8000/v1' },
  { label: 'Anthropic', summarizer: 'anthropic', baseUrl: 'https://api.anthropic.com', model: 'claude-haiku-4-5' },
]
