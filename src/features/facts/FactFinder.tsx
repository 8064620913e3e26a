import { useEffect, useMemo, useRef } from 'react'
import { formatCountOf } from '../../components/format'
import { factWalk } from '../../state/slices/facts'
import { useFactFinder, useRecorded, useRun } from '../../state/hooks'
import { useStore } from '../../state/store'
import { FactFinderWhy } from './FactFinderWhy'
import { lossWhy, verdictSentence } from './FactFinderText'
import './FactFinder.css'

const SIDE_NAME = { before: 'Before', after: 'After', recorded: 'Recorded' } as const

/**
 * The fact finder bar above Before | After: a string or regex searched in the
 * worker over both sides' full texts, an "N of M" counter walking the matching rows (Before first,
 * then After; Enter / Shift+Enter), the engine's verdict in one sentence and, for a lost fact,
 * why (the prompt line that carried it, the summary that came back). In the Recorded mode the
 * After searched is what the agent kept after its own compaction.
 */
export function FactFinder() {
  const { run } = useRun()
  const {
    factQuery: query,
    factRegex: regex,
    factSearch: search,
    factError: error,
    factCursor: cursor,
    setFactQuery,
    setFactRegex,
    refreshFactSearch: refresh,
    stepFactMatch: step,
  } = useFactFinder()
  const { afterMode, recorded } = useRecorded()
  const summarizer = useStore((s) => s.config?.summarizer)
  const inputRef = useRef<HTMLInputElement>(null)

  // A new run (settings changed, another transcript), another After mode or the recorded view
  // arriving: search again so the verdict follows what the After column shows.
  const runId = run?.runId
  const transcriptKey = run?.transcriptKey
  const recordedView = afterMode !== 'simulated' ? recorded?.view : undefined
  useEffect(() => {
    refresh()
  }, [runId, transcriptKey, recordedView, refresh])

  const walk = useMemo(() => factWalk(search), [search])
  const current = walk[cursor]
  // Messages are named by the columns of the After that was searched.
  const named = search?.against === 'recorded' ? recorded?.view : run
  const verdict = useMemo(() => (search && named ? verdictSentence(search.verdict, named) : null), [search, named])
  // Recorded vs simulated: the verdict against what the agent kept, named by the recorded columns.
  const recordedVerdict = useMemo(
    () => (search?.recordedVerdict && recorded?.view ? verdictSentence(search.recordedVerdict, recorded.view) : null),
    [search, recorded],
  )
  const why = useMemo(() => {
    if (!search || !named) return null
    const kind = search.against === 'recorded' || (summarizer !== undefined && summarizer !== 'extractive') ? 'llm' : 'extractive'
    return lossWhy(search.verdict, named, kind)
  }, [search, named, summarizer])
  const pending = query !== '' && (search?.query !== query || search.regex !== regex)

  const go = (delta: 1 | -1) => {
    // Enter before the debounced search answered: search now (it lands on the first match).
    if (pending) setFactQuery(query, { immediate: true })
    else step(delta)
  }

  let counter = ''
  if (query === '') counter = ''
  else if (error) counter = ''
  else if (search && walk.length === 0) counter = 'no match'
  else if (search && current) counter = `${cursor + 1} of ${walk.length} · ${SIDE_NAME[current.side]}`
  else if (search) counter = `${walk.length} matches`

  const sides = search
    ? `${formatCountOf(search.before.messages, 'message')} before (${formatCountOf(search.before.occurrences, 'occurrence')}) · ` +
      `${formatCountOf(search.after.messages, 'message')} after (${formatCountOf(search.after.occurrences, 'occurrence')})`
    : ''

  return (
    <div className="fact-finder" role="search" aria-label="Fact finder" data-testid="fact-finder">
      <div className="fact-finder__controls">
        <span className="fact-finder__icon" aria-hidden="true">
          ⌕
        </span>
        <input
          ref={inputRef}
          type="search"
          className="fact-finder__input"
          placeholder="Find a fact: an order number, a path, a name… or click one in an expanded message"
          aria-label="Fact to find"
          aria-invalid={error ? true : undefined}
          value={query}
          spellCheck={false}
          onChange={(e) => setFactQuery(e.target.value)}
          onKeyDown={(e) => {
            if (e.key === 'Enter') {
              e.preventDefault()
              go(e.shiftKey ? -1 : 1)
            } else if (e.key === 'Escape' && query !== '') {
              e.preventDefault()
              setFactQuery('')
            }
          }}
        />
        <label className="check fact-finder__regex" title="Read the query as a JavaScript regular expression">
          <input type="checkbox" checked={regex} onChange={(e) => setFactRegex(e.target.checked)} />
          regex
        </label>
        <span
          className="fact-finder__counter"
          data-testid="fact-counter"
          aria-live="polite"
          title={sides ? `${sides}. Matches go through the Before first, then the After. Enter: next · Shift+Enter: previous` : undefined}
        >
          {counter}
        </span>
        <button
          type="button"
          className="icon-button fact-finder__step"
          aria-label="Previous match"
          title="Previous match (Shift+Enter)"
          disabled={walk.length === 0 && !pending}
          onClick={() => go(-1)}
        >
          ↑
        </button>
        <button
          type="button"
          className="icon-button fact-finder__step"
          aria-label="Next match"
          title="Next match (Enter)"
          disabled={walk.length === 0 && !pending}
          onClick={() => go(1)}
        >
          ↓
        </button>
      </div>
      {error && query !== '' ? (
        <p className="fact-finder__verdict fact-finder__verdict--error" role="alert" data-testid="fact-error">
          {error}
        </p>
      ) : verdict && search && query !== '' ? (
        <p
          className={`fact-finder__verdict fact-finder__verdict--${verdict.tone}`}
          data-testid="fact-verdict"
          data-verdict={search.verdict.verdict}
          title={search.verdict.explanation}
        >
          <strong className="fact-finder__fact">{search.regex ? `/${search.query}/` : `“${search.query}”`}</strong>{' '}
          {recordedVerdict && <span className="fact-finder__side-label">Simulated: </span>}
          {verdict.text}
          <span className="fact-finder__sides muted"> · {sides}</span>
        </p>
      ) : null}
      {!error && search?.recordedVerdict && recordedVerdict && query !== '' && (
        <p
          className={`fact-finder__verdict fact-finder__verdict--${recordedVerdict.tone}`}
          data-testid="fact-verdict-recorded"
          data-verdict={search.recordedVerdict.verdict}
          title={search.recordedVerdict.explanation}
        >
          <span className="fact-finder__side-label">Recorded: </span>
          {recordedVerdict.text}
        </p>
      )}
      {!error && search && query !== '' && why && <FactFinderWhy why={why} highlight={{ query: search.query, regex: search.regex }} />}
    </div>
  )
}
