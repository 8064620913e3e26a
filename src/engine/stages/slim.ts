/**
 * `slim`: the tool-output preprocessor of seed 004. A JSON list keeps `total`, its first `keep`
 * items and the cursor (the model asks for the next page when it needs it); an error keeps its
 * status and first line (the stack trace belongs in a log); repeated rows are dropped.
 * Source: seed 004 `slim(result, keep=5)`, SPEC §3.5.
 */
import { contentText } from '../content'
import { parseJsonWithin } from '../util/nesting'
import type { Fate, Message, Origin, SlimParams } from '../model'
import { unchangedOutput } from './output'
import { countDefault } from './definitions'
import { readCounts } from './params'
import type { StageContext, StageOutput } from './types'
import { inputRecord } from '../util/input-record'

/** Items a JSON list keeps by default. Source: seed 004 `keep=5`. */
export const DEFAULT_SLIM_KEEP = countDefault('slim', 'keep')

/** Keys that hold a list's items, tried in this order when an object has several arrays. */
const ITEM_KEYS = [
  'items',
  'results',
  'data',
  'entries',
  'records',
  'rows',
  'hits',
  'list',
  'values',
]

/** Keys that hold a pagination cursor. Source: seed 004 `next_cursor`. */
const CURSOR_KEYS = [
  'next_cursor',
  'nextCursor',
  'next',
  'cursor',
  'next_page',
  'nextPage',
  'next_page_token',
  'nextPageToken',
  'page_token',
]

/** Keys that already hold the list's total. */
const TOTAL_KEYS = ['total', 'total_count', 'totalCount', 'count']

/** A line counts as a row (and may be dropped as a repeat) from this many code points on. */
const MIN_ROW_CHARS = 16

/** Marker of a slimmed error output. */
export const SLIM_ERROR_NOTE = '[slim: error output cut to its status and first line]'

function uniqueItems(items: unknown[]): unknown[] {
  const seen = new Set<string>()
  return items.filter((x) => {
    const key = JSON.stringify(x)
    if (seen.has(key)) return false
    seen.add(key)
    return true
  })
}

/**
 * A JSON list output slimmed: a bare array → `{"total": n, "items": first keep}`; an object
 * with an item array → `total` (its own or the array's length), the first `keep` distinct
 * items under the same key, and its cursor; other fields are dropped (seed 004 "fields
 * slice"). Undefined when `text` is not such JSON (nor JSON nesting deeper than `MAX_NESTING`:
 * that stays text, `parseJsonWithin`) or already short with no repeats.
 */
export function slimJsonList(text: string, keep: number): string | undefined {
  const trimmed = text.trim()
  if (!/^[[{]/.test(trimmed)) return undefined
  const within = parseJsonWithin(trimmed)
  if (!within) return undefined
  const parsed = within.value
  if (Array.isArray(parsed)) {
    const distinct = uniqueItems(parsed)
    if (distinct.length <= keep && distinct.length === parsed.length) return undefined
    return JSON.stringify({ total: parsed.length, items: distinct.slice(0, keep) })
  }
  if (!parsed || typeof parsed !== 'object') return undefined
  const obj = parsed as Record<string, unknown>
  const arrays = Object.keys(obj).filter((k) => Array.isArray(obj[k]))
  const itemKey =
    ITEM_KEYS.find((k) => arrays.includes(k)) ?? (arrays.length === 1 ? arrays[0] : undefined)
  if (itemKey === undefined) return undefined
  const items = obj[itemKey] as unknown[]
  const distinct = uniqueItems(items)
  if (distinct.length <= keep && distinct.length === items.length) return undefined
  const totalKey = TOTAL_KEYS.find((k) => typeof obj[k] === 'number')
  const out: Record<string, unknown> = { total: totalKey ? obj[totalKey] : items.length }
  out[itemKey] = distinct.slice(0, keep)
  const cursorKey = CURSOR_KEYS.find((k) => k in obj)
  if (cursorKey !== undefined) out[cursorKey] = obj[cursorKey]
  return JSON.stringify(out)
}

const ERROR_START = /^\s*(?:error|traceback|exception|fatal|panic)\b/i
const STATUS = /\b(?:exit (?:code|status)|status(?: code)?|HTTP)[:\s]+\d{1,3}\b/i

/**
 * An error output slimmed to `status — first line` plus `SLIM_ERROR_NOTE` (the status only when
 * the first line does not already carry it). Undefined when it is not an error or has one line.
 */
export function slimError(text: string, isError: boolean): string | undefined {
  const lines = text.split('\n').filter((l) => l.trim() !== '')
  const first = lines[0]?.trim()
  if (!first || lines.length < 2) return undefined
  if (!isError && !ERROR_START.test(first)) return undefined
  const status = STATUS.exec(text)?.[0]
  const head = status && !first.includes(status) ? `${status} — ${first}` : first
  return `${head}\n${SLIM_ERROR_NOTE}`
}

/**
 * Text with later copies of a repeated row (a line of at least `MIN_ROW_CHARS` code points)
 * dropped and a note saying how many. Undefined when nothing repeats.
 */
export function dropRepeatedRows(text: string): string | undefined {
  const seen = new Set<string>()
  let dropped = 0
  const kept = text.split('\n').filter((line) => {
    const key = line.trim()
    if ([...key].length < MIN_ROW_CHARS) return true
    if (seen.has(key)) {
      dropped++
      return false
    }
    seen.add(key)
    return true
  })
  if (dropped === 0) return undefined
  return `${kept.join('\n')}\n[slim: ${dropped} repeated row(s) dropped]`
}

/**
 * Runs `slim` over the tool results of `messages`: each whose content is text only (a string
 * or text parts) is rewritten by the first rule that applies — JSON list (`slimJsonList`),
 * error (`slimError`), repeated rows (`dropRepeatedRows`) — and only when the new message has
 * fewer tokens than the old (slim never grows a message). Messages are never removed, so tool
 * pairs stay intact; the call id, name and error flag are kept.
 * Provenance: fate `slimmed` for each rewritten message; its origin is the original,
 * `changed: true`. No change when nothing applies. Never mutates its input.
 */
export function slim(
  messages: readonly Message[],
  params: Partial<SlimParams> | undefined,
  ctx: StageContext,
): StageOutput {
  const keep = readCounts('slim', params).values.keep!
  const fates = inputRecord<Fate>()
  const origins = inputRecord<Origin>()
  let changed = false
  const out = messages.map((m) => {
    if (m.role !== 'tool' || m.content == null) return m
    if (Array.isArray(m.content) && m.content.some((p) => p.type !== 'text')) return m
    const text = contentText(m.content)
    const slimmed =
      slimJsonList(text, keep) ?? slimError(text, m.isError === true) ?? dropRepeatedRows(text)
    if (slimmed === undefined) return m
    const next: Message = { ...m, content: slimmed }
    if (ctx.countMessage(next) >= ctx.countMessage(m)) return m
    fates[m.id] = { kind: 'slimmed', stage: 'slim' }
    origins[m.id] = { kind: 'original', beforeId: m.id, changed: true }
    changed = true
    return next
  })
  if (!changed) return unchangedOutput(messages, 'nothing to slim')
  return { messages: out, changed: true, fates, origins, passes: [], warnings: [] }
}
