/**
 * The facts table: each candidate fact of a run and its state through every pass and in the
 * final context, read from the run's provenance. Source: SPEC §6.
 */
import type { Message, Pass, StageId } from '../model'
import { partitionPoint } from '../util/search'
import { createStringSetMatcher, type StringSetMatcher } from './fact-index'
import { verdictOf } from './finder'
import { factPassRuns, passTimeline, type PassRun } from './pass-runs'
import { extractFacts, messageFactText, type CandidateFact } from './patterns'
import { compareKeys, eventKey, isAfter, indexRun, summaryChain, type FactRun, type Key, type RunIndex } from './run-index'
import type { FactVerdict, KeptAs } from './verdict'

/** One row of the facts table. */
export interface FactRow extends CandidateFact {
  /** Its state through the passes, as runs over `FactTable.passes` positions. */
  passRuns: PassRun[]
  /** Its fate in the final context. */
  final: KeptAs | 'lost'
  verdict: FactVerdict
}

/** The facts table of a run: each at-risk fact and its fate through every pass. */
export interface FactTable {
  /** The passes the columns stand for, in pipeline order. */
  passes: { stage: StageId; pass: number; summaryId: string }[]
  rows: FactRow[]
  totals: {
    facts: number
    survive: number
    verbatim: number
    pinned: number
    summaryOnly: number
    lost: number
    /** e.g. "11 of 14 facts survive". */
    text: string
  }
}

/** The run's passes in pipeline order. */
function orderedPasses(ix: RunIndex): Pass[] {
  return [...ix.run.passes].sort((a, b) => compareKeys(eventKey(ix, a), eventKey(ix, b)))
}

/** When before message `id` stopped being verbatim: its first loss or fold, or null. */
function verbatimUntil(ix: RunIndex, id: string): Key | null {
  const fate = ix.run.fates[id]
  if (!fate || fate.kind === 'kept') return null
  if (fate.kind === 'summarized') {
    const chain = summaryChain(ix, id)
    const first = chain ? chain.list[chain.start] : undefined
    return first ? eventKey(ix, first) : eventKey(ix, fate)
  }
  return eventKey(ix, { stage: fate.stage })
}

/**
 * The candidate facts of a transcript and the before messages holding each, verbatim (the
 * same test as `findFact` with a string). Depends on the transcript alone, so a caller running
 * the pipeline again and again over one transcript (the worker) builds it once and passes it to
 * every `factTable`.
 */
export interface FactIndex {
  /** The before messages it was built from (compared by identity in `factTable`). */
  messages: readonly Message[]
  facts: readonly CandidateFact[]
  /** Finds, in one scan of a text, which of `facts` it holds. */
  matcher: StringSetMatcher
  /** Per fact (same order as `facts`): ids of the before messages holding it, in order. */
  holders: string[][]
  /** Before message id → indices (into `facts`) of the facts its text holds, ascending. */
  byMessage: Map<string, number[]>
}

/**
 * Builds the fact index of `messages` (normally a transcript's Before side): one scan per
 * message for all facts. `facts` defaults to `extractFacts(messages)`. Pure. It keeps the facts
 * table well under a second on a 5,000-message session.
 */
export function indexFacts(
  messages: readonly Message[],
  facts: readonly CandidateFact[] = extractFacts(messages),
): FactIndex {
  const matcher = createStringSetMatcher(facts.map((f) => f.fact))
  const holders: string[][] = facts.map(() => [])
  const byMessage = new Map<string, number[]>()
  for (const m of messages) {
    const hits = matcher.find(messageFactText(m))
    byMessage.set(m.id, hits)
    for (const i of hits) holders[i]?.push(m.id)
  }
  return { messages, facts, matcher, holders, byMessage }
}

/**
 * The state of each fact after each pass and in the final context, read from the run's
 * provenance: after pass k a fact is `verbatim` when a message holding it was already in the
 * conversation (rolling replay: index ≤ the pass's `atMessage`) and not yet folded, pruned or
 * replaced; else `summary` when pass k's summary holds it; else `lost` (or `not-yet` when no
 * message holding it existed yet). Totals count `final !== 'lost'` as surviving; each row's
 * `verdict` equals `findFact(run, row.fact)`.
 *
 * `facts` defaults to `extractFacts(run.before.messages)`; pass a `FactIndex` of
 * `run.before.messages` (`indexFacts`) to skip extracting and scanning the Before again (an
 * index of other messages is rebuilt from its facts). Every text is scanned once for all facts
 * (`createStringSetMatcher`), never once per fact. A row's states through the passes are
 * runs (`factPassRuns`), so the table grows with facts + passes, never facts × passes. Pure.
 */
export function factTable(run: FactRun, facts?: readonly CandidateFact[] | FactIndex): FactTable {
  const fi =
    facts && 'matcher' in facts
      ? facts.messages === run.before.messages
        ? facts
        : indexFacts(run.before.messages, facts.facts)
      : indexFacts(run.before.messages, facts)
  const ix = indexRun(run)
  const passes = orderedPasses(ix)
  // Which facts each after text and pass summary holds, keyed by the text itself: `lossOf` and
  // the pass loop below test exactly these strings.
  const textHits = new Map<string, Set<number>>()
  const afterHolders: string[][] = fi.facts.map(() => [])
  for (const m of run.after.messages) {
    const text = ix.afterTexts.get(m.id) ?? ''
    const origin = run.origins[m.id]
    const source = origin === undefined ? m.id : origin.kind === 'original' ? origin.beforeId : undefined
    // An unchanged original has its Before text: reuse that scan.
    const same = source !== undefined && ix.beforeTexts.get(source) === text
    const hits = (same ? fi.byMessage.get(source) : undefined) ?? fi.matcher.find(text)
    textHits.set(text, new Set(hits))
    for (const i of hits) afterHolders[i]?.push(m.id)
  }
  for (const p of passes) {
    if (!textHits.has(p.summary)) textHits.set(p.summary, new Set(fi.matcher.find(p.summary)))
  }
  // A before message's first loss is the same for every fact it holds.
  const untilCache = new Map<string, Key | null>()
  const until = (id: string) => {
    let u = untilCache.get(id)
    if (u === undefined) {
      u = verbatimUntil(ix, id)
      untilCache.set(id, u)
    }
    return u
  }
  const passKeys = passes.map((p) => eventKey(ix, p))
  const timeline = passTimeline(
    passes.map((p) => p.stage === 'summarize'),
    passes.map((p) => p.atMessage),
  )
  // The positions whose summary holds each fact, ascending: one walk over every summary's hits.
  const summaryAt: number[][] = fi.facts.map(() => [])
  passes.forEach((p, k) => {
    for (const i of textHits.get(p.summary) ?? []) summaryAt[i]?.push(k)
  })
  // The first position at or after a loss key: passes are in key order.
  const firstAtOrAfter = (u: Key | null) =>
    u ? partitionPoint(0, passes.length, (k) => !isAfter(u, passKeys[k] as Key)) : passes.length
  const rows: FactRow[] = fi.facts.map((f, i) => {
    const holds = (text: string) => {
      const hits = textHits.get(text)
      return hits ? hits.has(i) : text.includes(f.fact)
    }
    const carriers = fi.holders[i] ?? []
    const verdict = verdictOf(ix, f.fact, holds, [...carriers], afterHolders[i] ?? [])
    const passRuns = factPassRuns(
      timeline,
      carriers.map((id) => ({ at: ix.beforeIndex.get(id) ?? 0, until: firstAtOrAfter(until(id)) })),
      summaryAt[i] ?? [],
    )
    const final: KeptAs | 'lost' = verdict.where[0]?.as ?? 'lost'
    return { ...f, passRuns, final, verdict }
  })
  const count = (k: KeptAs | 'lost') => rows.filter((r) => r.final === k).length
  const survive = rows.length - count('lost')
  return {
    passes: passes.map((p) => ({ stage: p.stage, pass: p.pass, summaryId: p.summaryId })),
    rows,
    totals: {
      facts: rows.length,
      survive,
      verbatim: count('verbatim'),
      pinned: count('pinned'),
      summaryOnly: count('summary'),
      lost: count('lost'),
      text: `${survive.toLocaleString('en-US')} of ${rows.length.toLocaleString('en-US')} facts survive`,
    },
  }
}
