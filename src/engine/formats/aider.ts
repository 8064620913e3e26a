import type { FormatId, SourceRef, Transcript } from '../model'
import { importFailure } from './failure'
import { FORMAT_LABELS } from './labels'
import type { FormatImporter, ImportOptions } from './registry'
import { finalizeTranscript, type DraftMessage } from './util'

const format: FormatId = 'aider'

/** The header aider appends at every launch. Source: formats.md §4.12. */
const AIDER_LAUNCH_HEADER = '# aider chat started at'

/** Name of the synthesized call for aider's own reports (edits applied, commits, token costs). */
const AIDER_REPORT_TOOL = 'aider'

/** Only the head is scanned: history files grow for years and detection must stay cheap. */
const DETECT_CHARS = 65536

/**
 * Detection (formats.md §2 item 1): the text starts (after blank lines) with
 * `# aider chat started at`, or its head has both a `#### ` user line and a `> ` output line.
 */
export function detectAider(input: unknown): true | string {
  if (typeof input !== 'string') return 'not a text file'
  const head = input.slice(0, DETECT_CHARS)
  if (/^\s*# aider chat started at/.test(head)) return true
  if (/^#### /m.test(head) && /^> /m.test(head)) return true
  return 'no "# aider chat started at" header and no "#### " / "> " lines'
}

type LineKind = 'launch' | 'user' | 'tool' | 'text'

/** A run of lines of one kind, with its 1-based first line. */
interface Block {
  kind: LineKind
  line: number
  lines: string[]
}

/** The kind of one Markdown line and its text without the aider prefix. */
function classify(line: string): { kind: LineKind; text: string } {
  if (line.startsWith(AIDER_LAUNCH_HEADER)) return { kind: 'launch', text: line.slice(2).trim() }
  // `####` alone is an empty line of a multi-line input; the two trailing spaces are the Markdown
  // line break aider puts between input lines.
  if (line === '####' || line.startsWith('#### '))
    return { kind: 'user', text: line.slice(5).replace(/ {2}$/, '') }
  // `>>>>>>> REPLACE` (SEARCH/REPLACE edits) is assistant text: only `> ` and a bare `>` quote.
  if (line === '>' || line.startsWith('> '))
    return { kind: 'tool', text: line.slice(2).replace(/ {2}$/, '') }
  return { kind: 'text', text: line }
}

/**
 * Groups lines into blocks: consecutive user lines are one input (a blank line ends it);
 * output lines separated only by blank lines are one output (aider writes each report of a step
 * as its own quote); everything else between is assistant text, trimmed of blank lines.
 */
function toBlocks(text: string): Block[] {
  const lines = text.split(/\r?\n/)
  const blocks: Block[] = []
  let current: Block | null = null
  lines.forEach((raw, i) => {
    const { kind, text: body } = classify(raw)
    const blank = kind === 'text' && body.trim() === ''
    if (blank) {
      // Blank lines close a user input; inside output and assistant text they may continue it.
      if (current && current.kind === 'text') current.lines.push('')
      else if (current && current.kind === 'user') current = null
      return
    }
    if (current && current.kind === kind && kind !== 'launch') {
      current.lines.push(body)
      return
    }
    current = { kind, line: i + 1, lines: [body] }
    blocks.push(current)
  })
  for (const b of blocks) {
    if (b.kind !== 'text') continue
    while (b.lines.length > 0 && (b.lines[b.lines.length - 1] ?? '').trim() === '') b.lines.pop()
  }
  return blocks
}

/**
 * Imports an aider chat history (`.aider.chat.history.md`). Lines (formats.md §4.12,
 * `split_chat_history_markdown`): `# aider chat started at …` starts a launch; `#### ` lines are
 * the user's input (consecutive lines are one multi-line input; the Markdown line-break double
 * space is stripped); `> ` lines (and a bare `>`) are aider's output, double trailing spaces
 * stripped; everything else is assistant Markdown (SEARCH/REPLACE edits included).
 *
 * aider records no tool calls and no ids, so its output is modelled as a synthesized tool call
 * (`aider-call-<n>`) answered by the very next message, a `tool` result flagged `command`:
 * - output after a slash command (`/run pytest`, `/ls`, `/add`) answers a call named after the
 *   command (`run`, arguments `{"command":"/run pytest"}`) made by a synthesized assistant message
 *   flagged `command` with no text;
 * - output after an answer (edits applied, commits, token costs) answers an `aider` call
 *   (arguments `{}`) added to that answer — its edits are what produced the report — so the
 *   transcript never has two assistant messages in a row (one model turn, as the Responses and
 *   Anthropic exports expect).
 * Why not user-side context: the text was produced by the environment, not typed by the person,
 * and as tool results the command outputs are what dedupe and prune-tool-results work on (the
 * sample's repeated `/ls` listing is a byte-identical tool result); since every call is answered
 * by the next message, the validity checker stays clean. A launch becomes a `user` message flagged
 * `injected` holding the header and the banner printed before the first input: aider's own
 * output, not a system prompt (it never reaches the model, and a later launch would be a
 * mid-conversation system message no Anthropic export can carry). The title is the first launch
 * header. Throws an ImportError-shaped object when nothing conversational is found. Never modifies
 * its input.
 */
export function importAiderText(text: string, options: ImportOptions = {}): Transcript {
  const keepRaw = options.keepRaw ?? true
  const blocks = toBlocks(text)
  const drafts: DraftMessage[] = []
  const warnings: string[] = []
  let title: string | undefined
  let calls = 0
  // The system message of the current launch, while its banner may still follow.
  let launch: DraftMessage | null = null

  const source = (b: Block): SourceRef => {
    const s: SourceRef = { format, line: b.line }
    if (keepRaw) s.raw = b.lines.join('\n')
    return s
  }

  for (const b of blocks) {
    const body = b.lines.join('\n')
    if (b.kind === 'launch') {
      title ??= body
      launch = { id: '', role: 'user', content: body, flags: { injected: true }, source: source(b) }
      drafts.push(launch)
      continue
    }
    if (b.kind === 'tool' && launch) {
      launch.content = `${String(launch.content)}\n\n${body}`
      if (keepRaw) launch.source.raw = `${String(launch.source.raw)}\n${body}`
      launch = null
      continue
    }
    launch = null
    if (b.kind === 'user') {
      const d: DraftMessage = { id: '', role: 'user', content: body, source: source(b) }
      if (body.startsWith('/')) d.flags = { command: true }
      drafts.push(d)
      continue
    }
    if (b.kind === 'text') {
      drafts.push({ id: '', role: 'assistant', content: body, source: source(b) })
      continue
    }
    const previous = drafts[drafts.length - 1]
    const callId = `aider-call-${++calls}`
    if (previous?.role === 'assistant' && !previous.flags?.command) {
      previous.toolCalls = [{ id: callId, name: AIDER_REPORT_TOOL, arguments: '{}' }]
      drafts.push({
        id: '',
        role: 'tool',
        content: body,
        toolCallId: callId,
        toolName: AIDER_REPORT_TOOL,
        flags: { command: true },
        source: source(b),
      })
      continue
    }
    const command =
      previous?.role === 'user' && previous.flags?.command && typeof previous.content === 'string'
        ? previous.content
        : undefined
    const slash = command !== undefined ? /^\/(\S+)/.exec(command)?.[1] : undefined
    const name = slash ?? AIDER_REPORT_TOOL
    drafts.push({
      id: '',
      role: 'assistant',
      content: null,
      toolCalls: [
        { id: callId, name, arguments: command !== undefined ? JSON.stringify({ command }) : '{}' },
      ],
      flags: { command: true },
      source: { format, line: b.line },
    })
    drafts.push({
      id: '',
      role: 'tool',
      content: body,
      toolCallId: callId,
      toolName: name,
      flags: { command: true },
      source: source(b),
    })
  }
  // Launch banners alone are aider's output, not a conversation.
  const said = (d: DraftMessage) =>
    (d.role === 'user' && !d.flags?.injected) || (d.role === 'assistant' && !d.flags?.command)
  if (!drafts.some(said))
    importFailure('no "#### " user input and no assistant text found in the aider history')
  return finalizeTranscript(format, drafts, [], warnings, title ? { title } : {})
}

/** The aider importer for the format registry (formats.md §2 item 1, §4.12). */
export const aiderImporter: FormatImporter = {
  id: format,
  label: FORMAT_LABELS[format],
  container: 'text',
  priority: 1,
  description: 'aider chat history, .aider.chat.history.md in the repository root',
  extensions: ['.md'],
  detect: detectAider,
  closeness(input) {
    if (typeof input !== 'string') return 0
    const head = input.slice(0, DETECT_CHARS)
    return (/^#### /m.test(head) ? 0.4 : 0) + (/^> /m.test(head) ? 0.3 : 0)
  },
  importParsed: (input, options) => {
    if (typeof input !== 'string') importFailure('expected the text of an aider chat history')
    return importAiderText(input, options)
  },
}
