/**
 * Which facts matter: each candidate fact's origin (who put it into the conversation and how it
 * was used) and its importance tier, noise last. Seed 004, "shabd bacha sakte ho, facts nahi":
 * the goal verbatim, constraints in full, decisions, identifiers — not the `584ms` of a test run
 * or the `Jun 24` of an `ls -l` listing. Decided from the fact's kind, its origin and the shape of
 * the line it stands in; never from the fact's own text. Pure, no DOM.
 */
import type { FactKind } from './patterns'

/**
 * Where a fact came from, strongest first when several apply:
 * - `user`: an ordinary user message states it (the goal, a rule, an order id the user typed);
 * - `acted-on`: it appears in a tool call's arguments (a path the agent read, an id it queried);
 * - `assistant`: the assistant stated, decided or promised it in its own text;
 * - `system`: only the system prompt or injected context holds it;
 * - `tool-output`: only tool results hold it (a value read from a tool output).
 */
export type FactOrigin = 'user' | 'acted-on' | 'assistant' | 'system' | 'tool-output'

/**
 * A fact's importance tier, most important first (`importanceRank`):
 * `watched` a fact the user of this tool asked to track; `goal` the first user request;
 * `constraint` a standing rule (`instruction`); `user` any other fact the user stated;
 * `decision` decisions, TODOs and in-flight jobs; `acted-on` an identifier or path the agent
 * used in a tool call; `other` everything else; `noise` measurements of a tool run (durations,
 * percentages and counts in tool output, sizes and dates of listing, test and log lines) — not
 * at risk by default.
 */
export type FactImportance = 'watched' | 'goal' | 'constraint' | 'user' | 'decision' | 'acted-on' | 'other' | 'noise'

/** The tiers in rank order: index 0 is the most important. */
const IMPORTANCE_ORDER: readonly FactImportance[] = [
  'watched',
  'goal',
  'constraint',
  'user',
  'decision',
  'acted-on',
  'other',
  'noise',
]

/** Rank of a tier: 0 (`watched`) … 7 (`noise`); sort ascending for "most important first". */
export function importanceRank(importance: FactImportance): number {
  return IMPORTANCE_ORDER.indexOf(importance)
}

/**
 * Whether a fact is noise: not an at-risk fact, left out of "N of M facts survive" and hidden
 * by default. The one test every measure of "important facts" uses.
 */
export function isNoiseFact(fact: { importance: FactImportance }): boolean {
  return fact.importance === 'noise'
}

/** Where a fact was seen, as bits of `FactSightings`. */
export const SEEN = {
  /** In an ordinary user message (`isOrdinaryUser`). */
  user: 1,
  /** In a tool call's arguments. */
  toolCall: 2,
  /** In an assistant message's own text. */
  assistant: 4,
  /** In a system message or an injected/command/summary user message. */
  system: 8,
  /** In a tool result. */
  toolOutput: 16,
} as const

/** The origin of a fact seen in the places `seen` (a union of `SEEN` bits); `tool-output` when none. */
export function factOrigin(seen: number): FactOrigin {
  if (seen & SEEN.user) return 'user'
  if (seen & SEEN.toolCall) return 'acted-on'
  if (seen & SEEN.assistant) return 'assistant'
  if (seen & SEEN.system) return 'system'
  return 'tool-output'
}

/** Kinds that measure a tool run when only tool output holds them: noise on any line. */
const RUN_MEASURE_KINDS: ReadonlySet<FactKind> = new Set<FactKind>(['duration', 'percentage', 'count'])

/** Kinds that are noise in tool output only on a listing, test or log line (`noiseLineShape`). */
const LINE_NOISE_KINDS: ReadonlySet<FactKind> = new Set<FactKind>(['date', 'quantity'])

/** Whether a fact of `kind` and `origin` is noise depending on its lines (`noiseLineShape`). */
function dependsOnLineShape(kind: FactKind, origin: FactOrigin): boolean {
  return origin === 'tool-output' && LINE_NOISE_KINDS.has(kind)
}

/**
 * The importance of a fact of `kind` from `origin`. `onNoiseLinesOnly` is asked only when
 * `dependsOnLineShape(kind, origin)`: whether every line of tool output holding the fact is a
 * listing, test or log line. A fact the user stated or the agent used in a tool call is never
 * noise.
 */
export function factImportance(kind: FactKind, origin: FactOrigin, onNoiseLinesOnly: () => boolean): FactImportance {
  if (kind === 'watched') return 'watched'
  if (kind === 'goal') return 'goal'
  if (kind === 'instruction') return 'constraint'
  if (origin === 'user') return 'user'
  if (kind === 'decision' || kind === 'todo' || kind === 'job') return 'decision'
  if (origin === 'acted-on') return 'acted-on'
  if (origin === 'tool-output' && RUN_MEASURE_KINDS.has(kind)) return 'noise'
  if (dependsOnLineShape(kind, origin) && onNoiseLinesOnly()) return 'noise'
  return 'other'
}

/** A line of tool output whose numbers describe the listing or the run, not the task. */
export type NoiseLineShape = 'listing' | 'test' | 'log'

/** `ls -l` entries (`-rw-r--r--  1 dev staff 112 Jun 20 16:41 name`) and its `total 96` line. */
const LISTING_LINE = /^(?:[-dlcbpsD][rwxsStT-]{9}[@+.]?\s+\d+\s|total \d+$)/

/**
 * Test-runner lines: pytest/unittest/vitest/jest results, progress (`[ 45%]`), summaries
 * (`=== 12 passed in 0.31s ===`, `Tests  2 failed | 40 passed`), and `✓`/`×` per-test lines.
 */
const TEST_LINE =
  /\b(?:PASSED|FAILED|XFAIL|XPASS|SKIPPED)\b|\[\s*\d+%\]|^=+ .* =+$|^\s*[✓✔√×✗✘]\s|^\s*(?:Tests?|Test Files|Test Suites|Duration|Time|Ran \d+ tests?)\b|\b\d+ (?:passed|failed|skipped|errors?)\b|^collected \d+ items?/

/**
 * Log lines: a line starting with a timestamp (`2025-06-24 09:10:02`, `[09:10:02]`, syslog
 * `Jun 24 09:10:02`), a log level (`INFO`, `[WARN]`), or a `git log` date line (`Date:   …`).
 */
const LOG_LINE =
  /^\[?(?:\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}|\d{2}:\d{2}:\d{2}|(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) +\d{1,2} \d{2}:\d{2}:\d{2})|^\[?(?:TRACE|DEBUG|INFO|WARN(?:ING)?|ERROR|FATAL)\b|^Date: /

/** A `cat -n` / Claude Code Read line-number prefix (`    12→`, `    12\t`): not part of the line's shape. */
const LINE_NUMBER_PREFIX = /^\s*\d+(?:→|\t)/

/**
 * The shape of one line of tool output: `listing`, `test`, `log`, or null for any other line
 * (a line of a file read, a JSON record). A line-number prefix is ignored.
 */
export function noiseLineShape(line: string): NoiseLineShape | null {
  const body = line.replace(LINE_NUMBER_PREFIX, '').trimEnd()
  if (LISTING_LINE.test(body)) return 'listing'
  if (TEST_LINE.test(body)) return 'test'
  if (LOG_LINE.test(body.trimStart())) return 'log'
  return null
}

/**
 * Whether the line of `text` holding its first occurrence of `fact` is a listing, test or log
 * line (`noiseLineShape`); false when `text` does not hold it. Work: one `indexOf` and the line.
 */
export function firstLineIsNoise(text: string, fact: string): boolean {
  const at = text.indexOf(fact)
  if (at < 0) return false
  const start = text.lastIndexOf('\n', at) + 1
  const newline = text.indexOf('\n', at + fact.length)
  return noiseLineShape(text.slice(start, newline < 0 ? text.length : newline)) !== null
}
