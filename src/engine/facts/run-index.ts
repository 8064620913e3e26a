/**
 * The per-run indexes the fact finder, the facts table and the failure-mode checks share: texts
 * by message id, pipeline positions (`Key`) and the chain of summaries a folded message went
 * through. Read from a run's provenance only; never re-runs compaction. Source: SPEC §6.
 */
import type { Pass, RecordedCompaction, RunResult } from '../model'
import { partitionPoint } from '../util/search'
import { factPassRuns, passTimeline, type PassRun } from './pass-runs'
import { messageFactText } from './patterns'
import type { RecordedAt } from './verdict'

/** The parts of a run the finder reads (a `RunResult`, or a recorded run of the same shape). */
export type FactRun = Pick<RunResult, 'before' | 'after' | 'fates' | 'origins' | 'passes'> & {
  stages?: RunResult['stages']
}

/** Per-run indexes the finder, table and checks share (computed once per run). */
export interface RunIndex {
  run: FactRun
  beforeTexts: Map<string, string>
  afterTexts: Map<string, string>
  beforeIndex: Map<string, number>
  /**
   * One more than the largest before `Message.index` (0 without messages, or when that exceeds
   * twice the message count: per-index tables are then not built).
   */
  beforeIndexLimit: number
  /** Stage id → position in the pipeline (stages that ran). */
  stageOrder: Map<string, number>
  passesByStage: Map<string, Pass[]>
}

/** Builds the shared indexes of a run. Pure. */
export function indexRun(run: FactRun): RunIndex {
  const beforeTexts = new Map(run.before.messages.map((m) => [m.id, messageFactText(m)]))
  const afterTexts = new Map(run.after.messages.map((m) => [m.id, messageFactText(m)]))
  const beforeIndex = new Map(run.before.messages.map((m) => [m.id, m.index]))
  let beforeIndexLimit = 0
  for (const m of run.before.messages)
    if (Number.isInteger(m.index) && m.index >= beforeIndexLimit) beforeIndexLimit = m.index + 1
  // Indices far beyond the message count (a hand-made run) get no per-index tables.
  if (beforeIndexLimit > 2 * run.before.messages.length + 1024) beforeIndexLimit = 0
  const stageOrder = new Map<string, number>()
  ;(run.stages ?? []).forEach((s, i) => stageOrder.set(s.stage, i))
  // Without stage reports, passes give the order.
  for (const p of run.passes) if (!stageOrder.has(p.stage)) stageOrder.set(p.stage, stageOrder.size)
  stageOrder.set('recorded', -1)
  const passesByStage = new Map<string, Pass[]>()
  for (const p of run.passes) {
    const list = passesByStage.get(p.stage) ?? []
    list.push(p)
    passesByStage.set(p.stage, list)
  }
  for (const list of passesByStage.values()) list.sort((a, b) => a.pass - b.pass)
  return { run, beforeTexts, afterTexts, beforeIndex, beforeIndexLimit, stageOrder, passesByStage }
}

/** A position in the pipeline: stage order, then pass (0 for a stage without passes). */
export type Key = [number, number]

/** Whether position `a` comes after position `b` in the pipeline. */
const isAfter = (a: Key, b: Key) => a[0] > b[0] || (a[0] === b[0] && a[1] > b[1])

/** Orders two positions: negative when `a` comes first, positive when `b` does, 0 when equal. */
export const compareKeys = (a: Key, b: Key) => (isAfter(a, b) ? 1 : isAfter(b, a) ? -1 : 0)

/** The pipeline position of a pass or loss event; `pipeline` (the send-ready cleanup) is last. */
export function eventKey(ix: RunIndex, e: { stage: string; pass?: number }): Key {
  const order =
    e.stage === 'pipeline' ? Number.MAX_SAFE_INTEGER : (ix.stageOrder.get(e.stage) ?? -1)
  return [order, e.pass ?? 0]
}

/**
 * The summaries a before message's content went through, in order: the pass that first folded
 * it, the later passes of that stage (each folds the previous summary: seed 001 rolling), then
 * the pass of a later stage that folded that summary (the message's final fate). Held as a
 * view — `list[start..]`, then `extra` — so a message folded by the first of P passes costs
 * O(1), not a copy of P passes; null when the message went through no pass.
 */
export interface Chain {
  list: readonly Pass[]
  start: number
  extra?: Pass
}

/** The summary chain of before message `beforeId` (see `Chain`), cached per run index. */
export function summaryChain(ix: RunIndex, beforeId: string): Chain | null {
  // The chain depends on the message alone, and the facts table asks once per fact it holds.
  let cache = chainCache.get(ix)
  if (!cache) chainCache.set(ix, (cache = new Map()))
  let chain = cache.get(beforeId)
  if (chain === undefined) cache.set(beforeId, (chain = walkSummaryChain(ix, beforeId)))
  return chain
}

const chainCache = new WeakMap<RunIndex, Map<string, Chain | null>>()

/** Per stage that recorded passes: its passes, by pass number, and by the index they cover. */
interface StagePasses {
  passes: readonly Pass[]
  /** Pass number → position in `passes` of the first pass with it. */
  byNumber: Map<number, number>
  /** Before index → position of the first pass whose [from, upto) holds it; built on demand. */
  covering?: Int32Array
}

/** The stages that recorded passes, in pipeline order, each with its lookups. Once per run. */
function stagePasses(ix: RunIndex): { stage: string; passes: StagePasses }[] {
  let out = stagePassCache.get(ix)
  if (!out) {
    const stages = [...ix.passesByStage.keys()].sort(
      (a, b) => (ix.stageOrder.get(a) ?? 0) - (ix.stageOrder.get(b) ?? 0),
    )
    out = stages.map((stage) => {
      const passes = ix.passesByStage.get(stage) ?? []
      const byNumber = new Map<number, number>()
      passes.forEach((p, k) => {
        if (!byNumber.has(p.pass)) byNumber.set(p.pass, k)
      })
      return { stage, passes: { passes, byNumber } }
    })
    stagePassCache.set(ix, out)
  }
  return out
}

const stagePassCache = new WeakMap<RunIndex, { stage: string; passes: StagePasses }[]>()

/**
 * Position of the first of `sp.passes` with `from <= index < upto`, or -1: a table over the
 * before indices filled once per stage (each index assigned once, skipping assigned runs), so
 * a run of P passes over N messages costs O(N + P), not O(P) per message.
 */
function firstCovering(ix: RunIndex, sp: StagePasses, index: number): number {
  const size = ix.beforeIndexLimit
  if (!Number.isInteger(index) || index < 0 || index >= size)
    return sp.passes.findIndex((p) => p.from <= index && index < p.upto)
  if (!sp.covering) {
    const covering = new Int32Array(size).fill(-1)
    // nextFree[i]: a lower bound of the first unassigned index ≥ i (size: none left).
    const nextFree = new Int32Array(size + 1)
    for (let i = 0; i <= size; i++) nextFree[i] = i
    const find = (i: number) => {
      let r = i
      while ((nextFree[r] as number) !== r) r = nextFree[r] as number
      while ((nextFree[i] as number) !== r) {
        const up = nextFree[i] as number
        nextFree[i] = r
        i = up
      }
      return r
    }
    sp.passes.forEach((p, k) => {
      const lo = Math.max(0, Math.ceil(p.from))
      const hi = Math.min(size, Math.ceil(p.upto))
      if (!(lo < hi)) return
      for (let i = find(lo); i < hi; i = find(i)) {
        covering[i] = k
        nextFree[i] = i + 1
      }
    })
    sp.covering = covering
  }
  return sp.covering[index] as number
}

function walkSummaryChain(ix: RunIndex, beforeId: string): Chain | null {
  const fate = ix.run.fates[beforeId]
  if (fate?.kind !== 'summarized') return null
  const index = ix.beforeIndex.get(beforeId) ?? -1
  let chain: Chain | null = null
  for (const { stage, passes: sp } of stagePasses(ix)) {
    if (!chain) {
      // Pass from/upto are before-transcript indices for original messages.
      const first =
        stage === fate.stage ? (sp.byNumber.get(fate.pass) ?? -1) : firstCovering(ix, sp, index)
      if (first === -1) continue
      chain = { list: sp.passes, start: first }
    } else if (stage === fate.stage) {
      const k = sp.byNumber.get(fate.pass)
      if (k !== undefined) chain.extra = sp.passes[k] as Pass
    }
    if (stage === fate.stage) break
  }
  return chain
}

/** The run's passes in pipeline order, worked out once per run index (shared: never mutate). */
export function orderedPasses(ix: RunIndex): Pass[] {
  let sorted = orderedCache.get(ix)
  if (!sorted) orderedCache.set(ix, (sorted = [...ix.run.passes].sort((a, b) => compareKeys(eventKey(ix, a), eventKey(ix, b)))))
  return sorted
}

const orderedCache = new WeakMap<RunIndex, Pass[]>()

/**
 * Whether a pass is rolling: it replays the conversation turn by turn, so a message counts only
 * once the replay reached it (its index ≤ the pass's `atMessage`) — `summarize` (seed 001) and the
 * agent's own recorded compactions (each fired at its boundary). Other stages see the whole
 * transcript at once.
 */
function isRollingPass(p: Pick<Pass, 'stage'>): boolean {
  return p.stage === 'summarize' || p.stage === 'recorded'
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
 * Per fact, its pass states through `passes` (the run's, in pipeline order) as runs
 * (`factPassRuns`): `carriers(i)` the before messages holding fact `i`, `summaryAt(i)` the
 * positions whose summary holds it, ascending. The timeline and each message's first loss are
 * worked out once per run, shared by every fact asked about.
 */
export function passRunsOf(
  ix: RunIndex,
  passes: readonly Pass[],
  carriers: (i: number) => readonly string[],
  summaryAt: (i: number) => readonly number[],
): (i: number) => PassRun[] {
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
    passes.map(isRollingPass),
    passes.map((p) => p.atMessage),
  )
  // The first position at or after a loss key: passes are in key order.
  const firstAtOrAfter = (u: Key | null) =>
    u ? partitionPoint(0, passes.length, (k) => !isAfter(u, passKeys[k] as Key)) : passes.length
  return (i) =>
    factPassRuns(
      timeline,
      carriers(i).map((id) => ({ at: ix.beforeIndex.get(id) ?? 0, until: firstAtOrAfter(until(id)) })),
      summaryAt(i),
    )
}

/**
 * Recorded compaction number `pass` (1-based) of a recorded run (`RecordedRun.compactions`; the
 * one shown, `RecordedRun.compaction`, when the run lists none), as its record states it.
 */
export function recordedAt(run: FactRun, pass: number): RecordedAt | undefined {
  const listed = 'compactions' in run ? (run.compactions as RecordedCompaction[] | undefined)?.[pass - 1] : undefined
  const c = listed ?? ('compaction' in run ? (run.compaction as RecordedCompaction | undefined) : undefined)
  if (!c || typeof c.atIndex !== 'number') return undefined
  const at: RecordedAt = { atIndex: c.atIndex, compaction: pass }
  if (c.trigger !== undefined) at.trigger = c.trigger
  if (c.tokensBefore !== undefined) at.tokensBefore = c.tokensBefore
  return at
}
