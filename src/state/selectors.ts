import type { ImportError } from '../engine/formats/types'
import type { RecordedRef, RunView, TranscriptInfo } from '../worker/protocol'
import type { StoreState } from './store'

/*
 * Atomic selectors, for the few readers that must re-render on one field only (the app shell, the
 * two columns); components otherwise read the store through the domain hooks (hooks.ts).
 */

/** How many validity problems `side` of `view` has (all of them, also those the worker did not send). */
export function problemCount(view: Pick<RunView, 'checks'>, side: 'before' | 'after'): number {
  return view.checks.problemCounts?.[side] ?? view.checks[side].length
}

/** The transcript open, or null. */
export const selectInfo = (s: StoreState) => s.info
/** The pipeline config, or null before the worker's defaults. */
export const selectConfig = (s: StoreState) => s.config
/** The last simulated run's view, or null. */
export const selectRun = (s: StoreState) => s.run
/** Progress text while a load is in flight, else null. */
export const selectLoading = (s: StoreState) => s.loading
/** What the After column shows: simulated, recorded or both. */
export const selectAfterMode = (s: StoreState) => s.afterMode

/**
 * The run whose Before fates and totals the page shows: the recorded view in Recorded mode (null
 * until fetched), else the simulation (also in Recorded vs simulated mode).
 */
export const selectShownRun = (s: StoreState) =>
  s.afterMode === 'recorded' && (s.info?.recordedCompactions.length ?? 0) > 0 ? (s.recorded?.view ?? null) : s.run
export const selectBeforeRows = (s: StoreState) => selectShownRun(s)?.before.rows

/**
 * Which run the page's per-run figures (failure-mode warnings and the needed-facts line, re-work,
 * the cost view's counts) are about: in Recorded mode the recorded view shown (`recorded`: its
 * compaction and encoding, as the worker is asked about it), whatever the simulation; else the
 * last simulated run. `key` names it (the run's id; the recorded view's transcript, compaction,
 * encoding and calibration): an answer is kept for the key it was asked under, so a simulated run's settings never
 * re-ask a recorded view's figures. `view` is the run's view.
 */
export interface FiguresRun {
  key: string
  view: RunView
  recorded?: RecordedRef
}

/** The run the figures are about (`FiguresRun`), or null before it is shown. */
export function figuresRunOf(s: StoreState): FiguresRun | null {
  const view = selectShownRun(s)
  if (!view) return null
  if (view === s.run) return { key: `run:${view.runId}`, view }
  const compaction = s.recorded?.compaction ?? 0
  // The calibration it was counted with: a new one is a new recorded view, with new figures.
  const calibration = view.calibration ? `${view.calibration.overhead}:${view.calibration.ratio}` : ''
  const key = `recorded:${view.transcriptKey ?? ''}:${compaction}:${view.encoding}:${calibration}`
  return { key, view, recorded: { compaction, encoding: view.encoding } }
}

/** The key of the run the figures are about (`figuresRunOf`), or null. */
export const selectFiguresKey = (s: StoreState): string | null => figuresRunOf(s)?.key ?? null
export const selectPasses = (s: StoreState) => selectShownRun(s)?.passes

/** What a view of a worker-made result (facts table, timeline, turn context) shows. */
export type ShownResult<T> =
  | { kind: 'error'; error: string }
  | { kind: 'result'; value: T; updating: boolean }
  | { kind: 'waiting' }

/**
 * What a view of a worker-made result shows, decided the same way for every such view: its own
 * error when its last request failed (never the rows an earlier request left), the result when it
 * was made for the transcript now open (`of` is the `info` of the import it was requested under,
 * compared by identity: every import makes a new one), else nothing yet. `status` is the slice's
 * request status; `updating` is true while a newer request for the same transcript runs.
 */
export function shownResult<T>(
  value: T | null,
  of: TranscriptInfo | null,
  status: string,
  error: string | null,
  info: TranscriptInfo | null,
): ShownResult<T> {
  if (status === 'error') return { kind: 'error', error: error ?? 'unknown error' }
  if (value === null || of === null || of !== info) return { kind: 'waiting' }
  return { kind: 'result', value, updating: status === 'loading' || status === 'running' }
}

/**
 * One line for an import error banner: file, where (line / field) and why.
 * e.g. `broken.jsonl: line 3: Unexpected token } in JSON`.
 */
export function formatImportError(fileName: string, error: ImportError): string {
  const where: string[] = []
  if (error.line !== undefined && !error.message.includes(`line ${error.line}`)) where.push(`line ${error.line}`)
  if (error.field !== undefined && !error.message.includes(error.field)) where.push(`field ${error.field}`)
  let text = [fileName, ...where, error.message].join(': ')
  // An unknown-format error (`reason` set) keeps its formats for a list shown apart, not in the line.
  if (error.reason === undefined && error.tried && error.tried.length > 0 && !error.message.includes('tried')) text += ` (tried: ${error.tried.join(', ')})`
  return text
}
