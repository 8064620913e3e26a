/**
 * Reading a command's one input file (or standard input) and importing it: what every command
 * that takes a `<file|->` starts with. Loads only the importers, so `inspect` (which runs no
 * pipeline) starts without the engine's stages.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join, relative, sep } from 'node:path'
import { ImportFailure } from '../engine/formats/failure'
import { importBytes, importFileBundle } from '../engine/formats/index'
import type { BundleEntry, FileBundle, ImportResult } from '../engine/formats/types'
import { entryJson, entryText, MAX_ENTRY_BYTES } from '../engine/formats/zip'
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

/** The bytes of `path` (`-`: standard input) and the name messages use for it; unreadable → InputError. */
function readInput(path: string): { bytes: Uint8Array; name: string } {
  try {
    const bytes = path === '-' ? readFileSync(0) : readFileSync(path)
    return { bytes: new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength), name: path === '-' ? 'stdin' : path }
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code
    throw new InputError(`${path}: cannot read the file (${code ?? (e as Error).message})`)
  }
}

/** Most files a folder given as input may hold: a session's folder holds tens to thousands. */
const MAX_FOLDER_FILES = 100_000

/**
 * A folder as a `FileBundle` (a Cline task folder, OpenCode's storage, an OpenHands conversation):
 * every file under it, named by its path relative to the folder with `/` separators; nothing is
 * read until asked. Throws an InputError when it holds more than `MAX_FOLDER_FILES` files.
 */
function folderBundle(root: string): FileBundle {
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
  const sizes = new Map(entries.map((e) => [e.name, e.bytes]))
  return {
    entries,
    read(names) {
      const out = new Map<string, Uint8Array>()
      for (const name of names) {
        const size = sizes.get(name)
        if (size === undefined) continue
        if (size > MAX_ENTRY_BYTES) throw new ImportFailure(`${name} is over the ${MAX_ENTRY_BYTES / 2 ** 20} MB limit for one file of a folder`, { field: name })
        const data = readFileSync(join(root, ...name.split('/')))
        out.set(name, new Uint8Array(data.buffer, data.byteOffset, data.byteLength))
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
  if (isFolder(path)) {
    input = { name: path }
    imported = importFileBundle(folderBundle(path), 'folder', { fileName: path })
  } else {
    const file = readInput(path)
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
