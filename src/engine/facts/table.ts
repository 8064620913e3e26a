/**
 * The facts table: each candidate fact of a run and its state through every pass and in the
 * final context, read from the run's provenance. Source: SPEC §6.
 */
import type { Message, ProvenanceStage } from '../model'
import { createStringSetMatcher, holdsFact, type StringSetMatcher } from './fact-index'
import { verdictOf, withHistory } from './finder'
import { factHistory, holdersOf } from './history'
import { isNoiseFact } from './importance'
import { mentionsOf, neededAfterEachLoss, neededAfterLoss, neededText, reReadAfterLoss, type Mentions, type NeededAfterLoss, type ReReadAfterLoss } from './needed'
import type { PassRun } from './pass-runs'
import { extractFacts, messageFactText, type CandidateFact } from './patterns'
import { indexRun, orderedPasses, passRunsOf, recordedAt, type FactRun } from './run-index'
import type { FactVerdict, KeptAs } from './verdict'

/** One row of the facts table. */
export interface FactRow extends CandidateFact {
  /** Its state through the passes, as runs over `FactTable.passes` positions. */
  passRuns: PassRun[]
  /** Its fate in the final context. */
  final: KeptAs | 'lost'
  verdict: FactVerdict
  /** When a pass took it out of the context and a later user or assistant message needed it (`neededAfterLoss`). */
  neededAfterLoss?: NeededAfterLoss
  /** When a pass took it out and a tool brought it back: re-work, not a need (`reReadAfterLoss`). */
  reReadAfterLoss?: ReReadAfterLoss
}

/** The facts table of a run: each at-risk fact and its fate through every pass. */
export interface FactTable {
  /** The passes the columns stand for, in pipeline order. */
  passes: { stage: ProvenanceStage; pass: number; summaryId: string }[]
  rows: FactRow[]
  /** Counts of the at-risk facts (rows that are not noise, `isNoiseFact`), and of the noise rows. */
  totals: {
    facts: number
    /** Rows that are noise: in `rows`, in none of the other counts. */
    noise: number
    survive: number
    verbatim: number
    pinned: number
    summaryOnly: number
    lost: number
    /** e.g. "11 of 14 facts survive". */
    text: string
    /** Distinct fact texts needed after a pass removed them (of the rows with `neededAfterLoss`). */
    needed: number
    /** e.g. "2 facts were needed after compaction removed them: 94107, ORD-58213" (`neededText`). */
    neededText: string
  }
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
 * Whether a fact counts as important: every fact its importance tier does not call noise
 * (`isNoiseFact`). The one test of "important" in the sweep, the over-compression warning and
 * the facts needed after a loss.
 */
export function isImportantFact(fact: CandidateFact): boolean {
  return !isNoiseFact(fact)
}

/**
 * The facts of `run` no After message holds though some Before message does — the finder's
 * `lost` verdicts (`factTable(run).rows` with `final: 'lost'`) — as indices into the fact index,
 * ascending, with that index. Scans each After text once for all facts (an unchanged original
 * reuses its Before scan). `facts`: as `neededFacts`. Pure.
 */
export function lostFacts(run: FactRun, facts?: FactIndex): { index: FactIndex; lost: number[] } {
  const fi = facts && facts.messages === run.before.messages ? facts : defaultIndexOf(run.before.messages)
  const kept = new Uint8Array(fi.facts.length)
  const beforeTexts = new Map<string, string>()
  for (const m of run.before.messages) beforeTexts.set(m.id, messageFactText(m))
  for (const m of run.after.messages) {
    const text = messageFactText(m)
    const origin = run.origins[m.id]
    const source = origin === undefined ? m.id : origin.kind === 'original' ? origin.beforeId : undefined
    const same = source !== undefined && beforeTexts.get(source) === text
    for (const i of (same ? fi.byMessage.get(source) : undefined) ?? fi.matcher.find(text)) kept[i] = 1
  }
  const lost: number[] = []
  fi.holders.forEach((h, i) => {
    if (h.length > 0 && !kept[i]) lost.push(i)
  })
  return { index: fi, lost }
}

/** The mentions of an index's facts (`mentionsOf`), made once per index; only important facts are candidates. */
function mentionsOfIndex(fi: FactIndex): Mentions {
  let m = mentionCache.get(fi)
  if (!m) {
    m = mentionsOf(fi.messages, fi.facts, fi.holders)
    // Noise (a listing's dates, a test run's durations) is not at risk: re-reading it needs nothing.
    m.candidates = m.candidates.filter((i) => isImportantFact(fi.facts[i] as CandidateFact))
    m.reReadCandidates = m.reReadCandidates.filter((i) => isImportantFact(fi.facts[i] as CandidateFact))
    mentionCache.set(fi, m)
  }
  return m
}

const mentionCache = new WeakMap<FactIndex, Mentions>()

/**
 * The fact index of a Before (`indexFacts` with the default facts), made once per messages array
 * and kept while that array lives (weakly): the needed-facts check of every run and the worker's facts
 * table share it instead of each building its own.
 */
export function defaultIndexOf(messages: readonly Message[]): FactIndex {
  let fi = defaultIndexCache.get(messages)
  if (!fi) defaultIndexCache.set(messages, (fi = indexFacts(messages)))
  return fi
}

const defaultIndexCache = new WeakMap<readonly Message[], FactIndex>()

/** A fact needed after it was lost, as `neededFacts` lists it. */
export interface NeededFact {
  fact: string
  kind: CandidateFact['kind']
  /** Its position in the fact index (the facts table's row order). */
  index: number
  /** The Before messages holding it verbatim, in order. */
  beforeIds: string[]
  neededAfterLoss: NeededAfterLoss
  /** The first need after each of its losses, in order (`neededAfterEachLoss`): what its history tells. */
  needs: NeededAfterLoss[]
}

/**
 * The facts of `run` needed after a pass removed them, in fact order: exactly the facts table's
 * rows with `neededAfterLoss` (`factTable(run, facts)`), without the verdicts and the After scan
 * the table makes — only the facts some later message mentions (`Mentions.candidates`) are
 * followed through the passes, so a run costs a scan of its pass summaries for those facts.
 * `facts`: a `FactIndex` of `run.before.messages`; by default one built once per Before
 * (remembered for the messages array, so the runs of one transcript share it). Pure; the answer
 * is remembered per run and index (the same array for every caller: do not mutate it).
 */
export function neededFacts(run: FactRun, facts?: FactIndex): NeededFact[] {
  const fi = facts && facts.messages === run.before.messages ? facts : defaultIndexOf(run.before.messages)
  const held = neededCache.get(run)
  if (held?.index === fi) return held.needed
  const needed = neededFactsOf(run, fi)
  neededCache.set(run, { index: fi, needed })
  return needed
}

/**
 * The last `neededFacts` answer per run (weakly) with the index it was made with: the run's
 * failure-mode checks, its facts table and a sweep cell ask for the same run. Shared: callers
 * never mutate it.
 */
const neededCache = new WeakMap<FactRun, { index: FactIndex; needed: NeededFact[] }>()

function neededFactsOf(run: FactRun, fi: FactIndex): NeededFact[] {
  if (run.passes.length === 0) return []
  const mentions = mentionsOfIndex(fi)
  const candidates = mentions.candidates
  if (candidates.length === 0) return []
  const ix = indexRun(run)
  const passes = orderedPasses(ix)
  const matcher = candidateMatcher(fi, mentions)
  const summaryAt = new Map<number, number[]>()
  const hitsOf = new Map<string, number[]>()
  passes.forEach((p, k) => {
    let hits = hitsOf.get(p.summary)
    if (!hits) hitsOf.set(p.summary, (hits = matcher.find(p.summary).map((j) => candidates[j] as number)))
    for (const i of hits) {
      const list = summaryAt.get(i)
      if (list) list.push(k)
      else summaryAt.set(i, [k])
    }
  })
  const runsOf = passRunsOf(ix, passes, (i) => fi.holders[i] ?? [], (i) => summaryAt.get(i) ?? [])
  const needed = neededAfterLoss(mentions, fi.facts, candidates, passes, runsOf)
  const each = neededAfterEachLoss(mentions, fi.facts, [...needed.keys()], passes, runsOf)
  return [...needed].map(([i, n]) => {
    const f = fi.facts[i] as CandidateFact
    return { fact: f.fact, kind: f.kind, index: i, beforeIds: [...(fi.holders[i] ?? [])], neededAfterLoss: n, needs: each.get(i) ?? [n] }
  })
}

/** A matcher of the candidate facts only (positions into `Mentions.candidates`), made once per index. */
function candidateMatcher(fi: FactIndex, mentions: Mentions): StringSetMatcher {
  let m = candidateMatcherCache.get(fi)
  if (!m) {
    m = createStringSetMatcher(mentions.candidates.map((i) => (fi.facts[i] as CandidateFact).fact))
    candidateMatcherCache.set(fi, m)
  }
  return m
}

const candidateMatcherCache = new WeakMap<FactIndex, StringSetMatcher>()

/**
 * The row of fact `f` with its pass states and verdict; its final fate is the verdict's first
 * place. Fields are copied by name: an object spread of the 15,578 facts of the 10 MB bench
 * session cost 30 ms, the named copy 1 ms.
 */
function factRow(f: CandidateFact, passRuns: PassRun[], verdict: FactVerdict): FactRow {
  return {
    fact: f.fact,
    kind: f.kind,
    messageIds: f.messageIds,
    origin: f.origin,
    importance: f.importance,
    passRuns,
    final: verdict.where[0]?.as ?? 'lost',
    verdict,
  }
}

/**
 * The verdict of a fact held exactly where the fact of `shared` is (same Before and After
 * messages and summaries): the same verdict, places and sentence (its words never name the
 * fact), with its own query and Before ids.
 */
function verdictFor(shared: FactVerdict, query: string, beforeIds: string[]): FactVerdict {
  const v: FactVerdict = { query, verdict: shared.verdict, beforeIds, where: shared.where, explanation: shared.explanation }
  if (shared.lost !== undefined) v.lost = shared.lost
  if (shared.events !== undefined) v.events = shared.events
  if (shared.history !== undefined) v.history = shared.history
  return v
}

/**
 * The state of each fact after each pass and in the final context, read from the run's
 * provenance: after pass k a fact is `verbatim` when a message holding it was already in the
 * conversation (rolling replay: index ≤ the pass's `atMessage`) and not yet folded, pruned or
 * replaced; else `summary` when pass k's summary holds it; else `lost` (or `not-yet` when no
 * message holding it existed yet). Totals count `final !== 'lost'` as surviving; each row's
 * `verdict` equals `findFact(run, row.fact)`.
 *
 * `facts` defaults to `extractFacts(run.before.messages)` (the index `defaultIndexOf` keeps for
 * that Before, shared with the run's checks); pass a `FactIndex` of
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
      : facts
        ? indexFacts(run.before.messages, facts)
        : defaultIndexOf(run.before.messages)
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
  // The positions whose summary holds each fact, ascending: one walk over every summary's hits.
  const summaryAt: number[][] = fi.facts.map(() => [])
  passes.forEach((p, k) => {
    for (const i of textHits.get(p.summary) ?? []) summaryAt[i]?.push(k)
  })
  const runsOf = passRunsOf(ix, passes, (i) => fi.holders[i] ?? [], (i) => summaryAt[i] ?? [])
  // Facts held by the same Before and After messages and the same pass summaries get the same
  // verdict (its words never name the fact) and the same pass states: worked out once per such
  // group (15,578 facts, 3,121 groups on the 10 MB bench session), shared read-only.
  const groups = new Map<string, { verdict: FactVerdict; passRuns: PassRun[] }>()
  const history = { passes, recordedAt: (n: number) => recordedAt(run, n) }
  const rows: FactRow[] = fi.facts.map((f, i) => {
    const carriers = fi.holders[i] ?? []
    const afterIds = afterHolders[i] ?? []
    const key = `${carriers.join('\u0001')}\u0000${afterIds.join('\u0001')}\u0000${(summaryAt[i] ?? []).join()}`
    let group = groups.get(key)
    if (group) return factRow(f, group.passRuns, verdictFor(group.verdict, f.fact, carriers.slice()))
    // A text outside the scanned ones is tested for this fact alone: its verdict is not shared.
    let scanned = true
    const holds = (text: string) => {
      const hits = textHits.get(text)
      if (hits) return hits.has(i)
      scanned = false
      return holdsFact(text, f.fact)
    }
    const inNoSummary = (summaryAt[i] ?? []).length === 0
    const passRuns = runsOf(i)
    const verdict = verdictOf(ix, f.fact, holds, carriers.slice(), afterIds, inNoSummary)
    group = { verdict: withHistory(ix, verdict, factHistory(history, passRuns, holdersOf(ix, carriers), verdict)), passRuns }
    if (scanned) groups.set(key, group)
    return factRow(f, group.passRuns, group.verdict)
  })
  // The facts needed after a loss, as the run's checks already listed them (`neededFacts`, the same rows).
  const needed = neededFacts(run, fi)
  for (const n of needed) {
    const row = rows[n.index] as FactRow
    row.neededAfterLoss = n.neededAfterLoss
    // Its history also tells who asked for it.
    const told = factHistory(history, row.passRuns, holdersOf(ix, fi.holders[n.index] ?? []), row.verdict, n.needs)
    row.verdict = withHistory(ix, row.verdict, told)
  }
  // What a tool brought back after a loss: re-work, shown apart from the needed facts.
  if (passes.length > 0) {
    const mentions = mentionsOfIndex(fi)
    for (const [i, r] of reReadAfterLoss(mentions, mentions.reReadCandidates, passes, (i) => (rows[i] as FactRow).passRuns))
      (rows[i] as FactRow).reReadAfterLoss = r
  }
  const neededTexts = needed.map((n) => n.fact)
  // Totals count the at-risk facts: noise (`isNoiseFact`) is counted apart.
  const atRisk = rows.filter((r) => !isNoiseFact(r))
  const count = (k: KeptAs | 'lost') => atRisk.filter((r) => r.final === k).length
  const survive = atRisk.length - count('lost')
  return {
    passes: passes.map((p) => ({ stage: p.stage, pass: p.pass, summaryId: p.summaryId })),
    rows,
    totals: {
      facts: atRisk.length,
      noise: rows.length - atRisk.length,
      survive,
      verbatim: count('verbatim'),
      pinned: count('pinned'),
      summaryOnly: count('summary'),
      lost: count('lost'),
      text: `${survive.toLocaleString('en-US')} of ${atRisk.length.toLocaleString('en-US')} facts survive`,
      needed: new Set(neededTexts).size,
      neededText: neededText(neededTexts),
    },
  }
}
