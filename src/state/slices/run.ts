import { proxy } from 'comlink'
import type { StageId } from '../../engine/model'
import { getEngine, restartEngine } from '../../app/engine-client'
import {
  restoreBeforePreviews,
  type MessageDetail,
  type RunView,
  type Side,
  type SummaryProgress,
} from '../../worker/protocol'
import { isHttpSummarizer } from './summarizer'
import type { SliceCreator } from './types'

/** `running` while a run is in flight or queued; `error` when the last run failed. */
type RunStatus = 'idle' | 'running' | 'done' | 'error'

/** A fetched row detail, or its fetch state. */
type DetailEntry = MessageDetail | 'loading' | 'missing'

/** Runs of the pipeline and their results. "Latest run wins": stale results are dropped. */
export interface RunSlice {
  run: RunView | null
  runStatus: RunStatus
  runError: string | null
  /** The summarizing stage whose LLM call made the last run fail, else null. */
  runErrorStage: StageId | null
  /** Where the run in flight is with its summarizer calls (streamed answers as they arrive), else null. */
  summaryProgress: SummaryProgress | null
  /** When the run in flight started (ms since epoch), to offer a hard cancel on slow runs. */
  runStartedAt: number | null
  /** Full content of rows, keyed `side:id`, for the current run only. */
  details: Record<string, DetailEntry>
  /**
   * Asks for a run with the current config (as of `playbackTurn` while playback is on).
   * Coalesced: while one run is in flight, further requests collapse into one follow-up run with
   * the latest config and turn (slider drags never queue up).
   */
  requestRun: () => void
  /** Hard cancel: terminate and re-create the worker, then re-import the current transcript. */
  cancelRun: () => Promise<void>
  /**
   * Terminates and re-creates the worker, and forgets the run in flight (its answers would come
   * from the old worker): what a hard cancel of a run or of an import starts with.
   */
  resetEngine: () => void
  /** Fetches a row's full content once per run. */
  fetchDetail: (side: Side, id: string) => void
  /**
   * Texts of the current run's passes fetched on demand (`fetchPassText`), keyed `passTextKey`:
   * each exact summarizer prompt, and each summary a long run's view left out (`PassMeta.summary`).
   */
  passTexts: Record<string, string | 'loading' | 'missing'>
  /** Fetches a pass's prompt or summary once per run. */
  fetchPassText: (which: PassText, stage: string, pass: number) => void
}

/** Which text of a pass the page fetches: the prompt sent to the summarizer, or the summary it wrote. */
export type PassText = 'prompt' | 'summary'

/** Key of a pass's text in `passTexts`. */
export function passTextKey(which: PassText, stage: string, pass: number): string {
  return `${which}:${stage}:${pass}`
}

/** The notice a hard cancel leaves (`cancelRun`); the banner offers to run again. */
export const CANCELLED_RUN = 'Run cancelled. Run it again, or change a setting first.'

/** Key of a row in `details`. */
export function detailKey(side: Side, id: string): string {
  return `${side}:${id}`
}

/**
 * Rows per message from the worker: a long transcript's runs send each side's rows in pages of
 * this many, each its own message, so none costs the main thread a long task (BENCH B5, B20).
 */
export const ROW_PAGE = 1000

/** Resolves in a later task (a macrotask), so the main thread can paint and take input between. */
function nextTask(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 0))
}

/**
 * Completes a view whose rows came in pages (`RunView.beforeRowsTotal`, `afterRowsTotal`),
 * fetching the rest page by page, each answer in a task of its own; false when the worker no
 * longer holds them (the caller asks for the run whole). `of`: a run's view, or a stage-by-stage
 * view (`runUpTo`).
 */
export async function fetchRowPages(view: RunView, of: 'run' | 'stage' = 'run'): Promise<boolean> {
  for (const side of ['before', 'after'] as const) {
    const total = side === 'before' ? view.beforeRowsTotal : view.afterRowsTotal
    if (total === undefined) continue
    const rows = view[side].rows
    while (rows.length < total) {
      const page = await getEngine().getRows(view.runId, side, rows.length, ROW_PAGE, of)
      if (!page || page.length === 0) return false
      for (const row of page) rows.push(row)
    }
  }
  delete view.beforeRowsTotal
  delete view.afterRowsTotal
  return true
}

export const createRunSlice: SliceCreator<RunSlice> = (set, get, _api, events) => {
  let wanted = 0 // id of the newest requested run
  let inFlight = false
  let generation = 0 // bumped by a hard cancel: a pump of an older worker must stop
  let progressOf: number | null = null // the run whose summarizer progress may be shown
  // The last whole-transcript view: a run as of an earlier turn takes its slim Before rows from it.
  let widest: RunView | null = null

  // The run shown and its fetched rows and prompts were of the transcript before.
  events.on('transcriptChanged', () => {
    widest = null
    set({ run: null, details: {}, passTexts: {} })
  })

  const pump = async () => {
    if (inFlight) return
    const myGeneration = generation
    inFlight = true
    let attempted = 0
    try {
      let done = 0
      while (done < wanted) {
        const runId = wanted
        attempted = runId
        const config = get().config
        if (!config) break
        // Before previews only change with the transcript: do not copy them again per run.
        const held = get().run
        const shown = widest && widest.transcriptKey === held?.transcriptKey ? widest : held
        const previewsOf = shown?.transcriptKey
        // Playback shows the session as of one turn: the run of the transcript's prefix.
        const turn = get().playbackTurn
        const asOf = turn === null ? {} : { asOfTurn: turn }
        // The key goes with the call only (never into the config); see SummarizerSlice.
        const apiKey = get().apiKey
        const keyOption = apiKey ? { apiKey, rowPage: ROW_PAGE, ...asOf } : { rowPage: ROW_PAGE, ...asOf }
        // Streamed summaries show as they arrive; progress of any other run is dropped.
        const progress = () =>
          isHttpSummarizer(config.summarizer)
            ? proxy((p: SummaryProgress) => {
                if (p.runId === runId && progressOf === runId) set({ summaryProgress: p })
              })
            : undefined
        progressOf = runId
        let outcome = await getEngine().run(config, runId, previewsOf ? { previewsOf, ...keyOption } : keyOption, progress())
        if (myGeneration !== generation) return
        if (runId !== wanted) {
          // A newer request arrived meanwhile (a slider drag): this view is never shown, so its
          // rows are neither restored nor fetched page by page; the newest request runs next.
          progressOf = null
          if (get().summaryProgress) set({ summaryProgress: null })
          done = runId
          continue
        }
        // A long view's deserialization was this task; its render gets a task of its own (BENCH B5).
        if (outcome.ok && outcome.view.before.rows.length >= ROW_PAGE) {
          await nextTask()
          if (myGeneration !== generation) return
        }
        // Pages first: slim Before rows come in pages too, and are restored whole.
        if (outcome.ok && !(await fetchRowPages(outcome.view))) {
          outcome = await getEngine().run(config, runId, apiKey ? { apiKey, ...asOf } : asOf, progress())
          if (myGeneration !== generation) return
        }
        if (outcome.ok && !restoreBeforePreviews(outcome.view, shown)) {
          outcome = await getEngine().run(config, runId, keyOption, progress())
          if (myGeneration !== generation) return
          if (outcome.ok && !(await fetchRowPages(outcome.view))) {
            outcome = await getEngine().run(config, runId, apiKey ? { apiKey, ...asOf } : asOf, progress())
          }
        }
        if (myGeneration !== generation) return
        progressOf = null
        if (get().summaryProgress) set({ summaryProgress: null })
        done = runId
        if (runId !== wanted) continue // a newer request arrived: its result is the one to show
        if (outcome.ok) {
          if (!outcome.view.asOf) widest = outcome.view
          set({ run: outcome.view, runStatus: 'done', runError: null, runStartedAt: null, details: {}, passTexts: {}, loading: null, runErrorStage: null, importHead: null })
          // The comparison with the recorded compaction follows the new simulation (and encoding).
          if (get().afterMode !== 'simulated') get().requestRecorded()
        } else if (outcome.cancelled) {
          set({ runStatus: get().run ? 'done' : 'idle', runStartedAt: null, loading: null })
        } else {
          set({ runStatus: 'error', runError: outcome.error, runStartedAt: null, loading: null, runErrorStage: outcome.stage ?? null, importHead: null })
        }
      }
    } catch (e) {
      // A newer request that arrived meanwhile runs next (finally) and decides what is shown.
      if (myGeneration === generation && attempted === wanted) {
        progressOf = null
        set({ summaryProgress: null, runStatus: 'error', runError: e instanceof Error ? e.message : String(e), runStartedAt: null, loading: null })
      }
    } finally {
      if (myGeneration === generation) {
        inFlight = false
        // A call that threw left newer requests unserved: without this the page waits forever.
        if (attempted < wanted) void pump()
      }
    }
  }

  return {
    run: null,
    runStatus: 'idle',
    runError: null,
    runErrorStage: null,
    summaryProgress: null,
    runStartedAt: null,
    details: {},
    passTexts: {},
    requestRun: () => {
      wanted++
      if (get().runStatus !== 'running') set({ runStatus: 'running', runStartedAt: Date.now() })
      void pump()
    },
    resetEngine: () => {
      generation++
      inFlight = false
      progressOf = null
      restartEngine()
    },
    cancelRun: async () => {
      get().resetEngine()
      set({ summaryProgress: null, runStatus: 'idle', runStartedAt: null, loading: null, runError: CANCELLED_RUN })
      await get().reimport()
    },
    fetchDetail: (side, id) => {
      const key = detailKey(side, id)
      if (get().details[key] !== undefined) return
      const runId = get().run?.runId
      set((s) => ({ details: { ...s.details, [key]: 'loading' } }))
      getEngine()
        .getMessageDetail(side, id)
        .then(
          (detail) => {
            if (get().run?.runId !== runId) return
            set((s) => ({ details: { ...s.details, [key]: detail ?? 'missing' } }))
          },
          () => set((s) => ({ details: { ...s.details, [key]: 'missing' } })),
        )
    },
    fetchPassText: (which, stage, pass) => {
      const key = passTextKey(which, stage, pass)
      if (get().passTexts[key] !== undefined) return
      const runId = get().run?.runId
      set((s) => ({ passTexts: { ...s.passTexts, [key]: 'loading' } }))
      const done = (text: string | null) => {
        if (get().run?.runId === runId) set((s) => ({ passTexts: { ...s.passTexts, [key]: text ?? 'missing' } }))
      }
      getEngine().getPassText(pass, stage, which).then(done, () => done(null))
    },
  }
}
