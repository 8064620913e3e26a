import { isEmptyMessage } from './content'
import { requestFormatOf } from './formats/index'
import { SEED_STAGES } from './presets'
/**
 * The pipeline: runs the enabled stages in the configured order over a transcript, counts
 * tokens, composes every stage's provenance into one before → after mapping, and runs the
 * validity checks on both sides. Pure over its inputs (the summarizer is the only I/O);
 * deterministic; never mutates the transcript. Source: SPEC §3 (pipeline), §4 (provenance),
 * §5 (validity); DESIGN §1.
 */
import {
  checkOptionsFor,
  checkValidity,
  findDanglingBackReferences,
  requiresUserFirst,
  type CheckOptions,
} from './analysis/checks'
import type {
  FailureModeWarning,
  Fate,
  FormatId,
  Message,
  Origin,
  PipelineConfig,
  RunResult,
  StageConfig,
  StageId,
  StageReport,
  TokenTotals,
  Transcript,
  TriggerDecision,
} from './model'
import { copyPass } from './model'
import { windowOf } from './models'
import { checkFailureModes } from './analysis/failure-modes'
import { SUMMARY_ID_PREFIX, unchangedOutput } from './stages/output'
import { PINNED_FACTS_ID } from './stages/pin-facts'
import { runStage } from './stages/registry'
import { stageMemoKey, stageMemoOf } from './stage-memo'
import { withOpeningUserTurn } from './stages/opening-turn'
import { withThinkingRules } from './stages/thinking'
import type {
  CancelSignal,
  StageContext,
  StageOutput,
  Summarizer,
  SummaryRequest,
} from './stages/types'
import { createSummarizer, type SummarizerRuntime } from './summarizers/create'
import { extractiveSummarizer } from './summarizers/extractive'
import {
  chunkedRunLength,
  countMessageTokens,
  countToolSchemaTokens,
  messageChunkedRun,
  REPLY_PRIMING_TOKENS,
  type CachedCounter,
} from './tokens/count'
import { calibrationFor, messageCountCache, transcriptCounts } from './usage/calibration'
import { inputRecord } from './util/input-record'

/**
 * The default pipeline: the seeds' stage list (`SEED_STAGES` in presets.ts, where its values are
 * explained) with `o200k_base` and the offline extractive summarizer.
 */
export const DEFAULT_PIPELINE: PipelineConfig = {
  encoding: 'o200k_base',
  summarizer: 'extractive',
  stages: SEED_STAGES.map((s) => ({ ...s, params: { ...s.params } }) as StageConfig),
}

/** Dependencies of a pipeline run. */
export interface PipelineDeps {
  /** The token counter of `config.encoding` (tokens/count.ts `loadCounter`). */
  counter: CachedCounter
  /**
   * The summarizer to use. When absent, one is built from `config.summarizer`,
   * `config.summarizerOptions` and `summarizerRuntime` (summarizers/create.ts); when that is not
   * possible (no fetch, no base URL/model), the offline extractive one, with a warning.
   */
  summarizer?: Summarizer
  /** The key, `fetch`, the summary cache…: never part of the config (never stored or shared). */
  summarizerRuntime?: SummarizerRuntime
  /** Cancels the run; a real `AbortSignal` also aborts a summarizer request in flight. */
  signal?: CancelSignal
  /**
   * Leave out the validity and failure-mode checks (`checks` comes back with empty lists): for
   * callers that need only the context and its tokens, such as the token timeline's many prefix
   * runs (turns.ts), where the checks would cost more than the stages.
   */
  skipChecks?: boolean
  /**
   * Leave `checks.failureModes` undefined (the validity checks still run): the caller shows the
   * run first and asks `failureModesOf(result)` after, as the page does — on a 50 MB session the
   * fact-based checks cost more than a re-plan's stages.
   */
  deferFailureModes?: boolean
}

/**
 * The validity provider of a transcript format: `anthropic` for formats whose requests are
 * Anthropic Messages (the importer's `requestFormat`: Anthropic Messages, Claude Code), else `openai`.
 */
export function providerOf(format: FormatId): 'anthropic' | 'openai' {
  return requestFormatOf(format) === 'anthropic' ? 'anthropic' : 'openai'
}

/**
 * What a current message stands for in the before transcript. `original`: an original
 * message (maybe changed); `back-reference` / `placeholder`: an original rewritten; `derived`:
 * a synthesized message (summary, pinned facts, instruction) with the before ids it covers.
 */
type Lineage =
  | { kind: 'original'; beforeId: string; changed: boolean }
  | { kind: 'back-reference'; beforeId: string; firstId: string; stage: StageId }
  | { kind: 'placeholder'; beforeId: string; stage: StageId }
  | { kind: 'derived'; origin: Origin; coveredIds: string[] }

function lineageToOrigin(l: Lineage): Origin {
  switch (l.kind) {
    case 'original':
      return { kind: 'original', beforeId: l.beforeId, changed: l.changed }
    case 'back-reference':
      return { kind: 'back-reference', beforeId: l.beforeId, firstId: l.firstId, stage: l.stage }
    case 'placeholder':
      return { kind: 'placeholder', beforeId: l.beforeId, stage: l.stage }
    case 'derived':
      return l.origin
  }
}

/** Before ids a current message stands for. */
function beforeIdsOf(l: Lineage | undefined, fallbackId: string): string[] {
  if (!l) return [fallbackId]
  return l.kind === 'derived' ? l.coveredIds : [l.beforeId]
}

/**
 * Runs the enabled stages of `config` in order over `transcript`.
 *
 * - Tokens: `countMessageTokens` over `deps.counter.count`, cached per message object.
 *   A message whose count is an estimate (a run counted in chunks, `messageChunkedRun`) is in
 *   `estimateById`, and the totals of a side holding one (or tool schemas holding one) say
 *   `estimate: true`.
 *   Totals: `tokens` = all messages + tool schemas + `REPLY_PRIMING_TOKENS`; `overheadTokens`
 *   = leading system messages + tool schemas (not compactable, cases/28).
 * - Calibration (`calibrationFor` over `config.calibration`, usage/calibration.ts): every count is
 *   the agent's — each message's tokens and the tool schemas times the ratio (rounded), and the
 *   fixed overhead added to every context (in `overheadTokens` and `StageContext.fixedTokens`,
 *   so triggers compare the agent's figure). `result.calibration` says which.
 * - Stages: `dedupe`, `prune-tool-results` (given dedupe's back-reference map), `summarize`,
 *   `insert-then-compress` (with `summary_role: 'user'` on Anthropic transcripts unless set,
 *   so the first non-system message stays a user turn), `slim`, `pin-facts` (given the
 *   before messages, to see what was compacted).
 * - Provider rules, applied to every stage's output (before the growth rule below): where the
 *   request must open with a user turn (`requiresUserFirst`), a summary the stage wrote that would
 *   open it in another role — a `summary_role` set explicitly — takes the user role, with a
 *   warning (stages/opening-turn.ts); signed thinking blocks of earlier turns after the first
 *   message the run changed are dropped whole (stages/thinking.ts `withThinkingRules`, again after
 *   the send-ready cleanup). A stage error (returned or thrown)
 *   becomes `StageReport.error`, and the stage's input passes through; nothing throws out.
 *   When `deps.signal` aborts, the remaining stages report `cancelled` and pass through.
 * - A stage's change that would grow the context is refused: its input passes through, the
 *   refusal is its `note` and a warning (see `growthRefusal`). A pinned block that would make
 *   the context larger than the Before undoes the whole compaction instead (the facts it
 *   carries stay verbatim where they were; the earlier stages' notes say `undone`). So After
 *   tokens ≤ Before tokens.
 * - After a stage, a back-reference whose first occurrence is no longer whole in context
 *   (summarized away) is reported in `warnings` (see `warnDanglingBackReferences`).
 * - Provenance: `fates` keyed by before id (`kept` when untouched; a later stage's fate wins;
 *   a fate on a synthesized message applies to every before message it covers); `origins`
 *   keyed by after id (summaries list the before ids they cover, through earlier summaries
 *   and back-references, with the before `fromIndex`/`toIndex`).
 * - After messages are re-indexed (`index === position`); originals keep their id.
 * - Checks: `checkValidity` on both sides, provider from `transcript.format` (`providerOf`);
 *   `checks.failureModes`: the seed 004 failure modes (failure-modes.ts), [] when no stage
 *   changed anything. Both are left out (empty) with `deps.skipChecks`; the failure modes alone
 *   with `deps.deferFailureModes` (undefined until `failureModesOf`).
 * - Incremental: a stage whose input is the array an earlier run's stage saw, under the same
 *   settings, gives that run's output again without running (stage-memo.ts), so a re-plan runs
 *   the stages from the first one whose input or params changed; the result is the same.
 * Deterministic for a deterministic summarizer; never mutates `transcript`.
 */
export async function runPipeline(
  transcript: Transcript,
  config: PipelineConfig,
  deps: PipelineDeps,
): Promise<RunResult> {
  const countText = deps.counter.count
  // A summary a stage made repeats most of the one before it: counted by its segments (the same
  // count). The transcript's own texts, a recorded summary too, are counted whole.
  const countComposed = deps.counter.countComposed?.bind(deps.counter) ?? countText
  const cache = messageCountCache(deps.counter)
  // Every count of the run is the agent's: our count calibrated to the file's usage (or as set).
  const calibration = calibrationFor(transcript, config.calibration, deps.counter)
  const rawCount = (m: Message): number => {
    let n = cache.get(m)
    if (n === undefined) {
      n = countMessageTokens(m, m.id.startsWith(SUMMARY_ID_PREFIX) ? countComposed : countText)
      cache.set(m, n)
    }
    return n
  }
  const counts = transcriptCounts(transcript, deps.counter, calibration, rawCount)
  const countMessage = counts.message
  // Tool schemas (calibrated) and the calibration's overhead: every request carries them.
  const schemaTokens = counts.fixed - REPLY_PRIMING_TOKENS
  let schemaEstimate = false
  countToolSchemaTokens(transcript.tools, (text) => {
    schemaEstimate ||= chunkedRunLength(text) > 0
    return 0
  })
  const memo = stageMemoOf(transcript, deps.counter, `${calibration.overhead}:${calibration.ratio}`)
  // A copy: callers own the totals they get; the memo keeps its own per array.
  const totalsOf = (messages: readonly Message[]): TokenTotals => {
    const facts = memo.factsOf(messages)
    facts.totals ??= countTotals(messages)
    return { ...facts.totals }
  }
  const countTotals = (messages: readonly Message[]): TokenTotals => {
    let tokens = 0
    let lead = 0
    let leading = true
    let estimate = schemaEstimate
    for (const m of messages) {
      const n = countMessage(m)
      tokens += n
      if (leading && m.role === 'system') lead += n
      else leading = false
      if (!estimate && messageChunkedRun(m) > 0) estimate = true
    }
    return {
      messages: messages.length,
      tokens: tokens + schemaTokens + REPLY_PRIMING_TOKENS,
      overheadTokens: lead + schemaTokens,
      ...(estimate ? { estimate: true as const } : {}),
    }
  }

  const warnings = [...transcript.warnings]
  let summarizer = deps.summarizer
  if (!summarizer) {
    const choice = createSummarizer(
      config.summarizer,
      config.summarizerOptions,
      transcript.recordedCompactions,
      deps.summarizerRuntime,
    )
    if (choice.ok) summarizer = choice.summarizer
    else {
      warnings.push(
        `summarizer "${config.summarizer}" is not available here: ${choice.problem}; the offline extractive summarizer was used`,
      )
      summarizer = extractiveSummarizer
    }
  }
  const inner = summarizer
  // The stages know messages only: the run adds what a request to a provider also carries.
  const summarize: Summarizer = (request) => {
    const full: SummaryRequest = { ...request, format: transcript.format }
    if (transcript.tools) full.tools = transcript.tools
    if (deps.signal) full.signal = deps.signal
    return inner(full)
  }
  const ctx: StageContext = {
    countMessage,
    countText,
    summarize,
    fixedTokens: schemaTokens + REPLY_PRIMING_TOKENS,
    window: windowOf(config.window),
  }
  if (deps.signal) ctx.signal = deps.signal
  const provider = providerOf(transcript.format)
  const userFirst = requiresUserFirst(checkOptionsFor(transcript, provider))

  const before = transcript.messages
  const beforeIndex = new Map(before.map((m, i) => [m.id, i]))
  let fates = new Map<string, Fate>()
  let lineage = new Map<string, Lineage>()
  for (const m of before) lineage.set(m.id, { kind: 'original', beforeId: m.id, changed: false })
  // The two maps may be a kept `Composed` (shared with later runs): copied before any write.
  let shared = false
  const own = () => {
    if (!shared) return
    fates = new Map(fates)
    lineage = new Map(lineage)
    shared = false
  }

  // The transcript's own array, never a copy: the stage memo knows a stage's input by identity.
  let current: readonly Message[] = before
  const beforeTokens = totalsOf(before).tokens
  const warningsBeforeStages = warnings.length
  const passes: RunResult['passes'] = []
  const decisions: TriggerDecision[] = []
  const stages: StageReport[] = []
  let cancelled = false

  for (const stage of config.stages) {
    if (!stage.enabled) continue
    const tokensBefore = totalsOf(current).tokens
    const messagesBefore = current.length
    const report: StageReport = {
      stage: stage.id,
      changed: false,
      tokensBefore,
      tokensAfter: tokensBefore,
      messagesBefore,
      messagesAfter: messagesBefore,
    }
    stages.push(report)
    if (cancelled || deps.signal?.aborted) {
      cancelled = true
      report.error = 'cancelled'
      continue
    }

    let output: StageOutput
    const messagesIn = current
    const memoKey = stageMemoKey(stage, config, deps)
    let kept: StageOutput | undefined
    try {
      kept = memo.get(messagesIn, memoKey)
      if (kept) output = kept
      else {
        // The provider's rules hold for every stage's output: the request opens with a user turn
        // (opening-turn.ts) and signed thinking is kept or dropped whole (thinking.ts).
        const ran = await runStage(stage, messagesIn, {
          ctx,
          provider,
          original: before,
          backReferences: () => currentBackReferences(messagesIn, lineage),
        })
        output = withThinkingRules(userFirst ? withOpeningUserTurn(ran) : ran, stage.id, before)
        // Kept before anything below reads it; the pipeline never writes into a stage's output.
        if (output.error === undefined && !deps.signal?.aborted) memo.set(messagesIn, memoKey, output)
      }
    } catch (e) {
      report.error = deps.signal?.aborted ? 'cancelled' : e instanceof Error ? e.message : String(e)
      if (deps.signal?.aborted) cancelled = true
      continue
    }
    if (output.note !== undefined) report.note = output.note
    // The stage's own decision objects (read-only: the output may be a kept one that a later run
    // reads again); `unapplied` puts a marked copy in place of each one it changes.
    const stageDecisionsFrom = decisions.length
    for (const d of output.decisions ?? []) decisions.push(d)
    const applies = output.changed && output.error === undefined
    const tokensAfter = applies ? totalsOf(output.messages).tokens : tokensBefore
    const refusal = applies
      ? growthRefusal(stage.id, output.messages, tokensBefore, tokensAfter, beforeTokens, countMessage)
      : undefined
    if (refusal !== undefined) {
      // The change is not applied: its warnings (and passes, fates, origins) describe nothing shown.
      const undo = stage.id === 'pin-facts' && stages.some((r) => r.changed)
      if (undo) {
        // The facts the earlier stages took out cannot ride along for less than those stages
        // saved, and leaving them out would lose them: the compaction is undone, every message
        // stays verbatim (the context is the Before, never larger).
        current = before.slice()
        fates = new Map()
        lineage = new Map()
        shared = false
        for (const m of before) lineage.set(m.id, { kind: 'original', beforeId: m.id, changed: false })
        passes.length = 0
        warnings.length = warningsBeforeStages
        for (const r of stages) {
          if (!r.changed) continue
          r.changed = false
          r.note = `undone (${r.tokensBefore} → ${r.tokensAfter} tokens): the pinned block would cost more than the compaction saved`
          r.tokensAfter = r.tokensBefore
          r.messagesAfter = r.messagesBefore
        }
      }
      report.note = undo ? `${refusal}; the compaction was undone, every message stays verbatim` : `${refusal}; left out`
      warnings.push(`${stage.id}: ${report.note}`)
      unapplied(decisions, undo ? 0 : stageDecisionsFrom, `the pipeline left the change out: ${refusal}`)
      continue
    }
    for (const w of output.warnings) warnings.push(`${stage.id}: ${w}`)
    if (output.error !== undefined) {
      // A summarizer request aborted by the signal surfaces as a stage error: it is a cancel.
      if (deps.signal?.aborted) output.error = 'cancelled'
      report.error = output.error
      if (output.error === 'cancelled') cancelled = true
      unapplied(decisions, stageDecisionsFrom, `the stage stopped: ${output.error}`)
      continue
    }
    if (!output.changed) continue

    // A new array for every applied change, so the provenance up to an array is a function of
    // that array alone (what `Composed` relies on).
    current = output.messages === messagesIn ? output.messages.slice() : output.messages
    const facts = memo.factsOf(current)
    const composed = kept ? (facts.provenance as Composed | undefined) : undefined
    if (composed) {
      fates = composed.fates
      lineage = composed.lineage
      shared = true
      for (const w of composed.dangling) warnings.push(w)
    } else {
      own()
      composeProvenance(output, fates, lineage, beforeIndex)
      const from = warnings.length
      warnDanglingBackReferences(current, lineage, stage.id, warnings)
      facts.provenance = { fates, lineage, dangling: warnings.slice(from) } satisfies Composed
      shared = true
    }
    for (const item of output.passes) passes.push(copyPass(item))
    report.changed = true
    report.tokensAfter = tokensAfter
    report.messagesAfter = current.length
  }

  // A compacted context is about to be sent: providers reject empty messages, so once any
  // stage changed the context, empty ones left over from the source are dropped (cases/34).
  // When no stage changed anything (a trigger reached but held included) the context stays
  // byte-identical to the input: nothing is removed when nothing fired (cases/09, 15).
  let cleanup: RunResult['cleanup']
  if (stages.some((s) => s.changed)) {
    const { sent, dropped } = dropEmptyMessages(current, lineage)
    if (dropped.length > 0) own()
    for (const id of dropped) fates.set(id, { kind: 'dropped', stage: 'pipeline', reason: EMPTY_MESSAGE_REASON })
    if (sent !== current) {
      const tokens = totalsOf(current).tokens - totalsOf(sent).tokens
      cleanup = { messages: current.length - sent.length, tokens }
      warnings.push(
        `send-ready cleanup: ${cleanup.messages} empty message(s) dropped before sending (${EMPTY_MESSAGE_REASON}), ${tokens} tokens`,
      )
      current = sent
      // A dropped message changed what later thinking blocks were signed with: the rules again.
      const ruled = withThinkingRules({ ...unchangedOutput(current, ''), changed: true }, 'pipeline', before)
      if (ruled.messages !== current) {
        own()
        composeProvenance(ruled, fates, lineage, beforeIndex)
        for (const w of ruled.warnings) warnings.push(`send-ready cleanup: ${w}`)
        current = ruled.messages
      }
    }
  }

  const after = current.map((m, i) => (m.index === i ? m : { ...m, index: i }))
  const origins = inputRecord<Origin>()
  current.forEach((m) => {
    origins[m.id] = lineageToOrigin(
      lineage.get(m.id) ?? { kind: 'original', beforeId: m.id, changed: true },
    )
  })
  const fateRecord = inputRecord<Fate>()
  for (const m of before) fateRecord[m.id] = fates.get(m.id) ?? { kind: 'kept', changed: false }

  const side = (ms: Message[]): RunResult['before'] => {
    const tokensById = inputRecord<number>()
    const estimateById = inputRecord<number>()
    let estimates = false
    for (const m of ms) {
      tokensById[m.id] = countMessage(m)
      const run = messageChunkedRun(m)
      if (run > 0) estimateById[m.id] = run
      estimates ||= run > 0
    }
    return { messages: ms, totals: totalsOf(ms), tokensById, ...(estimates ? { estimateById } : {}) }
  }
  const result: RunResult = {
    calibration,
    before: side(before),
    after: side(after),
    fates: fateRecord,
    origins,
    passes,
    decisions,
    stages,
    checks: {
      before: deps.skipChecks ? [] : beforeValidity(before, checkOptionsFor(transcript, provider)),
      after: deps.skipChecks ? [] : checkValidity(after, { ...checkOptionsFor(transcript, provider), before }),
    },
    warnings,
    ...(cleanup ? { cleanup } : {}),
  }
  if (deps.skipChecks) result.checks.failureModes = []
  else if (!deps.deferFailureModes) result.checks.failureModes = failureModesOf(result)
  return result
}

/**
 * The failure-mode warnings of `result` (analysis/failure-modes.ts, seed 004): the ones it
 * carries, else computed from its provenance and kept on it (`checks.failureModes`). None when
 * nothing compacted — no stage changed anything and no pass was made (a recorded run has no
 * stages, its passes are the agent's compactions): nothing can drift, be lost or be invented, so
 * the scan is skipped.
 */
export function failureModesOf(result: RunResult): FailureModeWarning[] {
  if (!result.checks.failureModes) {
    const compacted = result.stages.some((s) => s.changed) || result.passes.length > 0
    result.checks.failureModes = compacted ? checkFailureModes(result) : []
  }
  return result.checks.failureModes
}

/**
 * Marks the fired decisions of `decisions[from..]` as not applied (`fired: false`, `held: why`, no
 * pass or tokens after), each by a copy put in its place: the decision objects a stage returned
 * are never written (a kept stage output is read again by a later run).
 */
function unapplied(decisions: TriggerDecision[], from: number, why: string): void {
  for (let i = from; i < decisions.length; i++) {
    const d = decisions[i]!
    if (!d.fired) continue
    const { pass: _pass, tokensAfter: _tokensAfter, ...rest } = d
    decisions[i] = { ...rest, fired: false, held: why }
  }
}

/**
 * Why a stage's change is refused because it would grow the context (a clause ending with the
 * token totals), or undefined when it may
 * stand. Compaction never grows the context it exists to shrink (seed 001): a stage's output
 * may not be larger (tokens, context totals) than its input (`tokensBefore`), except
 * `pin-facts`, which adds a block by design and may spend what the earlier stages saved, but
 * not more: its output may not be larger than the run's Before (`beforeTokens`). Stages guard
 * their own steps (a summary pass, a placeholder, a back-reference) where their seeds promise
 * it; this is the rule for the whole change.
 */
function growthRefusal(
  stage: StageId,
  output: readonly Message[],
  tokensBefore: number,
  tokensAfter: number,
  beforeTokens: number,
  countMessage: (m: Message) => number,
): string | undefined {
  if (stage === 'pin-facts') {
    if (tokensAfter <= beforeTokens) return undefined
    const block = output.find((m) => m.id === PINNED_FACTS_ID)
    const size = block ? ` (${countMessage(block)} tokens)` : ''
    return `the pinned block${size} would make the context larger than before (${beforeTokens} → ${tokensAfter} tokens)`
  }
  if (tokensAfter <= tokensBefore) return undefined
  return `its change would make the context larger than before this stage (${tokensBefore} → ${tokensAfter} tokens)`
}

/** The Before's validity problems per messages array and provider: the same on every re-plan. */
const validityOfBefore = new WeakMap<readonly Message[], Map<string, RunResult['checks']['before']>>()

function beforeValidity(before: readonly Message[], options: CheckOptions): RunResult['checks']['before'] {
  let byProvider = validityOfBefore.get(before)
  if (!byProvider) validityOfBefore.set(before, (byProvider = new Map()))
  const key = `${options.provider ?? 'openai'}${options.responseOnly ? ' response' : ''}`
  let problems = byProvider.get(key)
  if (!problems) byProvider.set(key, (problems = checkValidity(before, options)))
  // A copy: callers own the RunResult they get.
  return problems.map((p) => ({ ...p, messageIds: [...p.messageIds] }))
}

/** Back-reference id → first-occurrence id, for the current messages (ids are kept by dedupe). */
function currentBackReferences(
  messages: readonly Message[],
  lineage: Map<string, Lineage>,
): Record<string, string> {
  const refs = inputRecord<string>()
  for (const m of messages) {
    const l = lineage.get(m.id)
    if (l?.kind === 'back-reference') refs[m.id] = l.firstId
  }
  return refs
}

/**
 * Folds one stage's `fates`/`origins` (keyed by the stage's input/output ids) into the run's
 * before-keyed fates and the current messages' lineage. Mutates only the two maps it is given.
 */
/**
 * The provenance a run had composed when its context became one stage's output array: the fates
 * and lineage, and the dangling back-reference warnings that array raised. Within a run the
 * fates and lineage change only when the context becomes a new array (an applied stage, the
 * undo of pin-facts, the send-ready cleanup), and an array is reached only through the same
 * stages' outputs, so a later run that reuses that output (stage-memo.ts) starts from this.
 */
interface Composed {
  /** Shared by every run that reuses the output: never written (the pipeline copies first). */
  fates: Map<string, Fate>
  lineage: Map<string, Lineage>
  dangling: readonly string[]
}

function composeProvenance(
  output: StageOutput,
  fates: Map<string, Fate>,
  lineage: Map<string, Lineage>,
  beforeIndex: Map<string, number>,
): void {
  // Fates first: they are keyed by input ids, whose lineage the origins below may replace.
  for (const [inputId, fate] of Object.entries(output.fates)) {
    const l = lineage.get(inputId)
    const mapped: Fate =
      fate.kind === 'back-referenced'
        ? {
            ...fate,
            firstId: beforeIdsOf(lineage.get(fate.firstId), fate.firstId)[0] ?? fate.firstId,
          }
        : fate
    for (const beforeId of beforeIdsOf(l, inputId)) fates.set(beforeId, mapped)
  }
  const next = new Map<string, Lineage>()
  for (const [outputId, origin] of Object.entries(output.origins)) {
    next.set(outputId, toLineage(origin, lineage, beforeIndex))
  }
  for (const [id, l] of next) lineage.set(id, l)
}

function toLineage(
  origin: Origin,
  lineage: Map<string, Lineage>,
  beforeIndex: Map<string, number>,
): Lineage {
  const base = (id: string) => beforeIdsOf(lineage.get(id), id)
  switch (origin.kind) {
    case 'original': {
      const l = lineage.get(origin.beforeId)
      if (l && l.kind !== 'original') return l.kind === 'derived' ? l : { ...l }
      return {
        kind: 'original',
        beforeId: base(origin.beforeId)[0] ?? origin.beforeId,
        changed: origin.changed || (l?.changed ?? false),
      }
    }
    case 'back-reference':
      return {
        kind: 'back-reference',
        beforeId: base(origin.beforeId)[0] ?? origin.beforeId,
        firstId: base(origin.firstId)[0] ?? origin.firstId,
        stage: origin.stage,
      }
    case 'placeholder':
      return {
        kind: 'placeholder',
        beforeId: base(origin.beforeId)[0] ?? origin.beforeId,
        stage: origin.stage,
      }
    case 'summary': {
      const coveredIds = unique(origin.coveredIds.flatMap(base))
      const indices = coveredIds
        .map((id) => beforeIndex.get(id))
        .filter((n): n is number => n !== undefined)
      let fromIndex = Infinity
      let toIndex = -Infinity
      for (const n of indices) {
        if (n < fromIndex) fromIndex = n
        if (n > toIndex) toIndex = n
      }
      const range = indices.length > 0 ? { fromIndex, toIndex } : {}
      return { kind: 'derived', coveredIds, origin: { ...origin, coveredIds, ...range } }
    }
    case 'pinned-facts': {
      const sourceIds = unique(origin.sourceIds.flatMap(base))
      return { kind: 'derived', coveredIds: [], origin: { ...origin, sourceIds } }
    }
    case 'instruction':
      return { kind: 'derived', coveredIds: [], origin }
  }
}

function unique(ids: string[]): string[] {
  return [...new Set(ids)]
}

/**
 * Warns about back-references whose first occurrence is no longer whole in context (folded
 * into a summary). They are left as they are on purpose: seed 000's back-reference carries no
 * positional pointer precisely because the original may be evicted first; its one-line
 * summary stands alone. (A *pruned* original is handled by prune-tool-results itself, which
 * turns such back-references into placeholders: cases/47.)
 */
function warnDanglingBackReferences(
  messages: readonly Message[],
  lineage: Map<string, Lineage>,
  stage: StageId,
  warnings: string[],
): void {
  const refs = currentBackReferences(messages, lineage)
  if (Object.keys(refs).length === 0) return
  for (const d of findDanglingBackReferences(messages, refs)) {
    warnings.push(
      `${stage}: back-reference ${d.id} now stands alone: its first occurrence ${d.firstId ?? ''} is no longer in context (its one-line summary remains)`,
    )
  }
}

/** Why the send-ready cleanup drops a message (shown as its fate). */
export const EMPTY_MESSAGE_REASON = 'empty message: providers reject empty content'

/**
 * Drops messages with no content, parts or tool calls, except a final assistant message (a
 * prefill may be empty) and a first non-system `user` message whose drop would leave another
 * role first (the request must open with a user turn: dropping it would trade one rejected
 * request for another): `sent` (the input itself when nothing is dropped), and `dropped`, the
 * before-transcript ids of what was dropped (their fate becomes `dropped`). Source: cases/34
 * (empty content arrays and empty text blocks must not be sent); SPEC §5 (first-not-user).
 */
function dropEmptyMessages(
  messages: readonly Message[],
  lineage: Map<string, Lineage>,
): { sent: readonly Message[]; dropped: string[] } {
  const last = messages.length - 1
  const first = messages.findIndex((m) => m.role !== 'system')
  const empty = (m: Message, i: number) =>
    isEmptyMessage(m) && m.role !== 'tool' && !(i === last && m.role === 'assistant')
  // The first message that survives after the opening one: it would open the request instead.
  const opensAfter = first === -1 ? undefined : messages.find((m, i) => i > first && m.role !== 'system' && !empty(m, i))
  const keepOpening = messages[first]?.role === 'user' && opensAfter?.role !== 'user'
  const dropped: string[] = []
  const kept = messages.filter((m, i) => {
    if (!empty(m, i) || (i === first && keepOpening)) return true
    for (const id of beforeIdsOf(lineage.get(m.id), m.id)) dropped.push(id)
    return false
  })
  return { sent: kept.length === messages.length ? messages : kept, dropped }
}
