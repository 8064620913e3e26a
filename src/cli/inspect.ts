/**
 * The `inspect` command: a transcript's format, counts, recorded compactions, recorded usage and
 * warnings. It imports the file and counts; the tokenizer only when the file records usage or
 * compactions (our calibrated estimates beside the agent's figures), never the pipeline, so it and
 * its imports are kept apart from the other commands: main.ts runs it without loading the
 * command table.
 */
import type { Encoding, Transcript } from '../engine/model'
import { loadCounter } from '../engine/tokens/count'
import { calibrationFor, usageReport } from '../engine/usage/calibration'
import { calibrationLabel, RAW_COUNTS, type Calibration } from '../engine/usage/calibration-terms'
import type { CliCommand } from './commands'
import { UsageError } from './errors'
import { CONVERSATION_OPTION, conversationEntries, importInput, MAX_SIZE_OPTION, type ConversationEntry } from './input'
import type { CliOption } from './options'

/** `--json`: the option of inspect and of every command that runs the pipeline. */
export const JSON_OPTION: CliOption = {
  name: 'json',
  type: 'boolean',
  help:
    'compact/inspect/find/sweep: print one JSON object instead of the report\n' +
    '(compact --json includes the facts table and the failure-mode checks)',
}

/** `--encoding`: the token encoding our counts use (inspect and every command that runs the pipeline). */
export const ENCODING_OPTION: CliOption = { name: 'encoding', type: 'string', arg: 'E', help: 'o200k_base (default) or cl100k_base' }

/** The encodings `--encoding` takes. Source: SPEC §2. */
export const ENCODINGS: readonly Encoding[] = ['o200k_base', 'cl100k_base']

/**
 * The file's recorded usage beside our estimate of it (`inspect --json` `usage`): one entry per
 * API response in file order, `recorded` read from the file and `estimated` our count of the
 * context that request was sent, calibrated with the two numbers fitted to the whole file
 * (usage/calibration.ts) — never copied from `recorded`.
 */
interface InspectUsage {
  requests: { atMessageId: string; recorded: number; estimated: number }[]
  /** Tokens every request carries that the file does not show (fitted). */
  overhead: number
  /** The agent's tokens per token of ours (fitted). */
  ratio: number
  /** Median |estimated − recorded| / recorded over the requests (a fraction). */
  medianError: number | null
  /** The encoding our counts are in. */
  encoding: Encoding
  /** The calibration's line, as the page shows it. */
  label: string
}

/** Counts of a transcript, as `inspect` prints them (`--json` prints it as is). */
export interface InspectReport {
  format: Transcript['format']
  title?: string
  messages: number
  byRole: Record<string, number>
  toolCalls: number
  toolResults: number
  images: number
  thinkingBlocks: number
  tools: number
  recordedCompactions: {
    atIndex: number
    atMessageId?: string
    trigger?: string
    tokensBefore?: number
    tokensAfter?: number
    /**
     * Our count of the context the agent sent right before the compaction (calibrated to the
     * file's usage when it records any), beside the agent's own `tokensBefore`.
     */
    estimatedTokensBefore?: number
    /** Summary length in characters (UTF-16 units); null when the summary is not in the source. */
    summaryChars: number | null
    source: string
  }[]
  branches: number
  sidechains: { title?: string; messages: number }[]
  /** `conversation` when `sidechains` are the file's other conversations, not sub-agents. */
  sidechainKind?: 'conversation'
  /**
   * Every conversation of the file (`--conversation` picks one): the one opened by default first
   * (index 0), then the others; `open` marks the one reported.
   */
  conversations: ConversationEntry[]
  warnings: string[]
  /** `Transcript.notes`: what the import noticed that is not a problem. */
  notes: string[]
  /** The agent's version as the file records it (`Transcript.agentVersion`), when it does. */
  agentVersion?: string
  /** The recorded usage and our calibrated estimates; null when the file records no usage. */
  usage: InspectUsage | null
}

/**
 * What `inspect` reports: messages by role, tool calls, tool results (tool messages), images and
 * thinking blocks (parts, also inside tool results), tool schemas, recorded compactions, branch
 * and sidechain counts, and the import warnings. Pure.
 */
function inspectTranscript(t: Transcript): InspectReport {
  const byRole: Record<string, number> = { system: 0, user: 0, assistant: 0, tool: 0 }
  let toolCalls = 0
  let images = 0
  let thinkingBlocks = 0
  for (const m of t.messages) {
    byRole[m.role] = (byRole[m.role] ?? 0) + 1
    toolCalls += m.toolCalls?.length ?? 0
    if (Array.isArray(m.content)) {
      for (const p of m.content) {
        if (p.type === 'image') images++
        else if (p.type === 'thinking') thinkingBlocks++
      }
    }
  }
  const report: InspectReport = {
    format: t.format,
    messages: t.messages.length,
    byRole,
    toolCalls,
    toolResults: byRole.tool ?? 0,
    images,
    thinkingBlocks,
    tools: t.tools?.length ?? 0,
    recordedCompactions: t.recordedCompactions.map((c) => {
      const r: InspectReport['recordedCompactions'][number] = {
        atIndex: c.atIndex,
        summaryChars: c.summaryText === null ? null : c.summaryText.length,
        source: c.source,
      }
      if (c.atMessageId !== undefined) r.atMessageId = c.atMessageId
      if (c.trigger !== undefined) r.trigger = c.trigger
      if (c.tokensBefore !== undefined) r.tokensBefore = c.tokensBefore
      if (c.tokensAfter !== undefined) r.tokensAfter = c.tokensAfter
      return r
    }),
    branches: t.branches?.length ?? 0,
    sidechains: (t.sidechains ?? []).map((s) => {
      const x: { title?: string; messages: number } = { messages: s.messages.length }
      if (s.title !== undefined) x.title = s.title
      return x
    }),
    conversations: [],
    warnings: t.warnings,
    notes: t.notes ?? [],
    usage: null,
  }
  if (t.title !== undefined) report.title = t.title
  if (t.sidechainKind !== undefined) report.sidechainKind = t.sidechainKind
  if (t.agentVersion !== undefined) report.agentVersion = t.agentVersion
  return report
}

/**
 * Adds our token figures to `report`: the usage (`InspectUsage`) when the file records any, and
 * each recorded compaction's `estimatedTokensBefore`, counted in `encoding` and calibrated to
 * the file's usage (raw counts when it records none).
 */
async function addTokenFigures(report: InspectReport, t: Transcript, encoding: Encoding): Promise<void> {
  if (!(t.usage?.length || t.recordedCompactions.length)) return
  const counter = await loadCounter(encoding)
  const calibration: Calibration = t.usage?.length ? calibrationFor(t, { mode: 'auto' }, counter) : RAW_COUNTS
  const usage = usageReport(t, counter, calibration)
  usage.compactionsBefore.forEach((n, k) => {
    const c = report.recordedCompactions[k]
    if (c) c.estimatedTokensBefore = n
  })
  if (!t.usage?.length) return
  report.usage = {
    requests: usage.requests.map((r) => ({ atMessageId: r.atMessageId, recorded: r.recorded, estimated: r.estimated })),
    overhead: usage.overhead,
    ratio: usage.ratio,
    medianError: usage.medianError,
    encoding,
    label: calibrationLabel(calibration, encoding),
  }
}

/** The labels of inspect's text form, in print order; each is printed with `labelled`. */
const INSPECT_LABELS = [
  'messages',
  'tool calls',
  'tool results',
  'images',
  'thinking blocks',
  'tool schemas',
  'recorded compactions',
  'recorded usage',
  'agent version',
  'branches',
  'sidechains',
  'conversations',
] as const

/** Where the values start, in characters: the longest label and two spaces. */
const LABEL_COLUMN = Math.max(...INSPECT_LABELS.map((l) => l.length)) + 2

/** One line of the text form: the label padded to `LABEL_COLUMN`, then the value. */
const labelled = (label: (typeof INSPECT_LABELS)[number], value: string | number): string =>
  label.padEnd(LABEL_COLUMN) + String(value)

/**
 * The human form of `inspect`: a heading line (`name: format — title`), the counts in two
 * columns (labels, then values from `LABEL_COLUMN`), each recorded compaction indented under its
 * count, every conversation of a file of several under the sidechains count (index as
 * `--conversation` takes it, title, id, messages, the one reported marked `(open)`), then the
 * notes and warnings.
 */
export function inspectText(name: string, r: InspectReport): string {
  const roles = Object.entries(r.byRole)
    .map(([role, n]) => `${role} ${n}`)
    .join(', ')
  const lines = [
    `${name}: ${r.format}${r.title ? ` — ${r.title}` : ''}`,
    labelled('messages', `${r.messages} (${roles})`),
    labelled('tool calls', r.toolCalls),
    labelled('tool results', r.toolResults),
    labelled('images', r.images),
    labelled('thinking blocks', r.thinkingBlocks),
    labelled('tool schemas', r.tools),
    labelled('recorded compactions', r.recordedCompactions.length),
  ]
  for (const c of r.recordedCompactions) {
    const ours = c.estimatedTokensBefore !== undefined ? `; ours ${c.estimatedTokensBefore} before` : ''
    const tokens =
      c.tokensBefore !== undefined
        ? `, ${c.tokensBefore}${c.tokensAfter !== undefined ? ` → ${c.tokensAfter}` : ''} tokens (agent's count${ours})`
        : ours ? ` (${ours.slice(2)})` : ''
    const summary = c.summaryChars === null ? 'summary not in the source' : `summary ${c.summaryChars} chars`
    lines.push(`  at message ${c.atIndex}${c.trigger ? ` (${c.trigger})` : ''}: ${summary}${tokens}`)
  }
  if (r.usage) lines.push(labelled('recorded usage', `${r.usage.requests.length} request${r.usage.requests.length === 1 ? '' : 's'}; ${r.usage.label}`))
  if (r.agentVersion) lines.push(labelled('agent version', r.agentVersion))
  lines.push(labelled('branches', r.branches))
  // A file's other conversations are not sub-agents: counted as conversations, the one open included.
  if (r.sidechainKind === 'conversation') lines.push(labelled('conversations', r.conversations.length))
  else lines.push(labelled('sidechains', r.sidechains.length))
  if (r.conversations.length > 1) {
    // Every conversation, numbered as --conversation takes them.
    for (const c of r.conversations) {
      const id = c.id !== undefined ? ` [${c.id}]` : ''
      lines.push(`  ${c.index}  ${c.title ?? '(untitled)'}${id}: ${c.messages} messages${c.open ? ' (open)' : ''}`)
    }
  } else {
    for (const sc of r.sidechains) lines.push(`  ${sc.title ?? '(untitled)'}: ${sc.messages} messages`)
  }
  for (const n of r.notes) lines.push(`note: ${n}`)
  for (const w of r.warnings) lines.push(`warning: ${w}`)
  return lines.join('\n')
}

/** `inspect <file|-> [--json]`: the counts of the file, as text or as the `InspectReport` JSON. */
export const INSPECT_COMMAND: CliCommand = {
  name: 'inspect',
  synopsis: '<file|-> [--json] [--encoding E] [--conversation N|ID]',
  summary: 'format, counts, recorded compactions and usage, warnings',
  options: [JSON_OPTION, ENCODING_OPTION, CONVERSATION_OPTION, MAX_SIZE_OPTION],
  async run(ctx) {
    const encoding = (ctx.values.encoding as string | undefined) ?? 'o200k_base'
    if (!ENCODINGS.includes(encoding as Encoding)) throw new UsageError(`--encoding must be one of ${ENCODINGS.join(', ')}`)
    const { name, transcript, root, conversation } = importInput(ctx, 'inspect')
    const report = inspectTranscript(transcript)
    report.conversations = conversationEntries(root, conversation)
    await addTokenFigures(report, transcript, encoding as Encoding)
    ctx.out(ctx.values.json ? JSON.stringify(report, null, 2) : inspectText(name, report))
    return 0
  },
}
