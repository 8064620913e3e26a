import { describeDecision } from '../engine/stages/triggers'
import { useEffect, useState } from 'react'
import { formatCount } from '../components/format'
import { SampleGallery } from '../features/loader/LoadControls'
import { useStore } from '../state/store'
import { formatBytes, type LoadProgress } from '../state/slices/load'
import { CANCELLED_RUN } from '../state/slices/run'
import { useConfig, useImportProgress, useLoad, useLoadActions, useRecorded, useRun, useRunActions } from '../state/hooks'

/** Imports and runs longer than this offer a hard cancel (terminate and re-create the worker). */
const SLOW_RUN_MS = 1500

/** Loading with progress text, floating (no layout shift); a cancel button once an import or a run is slow. */
export function LoadingBar() {
  const { loading, importStartedAt } = useLoad()
  const progress = useImportProgress()
  const { runStatus: status, runStartedAt: startedAt } = useRun()
  const { cancelRun } = useRunActions()
  const { cancelImport } = useLoadActions()
  // An import (any phase: reading, parsing, building) or a run in flight, once it has become slow.
  const since = importStartedAt ?? (status === 'running' ? startedAt : null)
  // The start time of the import or run that has become slow; a newer one starts un-slow.
  const [slowSince, setSlowSince] = useState<number | null>(null)
  useEffect(() => {
    if (since === null) return
    const timer = setTimeout(() => setSlowSince(since), Math.max(0, since + SLOW_RUN_MS - Date.now()))
    return () => clearTimeout(timer)
  }, [since])
  const slow = since !== null && slowSince === since
  // A run waiting for an LLM has its own banner with a Cancel (SummarizerStatus): no second one here.
  const llmRun = useStore((s) => s.config?.summarizer === 'openai-compatible' || s.config?.summarizer === 'anthropic')
  const text = loading ?? (status === 'running' && !llmRun ? 'Running the pipeline…' : null)
  if (!text) return null
  return (
    <div className="loading" role="status" data-testid="loading">
      {progress ? <ImportProgressBar progress={progress} /> : <span className="loading__bar" aria-hidden="true" />}
      <span>{text}</span>
      {slow && (
        <button
          type="button"
          className="button button--small"
          onClick={() => void (importStartedAt !== null ? cancelImport() : cancelRun())}
        >
          Cancel
        </button>
      )}
    </div>
  )
}

/** Bytes (and JSONL records) of the file streaming into the worker, as a determinate bar. */
function ImportProgressBar({ progress }: { progress: LoadProgress }) {
  const { bytes, totalBytes, records, phase } = progress
  const percent = totalBytes > 0 ? Math.min(100, Math.floor((bytes / totalBytes) * 100)) : 100
  const detail =
    `${formatBytes(bytes)} of ${formatBytes(totalBytes)}` +
    (records !== undefined ? ` · ${formatCount(records)} records` : '') +
    (phase === 'building' ? ' · building' : '')
  return (
    <span className="progress">
      <span
        className="progress__track"
        role="progressbar"
        aria-label={`Importing ${progress.fileName}`}
        aria-valuemin={0}
        aria-valuemax={100}
        aria-valuenow={percent}
        aria-valuetext={`${percent}% (${detail})`}
        data-testid="import-progress"
      >
        <span className="progress__fill" style={{ width: `${percent}%` }} />
      </span>
      <span className="progress__text" data-testid="import-progress-text">
        {percent}% · {detail}
      </span>
    </span>
  )
}

/** The first screen when nothing is loaded (e.g. the first sample failed). */
export function EmptyState() {
  return (
    <div className="empty" data-testid="empty-state">
      <div className="empty__icon" aria-hidden="true">
        ⇄
      </div>
      <h2>See what compaction does to an agent's conversation</h2>
      <p className="muted">
        Drop a transcript anywhere on this page, open a file, paste JSON, or pick a sample. Everything runs in this
        browser.
      </p>
      <SampleGallery />
    </div>
  )
}

/** A failed or cancelled run: the message, the stage settings stay editable; a cancelled one can run again. */
export function RunErrorBanner() {
  const { runStatus: status, runError: error } = useRun()
  const { requestRun } = useRunActions()
  // After a cancel the transcript is re-read into a fresh worker first: no run before it is there.
  const { loading } = useLoad()
  if (!error || status === 'running') return null
  return (
    <div className={status === 'error' ? 'banner banner--error' : 'banner'} role="alert" data-testid="run-error">
      <span className="banner__icon" aria-hidden="true">
        {status === 'error' ? '⚠' : 'ℹ'}
      </span>
      <span className="banner__text">
        {status === 'error' ? <strong>Run failed. </strong> : null}
        {error}
      </span>
      {error === CANCELLED_RUN && !loading && (
        <button type="button" className="button button--small" onClick={requestRun}>
          Run again
        </button>
      )}
    </div>
  )
}

/** "No compaction fired": which thresholds were not met, per enabled stage. */
export function NothingFired() {
  const { run } = useRun()
  const config = useConfig()
  const { afterMode: mode } = useRecorded()
  if (!run || !config || mode !== 'simulated') return null
  if (run.stages.some((r) => r.changed) || run.passes.length > 0 || run.cleanup) return null
  const reasons: string[] = []
  for (const stage of config.stages) {
    if (!stage.enabled) continue
    const report = run.stages.find((r) => r.stage === stage.id)
    const suffix = report?.note ? ` (${report.note})` : ''
    // How close the trigger came, as the engine words its last check.
    const last = run.lastDecisions?.find((d) => d.stage === stage.id)
    if (last) reasons.push(`${stage.id}: ${describeDecision(last)}.`)
    else if (stage.id === 'dedupe') reasons.push(`dedupe: no tool output of ≥ 200 code points repeats byte for byte${suffix}.`)
    else if (report?.note || report?.error) reasons.push(`${stage.id}: ${report.error ?? report.note}.`)
  }
  return (
    <div className="nothing" data-testid="nothing-fired" role="status">
      <strong>No compaction fired.</strong> The context is unchanged because no stage's threshold was met:
      <ul>
        {reasons.length > 0 ? reasons.map((r) => <li key={r}>{r}</li>) : <li>Every stage is switched off.</li>}
      </ul>
      <span className="muted">Lower a trigger (compact_after, a token trigger, target or threshold_tokens) in the pipeline panel to see compaction.</span>
    </div>
  )
}
