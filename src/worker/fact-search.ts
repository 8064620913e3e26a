/**
 * The worker side of the fact finder: search a string or regular expression in
 * the full texts of the last run, Before and After (tool-call arguments included), and return
 * only row ids with counts plus the engine's verdict (`findFact`) — never full texts.
 *
 * The run's `RunIndex` (texts per message) is built once per RunResult and reused while the
 * person types (`FactSearchIndex`, one per transcript session), so each keystroke costs one scan
 * of the texts (a few ms at 5,000 messages).
 */
import { factIndexIn } from '../engine/facts/fact-index'
import { findFact } from '../engine/facts/finder'
import { neededFor } from '../engine/facts/history'
import { neededFacts } from '../engine/facts/table'
import { indexRun, type RunIndex } from '../engine/facts/run-index'
import type { FactVerdict } from '../engine/facts/verdict'
import type { RunResult } from '../engine/model'
import { cutCodePoints } from '../engine/util/text'
import type { FactSearch, FactSearchOutcome, FactSideMatches, FactVerdictView } from './protocol'

/** Code points of a replacement text (a placeholder, a back-reference) the verdict carries at most. */
const REPLACEMENT_TEXT_CAP = 300
/** Events of a fact's history the verdict carries at most (a fact lost and re-read hundreds of times). */
const HISTORY_EVENTS_CAP = 40
/** Code points of the summary that replaced a lost fact the verdict carries at most (the finder shows it). */
const SUMMARY_TEXT_CAP = 2_000

/**
 * What the fact finder searches in a run, built on first use and kept for the last two runs
 * asked about (the simulation's and the agent's recorded one, in Recorded vs simulated): the run's `RunIndex` (texts per Before and After message) and the flat list of
 * texts a regex is probed over (both sides' messages and each pass's summary).
 */
export class FactSearchIndex {
  /** The last two runs asked about (Recorded vs simulated searches both), newest first. */
  #cached: { result: RunResult; index: RunIndex; texts?: string[] }[] = []

  #of(result: RunResult): { result: RunResult; index: RunIndex; texts?: string[] } {
    let entry = this.#cached.find((e) => e.result === result)
    if (!entry) entry = { result, index: indexRun(result) }
    this.#cached = [entry, ...this.#cached.filter((e) => e !== entry)].slice(0, 2)
    return entry
  }

  /** The `RunIndex` of `result`. */
  indexOf(result: RunResult): RunIndex {
    return this.#of(result).index
  }

  /** Every text a regex search of `result` tests, in one array (the same array while `result` is kept). */
  textsOf(result: RunResult): string[] {
    const entry = this.#of(result)
    entry.texts ??= [...entry.index.beforeTexts.values(), ...entry.index.afterTexts.values(), ...result.passes.map((p) => p.summary)]
    return entry.texts
  }
}

/**
 * Non-overlapping, non-empty occurrences of `query` in `text`: verbatim, case-sensitive and whole
 * values for a string (`factIndexIn`, as `findFact` matches), every non-empty match of `re`
 * (global) for a regex.
 */
function countIn(text: string, query: string, re: RegExp | null): number {
  let n = 0
  if (re) {
    re.lastIndex = 0
    for (const m of text.matchAll(re)) if (m[0].length > 0) n++
    return n
  }
  for (let at = factIndexIn(text, query); at !== -1; at = factIndexIn(text, query, at + query.length)) n++
  return n
}

function matchesOf(texts: Map<string, string>, query: string, re: RegExp | null): FactSideMatches {
  const rows: { rowId: string; count: number }[] = []
  let occurrences = 0
  // Map order is message order on that side: the rows come back in column order.
  for (const [rowId, text] of texts) {
    const count = countIn(text, query, re)
    if (count === 0) continue
    rows.push({ rowId, count })
    occurrences += count
  }
  return { rows, messages: rows.length, occurrences }
}

/**
 * The verdict without what may be large: every copy's loss (`events`, one per Before message:
 * only their number is kept) and long replacement texts (cut to `REPLACEMENT_TEXT_CAP` code
 * points; a summary to `SUMMARY_TEXT_CAP`). The Before ids are the Before matches' rows.
 */
function verdictView(v: FactVerdict): FactVerdictView {
  const view: FactVerdictView = {
    query: v.query,
    verdict: v.verdict,
    where: v.where.map((w) => ({ ...w })),
    copiesLost: v.events?.length ?? 0,
    explanation: v.explanation,
  }
  if (v.history) view.history = v.history.slice(0, HISTORY_EVENTS_CAP)
  if (v.lost) {
    const r = v.lost.replacedBy
    const cap = r.kind === 'summary' ? SUMMARY_TEXT_CAP : REPLACEMENT_TEXT_CAP
    const replacedBy = 'text' in r ? { ...r, text: cutCodePoints(r.text, cap) } : { ...r }
    view.lost = { ...v.lost, replacedBy }
  }
  return view
}

/**
 * Searches `query` in the full texts of `result` (Before and After, tool-call arguments
 * included, as `messageFactText`). `regex`: `query` is a JavaScript regular expression source
 * (no flags, as the CLI's `find --regex`). Errors (never thrown): empty query, invalid regex, a
 * regex that matches empty text (it would match every message). `runId` and `against` (which
 * After `result` is: the simulation's, or the agent's recorded one) are echoed so the page can
 * tell which run answered. The verdict tells why a summarized fact went (`findFact`'s `why`).
 */
function searchFactIn(
  result: RunResult,
  query: string,
  regex: boolean,
  runId: number | null,
  searchIndex: FactSearchIndex,
  against: FactSearch['against'],
): FactSearchOutcome {
  if (query === '') return { ok: false, error: 'Type a fact to search for.' }
  let re: RegExp | null = null
  if (regex) {
    try {
      re = new RegExp(query, 'g')
    } catch (e) {
      const why = e instanceof Error ? e.message.replace(/^Invalid regular expression: \/.*\/\w*: /, '') : ''
      return { ok: false, error: `Not a valid regular expression: ${why || String(e)}` }
    }
    if (new RegExp(query).test('')) {
      return { ok: false, error: 'This regular expression matches empty text, so it would match every message.' }
    }
  }
  const index = searchIndex.indexOf(result)
  const q = re ? new RegExp(query) : query
  const verdict = judged(index, result, q)
  const search: FactSearch = {
    query,
    regex,
    runId,
    against,
    before: matchesOf(index.beforeTexts, query, re),
    after: matchesOf(index.afterTexts, query, re),
    verdict: verdictView(verdict),
  }
  return { ok: true, search }
}

/**
 * The finder's verdict on `q` in `result` (`findFact` with why), its history telling who asked for
 * the fact after a loss (the run's needed facts, made once per run).
 */
function judged(index: RunIndex, result: RunResult, q: string | RegExp): FactVerdict {
  const needed = result.passes.length > 0 ? neededFor(neededFacts(result), q)?.needs : undefined
  return findFact(index, q, { why: true, needed })
}

/**
 * How long a regular expression may take over a run's texts before the search gives up (ms): the
 * page's fact finder and the CLI's `find --regex` alike.
 */
export const REGEX_DEADLINE_MS = 2_000

/** Why a regular expression stopped by the guard gave no answer, after "This regular expression …". */
export function regexTooSlow(deadlineMs: number): string {
  return `took over ${deadlineMs / 1000} s on this transcript and was stopped (it likely backtracks catastrophically, like nested quantifiers (a+)+)`
}

/**
 * Runs regex `source` over `texts` somewhere it may be stopped: `'ok'` when it finished within
 * `deadlineMs`, `'timeout'` when it did not (and was stopped), `'unavailable'` when nowhere to
 * run it (no Worker, as in Node tests): the search then runs unguarded.
 */
export type RegexProbe = (source: string, texts: readonly string[], deadlineMs: number) => Promise<'ok' | 'timeout' | 'unavailable'>

/** A message to the regex guard's worker: a run's texts, or a probe of `source` over them. */
export type GuardRequest = { gen: number; texts: readonly string[] } | { id: number; gen: number; source: string }
/** The guard worker's answer to probe `id`; `stale` when it does not hold the texts asked about. */
export interface GuardReply {
  id: number
  stale?: boolean
}

/**
 * A `RegexProbe` backed by one disposable worker (regex-guard.worker.ts). The texts are posted
 * once per distinct `texts` array (a run's), not per keystroke; a probe past its deadline
 * terminates the worker — the only way to stop a backtracking RegExp in JavaScript — and the
 * next probe starts a fresh one. Why: the fact finder's search runs in the engine worker, and a
 * pattern like /(a+)+$/ over a long "aaaa…b" would otherwise hang it for good (every later run,
 * search and table would wait behind it).
 */
export function workerRegexProbe(): RegexProbe {
  let worker: Worker | null = null
  let sentTexts: readonly string[] | null = null
  let gen = 0
  let nextId = 0
  return async (source, texts, deadlineMs) => {
    if (typeof Worker === 'undefined') return 'unavailable'
    const spawn = (): Worker => {
      // Keep `new URL(...)` inline: Vite only bundles a worker in this exact form.
      const w = new Worker(new URL('./regex-guard.worker.ts', import.meta.url), { type: 'module' })
      sentTexts = null
      return w
    }
    worker ??= spawn()
    const probeOnce = (): Promise<'ok' | 'timeout' | 'stale'> => {
      const w = worker ?? spawn()
      worker = w
      if (sentTexts !== texts) {
        gen++
        sentTexts = texts
        w.postMessage({ gen, texts } satisfies GuardRequest)
      }
      const id = ++nextId
      return new Promise((resolve) => {
        const timer = setTimeout(() => {
          w.removeEventListener('message', onMessage)
          w.terminate()
          if (worker === w) worker = null
          resolve('timeout')
        }, deadlineMs)
        const onMessage = (e: MessageEvent<GuardReply>) => {
          if (e.data.id !== id) return
          clearTimeout(timer)
          w.removeEventListener('message', onMessage)
          resolve(e.data.stale ? 'stale' : 'ok')
        }
        w.addEventListener('message', onMessage)
        w.postMessage({ id, gen, source } satisfies GuardRequest)
      })
    }
    let outcome = await probeOnce()
    if (outcome === 'stale') {
      sentTexts = null
      outcome = await probeOnce()
    }
    return outcome === 'stale' ? 'unavailable' : outcome
  }
}

/**
 * Options of `searchFactGuarded`: the probe's deadline (ms), the index to reuse (a fresh one by
 * default) and which After `result` is (`after`, the default: a simulation; `recorded`: what the
 * agent kept after its own compaction).
 */
export interface GuardedSearchOptions {
  deadlineMs?: number
  index?: FactSearchIndex
  against?: FactSearch['against']
  /** Recorded vs simulated: the agent's recorded run, also judged (`FactSearch.recordedVerdict`). */
  recorded?: RunResult | undefined
}

/**
 * `searchFactIn`, with a regex first run by `probe` under `deadlineMs` (default
 * `REGEX_DEADLINE_MS`): a regex that does not finish in time answers `ok: false` ("too slow…")
 * instead of running here, where it could never be stopped. String queries and invalid regexes
 * go straight to `searchFactIn`. `index` holds the run's texts across keystrokes.
 */
export async function searchFactGuarded(
  result: RunResult,
  query: string,
  regex: boolean,
  runId: number | null,
  probe: RegexProbe,
  { deadlineMs = REGEX_DEADLINE_MS, index = new FactSearchIndex(), against = 'after', recorded }: GuardedSearchOptions = {},
): Promise<FactSearchOutcome> {
  if (regex && query !== '') {
    let valid = true
    try {
      new RegExp(query)
    } catch {
      valid = false
    }
    if (valid && (await probe(query, index.textsOf(result), deadlineMs)) === 'timeout') {
      return {
        ok: false,
        error: `This regular expression ${regexTooSlow(deadlineMs)}. Simplify it.`,
      }
    }
  }
  const outcome = searchFactIn(result, query, regex, runId, index, against)
  if (!outcome.ok || !recorded) return outcome
  // Recorded vs simulated: the same fact judged against what the agent kept, beside the simulation's.
  const q = regex ? new RegExp(query) : query
  return { ok: true, search: { ...outcome.search, recordedVerdict: verdictView(judged(index.indexOf(recorded), recorded, q)) } }
}
