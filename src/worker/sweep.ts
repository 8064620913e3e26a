/**
 * The worker side of the sweep heat map: runs the engine's `sweep` over the open
 * transcript, one at a time (a new sweep cancels the one in flight), with the shared token counter
 * and the transcript session's summary memo, yielding to the worker's event loop between cells so
 * a cancel or a pipeline run gets through.
 */
import type { PipelineConfig, Transcript } from '../engine/model'
import { sweep, sweepConfigOf, type SummaryMemo, type SweepAxis, type SweepProgress } from '../engine/analysis/sweep'
import { loadCounter } from '../engine/tokens/count'
import type { LatestCall } from './latest-call'
import type { SweepOutcome } from './protocol'

/**
 * What a sweep of one transcript shares with the sweeps before it: the sweeps in flight (one at a
 * time) and the summary memo, whose summaries are only valid for that transcript's messages.
 */
export interface SweepScope {
  calls: LatestCall
  memo: SummaryMemo
}

/** A macrotask: lets the worker handle queued messages (cancel, run) between two cells. */
const yieldToEvents = () => new Promise<void>((resolve) => setTimeout(resolve, 0))

/**
 * Runs a sweep of `config` over `transcript` (engine `sweep`); `onProgress` after each cell. A
 * newer call or a cancel (`scope.calls.cancel()`) stops it: the answer is then `ok: true` with
 * `complete: false` (the cells done so far) — or `cancelled` when a newer sweep replaced it or its
 * session was disposed. Never throws.
 */
export function runSweep(
  transcript: Transcript,
  config: PipelineConfig,
  x: SweepAxis,
  y: SweepAxis,
  scope: SweepScope,
  onProgress?: (progress: SweepProgress) => void,
): Promise<SweepOutcome> {
  return scope.calls.run(
    async (signal): Promise<SweepOutcome> => {
      try {
        const { config: swept, note } = sweepConfigOf(config)
        const counter = await loadCounter(swept.encoding)
        const result = await sweep(transcript, swept, x, y, { counter, memo: scope.memo, yieldToEvents }, onProgress, signal)
        return note === undefined ? { ok: true, result } : { ok: true, result, note }
      } catch (e) {
        return { ok: false, error: e instanceof Error ? e.message : String(e) }
      }
    },
    () => ({ ok: false, error: 'cancelled', cancelled: true }),
    'superseded',
  )
}
