/**
 * The CLI's reports: what `compact`, `inspect`, `find` and `compact --recorded` print, as text
 * (SPEC §7 "Without --json") and as the `--json` objects. Pure: each takes a result and returns
 * what to print. The sweep's grid is printed by sweep.ts.
 */
import { presetVersionNote } from '../engine/presets'
import type { PipelineConfig, RunResult, StageId, SummarizerId, Transcript, TriggerDecision } from '../engine/model'
import { windowOf } from '../engine/models'
import { describeDecision } from '../engine/stages/triggers'
import { formatPercentDelta, formatTokenDelta } from '../engine/delta'
import { compareRecordedVsSimulated, type RecordedRun } from '../engine/analysis/recorded'
import { failureModesOf } from '../engine/pipeline'
import { reworkAfterCompactions, type CompactionRework } from '../engine/analysis/rework'
import { lossReason, passName, positionNames, recordedCompactionName, verdictSentence, type FactVerdict, type LossEvent, type SummarizerKind } from '../engine/facts/verdict'
import { factTable, neededFacts, type FactTable } from '../engine/facts/table'
import { recordedAt } from '../engine/facts/run-index'
import { neededFor } from '../engine/facts/history'
import { neededByText, neededText, type NeededAfterLoss } from '../engine/facts/needed'
import { extractFacts } from '../engine/facts/patterns'
import { hostOf } from '../engine/util/url-credentials'
import { REPLY_PRIMING_TOKENS, tokenEstimateNote } from '../engine/tokens/count'
import { calibrateTokens } from '../engine/usage/calibration'
import { calibrationLabel, RAW_COUNTS } from '../engine/usage/calibration-terms'
import { cutCodePoints } from '../engine/util/text'
import { MappedArray } from './json-stream'

/**
 * The short human report (SPEC §7 "Without --json"); the model window when one is set (`--window`,
 * a preset's), and under each pass the decision that fired it.
 */
function compactText(name: string, transcript: Transcript, config: PipelineConfig, result: RunResult): string {
  const lines = headLines(name, transcript, config, result)
  lines.push(`passes   ${result.passes.length}`)
  const decisions = result.decisions ?? []
  for (const p of result.passes) {
    lines.push(`  pass ${p.pass} (${p.stage}) at message ${p.atMessage}: messages ${p.from}–${p.upto - 1} → summary`)
    const d = decisions.find((x) => x.fired && x.stage === p.stage && x.pass === p.pass)
    if (d) lines.push(`    decision: ${describeDecision(d)}`)
  }
  lines.push(...decisionLines(decisions))
  lines.push('stages')
  for (const s of result.stages) {
    const what = s.error ? `error: ${s.error}` : s.changed ? `${s.tokensBefore} → ${s.tokensAfter} tokens (${formatTokenDelta(s.tokensBefore, s.tokensAfter)})` : `no change${s.note ? ` (${s.note})` : ''}`
    lines.push(`  ${s.stage.padEnd(22)} ${what}`)
  }
  lines.push(...checkLines(transcript, result))
  return lines.join('\n')
}

/** The report's first lines: the file and its format, messages and tokens before → after, the calibration, the window. */
function headLines(name: string, transcript: Transcript, config: PipelineConfig, result: RunResult): string[] {
  const b = result.before.totals
  const a = result.after.totals
  const lines = [
    `${name}: ${transcript.format}${transcript.title ? ` — ${transcript.title}` : ''}`,
    `messages ${b.messages} → ${a.messages}`,
    `tokens   ${b.estimate ? '≈ ' : ''}${b.tokens} → ${a.estimate ? '≈ ' : ''}${a.tokens} (${formatPercentDelta(b.tokens, a.tokens)}; overhead ${a.overheadTokens} not compactable)`,
  ]
  if (b.estimate || a.estimate) lines.push(`         ${tokenEstimateNote()}`)
  lines.push(`         ${calibrationLabel(result.calibration ?? RAW_COUNTS, config.encoding)}`)
  if (config.window !== undefined) lines.push(`window   ${windowOf(config.window).toLocaleString('en-US')} tokens`)
  // A preset whose trigger moved between the agent's versions says which version's it took.
  const versionNote = presetVersionNote(config, transcript)
  if (versionNote !== undefined) lines.push(`preset   ${versionNote}`)
  return lines
}

/** The report's checks of a run: validity, failure modes (`failureModesOf`), needed facts, re-work, warnings. */
function checkLines(transcript: Transcript, result: RunResult): string[] {
  const lines: string[] = []
  const problems = [...result.checks.after]
  lines.push(`validity ${problems.length === 0 ? 'after: no problems' : `after: ${problems.length} problem(s)`}${result.checks.before.length ? `; before: ${result.checks.before.length} problem(s)` : ''}`)
  const readable = positionsOf(result)
  for (const p of problems) lines.push(`  ${p.rule}: ${readable(p.message)}`)
  const modes = failureModesOf(result)
  lines.push(`failure modes ${modes.length === 0 ? 'none' : `${modes.length} warning(s)`}`)
  for (const w of modes) lines.push(`  ${w.rule}: ${readable(w.message)}`)
  lines.push(...neededLines(result))
  lines.push(...reworkText(reworkAfterCompactions(transcript, result)))
  // The run's warnings already include the import warnings (runPipeline copies them).
  for (const w of result.warnings) lines.push(`warning: ${readable(w)}`)
  return lines
}

/**
 * The `decisions` lines of `compact`: per stage with a trigger, how many check points it had,
 * how many fired, were reached but held (each such one on its own line: a guard or an empty plan
 * kept the pass from being made) and were not reached; then the stage's last check point when it
 * did not fire (what the trigger saw at the end, and by how much it fell short). Every decision
 * is worded by `describeDecision`, as on the page. `decisions none` when no stage has a trigger.
 */
function decisionLines(decisions: readonly TriggerDecision[]): string[] {
  if (decisions.length === 0) return ['decisions none (no stage with a trigger ran)']
  const stages = [...new Set(decisions.map((d) => d.stage))] as StageId[]
  const lines: string[] = []
  for (const stage of stages) {
    const own = decisions.filter((d) => d.stage === stage)
    const fired = own.filter((d) => d.fired).length
    const held = own.filter((d) => d.reached && !d.fired)
    const notReached = own.filter((d) => !d.reached).length
    const points = `${own.length} check point${own.length === 1 ? '' : 's'}`
    lines.push(`decisions ${stage}: ${points}, ${fired} fired, ${held.length} reached but held, ${notReached} not reached`)
    for (const d of held) lines.push(`  held: ${describeDecision(d)}`)
    const last = own[own.length - 1]!
    if (!last.fired && !held.includes(last)) lines.push(`  last: ${describeDecision(last)}`)
  }
  return lines
}

/**
 * For the text report: a function writing every Before message id in a sentence as `#N`, its
 * position in the Before, as the page's columns name messages (the engine's sentences name messages
 * by id so that `--json` consumers and the page can link them). A word that is no message id stays.
 */
function positionsOf(result: RunResult): (text: string) => string {
  const position = new Map(result.before.messages.map((m, i) => [m.id, i]))
  return (text) => text.replace(/[\w.:-]+/g, (word) => {
    const at = position.get(word) ?? position.get(word.replace(/[.:]+$/, ''))
    if (at === undefined) return word
    const tail = position.has(word) ? '' : word.slice(word.replace(/[.:]+$/, '').length)
    return `#${at}${tail}`
  })
}

/**
 * The `needed` lines of `compact`: how many facts a pass removed that a later message needed
 * (`neededText`), then one line per fact — the pass, where it fired and the message that needed
 * it, named `#N` as the page names them.
 */
function neededLines(result: RunResult): string[] {
  const needed = neededFacts(result)
  const lines = [`needed   ${needed.length === 0 ? 'none' : neededText(needed.map((n) => n.fact))}`]
  for (const { fact, neededAfterLoss: n } of needed) {
    lines.push(`  "${cutCodePoints(fact, 80)}": removed by ${passName(n.stage, n.pass)}${n.stage === 'summarize' ? ' of summarize' : ''} at #${n.atMessage}, needed at #${n.messageIndex} (${neededByText(n)})`)
  }
  return lines
}

/**
 * `find --json`'s verdicts: each `FactVerdict` (its `history` telling every loss, who asked for it
 * and what brought it back) with `neededAfterLoss` when a later message needed it (`neededFor`).
 */
export function findVerdictsJson(
  result: RunResult,
  verdicts: readonly FactVerdict[],
  queries: readonly (string | RegExp)[],
): (FactVerdict & { neededAfterLoss?: NeededAfterLoss })[] {
  const needed = neededFacts(result)
  return verdicts.map((v, i) => {
    const hit = neededFor(needed, queries[i] ?? v.query)
    return hit ? { ...v, neededAfterLoss: hit.neededAfterLoss } : { ...v }
  })
}

/**
 * The `re-work` lines of `compact`: totals over every compaction, then each compaction with any
 * re-work (the engine's sentence) and a line per repeated call or question asked again, messages
 * named `#N` (Before positions) as the page names them.
 */
function reworkText(rework: readonly CompactionRework[]): string[] {
  const some = rework.filter((r) => r.calls.length > 0 || r.questions.length > 0)
  if (some.length === 0) return [`re-work  ${rework.length === 0 ? 'none (no compaction)' : 'none'}`]
  const n = (count: number, one: string, many: string) => `${count.toLocaleString('en-US')} ${count === 1 ? one : many}`
  const calls = some.reduce((k, r) => k + r.calls.length, 0)
  const questions = some.reduce((k, r) => k + r.questions.length, 0)
  const tokens = some.reduce((k, r) => k + r.tokens, 0)
  const what = [calls > 0 ? n(calls, 'repeated tool call', 'repeated tool calls') : '', questions > 0 ? n(questions, 'question asked again', 'questions asked again') : '']
  const lines = [`re-work  ${what.filter(Boolean).join(', ')}: ${n(tokens, 'token', 'tokens')}`]
  for (const r of some) {
    lines.push(`  ${r.sentence}`)
    for (const c of r.calls) {
      const result = c.first.result ? `, its result #${c.first.result.index} ${c.first.fate}` : ''
      lines.push(`    ${c.tool} ${c.arguments} at #${c.repeat.call.index} — made before at #${c.first.call.index}${result}: ${n(c.tokens, 'token', 'tokens')}`)
    }
    for (const q of r.questions) {
      lines.push(`    asked again at #${q.repeat.question.index}: "${q.text}" — answered before at #${q.first.answer.index}: ${n(q.tokens, 'token', 'tokens')}`)
    }
  }
  return lines
}

/** The recorded view in the CLI's JSON: like `before`/`after` of compact, plus the comparison; null without one. */
function recordedJson(recorded: RecordedRun | null, result: RunResult, watched: readonly string[]) {
  if (!recorded) return null
  return {
    compaction: recorded.compaction,
    pass: recorded.pass,
    after: { messages: recorded.after.messages, tokens: recorded.after.totals.tokens },
    fates: recorded.fates,
    origins: recorded.origins,
    // The agent's compactions as passes, and the facts judged against them (each loss blamed on
    // the compaction that dropped it, needed facts after the agent's own compactions).
    passes: recorded.passes,
    facts: factsJson(factTable(recorded, watched.length > 0 ? extractFacts(recorded.before.messages, watched) : undefined)),
    checks: recorded.checks,
    comparison: compareRecordedVsSimulated(recorded, result),
  }
}

/** Code points of a summary `find` quotes under a lost fact. */
const FIND_SUMMARY_CAP = 240

/**
 * The text of `find`: a header, then one line per fact, `<query>: <verdict sentence>` — the
 * page's sentence (engine `verdictSentence`), messages named as the page's columns name them
 * (`Before #12`, `Before #41 → After #7`) — and, under a lost fact, why (`lossReason`), the prompt
 * line that carried it and the summary that came back (cut to `FIND_SUMMARY_CAP` code points).
 * `result`: the run the verdicts were found in (a simulation, or the agent's recorded compaction);
 * `summarizer`: which kind wrote its summaries.
 */
export function findText(
  name: string,
  transcript: Transcript,
  result: RunResult,
  verdicts: readonly FactVerdict[],
  summarizer: SummarizerKind = 'extractive',
): string {
  const afterAt = new Map(result.after.messages.map((m, i) => [m.id, i]))
  const names = positionNames(
    new Map(result.before.messages.map((m) => [m.id, m.index])),
    (id) => {
      const index = afterAt.get(id)
      return index === undefined ? undefined : { index, origin: result.origins[id] }
    },
    result.passes,
  )
  const lines = (v: FactVerdict) => {
    const words = { ...v, copiesLost: v.events?.length ?? 0 }
    const out = [`${v.query}: ${verdictSentence(words, names)}`]
    const why = lossReason(words, names, summarizer)
    if (why) out.push(`  why: ${why}`)
    const r = v.lost?.replacedBy
    if (r?.kind === 'summary') {
      if (r.promptLine !== undefined) out.push(`  prompt line: ${r.promptLine}`)
      if (r.text !== '') {
        const flat = r.text.replace(/\s+/g, ' ').trim()
        const cut = cutCodePoints(flat, FIND_SUMMARY_CAP)
        out.push(`  summary: ${cut}${cut.length < flat.length ? '…' : ''}`)
      }
    } else if (r?.kind === 'placeholder') out.push(`  placeholder: ${r.text}`)
    return out
  }
  return [`${name}: ${transcript.format}`, ...verdicts.flatMap(lines)].join('\n')
}

/** One message's token count in `compact --json`: its id, its position in its side, role and tokens. */
interface MessageTokens {
  id: string
  index: number
  role: string
  tokens: number
}

/**
 * One side (before or after) of `compact --json`, so that a reader can check every figure:
 * `messages` (the messages), `messageTokens` (each message's tokens, in order), `toolSchemaTokens`
 * (the tool definitions sent with every request), `replyPrimingTokens` and
 * `calibrationOverheadTokens` (what every request carries that the file does not show, by the
 * run's calibration), which add up to `tokens` (the context's tokens: what the triggers compare;
 * message and schema tokens are calibrated too); `overheadTokens` (leading system
 * messages + tool schemas, not compactable); `estimate: true` when a count is an estimate.
 */
function sideJson(side: RunResult['before'], toolSchemaTokens: number, calibrationOverheadTokens: number) {
  const messageTokens = new MappedArray(side.messages, (m): MessageTokens => ({ id: m.id, index: m.index, role: m.role, tokens: side.tokensById[m.id] ?? 0 }))
  return {
    messages: side.messages,
    tokens: side.totals.tokens,
    messageTokens,
    toolSchemaTokens,
    replyPrimingTokens: REPLY_PRIMING_TOKENS,
    calibrationOverheadTokens,
    overheadTokens: side.totals.overheadTokens,
    ...(side.totals.estimate ? { estimate: true as const } : {}),
  }
}

/**
 * The facts table as `--json` carries it: `factTable`'s, except that a loss replaced by a summary
 * names it by `summaryId` alone — its text is the pass's `summary` in `passes` (the same
 * `summaryId`) — instead of repeating the whole summary under every fact it dropped, so the
 * output grows with the input, not with facts × summary length.
 */
function factsJson(table: FactTable): Omit<FactTable, 'rows'> & { rows: MappedArray<FactTable['rows'][number]> } {
  const byReference = (e: LossEvent) => {
    if (e.replacedBy.kind !== 'summary') return e
    const { text: _text, ...replacedBy } = e.replacedBy
    return { ...e, replacedBy }
  }
  return {
    ...table,
    rows: new MappedArray(table.rows, (row) => {
      const v = row.verdict
      if (v.events === undefined && v.lost === undefined) return row
      return {
        ...row,
        verdict: {
          ...v,
          ...(v.events ? { events: v.events.map(byReference) } : {}),
          ...(v.lost ? { lost: byReference(v.lost) } : {}),
        },
      }
    }),
  }
}

/**
 * The `compact --json` object: `format`, `calibration` (the run's `Calibration` and its
 * `calibrationLabel`: how every token figure was made the agent's), `config` (the settings that ran: `window`, the model's
 * context window in tokens the triggers used; `encoding`; `stages`, each `{id, enabled, params}`
 * after `--preset` and the flags), `before`/`after` (`sideJson`: the messages, each one's tokens and the totals),
 * fates, origins, passes, `decisions` (every check point of every stage with a trigger, the
 * engine's `TriggerDecision` — stage, turn, atMessage (Before position), tokens, unsummarized,
 * measure, threshold, op, thresholdSource, reached, fired, pass, tokensAfter, held — plus `reason`,
 * its wording without the turn: `describeDecision(d, false)`), stage reports, checks, failure
 * modes, the facts table, the re-work after each compaction (`reworkAfterCompactions`), the
 * recorded compactions and warnings; the summarizer when not extractive, and `recorded` with
 * `--recorded` (`recordedJson`: what the agent kept, its compactions as `passes` and the facts
 * table judged against them). `watched`: the user's own facts (`--watch`), rows of kind
 * `watched` first in the facts table. `toolSchemaTokens`: the tokens of the transcript's tool
 * schemas (`countToolSchemaTokens`), the same on both sides.
 */
export function compactJson(
  transcript: Transcript,
  config: PipelineConfig,
  result: RunResult,
  recorded: RecordedRun | null | undefined,
  watched: readonly string[] = [],
  toolSchemaTokens = 0,
): Record<string, unknown> {
  const calibration = result.calibration ?? RAW_COUNTS
  const schema = calibrateTokens(toolSchemaTokens, calibration)
  const json: Record<string, unknown> = {
    format: transcript.format,
    config: { window: windowOf(config.window), encoding: config.encoding, stages: config.stages },
    calibration: { ...calibration, label: calibrationLabel(calibration, config.encoding) },
    before: sideJson(result.before, schema, calibration.overhead),
    after: sideJson(result.after, schema, calibration.overhead),
    fates: result.fates,
    origins: result.origins,
    passes: result.passes,
    decisions: new MappedArray(result.decisions ?? [], (d) => ({ ...d, reason: describeDecision(d, false) })),
    stages: result.stages,
    checks: result.checks,
    failureModes: result.checks.failureModes ?? [],
    facts: factsJson(factTable(result, watched.length > 0 ? extractFacts(result.before.messages, watched) : undefined)),
    rework: reworkAfterCompactions(transcript, result),
    recordedCompactions: transcript.recordedCompactions,
    warnings: result.warnings,
  }
  if (config.summarizer !== 'extractive') json.summarizer = summarizerJson(config)
  if (recorded !== undefined) json.recorded = recordedJson(recorded, result, watched)
  return json
}

/**
 * The `compact` report with its optional lines: the summarizer when not extractive. With
 * `--recorded` and a recorded compaction, the report of the agent's own compactions
 * (`recordedReport`); without one, a line saying so after the simulation's.
 */
export function compactReport(
  name: string,
  transcript: Transcript,
  config: PipelineConfig,
  result: RunResult,
  recorded: RecordedRun | null | undefined,
): string {
  let text = recorded ? recordedReport(name, transcript, config, result, recorded) : compactText(name, transcript, config, result)
  if (config.summarizer !== 'extractive') {
    const sj = summarizerJson(config)
    text += `\nsummarizer ${sj.id}${sj.model ? ` (model ${sj.model} at ${sj.host})` : ''}`
  }
  if (recorded === null) text += '\nrecorded no recorded compaction in this transcript'
  return text
}

/** Which summarizer ran, for the report: id, model and host (never the key). */
function summarizerJson(config: PipelineConfig): { id: SummarizerId; model?: string; host?: string } {
  const o = config.summarizerOptions
  return o ? { id: config.summarizer, model: o.model, host: hostOf(o.baseUrl) } : { id: config.summarizer }
}

/**
 * The `compact --recorded` report: what the agent's own compactions did, as `--json`'s
 * `recorded` and the page's Recorded mode tell it — messages and tokens before → after the
 * compaction shown, its compactions as the passes, validity, failure modes, the facts that
 * survive and those needed after a compaction removed them, re-work — then the simulation of
 * the same file, each of its figures labelled `simulated`, and what each kept verbatim.
 */
function recordedReport(name: string, transcript: Transcript, config: PipelineConfig, simulated: RunResult, recorded: RecordedRun): string {
  const lines = headLines(name, transcript, config, recorded)
  const named = (pass: number) => {
    const at = recordedAt(recorded, pass)
    return at ? recordedCompactionName(at) : passName('recorded', pass)
  }
  lines.splice(1, 0, `recorded what the agent kept, up to ${named(recorded.pass)}`)
  lines.push(`passes   ${recorded.passes.length} (the agent's compactions)`)
  for (const p of recorded.passes) lines.push(`  ${named(p.pass)}: messages ${p.from}–${p.upto - 1} → summary`)
  lines.push(`facts    ${factsLine(recorded)}`)
  lines.push(...checkLines(transcript, recorded))
  const b = simulated.before.totals
  const a = simulated.after.totals
  const modes = failureModesOf(simulated)
  const needed = neededFacts(simulated)
  const k = compareRecordedVsSimulated(recorded, simulated).keptVerbatim
  lines.push(
    `simulated messages ${b.messages} → ${a.messages}, tokens ${b.tokens} → ${a.tokens}, passes ${simulated.passes.length}, ` +
      `facts ${factsLine(simulated)}, failure modes ${modes.length === 0 ? 'none' : `${modes.length} warning(s)`}, ` +
      `needed ${needed.length === 0 ? 'none' : neededText(needed.map((n) => n.fact))}`,
    `  kept verbatim by both ${k.both.length}, only recorded ${k.recordedOnly.length}, only simulated ${k.simulatedOnly.length}`,
  )
  return lines.join('\n')
}

/** How many of a run's at-risk facts survive and how many are lost (`factTable` totals). */
function factsLine(run: RunResult): string {
  const t = factTable(run).totals
  return `${t.text} (${t.lost.toLocaleString('en-US')} lost)`
}
