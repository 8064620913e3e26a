/**
 * The pipeline configuration as a short, readable string for the URL hash
 * (shareable settings), and back. Pure: no DOM, no store.
 *
 * Format, version 1 — segments separated by `;`:
 *
 * ```
 * v1;e=o200k_base;s=extractive;dedupe;-slim:keep=5;summarize:keep_last=20,compact_after=40
 * ```
 *
 * - `v1` first: the format version.
 * - `name=value` segments are global settings: `e` encoding, `s` summarizer, `w` the model's
 *   context window in tokens (`PipelineConfig.window`; absent: `DEFAULT_WINDOW`), and for an HTTP
 *   summarizer `url`, `model`, `stream`, `max` (its `SummarizerSettings`). Never an API key.
 *   Token counts (`PipelineConfig.calibration`): `cal` its mode (`auto`, `manual`, `off`; absent:
 *   `auto`), `co` / `cr` the hand-set overhead (whole tokens ≥ 0) and ratio (0.5–2.5), `ao` the
 *   agent preset's overhead (whole tokens ≥ 0; its source is the preset's with that figure).
 * - Every other segment is a stage, in run order: its id, `-` before it when it is off, and
 *   after `:` its params as `name=value` separated by `,`.
 * - Values: numbers in JavaScript's shortest round-trip form, `true`/`false`, text
 *   percent-encoded (so `; , = : +` never appear raw), lists of names joined by `+`.
 *
 * Decoding validates against `PARAM_KINDS` and a base config (the engine defaults, or the
 * current settings): what it cannot use is left out and named in `notices`; it never throws.
 */
import { CALIBRATION_RATIO_RANGE } from '../../engine/usage/calibration-terms'
import type { CalibrationSetting, Encoding, PipelineConfig, StageConfig, StageId, SummarizerId, SummarizerSettings } from '../../engine/model'
import { windowOf } from '../../engine/models'
import { displayUrl } from '../../engine/util/url-credentials'
import { PRESETS } from '../../engine/presets'
import { STAGE_DEFINITIONS, STAGE_IDS, type StageParamDef } from '../../engine/stages/definitions'

/** The current format version (the `v1` segment). */
const URL_CONFIG_VERSION = 1

/** The hash key that holds the settings: `#cfg=…`. */
const HASH_KEY = 'cfg'

/**
 * How a stage param is written and checked: `number` any finite number (the engine clamps and
 * explains odd values itself), `flag` a boolean, `text` any string, `names` a list of non-empty
 * strings (tool names), or one of a fixed set of strings.
 */
export type ParamKind = 'number' | 'flag' | 'text' | 'names' | readonly string[]

/** How a param of `type` is written in a link (its definition's type; choices as the list). */
function kindOf(def: StageParamDef): ParamKind {
  switch (def.type) {
    case 'count':
      return 'number'
    case 'choice':
      return def.choices ?? []
    default:
      return def.type
  }
}

/**
 * Every param a stage accepts, by kind, read off the stage definitions (stages/definitions.ts):
 * a link carries exactly the params a stage defines; anything else is dropped with a notice.
 */
export const PARAM_KINDS: Record<StageId, Record<string, ParamKind>> = Object.fromEntries(
  STAGE_DEFINITIONS.map((d) => [
    d.id,
    Object.fromEntries((d.params as readonly StageParamDef[]).map((p) => [p.key, kindOf(p)])),
  ]),
) as Record<StageId, Record<string, ParamKind>>

const ENCODINGS: readonly Encoding[] = ['o200k_base', 'cl100k_base']
const CALIBRATION_MODES: readonly CalibrationSetting['mode'][] = ['auto', 'manual', 'off']


/** Whether `n` is a calibration overhead a link or the settings may set: whole tokens, ≥ 0. */
export function isCalibrationOverhead(n: number): boolean {
  return Number.isInteger(n) && n >= 0
}

/** Whether `n` is a hand-set tokenizer ratio (`CALIBRATION_RATIO_RANGE`). */
export function isCalibrationRatio(n: number): boolean {
  return Number.isFinite(n) && n >= CALIBRATION_RATIO_RANGE.min && n <= CALIBRATION_RATIO_RANGE.max
}
const SUMMARIZERS: readonly SummarizerId[] = ['extractive', 'openai-compatible', 'anthropic', 'recorded']

/** What `decodeConfig` made of a settings string. */
export interface DecodedConfig {
  /** A complete config: the link's settings over `base`. */
  config: PipelineConfig
  /** One short sentence per thing that was ignored or missing (empty when all was used). */
  notices: string[]
}

/**
 * Percent-encodes text so none of the separators appear raw. `/` stays readable (it is no
 * separator). Lone surrogates (not encodable) become U+FFFD instead of throwing.
 */
function escapeText(text: string): string {
  const wellFormed = text.replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, '\uFFFD')
  return encodeURIComponent(wellFormed)
    .replace(/[!'()*~]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)
    .replace(/%2F/g, '/')
}

/** The inverse of `escapeText`; null for malformed percent-encoding. */
function unescapeText(text: string): string | null {
  try {
    return decodeURIComponent(text)
  } catch {
    return null
  }
}

function encodeValue(value: unknown): string | null {
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : null
  if (typeof value === 'boolean') return value ? 'true' : 'false'
  if (typeof value === 'string') return escapeText(value)
  if (Array.isArray(value) && value.every((v) => typeof v === 'string')) {
    return value.map((v: string) => escapeText(v)).join('+')
  }
  return null
}

/**
 * The settings string of `config` (without `#cfg=`). Every param each stage holds is written, in
 * the config's order, and the window when one is set; the summarizer's base URL as `displayUrl`
 * shows it (a link or session file never carries its credentials). Params whose
 * value cannot be written (non-finite numbers, objects) are left out.
 */
export function encodeConfig(config: PipelineConfig): string {
  const segments = [`v${URL_CONFIG_VERSION}`, `e=${config.encoding}`, `s=${config.summarizer}`]
  if (config.window !== undefined && windowOf(config.window) === config.window) segments.push(`w=${config.window}`)
  const calibration = config.calibration
  if (calibration) {
    if (calibration.mode !== 'auto') segments.push(`cal=${calibration.mode}`)
    if (calibration.overhead !== undefined && isCalibrationOverhead(calibration.overhead)) segments.push(`co=${calibration.overhead}`)
    if (calibration.ratio !== undefined && isCalibrationRatio(calibration.ratio)) segments.push(`cr=${calibration.ratio}`)
    const agent = calibration.agentOverhead
    if (agent && isCalibrationOverhead(agent.tokens)) segments.push(`ao=${agent.tokens}`)
  }
  const options = config.summarizerOptions
  if (options) {
    segments.push(`url=${escapeText(displayUrl(options.baseUrl))}`, `model=${escapeText(options.model)}`)
    if (options.stream !== undefined) segments.push(`stream=${options.stream ? 'true' : 'false'}`)
    if (options.maxTokens !== undefined && Number.isFinite(options.maxTokens)) {
      segments.push(`max=${String(options.maxTokens)}`)
    }
  }
  for (const stage of config.stages) {
    const params: string[] = []
    for (const [name, value] of Object.entries(stage.params as Record<string, unknown>)) {
      if (value === undefined) continue
      const encoded = encodeValue(value)
      if (encoded !== null) params.push(`${name}=${encoded}`)
    }
    const head = `${stage.enabled ? '' : '-'}${stage.id}`
    segments.push(params.length > 0 ? `${head}:${params.join(',')}` : head)
  }
  return segments.join(';')
}

const NUMBER = /^-?(?:\d+\.?\d*|\.\d+)(?:e[+-]?\d+)?$/i

function decodeNumber(raw: string): number | null {
  if (!NUMBER.test(raw)) return null
  const n = Number(raw)
  return Number.isFinite(n) ? n : null
}

function decodeFlag(raw: string): boolean | null {
  return raw === 'true' ? true : raw === 'false' ? false : null
}

/** A param value of `kind`, or a reason it is invalid. */
function decodeParam(kind: ParamKind, raw: string): { value: unknown } | { problem: string } {
  if (kind === 'number') {
    const n = decodeNumber(raw)
    return n === null ? { problem: 'is not a number' } : { value: n }
  }
  if (kind === 'flag') {
    const b = decodeFlag(raw)
    return b === null ? { problem: 'is not true/false' } : { value: b }
  }
  if (kind === 'names') {
    if (raw === '') return { value: [] }
    const names = raw.split('+').map(unescapeText)
    if (names.some((n) => n === null || n === '')) return { problem: 'is not a list of names' }
    return { value: names }
  }
  const text = unescapeText(raw)
  if (text === null) return { problem: 'is not valid text' }
  if (kind === 'text') return { value: text }
  return kind.includes(text) ? { value: text } : { problem: `is not one of ${kind.join(', ')}` }
}

/** `"abc"` quoted and cut for a notice (link text is untrusted: shown as text, kept short). */
function quote(raw: string): string {
  const shown = unescapeText(raw) ?? raw
  return `"${shown.length > 24 ? `${shown.slice(0, 23)}…` : shown}"`
}

/** Splits `name=value` at the first `=`; null without one. */
function splitPair(segment: string): [string, string] | null {
  const at = segment.indexOf('=')
  return at < 0 ? null : [segment.slice(0, at), segment.slice(at + 1)]
}

/**
 * Reads a stage segment's params over nothing: the link's params are the stage's. A param the
 * link lacks, or gives a value of the wrong kind, is absent, and the engine reads an absent param
 * as its default (stages/params.ts), so a link means exactly what it says whatever the base holds.
 */
function decodeStageParams(id: StageId, text: string, notices: string[]): Record<string, unknown> {
  const kinds = PARAM_KINDS[id]
  const params: Record<string, unknown> = {}
  if (text === '') return params
  for (const item of text.split(',')) {
    const pair = splitPair(item)
    if (!pair) {
      notices.push(`${id}: ${quote(item)} is not name=value`)
      continue
    }
    const [name, raw] = pair
    const kind = Object.hasOwn(kinds, name) ? kinds[name] : undefined
    if (kind === undefined) {
      notices.push(`${id}: unknown param ${quote(name)}`)
      continue
    }
    const decoded = decodeParam(kind, raw)
    if ('problem' in decoded) notices.push(`${id} ${name} ${quote(raw)} ${decoded.problem}`)
    else params[name] = decoded.value
  }
  return params
}

function decodeSegments(segments: string[], base: PipelineConfig, notices: string[]): PipelineConfig {
  let encoding = base.encoding
  let summarizer = base.summarizer
  let window: number | undefined
  const calibration: Partial<CalibrationSetting> = {}
  const options: Partial<Record<'url' | 'model' | 'stream' | 'max', string>> = {}
  const stages: StageConfig[] = []
  const seen = new Set<StageId>()
  for (const segment of segments) {
    if (segment === '') continue
    const colon = segment.indexOf(':')
    const eq = segment.indexOf('=')
    if (eq >= 0 && (colon < 0 || eq < colon)) {
      const [name, raw] = splitPair(segment) ?? ['', '']
      if (name === 'e') {
        if ((ENCODINGS as readonly string[]).includes(raw)) encoding = raw as Encoding
        else notices.push(`unknown encoding ${quote(raw)}`)
      } else if (name === 's') {
        if ((SUMMARIZERS as readonly string[]).includes(raw)) summarizer = raw as SummarizerId
        else notices.push(`unknown summarizer ${quote(raw)}`)
      } else if (name === 'w') {
        const n = decodeNumber(raw)
        if (n !== null && windowOf(n) === n) window = n
        else notices.push(`model window ${quote(raw)} is not a whole number of tokens ≥ 1,000`)
      } else if (name === 'cal') {
        if ((CALIBRATION_MODES as readonly string[]).includes(raw)) calibration.mode = raw as CalibrationSetting['mode']
        else notices.push(`unknown token counts ${quote(raw)}`)
      } else if (name === 'co' || name === 'ao') {
        const n = decodeNumber(raw)
        if (n === null || !isCalibrationOverhead(n)) notices.push(`${name === 'co' ? 'overhead' : 'agent overhead'} ${quote(raw)} is not a whole number of tokens ≥ 0`)
        else if (name === 'co') calibration.overhead = n
        else calibration.agentOverhead = { tokens: n, source: agentOverheadSource(n) }
      } else if (name === 'cr') {
        const n = decodeNumber(raw)
        if (n !== null && isCalibrationRatio(n)) calibration.ratio = n
        else notices.push(`ratio ${quote(raw)} is not between ${CALIBRATION_RATIO_RANGE.min} and ${CALIBRATION_RATIO_RANGE.max}`)
      } else if (name === 'url' || name === 'model' || name === 'stream' || name === 'max') {
        options[name] = raw
      } else notices.push(`unknown setting ${quote(name)}`)
      continue
    }
    const head = colon < 0 ? segment : segment.slice(0, colon)
    const enabled = !head.startsWith('-')
    const id = (enabled ? head : head.slice(1)) as StageId
    if (!STAGE_IDS.includes(id)) {
      notices.push(`unknown stage ${quote(id)}`)
      continue
    }
    if (seen.has(id)) {
      notices.push(`stage ${id} appears twice (the first is used)`)
      continue
    }
    seen.add(id)
    const params = decodeStageParams(id, colon < 0 ? '' : segment.slice(colon + 1), notices)
    stages.push({ id, enabled, params } as StageConfig)
  }
  for (const stage of base.stages) {
    if (seen.has(stage.id)) continue
    notices.push(`stage ${stage.id} missing`)
    stages.push(structuredClone(stage))
  }

  const config: PipelineConfig = { stages, encoding, summarizer }
  if (window !== undefined) config.window = window
  // A link without `cal` (every link before token counts were settings) counts as `auto`.
  const mode = calibration.mode ?? 'auto'
  if (mode !== 'auto' || Object.keys(calibration).some((k) => k !== 'mode')) config.calibration = { ...calibration, mode }
  const summarizerOptions = decodeSummarizerOptions(options, notices)
  // The endpoint comes from the link alone: a base endpoint never rides along unseen.
  if (summarizerOptions) config.summarizerOptions = summarizerOptions
  return config
}

/**
 * Where a link's agent overhead of `tokens` comes from: the source of the preset documenting that
 * figure, else the link itself.
 */
function agentOverheadSource(tokens: number): string {
  return PRESETS.find((p) => p.overhead?.tokens === tokens)?.overhead?.source ?? 'from the settings link'
}

function decodeSummarizerOptions(
  options: Partial<Record<'url' | 'model' | 'stream' | 'max', string>>,
  notices: string[],
): SummarizerSettings | null {
  if (options.url === undefined && options.model === undefined) return null
  const baseUrl = options.url === undefined ? null : unescapeText(options.url)
  const model = options.model === undefined ? null : unescapeText(options.model)
  if (baseUrl === null || model === null) {
    notices.push('summarizer endpoint needs both url and model')
    return null
  }
  const settings: SummarizerSettings = { baseUrl, model }
  if (options.stream !== undefined) {
    const stream = decodeFlag(options.stream)
    if (stream === null) notices.push(`summarizer stream ${quote(options.stream)} is not true/false`)
    else settings.stream = stream
  }
  if (options.max !== undefined) {
    const max = decodeNumber(options.max)
    if (max === null) notices.push(`summarizer max ${quote(options.max)} is not a number`)
    else settings.maxTokens = max
  }
  return settings
}

/**
 * Reads a settings string (`encodeConfig`'s form) over `base`: the encoding and summarizer of
 * `base` unless it names them, the window and token counts it names (else none: the engine's
 * `DEFAULT_WINDOW`, `auto` calibration),
 * the stages it names, in its order, then any stage of `base` it does not name; a named stage has
 * exactly the params the link gives (an absent one is the engine's default). Unknown or invalid values are
 * ignored and named in `notices`. A string of another version keeps `base` whole. Never throws.
 */
export function decodeConfig(text: string, base: PipelineConfig): DecodedConfig {
  const notices: string[] = []
  // A link pasted through a tool that percent-encoded the separators.
  let source = text.trim()
  if (!source.includes(';') && /%3B/i.test(source)) source = unescapeText(source) ?? source
  const segments = source.split(';')
  const version = segments[0] ?? ''
  if (version !== `v${URL_CONFIG_VERSION}`) {
    notices.push(
      /^v\d+$/.test(version)
        ? `settings of format ${version} are not understood here; the current settings stay`
        : 'not a settings link; the current settings stay',
    )
    return { config: structuredClone(base), notices }
  }
  return { config: decodeSegments(segments.slice(1), base, notices), notices }
}

/**
 * The value of one `key=value` entry of a location hash (`#cfg=…&watch=…&m=41`), as written (still
 * percent-encoded where its writer encoded it), or null when the hash has no such entry. Every
 * feature that keeps state in the hash reads its entry through this.
 */
export function hashEntry(hash: string, key: string): string | null {
  const body = hash.startsWith('#') ? hash.slice(1) : hash
  for (const part of body.split('&')) {
    const pair = splitPair(part)
    if (pair && pair[0] === key) return pair[1]
  }
  return null
}

/**
 * `hash` with its `key` entry set to `value` (already escaped by the caller: no raw `&`), or
 * removed when `value` is null. An existing entry keeps its place; a new one goes at the end, or
 * first with `first`. Other entries stay as they are. Returns it with the `#`, or `''` when
 * nothing is left.
 */
export function hashWithEntry(hash: string, key: string, value: string | null, first = false): string {
  const body = hash.startsWith('#') ? hash.slice(1) : hash
  const parts = body === '' ? [] : body.split('&')
  const at = parts.findIndex((p) => p.startsWith(`${key}=`))
  if (value === null) {
    if (at >= 0) parts.splice(at, 1)
  } else if (at >= 0) parts[at] = `${key}=${value}`
  else if (first) parts.unshift(`${key}=${value}`)
  else parts.push(`${key}=${value}`)
  return parts.length > 0 ? `#${parts.join('&')}` : ''
}

/** The `cfg` value of a location hash (`#cfg=…&other=…`), or null when it has none. */
export function configTextFromHash(hash: string): string | null {
  return hashEntry(hash, HASH_KEY)
}

/**
 * `hash` with its `cfg` entry set to `encodeConfig(config)` (first when new); other `&`-separated
 * entries are kept in place (other features keep their own state in the hash). Returns it with the `#`.
 */
export function hashWithConfig(hash: string, config: PipelineConfig): string {
  return hashWithEntry(hash, HASH_KEY, encodeConfig(config), true)
}

/** The hash key of the facts the user watches: `#…&watch=ORD-58213+postal%20code%2094107`. */
const WATCH_KEY = 'watch'

/**
 * The watched facts of a location hash (its `watch` entry: each fact percent-encoded, joined by
 * `+`), in order, empty and malformed ones left out; an empty list when it has none.
 */
export function watchedFromHash(hash: string): string[] {
  const value = hashEntry(hash, WATCH_KEY)
  if (value === null) return []
  return value
    .split('+')
    .map(unescapeText)
    .filter((f): f is string => f !== null && f.trim() !== '')
}

/**
 * `hash` with its `watch` entry set to `watched` (each fact percent-encoded, so `+ & ;` never
 * appear raw), after the `cfg` entry; without one when `watched` is empty. Other entries stay in
 * place. Returns it with the `#` (or `''` when nothing is left).
 */
export function hashWithWatched(hash: string, watched: readonly string[]): string {
  const cleared = hashWithEntry(hash, WATCH_KEY, null)
  return watched.length > 0 ? hashWithEntry(cleared, WATCH_KEY, watched.map(escapeText).join('+')) : cleared
}

/**
 * One line for the page: `Some settings in the link were not used: unknown stage "x"; …` (at most
 * three). Repeats are said once, and `… missing` notices (the current value simply stayed) come
 * after the others: a short hand-written link names only a stage or two, and its "missing" lines
 * would otherwise push what was really refused (a bad value, a held-back endpoint) out of sight.
 * `source` names where the settings came from (`link`, `session file`).
 */
export function noticeLine(notices: readonly string[], source = 'link'): string | null {
  const unique = [...new Set(notices)]
  if (unique.length === 0) return null
  const missing = (n: string) => n.endsWith(' missing')
  const ordered = [...unique.filter((n) => !missing(n)), ...unique.filter(missing)]
  const shown = ordered.slice(0, 3).join('; ')
  const more = ordered.length > 3 ? ` (and ${ordered.length - 3} more)` : ''
  return `Some settings in the ${source} were not used: ${shown}${more}.`
}
