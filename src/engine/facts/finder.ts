/**
 * The fact finder: the verdict on one fact in a run, read from the run's provenance (fates,
 * origins, passes); it never re-runs compaction. Source: SPEC §6 "Fact finder".
 */
import type { Pass } from '../model'
import { factIndexIn, holdsFact } from './fact-index'
import { factHistory, holdersOf } from './history'
import type { NeededAfterLoss } from './needed'
import { compareKeys, eventKey, indexRun, orderedPasses, passRunsOf, recordedAt, summaryChain, type Chain, type Key, type RunIndex, type FactRun } from './run-index'
import {
  positionNames,
  verdictSentence,
  type FactEvent,
  type FactQuery,
  type FactVerdict,
  type KeptAs,
  type LossEvent,
  type VerdictNames,
} from './verdict'

/** A regex without global/sticky state, so `test` is repeatable. */
function matcher(query: FactQuery): (text: string) => boolean {
  if (typeof query === 'string') return (text) => holdsFact(text, query)
  const re = new RegExp(query.source, query.flags.replace(/[gy]/g, ''))
  return (text) => re.test(text)
}

/** Where `query` first occurs in `text` (UTF-16 offset), or -1. */
function locator(query: FactQuery): (text: string) => number {
  if (typeof query === 'string') return (text) => factIndexIn(text, query)
  const re = new RegExp(query.source, query.flags.replace(/[gy]/g, ''))
  return (text) => text.search(re)
}

/** The verdict's `query`: the string itself, or a RegExp's `/source/flags`. */
function queryLabel(query: FactQuery): string {
  return typeof query === 'string' ? query : String(query)
}

/** How after message `id` holds a fact, read from its origin. */
export function keptAs(run: FactRun, id: string): KeptAs {
  const o = run.origins[id]
  if (o?.kind === 'summary') return 'summary'
  if (o?.kind === 'pinned-facts') return 'pinned'
  return 'verbatim'
}

const AS_RANK: Record<KeptAs, number> = { verbatim: 0, pinned: 1, summary: 2 }

/**
 * The first pass of `chain` whose summary `holds` rejects, or undefined. `memo` (one per
 * `holds`) remembers, per pass list and position, the first rejected position at or after it,
 * so many messages folded into the same passes walk each pass once.
 */
function firstOmitting(
  chain: Chain,
  holds: (t: string) => boolean,
  memo: Map<readonly Pass[], Map<number, number>>,
): Pass | undefined {
  const { list } = chain
  let known = memo.get(list)
  if (!known) memo.set(list, (known = new Map()))
  let k = chain.start
  const walked: number[] = []
  let found: number | undefined
  while (k < list.length) {
    found = known.get(k)
    if (found !== undefined) break
    walked.push(k)
    if (!holds((list[k] as Pass).summary)) {
      found = k
      break
    }
    k++
  }
  const miss = found ?? list.length
  for (const w of walked) known.set(w, miss)
  if (miss < list.length) return list[miss]
  return chain.extra && !holds(chain.extra.summary) ? chain.extra : undefined
}

/** The loss of the copy held by before message `beforeId`, or null when no loss is recorded. */
function lossOf(
  ix: RunIndex,
  beforeId: string,
  holds: (t: string) => boolean,
  memo: Map<readonly Pass[], Map<number, number>>,
): LossEvent | null {
  const fate = ix.run.fates[beforeId]
  const afterText = ix.afterTexts.get(beforeId)
  if (!fate) return null
  switch (fate.kind) {
    case 'kept':
      if (afterText === undefined || holds(afterText)) return null
      return {
        beforeId,
        stage: 'pipeline',
        replacedBy: { kind: 'changed', text: afterText },
      }
    case 'back-referenced': {
      const targetText = ix.afterTexts.get(fate.firstId)
      const targetEvicted =
        targetText === undefined || targetText !== ix.beforeTexts.get(fate.firstId)
      return {
        beforeId,
        stage: fate.stage,
        replacedBy: {
          kind: 'back-reference',
          firstId: fate.firstId,
          text: afterText ?? '',
          targetEvicted,
        },
      }
    }
    case 'pruned':
      return {
        beforeId,
        stage: fate.stage,
        replacedBy: { kind: 'placeholder', text: fate.placeholder },
      }
    case 'slimmed':
      if (afterText !== undefined && holds(afterText)) return null
      return { beforeId, stage: fate.stage, replacedBy: { kind: 'slimmed', text: afterText ?? '' } }
    case 'dropped':
      return { beforeId, stage: fate.stage, replacedBy: { kind: 'dropped', reason: fate.reason } }
    case 'summarized': {
      const chain = summaryChain(ix, beforeId)
      const losing = chain
        ? (firstOmitting(chain, holds, memo) ?? chain.extra ?? chain.list[chain.list.length - 1])
        : undefined
      if (!losing) {
        // The agent's own compaction: its summary is the After message it names.
        const recorded = fate.stage === 'recorded' ? recordedAt(ix.run, fate.pass) : undefined
        return {
          beforeId,
          stage: fate.stage,
          pass: fate.pass,
          replacedBy: {
            kind: 'summary',
            summaryId: fate.summaryId,
            text: fate.stage === 'recorded' ? (afterText ?? ix.afterTexts.get(fate.summaryId) ?? '') : '',
            ...(recorded ? { recorded } : {}),
          },
        }
      }
      const recorded = losing.stage === 'recorded' ? recordedAt(ix.run, losing.pass) : undefined
      return {
        beforeId,
        stage: losing.stage,
        pass: losing.pass,
        replacedBy: { kind: 'summary', summaryId: losing.summaryId, text: losing.summary, ...(recorded ? { recorded } : {}) },
      }
    }
  }
}

/** Options of `findFact`. */
export interface FindOptions {
  /**
   * Also read why a summarized fact went: the losing pass's prompt line that carried it and
   * whether its prompt held it at all (`promptLine`, `inPrompt` on `lost.replacedBy`). Off by
   * default: the facts table asks for thousands of verdicts and shows none of it.
   */
  why?: boolean
  /** How later messages needed the fact after each loss (`NeededFact.needs`), told in its history. */
  needed?: readonly NeededAfterLoss[] | undefined
}

/**
 * The prompt line of pass `pass` that carried the fact: the copy's own line (`[<index>] <role>:
 * …`, the line `messageLine` wrote for Before message `beforeId`) when it holds the fact, else
 * the first line holding it (the previous summary, another copy); when the prompt holds it
 * nowhere, the copy's own line still (what the summarizer got instead, e.g. an earlier stage's
 * placeholder), if it has one. `inPrompt`: whether the prompt holds it at all. Each line is one
 * message (the prompt's line breaks are collapsed).
 */
function promptLineOf(
  prompt: string,
  index: number | undefined,
  at: (text: string) => number,
): { promptLine?: string; inPrompt: boolean } {
  const lineAround = (pos: number) => {
    const start = prompt.lastIndexOf('\n', pos - 1) + 1
    const end = prompt.indexOf('\n', pos)
    return prompt.slice(start, end === -1 ? prompt.length : end)
  }
  let own: string | undefined
  if (index !== undefined) {
    const marker = `[${index}] `
    const pos = prompt.startsWith(marker) ? 0 : prompt.indexOf(`\n${marker}`) + 1
    if (pos > 0 || prompt.startsWith(marker)) own = lineAround(pos)
  }
  const first = at(prompt)
  // Not in the prompt: the copy's own line shows what the summarizer got instead (a placeholder).
  if (first < 0) return own === undefined ? { inPrompt: false } : { promptLine: own, inPrompt: false }
  if (own !== undefined && at(own) >= 0) return { promptLine: own, inPrompt: true }
  return { promptLine: lineAround(first), inPrompt: true }
}

/** `v` with its last loss told why (`FindOptions.why`), when a known pass's summary lost it. */
function withWhy(ix: RunIndex, v: FactVerdict, query: FactQuery): FactVerdict {
  const e = v.lost
  if (e?.replacedBy.kind !== 'summary' || e.pass === undefined || e.stage === 'recorded') return v
  const pass = ix.passesByStage.get(e.stage)?.find((p) => p.pass === e.pass)
  if (!pass || pass.prompt === '') return v
  const lost: LossEvent = {
    ...e,
    replacedBy: { ...e.replacedBy, ...promptLineOf(pass.prompt, ix.beforeIndex.get(e.beforeId), locator(query)) },
  }
  const events = v.events?.map((x) => (x === e ? lost : x))
  return { ...v, lost, ...(events ? { events } : {}) }
}

/**
 * The verdict on one fact in a run:
 * - `survives` when some after message holds it (`where`: which, and whether verbatim, only in
 *   a summary, or in the pinned block);
 * - `lost` when before messages held it and no after message does: each copy's loss is read
 *   from its fate (back-reference, placeholder, slimmed, dropped) or, for a summarized
 *   message, from the chain of passes it went through (the first pass whose summary omits
 *   it); `lost` is the latest of those events in pipeline order — the one that dropped the
 *   last copy;
 * - `never-present` when no before message holds it (`where` may still list after messages,
 *   e.g. a summary that invented it).
 * A string query matches verbatim (case-sensitive), as a whole value (`holdsFact`: `3000` is not in
 * `33000`); a RegExp is tested per message. With
 * `options.why`, a summarized fact's loss also carries its prompt line (`FindOptions`). Pure;
 * never re-runs compaction. Source: SPEC §6 "Fact finder".
 */
export function findFact(run: FactRun | RunIndex, query: FactQuery, options: FindOptions = {}): FactVerdict {
  const ix = 'beforeTexts' in run ? run : indexRun(run)
  const holds = matcher(query)
  const beforeIds = [...ix.beforeTexts].filter(([, t]) => holds(t)).map(([id]) => id)
  const afterIds = [...ix.afterTexts].filter(([, t]) => holds(t)).map(([id]) => id)
  const v = verdictOf(ix, queryLabel(query), holds, beforeIds, afterIds)
  const passes = orderedPasses(ix)
  const summaryAt = passes.flatMap((p, k) => (holds(p.summary) ? [k] : []))
  const runs = passRunsOf(ix, passes, () => beforeIds, () => summaryAt)(0)
  const history = factHistory({ passes, recordedAt: (n) => recordedAt(ix.run, n) }, runs, holdersOf(ix, beforeIds), v, options.needed)
  const told = withHistory(ix, v, history)
  return options.why ? withWhy(ix, told, query) : told
}

/**
 * `v` with its history (`factHistory`), its sentence telling it (`verdictSentence`, messages by
 * position, `namesOf`). The facts table and the finder both word a verdict this way.
 */
export function withHistory(ix: RunIndex, v: FactVerdict, history: FactEvent[]): FactVerdict {
  const out: FactVerdict = { ...v, history }
  out.explanation = verdictSentence({ ...out, copiesLost: v.events?.length ?? 0 }, namesOf(ix))
  return out
}

/** A copy's loss with its pipeline position (`eventKey`), as `verdictOf` sorts them. */
interface KeyedLoss {
  event: LossEvent
  key: Key
}

/**
 * The loss of before message `beforeId`'s copy of a fact that no After text and no pass summary
 * holds (`lossOf` with `holds` false for every text): the same for every such fact, so worked
 * out once per message and run index (a 10 MB session's lost facts hold ~35,000 copies in ~1,300
 * messages). Null when no loss is recorded.
 */
function lossHeldNowhere(ix: RunIndex, beforeId: string): KeyedLoss | null {
  let cache = nowhereCache.get(ix)
  if (!cache) nowhereCache.set(ix, (cache = new Map()))
  let loss = cache.get(beforeId)
  if (loss === undefined) {
    const event = lossOf(ix, beforeId, () => false, new Map())
    loss = event ? { event, key: eventKey(ix, event) } : null
    cache.set(beforeId, loss)
  }
  return loss
}

const nowhereCache = new WeakMap<RunIndex, Map<string, KeyedLoss | null>>()

/**
 * The verdict once the messages holding the fact are known (`beforeIds`, `afterIds`, each in
 * their side's order): `holds` is only asked about after texts and pass summaries.
 * `inNoSummary`: the caller knows no pass summary holds the fact (nor, with `afterIds` empty,
 * any After text), so each copy's loss is the per-message one (`lossHeldNowhere`) and `holds`
 * is not asked.
 */
export function verdictOf(
  ix: RunIndex,
  label: string,
  holds: (text: string) => boolean,
  beforeIds: string[],
  afterIds: readonly string[],
  inNoSummary = false,
): FactVerdict {
  const where = afterIds
    .map((id) => ({ id, as: keptAs(ix.run, id) }))
    .sort((a, b) => AS_RANK[a.as] - AS_RANK[b.as])
  const worded = (v: Omit<FactVerdict, 'explanation'>): FactVerdict => ({
    ...v,
    explanation: verdictSentence({ ...v, copiesLost: v.events?.length ?? 0 }, namesOf(ix)),
  })
  if (beforeIds.length === 0) return worded({ query: label, verdict: 'never-present', beforeIds, where })
  if (where.length > 0) return worded({ query: label, verdict: 'survives', beforeIds, where })
  const memo = new Map<readonly Pass[], Map<number, number>>()
  const keyed: KeyedLoss[] = []
  for (const id of beforeIds) {
    if (inNoSummary) {
      const loss = lossHeldNowhere(ix, id)
      if (loss) keyed.push(loss)
    } else {
      const event = lossOf(ix, id, holds, memo)
      if (event) keyed.push({ event, key: eventKey(ix, event) })
    }
  }
  const events = keyed.sort((a, b) => compareKeys(a.key, b.key)).map((k) => k.event)
  const lost = events[events.length - 1]
  return worded(
    lost
      ? { query: label, verdict: 'lost', beforeIds, where, events, lost }
      : { query: label, verdict: 'lost', beforeIds, where, events },
  )
}

/**
 * The names a run's verdicts give messages (`positionNames`: `Before #21`, `Before #41 → After
 * #7`, as the page and the CLI write them), made once per run index.
 */
function namesOf(ix: RunIndex): VerdictNames {
  let names = namesCache.get(ix)
  if (!names) {
    const afterAt = new Map(ix.run.after.messages.map((m, i) => [m.id, i]))
    names = positionNames(
      ix.beforeIndex,
      (id) => {
        const index = afterAt.get(id)
        return index === undefined ? undefined : { index, origin: ix.run.origins[id] }
      },
      ix.run.passes,
    )
    namesCache.set(ix, names)
  }
  return names
}

const namesCache = new WeakMap<RunIndex, VerdictNames>()
