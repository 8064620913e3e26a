import { useStore } from '../../state/store'
import { MarkedText } from './FactFinderMarks'
import type { FactHighlight, LossWhyView } from './FactFinderText'

interface FactFinderWhyProps {
  why: LossWhyView
  /** The finder's query: marked in the prompt line that carried it. */
  highlight: FactHighlight
}

/**
 * Why a lost fact went, under the finder's verdict: the engine's reason, the summarizer prompt's
 * line that carried the fact (the fact marked; or the copy's own line when the prompt held it
 * nowhere), the summary that came back without it, the
 * placeholder that replaced it, or the first occurrence a back-reference pointed to (a link into
 * the Before). Untrusted texts render as text only.
 */
export function FactFinderWhy({ why, highlight }: FactFinderWhyProps) {
  const first = why.firstOccurrence
  return (
    <div className="fact-finder__why" data-testid="fact-why">
      {why.reason && (
        <p className="fact-finder__reason" data-testid="fact-why-reason">
          Why: {why.reason}
          {first && (
            <>
              {' '}
              <button
                type="button"
                className="fact-link"
                data-testid="fact-first-occurrence"
                onClick={() => useStore.getState().selectRow({ side: 'before', id: first.id, reveal: true })}
              >
                show {first.name}
              </button>
            </>
          )}
        </p>
      )}
      {why.promptLine !== undefined && (
        <figure className="fact-finder__quote" data-testid="fact-prompt-line">
          <figcaption className="muted">
            {why.inPrompt === false ? 'Its line in the prompt, as the summarizer got it' : 'The prompt line that carried it'}
            {why.pass ? ` (${why.pass})` : ''}
          </figcaption>
          <pre className="text text--mono">
            <MarkedText text={why.promptLine} highlight={highlight} />
          </pre>
        </figure>
      )}
      {why.summary !== undefined && (
        <figure className="fact-finder__quote" data-testid="fact-summary">
          <figcaption className="muted">
            The summary that came back{why.pass ? ` from ${why.pass}` : ''}, without it
          </figcaption>
          <pre className="text">{why.summary}</pre>
        </figure>
      )}
      {why.placeholder !== undefined && (
        <figure className="fact-finder__quote" data-testid="fact-placeholder">
          <figcaption className="muted">The placeholder that replaced it</figcaption>
          <pre className="text text--mono">{why.placeholder}</pre>
        </figure>
      )}
    </div>
  )
}
