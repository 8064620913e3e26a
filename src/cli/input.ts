/**
 * Reading a command's one input file (or standard input) and importing it: what every command
 * that takes a `<file|->` starts with. Loads only the importers, so `inspect` (which runs no
 * pipeline) starts without the engine's stages.
 */
import { readFileSync } from 'node:fs'
import { importBytes } from '../engine/formats/index'
import type { Transcript } from '../engine/model'
import { InputError, UsageError } from './errors'

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

/** Reads and imports the one positional file (or `-`); bad input → InputError naming line/field. */
export function importInput(positionals: string[], command: string): { name: string; transcript: Transcript } {
  if (positionals.length !== 1) throw new UsageError(`${command} takes exactly one <file> (or - for standard input)`)
  const input = readInput(positionals[0]!)
  const imported = importBytes(input.bytes, { fileName: input.name })
  if (!imported.ok) {
    const { line, field, message } = imported.error
    // Only what the message does not already say ("invalid JSON at line 3, column 3: …").
    const where = [line !== undefined && !message.includes(`line ${line}`) ? `line ${line}` : '', field && !message.includes(field) ? field : '']
      .filter(Boolean)
      .join(', ')
    throw new InputError(`${input.name}${where ? ` (${where})` : ''}: ${imported.error.message}`)
  }
  return { name: input.name, transcript: imported.transcript }
}
