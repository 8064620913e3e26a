/**
 * A summarizer endpoint's answer nested past the nesting limit is an unreadable answer (a
 * `SummarizerError`), never a stack overflow; one within the limit is read as usual.
 */
import { describe, expect, it } from 'vitest'
import { MAX_NESTING } from '../util/nesting'
import { SummarizerError } from './errors'
import type { FetchLike } from './fetch-types'
import { createOpenAICompatibleSummarizer } from './openai-compatible'

const headers = (h: Record<string, string>) => ({ get: (n: string) => h[n.toLowerCase()] ?? null })

/** A fetch answering 200 with `body` as JSON. */
const answering = (body: string): FetchLike => () =>
  Promise.resolve({
    ok: true,
    status: 200,
    statusText: 'OK',
    headers: headers({ 'content-type': 'application/json' }),
    body: null,
    text: () => Promise.resolve(body),
  })

const request = { stage: 'summarize' as const, prompt: 'P', slice: [] }
const summarizer = (body: string) =>
  createOpenAICompatibleSummarizer({ baseUrl: 'http://127.0.0.1:9/v1', model: 'm', fetch: answering(body), stream: false })

describe('an answer nested deep', () => {
  it('an error object of 100,000 levels is an unreadable answer', async () => {
    const deep = `{"error":{"detail":${'['.repeat(100_000)}${']'.repeat(100_000)}}}`
    const answer = summarizer(deep)(request)
    await expect(answer).rejects.toBeInstanceOf(SummarizerError)
    await expect(answer).rejects.not.toThrow(/call stack/)
  })

  it('an answer within the limit is read', async () => {
    const inner = MAX_NESTING - 4 // root, choices, choice, message, then the arrays
    const body = `{"choices":[{"message":{"content":"S","x":${'['.repeat(inner)}${']'.repeat(inner)}}}]}`
    expect(await summarizer(body)(request)).toBe('S')
  })
})
