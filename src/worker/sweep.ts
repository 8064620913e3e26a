/**
 * The worker side of the sweep heat map: runs the engine's `sweep` over the open
 * transcript, one at a time (a new sweep cancels the one in flight), with the shared token counter
 * and a summary memo kept per transcript, yielding to the worker's event loop between cells so a
 * cancel or a pipeline run gets through.
 */
import type { PipelineConfig, Transcript } from '../engine/model'
import { createSummaryMemo, sweep, type SummaryMemo, type SweepAxis, type SweepProgress } from '../engine/analysis/sweep'
import { loadCounter } from '../engine/tokens/count'
import type { SweepOutcome } from './protocol'

/** One memo per transcript: its summaries are only valid for that transcript's messages. */
const memos = new WeakMap<Transcript, SummaryMemo>()
let running: AbortController | null = null

/** A macrotask: lets the worker handle queued messages (cancel, run) between two cells. */
const yieldToEvents = () => new Promise<void>((resolve) => setTimeout(resolve, 0))

/**
 * The config a sweep runs: the page's, except that an HTTP summarizer is replaced by the offline
 * extractive one (a grid would send one request per pass per cell) — said in `note`.
 */
export function sweepConfigOf(config: PipelineConfig): { config: PipelineConfig; note?: string } {
  if (config.summarizer === 'extractive' || config.summarizer === 'recorded') return { config }
  const offline: PipelineConfig = { ...config, summarizer: 'extractive' }
  delete offline.summarizerOptions
  return {
    config: offline,
    note: `The sweep uses the offline extractive summarizer instead of ${config.summarizer}: every pass of every cell would be a request.`,
  }
}

/**
 * Runs a sweep of `config` over `transcript` (engine `sweep`); `onProgress` after each cell. A
 * newer call or `cancelSweep` stops it: the answer is then `ok: true` with `complete: false` (the
 * cells done so far) — or `cancelled` when a newer sweep replaced it. Never throws.
 */
export async function runSweep(
  transcript: Transcript,
  config: PipelineConfig,
  x: SweepAxis,
  y: SweepAxis,
  onProgress?: (progress: SweepProgress) => void,
): Promise<SweepOutcome> {
  running?.abort()
  const controller = new AbortController()
  running = controller
  try {
    const { config: swept, note } = sweepConfigOf(config)
    const counter = await loadCounter(swept.encoding)
    let memo = memos.get(transcript)
    if (!memo) {
      memo = createSummaryMemo()
      memos.set(transcript, memo)
    }
    const result = await sweep(transcript, swept, x, y, { counter, memo, yieldToEvents }, onProgress, controller.signal)
    if (running !== controller && !result.complete) return { ok: false, error: 'cancelled', cancelled: true }
    return note === undefined ? { ok: true, result } : { ok: true, result, note }
  } catch (e) {
    return { ok: false, error: e instanceof Error ? e.message : String(e) }
  } finally {
    if (running === controller) running = null
  }
}

/** Stops the sweep in flight (it answers with the cells done so far); false when none runs. */
export function cancelSweep(): boolean {
  if (!running) return false
  running.abort()
  return true
}
