/**
 * Pure shaping of engine results into the light row metadata the UI renders (DESIGN §1).
 * No worker or DOM APIs here, so it is unit-tested directly.
 */
import type { ExportTarget } from '../engine/export'
import { requestFormatOf } from '../engine/formats'
import type { Encoding, FormatId, Message, Origin, Part, RunResult } from '../engine/model'
import { perMessage } from '../engine/util/memo'
import { collapseWhitespace, codePointLength, cutCodePoints } from '../engine/util/text'
import { parseJsonWithin } from '../engine/util/nesting'
import { decisionLogView, DECISIONS_SENT, lastOfEachStage } from './decision-log'
import { PASS_SUMMARIES_SENT, PROBLEMS_SENT, type DetailBlock, type MessageDetail, type OriginView, type PassMeta, type RowMeta, type RunView, type Side } from './protocol'

/** Longest preview in code points (DESIGN §1). */
const PREVIEW_LIMIT = 200

/**
 * Label of an image part, never its base64: `[image, 12 KB]` (bytes / 1024, rounded),
 * `[image, 72 B]` under 1 KB, `[image]` when the size is unknown.
 */
export function imageLabel(part: { bytes?: number }): string {
  if (part.bytes === undefined) return '[image]'
  if (part.bytes < 1024) return `[image, ${part.bytes} B]`
  return `[image, ${Math.round(part.bytes / 1024)} KB]`
}

function partsText(parts: readonly Part[]): string {
  const out: string[] = []
  for (const p of parts) {
    if (p.type === 'text') out.push(p.text)
    else if (p.type === 'image') out.push(imageLabel(p))
    else if (p.type === 'thinking') out.push(p.text ? `(thinking) ${p.text}` : `(${p.variant.replace('_', ' ')})`)
    else out.push(`[${p.kind}]`)
  }
  return out.join(' ')
}

/**
 * Terminal styling (ANSI CSI sequences such as `ESC[2m`) removed; any other control character
 * shown as its Unicode control picture (␛, ␇…), so a preview never hides or garbles bytes.
 */
function showControls(text: string): string {
  return (
    text
      // eslint-disable-next-line no-control-regex -- matching control characters is the point
      .replace(/\u001b\[[0-9;?]*[A-Za-z]/g, '')
      // eslint-disable-next-line no-control-regex
      .replace(/[\u0000-\u0008\u000e-\u001f]/g, (c) => String.fromCharCode(0x2400 + c.charCodeAt(0)))
  )
}

/**
 * One-line preview of a message: whitespace collapsed, control characters made visible (␛), cut to `PREVIEW_LIMIT` code points
 * (an ellipsis included). A tool-calling assistant with no text reads `(tool calls: a, b)`,
 * as seed 001 renders it; no content reads `(empty)`.
 */
export const previewOf: (message: Message) => string = perMessage(makePreview)

/** UTF-16 code units of raw text a preview is first made from (doubled while it falls short). */
const PREVIEW_HEAD_UNITS = 8 * PREVIEW_LIMIT

/**
 * End of the raw head `text.slice(0, end)` moved past an ANSI CSI sequence it would cut
 * (`ESC [ params…` without its final letter), so the head's cleaning matches the whole text's.
 */
function headEnd(text: string, end: number): number {
  const esc = text.lastIndexOf('\u001b', end - 1)
  if (esc < 0) return end
  let i = esc + 1
  if (i < text.length && text[i] !== '[') return end
  i++
  while (i < text.length && isCsiParameter(text.charCodeAt(i))) i++
  // The sequence (or what only looked like one) ends inside the head: nothing is cut.
  if (i < end) return end
  return Math.min(text.length, i + 1)
}

/** `0`–`9`, `;` or `?`: the parameter characters `showControls` removes with a CSI sequence. */
function isCsiParameter(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || c === 0x3b || c === 0x3f
}

/**
 * Whitespace collapsed and control characters shown, for at least the first `PREVIEW_LIMIT` + 1
 * code points of the result: a 100 KB tool output costs a 2 KB head instead of regexes over all of
 * it. The cleaning of a head is a prefix of the whole text's (whitespace runs and controls are
 * local; `headEnd` never cuts a CSI sequence), so the preview is the one of the whole text.
 */
function cleanedHead(text: string): string {
  for (let units = PREVIEW_HEAD_UNITS; units < text.length; units *= 2) {
    const head = showControls(collapseWhitespace(text.slice(0, headEnd(text, units))))
    if (codePointLength(head) > PREVIEW_LIMIT + 1) return head
  }
  return showControls(collapseWhitespace(text))
}

function makePreview(message: Message): string {
  const c = message.content
  let text = c == null ? '' : typeof c === 'string' ? c : partsText(c)
  text = cleanedHead(text)
  if (!text && message.toolCalls && message.toolCalls.length > 0) {
    text = `(tool calls: ${message.toolCalls.map((t) => t.name).join(', ')})`
  }
  if (!text) text = '(empty)'
  if (codePointLength(text) > PREVIEW_LIMIT) text = `${cutCodePoints(text, PREVIEW_LIMIT - 1)}…`
  return text
}

function countParts(message: Message, type: Part['type']): number {
  const c = message.content
  if (!Array.isArray(c)) return 0
  return c.filter((p) => p.type === type).length
}

function baseRow(message: Message, index: number, tokens: number): RowMeta {
  const row: RowMeta = {
    id: message.id,
    index,
    role: message.role,
    tokens,
    preview: previewOf(message),
    flags: message.flags ? { ...message.flags } : {},
    images: countParts(message, 'image'),
    thinking: countParts(message, 'thinking'),
    counterpartIds: [],
  }
  if (message.toolName !== undefined) row.toolName = message.toolName
  if (message.toolCallId !== undefined) row.toolCallId = message.toolCallId
  if (message.isError !== undefined) row.isError = message.isError
  if (message.toolCalls && message.toolCalls.length > 0) {
    row.toolCallNames = message.toolCalls.map((t) => t.name)
  }
  return row
}

/** UTF-8 bytes per token of the estimate shown before exact counts arrive (BENCH.md). */
const BYTES_PER_TOKEN_ESTIMATE = 3.4

/** UTF-8 length of `text` in bytes, without encoding it. */
function utf8Bytes(text: string): number {
  let n = 0
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c < 0x80) n += 1
    else if (c < 0x800) n += 2
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
      n += 4
      i++
    } else n += 3
  }
  return n
}

/**
 * Before rows of `messages` (at most `limit`) with estimated tokens — UTF-8 bytes of the texts a
 * counter would see (content text and thinking, tool-call names and arguments) / 3.4, rounded up —
 * marked `estimated`, no fate or counterparts yet. For the rows shown while a large file is still
 * being imported and counted (BENCH B10). Pure.
 */
export function estimatedBeforeRows(messages: readonly Message[], limit = Infinity): RowMeta[] {
  const rows: RowMeta[] = []
  for (const m of messages) {
    if (rows.length >= limit) break
    let bytes = 0
    const c = m.content
    if (typeof c === 'string') bytes += utf8Bytes(c)
    else if (c) for (const p of c) if (p.type === 'text' || p.type === 'thinking') bytes += utf8Bytes(p.text ?? '')
    for (const call of m.toolCalls ?? []) bytes += utf8Bytes(call.name) + utf8Bytes(call.arguments)
    const row = baseRow(m, m.index, Math.ceil(bytes / BYTES_PER_TOKEN_ESTIMATE))
    row.estimated = true
    rows.push(row)
  }
  return rows
}

/** Before ids an after message stands for, read from its origin (never re-derived). */
function beforeIdsOf(origin: Origin | undefined, afterId: string): string[] {
  if (!origin) return [afterId]
  switch (origin.kind) {
    case 'original':
    case 'back-reference':
    case 'placeholder':
      return [origin.beforeId]
    case 'summary':
      return [...origin.coveredIds]
    case 'pinned-facts':
      return [...origin.sourceIds]
    case 'instruction':
      return []
  }
}

/** `origin` as a row carries it (`OriginView`: a summary without its `coveredIds`). */
function originView(origin: Origin): OriginView {
  if (origin.kind !== 'summary') return origin
  const { coveredIds: _covered, ...rest } = origin
  return rest
}

/** Adds `value` to the set under `key` (insertion order kept: the lists become row counterparts). */
function push(map: Map<string, Set<string>>, key: string, value: string): void {
  const set = map.get(key)
  if (set) set.add(value)
  else map.set(key, new Set([value]))
}

/**
 * Shapes a RunResult into the rows and summaries the UI renders. Counterparts come from the
 * engine's provenance only: an after row's origin names its before id(s); a before row's
 * counterparts are the after rows naming it, else (summarized) the summary message named by
 * its fate, else the after summary whose range covers its index; an original tool output also
 * lists the after back-references naming it (`firstId`), so selecting it shows its repeats.
 */
export function buildRunView(result: RunResult, runId: number, encoding: Encoding): RunView {
  const afterRows = result.after.messages.map((m, i) => {
    const row = baseRow(m, i, result.after.tokensById[m.id] ?? 0)
    const run = result.after.estimateById?.[m.id]
    if (run !== undefined) row.chunkedRun = run
    const origin = result.origins[m.id]
    row.origin = origin ? originView(origin) : { kind: 'original', beforeId: m.id, changed: false }
    row.counterpartIds = beforeIdsOf(origin, m.id)
    return row
  })
  const afterIds = new Set(afterRows.map((r) => r.id))
  const byBefore = new Map<string, Set<string>>()
  for (const row of afterRows) for (const b of row.counterpartIds) push(byBefore, b, row.id)
  const summaries = afterRows.filter((r) => r.origin?.kind === 'summary')
  // An original tool output also points at the later back-references that name it as firstId.
  const backRefsOf = new Map<string, Set<string>>()
  for (const row of afterRows) {
    if (row.origin?.kind === 'back-reference') push(backRefsOf, row.origin.firstId, row.id)
  }

  const beforeRows = result.before.messages.map((m) => {
    const row = baseRow(m, m.index, result.before.tokensById[m.id] ?? 0)
    const run = result.before.estimateById?.[m.id]
    if (run !== undefined) row.chunkedRun = run
    const fate = result.fates[m.id] ?? { kind: 'kept', changed: false }
    row.fate = fate
    let ids = [...(byBefore.get(m.id) ?? [])]
    if (ids.length === 0 && fate.kind === 'summarized' && afterIds.has(fate.summaryId)) {
      ids = [fate.summaryId]
    }
    if (ids.length === 0 && fate.kind === 'summarized') {
      ids = summaries
        .filter((s) => s.origin?.kind === 'summary' && s.origin.fromIndex <= m.index && m.index <= s.origin.toIndex)
        .map((s) => s.id)
    }
    const refs = backRefsOf.get(m.id)
    if (refs) {
      const seen = new Set(ids)
      for (const id of refs) if (!seen.has(id)) ids.push(id)
    }
    row.counterpartIds = ids
    return row
  })

  const withSummaries = result.passes.length <= PASS_SUMMARIES_SENT
  const passes: PassMeta[] = result.passes.map(({ prompt, summary, ...rest }) => ({
    ...rest,
    ...(withSummaries || rest.stage === 'recorded' ? { summary } : {}),
    summaryLength: codePointLength(summary),
    promptLength: codePointLength(prompt),
  }))

  return {
    runId,
    encoding,
    ...(result.calibration ? { calibration: { ...result.calibration } } : {}),
    before: { rows: beforeRows, totals: { ...result.before.totals } },
    after: { rows: afterRows, totals: { ...result.after.totals } },
    passes,
    stages: result.stages.map((s) => ({ ...s })),
    checks: {
      before: result.checks.before.slice(0, PROBLEMS_SENT),
      after: result.checks.after.slice(0, PROBLEMS_SENT),
      ...(result.checks.before.length > PROBLEMS_SENT || result.checks.after.length > PROBLEMS_SENT
        ? { problemCounts: { before: result.checks.before.length, after: result.checks.after.length } }
        : {}),
      ...(result.checks.failureModes
        ? { failureModes: result.checks.failureModes.map((w) => ({ ...w, messageIds: [...w.messageIds] })) }
        : { failureModesPending: true as const }),
    },
    warnings: [...result.warnings],
    ...(result.cleanup ? { cleanup: { ...result.cleanup } } : {}),
    // The pass list needs the reached check points only (why each pass fired, what a guard held).
    ...(result.decisions
      ? {
          decisions: decisionLogView(result.decisions, DECISIONS_SENT, (d) => d.reached),
          lastDecisions: lastOfEachStage(result.decisions),
        }
      : {}),
  }
}

function prettyArguments(raw: string): string {
  const parsed = parseJsonWithin(raw)
  // Invalid or too deeply nested JSON is shown exactly as the model wrote it.
  return parsed ? JSON.stringify(parsed.value, null, 2) : raw
}

function detailBlocks(content: Message['content']): DetailBlock[] {
  if (content == null) return []
  if (typeof content === 'string') return [{ kind: 'text', text: content }]
  return content.map((p): DetailBlock => {
    switch (p.type) {
      case 'text':
        return { kind: 'text', text: p.text }
      case 'image':
        return { kind: 'image', label: imageLabel(p) }
      case 'thinking': {
        const notes: string[] = []
        if (p.variant === 'redacted_thinking') notes.push('redacted thinking, kept opaque')
        if (p.variant === 'reasoning') notes.push('reasoning item')
        if (p.signature) notes.push('signature kept')
        if (p.encrypted) notes.push(`encrypted payload kept (${codePointLength(p.encrypted)} chars)`)
        return { kind: 'thinking', text: p.text ?? '', note: notes.join(' · ') }
      }
      case 'opaque': {
        let json = JSON.stringify(p.raw, null, 2) ?? ''
        if (codePointLength(json) > 20_000) json = `${cutCodePoints(json, 20_000)}\n…`
        return { kind: 'opaque', label: `[${p.kind} block]`, json }
      }
    }
  })
}

/** Full, displayable content of one message. Images appear as `[image, N KB]`, never base64. */
export function buildMessageDetail(message: Message, side: Side): MessageDetail {
  const detail: MessageDetail = {
    side,
    id: message.id,
    role: message.role,
    blocks: detailBlocks(message.content),
    toolCalls: (message.toolCalls ?? []).map((t) => ({
      id: t.id,
      name: t.name,
      arguments: prettyArguments(t.arguments),
    })),
    source: { format: message.source.format },
  }
  if (message.source.line !== undefined && detail.source) detail.source.line = message.source.line
  if (message.toolCallId !== undefined) detail.toolCallId = message.toolCallId
  if (message.toolName !== undefined) detail.toolName = message.toolName
  if (message.isError !== undefined) detail.isError = message.isError
  return detail
}

/** Export targets offered for a source format: canonical JSON, then its own request format. */
export function exportTargetsFor(format: FormatId): ExportTarget[] {
  const native = requestFormatOf(format)
  return native ? ['canonical', native] : ['canonical']
}

/**
 * Download name of an exported After: the source's name without its extension, then which After
 * and the target, e.g. `session.after.anthropic.json`, `session.recorded.canonical.json`.
 */
export function exportFileName(fileName: string, which: 'after' | 'recorded', target: ExportTarget): string {
  const base = fileName.replace(/\.[^./\\]+$/, '').replace(/[^\w.-]+/g, '-') || 'transcript'
  return `${base}.${which}.${target}.json`
}
