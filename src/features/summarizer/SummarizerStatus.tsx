import type { StageId } from '../../engine/model'
import { isHttpSummarizer } from '../../state/slices/summarizer'
import { useStore } from '../../state/store'

/**
 * While a run waits for an LLM: where it is sending, and a Cancel that aborts the request in the
 * worker (the previous result stays). After a cancel, a note saying so.
 */
export function SummarizerStatus() {
  const config = useStore((s) => s.config)
  const running = useStore((s) => s.runStatus === 'running')
  const notice = useStore((s) => s.summarizerNotice)
  const cancel = useStore((s) => s.cancelSummaries)
  const http = config !== null && isHttpSummarizer(config.summarizer)
  if (http && running) {
    return (
      <div className="banner" role="status" data-testid="summarizer-running">
        <span className="banner__text">
          Waiting for summaries from {config.summarizerOptions?.model ?? 'the model'} at{' '}
          {config.summarizerOptions?.baseUrl ?? 'the endpoint'}…
        </span>{' '}
        <button type="button" className="button" onClick={() => void cancel()}>
          Cancel summaries
        </button>
      </div>
    )
  }
  if (!notice) return null
  return (
    <div className="banner" role="status" data-testid="summarizer-notice">
      <span className="banner__text">{notice}</span>
    </div>
  )
}

/** The LLM failure of a summarizing stage in its stage card (the run kept the previous result). */
export function SummarizerStageError({ stage }: { stage: StageId }) {
  const failedStage = useStore((s) => s.runErrorStage)
  const error = useStore((s) => s.runError)
  const status = useStore((s) => s.runStatus)
  if (failedStage !== stage || status !== 'error' || !error) return null
  return (
    <p className="report report--error" role="alert" data-testid="summarizer-stage-error">
      Error: {error.slice(stage.length + 2)} (the previous result is shown)
    </p>
  )
}
