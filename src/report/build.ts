/**
 * The self-contained HTML report of one run: one string with inline CSS and inline SVG, no
 * script and no URL of any kind (a CSP meta allows only inline styles and data: images), so it
 * opens offline in any browser. Sections, each with a heading and an id (`REPORT_SECTIONS`): the
 * transcript, the settings, the totals, the passes with their prompts, summaries and the
 * engine's reasons, Before | After with every mark and the legend, the facts table and the token
 * timeline. Every transcript text goes through `escapeHtml` once, after redaction (redact.ts).
 * Pure: runs in the worker and in the CLI.
 */
import type { TokenTimeline } from '../engine/analysis/turns'
import { contentText } from '../engine/content'
import { importanceRank } from '../engine/facts/importance'
import type { FactRow, FactTable } from '../engine/facts/table'
import { positionNames, verdictSentence } from '../engine/facts/verdict'
import type { Message, PipelineConfig, RunResult, Transcript } from '../engine/model'
import { windowOf } from '../engine/models'
import { stageDefinition, type StageParamDef } from '../engine/stages/definitions'
import { describeDecision } from '../engine/stages/triggers'
import { calibrationLabel, RAW_COUNTS } from '../engine/usage/calibration-terms'
import { codePointLength, cutCodePoints, nounFor } from '../engine/util/text'
import { displayUrl } from '../engine/util/url-credentials'
import {
  BOUNDARY_INFO,
  explainFate,
  explainOrigin,
  fateChip,
  KIND_INFO,
  laterKinds,
  LEGEND_KINDS,
  offKindReason,
  originChip,
  passName,
  producibleKinds,
  type ChangeKind,
} from './kinds'
import { createRedactor, type RedactionCounts, type RedactOptions } from './redact'
import { REPORT_CSS } from './style'

/** The report's sections in order: id and heading. */
export const REPORT_SECTIONS = [
  { id: 'transcript', heading: 'Transcript' },
  { id: 'settings', heading: 'Settings' },
  { id: 'totals', heading: 'Totals' },
  { id: 'passes', heading: 'Passes' },
  { id: 'compare', heading: 'Before | After' },
  { id: 'legend', heading: 'Legend' },
  { id: 'facts', heading: 'Facts' },
  { id: 'timeline', heading: 'Token timeline' },
] as const

/** At most this many code points of a message (or summary, prompt) go into the report. */
const REPORT_TEXT_LIMIT = 20_000
/** Code points of a long text shown before the rest is folded into a `<details>`. */
const REPORT_VISIBLE = 600
/** At most this many facts-table rows and decisions are listed (the counts are of all). */
const FACT_ROWS_LIMIT = 1000
const DECISIONS_LIMIT = 500

/** What a report is made of: the run (simulated After) and what the page shows beside it. */
export interface ReportInput {
  /** The transcript's file name, as loaded. */
  fileName: string
  transcript: Transcript
  /** The configuration `result` was run with. */
  config: PipelineConfig
  result: RunResult
  /** The run's facts table (engine `factTable`); absent: the section says it was not made. */
  facts?: FactTable
  /** The token timeline under `config` (engine `tokenTimeline`); absent: the section says so. */
  timeline?: TokenTimeline
  /** What to redact; absent: nothing. */
  redact?: RedactOptions
  /** When it was made, ISO 8601 (omitted from the report when absent). */
  createdAt?: string
}

/** The report and what redaction replaced in it. */
export interface ReportOutput {
  html: string
  redactions: RedactionCounts
  /** The name to save it under (`reportFileName` of the file name, redacted like the report). */
  fileName: string
}

/** `text` safe as HTML text and attribute values: `&`, `<`, `>`, `"` and `'` as entities. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)
}

/** Thousands separated with commas (tokens, counts). */
function n(value: number): string {
  return Math.round(value).toLocaleString('en-US')
}

/** A count and its noun, pluralized (`1 step`, `2 steps`, `1,200 tokens`); see `nounFor`. */
function nOf(value: number, singular: string, plural = `${singular}s`): string {
  return `${n(value)} ${nounFor(value, singular, plural)}`
}

/** A count in a plural unit of the stage definitions (`tokens`, `tool calls`): `1 tool call`. */
function inUnit(value: number, unit: string): string {
  return nOf(value, unit.replace(/s$/, ''), unit)
}

/**
 * The facts table's rows in the page's order (features/facts/FactsTable): facts needed after a
 * pass removed them first, then by importance (`importanceRank`), ties in the engine's order.
 */
function factsInOrder(rows: readonly FactRow[]): FactRow[] {
  const needed = (r: FactRow) => (r.neededAfterLoss ? 0 : 1)
  return [...rows].sort((a, b) => needed(a) - needed(b) || importanceRank(a.importance) - importanceRank(b.importance))
}

/** A message's readable text: its content, then one `→ name(arguments)` line per tool call. */
function messageText(m: Message): string {
  const calls = (m.toolCalls ?? []).map((c) => `→ ${c.name}(${c.arguments})`)
  return [contentText(m.content), ...calls].filter((t) => t !== '').join('\n')
}

/**
 * A report file name for a transcript file name: its folders dropped, its extension replaced by
 * `.report.html` (`session.jsonl` → `session.report.html`), the rest passed through `redact`.
 */
export function reportFileName(fileName: string, redact: (base: string) => string = (base) => base): string {
  const base = fileName.split(/[\\/]/).pop() || 'transcript'
  return `${redact(base.replace(/\.[^.]+$/, '') || base)}.report.html`
}

/** Builds the report of `input`. Never throws on any transcript text. */
export function buildReport(input: ReportInput): ReportOutput {
  const redactor = createRedactor(input.redact)
  const red = (s: string) => redactor.text(s)
  /** Redacted, escaped text. */
  const t = (s: string) => escapeHtml(red(s))

  /**
   * A long text: redacted, capped at `REPORT_TEXT_LIMIT` code points (the rest stated), the first
   * `REPORT_VISIBLE` shown and the remainder folded into a `<details>`.
   */
  const block = (raw: string): string => {
    const text = red(raw)
    const length = codePointLength(text)
    const kept = length > REPORT_TEXT_LIMIT ? cutCodePoints(text, REPORT_TEXT_LIMIT) : text
    const cut = length > REPORT_TEXT_LIMIT ? `<p class="cut">… ${n(length - REPORT_TEXT_LIMIT)} more characters not in this report</p>` : ''
    if (codePointLength(kept) <= REPORT_VISIBLE) return `<pre>${escapeHtml(kept)}</pre>${cut}`
    const head = cutCodePoints(kept, REPORT_VISIBLE)
    const rest = kept.slice(head.length)
    return (
      `<pre>${escapeHtml(head)}</pre><details><summary>… ${n(codePointLength(rest))} more characters</summary>` +
      `<pre>${escapeHtml(rest)}</pre></details>${cut}`
    )
  }

  const { transcript, config, result } = input
  // The full texts first: a value is known before any text cut from them is redacted.
  redactor.learn([
    input.fileName,
    ...result.before.messages.map(messageText),
    ...result.after.messages.map(messageText),
    ...result.passes.flatMap((p) => [p.summary, p.prompt]),
  ])
  const section = (id: (typeof REPORT_SECTIONS)[number]['id'], body: string) => {
    const heading = REPORT_SECTIONS.find((s) => s.id === id)!.heading
    return `<section id="${id}" aria-labelledby="${id}-h"><h2 id="${id}-h">${escapeHtml(heading)}</h2>${body}</section>`
  }
  const chip = (kind: ChangeKind, label: string, title?: string) =>
    `<span class="chip chip--${kind}"${title === undefined ? '' : ` title="${t(title)}"`}><span aria-hidden="true">${KIND_INFO[kind].icon}</span> ${escapeHtml(label)}</span>`

  // Messages are named as the page's columns number them (`#23`), never by id.
  const beforeIndex = new Map(result.before.messages.map((m) => [m.id, m.index]))
  const numberOf = (id: string) => {
    const i = beforeIndex.get(id)
    return i === undefined ? id : `#${i}`
  }

  // Transcript.
  const fileName = red(input.fileName)
  const transcriptBody = dl([
    ['File', escapeHtml(fileName)],
    ['Format', escapeHtml(transcript.format)],
    ...(transcript.title !== undefined ? [['Title', t(transcript.title)] as [string, string]] : []),
    ...(transcript.model !== undefined ? [['Model', t(transcript.model)] as [string, string]] : []),
    ['Messages', n(transcript.messages.length)],
    ['Recorded compactions', n(transcript.recordedCompactions.length)],
    ...(input.createdAt !== undefined ? [['Report made', escapeHtml(input.createdAt)] as [string, string]] : []),
  ])
  const importWarnings = transcript.warnings.length > 0 ? `<h3>Import warnings</h3>${list(transcript.warnings.slice(0, 100).map(t))}` : ''

  // Settings: every stage of the config with its params, worded by the stage definitions.
  const summarizer = config.summarizerOptions
    ? `${config.summarizer} (${red(displayUrl(config.summarizerOptions.baseUrl))}, model ${red(config.summarizerOptions.model)})`
    : config.summarizer
  const stageItems = config.stages.map((stage) => {
    const def = stageDefinition(stage.id)
    const params = stage.params as Readonly<Record<string, unknown>>
    const rows = def.params.flatMap((p) => {
      const value = paramValue(p, params[p.key])
      return value === null ? [] : [`<li><code>${escapeHtml(p.key)}</code> ${value.long ? block(value.text) : t(value.text)}</li>`]
    })
    const state = stage.enabled ? '<strong class="on">on</strong>' : '<span class="off">off</span>'
    return `<li><strong>${escapeHtml(def.title)}</strong> (<code>${escapeHtml(stage.id)}</code>): ${state}${stage.enabled && rows.length > 0 ? `<ul>${rows.join('')}</ul>` : ''}</li>`
  })
  // How every token figure of the report was counted (the run's calibration; absent: raw).
  const counted = calibrationLabel(result.calibration ?? RAW_COUNTS, config.encoding)
  const settingsBody =
    '<p>The After is simulated: this run of the pipeline over the Before, not what the agent sent.</p>' +
    dl([
      ['Encoding', escapeHtml(config.encoding)],
      ['Window', `${n(windowOf(config.window))} tokens`],
      ['Token counts', escapeHtml(counted)],
      ['Summarizer', escapeHtml(summarizer)],
    ]) +
    `<ul class="stages">${stageItems.join('')}</ul>`

  // Totals.
  const b = result.before.totals
  const a = result.after.totals
  const problems = result.checks.after
  const totalsBody =
    dl([
      ['Tokens', `${n(b.tokens)} → ${n(a.tokens)}${b.estimate || a.estimate ? ' (estimate)' : ''}`],
      ['Counted', escapeHtml(counted)],
      ['Messages', `${n(b.messages)} → ${n(a.messages)}`],
      ['Passes', n(result.passes.length)],
      ['Validity', problems.length === 0 ? 'valid: no problems in the After' : `${nOf(problems.length, 'problem')} in the After`],
    ]) +
    (problems.length > 0 ? list(problems.map((p) => `${escapeHtml(p.rule)}: ${t(p.message)}`)) : '') +
    (result.checks.failureModes && result.checks.failureModes.length > 0
      ? `<h3>Failure-mode warnings</h3>${list(result.checks.failureModes.map((w) => `${escapeHtml(w.rule)}: ${t(w.message)}`))}`
      : '') +
    (result.warnings.length > 0 ? `<h3>Warnings</h3>${list(result.warnings.map(t))}` : '')

  // Passes, stage reports and the decision log.
  const passItems = result.passes.map((p) => {
    const head = `<h3>${escapeHtml(passName(p.stage, p.pass))} (${escapeHtml(p.stage)})</h3>`
    const facts = dl([
      ['Fired at', `message #${p.atMessage}`],
      ['Summarized', `messages ${p.from}–${p.upto - 1}`],
      ['Context', `${n(p.tokensBefore)} → ${nOf(p.tokensAfter, 'token')}`],
      ...(p.note !== undefined ? [['Why', t(p.note)] as [string, string]] : []),
    ])
    return `<article class="pass">${head}${facts}<h4>Summary</h4>${block(p.summary)}<h4>Prompt</h4>${block(p.prompt)}</article>`
  })
  const stageReports = result.stages.map((s) => {
    const what = s.error !== undefined ? `error: ${t(s.error)}` : s.changed ? `${n(s.tokensBefore)} → ${nOf(s.tokensAfter, 'token')}, ${n(s.messagesBefore)} → ${nOf(s.messagesAfter, 'message')}` : 'no change'
    return `<code>${escapeHtml(s.stage)}</code>: ${what}${s.note !== undefined ? ` — ${t(s.note)}` : ''}`
  })
  const decisions = result.decisions ?? []
  const shownDecisions = decisions.filter((d) => d.fired || d.reached).slice(0, DECISIONS_LIMIT)
  const decisionsBody =
    decisions.length === 0
      ? ''
      : `<h3>Trigger decisions</h3><p>${nOf(decisions.length, 'check point')}, ${n(decisions.filter((d) => d.reached).length)} reached, ${n(decisions.filter((d) => d.fired).length)} fired${shownDecisions.length > 0 ? '; the reached ones:' : '.'}</p>` +
        (shownDecisions.length > 0 ? list(shownDecisions.map((d) => `<code>${escapeHtml(d.stage)}</code> ${t(describeDecision(d))}`)) : '')
  const passesBody =
    (passItems.length > 0 ? passItems.join('') : '<p>No pass fired.</p>') + `<h3>What each stage did</h3>${list(stageReports)}` + decisionsBody

  // Before | After.
  const beforeRows = result.before.messages.map((m) => {
    const fate = result.fates[m.id]
    const mark = fate ? chip(fateChip(fate).kind, fateChip(fate).label, explainFate(fate, numberOf)) : ''
    const why = fate && fate.kind !== 'kept' ? `<p class="why">${t(explainFate(fate, numberOf))}</p>` : ''
    return row(`b-${m.index}`, m, result.before.tokensById[m.id] ?? 0, mark, why, block(messageText(m)))
  })
  const afterRows = result.after.messages.map((m, i) => {
    const origin = result.origins[m.id]
    const chipOf = origin ? originChip(origin) : undefined
    const mark = origin && chipOf ? chip(chipOf.kind, chipOf.label, explainOrigin(origin, numberOf)) : ''
    const why = origin ? `<p class="why">${t(explainOrigin(origin, numberOf))}</p>` : ''
    const same = origin?.kind === 'original' && !origin.changed ? beforeIndex.get(origin.beforeId) : undefined
    // An unchanged message's text is in the Before already: a link to it keeps the file ~1× the session.
    const body = same === undefined ? block(messageText(m)) : `<p class="same">Unchanged: <a href="#b-${same}">Before #${same}</a></p>`
    return row(`a-${i}`, { ...m, index: i }, result.after.tokensById[m.id] ?? 0, mark, why, body)
  })
  const compareBody =
    '<div class="columns">' +
    `<div class="column"><h3>Before (${nOf(b.messages, 'message')}, ${nOf(b.tokens, 'token')})</h3><ol class="rows">${beforeRows.join('')}</ol></div>` +
    `<div class="column"><h3>After (${nOf(a.messages, 'message')}, ${nOf(a.tokens, 'token')})</h3><ol class="rows">${afterRows.join('')}</ol></div>` +
    '</div>'

  // Legend: the page's kinds and words (kinds.ts).
  const possible = producibleKinds(config.stages.filter((s) => s.enabled).map((s) => s.id), transcript.recordedCompactions.length > 0)
  const later = laterKinds(config.stages.map((s) => s.id))
  const legendItems = LEGEND_KINDS.map(
    (kind) =>
      `<div${possible.has(kind) ? '' : ' class="legend-off"'}><dt>${chip(kind, KIND_INFO[kind].name)}</dt><dd>${escapeHtml(KIND_INFO[kind].explain)}` +
      `${possible.has(kind) ? '' : ` <span class="muted">(${escapeHtml(offKindReason(kind, later))})</span>`}</dd></div>`,
  )
  const changedInfo = KIND_INFO.changed
  legendItems.push(`<div><dt>${chip('changed', changedInfo.name)}</dt><dd>${escapeHtml(changedInfo.explain)}</dd></div>`)
  for (const boundary of [BOUNDARY_INFO.pass, BOUNDARY_INFO.recorded]) {
    legendItems.push(`<div><dt><span class="boundary">${escapeHtml(boundary.sample)}</span></dt><dd>${escapeHtml(boundary.explain)}</dd></div>`)
  }
  const legendBody = `<dl class="legend">${legendItems.join('')}</dl>`

  // Facts: in the page's order, the verdicts naming messages by the columns' numbers; the noise
  // rows (never at risk of mattering) folded under a <details> with their count, never dropped.
  const facts = input.facts
  const afterAt = new Map(result.after.messages.map((m, i) => [m.id, i]))
  const names = positionNames(
    beforeIndex,
    (id) => {
      const index = afterAt.get(id)
      return index === undefined ? undefined : { index, origin: result.origins[id] }
    },
    result.passes,
  )
  const factRow = (r: FactRow) =>
    `<tr><td><code>${escapeHtml(cutCodePoints(red(r.fact), 300))}</code></td><td>${escapeHtml(r.kind)}</td><td>${escapeHtml(r.importance)}</td>` +
    `<td>${escapeHtml(r.final)}</td><td>${t(verdictSentence({ ...r.verdict, copiesLost: r.verdict.events?.length ?? 0 }, names))}</td></tr>`
  const factTableHtml = (rows: readonly FactRow[]) =>
    '<table><thead><tr><th scope="col">Fact</th><th scope="col">Kind</th><th scope="col">Importance</th><th scope="col">Final</th><th scope="col">Verdict</th></tr></thead><tbody>' +
    rows.map(factRow).join('') +
    '</tbody></table>'
  let factsBody = '<p>The facts table was not made for this report.</p>'
  if (facts) {
    const listed = factsInOrder(facts.rows).slice(0, FACT_ROWS_LIMIT)
    const atRisk = listed.filter((r) => r.importance !== 'noise')
    const noise = listed.filter((r) => r.importance === 'noise')
    factsBody =
      `<p>${nOf(facts.totals.facts, 'fact')} at risk, ${n(facts.totals.survive)} survive (${n(facts.totals.verbatim)} verbatim, ${n(facts.totals.pinned)} pinned, ${n(facts.totals.summaryOnly)} only in a summary); ${nOf(facts.totals.noise, 'noise row')}.</p>` +
      (facts.rows.length > FACT_ROWS_LIMIT ? `<p>The first ${n(FACT_ROWS_LIMIT)} of ${nOf(facts.rows.length, 'row')}.</p>` : '') +
      (atRisk.length > 0 ? factTableHtml(atRisk) : '<p>No fact at risk.</p>') +
      (noise.length > 0 ? `<details class="noise"><summary>${nOf(noise.length, 'noise fact')} — measurements of tool runs, not at risk</summary>${factTableHtml(noise)}</details>` : '')
  }

  const timelineBody = input.timeline ? timelineSvg(input.timeline) : '<p>The token timeline was not made for this report.</p>'

  const title = `Compaction report: ${fileName}`
  const html =
    '<!doctype html>\n<html lang="en"><head><meta charset="utf-8">' +
    `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">` +
    '<meta name="viewport" content="width=device-width, initial-scale=1">' +
    `<meta name="color-scheme" content="light dark"><title>${escapeHtml(title)}</title><style>${REPORT_CSS}</style></head><body>` +
    `<header><h1>${escapeHtml(title)}</h1><nav aria-label="Sections"><ul>${REPORT_SECTIONS.map((s) => `<li><a href="#${s.id}">${escapeHtml(s.heading)}</a></li>`).join('')}</ul></nav></header><main>` +
    section('transcript', transcriptBody + importWarnings) +
    section('settings', settingsBody) +
    section('totals', totalsBody) +
    section('passes', passesBody) +
    section('compare', compareBody) +
    section('legend', legendBody) +
    section('facts', factsBody) +
    section('timeline', timelineBody) +
    '</main></body></html>\n'
  return { html, redactions: redactor.counts(), fileName: reportFileName(input.fileName, red) }
}

/** A `<dl>` of label/HTML pairs (the values are already escaped). */
function dl(items: readonly (readonly [string, string])[]): string {
  return `<dl class="facts">${items.map(([k, v]) => `<div><dt>${escapeHtml(k)}</dt><dd>${v}</dd></div>`).join('')}</dl>`
}

/** A `<ul>` of HTML items (already escaped). */
function list(items: readonly string[]): string {
  return `<ul>${items.map((i) => `<li>${i}</li>`).join('')}</ul>`
}

/** One message row: anchor id, position, role, tool name, tokens, its mark, why, and its text. */
function row(id: string, m: Message, tokens: number, mark: string, why: string, body: string): string {
  const tool = m.toolName !== undefined ? ` <code>${escapeHtml(m.toolName)}</code>` : ''
  return `<li id="${id}" class="row"><div class="row-head"><span class="pos">#${m.index}</span> <span class="role">${escapeHtml(m.role)}</span>${tool} <span class="tokens">${nOf(tokens, 'token')}</span> ${mark}</div>${why}${body}</li>`
}

/**
 * A param's value for the settings: `null` when it is unset and has no default; the default is
 * named as such; shares as percentages; units from the definition. `long`: a text to fold (a prompt).
 */
function paramValue(def: StageParamDef, raw: unknown): { text: string; long: boolean } | null {
  const unit = (v: number) => (def.unit === 'share' ? `${Math.round(v * 1000) / 10}%` : def.unit ? inUnit(v, def.unit) : n(v))
  const word = (v: unknown): string =>
    typeof v === 'number' ? (def.type === 'count' ? unit(v) : String(v)) : Array.isArray(v) ? (v.length === 0 ? '(none)' : v.join(', ')) : String(v)
  if (raw === undefined || raw === null) return def.default === undefined ? null : { text: `${word(def.default)} (default)`, long: false }
  const text = word(raw)
  return { text, long: typeof raw === 'string' && codePointLength(raw) > 120 }
}

/** The token timeline as inline SVG: Before and After per turn, pass ticks, window and token thresholds. */
function timelineSvg(tl: TokenTimeline): string {
  const W = 800
  const H = 260
  const pad = { l: 64, r: 12, t: 12, b: 28 }
  const levels = tl.thresholds.flatMap((th) => (th.kind === 'tokens' ? [{ label: `${th.stage} ${th.param}`, tokens: th.tokens }] : []))
  const dataMax = Math.max(1, ...tl.before, ...tl.after.map((v) => v ?? 0), ...levels.map((l) => l.tokens))
  const windowShown = tl.window <= dataMax * 1.25
  const top = Math.max(dataMax, windowShown ? tl.window : 0) * 1.05
  const x = (turn: number) => pad.l + (tl.turns <= 1 ? 0 : ((turn - 1) / (tl.turns - 1)) * (W - pad.l - pad.r))
  const y = (tokens: number) => H - pad.b - (tokens / top) * (H - pad.t - pad.b)
  const path = (points: [number, number][]) => points.map(([px, py], i) => `${i === 0 ? 'M' : 'L'}${px.toFixed(1)} ${py.toFixed(1)}`).join(' ')
  const before = path(tl.before.map((v, i) => [x(i + 1), y(v)]))
  const after = path(tl.after.flatMap((v, i) => (v === null ? [] : [[x(i + 1), y(v)] as [number, number]])))
  const hline = (tokens: number, cls: string, label: string) =>
    `<line class="${cls}" x1="${pad.l}" x2="${W - pad.r}" y1="${y(tokens).toFixed(1)}" y2="${y(tokens).toFixed(1)}"/>` +
    `<text class="lbl" x="${W - pad.r - 4}" y="${(y(tokens) - 4).toFixed(1)}" text-anchor="end">${escapeHtml(label)}</text>`
  const ticks = tl.passes.map((p) => `<line class="pass" x1="${x(p.turn).toFixed(1)}" x2="${x(p.turn).toFixed(1)}" y1="${pad.t}" y2="${H - pad.b}"/>`)
  const svg =
    `<svg class="timeline" viewBox="0 0 ${W} ${H}" role="img" aria-labelledby="timeline-cap">` +
    `<line class="axis" x1="${pad.l}" x2="${pad.l}" y1="${pad.t}" y2="${H - pad.b}"/><line class="axis" x1="${pad.l}" x2="${W - pad.r}" y1="${H - pad.b}" y2="${H - pad.b}"/>` +
    `<text class="lbl" x="${pad.l - 6}" y="${pad.t + 10}" text-anchor="end">${n(top)}</text><text class="lbl" x="${pad.l - 6}" y="${H - pad.b}" text-anchor="end">0</text>` +
    `<text class="lbl" x="${pad.l}" y="${H - 8}">turn 1</text><text class="lbl" x="${W - pad.r}" y="${H - 8}" text-anchor="end">turn ${tl.turns}</text>` +
    ticks.join('') +
    (windowShown ? hline(tl.window, 'window', `window ${n(tl.window)}`) : '') +
    levels.map((l) => hline(l.tokens, 'trigger', `${l.label} ${n(l.tokens)}`)).join('') +
    `<path class="before" d="${before}"/><path class="after" d="${after}"/></svg>`
  const caption =
    `<p id="timeline-cap">Context tokens per turn over ${nOf(tl.turns, 'turn')}: Before (raw growth, solid) and After (dashed)` +
    `${tl.sampled ? `, After at ${n(tl.evaluated.length)} sampled turns` : ''}; ${nOf(tl.passes.length, 'pass', 'passes')} (vertical lines)` +
    `${windowShown ? '' : `; the window (${n(tl.window)} tokens) is above the chart`}.</p>`
  return svg + caption
}
