/**
 * The failure-mode checks of seed 004 on a finished run: goal drift, over-compression, double
 * compression and fabricated summary. Each is a warning naming the messages involved; they
 * read the run's provenance (facts.ts) and never re-run compaction. Source: SPEC §3.5, seed
 * 004 "Failure modes".
 */
import { contentText } from '../content'
import { goalMessage, isOrdinaryUser, latestRequest } from '../facts/classify'
import { findFact, keptAs } from '../facts/finder'
import { findFactSpansMemo, instructionLines, type CandidateFact, type FactKind } from '../facts/patterns'
import { importanceRank } from '../facts/importance'
import { indexRun, type FactRun, type RunIndex } from '../facts/run-index'
import { neededByText } from '../facts/needed'
import { isImportantFact, lostFacts, neededFacts, type NeededFact } from '../facts/table'
import { lossPlace, passName, type KeptAs } from '../facts/verdict'
import { createStringSetMatcher, holdsFact } from '../facts/fact-index'
import type { FailureModeWarning, Pass, RunResult } from '../model'
import { cutCodePoints } from '../util/text'

/** Fact kinds a summary may only repeat, never invent (fabricated summary). */
const CHECKED_KINDS: ReadonlySet<FactKind> = new Set<FactKind>([
  'id',
  'postal-code',
  'url',
  'email',
  'file-path',
  'date',
  'money',
  'quantity',
  'duration',
  'percentage',
  'count',
  'reference',
])

const short = (s: string) => cutCodePoints(s.replace(/\s+/g, ' '), 80)

/** After ids that are summaries (for linking a warning to what replaced the text). */
function summaryIds(ix: RunIndex): string[] {
  return Object.entries(ix.run.origins)
    .filter(([, o]) => o.kind === 'summary')
    .map(([id]) => id)
}

/**
 * Goal drift: the goal (first user message) or the current request (latest user message,
 * cases/17) is no longer verbatim anywhere in the after context. Source: seed 004.
 */
function checkGoalDrift(run: FactRun | RunIndex): FailureModeWarning[] {
  const ix = 'beforeTexts' in run ? run : indexRun(run)
  const out: FailureModeWarning[] = []
  const before = ix.run.before.messages
  const goal = goalMessage(before)
  const latest = latestRequest(before)
  for (const [m, what] of [
    [goal, 'goal'],
    [latest, 'current request'],
  ] as const) {
    if (!m || (what === 'current request' && m === goal)) continue
    if (ix.run.fates[m.id]?.kind === 'kept') continue
    const text = contentText(m.content).trim()
    const verdict = findFact(ix, text)
    if (verdict.verdict !== 'lost') continue
    out.push({
      rule: 'goal-drift',
      message:
        `the ${what} "${short(text)}" (message ${m.id}) is no longer verbatim in context: ` +
        verdict.explanation,
      messageIds: [m.id, ...summaryIds(ix)],
    })
  }
  return out
}

/**
 * Over-compression (seed 004, cases/16): the compaction went too far. One warning each for
 * - a standing rule / instruction line that is lost;
 * - each pass that removed facts a later message needed (`neededFacts`: the user or the
 *   assistant repeating one, referring back to it or asking for it again), naming the pass and
 *   the messages;
 * - important facts (`isImportantFact`) lost from the final context, naming the step that lost
 *   each fact it quotes;
 * - more than `OVER_COMPRESSION_SHARE` of the Before's tokens gone, naming the pass (or stage)
 *   that cut the most.
 */
function checkOverCompression(run: FactRun | RunIndex): FailureModeWarning[] {
  const ix = 'beforeTexts' in run ? run : indexRun(run)
  return [...lostInstructions(ix), ...neededAfterPasses(ix), ...importantFactsLost(ix), ...mostTokensGone(ix)]
}

/** A standing rule / instruction line is lost. */
function lostInstructions(ix: RunIndex): FailureModeWarning[] {
  const out: FailureModeWarning[] = []
  const lines = new Set<string>()
  const kept = new Set<string>()
  for (const m of ix.run.before.messages) {
    if (!isOrdinaryUser(m)) continue
    const unchanged = ix.run.fates[m.id]?.kind === 'kept'
    for (const line of instructionLines(contentText(m.content)))
      (unchanged ? kept : lines).add(line)
  }
  // A line whose message is still there unchanged survives: no scan needed (large transcripts).
  for (const line of kept) lines.delete(line)
  for (const fact of lines) {
    const verdict = findFact(ix, fact)
    if (verdict.verdict !== 'lost') continue
    const replaced = verdict.lost?.replacedBy
    const ids = [...verdict.beforeIds]
    if (replaced?.kind === 'summary') ids.push(replaced.summaryId)
    out.push({
      rule: 'over-compression',
      message: `the instruction "${short(fact)}" is ${verdict.explanation}`,
      messageIds: ids,
    })
  }
  return out
}

/** How many facts a warning quotes before "+N more". */
const QUOTED_FACTS = 3

/** Above this share of the Before's tokens gone (0.95: more than 95%), the run over-compressed. */
const OVER_COMPRESSION_SHARE = 0.95

/** "a", "b", "c", +4 more. */
function quoted(items: readonly string[]): string {
  const shown = items.slice(0, QUOTED_FACTS).join(', ')
  return items.length > QUOTED_FACTS ? `${shown}, +${items.length - QUOTED_FACTS} more` : shown
}

/** Per pass, the facts it removed that a later message needed: one warning per pass. */
function neededAfterPasses(ix: RunIndex): FailureModeWarning[] {
  const byPass = new Map<string, NeededFact[]>()
  for (const n of neededFacts(ix.run)) {
    const key = `${n.neededAfterLoss.stage}\u0000${n.neededAfterLoss.pass}`
    const list = byPass.get(key) ?? []
    list.push(n)
    byPass.set(key, list)
  }
  const out: FailureModeWarning[] = []
  for (const list of byPass.values()) {
    const { stage, pass, atMessage } = (list[0] as NeededFact).neededAfterLoss
    const summaryId = ix.run.passes.find((p) => p.stage === stage && p.pass === pass)?.summaryId
    const facts = list.map(({ fact, neededAfterLoss: n }) => {
      return `"${short(fact)}" (needed at #${n.messageIndex}, ${neededByText(n, short)})`
    })
    // The quoted facts' holders and the messages that needed them.
    const ids = list.slice(0, QUOTED_FACTS).flatMap((n) => [...n.beforeIds, n.neededAfterLoss.messageId])
    out.push({
      rule: 'over-compression',
      message:
        `${passName(stage, pass)}${stage === 'summarize' ? ' of summarize' : ''} (at #${atMessage}) removed ` +
        `${list.length === 1 ? 'a fact' : `${list.length} facts`} a later message needed: ${quoted(facts)}`,
      messageIds: [...new Set([...ids, ...(summaryId ? [summaryId] : [])])],
      neededFacts: list.length,
      neededFactTexts: list.map((n) => n.fact),
    })
  }
  return out
}

/** Important facts lost from the final context: one warning, the most important few quoted with the step that lost each. */
function importantFactsLost(ix: RunIndex): FailureModeWarning[] {
  const { index, lost } = lostFacts(ix.run)
  // Most important first (the goal, constraints, what the user stated, …), then in order of appearance.
  const rank = (i: number) => importanceRank((index.facts[i] as CandidateFact).importance)
  const important = lost.filter((i) => isImportantFact(index.facts[i] as CandidateFact)).sort((a, b) => rank(a) - rank(b) || a - b)
  if (important.length === 0) return []
  const shown = important.slice(0, QUOTED_FACTS).map((i) => {
    const fact = (index.facts[i] as CandidateFact).fact
    const e = findFact(ix, fact).lost
    const where = e ? ` (lost in ${lossPlace(e)})` : ''
    return { text: `"${short(fact)}"${where}`, ids: index.holders[i] ?? [] }
  })
  const more = important.length > QUOTED_FACTS ? `, +${important.length - QUOTED_FACTS} more` : ''
  return [
    {
      rule: 'over-compression',
      message:
        `${important.length === 1 ? '1 important fact is' : `${important.length.toLocaleString('en-US')} important facts are`} ` +
        `lost: ${shown.map((s) => s.text).join(', ')}${more}`,
      messageIds: [...new Set(shown.flatMap((s) => s.ids))],
    },
  ]
}

/** More than 95% of the Before's tokens gone: names the pass (or stage) that cut the most. */
function mostTokensGone(ix: RunIndex): FailureModeWarning[] {
  // A run assembled by hand (a recorded view, a test) may carry no totals.
  const before = (ix.run.before.totals as RunResult['before']['totals'] | undefined)?.tokens ?? 0
  const after = (ix.run.after.totals as RunResult['before']['totals'] | undefined)?.tokens ?? 0
  if (!(before > 0) || before - after <= OVER_COMPRESSION_SHARE * before) return []
  const kept = Math.round((after / before) * 1000) / 10
  let biggest: { name: string; cut: number; id?: string } | undefined
  for (const p of ix.run.passes) {
    const cut = p.tokensBefore - p.tokensAfter
    if (!biggest || cut > biggest.cut)
      biggest = { name: `${passName(p.stage, p.pass)}${p.stage === 'summarize' ? ' of summarize' : ''}`, cut, id: p.summaryId }
  }
  if (!biggest)
    for (const s of ix.run.stages ?? []) {
      const cut = s.tokensBefore - s.tokensAfter
      if (cut > 0 && (!biggest || cut > biggest.cut)) biggest = { name: s.stage, cut }
    }
  const n = (x: number) => x.toLocaleString('en-US')
  return [
    {
      rule: 'over-compression',
      message:
        `the After keeps ${kept}% of the Before's tokens (${n(before)} → ${n(after)}): more than 95% went` +
        (biggest ? `; the largest cut: ${biggest.name} (−${n(biggest.cut)} tokens)` : ''),
      messageIds: biggest?.id ? [biggest.id] : [],
    },
  ]
}

/**
 * Double compression: a fact one pass's summary kept is missing from the context after the
 * next pass (summary of a summary losing it). Only facts some summary held are looked at.
 * Source: seed 004 "summary of summary of summary", SPEC §3.5.
 */
function checkDoubleCompression(run: FactRun | RunIndex): FailureModeWarning[] {
  const ix = 'beforeTexts' in run ? run : indexRun(run)
  const out: FailureModeWarning[] = []
  const passes = [...ix.run.passes]
  const order = (p: Pass) => (ix.stageOrder.get(p.stage) ?? 0) * 1e6 + p.pass
  passes.sort((a, b) => order(a) - order(b))
  // Every fact some summary holds, and the last pass (in this order) whose summary holds it, found
  // in one scan of each summary for all facts: asking every later summary again for each fact a
  // pass dropped was quadratic in the passes of a replay that compacts every turn.
  const factId = new Map<string, number>()
  // Per pass, the ids of its summary's fact spans in order (a summary is scanned for spans once).
  const spanIds = passes.map((p) =>
    Int32Array.from(findFactSpansMemo(p.summary), ({ fact }) => {
      let id = factId.get(fact)
      if (id === undefined) factId.set(fact, (id = factId.size))
      return id
    }),
  )
  const facts = [...factId.keys()]
  const matcher = createStringSetMatcher(facts)
  const lastHolder = new Int32Array(factId.size).fill(-1)
  passes.forEach((p, k) => {
    for (const f of matcher.find(p.summary)) lastHolder[f] = k
  })
  // The finder's verdict of each of these facts as the check reads it (`findFact`: survives when a
  // Before and an After text hold it; `where` how each After message holds it), from one scan of
  // the Before and one of the After for all facts instead of a scan of the whole run per fact.
  const beforeIds: string[][] = Array.from({ length: factId.size }, () => [])
  for (const [id, text] of ix.beforeTexts) for (const f of matcher.find(text)) beforeIds[f]?.push(id)
  const afterAs: KeptAs[][] = Array.from({ length: factId.size }, () => [])
  for (const [id, text] of ix.afterTexts) for (const f of matcher.find(text)) afterAs[f]?.push(keptAs(ix.run, id))
  const reported = new Set<string>()
  let next = passes.length > 1 ? new Set(matcher.find((passes[1] as Pass).summary)) : new Set<number>()
  for (let k = 0; k + 1 < passes.length; k++) {
    const p = passes[k] as Pass
    const q = passes[k + 1] as Pass
    const inQ = next
    if (k + 2 < passes.length) next = new Set(matcher.find((passes[k + 2] as Pass).summary))
    for (const f of spanIds[k] as Int32Array) {
      const fact = facts[f] as string
      if (reported.has(fact) || inQ.has(f)) continue
      const before = beforeIds[f] as string[]
      const where = afterAs[f] as KeptAs[]
      const survives = before.length > 0 && where.length > 0
      // Still verbatim somewhere after q (a message q did not fold) is not a loss.
      if (survives && where.some((as) => as !== 'summary')) continue
      const stillInLaterSummary = (lastHolder[f] as number) >= k + 2
      if (survives && stillInLaterSummary) continue
      reported.add(fact)
      out.push({
        rule: 'double-compression',
        message:
          `"${short(fact)}" was in the summary of ${p.stage} pass ${p.pass} and is missing ` +
          `after pass ${q.pass}${q.stage !== p.stage ? ` of ${q.stage}` : ''}`,
        messageIds: [...before, p.summaryId, q.summaryId].filter((id, i, a) => a.indexOf(id) === i),
      })
    }
  }
  return out
}

/**
 * Fabricated summary: an ID, number, path, date or amount in a pass's summary that appears
 * nowhere in what the pass summarized — the before messages `from`..`upto-1`, the prompt it
 * was given, or an earlier pass's summary. Source: SPEC §3.5, seed 004.
 */
function checkFabricatedSummary(run: FactRun | RunIndex): FailureModeWarning[] {
  const ix = 'beforeTexts' in run ? run : indexRun(run)
  const out: FailureModeWarning[] = []
  const passes = [...ix.run.passes]
  const order = (p: Pass) => (ix.stageOrder.get(p.stage) ?? 0) * 1e6 + p.pass
  passes.sort((a, b) => order(a) - order(b))
  const before = ix.run.before.messages
  // Before messages normally sit at their own index: a pass's range is then a slice, not a scan
  // of the whole transcript per pass (quadratic on long sessions).
  const positional = before.every((m, i) => m.index === i)
  // Per checked fact, the first pass (in this order) whose summary holds it, found in one scan
  // of each summary for all facts: asking every earlier summary again at every pass was
  // quadratic in the passes of a long rolling replay.
  const checked = passes.map((p) =>
    findFactSpansMemo(p.summary).filter((span) => CHECKED_KINDS.has(span.kind)),
  )
  const factId = new Map<string, number>()
  for (const spans of checked)
    for (const span of spans) if (!factId.has(span.fact)) factId.set(span.fact, factId.size)
  const matcher = createStringSetMatcher([...factId.keys()])
  const firstHolder = new Array<number>(factId.size).fill(Infinity)
  passes.forEach((p, k) => {
    for (const f of matcher.find(p.summary)) if ((firstHolder[f] as number) > k) firstHolder[f] = k
  })
  passes.forEach((p, k) => {
    const covered = positional
      ? before.slice(Math.max(0, p.from), Math.max(0, p.upto))
      : before.filter((m) => m.index >= p.from && m.index < p.upto)
    for (const span of checked[k] ?? []) {
      if (holdsFact(p.prompt, span.fact)) continue
      if ((firstHolder[factId.get(span.fact) as number] as number) < k) continue
      if (covered.some((m) => holdsFact(ix.beforeTexts.get(m.id) ?? '', span.fact))) continue
      out.push({
        rule: 'fabricated-summary',
        message:
          `the summary of ${p.stage} pass ${p.pass} states "${short(span.fact)}", which appears ` +
          `nowhere in the messages it summarized (${p.from}–${p.upto - 1}) or in an ` +
          'earlier summary',
        messageIds: [p.summaryId, ...covered.map((m) => m.id)],
      })
    }
  })
  return out
}

/** All four checks, in rule order. Pure. */
export function checkFailureModes(run: FactRun): FailureModeWarning[] {
  const ix = indexRun(run)
  return [
    ...checkGoalDrift(ix),
    ...checkOverCompression(ix),
    ...checkDoubleCompression(ix),
    ...checkFabricatedSummary(ix),
  ]
}
