/**
 * Calibration: our token counts made the agent's. A transcript's recorded usage (what the agent's
 * own API responses reported, `Transcript.usage`) is ground truth for the context the agent sent;
 * our counts (o200k_base / cl100k_base over the file's messages) miss what every request carries
 * that the file does not show (system prompt, tool schemas, memory files) and differ from the
 * agent's tokenizer. Two numbers bridge them: a fixed `overhead` (tokens added to every request's
 * context) and a `ratio` (the agent's tokens per token of ours), fitted to the recorded requests.
 * Every context figure of a run (totals, triggers, passes, timeline, sweep cells) is counted with
 * them (pipeline.ts); raw counts are the `off` mode. Pure; no I/O.
 */
import type { CalibrationSetting, Message, RequestUsage, Transcript } from '../model'
import { contextWalk, type ContextWalk } from '../analysis/recorded'
import { countMessageTokens, countToolSchemaTokens, MESSAGE_OVERHEAD_TOKENS, REPLY_PRIMING_TOKENS, type CachedCounter } from '../tokens/count'
import { CALIBRATION_RATIO_RANGE, RAW_COUNTS, type Calibration } from './calibration-terms'

const RATIO_MIN = CALIBRATION_RATIO_RANGE.min
const RATIO_MAX = CALIBRATION_RATIO_RANGE.max

/** A message's tokens under `calibration`: `round(raw · ratio)`. Tokens in, tokens out. */
export function calibrateTokens(raw: number, calibration: Pick<Calibration, 'ratio'>): number {
  return calibration.ratio === 1 ? raw : Math.round(raw * calibration.ratio)
}

/**
 * One request: our context count `x`, whether a recorded compaction came before it (`after`),
 * and the agent's recorded `y` less what is already the agent's figure (tokens).
 */
interface Point {
  x: number
  y: number
  after?: boolean
}

/** The fitted numbers of `fitLine`: `y ≈ overhead + ratio·x (+ reinjected after a compaction)`. */
interface Fit {
  overhead: number
  ratio: number
  reinjected: number
}

/**
 * Fits `y ≈ overhead + ratio·x + reinjected·[after a recorded compaction]` minimizing the squared
 * relative error (weights 1/y²: a request of 5,000 tokens counts as much as one of 150,000), then
 * once more without the requests that miss by more than max(10%, 3 × the median miss). Neither
 * the overhead nor the re-injected tokens are ever negative (a negative one is refitted at 0);
 * `reinjected` is fitted only when requests both before and after a compaction exist. A ratio
 * outside 0.5–2.5 is not a tokenizer: then ratio 1 and the median difference as overhead. Fewer
 * than 2 distinct `x`: the same. Empty: the identity.
 */
export function fitLine(points: readonly Point[]): Fit {
  const usable = points.filter((p) => p.y > 0 && p.x >= 0 && Number.isFinite(p.x) && Number.isFinite(p.y))
  if (usable.length === 0) return { overhead: 0, ratio: 1, reinjected: 0 }
  const first = fitOnce(usable)
  const misses = usable.map((p) => Math.abs(predict(first, p) - p.y) / p.y)
  const cut = Math.max(0.1, 3 * median(misses))
  const inliers = usable.filter((_, i) => (misses[i] as number) <= cut)
  return inliers.length >= 2 && inliers.length < usable.length && inliers.length * 2 >= usable.length
    ? fitOnce(inliers)
    : first
}

function predict(f: Fit, p: Point): number {
  return f.overhead + f.ratio * p.x + (p.after ? f.reinjected : 0)
}

/** Weighted least squares over the features `use` picks (1, x, after), the others at 0 (ratio at 1 when x is off). */
function solve(points: readonly Point[], use: readonly [boolean, boolean, boolean]): number[] | null {
  const idx = [0, 1, 2].filter((k) => use[k])
  const n = idx.length
  const a = Array.from({ length: n }, () => new Array<number>(n + 1).fill(0))
  for (const p of points) {
    const w = 1 / (p.y * p.y)
    const f = [1, p.x, p.after ? 1 : 0]
    const target = use[1] ? p.y : p.y - p.x
    for (let r = 0; r < n; r++) {
      const fr = f[idx[r] as number] as number
      for (let c = 0; c < n; c++) (a[r] as number[])[c]! += w * fr * (f[idx[c] as number] as number)
      ;(a[r] as number[])[n]! += w * fr * target
    }
  }
  // Gaussian elimination with partial pivoting.
  for (let c = 0; c < n; c++) {
    let pivot = c
    for (let r = c + 1; r < n; r++) if (Math.abs(a[r]![c]!) > Math.abs(a[pivot]![c]!)) pivot = r
    if (!(Math.abs(a[pivot]![c]!) > 1e-18)) return null
    ;[a[c], a[pivot]] = [a[pivot]!, a[c]!]
    for (let r = 0; r < n; r++) {
      if (r === c) continue
      const k = a[r]![c]! / a[c]![c]!
      for (let j = c; j <= n; j++) a[r]![j]! -= k * a[c]![j]!
    }
  }
  const out = [0, use[1] ? 0 : 1, 0]
  idx.forEach((k, r) => (out[k] = a[r]![n]! / a[r]![r]!))
  return out
}

function fitOnce(points: readonly Point[]): Fit {
  const offsetOnly = (): Fit => ({ overhead: Math.max(0, Math.round(median(points.map((p) => p.y - p.x)))), ratio: 1, reinjected: 0 })
  const hasAfter = points.some((p) => p.after) && points.some((p) => !p.after)
  let use: [boolean, boolean, boolean] = [true, true, hasAfter]
  let coef: number[] | null = null
  for (let tries = 0; tries < 4; tries++) {
    coef = points.length >= 2 ? solve(points, use) : null
    if (!coef) break
    const negative: [boolean, boolean, boolean] = [use[0] && coef[0]! < 0, false, use[2] && coef[2]! < 0]
    if (!negative[0] && !negative[2]) break
    use = [use[0] && !negative[0], use[1], use[2] && !negative[2]]
    coef = null
  }
  if (!coef) return offsetOnly()
  const [overhead, ratio, reinjected] = coef as [number, number, number]
  if (!(ratio >= RATIO_MIN && ratio <= RATIO_MAX)) return offsetOnly()
  return {
    overhead: Math.max(0, Math.round(overhead)),
    ratio: Math.round(ratio * 10_000) / 10_000,
    reinjected: Math.max(0, Math.round(reinjected)),
  }
}

/** The median of `values` (0 for none). */
function median(values: readonly number[]): number {
  if (values.length === 0) return 0
  const sorted = [...values].sort((a, b) => a - b)
  const mid = sorted.length >> 1
  return sorted.length % 2 === 1 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2
}

/** One recorded request beside our estimate of it (`inspect --json` `usage.requests`). */
interface UsageEstimate {
  atMessageId: string
  atIndex: number
  /** The agent's own figure (`RequestUsage.context`), read from the file. */
  recorded: number
  /** Our count of the context the request was sent, calibrated; never copied from `recorded`. */
  estimated: number
}

/** Recorded usage beside our calibrated estimates, and the two numbers (`inspect --json` `usage`). */
export interface UsageReport {
  requests: UsageEstimate[]
  overhead: number
  ratio: number
  /** Median |estimated − recorded| / recorded (fraction); null with no request. */
  medianError: number | null
  /** Each recorded compaction's context right before it, by our calibrated count (file order). */
  compactionsBefore: number[]
}

/**
 * How a run counts `transcript` under `calibration` — one definition for the pipeline, the
 * recorded view, the timeline and the per-request estimates: `message(m)` = `calibrateTokens` of
 * `countMessageTokens` (cached per message); `fixed` = what every request adds to its messages:
 * the tool schemas (calibrated), `REPLY_PRIMING_TOKENS` and the calibration's overhead.
 */
export function transcriptCounts(
  transcript: Transcript,
  counter: CachedCounter,
  calibration: Calibration,
  raw: (m: Message) => number = rawMessageCounter(counter),
): { message: (m: Message) => number; fixed: number } {
  const hidden = calibration.source === 'usage' ? hiddenThinking(transcript, counter) : undefined
  return {
    message: (m) => {
      const h = hidden?.get(m)
      return h ? calibrateTokens(raw(m) - h.ours, calibration) + h.agent : calibrateTokens(raw(m), calibration)
    },
    fixed: calibrateTokens(countToolSchemaTokens(transcript.tools, counter.count), calibration) + REPLY_PRIMING_TOKENS + calibration.overhead,
  }
}

/**
 * Thinking the file does not keep readable, sized by the agent's own figure: Claude Code writes
 * only a thinking block's signature (its text is empty), Codex the reasoning's
 * `encrypted_content` (beside a short summary), yet the thinking stays in the context of later
 * requests (the recorded context grows by the response's output). For each recorded response
 * with an `output` whose messages (the assistant messages from its `atIndex`, up to the next
 * response) hold a thinking part without text or with an encrypted payload: `ours` = our count of
 * those parts (text and the encrypted payload's estimate) on the
 * first such message, replaced by `agent` = the recorded output less our count of the response's
 * readable parts (≥ 0). Tokens; keyed by message. Memoized per transcript and counter.
 */
function hiddenThinking(transcript: Transcript, counter: CachedCounter): Map<Message, { ours: number; agent: number }> {
  let byCounter = hiddenCache.get(transcript)
  if (!byCounter) hiddenCache.set(transcript, (byCounter = new WeakMap()))
  let map = byCounter.get(counter)
  if (map) return map
  map = new Map()
  const raw = rawMessageCounter(counter)
  const messages = transcript.messages
  const usage = transcript.usage ?? []
  for (let u = 0; u < usage.length; u++) {
    const entry = usage[u] as RequestUsage
    if (entry.output === undefined) continue
    const end = Math.min(messages.length, usage[u + 1]?.atIndex ?? messages.length)
    let first: Message | undefined
    let opaque = 0
    let all = 0
    for (let i = entry.atIndex; i < end; i++) {
      const m = messages[i] as Message
      if (m.role !== 'assistant' || (i > entry.atIndex && map.has(m))) break
      all += raw(m)
      if (!Array.isArray(m.content)) continue
      for (const p of m.content) {
        if (p.type !== 'thinking' || (p.text && !p.encrypted)) continue
        first ??= m
        opaque += countMessageTokens({ ...m, content: [p], toolCalls: [] }, counter.count) - MESSAGE_OVERHEAD_TOKENS
      }
    }
    if (first && !map.has(first)) map.set(first, { ours: opaque, agent: Math.max(0, entry.output - (all - opaque)) })
  }
  byCounter.set(counter, map)
  return map
}
const hiddenCache = new WeakMap<Transcript, WeakMap<CachedCounter, Map<Message, { ours: number; agent: number }>>>()

/**
 * Raw `countMessageTokens` per message object under `counter` (messages are immutable): one cache
 * for the pipeline, the fit and the timeline, so no message is counted twice.
 */
export function messageCountCache(counter: CachedCounter): WeakMap<Message, number> {
  let cache = rawCounts.get(counter)
  if (!cache) rawCounts.set(counter, (cache = new WeakMap()))
  return cache
}

/** The raw (uncalibrated) message counter of `counter`, cached per message. */
function rawMessageCounter(counter: CachedCounter): (m: Message) => number {
  const c = messageCountCache(counter)
  return (m) => {
    let n = c.get(m)
    if (n === undefined) c.set(m, (n = countMessageTokens(m, counter.count)))
    return n
  }
}
const rawCounts = new WeakMap<CachedCounter, WeakMap<Message, number>>()

/**
 * The context of every request along `transcript` as the run counts it under `calibration`:
 * per message `calibrateTokens`, per request the tool schemas (calibrated), reply priming and the
 * calibration's overhead; through recorded compactions as the agent had it (`contextWalk`).
 */
function calibratedWalk(transcript: Transcript, counter: CachedCounter, calibration: Calibration): ContextWalk {
  const counts = transcriptCounts(transcript, counter, calibration)
  return contextWalk(transcript, counts.message, counts.fixed, calibration.reinjected ?? 0)
}

/** Requests with a positive recorded context whose message is in the transcript. */
function recordedRequests(transcript: Transcript): RequestUsage[] {
  const n = transcript.messages.length
  return (transcript.usage ?? []).filter((u) => u.context > 0 && u.atIndex >= 0 && u.atIndex <= n)
}

/**
 * Our estimate of each recorded request and of each recorded compaction's context before it,
 * counted under `calibration` exactly as a run counts (`calibratedWalk`), and the median error.
 */
export function usageReport(transcript: Transcript, counter: CachedCounter, calibration: Calibration): UsageReport {
  const walk = calibratedWalk(transcript, counter, calibration)
  const requests = recordedRequests(transcript).map((u) => ({
    atMessageId: u.atMessageId,
    atIndex: u.atIndex,
    recorded: u.context,
    estimated: Math.round(walk.at[u.atIndex] as number),
  }))
  return {
    requests,
    overhead: calibration.overhead,
    ratio: calibration.ratio,
    medianError: requests.length > 0 ? median(requests.map((r) => Math.abs(r.estimated - r.recorded) / r.recorded)) : null,
    compactionsBefore: walk.compactions.map((c) => Math.round(c.tokensBefore)),
  }
}

/** Fitted calibrations per transcript and counter: the fit walks every message once. */
const fitted = new WeakMap<Transcript, WeakMap<CachedCounter, Calibration | null>>()

/**
 * The calibration fitted to `transcript`'s recorded usage (`fitLine` over every request: our raw
 * context count against the agent's), with its median error; null when the file records no usage.
 * Memoized per transcript and counter.
 */
export function fitToUsage(transcript: Transcript, counter: CachedCounter): Calibration | null {
  let byCounter = fitted.get(transcript)
  if (!byCounter) fitted.set(transcript, (byCounter = new WeakMap()))
  if (byCounter.has(counter)) return byCounter.get(counter) ?? null
  const requests = recordedRequests(transcript)
  let result: Calibration | null = null
  if (requests.length > 0) {
    // y = overhead + ratio·x + hidden: our count `x` (thinking the file does not keep left out)
    // scales by the ratio, the hidden thinking is already the agent's figure.
    const hidden = hiddenThinking(transcript, counter)
    const raw = rawMessageCounter(counter)
    // Reply priming is added unscaled by a run (`transcriptCounts`): out of `x`, taken off `y`.
    const schema = transcriptCounts(transcript, counter, RAW_COUNTS).fixed - REPLY_PRIMING_TOKENS
    const ours = contextWalk(transcript, (m) => raw(m) - (hidden.get(m)?.ours ?? 0), schema)
    const agents = contextWalk(transcript, (m) => hidden.get(m)?.agent ?? 0, REPLY_PRIMING_TOKENS)
    const { overhead, ratio, reinjected } = fitLine(
      requests.map((u) => ({
        x: ours.at[u.atIndex] as number,
        y: u.context - (agents.at[u.atIndex] as number),
        after: u.atIndex >= ours.firstBoundary,
      })),
    )
    const fit: Calibration = { source: 'usage', overhead, ratio, requests: requests.length }
    if (reinjected > 0) fit.reinjected = reinjected
    const report = usageReport(transcript, counter, fit)
    if (report.medianError !== null) fit.medianError = report.medianError
    result = fit
    // Two numbers need more than two points, and a fit that misses by half is not this context.
    if (requests.length < MIN_FITTED_REQUESTS) {
      rejections.set(transcript, `recorded usage not used: ${requests.length} request${requests.length === 1 ? ' is' : 's are'} too few to fit an overhead and a ratio (at least ${MIN_FITTED_REQUESTS})`)
      result = null
    } else if ((fit.medianError ?? 0) > MAX_FITTED_ERROR) {
      rejections.set(
        transcript,
        `recorded usage not used: our count misses it by a median ${Math.round((fit.medianError ?? 0) * 100).toLocaleString('en-US')}% (the recorded figures do not describe these messages)`,
      )
      result = null
    }
  }
  byCounter.set(counter, result)
  return result
}

/** The fewest recorded requests a fit uses: two numbers fitted to two points would copy them. */
const MIN_FITTED_REQUESTS = 3

/** A fit whose median miss is above this fraction is rejected: the usage is not of this context. */
const MAX_FITTED_ERROR = 0.5

/** Why a transcript's recorded usage was not fitted (`fitToUsage` returned null), by transcript. */
const rejections = new WeakMap<Transcript, string>()

/**
 * The calibration a run of `transcript` uses under `setting` (`PipelineConfig.calibration`):
 * - `off`: raw counts;
 * - `manual`: the setting's overhead (≥ 0, default 0) and ratio (0.5–2.5, default 1);
 * - `auto` (the default): fitted to the file's recorded usage when it records any; else the chosen
 *   agent preset's documented overhead (`setting.agentOverhead`, ratio 1); else raw counts.
 */
export function calibrationFor(
  transcript: Transcript,
  setting: CalibrationSetting | undefined,
  counter: CachedCounter,
): Calibration {
  const mode = setting?.mode ?? 'auto'
  if (mode === 'off') return RAW_COUNTS
  if (mode === 'manual') {
    const overhead = Math.max(0, Math.round(finite(setting?.overhead, 0)))
    const ratio = Math.min(RATIO_MAX, Math.max(RATIO_MIN, finite(setting?.ratio, 1)))
    return { source: 'manual', overhead, ratio }
  }
  const fit = fitToUsage(transcript, counter)
  if (fit) return fit
  const rejected = rejections.get(transcript)
  const agent = setting?.agentOverhead
  const fallback: Calibration =
    agent && agent.tokens > 0 ? { source: 'preset', overhead: Math.round(agent.tokens), ratio: 1, from: agent.source } : RAW_COUNTS
  return rejected ? { ...fallback, note: rejected } : fallback
}

function finite(v: unknown, fallback: number): number {
  return typeof v === 'number' && Number.isFinite(v) ? v : fallback
}


