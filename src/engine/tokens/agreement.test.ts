import { readFileSync } from 'node:fs'
import { Tiktoken } from 'js-tiktoken/lite'
import cl100k_base from 'js-tiktoken/ranks/cl100k_base'
import o200k_base from 'js-tiktoken/ranks/o200k_base'
import { describe, expect, it } from 'vitest'
import { importTranscript } from '../formats/index'
import type { Encoding } from '../model'
import { loadCounter } from './count'

/**
 * SPEC §2: gpt-tokenizer is the fast counter, js-tiktoken the reference; both must give
 * identical counts on every bundled sample, in both encodings.
 */

const samplesDir = new URL('../../../public/samples/', import.meta.url)
const gallery: { file: string }[] = JSON.parse(
  readFileSync(new URL('index.json', samplesDir), 'utf8'),
)

/**
 * Every text the counter sees in a sample: message text, readable thinking, tool-call names
 * and arguments, tool schemas.
 */
function textsOf(file: string): string[] {
  const r = importTranscript(readFileSync(new URL(file, samplesDir), 'utf8'), { fileName: file })
  if (!r.ok) throw new Error(`${file}: ${r.error.message}`)
  const texts: string[] = []
  for (const m of r.transcript.messages) {
    if (typeof m.content === 'string') texts.push(m.content)
    else if (m.content) {
      for (const p of m.content) {
        if (p.type === 'text') texts.push(p.text)
        if (p.type === 'thinking' && p.text) texts.push(p.text)
      }
    }
    for (const c of m.toolCalls ?? []) texts.push(c.name, c.arguments)
  }
  // Tool schemas as countToolSchemaTokens serializes them.
  for (const t of r.transcript.tools ?? []) {
    texts.push(
      JSON.stringify({
        name: t.name,
        description: t.description ?? '',
        parameters: t.parameters ?? {},
      }),
    )
  }
  return texts
}

const reference: Record<Encoding, Tiktoken> = {
  o200k_base: new Tiktoken(o200k_base),
  cl100k_base: new Tiktoken(cl100k_base),
}
// Empty allowed and disallowed sets: special-token strings are encoded as ordinary text.
const referenceCount = (encoding: Encoding, text: string) =>
  reference[encoding].encode(text, [], []).length

const encodings: Encoding[] = ['o200k_base', 'cl100k_base']

describe.each(encodings)('gpt-tokenizer and js-tiktoken agree (%s)', (encoding) => {
  it.each(gallery.map((s) => s.file))('on every text of %s', async (file) => {
    const counter = await loadCounter(encoding)
    const texts = textsOf(file)
    expect(texts.length).toBeGreaterThan(0)
    const disagreements = texts
      .map((text, i) => ({
        i,
        fast: counter.count(text),
        ref: referenceCount(encoding, text),
        head: text.slice(0, 40),
      }))
      .filter((d) => d.fast !== d.ref)
    expect(disagreements).toEqual([])
  })

  it('on multilingual text, emoji and whitespace runs', async () => {
    const counter = await loadCounter(encoding)
    for (const text of [
      'Grüße aus Köln',
      '東京都の郵便番号',
      '안녕하세요 👋🏽 family 👨‍👩‍👧',
      '  \n\n\t  x   ',
      'a\u2028b',
    ]) {
      expect(counter.count(text)).toBe(referenceCount(encoding, text))
    }
  })

  it('counts <|endoftext|> as text, not as one special token', async () => {
    const counter = await loadCounter(encoding)
    const text = 'before <|endoftext|> after'
    const n = counter.count(text)
    expect(n).toBe(referenceCount(encoding, text))
    // As a special token the whole marker would be one token; as text it takes several.
    expect(counter.count('<|endoftext|>')).toBe(referenceCount(encoding, '<|endoftext|>'))
    expect(counter.count('<|endoftext|>')).toBeGreaterThan(1)
  })
})
