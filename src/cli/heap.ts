/**
 * The heap the CLI runs in. V8's default old-space limit (about 4 GB on a 64-bit machine, however
 * much memory it has) is not the machine's memory: a full analysis holds a few KB per message
 * (the run's provenance, the decision log, the fact index), so a session of a million messages
 * needs more than the default while the machine has it to spare. For a large input the CLI
 * starts itself again once with a limit sized to the machine, unless the person chose one
 * (`--max-old-space-size` in Node's flags or `NODE_OPTIONS`: their choice wins).
 */
import { spawn } from 'node:child_process'
import { statSync } from 'node:fs'
import { constants, totalmem } from 'node:os'
import { getHeapStatistics } from 'node:v8'

/** Inputs of this many bytes or more are large enough to need more than the default heap. */
export const LARGE_INPUT_BYTES = 24 * 1024 * 1024

/** Share of the machine's memory the heap limit may reach (the rest stays for the OS and the rest of the process). */
export const HEAP_SHARE_OF_MEMORY = 0.75

/** The flag that sets V8's old-space limit, in MB. */
const HEAP_FLAG = '--max-old-space-size'

/**
 * The old-space limit (MB) to start again with for inputs totalling `inputBytes`, or null to run
 * as is: the input is under `LARGE_INPUT_BYTES`, the person set the limit (`flags` holds
 * `--max-old-space-size`), or the machine's share (`totalBytes` × `HEAP_SHARE_OF_MEMORY`) is not
 * above the current limit (`limitBytes`). Pure.
 */
export function heapLimitFor(inputBytes: number, flags: readonly string[], limitBytes: number, totalBytes: number): number | null {
  if (inputBytes < LARGE_INPUT_BYTES) return null
  if (flags.some((f) => f.startsWith(HEAP_FLAG))) return null
  const share = Math.floor((totalBytes * HEAP_SHARE_OF_MEMORY) / (1024 * 1024))
  return share * 1024 * 1024 > limitBytes ? share : null
}

/** Bytes of the files among `args` (a folder, `-` or a flag counts 0). */
function inputBytesOf(args: readonly string[]): number {
  let total = 0
  for (const a of args) {
    if (a.startsWith('-')) continue
    try {
      const s = statSync(a)
      if (s.isFile()) total += s.size
    } catch {
      // Not a path (a command name, a flag's value): nothing to add.
    }
  }
  return total
}

/**
 * When the CLI's arguments name a large input and the heap can grow (`heapLimitFor`), runs this
 * same command again in a child Node with the larger limit, its standard streams inherited, and
 * resolves to its exit code; otherwise resolves to null at once (run here). A child that ends by
 * a signal gives 128 + the signal's number, as a shell does.
 */
export function rerunWithLargerHeap(args: readonly string[]): Promise<number | null> {
  const flags = [...process.execArgv, ...(process.env.NODE_OPTIONS ?? '').split(/\s+/)]
  const mb = heapLimitFor(inputBytesOf(args), flags, getHeapStatistics().heap_size_limit, totalmem())
  if (mb === null || process.argv[1] === undefined) return Promise.resolve(null)
  return new Promise((done) => {
    const child = spawn(process.execPath, [...process.execArgv, `${HEAP_FLAG}=${mb}`, process.argv[1]!, ...args], { stdio: 'inherit' })
    child.on('error', () => done(null))
    child.on('exit', (code, signal) => done(code ?? (signal ? 128 + constants.signals[signal] : 1)))
  })
}
