/**
 * The repository's own test inputs, in one place: the fault cases of `test/fixtures/cases/`
 * (small invented transcripts, each modelled on a public bug report) and the large-session
 * generator `scripts/gen-large-claude-code.mjs`. Node only; nothing here reads outside the
 * repository.
 */
import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import type { Transcript } from '../src/engine/model'

/**
 * One fault case (`test/fixtures/cases/README.md`): `kind` is the fault's general kind,
 * `source` the public report it was modelled on, `input` the messages in the format
 * `params.format` names, `params` the strategy and its settings, `expect` the correct
 * behaviour in words.
 */
export interface FaultCase {
  kind: string
  source: string
  params: Record<string, unknown> & { format: string }
  input: unknown[]
  expect: string
}

/**
 * Reads `test/fixtures/cases/<name>` (e.g. `'09-under-budget-must-be-noop.json'`), parsed as
 * `C` (a narrower view of the case a test relies on; unchecked JSON). Throws if missing.
 */
export function loadCase<C = FaultCase>(name: string): C {
  return JSON.parse(readFileSync(new URL(`fixtures/cases/${name}`, import.meta.url), 'utf8')) as C
}

/** Absolute path of the large Claude Code session generator (`scripts/gen-large-claude-code.mjs`). */
const LARGE_SESSION_GENERATOR = fileURLToPath(
  new URL('../scripts/gen-large-claude-code.mjs', import.meta.url),
)

/**
 * Writes a synthetic Claude Code session of about `megabytes` MB to `outFile` with the
 * generator (same seed and size give byte-identical output). `flags` are the generator's own,
 * e.g. `['--sidechains']`; the seed defaults to 42. Throws if the generator fails.
 */
export function generateLargeSession(megabytes: number, outFile: string, flags: string[] = []): void {
  const seeded = flags.some((f) => f.startsWith('--seed=')) ? flags : ['--seed=42', ...flags]
  execFileSync(process.execPath, [LARGE_SESSION_GENERATOR, String(megabytes), ...seeded, `--out=${outFile}`], {
    stdio: 'ignore',
  })
}

/**
 * Messages by role, tool calls (over all messages' `toolCalls`), tool results (`tool` messages)
 * and error results of a transcript: what the format fixtures' count tests compare with the
 * counts read off the file.
 */
export function transcriptCounts(t: Transcript) {
  const byRole = { system: 0, user: 0, assistant: 0, tool: 0 }
  for (const m of t.messages) byRole[m.role]++
  return {
    byRole,
    calls: t.messages.reduce((n, m) => n + (m.toolCalls?.length ?? 0), 0),
    results: t.messages.filter((m) => m.role === 'tool').length,
    errors: t.messages.filter((m) => m.isError).length,
  }
}
