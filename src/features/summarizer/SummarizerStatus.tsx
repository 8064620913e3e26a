import { formatCountOf } from '../../components/format'
import type { StageId } from '../../engine/model'
import { displayUrl } from '../../engine/util/url-credentials'
import { isHttpSummarizer } from '../../state/slices/summarizer'
import { useStore } from '../../state/store'
import { useConfig, useRun, useSummarizerActions, useSummaryStatus } from '../../state/hooks'
import type { SummaryProgress } from '../../worker/protocol'

/**
 * While a run waits for an LLM: where it is sending, which pass is being answered, the answer's
 * text as it streams in (its last ~300 code points, as plain text: it is model output), and a
 * Cancel that aborts the request in the worker (the previous result stays). After a cancel, a
 * note saying so.
 */
export function SummarizerStatus() {
  const config = useConfig()
  const running = useStore((s) => s.runStatus === 'running')
  const { summarizerNotice: notice, summaryProgress: progress } = useSummaryStatus()
  const { dismissSummarizerNotice: dismiss, cancelSummaries: cancel } = useSummarizerActions()
  const http = config !== null && isHttpSummarizer(config.summarizer)
  if (http && running) {
    return (
      <div className="banner summarizer-running" role="status" data-testid="summarizer-running">
        <div className="summarizer-running__main">
          <span className="banner__text">
            Waiting for summaries from {config.summarizerOptions?.model ?? 'the model'} at{' '}
            {config.summarizerOptions ? displayUrl(config.summarizerOptions.baseUrl) : 'the endpoint'}…
          </span>{' '}
          <button type="button" className="button" onClick={() => void cancel()}>
            Cancel summaries
          </button>
        </div>
        {progress && <ProgressLine progress={progress} />}
      </div>
    )
  }
  if (!notice) return null
  return (
    <div className="banner" role="status" data-testid="summarizer-notice">
      <span className="banner__text">{notice}</span>
      <button type="button" className="button button--small" onClick={dismiss}>
        Dismiss
      </button>
    </div>
  )
}

/** "pass 2 of 3 (summarize) · streaming… 1,234 characters" and the text so far. */
function ProgressLine({ progress }: { progress: SummaryProgress }) {
  const { call, expectedCalls, stage, phase, tail, received } = progress
  // A plan made with stand-in summaries may count fewer calls than the run makes.
  const of = expectedCalls !== undefined && call <= expectedCalls ? ` of ${expectedCalls}` : ''
  const state =
    phase === 'waiting'
      ? 'waiting for the first words…'
      : phase === 'streaming'
        ? `streaming… ${formatCountOf(received, 'character')}`
        : `answered (${formatCountOf(received, 'character')})`
  return (
    <div className="summarizer-progress" data-testid="summarizer-progress">
      <span className="summarizer-progress__head">
        pass {call}
        {of} ({stage}) · {state}
      </span>
      {tail !== '' && (
        <p className="summarizer-progress__text" data-testid="summarizer-stream">
          {received > tail.length ? '…' : ''}
          {tail}
        </p>
      )}
    </div>
  )
}

/** The LLM failure of a summarizing stage in its stage card (the run kept the previous result). */
export function SummarizerStageError({ stage }: { stage: StageId }) {
  const { runErrorStage: failedStage } = useSummaryStatus()
  const { runError: error, runStatus: status } = useRun()
  if (failedStage !== stage || status !== 'error' || !error) return null
  return (
    <p className="report report--error" role="alert" data-testid="summarizer-stage-error">
      Error: {error.slice(stage.length + 2)} (the previous result is shown)
    </p>
  )
}
