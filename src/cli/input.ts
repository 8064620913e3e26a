/**
 * Reading a command's one input file (or standard input) and importing it: what every command
 * that takes a `<file|->` starts with. Loads only the importers, so `inspect` (which runs no
 * pipeline) starts without the engine's stages.
 */
import { closeSync, fstatSync, openSync, readdirSync, readSync, realpathSync, statSync } from 'node:fs'
import { join, relative, sep } from 'node:path'
import { ImportFailure } from '../engine/formats/failure'
import { importBytes, importFileBundle } from '../engine/formats/index'
import { byteSize, MAX_INPUT_BYTES } from '../engine/formats/limits'
import type { BundleEntry, FileBundle, ImportResult } from '../engine/formats/types'
import { entryJson, entryText, MAX_ENTRY_BYTES, overBudget, readableBytes } from '../engine/formats/zip'
import type { Transcript } from '../engine/model'
import { InputError, UsageError } from './errors'
import type { CliOption, FlagValues } from './options'

/** `--conversation N|ID`: which of the file's conversations a command works on (`pickConversation`). */
export const CONVERSATION_OPTION: CliOption = {
  name: 'conversation',
  type: 'string',
  arg: 'N|ID',
  help:
    "the file's conversation to work on (a ChatGPT export's conversations, Inspect samples, " +
    'OpenHands instances, Claude Code sub-agents and sessions): its index as inspect lists them ' +
    '(0, the default, is the one opened), its id or its title',
}

/** `--max-size N`: the most bytes of input read (`maxSizeOf`). */
export const MAX_SIZE_OPTION: CliOption = {
  name: 'max-size',
  type: 'string',
  arg: 'N',
  help:
    `the most bytes of input read, ${byteSize(MAX_INPUT_BYTES)} by default: a larger file is refused ` +
    'by its size before it is read; standard input or a device is read up to it; a folder\'s ' +
    'JSON files count together. Bytes, or with K, M or G (512K, 2G)',
}

/** Multipliers of the `--max-size` suffixes (binary, as `byteSize` says sizes). */
const SIZE_UNITS: Readonly<Record<string, number>> = { '': 1, K: 1024, M: 1024 ** 2, G: 1024 ** 3 }

/** `--max-size` in bytes (`MAX_INPUT_BYTES` when not given); not a positive size → UsageError. */
function maxSizeOf(values: FlagValues): number {
  const text = values['max-size']
  if (typeof text !== 'string') return MAX_INPUT_BYTES
  const m = /^(\d+(?:\.\d+)?)([KMG]?)B?$/i.exec(text.trim())
  const bytes = m ? Math.floor(Number(m[1]) * (SIZE_UNITS[(m[2] ?? '').toUpperCase()] ?? 1)) : 0
  if (!(bytes > 0)) throw new UsageError(`--max-size takes a size in bytes, or with K, M or G (512K, 2G), got "${text}"`)
  return bytes
}

/** One conversation of a file as `inspect` lists it; `index` 0 is the one opened by default. */
export interface ConversationEntry {
  index: number
  id?: string
  title?: string
  messages: number
  /** Set on the conversation the command works on. */
  open?: true
}

/** A file's conversations: the opened one (index 0), then its `sidechains` in order (the page's picker). */
function conversationList(root: Transcript): Transcript[] {
  return [root, ...(root.sidechains ?? [])]
}

/** The entries `inspect` lists for `root`'s conversations, `open` the index worked on. */
export function conversationEntries(root: Transcript, open: number): ConversationEntry[] {
  return conversationList(root).map((t, index) => {
    const e: ConversationEntry = { index, messages: t.messages.length }
    if (t.conversationId !== undefined) e.id = t.conversationId
    if (t.title !== undefined) e.title = t.title
    if (index === open) e.open = true
    return e
  })
}

/**
 * The conversation `which` names (`--conversation`): an index as `inspect` lists it, else the
 * conversation whose `conversationId`, else whose title, is `which`. A sub-agent without its own
 * agent version takes the file's. Unknown → UsageError naming what the file has.
 */
function pickConversation(root: Transcript, which: string, name: string): { transcript: Transcript; index: number } {
  const list = conversationList(root)
  let index = /^\d+$/.test(which) ? Number(which) : -1
  if (index >= list.length) index = -1
  if (index < 0) index = list.findIndex((t) => t.conversationId === which)
  if (index < 0) index = list.findIndex((t) => t.title === which)
  const picked = list[index]
  if (!picked) {
    const has = list.length === 1 ? 'has 1 conversation: give 0' : `has ${list.length} conversations: give an index 0–${list.length - 1}`
    throw new UsageError(`--conversation ${which}: ${name} ${has}, or an id or a title as inspect lists them`)
  }
  if (index === 0) return { transcript: root, index }
  const transcript = picked.agentVersion === undefined && root.agentVersion !== undefined ? { ...picked, agentVersion: root.agentVersion } : picked
  return { transcript, index }
}

/** Bytes read at a time from a stream or device (`readBounded`). */
const READ_CHUNK = 1024 * 1024

/** Waits `ms` on this thread (a non-blocking standard input that has nothing yet). */
function pause(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms)
}

/**
 * The bytes of open file `fd`, at most `limit`: a regular file over it is refused by its size
 * before anything is read; anything else (standard input, a pipe, a device such as /dev/zero) is
 * read with a running count and stopped once it passes the limit. `name` names it in the
 * InputError.
 */
function readBounded(fd: number, name: string, limit: number): Uint8Array {
  const stat = fstatSync(fd)
  const over = (what: string) => new InputError(`${name}: ${what}; give a larger --max-size to read it`)
  if (stat.isFile() && stat.size > limit) throw over(`${byteSize(stat.size)} is over the --max-size limit of ${byteSize(limit)}`)
  const chunks: Uint8Array[] = []
  let total = 0
  for (;;) {
    // One byte past the limit tells a stream that ends at it from one that goes on.
    const chunk = new Uint8Array(Math.min(READ_CHUNK, limit + 1 - total))
    let n: number
    try {
      n = readSync(fd, chunk, 0, chunk.length, null)
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'EAGAIN') {
        pause(10)
        continue
      }
      throw e
    }
    if (n === 0) break
    total += n
    if (total > limit) throw over(`more than ${byteSize(limit)}, reading stopped at the --max-size limit`)
    chunks.push(n === chunk.length ? chunk : chunk.subarray(0, n))
  }
  if (chunks.length === 1) return chunks[0]!
  const bytes = new Uint8Array(total)
  let at = 0
  for (const c of chunks) {
    bytes.set(c, at)
    at += c.length
  }
  return bytes
}

/**
 * The bytes of `path` (`-`: standard input), at most `limit` (`readBounded`), and the name
 * messages use for it; unreadable → InputError.
 */
function readInput(path: string, limit: number): { bytes: Uint8Array; name: string } {
  const name = path === '-' ? 'stdin' : path
  let fd: number | undefined
  try {
    fd = path === '-' ? 0 : openSync(path, 'r')
    return { bytes: readBounded(fd, name, limit), name }
  } catch (e) {
    if (e instanceof InputError) throw e
    const code = (e as NodeJS.ErrnoException).code
    throw new InputError(`${path}: cannot read the file (${code ?? (e as Error).message})`)
  } finally {
    if (fd !== undefined && fd !== 0) closeSync(fd)
  }
}

/** Most files a folder given as input may hold: a session's folder holds tens to thousands. */
const MAX_FOLDER_FILES = 100_000

/**
 * A folder as a `FileBundle` (a Cline task folder, OpenCode's storage, an OpenHands conversation):
 * every file under it, named by its path relative to the folder with `/` separators; nothing is
 * read until asked. Throws an InputError when it holds more than `MAX_FOLDER_FILES` files, or
 * when its JSON files (`readableBytes`: what importers read) hold more than `limit` bytes together;
 * reading then counts every byte read against `limit` (a file may grow after it was listed).
 */
function folderBundle(root: string, limit: number): FileBundle {
  const entries: BundleEntry[] = []
  const walk = (dir: string) => {
    for (const dirent of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, dirent.name)
      if (dirent.isDirectory()) walk(path)
      else if (dirent.isFile()) {
        if (entries.length >= MAX_FOLDER_FILES) throw new InputError(`${root}: more than ${MAX_FOLDER_FILES.toLocaleString('en-US')} files; give the session's own folder`)
        entries.push({ name: relative(root, path).split(sep).join('/'), bytes: statSync(path).size, compression: 0 })
      }
    }
  }
  walk(root)
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
  const json = readableBytes(entries)
  if (json > limit) throw new InputError(`${root}: ${overBudget('its JSON files', json, limit).message}`)
  const sizes = new Map(entries.map((e) => [e.name, e.bytes]))
  /** Bytes read by every `read` so far. */
  let read = 0
  return {
    entries,
    read(names) {
      const out = new Map<string, Uint8Array>()
      for (const name of names) {
        const size = sizes.get(name)
        if (size === undefined) continue
        if (size > MAX_ENTRY_BYTES) throw new ImportFailure(`${name} is over the ${byteSize(MAX_ENTRY_BYTES)} limit for one file of a folder`, { field: name })
        if (read + size > limit) throw overBudget('its files read', read + size, limit)
        const fd = openSync(join(root, ...name.split('/')), 'r')
        try {
          const data = readBounded(fd, name, limit - read)
          read += data.length
          out.set(name, data)
        } catch (e) {
          // A file that grew past the budget since it was listed is refused as the importers expect.
          if (e instanceof InputError) throw new ImportFailure(e.message, { field: name })
          throw e
        } finally {
          closeSync(fd)
        }
      }
      return out
    },
    json: entryJson,
    text: entryText,
  }
}

/** Whether `path` names a folder (a missing path is not one: reading it then says why). */
function isFolder(path: string): boolean {
  try {
    return path !== '-' && statSync(path).isDirectory()
  } catch {
    return false
  }
}

/**
 * Refuses (UsageError) an output file `out` that is the input `input` or one of its files: the
 * same path however spelled, a symbolic link to it (their real paths are compared) or a hard link
 * (the same device and inode); for a folder input, any file inside it. An `out` that does not
 * exist yet, and standard input, are never the input.
 */
export function refuseOverwrite(flag: string, out: string, input: string): void {
  if (input === '-') return
  let outStat, inStat
  try {
    outStat = statSync(out)
    inStat = statSync(input)
  } catch {
    return
  }
  const outReal = realpathSync(out)
  const inReal = realpathSync(input)
  if (inStat.isDirectory()) {
    if (outReal.startsWith(inReal + sep)) throw new UsageError(`${flag} ${out} is a file of the input folder ${input}: write it elsewhere`)
    return
  }
  if (outReal === inReal || (outStat.dev === inStat.dev && outStat.ino === inStat.ino)) {
    throw new UsageError(`${flag} ${out} is the input file ${input}: writing it would overwrite the input; write it elsewhere`)
  }
}

/** What `importInput` gives: the conversation worked on, the whole file (`root`) and its index. */
export interface ImportedInput {
  name: string
  transcript: Transcript
  root: Transcript
  /** The index of `transcript` among `conversationList(root)`. */
  conversation: number
}

/**
 * Reads and imports the one positional file (or `-`, or a folder of one session's files) and
 * picks the conversation `--conversation` names (`pickConversation`; default the one opened); bad
 * input → InputError naming line/field.
 */
export function importInput(
  { positionals, values }: { positionals: string[]; values: FlagValues },
  command: string,
): ImportedInput {
  if (positionals.length !== 1) throw new UsageError(`${command} takes exactly one <file> (or - for standard input)`)
  const path = positionals[0]!
  let input: { name: string }
  let imported: ImportResult
  const limit = maxSizeOf(values)
  if (isFolder(path)) {
    input = { name: path }
    imported = importFileBundle(folderBundle(path, limit), 'folder', { fileName: path })
  } else {
    const file = readInput(path, limit)
    input = file
    imported = importBytes(file.bytes, { fileName: file.name })
  }
  if (!imported.ok) {
    const { line, field, message } = imported.error
    // Only what the message does not already say ("invalid JSON at line 3, column 3: …").
    const where = [line !== undefined && !message.includes(`line ${line}`) ? `line ${line}` : '', field && !message.includes(field) ? field : '']
      .filter(Boolean)
      .join(', ')
    throw new InputError(`${input.name}${where ? ` (${where})` : ''}: ${imported.error.message}`)
  }
  const root = imported.transcript
  const which = values.conversation
  if (typeof which !== 'string') return { name: input.name, transcript: root, root, conversation: 0 }
  const { transcript, index } = pickConversation(root, which, input.name)
  return { name: input.name, transcript, root, conversation: index }
}
