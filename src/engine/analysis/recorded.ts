/**
 * Recorded compactions as a view: "what the agent really kept" after a compaction it performed
 * itself and recorded in the source (Claude Code `compact_boundary` + `isCompactSummary`, Codex
 * `compacted` + `replacement_history`, Responses `compaction` items, Anthropic `compaction`
 * blocks, and whatever other importers record as a `RecordedCompaction`). The view has the shape
 * of a pipeline result's `after` + `fates` / `origins`, with stage `recorded`, so the After column,
 * the fact finder and the validity checker work on it like on a simulation. Pure; never mutates
 * the transcript. Source: SPEC §1 (recorded compaction), §3.6 (`recorded`), §4;
 * design/formats.md §3 "Recorded compaction", §4.2–§4.5.
 */
import { checkOptionsFor, checkValidity } from './checks'
import { contentText } from '../content'
import type {
  ClearedToolResults,
  Fate,
  Message,
  Origin,
  Pass,
  RecordedCompaction,
  RunResult,
  TokenTotals,
  Transcript,
  ValidityProblem,
} from '../model'
import { providerOf } from '../pipeline'
import { REPLY_PRIMING_TOKENS, type CachedCounter } from '../tokens/count'
import { transcriptCounts } from '../usage/calibration'
import { RAW_COUNTS, type Calibration } from '../usage/calibration-terms'
import { inputRecord } from '../util/input-record'

/** Content of the marker that stands for a compaction whose summary the source did not keep. */
export const OPAQUE_SUMMARY_MARKER =
  '[recorded compaction: the agent summarized the earlier messages here; ' +
  'the summary text is not in the source (encrypted or not saved)]'

/** What the agent kept after one recorded compaction, in the shape of a run's after side. */
export interface RecordedView {
  /** The compaction shown. */
  compaction: RecordedCompaction
  /** Its 1-based number among the recorded compactions (the `pass` of fates/origins). */
  pass: number
  /** The context the agent continued with; `index` = position. */
  after: { messages: Message[] }
  /** Keyed by before-message id: `kept` or `summarized` (stage `recorded`). */
  fates: Record<string, Fate>
  /** Keyed by after-message id: `original`, `summary` or `instruction` (stage `recorded`). */
  origins: Record<string, Origin>
  checks: { before: ValidityProblem[]; after: ValidityProblem[] }
  warnings: string[]
}

/** Options of `recordedView`. */
export interface RecordedViewOptions {
  /** 0-based position in `transcript.recordedCompactions`; default the last one. */
  compaction?: number
  /**
   * `recordedRunResult`: the calibration to count with (usage/calibration.ts), as a simulation of
   * the same transcript counts; absent: raw counts.
   */
  calibration?: Calibration
}

/**
 * The message holding the summary: the named one, else a message right at the boundary that
 * carries a `compaction` block (Anthropic).
 */
function summaryCarrier(
  messages: readonly Message[],
  c: RecordedCompaction,
  boundary: number,
): Message | undefined {
  if (c.summaryMessageId !== undefined) {
    const named = messages.find((m) => m.id === c.summaryMessageId)
    if (named) return named
  }
  const at = messages[boundary]
  if (
    at &&
    Array.isArray(at.content) &&
    at.content.some((p) => p.type === 'opaque' && p.kind === 'compaction')
  ) {
    return at
  }
  return undefined
}

/** A unique id not used by any of `taken`. */
function freshId(base: string, taken: Set<string>): string {
  let id = base
  for (let n = 2; taken.has(id); n++) id = `${base}-${n}`
  taken.add(id)
  return id
}

/**
 * What recorded compaction `k` (0-based) kept of the messages before its boundary, without the
 * view around it: the boundary (clamped), the summary carrier, the Before messages before the
 * boundary (`pre`, carrier excluded), those kept verbatim (`keptIds`), and in order the context
 * the agent continued with before the boundary's later messages (`context`: kept originals,
 * re-injected messages and summary messages of `replacementHistory`, each with `isSummary`).
 * Null when there is no compaction `k`. Pure; kept per transcript (transcripts are immutable), as
 * the recorded view, its passes and every context walk (one per composition part on the usage
 * timeline) ask for the same compactions. Source: see `recordedView`.
 */
function compactionContext(transcript: Transcript, k: number): CompactionContext | null {
  let held = compactionContexts.get(transcript)
  if (!held) compactionContexts.set(transcript, (held = new Map()))
  if (!held.has(k)) held.set(k, computeCompactionContext(transcript, k))
  return held.get(k) ?? null
}

/** What `compactionContext` answers. */
type CompactionContext = NonNullable<ReturnType<typeof computeCompactionContext>>

const compactionContexts = new WeakMap<Transcript, Map<number, CompactionContext | null>>()

function computeCompactionContext(transcript: Transcript, k: number) {
  const c = transcript.recordedCompactions[k]
  if (!c) return null
  const before = transcript.messages
  const boundary = Math.max(0, Math.min(c.atIndex, before.length))
  const carrier = summaryCarrier(before, c, boundary)
  const pre = before.slice(0, boundary).filter((m) => m !== carrier)
  const keptIds = new Set<string>()
  const context: { message: Message; kept: boolean; isSummary: boolean }[] = []
  if (c.replacementHistory && c.replacementHistory.length > 0) {
    const unused = pre.slice()
    for (const r of c.replacementHistory) {
      const text = contentText(r.content)
      const match = unused.findIndex((m) => m.role === r.role && contentText(m.content) === text)
      if (match >= 0) {
        const m = unused.splice(match, 1)[0] as Message
        keptIds.add(m.id)
        context.push({ message: m, kept: true, isSummary: false })
        continue
      }
      const isSummary =
        r.id === c.summaryMessageId ||
        (c.summaryText !== null && c.summaryText !== '' && text.includes(c.summaryText))
      context.push({ message: r, kept: false, isSummary })
    }
  } else {
    const explicit = c.keptMessageIds ? new Set(c.keptMessageIds) : undefined
    let leading = true
    for (const m of pre) {
      const isLeadingSystem = leading && m.role === 'system'
      if (!isLeadingSystem) leading = false
      const kept =
        isLeadingSystem ||
        (explicit ? explicit.has(m.id) : transcript.format === 'openai-responses' && m.role === 'user')
      if (kept) {
        keptIds.add(m.id)
        context.push({ message: m, kept: true, isSummary: false })
      }
    }
  }
  return { compaction: c, boundary, carrier, pre, keptIds, context }
}

/**
 * The recorded view of `transcript` after its last (or the chosen) recorded compaction, or null
 * when the transcript records none (or the index is out of range).
 *
 * - Boundary: messages before `atIndex` were compacted; the summary message (`summaryMessageId`,
 *   else a message at the boundary holding a `compaction` block) is placed right after what
 *   was kept; when there is none, a `user` summary message is synthesized from `summaryText`
 *   (id `recorded-summary-<pass>`), or `OPAQUE_SUMMARY_MARKER` when the text is not in the
 *   source.
 * - Kept before the boundary: `replacementHistory` when present (Codex: the model-visible
 *   history; a message equal in role and text to an unused before message is that message,
 *   verbatim; the one holding the summary text is the summary; others are `instruction`s the
 *   agent re-injected); else the leading system messages plus `keptMessageIds`, or by default
 *   every user message for Responses (the compact endpoint keeps user messages) and none for
 *   the other formats (Claude Code: system + summary + after).
 * - After: kept, summary, then every message from the boundary on (index = position).
 * - Fates: kept messages and messages after the boundary `kept`; the others `summarized`
 *   (stage `recorded`, pass, the summary's id). Origins: `original` (unchanged) for kept ones,
 *   `summary` (stage `recorded`, covered before ids and their index range) for the summary.
 * - Checks: `checkValidity` on both sides with the format's provider rules.
 * Pure. Source: formats.md §3, §4.2 (Responses), §4.4 (Claude Code), §4.5
 * (Codex).
 */
export function recordedView(
  transcript: Transcript,
  options: RecordedViewOptions = {},
): RecordedView | null {
  const k = options.compaction ?? transcript.recordedCompactions.length - 1
  const ctx = compactionContext(transcript, k)
  if (!ctx) return null
  const { compaction: c, boundary, carrier, pre, keptIds } = ctx
  const pass = k + 1
  const before = transcript.messages
  const warnings: string[] = []
  const post = before.slice(boundary).filter((m) => m !== carrier)
  const taken = new Set(before.map((m) => m.id))

  const after: Message[] = []
  const origins = inputRecord<Origin>()
  const keep = (m: Message) => {
    after.push(m)
    origins[m.id] = { kind: 'original', beforeId: m.id, changed: false }
  }

  const summaryIds: string[] = []
  for (const { message: r, kept, isSummary } of ctx.context) {
    if (kept) {
      keep(r)
      continue
    }
    const id = freshId(taken.has(r.id) ? `${r.id}-recorded` : r.id, taken)
    after.push({ ...r, id })
    if (isSummary) summaryIds.push(id)
    else origins[id] = { kind: 'instruction', stage: 'recorded' }
  }
  if (summaryIds.length === 0) {
    // The summary goes right after what was kept: the carrier, or one made from the record.
    let message = carrier
    if (!message) {
      message = {
        id: freshId(`recorded-summary-${pass}`, taken),
        index: 0,
        role: 'user',
        content: c.summaryText ?? OPAQUE_SUMMARY_MARKER,
        flags: { compactSummary: true },
        source: { format: transcript.format },
      }
      if (c.summaryText === null) {
        warnings.push(
          `recorded compaction ${pass}: its summary is not in the source ` +
            '(encrypted or not saved); a marker stands for it',
        )
      }
    }
    after.push(message)
    summaryIds.push(message.id)
  }

  const summarized = pre.filter((m) => !keptIds.has(m.id))
  const indices = summarized.map((m) => m.index)
  const summaryOrigin: Origin = {
    kind: 'summary',
    stage: 'recorded',
    pass,
    fromIndex: indices.length > 0 ? indices.reduce((a, b) => Math.min(a, b)) : boundary,
    toIndex: indices.length > 0 ? indices.reduce((a, b) => Math.max(a, b)) : boundary - 1,
    coveredIds: summarized.map((m) => m.id),
  }
  for (const id of summaryIds) origins[id] = summaryOrigin
  for (const m of post) keep(m)

  const summaryId = summaryIds[0] ?? ''
  const fates = inputRecord<Fate>()
  for (const m of before) {
    fates[m.id] =
      m.index >= boundary || keptIds.has(m.id) || m === carrier
        ? { kind: 'kept', changed: false }
        : { kind: 'summarized', stage: 'recorded', pass, summaryId }
  }
  const messages = after.map((m, i) => (m.index === i ? m : { ...m, index: i }))
  const provider = providerOf(transcript.format)
  const firstTurn = messages.find((m) => m.role !== 'system')
  const carrierFirst = carrier !== undefined && firstTurn?.id === carrier.id
  if (provider === 'anthropic' && carrierFirst && carrier.role !== 'user') {
    // Explains the first-not-user problem the checker reports on this view.
    warnings.push(
      `recorded compaction ${pass}: the API drops the messages before a compaction block itself; ` +
        'a request holding only this context would need a user turn first',
    )
  }
  return {
    compaction: c,
    pass,
    after: { messages },
    fates,
    origins,
    checks: {
      before: checkValidity(before, checkOptionsFor(transcript, provider)),
      after: checkValidity(messages, checkOptionsFor(transcript, provider)),
    },
    warnings,
  }
}

/**
 * The recorded compactions up to number `upto` (1-based, inclusive) as the passes of a run
 * (stage `recorded`, `pass` = the compaction's number), so the fact table, the finder and the
 * needed-facts check follow a fact through every compaction the agent made, as they follow a
 * simulation's rolling passes:
 * - `atMessage` = the boundary − 1 (the last message the agent had before compacting); `from` =
 *   the previous compaction's boundary (0 for the first), `upto` = this boundary; `kept` = the
 *   indices in `from`..`upto-1` the agent kept verbatim;
 * - `summary` = the summary the agent wrote (its record's text; the carrier message's text when the
 *   record has none; `''` when neither is in the source), `summaryId` = its carrier message (a
 *   Before message) or `recorded-summary-<n>`; `prompt` = `''` (the agent's prompt is not in the file);
 * - `tokensBefore` / `tokensAfter` = the context just before and just after the compaction, counted
 *   like a run's totals: `count` per message plus `overhead` (tool schemas, reply priming). Before:
 *   what the previous compaction left (none for the first) and the messages up to this boundary;
 *   after: what the agent kept and its summary. The agent's own figures stay on its record.
 * Also the first compaction that folded each Before message before boundary `upto` (`firstFold`,
 * by id: the compaction whose boundary it first fell behind without being kept), for the fates.
 * Compactions are taken in file order, the order the agent made them. Pure.
 */
function recordedPasses(
  transcript: Transcript,
  upto: number,
  count: (m: Message) => number,
  overhead: number,
): { passes: Pass[]; firstFold: Map<string, number> } {
  const passes: Pass[] = []
  const firstFold = new Map<string, number>()
  const walk = contextWalk(transcript, count, overhead)
  let from = 0
  for (let k = 0; k < Math.min(upto, walk.compactions.length); k++) {
    const ctx = compactionContext(transcript, k)
    if (!ctx) break
    const { compaction: c, boundary, carrier, pre, keptIds } = ctx
    const pass = k + 1
    for (const m of pre) if (!keptIds.has(m.id) && !firstFold.has(m.id)) firstFold.set(m.id, pass)
    const summaryMessage = carrier ?? ctx.context.find((e) => e.isSummary)?.message
    const kept = pre.filter((m) => keptIds.has(m.id) && m.index >= from).map((m) => m.index)
    const { tokensBefore, tokensAfter } = walk.compactions[k] as { tokensBefore: number; tokensAfter: number }
    const p: Pass = {
      pass,
      stage: 'recorded',
      atMessage: boundary - 1,
      from,
      upto: boundary,
      prompt: '',
      summary: c.summaryText ?? (summaryMessage ? contentText(summaryMessage.content) : ''),
      summaryId: summaryMessage?.id ?? `recorded-summary-${pass}`,
      tokensBefore,
      tokensAfter,
    }
    if (kept.length > 0) p.kept = kept
    passes.push(p)
    from = Math.max(from, boundary)
  }
  return { passes, firstFold }
}

/** The context the agent had along a transcript with recorded compactions (`contextWalk`). */
export interface ContextWalk {
  /**
   * `at[i]`: tokens of the context before message `i` (0 ≤ i ≤ messages.length) — what the request
   * that produced message `i` was sent: `overhead`, what the last recorded compaction before `i`
   * left (kept messages and its summary) and the messages from its boundary up to `i − 1`.
   */
  at: Float64Array
  /**
   * Per recorded compaction (file order): `tokensBefore`, the context right before it (what the
   * previous one left and the messages up to its boundary), and `tokensAfter`, what it left.
   */
  compactions: { tokensBefore: number; tokensAfter: number }[]
  /** The first recorded compaction's boundary (messages from it on come after a compaction); length + 1 with none. */
  firstBoundary: number
}

/**
 * Walks the context the agent really had through `transcript`, its recorded compactions taken in
 * file order: tokens are `count` per message plus `overhead` per request (tool schemas, reply
 * priming, and a calibration's fixed overhead when the counts are calibrated), and after each
 * compaction `reinjected` (what the agent puts back that the file does not show, fitted by a
 * calibration). Tool results the agent cleared in place (`Transcript.clearedToolResults`) count as
 * their placeholder from the clearing on. A compaction's summary carrier is counted once, in what the compaction left. One definition for the recorded
 * passes' token figures, the per-request estimates fitted to the file's usage
 * (usage/calibration.ts) and the usage timeline. O(messages) counts. Pure. Source: formats.md §3,
 * formats-more.md §10 (Claude Code: the summary and the messages after the boundary are the context).
 */
export function contextWalk(
  transcript: Transcript,
  count: (m: Message) => number,
  overhead: number,
  reinjected = 0,
): ContextWalk {
  const messages = transcript.messages
  const at = new Float64Array(messages.length + 1)
  const compactions: ContextWalk['compactions'] = []
  const counted = new Set<Message>()
  let firstBoundary = messages.length + 1
  let sum = overhead
  let i = 0
  // Tool results in the context since the last compaction, by tool_call_id, with their count.
  const results = new Map<string, { message: Message; tokens: number }>()
  const clearings = transcript.clearedToolResults ?? []
  let nextClearing = 0
  const clearUpTo = (index: number) => {
    for (; nextClearing < clearings.length && (clearings[nextClearing] as ClearedToolResults).atIndex <= index; nextClearing++) {
      const c = clearings[nextClearing] as ClearedToolResults
      for (const id of c.toolCallIds) {
        const r = results.get(id)
        if (!r) continue
        results.delete(id)
        sum += count({ ...r.message, content: c.placeholder }) - r.tokens
      }
    }
  }
  const advanceTo = (end: number) => {
    for (; i < end; i++) {
      clearUpTo(i)
      at[i] = sum
      const m = messages[i] as Message
      if (counted.has(m)) continue
      const n = count(m)
      sum += n
      if (m.role === 'tool' && m.toolCallId !== undefined) results.set(m.toolCallId, { message: m, tokens: n })
    }
    clearUpTo(end)
  }
  for (let k = 0; k < transcript.recordedCompactions.length; k++) {
    const ctx = compactionContext(transcript, k)
    if (!ctx) break
    if (ctx.carrier) counted.add(ctx.carrier)
    advanceTo(ctx.boundary)
    results.clear()
    const tokensBefore = sum
    let left = ctx.context.reduce((n, e) => n + count(e.message), 0)
    // A summary outside the kept context: its carrier message, or one made of the record's text.
    if (!ctx.context.some((e) => e.isSummary)) {
      left += ctx.carrier
        ? count(ctx.carrier)
        : count({
            id: '',
            index: 0,
            role: 'user',
            content: ctx.compaction.summaryText ?? OPAQUE_SUMMARY_MARKER,
            source: { format: transcript.format },
          })
    }
    sum = left + overhead + reinjected
    compactions.push({ tokensBefore, tokensAfter: sum })
    firstBoundary = Math.min(firstBoundary, ctx.boundary)
  }
  advanceTo(messages.length)
  at[messages.length] = sum
  return { at, compactions, firstBoundary }
}

/** A recorded view in the full shape of a pipeline run (totals counted like `runPipeline`). */
export interface RecordedRun extends RunResult {
  compaction: RecordedCompaction
  /** 1-based number of the compaction shown. */
  pass: number
  /** The recorded compactions up to the one shown, in file order: `passes[k]` is `compactions[k]`. */
  compactions: RecordedCompaction[]
}

/**
 * `recordedView` as a `RunResult`, so the page and the CLI show it exactly like a simulation:
 * tokens per message as `runPipeline` counts them (`transcriptCounts`); totals like `runPipeline` (`tokens` = messages +
 * tool schemas + `REPLY_PRIMING_TOKENS`; `overheadTokens` = leading system messages + tool
 * schemas); `passes` every recorded compaction up to the one shown (`recordedPasses`), each Before
 * message the view summarized folded (`fate.pass`) by the first of them that left it behind, so a
 * fact is blamed on the compaction that really dropped it; `stages` empty (nothing was
 * simulated); warnings = the transcript's plus the view's. Null when the transcript records no
 * compaction. Counts are tokens of the counter's encoding under `options.calibration` (as a
 * simulation's), not the agent's own figures (those
 * are on `compaction.tokensBefore/After` and on each pass).
 */
export function recordedRunResult(
  transcript: Transcript,
  counter: CachedCounter,
  options: RecordedViewOptions = {},
): RecordedRun | null {
  const view = recordedView(transcript, options)
  if (!view) return null
  const calibration = options.calibration ?? RAW_COUNTS
  const { message: count, fixed } = transcriptCounts(transcript, counter, calibration)
  const schemaTokens = fixed - REPLY_PRIMING_TOKENS
  const side = (messages: Message[]) => {
    const tokensById = inputRecord<number>()
    let tokens = 0
    let lead = 0
    let leading = true
    for (const m of messages) {
      const n = count(m)
      tokensById[m.id] = n
      tokens += n
      if (leading && m.role === 'system') lead += n
      else leading = false
    }
    const totals: TokenTotals = {
      messages: messages.length,
      tokens: tokens + schemaTokens + REPLY_PRIMING_TOKENS,
      overheadTokens: lead + schemaTokens,
    }
    return { messages, totals, tokensById }
  }
  const { passes, firstFold } = recordedPasses(transcript, view.pass, count, schemaTokens + REPLY_PRIMING_TOKENS)
  const fates = inputRecord<Fate>()
  for (const [id, fate] of Object.entries(view.fates))
    fates[id] = fate.kind === 'summarized' ? { ...fate, pass: firstFold.get(id) ?? fate.pass } : fate
  return {
    calibration,
    compaction: view.compaction,
    pass: view.pass,
    compactions: transcript.recordedCompactions.slice(0, view.pass),
    before: side(transcript.messages),
    after: side(view.after.messages),
    fates,
    origins: view.origins,
    passes,
    stages: [],
    checks: view.checks,
    warnings: [...transcript.warnings, ...view.warnings],
  }
}

/** Recorded vs simulated compaction of the same transcript. */
export interface RecordedComparison {
  recorded: { messages: number; tokens: number }
  simulated: { messages: number; tokens: number }
  /** Before-message ids (in before order) that each side kept verbatim (fate `kept`). */
  keptVerbatim: { both: string[]; recordedOnly: string[]; simulatedOnly: string[] }
}

/**
 * Compares what the agent really kept (`recordedRunResult`) with a simulation (`runPipeline`) of
 * the same transcript: after-side messages and tokens of both, and which before messages each
 * kept verbatim. Both results must come from the same transcript (same before ids). Pure.
 */
export function compareRecordedVsSimulated(
  recorded: RecordedRun,
  simulated: RunResult,
): RecordedComparison {
  const both: string[] = []
  const recordedOnly: string[] = []
  const simulatedOnly: string[] = []
  for (const m of recorded.before.messages) {
    const r = recorded.fates[m.id]?.kind === 'kept'
    const s = simulated.fates[m.id]?.kind === 'kept'
    if (r && s) both.push(m.id)
    else if (r) recordedOnly.push(m.id)
    else if (s) simulatedOnly.push(m.id)
  }
  return {
    recorded: { messages: recorded.after.totals.messages, tokens: recorded.after.totals.tokens },
    simulated: {
      messages: simulated.after.totals.messages,
      tokens: simulated.after.totals.tokens,
    },
    keptVerbatim: { both, recordedOnly, simulatedOnly },
  }
}
