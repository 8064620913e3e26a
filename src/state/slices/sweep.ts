import { proxy } from 'comlink'
import { getEngine } from '../../app/engine-client'
import type { PipelineConfig } from '../../engine/model'
import { windowOf } from '../../engine/models'
import { configWith, type SweepParam } from '../../engine/analysis/sweep-params'
import type { SweepAxis, SweepCell, SweepProgress, SweepResult } from '../../worker/protocol'
import { latestRequest } from '../latest'
import type { SliceCreator } from './types'

/** `cancelled`: stopped by the person, the grid holds the cells done so far. */
type SweepStatus = 'idle' | 'running' | 'done' | 'cancelled' | 'error'

/** The metric the heat map colours by. */
export type SweepMetricId = 'tokensSaved' | 'factsLost' | 'neededLost' | 'passes'

/** The sweep heat map: the grid the worker evaluates, with progress and cancel. */
export interface SweepSlice {
  sweepStatus: SweepStatus
  /** Cells done of all cells, while running and after. */
  sweepProgress: { done: number; total: number } | null
  /** The grid, filled cell by cell while the sweep runs. */
  sweepResult: SweepResult | null
  /** What the grid was run on: the transcript (its `RunView.transcriptKey`) and the base config. */
  sweepOf: { transcriptKey: string | undefined; config: PipelineConfig } | null
  sweepError: string | null
  /** The worker ran other settings than the page's (an HTTP summarizer swapped for the offline one). */
  sweepNote: string | null
  /**
   * The sweep shown was started again on the current settings: others than its two params
   * changed while the one before it ran (`sweepBaseKey`), so that one's cells no longer applied.
   */
  sweepRestarted: boolean
  sweepMetric: SweepMetricId
  setSweepMetric: (metric: SweepMetricId) => void
  /**
   * Runs the grid of the current config over `x` × `y` (a sweep in flight is replaced). While it
   * runs, a change of the config outside `x` and `y` starts it again on the new config, same axes.
   */
  runSweep: (x: SweepAxis, y: SweepAxis) => void
  /** Stops the sweep in flight; the grid keeps the cells done so far. */
  cancelSweep: () => void
  /** Applies a cell: its two values set on the pipeline (their stages switched on), one undo step. */
  applySweepCell: (xValue: number, yValue: number) => void
}

/** An empty grid for `x` × `y` (null cells) of a config with `window`, shown while the first cells arrive. */
function emptyGrid(x: SweepAxis, y: SweepAxis, window: number): SweepResult {
  return {
    x,
    y,
    cells: y.values.map(() => x.values.map((): SweepCell | null => null)),
    tokensBefore: 0,
    window,
    factsTotal: 0,
    enabledStages: [],
    complete: false,
    tokenizerCalls: 0,
  }
}

/**
 * What every cell of an `x` × `y` sweep of `config` shares: the config with the two params set to
 * one value and their stages switched on (`configWith`), as a JSON string. Two configs with one
 * key give the same grid; a change of `x` or `y` alone (a cell applied, the slider moved) keeps it.
 */
export function sweepBaseKey(config: PipelineConfig, x: SweepParam, y: SweepParam): string {
  return JSON.stringify(configWith(config, { param: x, value: 0 }, { param: y, value: 0 }))
}

/** How often cells that arrived are put on the grid while a sweep runs (ms). */
const SWEEP_FLUSH_MS = 100

/**
 * `grid` with the cells of `batch` (worker progress reports, oldest first) filled in, and the
 * progress of the last one. Rows without a new cell are shared, not copied. Null for an empty batch.
 */
export function withProgress(
  grid: SweepResult,
  batch: readonly SweepProgress[],
): { grid: SweepResult; progress: { done: number; total: number } } | null {
  const last = batch[batch.length - 1]
  if (!last) return null
  const cells = grid.cells.slice()
  const copied = new Set<number>()
  for (const p of batch) {
    if (!copied.has(p.yi)) {
      cells[p.yi] = (cells[p.yi] ?? []).slice()
      copied.add(p.yi)
    }
    const row = cells[p.yi]
    if (row) row[p.xi] = p.cell
  }
  return { grid: { ...grid, cells }, progress: { done: last.done, total: last.total } }
}

export const createSweepSlice: SliceCreator<SweepSlice> = (set, get, api) => {
  const sweeps = latestRequest() // progress and answers of older sweeps are dropped

  /** Starts the grid of the current config over `x` × `y`; `restarted`: on a settings change. */
  const start = (x: SweepAxis, y: SweepAxis, restarted: boolean) => {
    const config = get().config
    if (!config || !get().info) return
    const ticket = sweeps.next()
    set({
      sweepStatus: 'running',
      sweepProgress: { done: 0, total: x.values.length * y.values.length },
      sweepResult: emptyGrid(x, y, windowOf(config.window)),
      sweepOf: { transcriptKey: get().run?.transcriptKey, config },
      sweepError: null,
      sweepNote: null,
      sweepRestarted: restarted,
    })
    // Cells arrive one report each; one store update per report re-rendered the whole heat map
    // per cell (2,500 renders of up to 2,500 cells on a 50 × 50 grid froze the page, Cancel
    // included). They are put on the grid together, every SWEEP_FLUSH_MS.
    let pending: SweepProgress[] = []
    let timer: ReturnType<typeof setTimeout> | undefined
    const flush = () => {
      timer = undefined
      const batch = pending
      pending = []
      if (!ticket.isLatest()) return
      set((s) => {
        const next = s.sweepResult && withProgress(s.sweepResult, batch)
        return next ? { sweepResult: next.grid, sweepProgress: next.progress } : {}
      })
    }
    const onProgress = (p: SweepProgress) => {
      if (!ticket.isLatest()) return
      pending.push(p)
      timer ??= setTimeout(flush, SWEEP_FLUSH_MS)
    }
    const settle = () => {
      if (timer !== undefined) clearTimeout(timer)
      timer = undefined
      pending = []
    }
    getEngine()
      .sweep(config, x, y, proxy(onProgress))
      .then(
        (outcome) => {
          if (!ticket.isLatest()) return
          // A cancel keeps the cells done so far: those still waiting go on the grid first.
          if (timer !== undefined) {
            clearTimeout(timer)
            flush()
          }
          settle()
          if (!outcome.ok) {
            set({ sweepStatus: outcome.cancelled ? 'cancelled' : 'error', sweepError: outcome.cancelled ? null : outcome.error })
            return
          }
          const done = outcome.result.cells.flat().filter((c) => c !== null).length
          set({
            sweepResult: outcome.result,
            sweepStatus: outcome.result.complete ? 'done' : 'cancelled',
            sweepProgress: { done, total: x.values.length * y.values.length },
            sweepNote: outcome.note ?? null,
          })
        },
        (e: unknown) => {
          settle()
          if (ticket.isLatest()) set({ sweepStatus: 'error', sweepError: e instanceof Error ? e.message : String(e) })
        },
      )
  }

  // A sweep in flight is for the settings of its start: when others than its two params change
  // (same transcript), its cells would show settings no longer set, so it starts again on them.
  api.subscribe((state, prev) => {
    if (state.config === prev.config || state.info !== prev.info || state.sweepStatus !== 'running') return
    const { config, sweepOf, sweepResult } = state
    if (!config || !sweepOf || !sweepResult) return
    const { x, y } = sweepResult
    if (sweepBaseKey(config, x.param, y.param) !== sweepBaseKey(sweepOf.config, x.param, y.param)) start(x, y, true)
  })

  return {
    sweepStatus: 'idle',
    sweepProgress: null,
    sweepResult: null,
    sweepOf: null,
    sweepError: null,
    sweepNote: null,
    sweepRestarted: false,
    sweepMetric: 'tokensSaved',
    setSweepMetric: (sweepMetric) => set({ sweepMetric }),
    runSweep: (x, y) => start(x, y, false),
    cancelSweep: () => {
      if (get().sweepStatus !== 'running') return
      void getEngine().cancelSweep()
    },
    applySweepCell: (xValue, yValue) => {
      const { config, sweepResult } = get()
      if (!config || !sweepResult) return
      const next = configWith(
        config,
        { param: sweepResult.x.param, value: xValue },
        { param: sweepResult.y.param, value: yValue },
      )
      get().applyConfig(next)
    },
  }
}
