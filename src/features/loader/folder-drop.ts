/**
 * A folder (or several files) dropped on the page: some agents keep a session in several files (a
 * Cline task folder, OpenCode's storage, an OpenHands conversation). Its files are collected here
 * through the browser's File and Directory Entries API and opened as one input (`loadFiles`: the
 * worker packs them into one zip archive, opened like a dropped zip), so every later step (progress, session files, re-import) sees one
 * file.
 */
import { byteSize, MAX_INPUT_BYTES } from '../../engine/formats/limits'
import { useStore } from '../../state/store'

/** Most files a dropped folder may hold: a session's folder holds tens to thousands. */
const MAX_FILES = 100_000

/** A file of a dropped folder: its path below the dropped item (`/`-separated) and the file. */
interface DroppedFile {
  name: string
  file: File
}

/** Why a dropped folder is not read (too many files or bytes). */
class TooLarge extends Error {}

/**
 * What was dropped when it is more than one plain file: folders and files as entries (a folder's
 * files are listed only through them), or, where the browser gives no entries (files dropped from
 * some sources, or made by a script), the files themselves.
 */
export type DroppedItems = { entries: FileSystemEntry[] } | { files: File[] }

/**
 * The dropped items, read synchronously (a DataTransfer's items are gone once the drop event
 * returns); null when one plain file was dropped, which opens as a file.
 */
export function droppedItems(data: DataTransfer): DroppedItems | null {
  const entries: FileSystemEntry[] = []
  for (const item of Array.from(data.items)) {
    if (item.kind !== 'file' || typeof item.webkitGetAsEntry !== 'function') continue
    const entry = item.webkitGetAsEntry()
    if (entry) entries.push(entry)
  }
  if (entries.some((e) => e.isDirectory) || entries.length > 1) return { entries }
  const files = Array.from(data.files)
  return files.length > 1 ? { files } : null
}

/** Every entry of a directory (the reader answers in batches until an empty one). */
async function directoryEntries(dir: FileSystemDirectoryEntry): Promise<FileSystemEntry[]> {
  const reader = dir.createReader()
  const all: FileSystemEntry[] = []
  for (;;) {
    const batch = await new Promise<FileSystemEntry[]>((resolve, reject) => reader.readEntries(resolve, reject))
    if (batch.length === 0) return all
    all.push(...batch)
  }
}

/** The dropped files, named by their path below the dropped item. */
async function collect(dropped: DroppedItems): Promise<DroppedFile[]> {
  const files: DroppedFile[] = []
  let bytes = 0
  const add = (name: string, file: File) => {
    bytes += file.size
    if (files.length >= MAX_FILES) throw new TooLarge(`more than ${MAX_FILES.toLocaleString('en-US')} files`)
    // All its files are read into the worker at once: one input's budget.
    if (bytes > MAX_INPUT_BYTES) throw new TooLarge(`more than ${byteSize(MAX_INPUT_BYTES)}`)
    files.push({ name, file })
  }
  if ('files' in dropped) {
    for (const file of dropped.files) add(file.name, file)
    return files
  }
  const { entries } = dropped
  const visit = async (entry: FileSystemEntry, prefix: string): Promise<void> => {
    if (entry.isDirectory) {
      for (const child of await directoryEntries(entry as FileSystemDirectoryEntry)) await visit(child, `${prefix}${entry.name}/`)
      return
    }
    add(`${prefix}${entry.name}`, await new Promise<File>((resolve, reject) => (entry as FileSystemFileEntry).file(resolve, reject)))
  }
  // One dropped folder: its files are named below it, as in a zip made of its contents.
  const only = entries.length === 1 ? entries[0] : undefined
  if (only?.isDirectory) {
    for (const child of await directoryEntries(only as FileSystemDirectoryEntry)) await visit(child, '')
  } else {
    for (const entry of entries) await visit(entry, '')
  }
  return files
}

/**
 * Opens dropped items (`droppedItems`) as one input: collected, zipped in the worker and loaded as
 * `<folder>.zip` (or `dropped files.zip`). A folder too large or unreadable is said in the import
 * error banner; the transcript shown stays.
 */
export async function openDroppedItems(dropped: DroppedItems): Promise<void> {
  const only = 'entries' in dropped && dropped.entries.length === 1 ? dropped.entries[0] : undefined
  const label = only?.isDirectory ? `${only.name}/` : 'dropped files'
  try {
    const files = await collect(dropped)
    await useStore.getState().loadFiles(files, only?.isDirectory ? `${only.name}.zip` : 'dropped files.zip')
  } catch (e) {
    const reason = e instanceof TooLarge ? `${e.message}: drop the session's own folder` : `cannot be read (${e instanceof Error ? e.message : String(e)})`
    useStore.setState({ importFailure: { fileName: label, error: { message: `the dropped folder ${reason}` } } })
  }
}
