/**
 * The facts table read through the fact index (one scan per text) must say exactly what the
 * finder says fact by fact, on runs with every kind of fate: summarized over several passes,
 * pruned, back-referenced, pinned, kept.
 */
import { describe, expect, it } from 'vitest'
import { findFact } from './finder'
import { extractFacts, findFactSpans } from './patterns'
import { factTable, indexFacts, neededFacts } from './table'
import type { Message, PipelineConfig, RunResult, Transcript } from '../model'
import { runPipeline } from '../pipeline'
import { assistant, indexed, system, toolResult, user } from '../stages/test-helpers'
import { extractiveSummarizer } from '../summarizers/extractive'
import type { Summarizer } from '../stages/types'
import { loadCounter } from '../tokens/count'

const LISTING = Array.from({ length: 40 }, (_, i) => `src/mod${i}/file${i}.py  ${i * 7} lines`).join('\n')

/** A support-and-coding mix: goal, rule, tool calls with a repeated output, dates and IDs. */
function transcript(): Transcript {
  const messages: Message[] = [
    system('s', 'You are a careful agent.'),
    user('u1', 'Refund order ORD-58213 to postal code 94107 are the details; deadline 2025-06-27.'),
    assistant('a2', null, [{ id: 'c1', name: 'ls', arguments: '{"path":"src"}' }]),
    toolResult('t3', 'c1', LISTING, 'ls'),
    user('u4', 'Never refund more than $120.00 without approval. TODO: email ana@example.com.'),
    assistant('a5', null, [{ id: 'c2', name: 'ls', arguments: '{"path":"src"}' }]),
    toolResult('t6', 'c2', LISTING, 'ls'),
  ]
  for (let i = 7; i < 27; i += 2) {
    messages.push(user(`u${i}`, `Step ${i}: check invoice INV-${1000 + i} from ${i} March 2025.`))
    messages.push(assistant(`a${i + 1}`, `Invoice INV-${1000 + i} is fine; see https://x.example/i/${i}.`))
  }
  // A third copy of the listing in the kept tail: its final fate is a back-reference.
  messages.push(assistant('a27', null, [{ id: 'c3', name: 'ls', arguments: '{"path":"src"}' }]))
  messages.push(toolResult('t28', 'c3', LISTING, 'ls'))
  messages.push(assistant('a29', 'Same listing as before.'))
  return { format: 'openai-chat', messages: indexed(messages), recordedCompactions: [], warnings: [] }
}

const config: PipelineConfig = {
  encoding: 'o200k_base',
  summarizer: 'extractive',
  stages: [
    { id: 'dedupe', enabled: true, params: {} },
    { id: 'summarize', enabled: true, params: { keep_last: 4, compact_after: 6 } },
    { id: 'pin-facts', enabled: true, params: { max_facts: 40 } },
  ],
}

async function run(summarizer: Summarizer): Promise<RunResult> {
  return runPipeline(transcript(), config, { counter: await loadCounter('o200k_base'), summarizer })
}

/** Keeps only the first line of each extractive summary: most facts get lost along the way. */
const forgetful: Summarizer = async (req) => (await extractiveSummarizer(req)).split('\n')[0] ?? ''

describe('factTable through the fact index', () => {
  it('a postal code after its label stops at the code (the next word is not part of it)', () => {
    expect(findFactSpans('Customers shipping to postal code 94107 are quoted').map((s) => s.fact)).toEqual([
      'postal code 94107',
    ])
    expect(findFactSpans('ZIP 10115, Postcode SW1A 1AA.').map((s) => s.fact)).toEqual(['ZIP 10115', 'Postcode SW1A 1AA'])
  })

  for (const [name, summarizer] of [
    ['extractive', extractiveSummarizer],
    ['forgetful', forgetful],
  ] as const) {
    it(`${name} summaries: every row's verdict is findFact's, with or without a prebuilt index`, async () => {
      const r = await run(summarizer)
      expect(r.passes.length).toBeGreaterThan(1)
      const kinds = new Set(Object.values(r.fates).map((f) => f.kind))
      expect([...kinds].sort()).toEqual(['back-referenced', 'kept', 'summarized'])
      const facts = extractFacts(r.before.messages)
      const index = indexFacts(r.before.messages, facts)
      const table = factTable(r, index)
      expect(factTable(r)).toEqual(table)
      expect(table.rows.map((row) => row.fact)).toEqual(facts.map((f) => f.fact))
      // The finder tells who needed a fact when it is told (the table knows it from its needed facts).
      const needs = new Map(neededFacts(r).map((n) => [n.index, n.needs]))
      table.rows.forEach((row, i) => expect(row.verdict).toEqual(findFact(r, row.fact, { needed: needs.get(i) })))
      if (summarizer === forgetful) expect(table.totals.lost).toBeGreaterThan(0)
      // The index lists, per fact, exactly the Before messages whose text holds it.
      for (const [i, f] of facts.entries()) expect(index.holders[i]).toEqual(findFact(r, f.fact).beforeIds)
    })
  }

  it('an index of another transcript is rebuilt from its facts, never trusted', async () => {
    const r = await run(forgetful)
    const stale = indexFacts([], extractFacts(r.before.messages))
    expect(factTable(r, stale)).toEqual(factTable(r))
  })
})
