import { useEffect } from 'react'
import { useShallow } from 'zustand/react/shallow'
import type { FailureModeWarning, PipelineConfig } from '../engine/model'
import type { TranscriptInfo } from '../worker/protocol'
import { figuresRunOf, selectConfig, selectInfo } from './selectors'
import { useStore, type StoreState } from './store'

/*
 * Domain hooks: what components read from the store, one hook per slice (or per part of one, or
 * one view over two, as `useSummaryStatus`), each a shallow-selected object, so a component
 * re-renders only when a field it got changes. Shared slices have a state hook and an actions
 * hook (`useRun` / `useRunActions`): a component that only acts never re-renders for their state.
 * Slices read by one view return state and actions together. Import progress (about ten reports
 * a second) has a hook of its own, away from the load banner and buttons.
 */

/** The fields `keys` of `state`, as a new object (compared shallowly by `useShallow`). */
function pick<K extends keyof StoreState>(state: StoreState, keys: readonly K[]): Pick<StoreState, K> {
  const out = {} as Pick<StoreState, K>
  for (const key of keys) out[key] = state[key]
  return out
}

/** The store fields `keys`, re-rendering only when one of them changes (by identity). */
function useFields<K extends keyof StoreState>(keys: readonly K[]): Pick<StoreState, K> {
  return useStore(useShallow((s: StoreState) => pick(s, keys)))
}

const LOAD = ['source', 'samples', 'loading', 'importFailure', 'importHead', 'importStartedAt'] as const
const LOAD_ACTIONS = ['start', 'loadSample', 'loadFile', 'loadFiles', 'loadText', 'dismissImportError', 'openConversation', 'cancelImport'] as const
const PIPELINE = ['config', 'configNotice', 'configHistory'] as const
const PIPELINE_ACTIONS = ['setStageParam', 'toggleStage', 'moveStage', 'setEncoding', 'setWindow', 'setSummarizer', 'setCalibration', 'applyConfig', 'dismissConfigNotice', 'undoConfig', 'redoConfig', 'endConfigEdit'] as const
const RUN = ['run', 'runStatus', 'runError', 'runStartedAt'] as const
const RUN_ACTIONS = ['requestRun', 'cancelRun', 'fetchDetail', 'fetchPassText'] as const
const SELECTION = ['selection', 'selectRow'] as const
const TAB = ['tab', 'setTab'] as const
const VIEW_ACTIONS = ['selectRow', 'setTab'] as const
const RECORDED = ['afterMode', 'recorded', 'recordedStatus', 'recordedError', 'recordedCompaction'] as const
const RECORDED_ACTIONS = ['setAfterMode', 'setRecordedCompaction', 'requestRecorded'] as const
const EXPORT = ['exporting', 'exportNotice', 'exportAfter', 'dismissExportNotice'] as const
const SUMMARIZER = ['draft', 'apiKey', 'rememberKey', 'plan', 'planStatus', 'planError'] as const
const SUMMARY_STATUS = ['summarizerNotice', 'summaryProgress', 'runErrorStage'] as const
const SUMMARIZER_ACTIONS = ['setDraft', 'setApiKey', 'setRememberKey', 'previewSend', 'confirmSend', 'closePlan', 'cancelSummaries', 'dismissSummarizerNotice'] as const
const STAGES = ['stageShown', 'stageView', 'stageViewOf', 'stageViewError', 'showStage', 'syncStageView'] as const
const FACT_FINDER = ['factQuery', 'factRegex', 'factSearch', 'factError', 'factCursor', 'setFactQuery', 'setFactRegex', 'refreshFactSearch', 'stepFactMatch'] as const
const FACT_TABLE = ['factTable', 'factTableOf', 'factTableStatus', 'factTableError', 'requestFactTable', 'watchedFacts', 'watchFact', 'unwatchFact'] as const
const TURN = ['turn', 'turnView', 'turnViewOf', 'turnStatus', 'turnError', 'setTurn', 'requestTurn', 'turnRequestText'] as const
const TIMELINE = ['timeline', 'timelineOf', 'timelineStatus', 'timelineError', 'requestTimeline', 'showTurn'] as const
const SWEEP = ['sweepStatus', 'sweepProgress', 'sweepResult', 'sweepOf', 'sweepError', 'sweepNote', 'sweepMetric'] as const
const SWEEP_ACTIONS = ['setSweepMetric', 'runSweep', 'cancelSweep', 'applySweepCell'] as const
const COSTS = ['runTokens', 'requestRunTokens'] as const
const REWORK = ['rework', 'requestRework'] as const
const COMPARE = ['comparison', 'compareConfigs', 'closeComparison'] as const
const PLAYBACK = ['playbackTurn', 'playing', 'playbackSpeed', 'startPlayback', 'exitPlayback', 'seekPlayback', 'stepPlayback', 'togglePlaying', 'setPlaybackSpeed'] as const

/** The transcript open (its `TranscriptInfo`, a new object per import), or null before the first. */
export const useInfo = (): TranscriptInfo | null => useStore(selectInfo)
/** The pipeline config the page edits; null until the worker sent its defaults. */
export const useConfig = (): PipelineConfig | null => useStore(selectConfig)
/** Loading transcripts: where the open one came from, the gallery, and the import in flight or failed. */
export const useLoad = () => useFields(LOAD)
/** Bytes and records of the file being streamed in (about ten reports a second), else null. */
export const useImportProgress = () => useStore((s) => s.importProgress)
/** Opening samples, files, pasted text and conversations; cancelling an import; the import error banner. */
export const useLoadActions = () => useFields(LOAD_ACTIONS)
/** Whether the transcript open records compactions of its own (Recorded modes, the recorded summarizer). */
export const useHasRecordedCompactions = (): boolean => useStore((s) => (s.info?.recordedCompactions.length ?? 0) > 0)
/** The config with its link notice and undo/redo stacks. */
export const usePipeline = () => useFields(PIPELINE)
/** Whether Undo and Redo have a step to take (re-renders only when one of the two flips). */
export const useUndoRedo = () =>
  useStore(
    useShallow((s: StoreState) => ({
      canUndo: s.configHistory.past.length > 0,
      canRedo: s.configHistory.future.length > 0,
    })),
  )
/** Editing the pipeline: stage params, order and switches, encoding, whole configs, undo/redo. */
export const usePipelineActions = () => useFields(PIPELINE_ACTIONS)
/** The last run's result (`run`, latest run wins), its status and error, and when the run in flight started. */
export const useRun = () => useFields(RUN)
/**
 * The failure-mode warnings of the run the figures are about (`figuresRunOf`: the recorded view in
 * Recorded mode, else the last simulated run): those its view carries, else those the worker
 * answered for it (`FailureModesSlice`), asked for while a component reading them is mounted;
 * `pending` until they come.
 */
export function useFailureModes(): { warnings: readonly FailureModeWarning[] | undefined; pending: boolean } {
  const { warnings, pending, request } = useStore(
    useShallow((s: StoreState) => {
      const run = figuresRunOf(s)
      const answered = run && s.failureModes?.key === run.key ? s.failureModes : null
      return {
        warnings: run?.view.checks.failureModes ?? answered?.warnings ?? undefined,
        pending: !!run?.view.checks.failureModesPending && !answered,
        request: s.requestFailureModes,
      }
    }),
  )
  useEffect(() => {
    if (pending) request()
  }, [pending, request])
  return { warnings, pending }
}
/** The id of the run shown (each run has a new one), or undefined before the first: what views re-ask per run by. */
export const useRunId = (): number | undefined => useStore((s) => s.run?.runId)
/** Asking for runs, the hard cancel, and fetching a row's full content or a pass's prompt. */
export const useRunActions = () => useFields(RUN_ACTIONS)
/** The selected row (side and id) and how to select one. */
export const useSelection = () => useFields(SELECTION)
/** The main view shown and how to switch it. */
export const useTab = () => useFields(TAB)
/** Selecting a row and switching the main view, for components that only act. */
export const useViewActions = () => useFields(VIEW_ACTIONS)
/** The After column's mode and the recorded compaction view (with its status and error). */
export const useRecorded = () => useFields(RECORDED)
/** Switching the After column's mode and the recorded compaction shown. */
export const useRecordedActions = () => useFields(RECORDED_ACTIONS)
/** Downloading the After shown: whether an export runs, its notice, and the actions. */
export const useExport = () => useFields(EXPORT)
/** The summarizer settings form: the draft, the key (memory only unless remembered), the send plan. */
export const useSummarizer = () => useFields(SUMMARIZER)
/** What the summarizer is doing: its notice, the run's summary progress, the stage whose call failed. */
export const useSummaryStatus = () => useFields(SUMMARY_STATUS)
/** Editing the summarizer settings, the send step, and cancelling summaries in flight. */
export const useSummarizerActions = () => useFields(SUMMARIZER_ACTIONS)
/** Stage by stage: the stage whose After is shown, that After, and the actions. */
export const useStages = () => useFields(STAGES)
/** The fact finder: query, mode, the worker's answer, the current match, and the actions. */
export const useFactFinder = () => useFields(FACT_FINDER)
/** The facts table of the run shown (with the import it was made for), its status, and the request. */
export const useFactTable = () => useFields(FACT_TABLE)
/** The context at the scrubber's turn (with the import it was made for), its status, and the actions. */
export const useTurn = () => useFields(TURN)
/** The token timeline (with the import it was made for) and the actions. */
export const useTimeline = () => useFields(TIMELINE)
/** The sweep heat map: status, progress, the grid (filled while it runs), what it ran on, the metric. */
export const useSweep = () => useFields(SWEEP)
/** Running, cancelling and applying sweeps, and choosing the metric. */
export const useSweepActions = () => useFields(SWEEP_ACTIONS)
/** The cost view's token counts of the run the figures are about (`figuresRunOf`), and the request for them. */
export const useCosts = () => useFields(COSTS)
/** Re-work after compaction for the run the figures are about (the worker's answer, with that run's key), and the request. */
export const useRework = () => useFields(REWORK)
/** The side-by-side preset comparison (two configs' figures from the worker), and its actions. */
export const useComparison = () => useFields(COMPARE)
/** Playback: the turn the session is shown as of (null: off), playing or paused, the speed, and the controls. */
export const usePlayback = () => useFields(PLAYBACK)
