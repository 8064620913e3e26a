import type { MessageFlags, Part, SourceRef, Transcript } from '../model'
import { oneLine, quoteForMessage } from '../util/text'
import { importFailure } from './failure'
import type { FormatImporter, ImportOptions } from './types'
import { finalizeTranscript, withConversations, type DraftMessage } from './util'

const format = 'aider'

/** The header aider appends at every launch (`InputOutput.__init__`). Source: formats.md §4.12. */
const AIDER_LAUNCH_HEADER = '# aider chat started at'

/** Only the head is scanned: history files grow for years and detection must stay cheap. */
const DETECT_CHARS = 65536

/**
 * An editor mode line (Emacs `-*- mode: markdown -*-`, Vim `vim: set ft=markdown:`), possibly in
 * an HTML comment: a setting for the editor, not part of the chat.
 */
const MODELINE =
  /^\s*(?:<!--)?\s*(?:.*-\*-.*-\*-.*|(?:vi|vim|ex):\s*(?:set?\s+)?[\w-]+=\S*.*?)\s*(?:-->)?\s*$/

/** How far a `> ` line without aider's line break may run on before it counts as Markdown. */
const MAX_ENTRY_LINES = 400

/**
 * Detection (formats.md §2 item 1): the text starts (after blank lines and an editor mode line)
 * with `# aider chat started at`, or its head has both a `#### ` user line and a `> ` output line.
 */
export function detectAider(input: unknown): true | string {
  if (typeof input !== 'string') return 'not a text file'
  const head = input.slice(0, DETECT_CHARS)
  const lead = head.replace(/^\s*/, '')
  const firstLine = /^[^\r\n]*/.exec(lead)?.[0] ?? ''
  const rest = MODELINE.test(firstLine) ? lead.slice(firstLine.length).replace(/^\s*/, '') : lead
  if (rest.startsWith(AIDER_LAUNCH_HEADER)) return true
  if (/^#### /m.test(head) && /^> /m.test(head)) return true
  return 'no "# aider chat started at" header and no "#### " / "> " lines'
}

// ---------------------------------------------------------------------------------------------
// Lines → blocks
// ---------------------------------------------------------------------------------------------

/**
 * One write of aider's console log (`tool_output` / `tool_warning` / `tool_error` / a
 * `confirm_ask` answer): its text without the `> ` prefix and the closing line break. Usually one
 * line; a message with newlines that aider wrote in one call (a commit message with a body) runs
 * on over unprefixed lines until the line that carries the break.
 */
interface LogEntry {
  line: number
  text: string
  raw: string[]
}

/** A run of one kind of content, with its 1-based first line. */
type Block =
  | { kind: 'header'; line: number; text: string }
  | { kind: 'user'; line: number; lines: string[]; raw: string[] }
  | { kind: 'text'; line: number; lines: string[] }
  | { kind: 'log'; line: number; entries: LogEntry[] }

/** Ends with the Markdown line break (two spaces) aider puts after each log and user line. */
const hasBreak = (line: string) => line.endsWith('  ')

const isHeader = (line: string) => line.startsWith(AIDER_LAUNCH_HEADER)

/** `#### ` (or a bare `####`, an empty line of a multi-line input, as older files have it). */
const isUserPrefix = (line: string) => line.startsWith('#### ') || /^####\s*$/.test(line)

/** `> ` or a bare `>` (aider's empty output line is `>` plus the line break). */
const isLogPrefix = (line: string) => line.startsWith('> ') || /^>\s*$/.test(line)

/** The text of a user or log line: the prefix and exactly one closing line break removed. */
function bodyOf(line: string, prefix: number): string {
  const body = line.slice(prefix)
  return hasBreak(body) ? body.slice(0, -2) : body
}

/**
 * Which prefixed lines are aider's. aider's writer (`InputOutput.append_chat_history` with
 * `linebreak=True`, used by `user_input` and every log write) ends each `#### ` and `> ` line with
 * two spaces; the assistant's reply (`ai_output`) is written as is, so a reply's `#### Heading`
 * or `> quote` lines lack them. When no line of a kind has the break (an editor stripped
 * trailing spaces), the prefix alone decides, as aider's own reader does
 * (`split_chat_history_markdown`).
 */
interface Strictness {
  user: boolean
  log: boolean
}

/** Per prefix: does any line of that kind carry aider's line break? */
function strictnessOf(lines: readonly string[]): Strictness {
  let user = false
  let log = false
  for (const l of lines) {
    if (!user && isUserPrefix(l) && hasBreak(l)) user = true
    if (!log && isLogPrefix(l) && hasBreak(l)) log = true
    if (user && log) break
  }
  return { user, log }
}

/** One classified line (a log entry may span several lines). */
type Item =
  | { kind: 'header'; line: number; raw: string }
  | { kind: 'user'; line: number; raw: string }
  | { kind: 'log'; entry: LogEntry }
  | { kind: 'text'; line: number; raw: string }

/** Classifies each line from `start` on: header, user line, log entry, or assistant text. */
function toItems(lines: readonly string[], strict: Strictness, start: number): Item[] {
  const items: Item[] = []
  for (let i = start; i < lines.length; i++) {
    const raw = lines[i] ?? ''
    const prev = items[items.length - 1]
    // aider writes each input as `\n#### …`: its first line always follows a blank line, so a
    // `#### ` line right under a line of the reply is the reply's own (a heading with a break).
    const underReply = prev?.kind === 'text' && (lines[i - 1] ?? '').trim() !== ''
    if (isHeader(raw)) items.push({ kind: 'header', line: i + 1, raw })
    else if (isUserPrefix(raw) && (!strict.user || hasBreak(raw)) && !underReply)
      items.push({ kind: 'user', line: i + 1, raw })
    else {
      const afterLog = items[items.length - 1]?.kind === 'log'
      const entry = isLogPrefix(raw) ? logEntryAt(lines, i, strict.log, afterLog) : null
      if (entry) {
        items.push({ kind: 'log', entry })
        i += entry.raw.length - 1
      } else items.push({ kind: 'text', line: i + 1, raw })
    }
  }
  return items
}

/**
 * Groups the lines into blocks: a header; a user input (consecutive user lines — aider writes a
 * blank line before each input, so any other line ends one); a log block (log entries separated
 * at most by blank lines: nothing else happened between them); assistant text (everything else,
 * blank lines trimmed at both ends). `start` skips a leading editor mode line.
 */
function toBlocks(lines: readonly string[], strict: Strictness, start: number): Block[] {
  const items = toItems(lines, strict, start)
  const blocks: Block[] = []
  for (let i = 0; i < items.length; i++) {
    const it = items[i] as Item
    const last = blocks[blocks.length - 1]
    if (it.kind === 'header') {
      blocks.push({ kind: 'header', line: it.line, text: it.raw.slice(2).trim() })
    } else if (it.kind === 'user') {
      const prev = items[i - 1]
      if (last?.kind === 'user' && prev?.kind === 'user') {
        last.lines.push(bodyOf(it.raw, 5))
        last.raw.push(it.raw)
      } else blocks.push({ kind: 'user', line: it.line, lines: [bodyOf(it.raw, 5)], raw: [it.raw] })
    } else if (it.kind === 'log') {
      if (last?.kind === 'log') last.entries.push(it.entry)
      else blocks.push({ kind: 'log', line: it.entry.line, entries: [it.entry] })
    } else if (it.raw.trim() === '') {
      // A blank line: inside assistant text it is kept; elsewhere it separates nothing.
      if (last?.kind === 'text') last.lines.push('')
    } else if (last?.kind === 'text' && items[i - 1]?.kind === 'text') last.lines.push(it.raw)
    else blocks.push({ kind: 'text', line: it.line, lines: [it.raw] })
  }
  for (const b of blocks) {
    if (b.kind !== 'text') continue
    while (b.lines.length > 0 && (b.lines[b.lines.length - 1] ?? '').trim() === '') b.lines.pop()
  }
  return blocks
}

/**
 * The log entry starting at line `i` (a `> ` or `>` line), or null when, under the strict rule,
 * the line is the assistant's Markdown quote: it has no line break and no later line closes it
 * before the next prefixed line (`maxLines` at most).
 */
function logEntryAt(
  lines: readonly string[],
  i: number,
  strict: boolean,
  afterLog: boolean,
): LogEntry | null {
  const line = lines[i] ?? ''
  const first = /^>\s*$/.test(line) ? '' : bodyOf(line, 2)
  if (!strict || hasBreak(line)) return { line: i + 1, text: first, raw: [line] }
  // A bare `>` right after a log line is an empty line of that output.
  if (afterLog && /^>\s*$/.test(line)) return { line: i + 1, text: '', raw: [line] }
  const end = Math.min(lines.length, i + 1 + MAX_ENTRY_LINES)
  for (let j = i + 1; j < end; j++) {
    const next = lines[j] ?? ''
    if (isHeader(next) || isUserPrefix(next) || isLogPrefix(next)) return null
    if (hasBreak(next)) {
      const raw = lines.slice(i, j + 1)
      const text = [first, ...raw.slice(1, -1), next.slice(0, -2)].join('\n')
      return { line: i + 1, text, raw }
    }
  }
  return null
}

// ---------------------------------------------------------------------------------------------
// What aider sent to the model
// ---------------------------------------------------------------------------------------------

/**
 * The options aider's `confirm_ask` appends to a question, any case, up to the colon before the
 * answer: `(y/n) [y]:`, `(Y)es/(N)o [Yes]:`, `(Y)es/(N)o/(A)ll/(S)kip all/(D)on't ask again
 * [Yes]:`, `(Y)es/(n)o/message with instructions:` (which a long question wraps onto its own
 * unprefixed line). Source: aider/io.py `confirm_ask`, as seen in history files of 0.2x–0.8x.
 */
const OPTIONS = String.raw`\?\s*(?:\(y\/n\)|\(y\)es\/\(n\)o)[^\[:]*(?:\[[^\]]*\])?\s*:`
/** A `confirm_ask` question with its options (and the logged answer, if any). */
const CONFIRM = new RegExp(OPTIONS, 'i')

/**
 * The answer logged after a question: after its options (`… (Y)es/(N)o [Yes]: y`, `… (Y)es/(n)o/
 * message with instructions: n`) or, in older aider, right after the `?` (`Add the output to the
 * chat? y`). True for yes / all / instructions typed in place of an answer (or no answer: aider
 * logs the default it took), false for no / skip / don't ask again, null when the entry is no
 * question.
 */
function confirmed(text: string): boolean | null {
  const m =
    new RegExp(`${OPTIONS}\\s*(.*?)\\s*$`, 'is').exec(text) ?? /\?\s*(\S*)\s*$/.exec(text)
  if (!m) return null
  const a = (m[1] ?? '').toLowerCase()
  if (a === '') return true
  if (/^(?:n|no|s|skip|skip all|d|don't ask again)$/.test(a)) return false
  return true
}

/** `cmd_run`: the question whether command output goes into the chat (old and new wording). */
const ADD_OUTPUT =
  /^Add (?:the output|command output|[\d.]+k tokens of command output) to the chat\?/
/** `cmd_run` after the output was added (newer aider). */
const ADDED_OUTPUT = /^Added \d+ lines? of output to the chat\.?$/
/** The first line of aider's lint report (`Coder.lint_edited` via the linter). */
const LINT_REPORT = /^# Fix any errors below, if possible\.?$/
const LINT_CONFIRM = /^Attempt to fix lint errors\?/
const TEST_CONFIRM = /^Attempt to fix test errors\?/
/** `Coder.apply_updates` when the reply's edits could not be parsed. */
const EDIT_ERROR = /^The LLM did not conform to the edit format\.?$/
const REFLECTIONS_STOP = /^Only \d+ reflections allowed, stopping\.?$/
/** aider's documentation links it prints beside errors. */
const DOCS_URL = /^https?:\/\/aider\.chat\/\S*$/

/**
 * aider's own status reports: what it prints about its work, never what a command printed.
 * A backwards scan for command output stops at them.
 */
const STATUS = [
  /^Tokens: /,
  /^Cost: /,
  /^Applied edit to /,
  /^Did not apply edit to /,
  /^Commit [0-9a-f]{7,} /,
  /^Committing /,
  /^You can use \/undo /,
  /^Added .+ to the chat\.?$/,
  /^Removed .+ from the chat\.?$/,
  /^Running /,
  REFLECTIONS_STOP,
  DOCS_URL,
  CONFIRM,
]
const isStatus = (text: string) => STATUS.some((re) => re.test(text))

/** Slash commands whose output aider can add to the chat (`/run`, its `!` alias, `/test`). */
const RUN_COMMAND = /^(?:\/(?:run|test)\b|!)/

/**
 * Commands that send their argument to the model as the person's message (`cmd_ask`, `cmd_code`,
 * `cmd_architect`, `cmd_context` run `coder.run(with_message=args)`, which logs the argument as
 * its own `#### ` input). Source: aider/commands.py.
 */
const MESSAGE_COMMAND = /^\/(?:ask|code|architect|context)\s+(\S[\s\S]*)$/

/** `/clear` and `/reset` (`/drop` of every file plus `/clear`): they empty aider's chat history. */
const CLEAR_COMMAND = /^\/(?:clear|reset)\s*$/

/**
 * What aider sent to the model out of one log block, as user messages: command output the person
 * added to the chat (the entries before the `Add … output to the chat? y` / `Added N lines of
 * output` line), a lint report the person asked to fix (`# Fix any errors below …` up to
 * `Attempt to fix lint errors? y`), and an edit-format error aider reflected to the model (the
 * entries after `The LLM did not conform to the edit format.`, unless it stopped reflecting).
 * `afterCommand`: the block follows a `/run`-like input, so every entry before the question is
 * that command's output. `missing`: output was added but aider did not write it to the file.
 */
function sentToModel(
  entries: readonly LogEntry[],
  afterCommand: boolean,
): { sent: { entries: LogEntry[]; flags: MessageFlags }[]; missing: LogEntry | null } {
  const sent: { entries: LogEntry[]; flags: MessageFlags }[] = []
  let missing: LogEntry | null = null
  const texts = entries.map((e) => e.text)

  const addAt = texts.findIndex((t) => ADD_OUTPUT.test(t) || ADDED_OUTPUT.test(t))
  const anchor = entries[addAt]
  if (anchor) {
    const question = ADD_OUTPUT.test(anchor.text) ? confirmed(anchor.text) : true
    const testConfirm = texts.find((t) => TEST_CONFIRM.test(t))
    const fixTests = testConfirm === undefined ? true : confirmed(testConfirm) !== false
    if (question !== false && (afterCommand || fixTests)) {
      let from = addAt
      if (afterCommand) from = 0
      else while (from > 0 && !isStatus(texts[from - 1] ?? '')) from--
      let output = entries.slice(from, addAt)
      // aider 0.5x prints the output only once added: after the question, up to its next report.
      if (afterCommand && !output.some((e) => e.text.trim() !== '')) {
        output = []
        for (const e of entries.slice(addAt + 1)) {
          if (isStatus(e.text) || LINT_REPORT.test(e.text) || EDIT_ERROR.test(e.text)) break
          output.push(e)
        }
      }
      if (output.some((e) => e.text.trim() !== ''))
        sent.push({ entries: output, flags: { command: true } })
      else missing = anchor
    }
  }

  const lintAt = texts.findIndex((t) => LINT_REPORT.test(t))
  if (lintAt >= 0) {
    const offset = texts.slice(lintAt).findIndex((t) => LINT_CONFIRM.test(t))
    const confirmAt = offset < 0 ? -1 : lintAt + offset
    if (confirmAt > lintAt && confirmed(texts[confirmAt] ?? '') === true)
      sent.push({ entries: entries.slice(lintAt, confirmAt), flags: { command: true } })
  }

  const errorAt = texts.findIndex((t) => EDIT_ERROR.test(t))
  if (errorAt >= 0 && !texts.some((t) => REFLECTIONS_STOP.test(t))) {
    const detail: LogEntry[] = []
    for (const e of entries.slice(errorAt + 1)) {
      if (DOCS_URL.test(e.text) || (detail.length === 0 && e.text.trim() === '')) continue
      if (isStatus(e.text)) break
      detail.push(e)
    }
    if (detail.length > 0) sent.push({ entries: detail, flags: { injected: true } })
  }
  return { sent, missing }
}

// ---------------------------------------------------------------------------------------------
// Sessions
// ---------------------------------------------------------------------------------------------

/** The main model a startup banner names (`Main model: X with …`, older `Model: X …`). */
function modelOf(entries: readonly LogEntry[]): string | undefined {
  for (const e of entries) {
    const m = /^(?:Main )?[Mm]odel: (\S+)/.exec(e.text)
    if (m) return m[1]
  }
  return undefined
}

/** `a–b` or `a` for a block's line span. */
function span(entries: readonly LogEntry[]): string {
  const first = entries[0]?.line ?? 0
  const lastEntry = entries[entries.length - 1]
  const last = lastEntry ? lastEntry.line + lastEntry.raw.length - 1 : first
  return last > first ? `${first}–${last}` : `${first}`
}

/** `1 block`, `3 blocks`. */
const plural = (n: number, noun: string) => `${n} ${noun}${n === 1 ? '' : 's'}`

/** Without the empty entries at either end. */
function trimBlank(entries: readonly LogEntry[]): LogEntry[] {
  let a = 0
  let b = entries.length
  while (a < b && (entries[a]?.text.trim() ?? '') === '') a++
  while (b > a && (entries[b - 1]?.text.trim() ?? '') === '') b--
  return entries.slice(a, b)
}

/** Cuts a notice to `max` code points. */
function cut(text: string, max: number): string {
  const chars = [...text]
  return chars.length <= max ? text : `${chars.slice(0, max - 1).join('')}…`
}

/** One `# aider chat started at` session, converted. */
interface Session {
  header: Extract<Block, { kind: 'header' }> | null
  /** First line of the session (its header, or its first block). */
  line: number
  drafts: DraftMessage[]
  warnings: string[]
  /** aider's own log that is not a message: the startup banner, what it only printed. */
  notes: string[]
  model?: string
  /** Something was said to or by the model (not only slash commands). */
  conversation: boolean
}

/**
 * Converts the blocks of one session. User inputs → `user` messages, except: slash commands and
 * `!` shell commands, which aider handles itself and never sends to the model (aider/commands.py),
 * are counted in a note (names and lines), not messages — what they put into the context stays a
 * message: the text of `/ask text` (`/code`, `/architect`, `/context`; aider logs it as its own
 * next input, which is then the message, else the text is taken from the command line), `/run`
 * output the person added (`sentToModel`); `/add`-ed file contents are not in the file. `/clear`
 * and `/reset` also get a note naming their line and how many messages were in the session before
 * them: aider empties its chat history there, so those were no longer in the model's context
 * afterwards (the messages stay in one conversation, in file order, so the inspector still shows
 * them). `<blank>` inputs and logged answers to aider's questions are skipped; an input repeating
 * the previous reply (architect mode handing its plan to the editor model) is flagged `injected`.
 * Assistant text → `assistant` messages (streamed reasoning in aider's tags → thinking parts:
 * `withReasoning`). Log blocks: the startup banner (the log before the first
 * input) and everything aider only printed become `notes`; what aider sent to the model from them
 * becomes user messages (`sentToModel`).
 */
function convertSession(
  header: Session['header'],
  blocks: readonly Block[],
  keepRaw: boolean,
): Session {
  const drafts: DraftMessage[] = []
  const warnings: string[] = []
  const notes: string[] = []
  const logBlocks: number[] = []
  let banner: LogEntry[] = []
  let started = false
  /** The last input, when it was a command and no message followed it yet. */
  let lastCommand: string | null = null
  const commands: { line: number; name: string }[] = []
  const clears: string[] = []
  const missing: string[] = []

  const source = (line: number, raw: string[]): SourceRef => {
    const s: SourceRef = { format, line }
    if (keepRaw) s.raw = raw.join('\n')
    return s
  }

  for (const b of blocks) {
    if (b.kind === 'header') continue
    if (b.kind === 'log') {
      if (!started) {
        banner = [...banner, ...b.entries]
        continue
      }
      const command = lastCommand !== null && RUN_COMMAND.test(lastCommand)
      const { sent, missing: lost } = sentToModel(b.entries, command)
      if (sent.length > 0) lastCommand = null
      for (const s of sent) {
        const kept = trimBlank(s.entries)
        const first = kept[0]
        if (!first) continue
        drafts.push({
          id: '',
          role: 'user',
          content: kept.map((e) => e.text).join('\n'),
          flags: s.flags,
          source: source(first.line, kept.flatMap((e) => e.raw)),
        })
      }
      if (lost) missing.push(`line ${lost.line}: ${quoteForMessage(lost.text, 80)}`)
      logBlocks.push(b.line)
      continue
    }
    started = true
    if (b.kind === 'text') {
      lastCommand = null
      const content = withReasoning(b.lines.join('\n'))
      drafts.push({ id: '', role: 'assistant', content, source: source(b.line, b.lines) })
      continue
    }
    const text = b.lines.join('\n')
    // An empty Enter (`<blank>`) sends nothing; a logged answer to aider's question is its log.
    if (text.trim() === '<blank>' || text.trim() === '') continue
    if (b.lines.length === 1 && CONFIRM.test(text)) {
      logBlocks.push(b.line)
      continue
    }
    if (/^[/!]/.test(text)) {
      // aider handles the command itself; what it sends the model is a message of its own.
      commands.push({ line: b.line, name: text.startsWith('!') ? '!' : (/^\/\S*/.exec(text)?.[0] ?? text) })
      lastCommand = text
      if (CLEAR_COMMAND.test(text.trim())) {
        const before = drafts.length
        clears.push(
          `line ${b.line}: ${text.trim()} — aider emptied its chat history here: the ` +
            `${plural(before, 'message')} before it were no longer in the model's context`,
        )
      }
      const asked = MESSAGE_COMMAND.exec(text.trim())?.[1]
      if (asked !== undefined && !echoFollows(blocks, blocks.indexOf(b), asked)) {
        drafts.push({ id: '', role: 'user', content: asked, source: source(b.line, b.raw) })
        lastCommand = null
      }
      continue
    }
    lastCommand = null
    const d: DraftMessage = { id: '', role: 'user', content: text, source: source(b.line, b.raw) }
    const previous = drafts[drafts.length - 1]
    if (previous?.role === 'assistant' && String(previous.content).trim() === text.trim())
      d.flags = { injected: true }
    drafts.push(d)
  }

  // The header and the log are file text: one line each in a note, and cut short.
  const where = header ? `line ${header.line}: ${cut(oneLine(header.text), 120)}` : `line ${blocks[0]?.line ?? 1}`
  if (banner.length > 0) {
    const lines = banner.map((e) => e.text.trim()).filter((t) => t !== '')
    notes.push(
      `${where}: aider's startup log (lines ${span(banner)}), not a message: ` +
        cut(oneLine(lines.join('; ')), 400),
    )
  }
  if (logBlocks.length > 0) {
    const shown = logBlocks.slice(0, 8).join(', ')
    notes.push(
      `${plural(logBlocks.length, 'block')} of aider's console output ` +
        `(line${logBlocks.length > 1 ? 's' : ''} ${shown}${logBlocks.length > 8 ? ', …' : ''}) ` +
        '— its reports of edits, commits, tokens and costs, ' +
        'listings, questions and answers — printed for the person, not sent to the model: not ' +
        'messages',
    )
  }
  if (commands.length > 0) {
    const names = [...new Set(commands.map((c) => c.name))].slice(0, 8).join(', ')
    const shown = commands
      .slice(0, 8)
      .map((c) => c.line)
      .join(', ')
    notes.push(
      `${plural(commands.length, 'aider command')} (${names}; ` +
        `line${commands.length > 1 ? 's' : ''} ${shown}${commands.length > 8 ? ', …' : ''}) ` +
        '— handled by aider itself, the command line never sent to the model: not messages',
    )
  }
  for (const item of clears) notes.push(item)
  if (missing.length > 0) {
    warnings.push(
      `${plural(missing.length, 'command output')} added to the chat but not in this file ` +
        `(aider logged only its report: ${missing.slice(0, 5).join('; ')}): not imported`,
    )
  }
  const model = modelOf(banner)
  const conversation = drafts.some(
    (d) => d.role === 'assistant' || (d.role === 'user' && !d.flags?.command && !d.flags?.injected),
  )
  const session: Session = {
    header,
    line: header?.line ?? blocks[0]?.line ?? 1,
    drafts,
    warnings,
    notes,
    conversation,
  }
  if (model !== undefined) session.model = model
  return session
}

/**
 * The tag aider wraps streamed reasoning in before it writes a reply to the history:
 * `<thinking-content-<32 hex>>` … `</thinking-content-<32 hex>>` (aider/reasoning_tags.py
 * `REASONING_TAG`, `format_reasoning_content`). A reply cut off mid-reasoning has no closing tag.
 */
const REASONING_BLOCK = /<(thinking-content-[0-9a-f]+)>([\s\S]*?)(?:<\/\1>|$)/g

/**
 * A reply's text with its reasoning blocks as thinking parts (variant `reasoning`, the text
 * between the tags trimmed) and the text around them as text parts; a reply without them stays
 * a string.
 */
function withReasoning(text: string): string | Part[] {
  if (!text.includes('<thinking-content-')) return text
  const parts: Part[] = []
  const addText = (t: string) => {
    if (t.trim() !== '') parts.push({ type: 'text', text: t.trim() })
  }
  let at = 0
  for (const m of text.matchAll(REASONING_BLOCK)) {
    addText(text.slice(at, m.index))
    const inner = (m[2] ?? '').trim()
    if (inner !== '') parts.push({ type: 'thinking', variant: 'reasoning', text: inner })
    at = m.index + m[0].length
  }
  addText(text.slice(at))
  if (parts.length === 0) return ''
  return parts.length === 1 && parts[0]?.type === 'text' ? parts[0].text : parts
}

/**
 * Whether the input right after block `at` (only log in between) is `text`: aider logs the
 * argument of `/ask text` as its own input when it sends it.
 */
function echoFollows(blocks: readonly Block[], at: number, text: string): boolean {
  for (let i = at + 1; i < blocks.length; i++) {
    const b = blocks[i]
    if (b?.kind === 'log') continue
    return b?.kind === 'user' && b.lines.join('\n').trim() === text.trim()
  }
  return false
}

/** Splits the blocks at each `# aider chat started at` header (text before the first: its own). */
function splitSessions(blocks: readonly Block[]): { header: Session['header']; blocks: Block[] }[] {
  const out: { header: Session['header']; blocks: Block[] }[] = []
  for (const b of blocks) {
    if (b.kind === 'header') out.push({ header: b, blocks: [b] })
    else if (out.length === 0) out.push({ header: null, blocks: [b] })
    else out[out.length - 1]?.blocks.push(b)
  }
  return out
}

/**
 * Imports an aider chat history (`.aider.chat.history.md`). How aider writes it (`aider/io.py`,
 * formats.md §4.12): each launch appends `# aider chat started at …`; `user_input` writes the
 * input as `#### ` lines, each ending with two spaces (consecutive lines are one multi-line input;
 * `####   ` is an empty line of it); `ai_output` writes the reply as plain Markdown between blank
 * lines; every console message (`tool_output`, `tool_warning`, `tool_error`, answered questions)
 * is a `> ` line ending with two spaces (a message with newlines runs on unprefixed until the line
 * with the two spaces). The two spaces tell aider's lines from a reply's own `#### Heading` or
 * `> quote` (`strictnessOf`).
 *
 * Slash commands and `!` commands are aider's own, not messages (`convertSession`): a note counts
 * them, `/clear` gets a note of its own; sessions with no message left (no input, or only
 * commands) are left out and counted. A `#### ` line right under a non-blank line of a reply is
 * the reply's (aider writes a blank line before every input); a `#### ` line after a blank line
 * inside a reply's fenced code block stays ambiguous and is read as input, as aider's reader does.
 *
 * The `> ` log is aider's console, not the conversation: aider's own reader of this file
 * (`split_chat_history_markdown`, used by `--restore-chat-history`) drops it, and most of it —
 * the startup banner (version, model, git repo, repo map, files added), `Tokens:`/cost reports,
 * `Applied edit`, `Commit …`, `/ls` listings, questions and answers — never reaches the model.
 * So it is not made into messages or tool calls (aider has no tool calls): the session header is
 * the transcript's `title`, the banner's main model its `model`, and the banner and the count of
 * other log blocks are the transcript's `notes` (shown apart from the warnings, outside the
 * summarizer's prompt and the fact search). What aider does send to the model out of its log
 * becomes a `user` message where it was sent, as aider sends it: command output the person added
 * (`/run`, `!`, `/test`: `cmd_run` sends it as a user message; written before the question in
 * newer aider, after it in aider 0.5x, where the question may wrap onto an unprefixed line) and a lint report the person chose
 * to fix, flagged `command`; an edit-format error aider reflected back, flagged `injected`. Output
 * that was added but not written to the file (newer aider logs only "Added N lines of output")
 * is named in a warning.
 *
 * Each session is its own conversation (aider starts every launch with an empty chat; a session
 * run with `--restore-chat-history` had the earlier ones in its context too, which is not
 * rebuilt): the newest session with a conversation is opened and the others, in file order, are
 * further conversations (`withConversations`); sessions with no input are left out and
 * counted. A leading editor mode line is skipped. Throws an ImportError-shaped object when the
 * file has no message at all. Never modifies its input.
 */
export function importAiderText(text: string, options: ImportOptions = {}): Transcript {
  const keepRaw = options.keepRaw ?? true
  const lines = text.split(/\r?\n/)
  let start = 0
  while (start < lines.length && (lines[start] ?? '').trim() === '') start++
  if (MODELINE.test(lines[start] ?? '') && !isHeader(lines[start] ?? '')) start++
  const strict = strictnessOf(lines)
  const blocks = toBlocks(lines, strict, start)

  const sessions = splitSessions(blocks).map((s) => convertSession(s.header, s.blocks, keepRaw))
  const withMessages = sessions.filter((s) => s.drafts.length > 0)
  if (withMessages.length === 0)
    importFailure('no "#### " user input and no assistant text found in the aider history')
  const fileWarnings: string[] = []
  const fileNotes: string[] = []
  if (!strict.user && blocks.some((b) => b.kind === 'user'))
    fileWarnings.push(
      'no "#### " line ends with the two spaces aider writes after each input line (trailing ' +
        'spaces stripped?): every "#### " line was read as user input, Markdown headings too',
    )
  const empty = sessions.filter((s) => s.drafts.length === 0)
  if (empty.length > 0)
    fileNotes.push(
      `${plural(empty.length, 'aider session')} with no message (no input, or only aider ` +
        `commands) left out ` +
        `(line${empty.length > 1 ? 's' : ''} ` +
        `${empty
          .slice(0, 8)
          .map((s) => s.line)
          .join(', ')}${empty.length > 8 ? ', …' : ''})`,
    )

  const transcripts = withMessages.map((s) =>
    finalizeTranscript(format, s.drafts, [], s.warnings, {
      title: s.header?.text ?? `aider chat without a start header (line ${s.line})`,
      model: s.model,
      notes: s.notes,
    }),
  )
  let open = withMessages.length - 1
  while (open > 0 && !withMessages[open]?.conversation) open--
  if (!withMessages[open]?.conversation) open = withMessages.length - 1
  const chosen = transcripts[open] as Transcript
  const opened = {
    ...chosen,
    warnings: [...fileWarnings, ...chosen.warnings],
    notes: [...fileNotes, ...(chosen.notes ?? [])],
  }
  return withConversations([opened, ...transcripts.filter((_, i) => i !== open)], 'aider session')
}

/** The aider importer for the format registry (formats.md §2 item 1, §4.12). */
export const aiderImporter: FormatImporter<typeof format> = {
  id: format,
  label: 'aider chat history (Markdown)',
  container: 'text',
  priority: 1,
  requestFormat: null,
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
