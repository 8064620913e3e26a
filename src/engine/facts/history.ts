/**
 * A fact's history through a run: when it entered the conversation, each compaction that took it
 * out of the context, each later message that asked for it, and each message that brought it back
 * — the whole story behind "why did my agent forget X?", for a simulation's passes and for the
 * compactions a file records alike (a recorded run's passes are the agent's own compactions,
 * analysis/recorded.ts `recordedPasses`). Read from the fact's pass states (`PassRun`, the facts
 * table's), its Before holders, the run's final verdict and, when known, the mention that needed
 * it (`NeededAfterLoss`). Pure; words live in verdict.ts (`historySentence`). Source: SPEC §6.
 */
import type { Pass, Role } from '../model'
import { isSummaryMessage } from './classify'
import type { NeededAfterLoss } from './needed'
import type { NeededFact } from './table'
import type { PassRun } from './pass-runs'
import type { RunIndex } from './run-index'
import type { FactEvent, FactVerdict, RecordedAt } from './verdict'

/** A Before message holding the fact, as the history reads it. */
export interface FactHolder {
  id: string
  /** Its Before index (`Message.index`). */
  index: number
  role: Role
  /** A summary message (an agent's recorded summary in the Before): it carries the fact, nobody states it there. */
  isSummary: boolean
}

/** What `factHistory` reads of a run: its passes in pipeline order, and each recorded pass's record. */
export interface HistoryPasses {
  passes: readonly Pick<Pass, 'stage' | 'pass' | 'atMessage'>[]
  /** The agent's record of recorded pass `pass` (1-based), for its name. */
  recordedAt?: (pass: number) => RecordedAt | undefined
}

/**
 * The history of one fact, in message order: `entered` at its first holder; `lost` at each pass
 * position where its state (`runs`, over `p.passes`) becomes `lost` (its holders folded or left
 * behind and that pass's summary silent); `back` at the first holder (not a summary) after each
 * loss's boundary (`atMessage`) — a message that brought the value back into the context, before
 * a later pass or after the last one (a verdict of `survives` can hide such a loss); `needed` at
 * each of `needed`'s `messageIndex` (the user or assistant message that asked for it after each
 * loss, `neededAfterEachLoss`; when it holds the value verbatim it is also the `back`, reported
 * once, as `needed`). A loss the passes
 * do not show (pruning, a back-reference, the send-ready cleanup) is the final `lost` event, from
 * `verdict.lost`, when the verdict is `lost` and no pass left it lost. `holders` in any order.
 * O(runs + holders). Pure.
 */
export function factHistory(
  p: HistoryPasses,
  runs: readonly PassRun[],
  holders: readonly FactHolder[],
  verdict: Pick<FactVerdict, 'verdict' | 'lost'>,
  needed: readonly NeededAfterLoss[] = [],
): FactEvent[] {
  const stated = holders.filter((h) => !h.isSummary).sort((a, b) => a.index - b.index)
  const first = [...holders].sort((a, b) => a.index - b.index)[0]
  const out: FactEvent[] = []
  if (!first) return out
  out.push({ kind: 'entered', messageId: first.id, index: first.index, role: first.role })
  // The first stated holder after a boundary: what brought the fact back.
  const firstAfter = (t: number) => stated.find((h) => h.index > t)
  let lostAt: number | null = null
  let open = false
  const comeBack = (h: FactHolder) => {
    out.push({ kind: 'back', messageId: h.id, index: h.index, role: h.role })
    open = false
  }
  for (const run of runs) {
    if (run.state === 'lost') {
      if (open) continue
      const pass = p.passes[run.from]
      if (!pass) continue
      const e: Extract<FactEvent, { kind: 'lost' }> = { kind: 'lost', stage: pass.stage, pass: pass.pass, atMessage: pass.atMessage }
      const recorded = pass.stage === 'recorded' ? p.recordedAt?.(pass.pass) : undefined
      if (recorded) e.recorded = recorded
      out.push(e)
      lostAt = pass.atMessage
      open = true
    } else if (run.state === 'verbatim' && open && lostAt !== null) {
      const h = firstAfter(lostAt)
      if (h) comeBack(h)
      else open = false
    } else if (run.state === 'summary' && open) {
      // A later summary holds it again (it came back in between and was summarized): back by the holder.
      const h = lostAt === null ? undefined : firstAfter(lostAt)
      if (h) comeBack(h)
      else open = false
    }
  }
  if (open && lostAt !== null) {
    const h = firstAfter(lostAt)
    if (h) comeBack(h)
  }
  if (!open && verdict.verdict === 'lost' && verdict.lost) {
    const e = verdict.lost
    const last: Extract<FactEvent, { kind: 'lost' }> = { kind: 'lost', stage: e.stage }
    if (e.pass !== undefined) last.pass = e.pass
    if (e.replacedBy.kind === 'summary' && e.replacedBy.recorded) last.recorded = e.replacedBy.recorded
    if (!isSameLoss(out, last)) out.push(last)
  }
  for (const n of needed) placeNeeded(out, n)
  return out
}

/** Whether the last loss of `events` is `e` (the same stage and pass). */
function isSameLoss(events: readonly FactEvent[], e: Extract<FactEvent, { kind: 'lost' }>): boolean {
  for (let i = events.length - 1; i >= 0; i--) {
    const x = events[i] as FactEvent
    if (x.kind === 'lost') return x.stage === e.stage && x.pass === e.pass
  }
  return false
}

/**
 * Puts the `needed` event into `events` in message order, after the loss it followed; a `back` at
 * the same message is that mention itself and is replaced by it.
 */
function placeNeeded(events: FactEvent[], n: NeededAfterLoss): void {
  const e: Extract<FactEvent, { kind: 'needed' }> = { kind: 'needed', messageId: n.messageId, index: n.messageIndex, role: n.role, how: n.how }
  if (n.phrase !== undefined) e.phrase = n.phrase
  const same = events.findIndex((x) => x.kind === 'back' && x.index === n.messageIndex)
  if (same >= 0) {
    events[same] = e
    return
  }
  // After the last event placed at or before its message (a loss's place is its boundary).
  let at = events.length
  for (let i = 0; i < events.length; i++) {
    if (eventIndex(events[i] as FactEvent) > n.messageIndex) {
      at = i
      break
    }
  }
  events.splice(at, 0, e)
}

/** The Before index an event is placed at: its message, or a loss's boundary (`atMessage`; end when unknown). */
function eventIndex(e: FactEvent): number {
  if (e.kind === 'lost') return e.atMessage ?? e.recorded?.atIndex ?? Number.MAX_SAFE_INTEGER
  return e.index
}

/** Whether a history holds a loss: a compaction took the fact out at least once. */
export function historyHasLoss(events: readonly FactEvent[] | undefined): boolean {
  return events !== undefined && events.some((e) => e.kind === 'lost')
}

/**
 * The Before messages `ids` of a run as history holders (index, role, whether a summary), in the
 * order given; ids the run's Before lacks are skipped. The role and summary flag are read once per
 * run index.
 */
export function holdersOf(ix: RunIndex, ids: readonly string[]): FactHolder[] {
  let byId = holderCache.get(ix)
  if (!byId) {
    byId = new Map(ix.run.before.messages.map((m) => [m.id, { id: m.id, index: m.index, role: m.role, isSummary: isSummaryMessage(m) }]))
    holderCache.set(ix, byId)
  }
  const out: FactHolder[] = []
  for (const id of ids) {
    const h = byId.get(id)
    if (h) out.push(h)
  }
  return out
}

const holderCache = new WeakMap<RunIndex, Map<string, FactHolder>>()

/**
 * How later messages needed the fact `query` finds after compaction removed it (`neededFacts` of
 * `needed`, the run's list): the fact equal to the query, else the first it matches. Undefined
 * when none was needed.
 */
export function neededFor(needed: readonly NeededFact[], query: string | RegExp): NeededFact | undefined {
  const hit =
    needed.find((n) => n.fact === String(query)) ??
    needed.find((n) => (typeof query === 'string' ? n.fact.includes(query) : new RegExp(query.source, query.flags.replace(/[gy]/g, '')).test(n.fact)))
  return hit
}
