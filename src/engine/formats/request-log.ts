/*
 * Request + response logs: one API call written as its request body and the response it got —
 * OpenHands' completion logs (`{messages, tools, kwargs, context_window, response, cost,
 * timestamp, latency_sec, raw_messages?}`, software-agent-sdk `llm/utils/telemetry.py`),
 * litellm's StandardLoggingPayload (`{model, messages, response, prompt_tokens, …}`) and
 * `{request:{messages…}, response:{…}}` pairs of logging proxies. The response's message is the
 * last turn of the conversation; its `usage` is what the agent recorded for that request. The
 * OpenAI chat and Anthropic importers read the request body and the reply from here.
 */
import type { DraftUsage, JsonObject } from './util'
import { isObject } from './util'

/** A root split into the request body and the response logged with it. */
export interface RequestLogParts {
  /** The request body (`{messages, tools?, system?, …}`), or the root itself when it is not a log. */
  request: unknown
  /** The logged response (a Chat Completions or Messages response), when the root is a log. */
  response?: JsonObject
}

/** A logged body: the object itself, or its `body` (proxies log `{headers, body}`). */
function body(value: unknown): JsonObject | undefined {
  if (!isObject(value)) return undefined
  return isObject(value.body) ? value.body : value
}

/**
 * Splits a request + response log: `{request:{messages…}, response}` (a `body` under either is
 * read too) → that request and response; `{messages, response}` → the root as the request, with
 * `raw_messages` in place of `messages` when it is an array (OpenHands logs the text-converted
 * prompt of a model without native tool calls as `messages`, the tool-call form as
 * `raw_messages`). Anything else is the request alone. Never modifies `root`.
 */
export function requestLogParts(root: unknown): RequestLogParts {
  if (!isObject(root)) return { request: root }
  const req = body(root.request)
  if (req && Array.isArray(req.messages)) {
    const response = body(root.response)
    return response ? { request: req, response } : { request: req }
  }
  if (Array.isArray(root.messages) && isObject(root.response)) {
    const request = Array.isArray(root.raw_messages) ? { ...root, messages: root.raw_messages } : root
    return { request, response: root.response }
  }
  return { request: root }
}

/** A number field, if it is a finite number. */
function num(o: JsonObject, key: string): number | undefined {
  const v = o[key]
  return typeof v === 'number' && Number.isFinite(v) ? v : undefined
}

/**
 * The usage a log records for its request, at draft position `atIndex` (the response's first
 * message), or undefined without one. Chat Completions `usage{prompt_tokens,
 * completion_tokens}` (cached tokens are part of `prompt_tokens`); Anthropic
 * `usage{input_tokens, cache_creation_input_tokens, cache_read_input_tokens, output_tokens}`
 * (the context is their sum; a Responses `usage{input_tokens, output_tokens}` has no cache
 * fields, its cached tokens being part of `input_tokens`); else the log's own `prompt_tokens` / `completion_tokens`
 * (litellm). `context_window` (OpenHands) when above 0. Sources: formats.md §4.1, §4.3;
 * formats-more.md §9.
 */
export function requestLogUsage(
  root: unknown,
  response: JsonObject | undefined,
  atIndex: number,
): DraftUsage | undefined {
  const usage = response && isObject(response.usage) ? response.usage : undefined
  let context: number | undefined
  let output: number | undefined
  if (usage && num(usage, 'input_tokens') !== undefined && num(usage, 'prompt_tokens') === undefined) {
    context =
      (num(usage, 'input_tokens') ?? 0) +
      (num(usage, 'cache_creation_input_tokens') ?? 0) +
      (num(usage, 'cache_read_input_tokens') ?? 0)
    output = num(usage, 'output_tokens')
  } else if (usage && num(usage, 'prompt_tokens') !== undefined) {
    context = num(usage, 'prompt_tokens')
    output = num(usage, 'completion_tokens')
  } else if (isObject(root) && num(root, 'prompt_tokens') !== undefined) {
    context = num(root, 'prompt_tokens')
    output = num(root, 'completion_tokens')
  }
  if (context === undefined) return undefined
  const out: DraftUsage = { atIndex, context }
  if (output !== undefined) out.output = output
  const window = isObject(root) ? num(root, 'context_window') : undefined
  if (window !== undefined && window > 0) out.window = window
  return out
}
