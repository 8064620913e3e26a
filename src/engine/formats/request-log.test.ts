import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { importTranscript } from './index'
import { requestLogParts, requestLogUsage } from './request-log'

const fixture = (name: string) =>
  readFileSync(new URL(`../../../test/fixtures/formats/${name}`, import.meta.url), 'utf8')

function imported(name: string) {
  const r = importTranscript(fixture(name), { fileName: name })
  if (!r.ok) throw new Error(r.error.message)
  return r.transcript
}

const roles = (t: ReturnType<typeof imported>) => t.messages.map((m) => m.role)
const calls = (t: ReturnType<typeof imported>) =>
  t.messages.map((m) => (m.toolCalls ?? []).map((c) => `${c.id}:${c.name}`).join(','))

describe('request + response logs: the response message is part of the conversation', () => {
  it('an OpenHands completion log: messages, then the response; usage from response.usage', () => {
    // test/fixtures/formats/openhands-completion-log.json: messages = system, user, assistant
    // (toolu_9a), tool; response choices[0].message = text + finish call toolu_9b;
    // usage.prompt_tokens 4187, completion_tokens 61; context_window 200000.
    const t = imported('openhands-completion-log.json')
    expect(t.format).toBe('openai-chat')
    expect(roles(t)).toEqual(['system', 'user', 'assistant', 'tool', 'assistant'])
    expect(calls(t)).toEqual(['', '', 'toolu_9a:terminal', '', 'toolu_9b:finish'])
    expect(t.messages[4]?.content).toBe('The project requires Python 3.11 or newer.')
    expect(t.usage).toEqual([{ atIndex: 4, atMessageId: 'm4', context: 4187, output: 61, window: 200000 }])
    expect(t.tools?.map((s) => s.name)).toEqual(['terminal', 'finish'])
    expect(t.model).toBe('claude-sonnet-4-5-20250929')
    expect(t.warnings).toEqual([])
  })

  it('a model without native tool calls: raw_messages (the tool-call form) is the request', () => {
    // test/fixtures/formats/openhands-completion-log-text-tools.json: `messages` holds the
    // text-converted prompt (no tool_calls, the result as a user message); `raw_messages` the
    // same turns with toolu_9a and its tool result; usage 3120/58, context_window 32768.
    const t = imported('openhands-completion-log-text-tools.json')
    expect(roles(t)).toEqual(['system', 'user', 'assistant', 'tool', 'assistant'])
    expect(calls(t)).toEqual(['', '', 'toolu_9a:terminal', '', 'toolu_9b:finish'])
    expect(t.messages[3]?.toolCallId).toBe('toolu_9a')
    expect(t.usage).toEqual([{ atIndex: 4, atMessageId: 'm4', context: 3120, output: 58, window: 32768 }])
  })

  it("litellm's StandardLoggingPayload: messages + response, tools from model_parameters", () => {
    // test/fixtures/formats/litellm-standard-logging-payload.json: system + user, response with
    // two parallel calls (call_Q1, call_Q2) and null content; usage 912/44.
    const t = imported('litellm-standard-logging-payload.json')
    expect(t.format).toBe('openai-chat')
    expect(roles(t)).toEqual(['system', 'user', 'assistant'])
    expect(calls(t)).toEqual(['', '', 'call_Q1:terminal,call_Q2:terminal'])
    expect(t.usage).toEqual([{ atIndex: 2, atMessageId: 'm2', context: 912, output: 44 }])
    expect(t.tools?.map((s) => s.name)).toEqual(['terminal'])
    expect(t.model).toBe('gpt-4.1-mini')
  })

  it('an Anthropic {request, response} pair: the response message is the last turn', () => {
    // test/fixtures/formats/anthropic-request-response.json: system, user, assistant
    // (toolu_c1), tool_result; response = text + tool_use toolu_c2; usage input 38 + cache
    // creation 120 + cache read 1650 = 1808, output 73.
    const t = imported('anthropic-request-response.json')
    expect(t.format).toBe('anthropic-messages')
    expect(roles(t)).toEqual(['system', 'user', 'assistant', 'tool', 'assistant'])
    expect(calls(t)).toEqual(['', '', 'toolu_c1:read_file', '', 'toolu_c2:read_file'])
    expect(t.usage).toEqual([{ atIndex: 4, atMessageId: 'm4', context: 1808, output: 73 }])
    expect(t.responseOnly).toBeUndefined()
  })

  it('a logged response without a message says so and keeps the request', () => {
    const r = importTranscript(
      JSON.stringify({ messages: [{ role: 'user', content: 'hi' }], response: { error: 'timeout' } }),
    )
    if (!r.ok) throw new Error(r.error.message)
    expect(roles(r.transcript)).toEqual(['user'])
    expect(r.transcript.warnings).toEqual([
      "response: no choices[].message, so only the request's messages are imported",
    ])
    expect(r.transcript.usage).toBeUndefined()
  })

  it('splits proxy logs with a body under request and response', () => {
    const messages = [{ role: 'user', content: 'hi' }]
    const response = { type: 'message', role: 'assistant', content: [] }
    expect(requestLogParts({ request: { body: { messages } }, response: { body: response } })).toEqual({
      request: { messages },
      response,
    })
    expect(requestLogParts({ messages })).toEqual({ request: { messages } })
    expect(requestLogUsage({ prompt_tokens: 7, completion_tokens: 2 }, {}, 1)).toEqual({
      atIndex: 1,
      context: 7,
      output: 2,
    })
  })
})

describe('a Responses-API request + response log', () => {
  it("OpenHands' Responses log: the response output follows the input; usage from it", () => {
    // test/fixtures/formats/openhands-completion-log-responses.json: instructions; input = user
    // message, reasoning, function_call call_r1, its output; response.output = reasoning +
    // function_call call_r2; usage input_tokens 2630 (2048 cached, part of it), output 96;
    // context_window 400000. The response's message takes its first item's id (rs_02).
    const t = imported('openhands-completion-log-responses.json')
    expect(t.format).toBe('openai-responses')
    expect(roles(t)).toEqual(['system', 'user', 'assistant', 'tool', 'assistant'])
    expect(calls(t)).toEqual(['', '', 'call_r1:terminal', '', 'call_r2:terminal'])
    expect(t.usage).toEqual([{ atIndex: 4, atMessageId: 'rs_02', context: 2630, output: 96, window: 400000 }])
    expect(t.model).toBe('gpt-5-codex')
  })
})
